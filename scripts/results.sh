#!/usr/bin/env bash
# Runs the full-scale runs of results/runs.tsv and keeps their small outputs in results/.
#
#   scripts/results.sh [--check] [PATTERN...]
#
# Each run named in results/runs.tsv whose folder matches a PATTERN (a shell glob such as
# 'seed000/*'; every run when none is given) is run into a fresh temporary folder with the
# release binary of this checkout. Kept: the CSV and JSON files (no SVGs, no per-job files
# `*jobs*.csv`, per-point `points.csv` or per-task `allocations.csv`, no `timing.json`/`timings.csv`, which hold
# wall-clock times), beside a
# `run.toml` saying the command, the commit, the date and the CPU time it took.
# With --check nothing is written: each run's kept files are compared byte for byte with
# the committed ones, and the script exits 1 on the first difference.
#
# PROFILE_CACHE=DIR (optional): seed 003 runs read and write PBA's profiles in DIR (linked as
# the output folder's `profiles/`, the experiments' default cache) instead of profiling every
# workload again in each fresh folder. A profile file is named by a hash of everything it
# depends on and checked against the jobs when read (host/src/seed003/profile.rs), so the
# cache changes no output, only the CPU time: run.toml then says the cache was used.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
check=0
if [[ "${1:-}" == "--check" ]]; then check=1; shift; fi
patterns=("$@")
[[ ${#patterns[@]} -eq 0 ]] && patterns=('*')

cargo build --release -q -p kairos-host
export PATH="$root/target/release:$PATH"
commit="$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- core host || echo '+changes')"
status=0
ran=0
while IFS=$'\t' read -r dir cmd; do
    [[ -z "$dir" || "$dir" == \#* ]] && continue
    match=0
    for p in "${patterns[@]}"; do
        # shellcheck disable=SC2053
        [[ "$dir" == $p ]] && match=1
    done
    [[ $match -eq 1 ]] || continue
    ran=$((ran + 1))
    tmp="$(mktemp -d)"
    out="$tmp/out"
    mkdir -p "$out"
    cached=0
    if [[ -n "${PROFILE_CACHE:-}" && "$dir" == seed003/* ]]; then
        mkdir -p "$PROFILE_CACHE"
        ln -s "$(cd "$PROFILE_CACHE" && pwd)" "$out/profiles"
        cached=1
    fi
    printf '==> %s\n' "$dir" >&2
    start=$(date +%s)
    # GNU time gives the peak memory too; without it, bash's own timer (no memory: 0).
    if [[ -x /usr/bin/time ]]; then
        out="$out" /usr/bin/time -f '%U %S %M' -o "$tmp/time" bash -c "$cmd" \
            </dev/null >"$tmp/stdout" 2>"$tmp/stderr" && ok=1 || ok=0
    else
        TIMEFORMAT='%U %S 0'
        { time out="$out" bash -c "$cmd" </dev/null >"$tmp/stdout" 2>"$tmp/stderr"; } \
            2>"$tmp/time" && ok=1 || ok=0
    fi
    if [[ $ok -eq 0 ]]; then
        printf '%s: the run failed: %s\n' "$dir" "$cmd" >&2
        tail -20 "$tmp/stderr" >&2
        exit 1
    fi
    wall=$(( $(date +%s) - start ))
    read -r user sys rss <"$tmp/time"
    keep="$tmp/keep"
    mkdir -p "$keep"
    (cd "$out" && find . -type f \( -name '*.csv' -o -name '*.json' \) \
        ! -name 'timing.json' ! -name 'timings.csv' ! -name '*jobs*.csv' ! -name 'points.csv' ! -name 'allocations.csv' -print0 |
        while IFS= read -r -d '' f; do mkdir -p "$keep/$(dirname "$f")"; cp "$f" "$keep/$f"; done)
    if [[ $check -eq 1 ]]; then
        if diff -r -x run.toml "$keep" "results/$dir" >"$tmp/diff"; then
            printf '%s: same bytes\n' "$dir" >&2
        else
            printf '%s: differs from the committed outputs:\n' "$dir" >&2
            head -20 "$tmp/diff" >&2
            status=1
        fi
    else
        rm -rf "results/$dir"
        mkdir -p "results/$dir"
        cp -r "$keep/." "results/$dir/"
        cat >"results/$dir/run.toml" <<TOML
# Written by scripts/results.sh; rerun with: scripts/results.sh --check '$dir'
command = $(printf '%s' "$cmd" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')
commit = "$commit"
date = "$(date -u +%Y-%m-%d)"
cpu_user_s = $user
cpu_sys_s = $sys
wall_s = $wall
peak_rss_kb = $rss
TOML
        if [[ $cached -eq 1 ]]; then
            printf '# PBA profiles read from PROFILE_CACHE where present: cpu_user_s counts only those\n# profiled by this run.\n' >>"results/$dir/run.toml"
        fi
        printf '%s: %s s user CPU, %s s wall\n' "$dir" "$user" "$wall" >&2
    fi
    rm -rf "$tmp"
done <results/runs.tsv
if [[ $ran -eq 0 ]]; then
    printf 'no run of results/runs.tsv matches %s\n' "${patterns[*]}" >&2
    exit 1
fi
exit $status
