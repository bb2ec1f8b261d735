#!/bin/sh
# Runs seed 002's explanation experiments (experiments/s002-NAME.toml, NAME = why-*) niced,
# on one thread, into results/seed002/NAME/, keeping what scripts/results.sh keeps (CSV and
# JSON, and a run.toml with the command, the commit, the date and the CPU time) without
# rebuilding first (the binary: $KAIROS, default target/release/kairos). Their lines in
# results/runs.tsv rerun them through scripts/results.sh.
# Usage: scripts/why-s002-run.sh NAME...
set -e
K=${KAIROS:-target/release/kairos}
commit="$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- core host || echo '+changes')"
for n in "$@"; do
  out=results/seed002/$n
  tmp=$(mktemp -d)
  /usr/bin/time -f '%U %S %e' -o "$tmp/time" \
    nice -n 5 "$K" experiment "experiments/s002-$n.toml" --threads 1 --out "$tmp/out" > /dev/null 2> "$tmp/stderr" ||
    { tail -n 20 "$tmp/stderr" >&2; exit 1; }
  read -r user sys wall < "$tmp/time"
  rm -rf "$out"; mkdir -p "$out"
  cp "$tmp"/out/*.csv "$tmp"/out/*.json "$out"/ 2>/dev/null || true
  cat > "$out/run.toml" <<TOML
# Written by scripts/why-s002-run.sh; rerun with: scripts/results.sh --check 'seed002/$n'
command = "kairos experiment experiments/s002-$n.toml --threads 1 --out \$out"
commit = "$commit"
date = "$(date -u +%Y-%m-%d)"
cpu_user_s = $user
cpu_sys_s = $sys
wall_s = $wall
TOML
  rm -rf "$tmp"
  echo "$n: done ($user s)"
done
