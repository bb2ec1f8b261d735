#!/usr/bin/env bash
# `kairos slurm-control` on a real Slurm (issue 46), as CI runs it from scripts/test:
#   1. KAIROS_SLURM_NODES=4 scripts/setup-slurm.sh start: a Slurm of 4 nodes on this machine
#      (`slurmd -N n1..n4`, its own config under /etc/slurm-kairos, job_submit.lua holding the
#      jobs of partition `kairos`; installed if missing);
#   2. a slice of the KTH-SP2 log (its 20 jobs from job 4000, host/tests/data/swf/), its times
#      divided by 100 (run times kept within 6-40 s), processors -> nodes of 25;
#   3. kairos slurm-control (EASY) in charge while the jobs are submitted as `sleep` jobs at
#      their scaled submit times; killed with SIGKILL midway (in a quiet stretch of the
#      simulated schedule) and restarted on its ledger 2 s later;
#   4. the schedule Slurm ran (start times and node lists, from its job completion log)
#      compared with `kairos replay` of the same jobs (each holding its nodes as long as it
#      did on Slurm, from the second kairos decided its start to its end):
#      every job ran once, on the nodes the simulation gives, starting within the tolerance
#      (2 s, the cycle and Slurm's start, per job it waited behind, plus 2 s);
#   4b. the same slice with --controller qemu (the firmware's live image, firmware/live.sh,
#      deciding over its serial link; no kill), its schedule checked as in 4, and its ledger
#      replayed by an in-process kairos, which fails unless the firmware's decisions are the
#      in-process controller's;
#   5. the decision latency: one cycle over 1,000 held jobs (read, decided, applied), in
#      process and with --controller qemu, printed (docs/operations.md);
#   6. stops kairos and the daemons it started (only those).
#   3b. the slice again (in process, no kill) with n2 drained midway and resumed 30 s later:
#      nothing placed on n2 meanwhile (kairos's ledger), n2 used again once resumed;
# KAIROS_SLURM_CONTROL_RUNS picks among the runs "inprocess drain qemu latency" (default: all).
# When Slurm cannot be started, it says so; that is a failure under CI=true and a skip
# otherwise. Uses the debug kairos binary (built if needed), or $KAIROS_BIN.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
say() { printf 'test-slurm-control: %s\n' "$*"; }
fail() { say "FAILED: $*"; exit 1; }

export KAIROS_SLURM_NODES=4 KAIROS_SLURM_PARTITIONS=kairos
export SLURM_CONF=/etc/slurm-kairos/slurm.conf
state="${KAIROS_SLURM_STATE:-/run/kairos-slurm}"
# The first 20 jobs of KTH-SP2 from job 4000, as the log has them (checked in).
log_swf="$root/host/tests/data/swf/kth-sp2-from-4000.swf"
# Stop afterwards only what this run starts.
ours=1
if [ -s "$state/started-multi" ]; then
    for d in $(cat "$state/started-multi"); do
        case "$d" in
            munged) pidfile=/run/munge/munged.pid ;;
            slurmctld) pidfile=/run/slurmctld-kairos.pid ;;
            *) pidfile="/run/slurmd-kairos-${d#slurmd:}.pid" ;;
        esac
        [ -s "$pidfile" ] && [ -d "/proc/$(cat "$pidfile")" ] && ours=0
    done
fi
if ! scripts/setup-slurm.sh start; then
    say "Slurm could not be started on this machine (see above): kairos slurm-control was NOT tested"
    if [ "${CI:-}" = "true" ]; then
        fail "CI=true and the Slurm test must run in CI"
    fi
    say "SKIPPED (not CI)"
    exit 0
fi
tmp="$(mktemp -d /tmp/kairos-slurm-control-test.XXXXXX)"
kpid=""
cleanup() {
    [ -n "$kpid" ] && kill "$kpid" 2>/dev/null || true
    scancel --partition=kairos 2>/dev/null || true
    [ "$ours" = 1 ] && scripts/setup-slurm.sh stop || true
    rm -rf "$tmp"
}
trap cleanup EXIT

if [ -n "${KAIROS_BIN:-}" ]; then
    kairos="$KAIROS_BIN"
else
    cargo build -q -p kairos-host --bin kairos
    kairos="$root/target/debug/kairos"
