#!/usr/bin/env bash
# Seed 002 Chapters 2-4 and appendices at the dissertation's trial counts, in pieces that one
# core runs in well under 40 minutes, each committed as it finishes (docs/results.md,
# "Seed 002 at the paper's trials").
#
#   scripts/s002-campaign.sh list            every piece: number, folder, shard, estimated
#                                            CPU, and whether it is done
#   scripts/s002-campaign.sh run [K...]      runs pieces K (default: the first not done);
#                                            a piece already done is skipped
#   scripts/s002-campaign.sh merge [FOLDER...]
#                                            merges each folder whose pieces are all done
#                                            into results/seed002/<folder> (default: every
#                                            such folder)
#
# A piece is shard K/N of one experiment at the paper's trials (`kairos experiment FILE
# --trials T --shard K/N`, host/src/seed002/shard.rs), written to
# results/seed002-campaign/<folder>/shard-K-of-N.shard beside shard-K-of-N.toml, which
# records the command, the commit, the date and the CPU it took. A piece is done when both
# files are there (the shard file is written whole, then renamed; the .toml after it). A
# piece cut short resumes where it stopped (`--resume`; its trials are saved in
# shard-K-of-N.runs/, which is not committed).
#
# The merge writes the CSV and JSON reports as scripts/results.sh keeps them, a run.toml
# whose command is the unsharded run (so `scripts/results.sh --check 'seed002/<folder>'`
# reruns it whole and compares: the merge is byte-identical to it) and whose CPU is the
# pieces' sum, and sets the folder's command in results/runs.tsv to the paper's trials.
#
# PLAN: folder, experiment file, the paper's trials, pieces. The pieces come from the CPU a
# trial of docs/performance.md's table: ceil(CPU a trial x trials / 1800 s). The Chapter 2-4
# folders of results/runs.tsv already at the paper's trials (appH-subset, calibrate-50k,
# energy-calibrate-ch3/ch4, kbest-k1..k5) are not in it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

PLAN='
appA-permute             s002-appA-permute                50 1 12.01
energy-fig3.12           s002-energy-fig3.12              48 2 38.11
energy-fig3.13           s002-energy-fig3.13              48 1 3.79
energy-fig3.14-example   s002-energy-fig3.14-example      48 1 16.80
energy-fig3.14-high-tma  s002-energy-fig3.14-high-tma     48 1 15.59
energy-fig3.14-low-tma   s002-energy-fig3.14-low-tma      48 1 20.58
energy-fig3.4            s002-energy-fig3.4               48 1 18.71
energy-fig3.5-3.7        s002-energy-fig3.5-3.7           48 2 31.71
energy-fig3.8-3.11       s002-energy-fig3.8-3.11          48 2 31.55
energy-fig4.4-4.6        s002-energy-fig4.4-4.6           48 1 18.54
energy-tuning-L-high-tma s002-energy-tuning-L-high-tma    48 1 21.16
energy-tuning-L-low-tma  s002-energy-tuning-L-low-tma     48 1 26.70
energy-tuning-w-high-tma s002-energy-tuning-w-high-tma    48 1 26.13
energy-tuning-w-low-tma  s002-energy-tuning-w-low-tma     48 1 35.07
fig2.5-33k-no-sufferage  s002-fig2.5-33k-no-sufferage     50 1 16.00
fig2.5-33k-sufferage     s002-fig2.5-33k-sufferage        50 1 28.35
fig2.5-50k-no-sufferage  s002-fig2.5-50k-no-sufferage     50 1 19.69
fig2.5-50k-sufferage     s002-fig2.5-50k-sufferage        50 2 49.89
fig2.6-50k-dropping      s002-fig2.6-50k-dropping         50 1 11.68
fig2.8-triggers          s002-fig2.8-triggers             50 1 19.66
figG.1-33k-dropping      s002-figG.1-33k-dropping         50 1 4.23
'
campaign="results/seed002-campaign"

# The pieces, one a line: number, folder, experiment file, trials, K, N, estimated CPU s.
pieces() {
    local i=0 folder exp trials n per k
    while read -r folder exp trials n per; do
        [[ -z "$folder" ]] && continue
        for ((k = 1; k <= n; k++)); do
            i=$((i + 1))
            printf '%s %s experiments/%s.toml %s %s %s %.0f\n' "$i" "$folder" "$exp" \
                "$trials" "$k" "$n" "$(python3 -c "print($per * $trials / $n)")"
        done
    done <<<"$PLAN"
}

done_piece() { # folder k n
    [[ -f "$campaign/$1/shard-$2-of-$3.shard" && -f "$campaign/$1/shard-$2-of-$3.toml" ]]
}

build() {
    cargo build --release -q -p kairos-host
    export PATH="$root/target/release:$PATH"
}

