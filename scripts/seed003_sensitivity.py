#!/usr/bin/env python3
"""Seed 003's sensitivity numbers, read from the committed sweeps (results/seed003/
sensitivity, sensitivity-freq, table-r1): the table of docs/results.md ("The sensitivity
study") and every number the failing claims' explanations in claims/seed003.toml quote from
the sweeps, so that both can be checked against the outputs.

    python3 scripts/seed003_sensitivity.py [RESULTS]      (default results/seed003)

Definitions (as docs/results.md and the claims header give them):
- "vs ValOpt": summary.csv's *_vs_valopt columns (the per-trial paired ratio, averaged over
  the trials); a mean over the rates is the mean of the three rates' ratios.
- Energy a job: per trial (energy / executed jobs) over ValOpt's, averaged over the trials.
- Rejected: summary.csv's rejected_pct (points for a difference).
- Tasks slowed / multi-core: pba_choices.csv's tasks below level 0 / on more than one core,
  over all the approach's tasks at that point.
- Grid: claims_grid.csv's cells (s_d x static power) where the claim holds.
"""
import collections
import csv
import sys

RATES = ["high", "medium", "low"]
EXPS = ["sensitivity", "sensitivity-freq", "table-r1"]


class Sweep:
    def __init__(self, root, exp):
        self.exp = exp
        self.summary = {}
        self.point = {}
        for r in csv.DictReader(open(f"{root}/{exp}/summary.csv")):
            key = (float(r["s_d"]), float(r["p_static_w"]), r["rate"])
            self.summary[key + (r["approach"],)] = r
            self.point[key] = r["point"]
        self.trials = collections.defaultdict(list)
        for r in csv.DictReader(open(f"{root}/{exp}/trials.csv")):
            self.trials[(r["point"], r["approach"])].append(r)
        self.choices = collections.defaultdict(collections.Counter)
        for r in csv.DictReader(open(f"{root}/{exp}/pba_choices.csv")):
            c = self.choices[(r["point"], r["approach"])]
            n = int(r["tasks"])
            c["all"] += n
            c["multi"] += n * (int(r["cores"]) > 1)
            c["slow"] += n * (int(r["level"]) > 0)
        self.grid = list(csv.DictReader(open(f"{root}/{exp}/claims_grid.csv")))
        self.n_trials = len(next(iter(self.trials.values())))

    def cells(self):
        return sorted({(k[0], k[1]) for k in self.point})

    def col(self, sd, p, rate, a, c):
        return float(self.summary[(sd, p, rate, a)][c])

    def vs(self, sd, p, rate, a, c):
        return 100 * (self.col(sd, p, rate, a, c) - 1)

    def mean_vs(self, sd, p, a, c):
        return 100 * (sum(self.col(sd, p, r, a, c) for r in RATES) / 3 - 1)

    def rej(self, sd, p, rate, a):
        return self.col(sd, p, rate, a, "rejected_pct")

    def energy_a_job(self, sd, p, rate, a):
        pt = self.point[(sd, p, rate)]
        xs = []
        for t, v in zip(self.trials[(pt, a)], self.trials[(pt, "valopt")]):
            assert t["trial"] == v["trial"], "unpaired trials"
            xs.append((int(t["energy_nj"]) / int(t["executed"]))
                      / (int(v["energy_nj"]) / int(v["executed"])) - 1)
        return 100 * sum(xs) / len(xs)

    def share(self, sd, p, rate, a, what):
        c = self.choices[(self.point[(sd, p, rate)], a)]
        return 100 * c[what] / c["all"]


def j(v, fmt):
    return " / ".join(fmt % x for x in v)


