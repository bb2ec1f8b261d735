//! The scenario embedded in this image, chosen at build time by cargo feature:
//!
//! | feature | scenario | expected outcome |
//! | --- | --- | --- |
//! | (none) | `ph`: Max UPR, place-holders, per-resource filter, 360 tasks | digest, exit 0 |
//! | `scenario-upe` | `upe`: Max UPE, permanent reservations, adaptive filter, 360 tasks | digest, exit 0 |
//! | `scenario-overcap` | `overcap`: as `ph` with 600 tasks, more than the task table | capacity error, exit 1 |
//! | `scenario-truncated` | `ph` cut after two thirds of its bytes | decode error, exit 1 |
//!
//! The files are written by `kairos firmware-scenario` (host/src/firmware_scenarios.rs); a host test
//! fails when they are stale. `include_bytes!` makes cargo rebuild the image when they change.

#[cfg(all(
    feature = "scenario-upe",
    any(feature = "scenario-overcap", feature = "scenario-truncated")
))]
compile_error!("choose at most one scenario-* feature");
#[cfg(all(feature = "scenario-overcap", feature = "scenario-truncated"))]
compile_error!("choose at most one scenario-* feature");

/// The scenario's name.
#[cfg(not(any(
    feature = "scenario-upe",
    feature = "scenario-overcap",
    feature = "scenario-truncated"
)))]
pub const NAME: &str = "ph";
/// The packed scenario (`kairos_core::packed`).
#[cfg(not(any(
    feature = "scenario-upe",
    feature = "scenario-overcap",
    feature = "scenario-truncated"
)))]
pub const BYTES: &[u8] = include_bytes!("../scenarios/ph.bin");

#[cfg(feature = "scenario-upe")]
pub const NAME: &str = "upe";
#[cfg(feature = "scenario-upe")]
pub const BYTES: &[u8] = include_bytes!("../scenarios/upe.bin");

#[cfg(feature = "scenario-overcap")]
pub const NAME: &str = "overcap";
#[cfg(feature = "scenario-overcap")]
pub const BYTES: &[u8] = include_bytes!("../scenarios/overcap.bin");

#[cfg(feature = "scenario-truncated")]
pub const NAME: &str = "truncated";
#[cfg(feature = "scenario-truncated")]
pub const BYTES: &[u8] = {
    const FULL: &[u8] = include_bytes!("../scenarios/ph.bin");
    FULL.split_at(FULL.len() * 2 / 3).0
};
