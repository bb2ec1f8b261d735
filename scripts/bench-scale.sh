#!/usr/bin/env bash
# Whole-process figures of `kairos replay` for docs/performance.md ("Trace replay"):
# wall time, user CPU and peak resident memory from `/usr/bin/time -v`, on the three shared
# logs (`--clean strong`) under both allocations, and on Lublin-Feitelson logs of 1 and 5
# million jobs on 163,840 processors (seed 1, load 0.8; written once to target/trace-scale/)
# under the pool, and under EASY on the node allocation with the log streamed. Each line
# starts with the 1-minute load average before the run: a wall time taken at a load of 1.5
# or more is not a speed figure (docs/performance.md).
#   scripts/bench-scale.sh            # every case
#   scripts/bench-scale.sh curie easy # the cases whose label has every word given
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cargo build --release -q -p kairos-host
bin=target/release/kairos
dir=target/trace-scale
mkdir -p "$dir"
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT

wanted() {
    local w
    for w in "${filters[@]}"; do [[ "$1" == *"$w"* ]] || return 1; done
}
filters=("$@")

measure() {
    local label="$1" jobs="$2"
    shift 2
    wanted "$label" || return 0
    local load
    load="$(cut -d' ' -f1 /proc/loadavg)"
    /usr/bin/time -v "$@" >/dev/null 2>"$tmp"
    local wall user rss secs
    wall="$(grep 'Elapsed (wall clock)' "$tmp" | awk '{print $NF}')"
    user="$(grep 'User time' "$tmp" | awk '{print $NF}')"
    rss="$(grep 'Maximum resident set size' "$tmp" | awk '{print $NF}')"
    secs="$(awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }' <<<"$wall")"
    printf '%-32s load %5s  wall %8.2f s  user %7.2f s  peak %8.1f MB  %10.0f jobs/s\n' \
        "$label" "$load" "$secs" "$user" "$(awk "BEGIN { print $rss / 1024 }")" \
        "$(awk "BEGIN { print ($secs > 0) ? $jobs / $secs : 0 }")"
}

for log in KTH-SP2-1996-2.1:kth-sp2:28481 UniLu-Gaia-2014-2:gaia:51859 \
    CEA-Curie-2011-2.1-sample:curie:29998; do
    IFS=: read -r file name jobs <<<"$log"
    for allocation in pool nodes; do
        for policy in fcfs easy conservative; do
            measure "$name $allocation $policy" "$jobs" "$bin" replay \
                "../shared/traces/$file.swf" --policy "$policy" --clean strong \
                --allocation "$allocation"
        done
    done
done
for n in 1000 5000; do
    log="$dir/lublin99-${n}k-163840.swf"
    # Every word of this log's labels: the log is made only if one of its cases is wanted.
    wanted "lublin99-${n}k pool fcfs easy conservative nodes-stream" || continue
    [ -f "$log" ] || "$bin" generate-swf --model lublin99 --procs 163840 --jobs "${n}000" \
        --load 0.8 --seed 1 -o "$log"
    for policy in fcfs easy conservative; do
        measure "lublin99-${n}k pool $policy" "${n}000" "$bin" replay "$log" \
            --policy "$policy" --allocation pool
    done
    # The node allocation, streamed (its task table a ring): EASY only, Conservative's
    # compression on 163,840 nodes takes hours.
    measure "lublin99-${n}k nodes-stream easy" "${n}000" "$bin" replay "$log" \
        --policy easy --allocation nodes --stream
done