fi
# Jobs of earlier runs out of the way; the completion log read from here on.
scancel --partition=kairos 2>/dev/null || true
jobcomp=/var/log/slurm-kairos/jobcomp.log
touch "$jobcomp"
comp_from=$(($(wc -l <"$jobcomp") + 1))

# 2. The slice.
python3 - "$log_swf" >"$tmp/slice.swf" <<'PY'
import gzip, math, sys
src = sys.argv[1]
first, count, scale, nodes, lo, hi = 4000, 20, 100.0, 4, 6, 40
rows = []
with (gzip.open(src, "rt") if src.endswith(".gz") else open(src)) as f:
    for line in f:
        if line.startswith(";") or not line.strip():
            continue
        x = line.split()
        jid, sub, run, procs, req = int(x[0]), int(x[1]), int(x[3]), int(x[4]), int(x[8])
        if jid < first or run <= 0 or procs <= 0:
            continue
        rows.append((jid, sub, run, procs, req))
        if len(rows) == count:
            break
s0 = rows[0][1]
print("; MaxProcs: %d" % nodes)
for jid, sub, run, procs, req in rows:
    n = max(1, min(nodes, math.ceil(procs * nodes / 100)))
    s = round((sub - s0) / scale)
    r = min(hi, max(lo, round(run / scale)))
    q = min(2 * hi, max(r + 3, round(max(req, run) / scale)))
    print(f"{jid} {s} -1 {r} {n} -1 -1 {n} {q} -1 1 1 1 -1 -1 -1 -1 -1")
PY
jobs=$(grep -vc '^;' "$tmp/slice.swf")
say "slice: $jobs jobs of KTH-SP2 from job 4000, times / 100, on 4 nodes"

cat >"$tmp/policy.toml" <<'EOF2'
policy = "easy"
partitions = ["kairos"]
poll_ms = 200

[power]
busy_watts = 200
idle_watts = 60
EOF2

# kairos in charge, its ledger and log under $run, with any --controller given ($ctl).
start_kairos() {
    "$kairos" slurm-control "$tmp/policy.toml" --ledger "$run/ledger.json" "${ctl[@]}" \
        2>>"$run/kairos.log" &
    kpid=$!
}


# When to kill kairos: in the middle of the first quiet stretch of 10 s or more (no submit,
# start or end in the simulation of the slice) past a third of the schedule. Killed when a
# decision is due, the restart's few seconds delay it, and a decision delayed into later
# events may rightly differ from the simulation's; the restart itself must change nothing.
# (Kills at every cycle, with decisions due, are host/src/slurm_control/tests.rs's.)
"$kairos" replay "$tmp/slice.swf" --policy easy --batsim-out "$tmp/nominal/s" >/dev/null
kill_s=$(python3 - "$tmp/nominal/s_jobs.csv" <<'PY'
import csv, sys
ev = set()
for r in csv.DictReader(open(sys.argv[1])):
    ev |= {float(r[k]) for k in ("submission_time", "starting_time", "finish_time")}
ev = sorted(ev)
for a, b in zip(ev, ev[1:]):
    if a >= ev[-1] / 3 and b - a >= 10:
        print(int((a + b) / 2), int(b) - 1)
        break
else:
    print(int(ev[-1] / 2), int(ev[-1] / 2) + 5)
PY
)
read -r kill_s kill_end <<<"$kill_s"

