#!/usr/bin/env python3
"""Joins the report folders of a `kairos pareto` run made in pieces into the folder one
sitting would have written.

    python3 scripts/pareto_pieces.py OUT PIECE1 PIECE2 ...

Each piece after the first resumed the one before it (`kairos pareto --state DIR` in the
first, `--state DIR --resume` after), with checkpoints later than the piece before's, so its
fronts are those one sitting reaches at those checkpoints (the state tests say so). Written to
OUT:
- fronts.csv: every piece's rows, by population (or score) in the first piece's order, then
  by generation: the order of one sitting's file;
- coverage.csv: for utility-energy and makespan-energy runs (a `generation` column) every
  piece's rows in turn, as one sitting writes them checkpoint by checkpoint; for a
  stochastic run (no such column), the last piece's, as it is computed at the last
  checkpoint;
- every other CSV (machines.csv, clouds.csv, least-energy.csv: of the last checkpoint or of
  the instance): the last piece's.
The header of each file must agree across pieces; a piece without a finished run (no
coverage.csv) is refused.
"""
import csv, os, sys


def rows(path):
    with open(path, newline="") as f:
        text = f.read()
    lines = text.splitlines(keepends=True)
    return lines[0], lines[1:]


def main(out, pieces):
    for p in pieces:
        if not os.path.exists(os.path.join(p, "coverage.csv")):
            sys.exit(f"{p}: no coverage.csv, so not a finished run (the piece stopped early?)")
    os.makedirs(out, exist_ok=True)
    # fronts.csv: group key = first column (population or score), then generation.
    header, order, by_key = None, [], {}
    for p in pieces:
        h, body = rows(os.path.join(p, "fronts.csv"))
        if header is None:
            header = h
        elif h != header:
            sys.exit(f"{p}/fronts.csv: header {h.strip()!r} differs from {header.strip()!r}")
        cols = next(csv.reader([h]))
        gi = cols.index("generation")
        for line in body:
            r = next(csv.reader([line]))
            if r[0] not in by_key:
                order.append(r[0])
                by_key[r[0]] = []
            by_key[r[0]].append((int(r[gi]), len(by_key[r[0]]), line))
    with open(os.path.join(out, "fronts.csv"), "w", newline="") as f:
        f.write(header)
        for k in order:
            for _, _, line in sorted(by_key[k]):
                f.write(line)
    # coverage.csv.
    h0, _ = rows(os.path.join(pieces[0], "coverage.csv"))
    if "generation" in next(csv.reader([h0])):
        with open(os.path.join(out, "coverage.csv"), "w", newline="") as f:
            f.write(h0)
            for p in pieces:
                h, body = rows(os.path.join(p, "coverage.csv"))
                if h != h0:
                    sys.exit(f"{p}/coverage.csv: header differs from the first piece's")
                f.writelines(body)
    else:
        with open(os.path.join(pieces[-1], "coverage.csv"), newline="") as src:
            text = src.read()
        with open(os.path.join(out, "coverage.csv"), "w", newline="") as f:
            f.write(text)
    # Everything else: the last piece's.
    last = pieces[-1]
    for name in sorted(os.listdir(last)):
        if name.endswith(".csv") and name not in ("fronts.csv", "coverage.csv", "timings.csv"):
            with open(os.path.join(last, name), newline="") as src:
                text = src.read()
            with open(os.path.join(out, name), "w", newline="") as f:
                f.write(text)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
