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
pub mod identify;
pub mod init;
pub mod library;
pub mod link;
mod patterns;
pub mod record;
pub mod refresh;
pub mod select;
pub mod setup;
pub mod shard;
pub mod suite;
pub mod suite_run;
pub mod take;
pub mod workspace;
