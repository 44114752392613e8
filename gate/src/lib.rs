//! irgate: a CI regression gate on callgrind instruction counts.
//!
//! [`cli`] turns the command line into each command's options. The commands ([`init`], [`run`],
//! [`check`], [`refresh`], [`doctor`], and `comment` with the `github` feature) work on the
//! domain below them: [`workspace`] and [`suite`] find what to run, [`runner`] runs one suite
//! under its [`library`] into counts, [`results`] and [`baseline`] are the files, [`compare`]
//! turns results and baselines under the budgets of [`config`] into a [`model::Report`], and
//! [`report`] renders it.

pub mod ab;
pub mod accept;
pub mod baseline;
pub mod calibrate;
pub mod check;
pub mod cli;
#[cfg(feature = "github")]
pub mod comment;
pub mod compare;
pub mod config;
pub mod cpu;
pub mod doctor;
pub mod drift;
pub mod error;
pub mod explain;
pub mod files;
pub mod filter;
pub mod fingerprint;
pub mod history;
pub mod id;
pub mod init;
pub mod library;
pub mod load;
pub mod model;
pub mod paths;
pub mod profiles;
pub mod refresh;
pub mod report;
pub mod results;
pub mod run;
pub mod runner;
pub mod runner_cache;
pub mod suite;
pub mod summary;
pub mod text;
pub mod workspace;
