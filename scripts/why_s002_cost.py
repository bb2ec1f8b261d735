#!/usr/bin/env python3
"""Held-out check of seed 002's event-cost model (core/src/serial/cost.rs).

The model charges an event `evaluations x rate(heuristic)`, the rate fitted to Table G.1's
50k column (G.1 50k ms / our mean evaluations per event at 50k). Its prediction of the 33k
column, which the fit never saw, is rate x our mean evaluations per event at 33k (cost off,
theta 0.5) = G.1 50k ms x (our 33k / our 50k evaluations): no fitted number is left in it, so
it tests the model's form (an event's time proportional to the textbook evaluations) alone.
Reads the 50k calibration's trials.csv (trials 0-3; default
results/seed002/calibrate-50k/trials.csv) and results/seed002/why-cost-33k/trials.csv; writes
results/seed002/why-cost/cost.csv and prints it.
Usage: python3 scripts/why_s002_cost.py [CALIBRATE_50K_TRIALS_CSV]
"""
import csv
import re
import sys
from collections import defaultdict

G1 = {  # Table G.1, ms: (33k, 50k)
    "Random": (0.14, 0.15), "Round-Robin": (0.14, 0.15), "Max Util": (0.20, 0.22),
    "Max UPT": (0.30, 0.33), "MET-Random": (0.20, 0.22), "MET-Max Util": (0.20, 0.22),
    "Min-Min Comp": (9.76, 46.66), "Sufferage": (57.32, 280.09),
    "Max-Max Util": (51.64, 316.47), "Max-Max UPT": (64.2, 319.61),
    "MET-Max Util-Max UPT": (23.68, 66.22),
}


def evals_per_event(path, trials=None):
    ev, n = defaultdict(float), defaultdict(float)
    for r in csv.DictReader(open(path)):
        c = re.sub(r" theta=.*", "", r["config"])
        if trials is not None and int(r["trial"]) >= trials:
            continue
        ev[c] += float(r["evaluations"])
        n[c] += float(r["events"])
    return {c: ev[c] / n[c] for c in ev}


def rates():
    text = open("core/src/serial/cost.rs").read()
    body = text[text.index("PICOS_PER_EVAL"):]
    out = {}
    for m in re.finditer(r"([\d_]+),\s*// ([^:]+):", body):
        out[m.group(2).strip()] = int(m.group(1).replace("_", ""))
    return out


def main():
    cal = sys.argv[1] if len(sys.argv) > 1 else "results/seed002/calibrate-50k/trials.csv"
    e50 = evals_per_event(cal, trials=4)
    e33 = evals_per_event("results/seed002/why-cost-33k/trials.csv")
    ps = rates()
    rows = []
    for h, (g33, g50) in G1.items():
        fitted = e33[h] * ps[h] / 1e9
        rows.append({
            "heuristic": h, "evals_33k": f"{e33[h]:.1f}", "evals_50k": f"{e50[h]:.1f}",
            "evals_ratio_50k_33k": f"{e50[h] / e33[h]:.2f}", "g1_ratio_50k_33k": f"{g50 / g33:.2f}",
            "g1_33k_ms": g33, "predicted_33k_ms": f"{fitted:.2f}",
            "error_pct": f"{100 * (fitted / g33 - 1):+.0f}",
        })
    with open("results/seed002/why-cost/cost.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    for r in rows:
        print(",".join(str(v) for v in r.values()))


if __name__ == "__main__":
    main()
