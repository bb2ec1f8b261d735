#!/usr/bin/env bash
# Installs evalys (PyPI, 4.x: Batsim's analysis and Gantt chart library) into a venv at
# $CARGO_TARGET_DIR/evalys-venv (default target/evalys-venv), for host/tests/evalys.rs, which
# checks that evalys reads the jobs files kairos writes.
# Idempotent. Outside CI it never fails the build: without python3, the venv module or the
# package, it says why and the test says so too. Under CI=true, a missing piece is installed
# (python3-venv through apt-get when root) and a failure to install fails the script.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${CARGO_TARGET_DIR:-$root/target}/evalys-venv"
ci="${CI:-}"
give_up() {
    echo "setup-evalys: $*"
    if [ "$ci" = "true" ]; then exit 1; fi
    exit 0
}
apt_python() {
    if [ "$ci" = "true" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && apt-get install -y -qq python3 python3-venv >/dev/null
    fi
}
command -v python3 >/dev/null || apt_python
command -v python3 >/dev/null || give_up "python3 is not installed; the evalys test will say so"
if [ ! -x "$venv/bin/python3" ]; then
    python3 -m venv "$venv" 2>/dev/null || { rm -rf "$venv"; apt_python; python3 -m venv "$venv"; } ||
        give_up "cannot create $venv (python3-venv missing?)"
fi
if ! "$venv/bin/python3" -c 'import evalys, matplotlib' >/dev/null 2>&1; then
    "$venv/bin/python3" -m pip install -q 'evalys>=4,<5' || give_up "pip install evalys failed"
fi
"$venv/bin/python3" -c 'from evalys.jobset import JobSet; from evalys.visu.gantt import plot_gantt' ||
    give_up "the installed evalys cannot be imported (see above)"
exit 0
