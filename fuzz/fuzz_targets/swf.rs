#![no_main]
//! Fuzz target `swf`: see [`kairos_fuzz::swf`] for what it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_fuzz::swf(data));
