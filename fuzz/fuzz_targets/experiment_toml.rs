#![no_main]
//! Fuzz target `experiment_toml`: see [`kairos_fuzz::experiment_toml`] for what it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_fuzz::experiment_toml(data));
