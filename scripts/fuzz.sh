#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ for SECONDS seconds each (default 30), starting from the
# checked-in corpus; new inputs go to a temporary folder, so the checked-in corpus is not
# changed. A crash stops with a non-zero exit and leaves the input in fuzz/artifacts/<target>/.
# Needs scripts/setup-fuzz.sh. Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/fuzz"
seconds="${1:-30}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
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
for t in "${targets[@]}"; do
    mkdir -p "$tmp/$t"
    printf 'fuzz.sh: %s for %s s\n' "$t" "$seconds"
    set +e
    cargo +nightly fuzz run "$t" "$tmp/$t" "corpus/$t" -- \
        -max_total_time="$seconds" -rss_limit_mb=4096 -print_final_stats=1 >"$tmp/$t.log" 2>&1
    code=$?
    set -e
    grep -E '^stat::number_of_executed_units' "$tmp/$t.log" || true
    if [ "$code" -ne 0 ]; then
        tail -n 40 "$tmp/$t.log" >&2
        echo "fuzz.sh: $t failed (exit $code)" >&2
        exit 1
    fi
done
