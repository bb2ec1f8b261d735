#!/usr/bin/env bash
# Cargo runner for the firmware (.cargo/config.toml): `cargo run --release [-- FLAGS]` calls
#   run.sh [FLAGS] <elf>
# which builds the host-side runner (runner/, a separate workspace, built for the host triple
# because firmware/.cargo/config.toml sets the thumb target for everything under firmware/),
# then runs the ELF under QEMU, prints the decoded defmt log and exits with QEMU's status.
# Flags (after `--`): --icount, --timeout SECS, --locations, --size, --print-command;
# `cargo run --release -- --help` lists them.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
host="$(rustc -vV | sed -n 's/^host: //p')"
# `cargo run` (not a hard-coded path to the binary) so that CARGO_TARGET_DIR is honoured;
# it exits with the runner's status.
exec cargo run --quiet --manifest-path "$here/runner/Cargo.toml" --target "$host" -- "$@"
