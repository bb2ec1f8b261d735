#!/usr/bin/env python3
"""Is 33k's percentage of the bound above 50k's at dropping thresholds 3 and 5 (App. G), or
do the two tie there? At those thresholds only critical and high-priority tasks are kept,
too few to load the machines at either rate. For each heuristic and threshold: the mean
percent at 33k and at 50k, and the mean and 95% interval of the per-trial difference (trial t
of both runs shares its ETC table), over the trials both runs have.
Reads results/seed002/figG.1-33k-dropping/trials.csv and
results/seed002/fig2.6-50k-dropping/trials.csv; writes results/seed002/why-tie/tie.csv.
Usage: python3 scripts/why_s002_tie.py
"""
import csv
import math
import os
from collections import defaultdict


def read(path):
    out = defaultdict(dict)
    for r in csv.DictReader(open(path)):
        out[r["config"]][int(r["trial"])] = float(r["percent"])
    return out


def main():
    a = read("results/seed002/figG.1-33k-dropping/trials.csv")
    b = read("results/seed002/fig2.6-50k-dropping/trials.csv")
    rows = []
    for cfg in sorted(a):
        if not (cfg.endswith("theta=3") or cfg.endswith("theta=5") or cfg.endswith("theta=1.5")):
            continue
        if cfg not in b:
            continue
        trials = sorted(set(a[cfg]) & set(b[cfg]))
        d = [a[cfg][t] - b[cfg][t] for t in trials]
        n = len(d)
        mean = sum(d) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1)) if n > 1 else float("nan")
        ci = 1.96 * sd / math.sqrt(n) if n > 1 else float("nan")
        rows.append({
            "config": cfg, "trials": n,
            "percent_33k": f"{sum(a[cfg][t] for t in trials) / n:.3f}",
            "percent_50k": f"{sum(b[cfg][t] for t in trials) / n:.3f}",
            "diff_mean": f"{mean:+.3f}", "diff_ci95": f"{ci:.3f}",
            "tie": str(abs(mean) <= ci).lower(),
        })
    os.makedirs("results/seed002/why-tie", exist_ok=True)
    with open("results/seed002/why-tie/tie.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    for r in rows:
        print(",".join(str(v) for v in r.values()))


if __name__ == "__main__":
    main()
