#!/usr/bin/env bash
# Installs what the firmware (firmware/) needs to build and run under QEMU:
#   - the Rust target thumbv7em-none-eabihf (Cortex-M4F, hard float);
#   - qemu-system-arm (QEMU 7.2 on Debian 12, which has the mps2-an386 board).
# Idempotent: each step checks first and does nothing when already satisfied.
# Runs unattended (CI=true, no stdin); apt-get needs root (or sudo without a password).
# The defmt log is decoded by firmware/runner (built from crates.io by cargo), so no
# extra host tool such as defmt-print is installed here.
set -euo pipefail

TARGET=thumbv7em-none-eabihf

log() { printf 'setup-firmware: %s\n' "$*"; }

# --- Rust target ---------------------------------------------------------------------------
if ! command -v rustup >/dev/null 2>&1; then
    log "error: rustup not found; install Rust via rustup first" >&2
    exit 1
fi
if rustup target list --installed | grep -qx "$TARGET"; then
    log "rust target $TARGET already installed"
else
    log "installing rust target $TARGET (rustup target add $TARGET)"
    rustup target add "$TARGET"
fi

# --- QEMU ----------------------------------------------------------------------------------
if command -v qemu-system-arm >/dev/null 2>&1; then
    log "qemu-system-arm already installed: $(qemu-system-arm --version | head -n1)"
else
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            SUDO="sudo -n"
        else
            log "error: qemu-system-arm is missing and this is not root (and no sudo)" >&2
            exit 1
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    # Refresh the package lists only if apt does not know the package yet.
    if ! apt-cache show qemu-system-arm >/dev/null 2>&1 \
        || [ -z "$(apt-cache policy qemu-system-arm | awk '/Candidate:/ {print $2}' | grep -v '(none)')" ]; then
        log "running apt-get update (qemu-system-arm not in the package lists)"
        $SUDO apt-get update -q </dev/null
    fi
    log "installing qemu-system-arm (apt-get install -y --no-install-recommends qemu-system-arm)"
    if ! $SUDO apt-get install -y -q --no-install-recommends qemu-system-arm </dev/null; then
        # A stale package list can point at versions no longer served: refresh and retry once.
        log "apt-get install failed; running apt-get update and retrying once"
        $SUDO apt-get update -q </dev/null
        $SUDO apt-get install -y -q --no-install-recommends qemu-system-arm </dev/null
    fi
    log "installed: $(qemu-system-arm --version | head -n1)"
fi

# Capture first: `grep -q` closing the pipe early would fail the pipeline under pipefail.
machines="$(qemu-system-arm -machine help)"
if ! grep -q '^mps2-an386' <<<"$machines"; then
    log "error: this qemu-system-arm has no mps2-an386 board (need QEMU >= 6.0)" >&2
    exit 1
fi
log "qemu board mps2-an386 available"
log "done"
