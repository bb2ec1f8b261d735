#!/usr/bin/env bash
# Builds the live-controller image (`--features live`: the wire protocol on UART0, see
# src/live.rs) into its own target directory, firmware/target/live, so that it never races the
# replay images of test.sh ($CARGO_TARGET_DIR/live when CARGO_TARGET_DIR is set); prints the
# ELF's path. `kairos run --controller qemu` runs it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
target="${CARGO_TARGET_DIR:-$here/target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
dir="$target/live"
cd "$here"
# Progress on stderr (cargo's Compiling lines; a first build takes minutes), the path alone on
# stdout for the callers that read it.
echo "firmware/live.sh: building the live image into $dir (a first build takes several minutes)" >&2
cargo build --release --features live --target-dir "$dir"
echo "$dir/thumbv7em-none-eabihf/release/kairos-firmware"
