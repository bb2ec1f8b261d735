#!/usr/bin/env python3
"""How far the two allocations of `kairos replay` differ on the shared logs (docs/traces.md,
"Which allocation is which simulator"): for each log and policy, the jobs that start at
another time under `--allocation pool` than under `--allocation nodes`, and the mean wait
and mean bounded slowdown of each. Run from the project root after
`cargo build --release -p kairos-host`:
    python3 scripts/compare-allocations.py [OUT_DIR]
"""
import csv
import json
import os
import subprocess
import sys

LOGS = [
    ("KTH-SP2", "../shared/traces/KTH-SP2-1996-2.1.swf"),
    ("UniLu-Gaia", "../shared/traces/UniLu-Gaia-2014-2.swf"),
    ("CEA-Curie sample", "../shared/traces/CEA-Curie-2011-2.1-sample.swf"),
]
out = sys.argv[1] if len(sys.argv) > 1 else "target/compare-allocations"
os.makedirs(out, exist_ok=True)


def replay(path, allocation, policy):
    stem = os.path.join(out, f"{os.path.basename(path)}-{allocation}-{policy}")
    subprocess.run(
        ["target/release/kairos", "replay", path, "--policy", policy, "--clean", "strong",
         "--allocation", allocation, "--jobs-out", stem + ".csv",
         "--summary-out", stem + ".json"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(stem + ".csv") as f:
        starts = {(r["job_id"], r["submit"]): r["start"] for r in csv.DictReader(f)}
    with open(stem + ".json") as f:
        return starts, json.load(f)


print("| log | policy | jobs | starting at another time | mean wait nodes / pool (s) | mean bsld nodes / pool |")
print("|---|---|---:|---:|---:|---:|")
for name, path in LOGS:
    for policy in ("fcfs", "easy", "conservative"):
        a, sa = replay(path, "nodes", policy)
        b, sb = replay(path, "pool", policy)
        differ = sum(1 for k in a if a[k] != b[k])
        print(f"| {name} | {policy} | {len(a):,} | {differ:,} ({100 * differ / len(a):.1f}%) | "
              f"{sa['mean_wait_s']:,.1f} / {sb['mean_wait_s']:,.1f} | "
              f"{sa['mean_bsld']:.2f} / {sb['mean_bsld']:.2f} |")
