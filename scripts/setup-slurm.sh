#!/usr/bin/env bash
# A Slurm cluster on this machine, for the tests of `kairos slurm` (scripts/test-slurm.sh) and
# `kairos slurm-control` (scripts/test-slurm-control.sh).
#   scripts/setup-slurm.sh start   installs slurm-wlm and munge with apt if missing, writes a
#                                  one-node /etc/slurm/slurm.conf for this machine, starts
#                                  munged, slurmctld and slurmd, and waits for the node to be idle;
#   scripts/setup-slurm.sh stop    stops the daemons that `start` started (by their own pids,
#                                  recorded in $STATE), and no others;
#   scripts/setup-slurm.sh status  says what runs.
# With KAIROS_SLURM_NODES=N (N >= 2), the same for a second, separate cluster of N nodes
# `n1..nN` (one `slurmd -N nK` each, 1 CPU a node) under /etc/slurm-kairos/ (its own ports,
# state and logs, so it runs beside the one-node cluster): the cluster `kairos slurm-control`
# schedules. Its slurm.conf installs /etc/slurm-kairos/job_submit.lua (JobSubmitPlugins=lua),
# which holds every job submitted to a partition kairos manages (KAIROS_SLURM_PARTITIONS,
# default `kairos`), and records each finished job in /var/log/slurm-kairos/jobcomp.log
# (jobcomp/filetxt). Commands for it need `SLURM_CONF=/etc/slurm-kairos/slurm.conf`.
# Idempotent: what is installed is not installed again, a daemon that answers is not started
# again (and then not stopped either: it is not ours), a slurm.conf that this script did not
# write is left alone. Needs root (apt, /etc, the daemons); runs sudo -n when not root.
# Exit 0 when the node is idle and takes jobs; non-zero with a plain message otherwise.
set -euo pipefail
STATE="${KAIROS_SLURM_STATE:-/run/kairos-slurm}"
NODES="${KAIROS_SLURM_NODES:-1}"
PARTS="${KAIROS_SLURM_PARTITIONS:-kairos}"
case "$NODES" in '' | *[!0-9]*) echo "setup-slurm: KAIROS_SLURM_NODES=$NODES is not a number" >&2; exit 1 ;; esac
if [ "$NODES" -ge 2 ]; then
    MULTI=1
    CONFDIR=/etc/slurm-kairos
    SPOOL=/var/spool/slurm-kairos
    LOGDIR=/var/log/slurm-kairos
    STARTED="$STATE/started-multi"
    export SLURM_CONF="$CONFDIR/slurm.conf"
else
    MULTI=0
    CONFDIR=/etc/slurm
    LOGDIR=/var/log/slurm
    STARTED="$STATE/started"
fi
CONF="$CONFDIR/slurm.conf"
MARK="# written by kairos scripts/setup-slurm.sh"
say() { printf 'setup-slurm: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        exec sudo -n KAIROS_SLURM_STATE="$STATE" KAIROS_SLURM_NODES="$NODES" \
            KAIROS_SLURM_PARTITIONS="$PARTS" "$0" "$@"
    fi
    die "needs root (apt-get, /etc/slurm, the daemons) and sudo -n is not available"
fi

# A daemon is `munged`, `slurmctld`, `slurmd` (one-node cluster) or `slurmd:nK` (node nK of
# the cluster of N nodes).
pidfile_of() {
    case "$1" in
        munged) echo /run/munge/munged.pid ;;
        slurmctld) if [ "$MULTI" = 1 ]; then echo /run/slurmctld-kairos.pid; else echo /run/slurmctld.pid; fi ;;
        slurmd) echo /run/slurmd.pid ;;
        slurmd:*) echo "/run/slurmd-kairos-${1#slurmd:}.pid" ;;
    esac
}

# Whether the process in the pid file is alive and is the named daemon.
alive() {
    local f pid
    f="$(pidfile_of "$1")"
    [ -s "$f" ] || return 1
    pid="$(cat "$f")"
    [ -d "/proc/$pid" ] && grep -q "${1%%:*}" "/proc/$pid/comm" 2>/dev/null
}

