#![no_main]
//! Fuzz target `seed003_profile_cache`: see [`kairos_fuzz::seed003_profile_cache`] for what it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_fuzz::seed003_profile_cache(data));
