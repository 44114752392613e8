//! Fuzz target: arbitrary bytes through irgate's report reader. See `../check.rs` for what is
//! checked.
#![no_main]

#[path = "../check.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = check::report(data);
});
