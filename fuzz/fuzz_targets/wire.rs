#![no_main]
//! Fuzz target `wire`: see [`kairos_fuzz::wire`] for what it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_fuzz::wire(data));
