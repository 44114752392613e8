//! The hot path of an intercepting Minecraft proxy: what irgate's benchmarks measure and its gate
//! guards.
//!
//! - [`varint`]: VarInt and VarLong encoding and decoding, including from a partial buffer.
//! - [`frame`]: length-prefixed frames, with zlib compression above a threshold
//!   ([`compression`]: libdeflate by default, flate2 as a pure-Rust alternative).
//! - [`cipher`]: AES-128-CFB8, the stream cipher of an encrypted connection.
//! - [`filter`]: the filter chain that sees every packet.
//! - [`pipeline`]: all of it for one direction of a connection, with a fast path that forwards
//!   unchanged frames as they arrived.
//!
//! Bad input never panics: every malformed frame is a typed [`error::DecodeError`]. Measured code
//! reads no clock, hashes nothing with a random seed and depends on no address, so instruction
//! counts repeat exactly from run to run.
//!
//! # Features
//!
//! - `libdeflate` (default): the libdeflate zlib backend.
//! - `flate2`: the flate2 (miniz_oxide) zlib backend. Both may be enabled; a
//!   [`compression::Backend`] then picks one at run time.
//! - `inject-slowdown` (off by default, never for production): adds a fixed, deterministic
//!   amount of work to every [`filter::Chain::apply`] call and nowhere else: a `black_box` loop
//!   of 12 rounds, about 60 instructions (+63 Ir on `filter::passthrough/n0`, +57 Ir or +3.1% on
//!   `pipeline::uncompressed_realistic/b2048`). It gives irgate's end-to-end test and its noise
//!   study a known regression on exactly the benchmarks that run the filter chain (the `filter`
//!   and `pipeline` groups): `cargo bench -p benches --features codec/inject-slowdown`.
//! - `layout-perturbation` (off by default, changes no behaviour): adds code no benchmark runs
//!   (more callers of the frame encoder and the pipeline's inner loop), a build that differs only
//!   in layout and inlining, for calibrating budgets (`irgate run --features
//!   codec/layout-perturbation --results FILE`, then `irgate calibrate` over results files).

pub mod cipher;
pub mod compression;
pub mod error;
pub mod filter;
pub mod frame;
pub mod pipeline;
pub mod varint;
