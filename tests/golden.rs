//! Golden digests: trial 0 of each reference scenario under each heuristic's default
//! configuration (place-holders and no filter for the utility-aware ones), with the
//! scenarios' calibrated budgets. A change here is a change in some decision: if it is
//! intended, update the table (`kairos run scenarios/<s>.toml --heuristic <h> --json`) and say
//! why in the commit.
//!
//! The scheduling crates are optimized in tests too (the workspace's `Cargo.toml`), so every
//! day, 10k included, runs with every `cargo test` (docs/performance.md has their cost).

use kairos_core::Heuristic;
use kairos_host::run::{run_trial, RunOptions};
use kairos_host::scenario::Scenario;

const ESSC_5K: [(&str, u64); 8] = [
    ("random", 0xd69ddc6d54a4855f),
    ("conservative", 0xaee40efaa75b5322),
    ("easy", 0x78761fca100da7e7),
    ("multi-queue", 0xfcc68f453ffa7a84),
    ("max-util", 0x404e555af67ff4b9),
    ("max-upt", 0xf52070d2645be4a8),
    ("max-upr", 0x43021b20ff66be87),
    ("max-upe", 0x52180e22dc270a96),
];

const ESSC_10K: [(&str, u64); 8] = [
    ("random", 0x05324a3a3c196a44),
    ("conservative", 0xdfd8dc0525ca9196),
    ("easy", 0x43ca7232849c1c3c),
    ("multi-queue", 0x49b18dae85941218),
    ("max-util", 0xe02d52e119b4a394),
    ("max-upt", 0x7ee6f2b045c2af41),
    ("max-upr", 0x66a34c43364bdf32),
    ("max-upe", 0xee92bb552944ab2a),
];

fn digest(scenario: &str, heuristic: &str) -> String {
    let path = format!("{}/scenarios/{scenario}.toml", env!("CARGO_MANIFEST_DIR"));
    let s = Scenario::load(path).unwrap();
    let h: Heuristic = heuristic.parse().unwrap();
    run_trial(&s, &RunOptions::new(h)).unwrap().digest
}

fn check(scenario: &str, table: &[(&str, u64)], heuristic: &str) {
    let want = table.iter().find(|r| r.0 == heuristic).unwrap().1;
    assert_eq!(
        digest(scenario, heuristic),
        format!("{want:016x}"),
        "{scenario} {heuristic}"
    );
}

#[test]
fn essc_5k_every_heuristic() {
    for (h, _) in ESSC_5K {
        check("essc-5k", &ESSC_5K, h);
    }
}

#[test]
fn essc_10k_easy_and_conservative() {
    check("essc-10k", &ESSC_10K, "easy");
    check("essc-10k", &ESSC_10K, "conservative");
}

#[test]
fn essc_10k_the_slower_heuristics() {
    for h in [
        "random",
        "multi-queue",
        "max-util",
        "max-upt",
        "max-upr",
        "max-upe",
    ] {
        check("essc-10k", &ESSC_10K, h);
    }
}
