//! Layers D and E of irgate's suite: the intercepting proxy running for real, and what each of
//! its filters costs while it runs.
//!
//! - [`server`]: the proxy (tokio; codec's [`codec::pipeline::Pipeline`] in each direction
//!   between a client and a backend) and a mock backend that echoes packets.
//! - [`wire`]: the Play-state framing of one side (compression threshold, AES-CFB8).
//! - [`filters`]: the filters the proxy runs, by name.
//! - [`load`]: the open-loop load generator; [`stress`]: malformed input alongside it.
//! - [`report`]: one run as JSON, keyed by its [`report::Profile`]; [`compare`]: runs of one
//!   profile compared per latency statistic, with a Mann–Whitney U test for noise.
//! - [`net`]: every socket, with `TCP_NODELAY`; [`logging`]: the binaries' logs and shutdown.
//! - `timing` (feature `timing`, off by default and compiled out): per-filter, per-packet and
//!   per-batch nanoseconds on the tracing target `irproxy::timing`.

pub mod compare;
pub mod filters;
pub mod load;
pub mod logging;
pub mod net;
pub mod report;
pub mod server;
pub mod stress;
#[cfg(feature = "timing")]
pub mod timing;
pub mod wire;
