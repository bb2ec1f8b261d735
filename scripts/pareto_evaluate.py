#!/usr/bin/env python3
"""Recomputes seed 002 Chapters 5-7's front points from an exported instance and the
allocations behind them, independently of kairos (Python standard library only).

    kairos pareto FILE --export-instance instance.json
    kairos pareto FILE --out DIR
    python3 scripts/pareto_evaluate.py instance.json DIR/allocations.csv
    python3 scripts/pareto_evaluate.py instance.json DIR/allocations.csv --fronts DIR/fronts.csv

Prints one CSV row per point, in fronts.csv's columns and number formats (utility or
makespan_s with six decimals, energy_j with three). With --fronts, compares each point with
its fronts.csv row and exits 1 if any differs: energy and makespan exactly (integer
millijoules and microseconds), utility to one micro-unit per task (each task's utility is
rounded to a micro-unit; a last-bit difference between this platform's exp and kairos's
libm could move that rounding). Formats: docs/formats.md, "Pareto instances" and "Pareto
allocations".

The objectives, from the dissertation's equations:
- utility-energy (Chapter 5, Eq. 12-14): each machine runs its tasks in `order`; a task
  starts at max(its machine free, its arrival) and runs ETC; utility is the sum of each
  task's utility function (Eq. 1) at its completion time since arrival, rounded to
  micro-units; energy the sum of EEC = ETC x EPC.
- makespan-energy (Chapter 6, Eq. 16-18): a machine's finish time is the sum of its tasks'
  ETC; makespan the largest; energy the sum of EEC.
- stochastic-utility-energy (Chapter 7): as utility-energy with the P-state's time and
  energy, except that a task whose utility at (start + mean time) is below theta is
  dropped at its start (no time, no energy); `expected` uses mean times, `pX` runs every
  sample of the common random numbers and takes the X-th highest utility and the X-th
  lowest energy.

It also checks that the file's integer tables follow from its real-valued ones (etc_us
from etc_s, eec_mj from etc_us and epc_w; Chapter 7's means and bin energies from the bins
and APC), so a reader may trust either.
"""
import argparse
import csv
import json
import math
import sys

FORMAT = "kairos-pareto-instance"
VERSION = 1


def round_half_away(x):
    """libm's round for x >= 0: half away from zero (Python's round is half to even)."""
    r = math.floor(x)
    return int(r + 1 if x - r >= 0.5 else r)


def micros_from_secs(s):
    return 0 if s <= 0 else round_half_away(s * 1e6)


def fail(msg):
    sys.exit(f"pareto_evaluate: {msg}")


class Curve:
    """Eq. 1: flat at the priority for F, then each class interval k decays from Psi(k) x
    priority towards Psi(k+1) x priority at delta(k) x urgency per minute."""

    def __init__(self, task, classes):
        self.priority = task["priority"]
        self.urgency = task["urgency_per_min"]
        self.first = task["first_us"]
        self.intervals = classes[task["class"]]

    def value(self, since_us):
        p = self.priority
        if since_us < self.first:
            return p
        dt = since_us - self.first
        k = None
        for i, iv in enumerate(self.intervals):
            if iv["offset_us"] <= dt:
                k = i
        if k is None:
            return p
        iv = self.intervals[k]
        psi_next = self.intervals[k + 1]["psi"] if k + 1 < len(self.intervals) else 0.0
        big_k = iv["psi"] * p
        big_next = psi_next * p
        minutes = float(dt - iv["offset_us"]) / 6e7
        u = (big_k - big_next) * math.exp(-(iv["delta"] * self.urgency) * minutes) + big_next
        return min(max(u, big_next), big_k)

    def units(self, since_us):
        """The value rounded to integer micro-units."""
        u = self.value(since_us)
        return 0 if (u != u or u <= 0.0) else round_half_away(u * 1e6)


