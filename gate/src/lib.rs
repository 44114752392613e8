//! irgate: a CI regression gate on callgrind instruction counts.
//!
//! `run` turns gungraun summaries into [`model::Results`], `check` compares them with the committed
//! [`baseline`]s under the budgets of [`config`] into a [`model::Report`], rendered by [`report`];
//! `refresh` writes results as new baselines.

pub mod baseline;
pub mod check;
pub mod cli;
pub mod comment;
pub mod compare;
pub mod config;
pub mod cpu;
pub mod doctor;
pub mod error;
pub mod explain;
pub mod files;
pub mod filter;
pub mod fingerprint;
pub mod model;
pub mod noise;
pub mod profiles;
pub mod refresh;
pub mod report;
pub mod results;
pub mod run;
pub mod summary;
