#![no_main]
//! Fuzz target `seed002_toml`: see [`kairos_fuzz::seed002_toml`] for what it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_fuzz::seed002_toml(data));
