#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the test of `kairos slurm` (scripts/test-slurm.sh).
#   scripts/setup-slurm.sh start   installs slurm-wlm and munge with apt if missing, writes a
#                                  one-node /etc/slurm/slurm.conf for this machine, starts
#                                  munged, slurmctld and slurmd, and waits for the node to be idle;
#   scripts/setup-slurm.sh stop    stops the daemons that `start` started (by their own pids,
#                                  recorded in $STATE), and no others;
#   scripts/setup-slurm.sh status  says what runs.
# Idempotent: what is installed is not installed again, a daemon that answers is not started
# again (and then not stopped either: it is not ours), a slurm.conf that this script did not
# write is left alone. Needs root (apt, /etc, the daemons); runs sudo -n when not root.
# Exit 0 when the node is idle and takes jobs; non-zero with a plain message otherwise.
set -euo pipefail
STATE="${KAIROS_SLURM_STATE:-/run/kairos-slurm}"
CONF=/etc/slurm/slurm.conf
MARK="# written by kairos scripts/setup-slurm.sh"
say() { printf 'setup-slurm: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        exec sudo -n KAIROS_SLURM_STATE="$STATE" "$0" "$@"
    fi
    die "needs root (apt-get, /etc/slurm, the daemons) and sudo -n is not available"
fi

pidfile_of() {
    case "$1" in
        munged) echo /run/munge/munged.pid ;;
        slurmctld) echo /run/slurmctld.pid ;;
        slurmd) echo /run/slurmd.pid ;;
    esac
}

# Whether the process in the pid file is alive and is the named daemon.
alive() {
    local f pid
    f="$(pidfile_of "$1")"
    [ -s "$f" ] || return 1
    pid="$(cat "$f")"
    [ -d "/proc/$pid" ] && grep -q "$1" "/proc/$pid/comm" 2>/dev/null
}

munge_ok() { command -v munge >/dev/null && munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }
node_idle() {
    command -v sinfo >/dev/null \
        && sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'
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
    echo munged >>"$STATE/started"
    for _ in $(seq 50); do munge_ok && return 0; sleep 0.1; done
    die "munged started but munge -n | unmunge fails"
}

write_conf() {
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

start_daemon() {
    local d="$1"
    alive "$d" && return 0
    "$d" || die "$d did not start (see /var/log/slurm/$d.log)"
    echo "$d" >>"$STATE/started"
    for _ in $(seq 50); do alive "$d" && return 0; sleep 0.1; done
    die "$d started but left no live pid in $(pidfile_of "$d") (see /var/log/slurm/$d.log)"
}

start() {
    mkdir -p "$STATE"
    touch "$STATE/started"
    # Forget daemons an earlier start recorded that are gone (a reboot, a crash).
    local d kept=()
    for d in $(cat "$STATE/started"); do alive "$d" && kept+=("$d"); done
    printf '%s\n' "${kept[@]}" | grep . >"$STATE/started" || true
    install
    start_munge
    if node_idle; then
        say "Slurm already answers: $(sinfo -h -N -o '%N %T' | tr '\n' ' ')"
        return 0
    fi
    write_conf
    start_daemon slurmctld
    start_daemon slurmd
    for _ in $(seq 100); do
        if node_idle; then
            say "node $(sinfo -h -N -o '%N' | head -1) is $(sinfo -h -N -o '%T' | head -1)"
            return 0
        fi
        sleep 0.2
    done
    # A node left down or drained by an earlier run: bring it back.
    scontrol update nodename="$(hostname -s)" state=resume 2>/dev/null || true
    for _ in $(seq 50); do node_idle && return 0; sleep 0.2; done
    die "the node did not become idle: $(sinfo -N 2>&1 | tr '\n' ' ')"
}

stop() {
    [ -f "$STATE/started" ] || { say "nothing started by this script"; return 0; }
    # Newest first: slurmd, slurmctld, then munged.
    local d pid
    for d in $(tac "$STATE/started"); do
        if alive "$d"; then
            pid="$(cat "$(pidfile_of "$d")")"
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 50); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
            [ -d "/proc/$pid" ] && kill -9 "$pid" 2>/dev/null || true
            say "stopped $d (pid $pid)"
        fi
    done
    rm -f "$STATE/started"
}

status() {
    local d
    for d in munged slurmctld slurmd; do
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
