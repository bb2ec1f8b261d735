#!/bin/sh
# Runs seed 002's explanation experiments (experiments/s002-why-*.toml) into
# results/seed002/why-*/ on one thread each, niced. Usage: scripts/why-s002-run.sh NAME...
# (NAME: the file's name without experiments/s002- and .toml, e.g. why-bursts-50k).
set -e
K=${KAIROS:-target/release/kairos}
for n in "$@"; do
  out=results/seed002/$n
  mkdir -p "$out"
  /usr/bin/time -f 'cpu_user_s = %U\nwall_s = %e' -o "$out/time.txt" \
    nice -n 5 "$K" experiment "experiments/s002-$n.toml" --threads 1 --force --out "$out" > "$out/stdout.txt"
done