# 3b. The drain run: n2 drained (scontrol update state=drain) at drain_s, a job of all 4
# nodes (kd-1) submitted then, n2 resumed 30 s later and another (kd-2) submitted. kairos
# must place nothing on n2 while it is drained (its ledger: no start or reservation on n2
# between the node's going out and its coming back), start kd-1 only once n2 is back, and
# use n2 again then; every job runs once and completes.
drain_s=$(python3 - "$tmp/nominal/s_jobs.csv" <<'PY'
import csv, sys
ends = [float(r["finish_time"]) for r in csv.DictReader(open(sys.argv[1]))]
print(int(max(ends) / 4))
PY
)
drain_node() {
    while [ "$(date +%s)" -lt "$((t0 + drain_s))" ]; do sleep 0.2; done
    scontrol update nodename=n2 state=drain reason=kairos-test || return 1
    date +%s >"$run/drained-at"
    sbatch -Q -p kairos -J kd-1 -N 4 --time=1 --comment "kairos: estimate=10" -o /dev/null \
        --wrap "sleep 5" || return 1
    while [ "$(date +%s)" -lt "$((t0 + drain_s + 30))" ]; do sleep 0.2; done
    date +%s >"$run/resumed-at"
    scontrol update nodename=n2 state=resume || return 1
    sbatch -Q -p kairos -J kd-2 -N 4 --time=1 --comment "kairos: estimate=10" -o /dev/null \
        --wrap "sleep 5" || return 1
}
check_drain() {
    python3 - "$run" "$(cat "$run/drained-at")" "$(cat "$run/resumed-at")" <<'PY' \
        || fail "drain: kairos did not route around the drained node"
import datetime, json, os, re, sys
run, drained, resumed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def unix(s):
    return int(datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S").timestamp())
def expand(s):
    out = []
    for part in re.findall(r'[^,\[]+(?:\[[^\]]*\])?', s):
        m = re.match(r'^(.*)\[(.*)\]$', part)
        if not m:
            out.append(part); continue
        for r in m.group(2).split(','):
            a, _, b = r.partition('-')
            out += [f"{m.group(1)}{k}" for k in range(int(a), int(b or a) + 1)]
    return out
ran = {}
for line in open(os.path.join(run, "jobcomp.log")):
    f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    name = f.get("Name", "")
    if not name.startswith(("kc-", "kd-")):
        continue
    if name in ran:
        sys.exit(f"{name} appears twice in Slurm's completion log")
    ran[name] = (f["JobState"], unix(f["StartTime"]), expand(f["NodeList"]), int(f["JobId"]))
want = 20 + 2
if len(ran) != want:
    sys.exit(f"{len(ran)} jobs in the completion log, {want} submitted")
bad = {n: r[0] for n, r in ran.items() if r[0] != "COMPLETED"}
if bad:
    sys.exit(f"jobs that did not complete: {bad}")
ledger = json.load(open(os.path.join(run, "ledger.json")))
epoch = ledger["epoch"]
out = back = None
placed = []
for e in ledger["entries"]:
    if "node_out" in e and e["node_out"]["node"] == "n2":
        out = e["node_out"]["at"]
    elif "node_in" in e and e["node_in"]["node"] == "n2":
        back = e["node_in"]["at"]
    elif "map" in e:
        for d in e["map"]["decisions"]:
            if "n2" in d["nodes"] and out is not None and back is None:
                placed.append((e["map"]["now"] // 1000000, d))
if out is None or back is None:
    sys.exit(f"kairos's ledger does not show n2 going out and back (out {out}, back {back})")
if placed:
    sys.exit(f"kairos placed jobs on n2 while it was drained: {placed}")
for name in ("kd-1", "kd-2"):
    state, start, nodes, _ = ran[name]
    if sorted(nodes) != ["n1", "n2", "n3", "n4"]:
        sys.exit(f"{name} ran on {nodes}")
    if start < resumed:
        sys.exit(f"{name} started at {start}, before n2 was resumed at {resumed}")
on_n2 = [n for n, r in ran.items() if drained < r[1] < resumed and "n2" in r[2]]
if on_n2:
    sys.exit(f"jobs started on n2 while it was drained: {on_n2}")
print(f"  n2 drained at t={drained - (epoch)} s and resumed at t={resumed - epoch} s (kairos: out at "
      f"{out // 1000000} s, back at {back // 1000000} s); nothing placed on it meanwhile; "
      f"the 4-node job submitted during the drain started {ran['kd-1'][1] - resumed} s after the resume")
PY
    grep -q "node n2 is .*drain.* out of service" "$run/kairos.log" \
        || fail "drain: kairos's log does not say n2 went out of service"
    grep -q "node n2 is back in service" "$run/kairos.log" \
        || fail "drain: kairos's log does not say n2 came back"
    say "drain: nothing was placed on the drained n2; used again once resumed"
}

# 3.-4. One run of the slice: run_slice NAME KILL [--controller ...]: kairos in charge
# (its decisions from the --controller given), the jobs submitted at their times, kairos
# killed and restarted midway if KILL is "kill"; then the schedule Slurm ran checked.
run_slice() {
    name="$1" kill="${2#nokill}"
    shift 2
    ctl=("$@")
    run="$tmp/$name"
    mkdir -p "$run"
    cp "$tmp/slice.swf" "$run/slice.swf"
    comp_from=$(($(wc -l <"$jobcomp") + 1))
    # 3. kairos in charge; the jobs submitted at their times; kairos killed and restarted.
    start_kairos
    t0=$(($(date +%s) + 3))
    say "$name: time zero at $(date -d "@$t0" +%T); kairos pid $kpid${kill:+; killed at t=$kill_s s}"
    kill_at=$((t0 + kill_s))
    kill_by=$((t0 + kill_end))
    # The submitter, in the background: each job at its scaled submit time.
    submit_all() {
        local id sub run nodes req
        while read -r id sub _ run nodes _ _ _ req _; do
            while [ "$(date +%s%N)" -lt "$(((t0 + sub) * 1000000000))" ]; do sleep 0.05; done
            sbatch -Q -p kairos -J "kc-$id" -N "$nodes" --time=$(((req + 59) / 60 + 1)) \
                --comment "kairos: estimate=$req" -o /dev/null --wrap "sleep $run" \
                || { echo "sbatch of job $id failed" >&2; return 1; }
        done < <(grep -v '^;' "$tmp/slice.swf")
    }
    submit_all &
    spid=$!
    extra=0
    if [ "$name" = drain ]; then
        drain_node &
        dpid=$!
        extra=2
    fi
    # Kill -9 midway, then restart on the ledger: at the quiet stretch's middle, once no job
    # of the slice waits held (no decision is due: on a loaded machine kairos's cycles lag
    # the simulated times, and a kill while a start is due would rightly move it), or at the
    # stretch's end whatever waits.
    if [ -n "$kill" ]; then
        while [ "$(date +%s)" -lt "$kill_at" ]; do sleep 0.2; done
        while [ "$(date +%s)" -lt "$kill_by" ] \
            && [ -n "$(squeue -h -p kairos -t PENDING -o %j | grep '^kc-' || true)" ]; do
            sleep 0.2
        done
        kill -9 "$kpid"
        wait "$kpid" 2>/dev/null || true
        say "$name: kairos killed (SIGKILL) at t=$(($(date +%s) - t0)) s; restarted 2 s later"
        sleep 2
        start_kairos
    fi
    wait "$spid" || fail "the submissions failed"
    say "$name: all $jobs jobs submitted"
    if [ "$name" = drain ]; then
        wait "$dpid" || fail "the drain and resume of n2 failed"
    fi
    # Until every job of the slice has ended (15 minutes at most: a loaded machine stretches
    # the schedule, a lost or forever-held job never ends).
    wait_until=$(($(date +%s) + 900))
    while :; do
        left=$(squeue -h -p kairos -t PENDING,RUNNING,CONFIGURING,COMPLETING -o %i | wc -l)
        [ "$left" = 0 ] && break
        [ "$(date +%s)" -lt "$wait_until" ] || break
        sleep 0.2
    done
    [ "$left" = 0 ] || fail "$name: $left jobs still pending or running after 900 s: $(squeue -p kairos 2>&1 | head -20)"
    kill "$kpid"; wait "$kpid" || fail "kairos slurm-control exited non-zero after SIGTERM: $(tail -5 "$run/kairos.log")"
    kpid=""
    if [ -n "$kill" ]; then
        grep -q "entries replayed" "$run/kairos.log" || fail "the restarted kairos did not rebuild from its ledger"
    fi
    # slurmctld writes a job's completion record after the job leaves the queue: wait for
    # every job's record (2 minutes at most), not a fixed pause.
    want=$((jobs + extra))
    wait_until=$(($(date +%s) + 120))
    while [ "$(tail -n +"$comp_from" "$jobcomp" | grep -c 'Name=k[cd]-')" -lt "$want" ] \
        && [ "$(date +%s)" -lt "$wait_until" ]; do
        sleep 0.2
    done
    tail -n +"$comp_from" "$jobcomp" >"$run/jobcomp.log"

    if [ "$name" = drain ]; then
        check_drain
        return
    fi
    # 4. The schedule Slurm ran against the simulation of the same jobs.
    python3 - "$run" "$t0" "$kairos" <<'PY' || fail "the schedule Slurm ran is not kairos's"
import csv, datetime, os, re, subprocess, sys
tmp, t0, kairos = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def expand(s):
    out = []
    for part in re.findall(r'[^,\[]+(?:\[[^\]]*\])?', s):
        m = re.match(r'^(.*)\[(.*)\]$', part)
        if not m:
            out.append(part); continue
        for r in m.group(2).split(','):
            a, _, b = r.partition('-')
            for k in range(int(a), int(b or a) + 1):
                out.append(f"{m.group(1)}{k:0{len(a)}d}")
    return out
def unix(s):
    return int(datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S").timestamp())
ran = {}
for line in open(os.path.join(tmp, "jobcomp.log")):
    f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    name = f.get("Name", "")
    if not name.startswith("kc-"):
        continue
    jid = int(name[3:])
    if jid in ran:
        sys.exit(f"job {jid} appears twice in Slurm's completion log (started twice?)")
    ran[jid] = dict(state=f["JobState"], start=unix(f["StartTime"]) - t0,
                    end=unix(f["EndTime"]) - t0, nodes=expand(f["NodeList"]),
                    submit=unix(f["SubmitTime"]) - t0)
slice_rows = [l.split() for l in open(os.path.join(tmp, "slice.swf")) if not l.startswith(";")]
missing = [r[0] for r in slice_rows if int(r[0]) not in ran]
if missing:
    sys.exit(f"jobs {missing} never ran (lost or left held)")
bad = {j: r["state"] for j, r in ran.items() if r["state"] != "COMPLETED"}
if bad:
    sys.exit(f"jobs that did not complete: {bad}")
# kairos's decisions (its ledger): when each job was to start.
import json
ledger = json.load(open(os.path.join(tmp, "ledger.json")))
decided = {}
for e in ledger["entries"]:
    for d in e.get("map", {}).get("decisions", []):
        if d["kind"] in ("start", "reserve"):
            decided[d["job"]] = ledger["epoch"] + d["start"] // 1000000 - t0
# Slurm's job ids -> the log's.
ids = {}
for line in open(os.path.join(tmp, "jobcomp.log")):
    f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    if f.get("Name", "").startswith("kc-"):
        ids[int(f["JobId"])] = int(f["Name"][3:])
decided = {ids[j]: t for j, t in decided.items() if j in ids}
# The simulation: the same jobs, submitted when Slurm says they were (sbatch lags its
# schedule on a loaded machine), each holding its nodes as long as it did on Slurm, from the
# second kairos decided its start to its end (a job's start lag is its own time).
with open(os.path.join(tmp, "asrun.swf"), "w") as out:
    out.write("; MaxProcs: 4\n")
    for r in slice_rows:
        j = int(r[0]); run = ran[j]["end"] - decided.get(j, ran[j]["start"])
        r = list(r); r[3] = str(max(1, min(run, int(r[8]))))
        r[1] = str(max(int(r[1]), ran[j]["submit"]))
        out.write(" ".join(r) + "\n")
subprocess.run([kairos, "replay", os.path.join(tmp, "asrun.swf"), "--policy", "easy",
                "--batsim-out", os.path.join(tmp, "sim", "s")], check=True, stdout=subprocess.DEVNULL)
sim = {}
for row in csv.DictReader(open(os.path.join(tmp, "sim", "s_jobs.csv"))):
    ids = []
    for part in row["allocated_resources"].split():
        a, _, b = part.partition("-")
        ids += range(int(a), int(b or a) + 1)
    sim[int(row["job_id"])] = dict(submit=float(row["submission_time"]),
        start=float(row["starting_time"]), end=float(row["finish_time"]),
        nodes=[f"n{i + 1}" for i in ids])
# Each job's tolerance: 2 s and the longest cycle kairos logged (a cycle to see the end, one
# to start, each as long as the machine's load makes it), and as much per job it waited
# behind (each wait adds that much, and waits chain).
lag = 0.0
for line in open(os.path.join(tmp, "kairos.log")):
    m = re.search(r"read ([0-9.]+) ms, decided ([0-9.]+) ms, applied ([0-9.]+) ms", line)
    if m:
        lag = max(lag, sum(float(x) for x in m.groups()) / 1000)
depth = {}
for j in sorted(sim, key=lambda j: sim[j]["start"]):
    s = sim[j]
    if s["start"] <= s["submit"] + 1e-9:
        depth[j] = 0
    else:
        before = [depth[k] for k in depth if abs(sim[k]["end"] - s["start"]) < 1e-6]
        depth[j] = 1 + max(before, default=0)
worst, errors = 0.0, []
for j in sorted(sim):
    s, r = sim[j], ran[j]
    tol = (2 + lag) * (1 + depth[j])
    dev = r["start"] - s["start"]
    worst = max(worst, abs(dev))
    line = f"job {j}: simulated start {s['start']:.0f} s on {','.join(s['nodes'])}; Slurm {r['start']} s on {','.join(r['nodes'])}"
    if sorted(r["nodes"]) != sorted(s["nodes"]):
        errors.append(line + ": other nodes")
    elif abs(dev) > tol:
        errors.append(line + f": off by {dev:+.0f} s (tolerance {tol} s)")
print(f"  {len(sim)} jobs: same nodes as the simulation for {len(sim) - sum('nodes' in e for e in errors)}, "
      f"largest start difference {worst:.0f} s, deepest wait chain {max(depth.values())}, "
      f"longest cycle {lag:.1f} s")
if errors:
    print("\n".join("  " + e for e in errors))
    sys.exit(1)
PY
    say "$name: the schedule Slurm ran is kairos's simulation of the same jobs (node lists equal, starts within tolerance)"
}

# Which runs (all by default; a subset is for working on one of them):
# KAIROS_SLURM_CONTROL_RUNS="inprocess drain qemu latency".
runs="${KAIROS_SLURM_CONTROL_RUNS:-inprocess drain qemu latency}"
want() { [[ " $runs " == *" $1 "* ]]; }
# The live firmware image (firmware/live.sh; QEMU from scripts/setup-firmware.sh).
image=""
live_image() {
    if [ -z "$image" ]; then
        scripts/setup-firmware.sh >/dev/null
        image="$(firmware/live.sh)"
    fi
}

if want inprocess; then
    run_slice inprocess kill
fi
if want drain; then
    run_slice drain nokill
fi

# 4b. The same slice with every decision from the firmware under QEMU (the live image,
#     built by firmware/live.sh): Slurm's schedule checked as above, and the firmware's
#     decisions held to the in-process controller's: its ledger replayed by an in-process
#     kairos, which refuses a ledger whose mapping events do not replay to the decisions
#     recorded.
if want qemu; then
    live_image
    run_slice qemu nokill --controller qemu --image "$image"
    "$kairos" slurm-control "$tmp/policy.toml" --ledger "$tmp/qemu/ledger.json" --cycles 1 \
        2>"$tmp/qemu/replay.log" \
        || fail "the firmware's decisions are not the in-process controller's: $(cat "$tmp/qemu/replay.log")"
    grep -q "entries replayed" "$tmp/qemu/replay.log" || fail "the qemu run's ledger was not replayed"
    say "qemu: the firmware's decisions replay to the same decisions in process"
fi

# 5. Decision latency: one cycle over 1,000 held jobs, in process and with the firmware
#    under QEMU deciding (the jobs submitted afresh for each).
n=1000
if want latency; then
    live_image
    for via in inprocess qemu; do
        ctl=()
        [ "$via" = qemu ] && ctl=(--controller qemu --image "$image")
        say "$via: submitting $n held jobs for the latency measurement"
        for i in $(seq "$n"); do
            sbatch -Q -p kairos -J "kl-$i" -N 1 --time=1 --comment "kairos: estimate=30" -o /dev/null \
                --wrap "sleep 1" || fail "sbatch $i"
        done
        "$kairos" slurm-control "$tmp/policy.toml" --ledger "$tmp/latency-$via.json" --cycles 1 \
            "${ctl[@]}" 2>"$tmp/latency-$via.log" \
            || fail "the latency cycle ($via): $(cat "$tmp/latency-$via.log")"
        line="$(grep -m1 'arrived' "$tmp/latency-$via.log")" \
            || fail "no cycle line ($via): $(cat "$tmp/latency-$via.log")"
        grep -q "^slurm-control: t=[0-9]* s: $n arrived" <<<"$line" \
            || fail "the cycle ($via) did not take the $n jobs: $line"
        say "$via: latency over $n pending jobs: ${line#*waiting; }"
        scancel --partition=kairos
        # The next round counts its arrivals: wait until these have left (not a fixed pause).
        wait_until=$(($(date +%s) + 300))
        while [ -n "$(squeue -h -p kairos -t PENDING,RUNNING,CONFIGURING,COMPLETING -o %i)" ] \
            && [ "$(date +%s)" -lt "$wait_until" ]; do
            sleep 0.5
        done
    done
fi
say "ok"
