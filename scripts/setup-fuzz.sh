#!/usr/bin/env bash
# Installs what the fuzz targets (fuzz/) need: the nightly toolchain (libFuzzer's
# instrumentation flags are nightly-only) and cargo-fuzz, built from crates.io.
# Idempotent: each step checks first and does nothing when already satisfied.
# Runs unattended (CI=true, no stdin). The corpus tests (scripts/test) need none of this:
# they run on stable without libFuzzer.
set -euo pipefail

log() { printf 'setup-fuzz: %s\n' "$*"; }

if ! command -v rustup >/dev/null 2>&1; then
    log "error: rustup not found; install Rust via rustup first" >&2
    exit 1
fi
if rustup toolchain list | grep -q '^nightly'; then
    log "nightly toolchain already installed"
else
    log "installing the nightly toolchain (rustup toolchain install nightly --profile minimal)"
    rustup toolchain install nightly --profile minimal
fi
if cargo fuzz --version >/dev/null 2>&1; then
    log "cargo-fuzz already installed: $(cargo fuzz --version)"
else
    log "installing cargo-fuzz (cargo install cargo-fuzz --locked)"
    cargo install cargo-fuzz --locked
fi