run_piece() { # number folder exp trials k n est
    local num="$1" folder="$2" exp="$3" trials="$4" k="$5" n="$6" est="$7"
    if done_piece "$folder" "$k" "$n"; then
        printf 'piece %s (%s %s/%s): done, skipped\n' "$num" "$folder" "$k" "$n" >&2
        return 0
    fi
    local dir="$campaign/$folder" tmp
    mkdir -p "$dir"
    tmp="$(mktemp -d)"
    local cmd=(kairos experiment "$exp" --trials "$trials" --shard "$k/$n" --threads 1
        --out "$dir")
    # A piece cut short resumes; one not begun starts.
    [[ -d "$dir/shard-$k-of-$n.runs" ]] && cmd+=(--resume)
    printf '==> piece %s: %s shard %s/%s (about %s s of CPU)\n' "$num" "$folder" "$k" "$n" "$est" >&2
    local start
    start=$(date +%s)
    /usr/bin/time -f '%U %S %M' -o "$tmp/time" "${cmd[@]}" </dev/null >"$tmp/stdout" 2>"$tmp/stderr" || {
        printf 'piece %s failed: %s\n' "$num" "${cmd[*]}" >&2
        tail -20 "$tmp/stderr" >&2
        rm -rf "$tmp"
        exit 1
    }
    local wall=$(($(date +%s) - start)) user sys rss
    read -r user sys rss <"$tmp/time"
    local commit
    commit="$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- core host || echo '+changes')"
    cat >"$dir/shard-$k-of-$n.toml" <<TOML
# Written by scripts/s002-campaign.sh (piece $num); its shard file is shard-$k-of-$n.shard
command = "kairos experiment $exp --trials $trials --shard $k/$n --threads 1 --out $dir"
commit = "$commit"
date = "$(date -u +%Y-%m-%d)"
cpu_user_s = $user
cpu_sys_s = $sys
wall_s = $wall
peak_rss_kb = $rss
TOML
    printf 'piece %s: %s s user CPU, %s s wall; wrote %s\n' "$num" "$user" "$wall" \
        "$dir/shard-$k-of-$n.shard" >&2
    rm -rf "$tmp"
}

merge_folder() { # folder exp trials n
    local folder="$1" exp="$2" trials="$3" n="$4" k
    for ((k = 1; k <= n; k++)); do
        if ! done_piece "$folder" "$k" "$n"; then
            printf '%s: piece %s/%s not done; not merged\n' "$folder" "$k" "$n" >&2
            return 1
        fi
    done
    local tmp out keep
    tmp="$(mktemp -d)"
    out="$tmp/out"
    kairos merge "$campaign/$folder" --experiment "$exp" --out "$out" >/dev/null
    keep="results/seed002/$folder"
    rm -rf "$keep"
    mkdir -p "$keep"
    (cd "$out" && find . -type f \( -name '*.csv' -o -name '*.json' \) -print0 |
        while IFS= read -r -d '' f; do mkdir -p "$root/$keep/$(dirname "$f")"; cp "$f" "$root/$keep/$f"; done)
    local cmd="kairos experiment $exp --trials $trials --threads 1 --out \$out"
    python3 - "$campaign/$folder" "$n" "$cmd" "$folder" >"$keep/run.toml" <<'PY'
import json, sys, tomllib
d, n, cmd, folder = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
runs = [tomllib.load(open(f"{d}/shard-{k}-of-{n}.toml", "rb")) for k in range(1, n + 1)]
print(f"# Written by scripts/s002-campaign.sh merge from {n} pieces in {d}; "
      f"rerun whole with: scripts/results.sh --check 'seed002/{folder}'")
print(f"command = {json.dumps(cmd)}")
print(f"commit = {json.dumps(runs[-1]['commit'])}")
print(f"date = {json.dumps(max(r['date'] for r in runs))}")
print(f"pieces = {n}")
print(f"cpu_user_s = {round(sum(r['cpu_user_s'] for r in runs), 2)}")
print(f"cpu_sys_s = {round(sum(r['cpu_sys_s'] for r in runs), 2)}")
print(f"wall_s = {sum(r['wall_s'] for r in runs)}")
print(f"peak_rss_kb = {max(r['peak_rss_kb'] for r in runs)}")
PY
    # results/runs.tsv: the folder's command at the paper's trials.
    python3 - "seed002/$folder" "$cmd" <<'PY'
import sys
folder, cmd = sys.argv[1], sys.argv[2]
lines = open("results/runs.tsv").read().split("\n")
out = [f"{folder}\t{cmd}" if l.split("\t")[0] == folder else l for l in lines]
open("results/runs.tsv", "w").write("\n".join(out))
PY
    rm -rf "$tmp"
    printf '%s: merged %s pieces into %s\n' "$folder" "$n" "$keep" >&2
}

what="${1:-list}"
shift || true
case "$what" in
    list)
        printf '%-6s %-26s %-7s %8s  %s\n' piece folder shard 'est. s' status
        pieces | while read -r num folder _exp _trials k n est; do
            if done_piece "$folder" "$k" "$n"; then
                status="done ($(sed -n 's/^cpu_user_s = //p' "$campaign/$folder/shard-$k-of-$n.toml") s)"
            else
                status=todo
            fi
            printf '%-6s %-26s %-7s %8s  %s\n' "$num" "$folder" "$k/$n" "$est" "$status"
        done
        ;;
    run)
        build
        all="$(pieces)"
        if [[ $# -eq 0 ]]; then
            next="$(while read -r num folder _exp _trials k n _est; do
                done_piece "$folder" "$k" "$n" || { echo "$num"; break; }
            done <<<"$all")"
            [[ -n "$next" ]] || { echo "every piece is done" >&2; exit 0; }
            set -- "$next"
        fi
        for want in "$@"; do
            line="$(awk -v k="$want" '$1 == k' <<<"$all")"
            [[ -n "$line" ]] || { echo "no piece $want (scripts/s002-campaign.sh list)" >&2; exit 1; }
            # shellcheck disable=SC2086
            run_piece $line
        done
        ;;
    merge)
        build
        status=0
        while read -r folder exp trials n _per; do
            [[ -z "$folder" ]] && continue
            if [[ $# -gt 0 ]]; then
                match=0
                for f in "$@"; do [[ "$f" == "$folder" ]] && match=1; done
                [[ $match -eq 1 ]] || continue
            fi
            merge_folder "$folder" "experiments/$exp.toml" "$trials" "$n" || status=1
        done <<<"$PLAN"
        exit $status
        ;;
    *)
        echo "usage: scripts/s002-campaign.sh list | run [K...] | merge [FOLDER...]" >&2
        exit 2
        ;;
esac
