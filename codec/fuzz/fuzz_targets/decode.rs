//! Fuzz target: arbitrary bytes through the frame decoder and the pipeline. See
//! `../decode_check.rs` for what is checked.
#![no_main]

#[path = "../decode_check.rs"]
mod decode_check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    decode_check::check(data);
});
