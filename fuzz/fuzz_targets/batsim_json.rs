#![no_main]
//! Fuzz target `batsim_json`: see [`kairos_fuzz::batsim_json`] for what it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_fuzz::batsim_json(data));
