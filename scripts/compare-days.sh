#!/usr/bin/env bash
# Times one simulated day per case with two `kairos` binaries, back to back, so that both see
# the same machine load (docs/performance.md, "How to measure").
#   scripts/compare-days.sh OLD_KAIROS NEW_KAIROS [scenario ...]   (default: essc-10k essc-5k)
# Prints one line per case and binary: scenario|case|binary|digest|user s|wall s|run s|
# event p50 us|p99 us|mean us. The digests of a case must agree (same decisions).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
old="$1"; new="$2"; shift 2
scenarios=("${@:-essc-10k essc-5k}")
cases=(
    "random" "conservative" "easy" "multi-queue"
    "max-util --reservations place-holder" "max-upt --reservations place-holder"
    "max-upr --reservations place-holder" "max-upe --reservations place-holder"
    "max-upr --reservations place-holder --filter per-resource"
)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for sc in ${scenarios[*]}; do
    for c in "${cases[@]}"; do
        for bin in "$old" "$new"; do
            # shellcheck disable=SC2086
            /usr/bin/time -f "%U %e" -o "$tmp/time" "$bin" run "scenarios/$sc.toml" --heuristic $c --json >"$tmp/out.json"
            python3 - "$sc" "$c" "$bin" "$tmp" <<'PY'
import json, sys
sc, case, binary, tmp = sys.argv[1:]
d = json.load(open(f"{tmp}/out.json"))
user, wall = open(f"{tmp}/time").read().split()
m = d["mapping_event_us"]
print("|".join([sc, case, binary, d["digest"], user, wall, str(d["wall_time_s"]),
                str(m["p50"]), str(m["p99"]), str(round(m["mean"]))]))
PY
        done
    done
done
