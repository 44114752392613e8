//! Fuzz target: arbitrary bytes through irgate's config reader. See `../check.rs` for what is
//! checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = irgate_fuzz::config(data);
});
