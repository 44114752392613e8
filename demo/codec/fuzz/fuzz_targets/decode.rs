//! Fuzz target: arbitrary bytes through the frame decoder and the pipeline. See
//! `../decode_check.rs` for what is checked.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    codec_fuzz::check(data);
});
