//! irgate: a CI regression gate on callgrind instruction counts.
//!
//! The layers, each using only those below it (a test keeps it so):
//!
//! - [`cli`]: the command line, a dispatch table onto [`commands`];
//! - [`commands`]: one module per command, each `execute(&Options)`;
//! - [`render`]: the report as a terminal table, markdown, and the history's dashboard;
//! - [`explain`]: where a benchmark's instructions went, from its per-function profiles;
//! - [`judge`]: results against baselines and budgets, accepted changes, drift;
//! - [`measure`]: the workspace's suites, their runners and builds, the fingerprint, A/B;
//! - [`formats`]: every file irgate reads or writes, each with a frozen, versioned schema;
//! - [`config`]: gate.toml;
//! - [`model`], [`filter`], [`id`], [`error`]: the shared vocabulary;
//! - [`text`]: numbers, signs, plurals, short commits and escaping, importing nothing of irgate.

pub mod cli;
pub mod commands;
pub mod config;
pub mod error;
pub mod explain;
pub mod filter;
pub mod formats;
pub mod id;
pub mod judge;
pub mod measure;
pub mod model;
pub mod render;
pub mod text;