def check_tables(inst):
    """The integer tables against the real-valued ones they are derived from."""
    if inst["objective"] in ("utility-energy", "makespan-energy"):
        for i, (row_s, row_w) in enumerate(zip(inst["etc_s"], inst["epc_w"])):
            for j, (s, w) in enumerate(zip(row_s, row_w)):
                us, mj = inst["etc_us"][i][j], inst["eec_mj"][i][j]
                if s is None:
                    if us is not None:
                        fail(f"etc_us[{i}][{j}]: {us} where etc_s is null")
                    continue
                if us != max(1, micros_from_secs(s)):
                    fail(f"etc_us[{i}][{j}]: {us} is not etc_s {s} in microseconds")
                if mj != round_half_away(us * w / 1000.0):
                    fail(f"eec_mj[{i}][{j}]: {mj} is not etc_us x epc_w / 1000")
    else:
        st = inst["stochastic"]
        for i, rows in enumerate(st["bins_us"]):
            for j, ks in enumerate(rows):
                for k, b in enumerate(ks):
                    if b is None:
                        continue
                    w = st["apc_w"][i][j][k]
                    e = st["bins_mj"][i][j][k]
                    if e != [round_half_away(t * w / 1000.0) for t in b]:
                        fail(f"bins_mj[{i}][{j}][{k}]: not bins_us x apc_w / 1000")
                    if st["mean_us"][i][j][k] != sum(b) // len(b):
                        fail(f"mean_us[{i}][{j}][{k}]: not the bins' mean")
                    if st["mean_mj"][i][j][k] != sum(e) // len(e):
                        fail(f"mean_mj[{i}][{j}][{k}]: not the bins' energies' mean")


def queues(inst, placements):
    """Each machine's tasks in run order."""
    q = [[] for _ in inst["machines"]]
    for t, (m, _k, order) in enumerate(placements):
        if not 0 <= m < len(q):
            fail(f"task {t}: machine {m} is not in the instance")
        q[m].append((order, t))
    for m, tasks in enumerate(q):
        tasks.sort()
        for a, b in zip(tasks, tasks[1:]):
            if a[0] == b[0]:
                fail(f"machine {m}: tasks {a[1]} and {b[1]} share order {a[0]}")
    return q


def evaluate(inst, curves, placements, score):
    """(first objective, energy J) of one allocation, as fronts.csv gives them."""
    tasks, mtype = inst["tasks"], inst["machines"]
    qs = queues(inst, placements)
    objective = inst["objective"]
    if objective in ("utility-energy", "makespan-energy"):
        etc, eec = inst["etc_us"], inst["eec_mj"]
        utility = energy = makespan = 0
        for q in qs:
            free = busy = 0
            for _, t in q:
                i, j = tasks[t]["type"], mtype[placements[t][0]]
                e = etc[i][j]
                if e is None:
                    fail(f"task {t}: type {i} cannot run on machine {placements[t][0]}")
                arrival = tasks[t]["arrival_us"]
                free = max(free, arrival) + e
                busy += e
                utility += curves[t].units(free - arrival)
                energy += eec[i][j]
            makespan = max(makespan, busy)
        first = utility / 1e6 if objective == "utility-energy" else makespan / 1e6
        return first, energy / 1000.0

    st = inst["stochastic"]

    def run(sample):
        utility = energy = 0
        for q in qs:
            free = 0
            for _, t in q:
                m, k, _ = placements[t]
                i, j = tasks[t]["type"], mtype[m]
                mean = st["mean_us"][i][j][k]
                if mean is None:
                    fail(f"task {t}: type {i} cannot run on machine {m}")
                arrival = tasks[t]["arrival_us"]
                start = max(free, arrival)
                if curves[t].value(start + mean - arrival) < st["theta"]:
                    continue  # dropped at its start
                if sample is None:
                    time, e = mean, st["mean_mj"][i][j][k]
                else:
                    b = sample[t]
                    time, e = st["bins_us"][i][j][k][b], st["bins_mj"][i][j][k][b]
                free = start + time
                utility += curves[t].units(free - arrival)
                energy += e
        return utility, energy

    if score == "expected":
        u, e = run(None)
    else:
        if not (score.startswith("p") and score[1:].isdigit()):
            fail(f"score {score!r}: expected or pX")
        runs = [run(s) for s in st["crn"]]
        us = sorted((r[0] for r in runs), reverse=True)
        es = sorted(r[1] for r in runs)
        x = min(max(int(score[1:]), 1), len(us)) - 1
        u, e = us[x], es[x]
    return u / 1e6, e / 1000.0


