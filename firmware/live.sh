#!/usr/bin/env bash
# Builds the live-controller image (`--features live`: the wire protocol on UART0, see
# src/live.rs) into its own target directory, firmware/target/live, so that it never races the
# replay images of test.sh; prints the ELF's path. `kairos run --controller qemu` runs it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
cargo build --release --quiet --features live --target-dir target/live
echo "$here/target/live/thumbv7em-none-eabihf/release/kairos-firmware"
