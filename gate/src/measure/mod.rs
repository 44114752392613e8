//! Measuring: finding the workspace's suites and their libraries, building and running them under
//! callgrind, the environment's fingerprint, and A/B builds of two revisions.

pub mod ab;
mod build;
mod cargo;
pub mod collect;
pub mod cpu;
pub mod doctor;
pub mod fingerprint;
pub mod library;
pub mod link;
pub mod outside;
mod patterns;
pub mod record;
pub mod refresh;
pub mod shard;
pub mod suite;
pub mod suite_run;
pub mod take;
pub mod workspace;
