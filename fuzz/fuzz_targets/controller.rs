#![no_main]
//! Fuzz target `controller`: see [`kairos_fuzz::controller`] for what it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_fuzz::controller(data));
