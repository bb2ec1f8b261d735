#![no_main]
//! Fuzz target `seed003_toml`: see [`kairos_fuzz::seed003_toml`] for what it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_fuzz::seed003_toml(data));
