#!/usr/bin/env bash
# Writes every decision output a restructure must leave byte-identical, for one `kairos`
# binary, into DIR; then `diff -r DIR_OLD DIR_NEW` (or `scripts/decisions.sh --compare A B`)
# says whether any decision changed.
#   scripts/decisions.sh KAIROS DIR [--quick]
#   scripts/decisions.sh --compare DIR_A DIR_B
# What it writes (wall-time fields are left out; everything else is compared whole):
# - the 18 golden days' digests (essc-5k and essc-10k, nine configurations each);
# - KTH-SP2 under FCFS, EASY and Conservative (`--jobs-out`), knapsack and Max UPR with value
#   functions (their jobs files and summaries);
# - seed 004's synthetic knapsack sweep (points, fronts);
# - seed 001's Curie experiment and the default experiment (fig9-5k: trials.csv), unless
#   --quick.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ "${1:-}" == "--compare" ]]; then
    diff -r "$2" "$3" && echo "decisions: identical ($2, $3)"
    exit
fi
bin="$(realpath "$1")"; out="$(realpath -m "$2")"; quick="${3:-}"
mkdir -p "$out"
traces="$root/../shared/traces"
strip() { python3 -c '
import json, sys
def clean(x):
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items() if "wall" not in k and "time_s" not in k and "per_second" not in k and k != "generate_s" and not k.endswith("_us")}
    if isinstance(x, list):
        return [clean(v) for v in x]
    return x
print(json.dumps(clean(json.load(sys.stdin)), indent=1, sort_keys=True))'; }
step() { printf '%s\n' "$*" >&2; }
cases=(
    "random" "conservative" "easy" "multi-queue"
    "max-util --reservations place-holder" "max-upt --reservations place-holder"
    "max-upr --reservations place-holder" "max-upe --reservations place-holder"
    "max-upr --reservations place-holder --filter per-resource"
)
for sc in essc-5k essc-10k; do
    for c in "${cases[@]}"; do
        step "day $sc $c"
        # shellcheck disable=SC2086
        "$bin" run "scenarios/$sc.toml" --heuristic $c --json | strip > "$out/day-$sc-${c// /_}.json"
    done
done
kth="$traces/KTH-SP2-1996-2.1.swf"
for p in fcfs easy conservative knapsack; do
    step "KTH-SP2 $p"
    "$bin" replay "$kth" --policy "$p" --clean strong --jobs-out "$out/kth-$p.csv" --summary-out "$out/s.json" --force >/dev/null
    strip < "$out/s.json" > "$out/kth-$p.json" && rm "$out/s.json"
done
step "KTH-SP2 max-upr (value seed 1)"
"$bin" replay "$kth" --policy max-upr --value-seed 1 --clean strong --jobs-out "$out/kth-max-upr.csv" --summary-out "$out/s.json" --force >/dev/null
strip < "$out/s.json" > "$out/kth-max-upr.json" && rm "$out/s.json"
step "seed 004 synthetic sweep"
"$bin" sweep-knapsack --synthetic --out "$out/s004" >/dev/null
strip < "$out/s004/summary.json" > "$out/s004/summary.stripped" && rm "$out/s004/summary.json"
rm -f "$out/s004/"*.svg
if [[ "$quick" != "--quick" ]]; then
    step "seed 001 curie-value"
    "$bin" experiment experiments/curie-value.toml --out "$out/curie-value" >/dev/null
    step "default experiment (fig9-5k)"
    "$bin" experiment experiments/fig9-5k.toml --out "$out/fig9-5k" >/dev/null
    # Keep the per-run rows and summaries; timings and plots are not decisions.
    find "$out/curie-value" "$out/fig9-5k" -type f ! -name '*.csv' -delete
fi
step "written: $out"
