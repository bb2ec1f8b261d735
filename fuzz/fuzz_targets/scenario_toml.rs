#![no_main]
//! Fuzz target `scenario_toml`: see [`kairos_fuzz::scenario_toml`] for what it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_fuzz::scenario_toml(data));
