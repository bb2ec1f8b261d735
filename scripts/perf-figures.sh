#!/usr/bin/env bash
# The whole-process figures of docs/performance.md, one line a case: the instructions
# (valgrind's callgrind, "Collected": the same on any load) or the CPU time (user + system,
# `/usr/bin/time`, with the peak resident memory and the 1-minute load average before the
# run; wall times on this shared machine are left to hyperfine, see the doc).
#   scripts/perf-figures.sh instructions [WORD ...]   # callgrind, profiles kept in target/perf/
#   scripts/perf-figures.sh cpu [WORD ...]            # user + system seconds, peak MB
# With words, only the cases whose label holds every word (e.g. `cpu kth easy`).
# Run from anywhere; builds the release binary and the energy example first. The traces are
# read from ../shared/traces/ beside the project root (KAIROS_TRACES overrides it).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mode="${1:?usage: scripts/perf-figures.sh instructions|cpu [WORD ...]}"
shift
filters=("$@")
traces="${KAIROS_TRACES:-$root/../shared/traces}"
cargo build --release -q -p kairos-host --bin kairos --example energy_event_cpu
k=target/release/kairos
energy=target/release/examples/energy_event_cpu
out=target/perf
mkdir -p "$out"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

wanted() {
    local w
    for w in "${filters[@]}"; do [[ "$1" == *"$w"* ]] || return 1; done
}

measure() {
    local label="$1"
    shift
    wanted "$label" || return 0
    case "$mode" in
    instructions)
        valgrind --tool=callgrind --callgrind-out-file="$out/$label.cg" "$@" \
            >/dev/null 2>"$tmp/err"
        printf '%-34s %15s instructions\n' "$label" \
            "$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/err")"
        ;;
    cpu)
        local load
        load="$(cut -d' ' -f1 /proc/loadavg)"
        /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err"
        read -r user sys rss <"$tmp/time"
        printf '%-34s load %5s  cpu %7.2f s (user %.2f + sys %.2f)  peak %7.1f MB\n' \
            "$label" "$load" "$(awk "BEGIN { print $user + $sys }")" "$user" "$sys" \
            "$(awk "BEGIN { print $rss / 1024 }")"
        ;;
    *)
        echo "unknown mode $mode: instructions or cpu" >&2
        exit 2
        ;;
    esac
}

# Seed 000: one ESSC day (trial 0), each case of scripts/compare-days.sh.
for sc in essc-10k essc-5k; do
    for c in "random" "conservative" "easy" "multi-queue" \
        "max-util --reservations place-holder" "max-upt --reservations place-holder" \
        "max-upr --reservations place-holder" "max-upe --reservations place-holder" \
        "max-upr --reservations place-holder --filter per-resource"; do
        label="$sc-$(echo "$c" | sed -e 's/ --reservations place-holder/-ph/' \
            -e 's/ --filter per-resource/-epr/')"
        # shellcheck disable=SC2086
        measure "$label" "$k" run "scenarios/$sc.toml" --heuristic $c --json
    done
done

# Trace replay: the shared logs under both allocations.
for log in KTH-SP2-1996-2.1:kth UniLu-Gaia-2014-2:gaia CEA-Curie-2011-2.1-sample:curie; do
    for alloc in nodes pool; do
        for p in fcfs easy conservative; do
            measure "${log#*:}-$alloc-$p" "$k" replay "$traces/${log%%:*}.swf" --policy "$p" \
                --clean strong --allocation "$alloc"
        done
    done
done

# Seed 002: Chapter 2's slowest day, Chapters 3-4's two-day runs, Chapter 5's generations.
measure s002-sufferage-50k "$k" experiment benches/inputs/sufferage-50k.toml --threads 1 \
    --out "$tmp/sufferage" --force
for h in max-max-upe weighted-upe min-min-comp; do
    measure "s002-energy-$h" "$energy" "$h" none
done
measure s002-pareto-set2-2000-t1 "$k" pareto benches/inputs/pareto-set2-random.toml \
    --checkpoints 2000 --threads 1 --out "$tmp/pareto" --force

# Whole experiments and logs of millions of jobs: CPU time only (callgrind would take an hour).
[[ "$mode" == cpu ]] || exit 0
measure s002-pareto-set2-2000-t2 "$k" pareto benches/inputs/pareto-set2-random.toml \
    --checkpoints 2000 --threads 2 --out "$tmp/pareto2" --force
measure knapsack-kth-batch "$k" sweep-knapsack "$traces/KTH-SP2-1996-2.1.swf" --batch \
    --out "$tmp/knapsack" --force
if wanted fig9-5k; then
    measure fig9-5k "$k" experiment experiments/fig9-5k.toml --threads 2 --out "$tmp/fig9" --force
fi
lublin=target/trace-scale/lublin99-5000k-163840.swf
if wanted lublin; then
    mkdir -p "$(dirname "$lublin")"
    [[ -f "$lublin" ]] || "$k" generate-swf --model lublin99 --procs 163840 --jobs 5000000 \
        --load 0.8 --seed 1 -o "$lublin"
    measure lublin-5000k-nodes-easy-stream "$k" replay "$lublin" --policy easy \
        --allocation nodes --stream
    measure lublin-5000k-pool-easy "$k" replay "$lublin" --policy easy --allocation pool
fi
