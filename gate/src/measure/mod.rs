//! Measuring: finding the workspace's suites and their libraries, building and running them under
//! callgrind, the environment's fingerprint, and A/B builds of two revisions.

pub mod ab;
pub mod bisect;
mod build;
pub mod calibrate;
mod cargo;
pub mod changes;
pub mod collect;
pub mod cpu;
pub mod doctor;
pub mod fingerprint;
pub mod library;
pub mod link;
/// The gate's paths, at their home [`crate::paths`], under their former name for the commands
/// not yet moved (`init`, `calibrate`).
pub use crate::paths;
mod patterns;
pub mod record;
pub mod refresh;
pub mod runner;
pub mod select;
pub mod shard;
pub mod suite;
pub mod take;
pub mod workspace;