def table_row(s, label, sd, p):
    vo = [s.rej(sd, p, r, "valopt") for r in RATES]
    fe = [s.energy_a_job(sd, p, r, "nba-fcps") for r in RATES]
    fr = [s.rej(sd, p, r, "nba-fcps") - s.rej(sd, p, r, "valopt") for r in RATES]
    fs = [s.share(sd, p, r, "nba-fcps", "slow") for r in RATES]
    pv = [s.vs(sd, p, r, "pba", "value_vs_valopt") for r in RATES]
    pm = [s.share(sd, p, r, "pba", "multi") for r in RATES]
    ps = [s.share(sd, p, r, "pba", "slow") for r in RATES]
    return (f"| {label} | {j(vo, '%.1f')} | {j(fe, '%.1f')}% | {j(fr, '%.1f')} | "
            f"{min(fs):.0f}-{max(fs):.0f}% | {j(pv, '%+.1f')}% | {j(pm, '%.0f')}% | "
            f"{min(ps):.1f}-{max(ps):.1f}% |").replace("-0.0", "-0.0")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "results/seed003"
    sw = {e: Sweep(root, e) for e in EXPS}
    full, half, r1 = sw["sensitivity"], sw["sensitivity-freq"], sw["table-r1"]
    sds = sorted({c[0] for c in full.cells()})
    P = 6.125
    print("## Trials: " + ", ".join(f"{e} {s.n_trials}" for e, s in sw.items()))
    print("\n## docs/results.md, the sensitivity study's table\n")
    for sd in sds:
        print(table_row(full, f"s_d = {sd:g}" + (" (default)" if sd == 1 else ""), sd, P))
    for p in sorted({c[1] for c in full.cells()}):
        if p != P:
            print(table_row(full, f"s_d = 1, {p:g} W", 1.0, p))
    for sd in (1.0, 16.0):
        print(table_row(half, f"s_d = {sd:g}, half frequency-bound", sd, P))
    rp = r1.cells()[0][1]
    for sd in (1.0, 16.0):
        print(table_row(r1, f"s_d = {sd:g}, R1 table ({rp:g} W)", sd, rp))

    print("\n## Explanations' numbers (6.125 W unless said)\n")
    print("PBA value vs ValOpt at the low rate, by s_d: "
          + ", ".join(f"{full.vs(sd, P, 'low', 'pba', 'value_vs_valopt'):+.1f}% at {sd:g}" for sd in sds))
    print("PBA value vs ValOpt, mean over the rates, fully bound: "
          + ", ".join(f"{full.mean_vs(sd, P, 'pba', 'value_vs_valopt'):+.1f}% at {sd:g}" for sd in sds))
    print("  half bound: " + ", ".join(
        f"{half.mean_vs(sd, P, 'pba', 'value_vs_valopt'):+.1f}% at {sd:g}" for sd in sds))
    print("PBA energy vs ValOpt, mean over the rates, half bound: " + ", ".join(
        f"{half.mean_vs(sd, P, 'pba', 'energy_vs_valopt'):+.1f}% at {sd:g}" for sd in sds))
    for s, sd, what in ((full, 16.0, "fully bound"), (half, 1.0, "half bound")):
        print(f"NBA-FCPS vs ValOpt, {what}, s_d = {sd:g}: energy "
              f"{s.mean_vs(sd, P, 'nba-fcps', 'energy_vs_valopt'):+.1f}%, value "
              f"{s.mean_vs(sd, P, 'nba-fcps', 'value_vs_valopt'):+.1f}%")
    print("ValOpt rejects (high / medium / low): " + "; ".join(
        f"{j([full.rej(sd, P, r, 'valopt') for r in RATES], '%.1f')}% at s_d = {sd:g}" for sd in sds))
    for a in ("nba-fcps", "nba-ftps", "pba"):
        print(f"{a} rejects at s_d = 16: {j([full.rej(16.0, P, r, a) for r in RATES], '%.1f')}%")
    pts = [(s, c, r) for s in (full, half) for c in s.cells() for r in RATES]
    d = [s.rej(c[0], c[1], r, "nba-ftps") - s.rej(c[0], c[1], r, "nba-fcps") for s, c, r in pts]
    print(f"NBA-FTPS rejects no more than NBA-FCPS at {sum(x <= 0 for x in d)} of {len(d)} "
          f"points; the difference is {max(abs(x) for x in d):.2f} points at most")
    print("PBA's tasks multi-core at the high rate: " + ", ".join(
        f"{full.share(sd, P, 'high', 'pba', 'multi'):.0f}% at {sd:g}" for sd in sds))
    print("PBA's tasks multi-core at s_d = 0.25 (high / medium / low): "
          + j([full.share(0.25, P, r, "pba", "multi") for r in RATES], "%.0f") + "%")

    print("\n## Where each claim holds on the grid (fully bound; half bound)\n")
    claims = list(dict.fromkeys(r["claim"] for r in full.grid))
    for c in claims:
        parts = []
        for s, what in ((full, "fully bound"), (half, "half bound")):
            rows = [r for r in s.grid if r["claim"] == c]
            held = sorted(((float(r["p_static_w"]), float(r["s_d"])) for r in rows
                           if r["status"] == "holds"))
            parts.append((what, len(held), len(rows), held))
        (_, n1, m1, _), (_, n2, m2, _) = parts
        text = f"{n1} of {m1} cells fully frequency-bound and {n2} of {m2} half-bound"
        where = "; ".join(f"{w} at " + "; ".join(f"s_d = {sd:g}, {p:g} W" for p, sd in h)
                          for w, n, m, h in parts if h)
        print(f"{c}: holds at {text}" + (f" ({where})" if where else ""))


if __name__ == "__main__":
    main()
