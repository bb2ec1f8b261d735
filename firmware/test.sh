#!/usr/bin/env bash
# Firmware tests: builds the image in release (normal and fail/panic/hard-fault variants), runs
# each under QEMU and checks the decoded defmt log and the exit status.
#   1. runner/tests/qemu.rs (cargo test, built for the host): the library-level checks;
#   2. the `cargo run --release` path itself (run.sh as cargo's runner): success with a digest,
#      and the truncated scenario exiting non-zero with an ERROR line.
# The host-vs-firmware digest comparison is host/tests/firmware_qemu.rs (`cargo test --workspace`).
# Needs scripts/setup-firmware.sh to have run. Extra arguments go to `cargo test`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
host="$(rustc -vV | sed -n 's/^host: //p')"

if ! command -v qemu-system-arm >/dev/null 2>&1; then
    echo "test.sh: qemu-system-arm not found; run scripts/setup-firmware.sh first" >&2
    exit 1
fi

cargo test --manifest-path runner/Cargo.toml --target "$host" "$@"

echo "test.sh: checking 'cargo run --release --features scenario-truncated'"
set +e
out="$(cargo run --release -q --features scenario-truncated 2>&1)"
code=$?
set -e
printf '%s\n' "$out" | { grep -v '^INFO event ' || true; } | sed 's/^/  | /'
if [ "$code" -eq 0 ]; then
    echo "test.sh: FAIL: scenario-truncated exited 0" >&2; exit 1
fi
grep -q '^ERROR run failed: ' <<<"$out" || { echo "test.sh: FAIL: no ERROR line" >&2; exit 1; }

# Last, so that the default image is what is left in target/.
echo "test.sh: checking 'cargo run --release'"
set +e
out="$(cargo run --release -q 2>&1)"
code=$?
set -e
printf '%s\n' "$out" | { grep -v '^INFO event ' || true; } | sed 's/^/  | /'
if [ "$code" -ne 0 ]; then
    echo "test.sh: FAIL: cargo run --release exited $code" >&2; exit 1
fi
grep -Eq '^INFO digest [0-9a-f]{16}$' <<<"$out" || { echo "test.sh: FAIL: no digest line" >&2; exit 1; }

echo "test.sh: the cargo run paths passed (the cargo test summary is above)"
echo "test.sh: 2 passed, 0 failed"
