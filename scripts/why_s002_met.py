#!/usr/bin/env python3
"""Why the MET-based immediate heuristics of seed 002's Fig. 2.5 vary so much between trials.

Sets each trial's share of the day's tasks whose MET machine type can run all of its MET work
within the day (`kept_up_tasks_share`, written by `cargo run --release -p kairos-host
--example why_met`, results/seed002/why-met/overflow.csv) beside each heuristic's percentage of
the bound on that trial (results/seed002/fig2.5-33k-no-sufferage/trials.csv), and prints the
Pearson correlation for each heuristic, the ranges, and the batch heuristics' gain over the
smart immediate ones per trial (the ratio 002-ch2-batch-250pct-33k reads, Sufferage from
results/seed002/fig2.5-33k-sufferage/trials.csv).
Usage: python3 scripts/why_s002_met.py
"""
import csv
import statistics as st
from collections import defaultdict

over = {int(r["trial"]): float(r["kept_up_tasks_share"])
        for r in csv.DictReader(open("results/seed002/why-met/overflow.csv"))}
pct = defaultdict(dict)
for f in ("fig2.5-33k-no-sufferage", "fig2.5-33k-sufferage"):
    for r in csv.DictReader(open(f"results/seed002/{f}/trials.csv")):
        pct[r["config"]][int(r["trial"])] = float(r["percent"])
trials = sorted(over)
kept = [over[t] for t in trials]
print(f"kept-up share of tasks: {min(kept):.3f}-{max(kept):.3f}, mean {st.mean(kept):.3f}, "
      f"{len(trials)} trials")
for c in ("MET-Random", "MET-Max Util", "Max Util", "Max UPT", "Min-Min Comp", "Sufferage"):
    y = [pct[c][t] for t in trials]
    print(f"{c}: {min(y):.1f}-{max(y):.1f}% (mean {st.mean(y):.1f}), "
          f"r with the kept-up share {st.correlation(kept, y):+.2f}")
batch = ("Min-Min Comp", "Sufferage", "Max-Max Util", "Max-Max UPT", "MET-Max Util-Max UPT")
smart = ("Max Util", "Max UPT", "MET-Random", "MET-Max Util")
gain = [100 * st.mean(pct[c][t] for c in batch) / st.mean(pct[c][t] for c in smart) - 100
        for t in trials]
print(f"batch over smart immediate per trial: {min(gain):+.0f}% to {max(gain):+.0f}%; "
      f"of the means: {100 * st.mean(st.mean(pct[c].values()) for c in batch) / st.mean(st.mean(pct[c].values()) for c in smart) - 100:+.1f}%; "
      f"over Max Util and Max UPT alone: "
      f"{100 * st.mean(st.mean(pct[c].values()) for c in batch) / st.mean(st.mean(pct[c].values()) for c in smart[:2]) - 100:+.1f}%")
