#!/usr/bin/env bash
# Runs the pieces not yet done of a Pareto run too long for one sitting, in order, as
# results/pieces.tsv plans them (stop it at any time), and keeps the piece's small outputs and the populations' saved state in results/, so
# the run survives between sittings and machines (commit them after each piece).
#
#   scripts/pieces.sh [--status] NAME
#
# results/pieces.tsv: `name<TAB>command<TAB>checkpoints of each piece, ';'-separated`, where
# the command is a `kairos pareto` run without --checkpoints, --out, --state or --resume.
# Piece k runs `COMMAND --checkpoints <its list> --state results/pieces/NAME/state
# --out $tmp` (`--resume` after the first), so it goes on from where piece k-1 stopped;
# its CSV and JSON reports (no allocations.csv: per task, tens of MB; no timings.csv) go
# to results/pieces/NAME/piece-<k>/ with a run.toml (command, commit, CPU). A piece runs on
# a copy of the state, which replaces the kept one only when the piece has finished, so a
# piece killed midway leaves the state and folders as they were: run the script again and
# the piece starts over.
# Once every piece is there, scripts/pareto_pieces.py joins them into results/NAME (the
# folder of results/runs.tsv's one-sitting run) with pareto_claims.py's analysis.json.
# With --status: prints which pieces are done and what each cost, and runs nothing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
status_only=0
if [[ "${1:-}" == "--status" ]]; then status_only=1; shift; fi
name="${1:?usage: scripts/pieces.sh [--status] NAME (a name of results/pieces.tsv)}"
line="$(awk -F'\t' -v n="$name" '$1 == n' results/pieces.tsv)"
[[ -n "$line" ]] || { echo "results/pieces.tsv: no piece plan named $name" >&2; exit 2; }
IFS=$'\t' read -r _ cmd plan <<<"$line"
IFS=';' read -r -a pieces <<<"$plan"
base="results/pieces/$name"
state="$base/state"

if [[ $status_only -eq 1 ]]; then
    for k in "${!pieces[@]}"; do
        d="$base/piece-$((k + 1))"
        if [[ -f "$d/run.toml" ]]; then
            printf 'piece %d (%s): done, %s s user CPU\n' $((k + 1)) "${pieces[$k]}" \
                "$(awk -F' = ' '$1 == "cpu_user_s" {print $2}' "$d/run.toml")"
        else
            printf 'piece %d (%s): to run\n' $((k + 1)) "${pieces[$k]}"
        fi
    done
    exit 0
fi

cargo build --release -q -p kairos-host
export PATH="$root/target/release:$PATH"
commit="$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- core host || echo '+changes')"
# A sitting killed between the two renames below leaves the state as state.old.
[[ -d "$state" || ! -d "$base/state.old" ]] || mv "$base/state.old" "$state"
mkdir -p "$state"
for k in "${!pieces[@]}"; do
    d="$base/piece-$((k + 1))"
    [[ -f "$d/run.toml" ]] && continue
    resume=""
    [[ $k -gt 0 ]] && resume="--resume"
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    cp -r "$state" "$tmp/state"
    mkdir -p "$tmp/out"
    full="$cmd --checkpoints ${pieces[$k]} --state \$state $resume --out \$out"
    printf '==> %s piece %d of %d: %s\n' "$name" $((k + 1)) "${#pieces[@]}" "$full" >&2
    start=$(date +%s)
    state="$tmp/state" out="$tmp/out" /usr/bin/time -f '%U %S %M' -o "$tmp/time" bash -c "$full" </dev/null \
        || { echo "$name piece $((k + 1)) failed (state kept in $state)" >&2; exit 1; }
    wall=$(( $(date +%s) - start ))
    read -r user sys rss <"$tmp/time"
    rm -rf "$d" "$base/state.old"
    mkdir -p "$d"
    mv "$base/state" "$base/state.old" && mv "$tmp/state" "$base/state" && rm -rf "$base/state.old"
    (cd "$tmp/out" && find . -maxdepth 1 -type f -name '*.csv' ! -name 'allocations.csv' \
        ! -name 'timings.csv' -exec cp {} "$root/$d/" \;)
    cat >"$d/run.toml" <<TOML
# Written by scripts/pieces.sh $name (piece $((k + 1)) of ${#pieces[@]}; the state it ends at is in $state)
command = $(printf '%s' "$full" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')
commit = "$commit"
date = "$(date -u +%Y-%m-%d)"
cpu_user_s = $user
cpu_sys_s = $sys
wall_s = $wall
peak_rss_kb = $rss
TOML
    printf '%s piece %d: %s s user CPU, %s s wall; commit %s now\n' "$name" $((k + 1)) "$user" \
        "$wall" "$base" >&2
    rm -rf "$tmp"
    trap - EXIT
done

# Every piece done: join them into the one-sitting folder.
dirs=()
total=0
for k in "${!pieces[@]}"; do
    dirs+=("$base/piece-$((k + 1))")
    total=$(python3 -c "print(round($total + $(awk -F' = ' '$1 == "cpu_user_s" {print $2}' "$base/piece-$((k + 1))/run.toml"), 2))")
done
rm -rf "results/$name"
python3 scripts/pareto_pieces.py "results/$name" "${dirs[@]}"
python3 scripts/pareto_claims.py --json "results/$name" >"results/$name/analysis.json"
cat >"results/$name/run.toml" <<TOML
# Written by scripts/pieces.sh $name: the ${#pieces[@]} pieces of results/pieces/$name joined
command = $(printf '%s' "$cmd --checkpoints ${plan//;/,} --out \$out (in pieces)" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')
commit = "$commit"
date = "$(date -u +%Y-%m-%d)"
cpu_user_s = $total
TOML
printf '%s: joined %d pieces into results/%s (%s s user CPU in all)\n' "$name" "${#pieces[@]}" \
    "$name" "$total" >&2