munge_ok() { command -v munge >/dev/null && munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }
node_idle() {
    command -v sinfo >/dev/null || return 1
    local states
    states="$(sinfo -h -N -o '%T' 2>/dev/null)" || return 1
    if [ "$MULTI" = 1 ]; then
        # Every one of the N nodes answers.
        [ "$(grep -cE '^(idle|mixed|allocated|completing)' <<<"$states")" -ge "$NODES" ]
    else
        grep -qE '^(idle|mixed|allocated)' <<<"$states"
    fi
}

install() {
    local missing=()
    command -v slurmctld >/dev/null && command -v slurmd >/dev/null \
        && command -v sbatch >/dev/null || missing+=(slurm-wlm)
    command -v munged >/dev/null || missing+=(munge)
    [ ${#missing[@]} -eq 0 ] && return 0
    say "installing ${missing[*]} with apt-get (about a minute)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || die "apt-get update failed"
    apt-get install -y -qq "${missing[@]}" >/dev/null || die "apt-get install ${missing[*]} failed"
}

start_munge() {
    if munge_ok; then return 0; fi
    mkdir -p /etc/munge /run/munge /var/log/munge /var/lib/munge
    if [ ! -s /etc/munge/munge.key ]; then
        dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    fi
    chown munge:munge /etc/munge /etc/munge/munge.key /run/munge /var/lib/munge /var/log/munge
    chmod 0400 /etc/munge/munge.key
    chmod 0755 /run/munge
    # As its own user: run as root, munged calls a log directory owned by munge insecure.
    runuser -u munge -- munged || die "munged did not start (see /var/log/munge/munged.log)"
    echo munged >>"$STARTED"
    for _ in $(seq 50); do munge_ok && return 0; sleep 0.1; done
    die "munged started but munge -n | unmunge fails"
}

write_conf() {
    if [ "$MULTI" = 1 ]; then
        write_conf_multi
        return
    fi
    if [ -f "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
        say "$CONF exists and is not ours: using it as is"
        return 0
    fi
    local host cpus mem
    host="$(hostname -s)"
    cpus="$(nproc)"
    mem="$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)"
    mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
    cat >"$CONF.tmp" <<EOF
$MARK: one node, this machine.
ClusterName=kairos
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=$(pidfile_of slurmctld)
SlurmdPidFile=$(pidfile_of slurmd)
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ReturnToService=2
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    if [ -f "$CONF" ] && cmp -s "$CONF" "$CONF.tmp"; then
        rm -f "$CONF.tmp"
    else
        mv "$CONF.tmp" "$CONF"
        say "wrote $CONF ($host: $cpus CPUs, $mem MB)"
    fi
}

# The cluster of N nodes: its own ports, spool, logs and pid files, job_submit.lua holding
# the jobs of the partitions kairos manages, and a job completion log.
write_conf_multi() {
    if [ -f "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
        say "$CONF exists and is not ours: using it as is"
        return 0
    fi
    local host last k first parts_lua
    host="$(hostname -s)"
    first="$(cut -d, -f1 <<<"$PARTS")"
    mkdir -p "$CONFDIR" "$SPOOL/ctld" "$LOGDIR"
    for k in $(seq "$NODES"); do mkdir -p "$SPOOL/d/n$k"; done
    last=$((17100 + NODES))
    cat >"$CONF.tmp" <<EOF
$MARK: $NODES nodes (slurmd -N nK), for kairos slurm-control.
ClusterName=kairosctl
SlurmctldHost=$host
SlurmctldPort=6917
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
JobSubmitPlugins=lua
JobCompType=jobcomp/filetxt
JobCompLoc=$LOGDIR/jobcomp.log
MinJobAge=600
StateSaveLocation=$SPOOL/ctld
SlurmdSpoolDir=$SPOOL/d/%n
SlurmctldPidFile=$(pidfile_of slurmctld)
SlurmdPidFile=/run/slurmd-kairos-%n.pid
SlurmctldLogFile=$LOGDIR/slurmctld.log
SlurmdLogFile=$LOGDIR/slurmd-%n.log
SlurmdParameters=config_overrides
ReturnToService=2
NodeName=n[1-$NODES] NodeHostname=$host Port=17101-$last CPUs=1 RealMemory=1000 State=UNKNOWN
PartitionName=$first Nodes=n[1-$NODES] Default=YES MaxTime=INFINITE State=UP
EOF
    parts_lua="$(tr ',' '\n' <<<"$PARTS" | sed 's/.*/["&"] = true, /' | tr -d '\n')"
    cat >"$CONFDIR/job_submit.lua.tmp" <<EOF
-- $MARK
-- Holds every job submitted to a partition kairos manages (priority 0, as sbatch -H does):
-- kairos slurm-control gives it its nodes and releases it, or cancels it.
local managed = { $parts_lua}
local default_partition = "$first"

function slurm_job_submit(job_desc, part_list, submit_uid)
    local part = job_desc.partition or default_partition
    for p in string.gmatch(part, "[^,]+") do
        if managed[p] then
            job_desc.priority = 0
            return slurm.SUCCESS
        end
    end
    return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
    return slurm.SUCCESS
end

return slurm.SUCCESS
EOF
    mv "$CONFDIR/job_submit.lua.tmp" "$CONFDIR/job_submit.lua"
    if [ -f "$CONF" ] && cmp -s "$CONF" "$CONF.tmp"; then
        rm -f "$CONF.tmp"
    else
        mv "$CONF.tmp" "$CONF"
        say "wrote $CONF ($NODES nodes n1..n$NODES on $host; partition $PARTS held by job_submit.lua)"
    fi
}

start_daemon() {
    local d="$1" name
    alive "$d" && return 0
    case "$d" in
        slurmd:*)
            name="${d#slurmd:}"
            slurmd -N "$name" || die "slurmd -N $name did not start (see $LOGDIR/slurmd-$name.log)"
            ;;
        *) "$d" || die "$d did not start (see $LOGDIR/$d.log)" ;;
    esac
    echo "$d" >>"$STARTED"
    for _ in $(seq 50); do alive "$d" && return 0; sleep 0.1; done
    die "$d started but left no live pid in $(pidfile_of "$d") (see $LOGDIR/)"
}

start() {
    mkdir -p "$STATE"
    touch "$STARTED"
    # Forget daemons an earlier start recorded that are gone (a reboot, a crash).
    local d k kept=()
    for d in $(cat "$STARTED"); do alive "$d" && kept+=("$d"); done
    printf '%s\n' "${kept[@]}" | grep . >"$STARTED" || true
    install
    start_munge
    if node_idle; then
        say "Slurm already answers: $(sinfo -h -N -o '%N %T' | tr '\n' ' ')"
        return 0
    fi
    write_conf
    start_daemon slurmctld
    if [ "$MULTI" = 1 ]; then
        for k in $(seq "$NODES"); do start_daemon "slurmd:n$k"; done
    else
        start_daemon slurmd
    fi
    for _ in $(seq 100); do
        if node_idle; then
            say "nodes: $(sinfo -h -N -o '%N %T' | sort -u | tr '\n' ' ')"
            return 0
        fi
        sleep 0.2
    done
    # A node left down or drained by an earlier run: bring it back.
    if [ "$MULTI" = 1 ]; then
        scontrol update nodename="n[1-$NODES]" state=resume 2>/dev/null || true
    else
        scontrol update nodename="$(hostname -s)" state=resume 2>/dev/null || true
    fi
    for _ in $(seq 50); do node_idle && return 0; sleep 0.2; done
    die "the node did not become idle: $(sinfo -N 2>&1 | tr '\n' ' ')"
}

stop() {
    [ -f "$STARTED" ] || { say "nothing started by this script"; return 0; }
    # Newest first: slurmd, slurmctld, then munged.
    local d pid
    for d in $(tac "$STARTED"); do
        if alive "$d"; then
            pid="$(cat "$(pidfile_of "$d")")"
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 50); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
            [ -d "/proc/$pid" ] && kill -9 "$pid" 2>/dev/null || true
            say "stopped $d (pid $pid)"
        fi
    done
    rm -f "$STARTED"
}

status() {
    local d
    local ds=(munged slurmctld slurmd)
    if [ "$MULTI" = 1 ]; then
        mapfile -t ds < <(echo munged; echo slurmctld; seq -f 'slurmd:n%g' "$NODES")
    fi
    for d in "${ds[@]}"; do
        if alive "$d"; then echo "$d: running, pid $(cat "$(pidfile_of "$d")")"; else echo "$d: not running"; fi
    done
    command -v sinfo >/dev/null && sinfo -N 2>&1 || true
}

case "${1:-start}" in
    start) start ;;
    stop) stop ;;
    status) status ;;
    *) die "usage: $0 [start|stop|status]" ;;
esac
