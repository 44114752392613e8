//! Fuzz target: arbitrary bytes through irgate's callgrind reader. See `../check.rs` for what is
//! checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = irgate_fuzz::callgrind(data);
});