def read_allocations(path, stochastic):
    """{(label, generation, point): [(machine, pstate, order) by task]} in file order."""
    points = {}
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = next(r, None)
        want = (["score", "generation", "point", "task", "machine", "pstate", "order"]
                if stochastic else
                ["population", "generation", "point", "task", "machine", "order"])
        if header != want:
            fail(f"{path}: line 1: header {header} is not {want}")
        for line, row in enumerate(r, start=2):
            if len(row) != len(want):
                fail(f"{path}: line {line}: {len(row)} fields, not {len(want)}")
            try:
                nums = [int(x) for x in row[1:]]
            except ValueError:
                fail(f"{path}: line {line}: a field is not a whole number")
            key = (row[0], nums[0], nums[1])
            task, machine = nums[2], nums[3]
            pstate, order = (nums[4], nums[5]) if stochastic else (0, nums[4])
            placed = points.setdefault(key, [])
            if task != len(placed):
                fail(f"{path}: line {line}: task {task} where task {len(placed)} comes next")
            placed.append((machine, pstate, order))
    return points


def read_fronts(path):
    with open(path, newline="") as f:
        r = csv.reader(f)
        header = next(r)
        return header, {(row[0], int(row[1]), int(row[2])): (row[3], row[4]) for row in r}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("instance", help="the file kairos pareto --export-instance wrote")
    ap.add_argument("allocations", help="allocations.csv of a kairos pareto run")
    ap.add_argument("--fronts", help="fronts.csv of the same run: compare every point")
    a = ap.parse_args()
    with open(a.instance) as f:
        inst = json.load(f)
    if inst.get("format") != FORMAT or inst.get("version") != VERSION:
        fail(f"{a.instance}: not a {FORMAT} version {VERSION} file")
    check_tables(inst)
    stochastic = inst["objective"] == "stochastic-utility-energy"
    classes = inst["utility_classes"]
    curves = [Curve(t, classes) for t in inst["tasks"]]
    points = read_allocations(a.allocations, stochastic)
    first_name = "makespan_s" if inst["objective"] == "makespan-energy" else "utility"
    label = "score" if stochastic else "population"
    fronts = read_fronts(a.fronts)[1] if a.fronts else None
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow([label, "generation", "point", first_name, "energy_j"])
    bad = 0
    n = len(inst["tasks"])
    for (lab, gen, pt), placements in points.items():
        if len(placements) != n:
            fail(f"point ({lab}, {gen}, {pt}): {len(placements)} tasks placed, not {n}")
        score = lab if stochastic else "expected"
        first, energy = evaluate(inst, curves, placements, score)
        row = [lab, gen, pt, f"{first:.6f}", f"{energy:.3f}"]
        out.writerow(row)
        if fronts is not None:
            want = fronts.get((lab, gen, pt))
            if want is None:
                print(f"point ({lab}, {gen}, {pt}): not in {a.fronts}", file=sys.stderr)
                bad += 1
                continue
            tol = 1e-6 * n if first_name == "utility" else 0.0
            ok_first = abs(float(want[0]) - first) <= tol + 5e-7
            ok_first = ok_first if tol else want[0] == row[3]
            if not (ok_first and want[1] == row[4]):
                print(f"point ({lab}, {gen}, {pt}): fronts.csv has {want[0]}, {want[1]}; "
                      f"the allocation gives {row[3]}, {row[4]}", file=sys.stderr)
                bad += 1
    if fronts is not None:
        print(f"{len(points) - bad} of {len(points)} points agree with {a.fronts}",
              file=sys.stderr)
        if bad:
            sys.exit(1)


if __name__ == "__main__":
    main()
