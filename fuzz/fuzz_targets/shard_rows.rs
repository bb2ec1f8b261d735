#![no_main]
//! Fuzz target `shard_rows`: see [`kairos_fuzz::shard_rows`] for what it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| kairos_fuzz::shard_rows(data));
