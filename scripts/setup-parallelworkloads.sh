#!/usr/bin/env bash
# Installs the PyPI package `parallelworkloads` (a Python port of the Lublin-Feitelson model's
# reference code) into a venv at target/pyenv, for host/tests/lublin99_reference.rs.
# Idempotent, and never fails the build: without python3, the venv or the package, the test
# prints why it could not compare and passes.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/target/pyenv"
if ! command -v python3 >/dev/null; then
    echo "setup-parallelworkloads: python3 is not installed; the Lublin reference test will say so"
    exit 0
fi
if [ ! -x "$venv/bin/python3" ]; then
    python3 -m venv "$venv" || {
        echo "setup-parallelworkloads: cannot create $venv (python3-venv missing?)"
        exit 0
    }
fi
if ! "$venv/bin/python3" -m pip show -q parallelworkloads >/dev/null 2>&1; then
    "$venv/bin/python3" -m pip install -q parallelworkloads ||
        echo "setup-parallelworkloads: pip install parallelworkloads failed"
fi
"$venv/bin/python3" "$root/scripts/lublin99_reference.py" --check ||
    echo "setup-parallelworkloads: the installed parallelworkloads cannot generate (see above)"
exit 0
