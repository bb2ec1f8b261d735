#!/usr/bin/env python3
"""Checks that a claims file's claims rest on the paper's trials.

For every claim of claims/<FILE>.toml: the trials of every results folder it reads (its
`results` and each value's `dir`), taken from the folder's run.toml command (`--trials N`,
else the experiment file's `trials`), must equal the claim's `paper_trials` (where the paper gives them); a claim that
fails must carry a `tested_by`; none may be not-run (`kairos claims --json`, the release
binary of this checkout). `kairos claims` itself prints one trials figure a claim, the most
over its values, so a claim mixing folders of different trials needs this check.
Prints the counts and each problem; exits 1 if there is one.
For files whose paper_trials are trials (not seed 002 Chapters 5-7's generations).
Usage: python3 scripts/claims_trials.py [FILE]   (default seed002-ch2-4)
"""
import collections
import json
import os
import re
import subprocess
import sys
import tomllib

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
os.chdir(root)
stem = sys.argv[1] if len(sys.argv) > 1 else "seed002-ch2-4"
out = subprocess.run(["target/release/kairos", "claims", "--json"], capture_output=True,
                     text=True, check=True).stdout
evaluated = {c["id"]: c for c in json.loads(out)["claims"]}
claims = tomllib.load(open(f"claims/{stem}.toml", "rb"))["claim"]


def trials_of(folder):
    run = open(f"results/{folder}/run.toml").read()
    m = re.search(r"--trials (\d+)", run)
    if m:
        return int(m.group(1))
    exp = re.search(r"(experiments/\S+\.toml)", run)
    return tomllib.load(open(exp.group(1), "rb")).get("trials") if exp else None


status = collections.Counter()
problems = []
for c in claims:
    e = evaluated[c["id"]]
    status[e["status"]] += 1
    folders = {c["results"]} | {v["dir"] for v in c["values"].values() if "dir" in v}
    for f in sorted(folders) if c.get("paper_trials") else []:
        t = trials_of(f)
        if t != c.get("paper_trials"):
            problems.append(f"{c['id']}: {f} has {t} trials, the paper {c.get('paper_trials')}")
    if e["status"] == "fails" and not e.get("tested_by"):
        problems.append(f"{c['id']}: fails without tested_by")
    if e["status"] == "not-run":
        problems.append(f"{c['id']}: not run")
print(f"claims/{stem}.toml: {len(claims)} claims, "
      + ", ".join(f"{n} {s}" for s, n in sorted(status.items())))
for p in problems:
    print("  " + p)
sys.exit(1 if problems else 0)
