#![no_main]
//! Fuzz target `pareto_toml`: see [`kairos_fuzz::pareto_toml`] for what it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_fuzz::pareto_toml(data));
