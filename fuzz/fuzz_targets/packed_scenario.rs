#![no_main]
//! Fuzz target `packed_scenario`: see [`kairos_fuzz::packed_scenario`] for what it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_fuzz::packed_scenario(data));
