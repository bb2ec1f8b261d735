#!/usr/bin/env bash
# The long fuzz campaign of docs/reliability.md: each target of fuzz/ run until RUNS
# executions (default 10 million) or HOURS hours (default 6) a target, one after another,
# at nice 19. Built without AddressSanitizer and compare tracing (`-s none
# --no-trace-compares`, in a target folder of its own so the sanitized CI build is kept):
# the targets are safe Rust, and the executions a second are what a 10-million run needs.
# New inputs go to a temporary folder; the checked-in corpus is not changed. A crash stops
# with a non-zero exit and leaves the input in fuzz/artifacts/<target>/. A line a target
# (target, executions, seconds, commit, date) is appended to fuzz/long-runs.tsv, which is
# not checked in. Needs scripts/setup-fuzz.sh.
# Usage: scripts/fuzz-long.sh [RUNS] [HOURS] [TARGET...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/fuzz"
runs="${1:-10000000}"
hours="${2:-6}"
shift 2 || shift $# || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
flags=(-s none -O --no-trace-compares --target-dir "$root/fuzz/target-long")
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
nice -n 19 cargo +nightly fuzz build "${flags[@]}"
tmp="$(mktemp -d)"
scratch=""
# The targets' scratch files (fuzz/src/lib.rs), in memory where /dev/shm is; removed with
# the rest on any exit, a crash's or Ctrl-C's too (the trap is set before either is made).
trap 'rm -rf "$tmp" ${scratch:+"$scratch"}' EXIT
trap 'exit 130' INT TERM
if [ -d /dev/shm ]; then
    scratch="$(mktemp -d -p /dev/shm kairos-fuzz.XXXXXX)"
else
    scratch="$tmp/scratch"
    mkdir -p "$scratch"
fi
export KAIROS_FUZZ_SCRATCH="$scratch"
secs=$(awk -v h="$hours" 'BEGIN { printf "%d", h * 3600 }')
for t in "${targets[@]}"; do
    mkdir -p "$tmp/$t"
    printf 'fuzz-long: %s to %s executions or %s s\n' "$t" "$runs" "$secs"
    start=$(date +%s)
    set +e
    nice -n 19 cargo +nightly fuzz run "${flags[@]}" "$t" "$tmp/$t" "corpus/$t" -- \
        -runs="$runs" -max_total_time="$secs" -rss_limit_mb=4096 -print_final_stats=1 \
        >"$tmp/$t.log" 2>&1
    code=$?
    set -e
    took=$(( $(date +%s) - start ))
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$t.log" | tail -n 1)
    printf '%s\t%s\t%s\t%s\t%s\n' "$t" "${n:-0}" "$took" "$commit" "$(date -u +%FT%TZ)" \
        | tee -a long-runs.tsv
    if [ "$code" -ne 0 ]; then
        tail -n 40 "$tmp/$t.log" >&2
        echo "fuzz-long: $t failed (exit $code)" >&2
        exit 1
    fi
done
