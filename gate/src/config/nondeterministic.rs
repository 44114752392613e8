//! `[[nondeterministic]]`: benchmarks whose counts differ between two cold builds of one commit at
//! one path (a build script drawing random data, data generated into `OUT_DIR`, hash seeds), as
//! calibration's reproducibility check found them. No budget holds such a count: a benchmark named
//! here whose count moved is undecided (exit 2) until the build is reproducible and the entry is
//! removed, or until the entry says `info = true` (shown, never gated).
//!
//! ```toml
//! # irgate init: the counts of these benchmarks differed between two cold builds of one commit
//! # at one path: the build is not reproducible (a build script, data in OUT_DIR, hash seeds).
//! [[nondeterministic]]
//! benchmarks = ["data::lookup/*"]
//! info = true
//! ```

use serde::Deserialize;
use toml::Spanned;

use super::{Pattern, Source};
use crate::error::Result;

/// One `[[nondeterministic]]` entry.
#[derive(Debug, Clone)]
pub struct Nondeterministic {
    pub(super) patterns: Vec<Pattern>,
    /// Shown for information, never gated (else a moved count is undecided).
    pub info: bool,
}

impl Nondeterministic {
    /// Whether this entry names benchmark `id`.
    pub fn matches(&self, id: &str) -> bool {
        self.patterns.iter().any(|p| p.matches(id))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawNondeterministic {
    benchmarks: Vec<Spanned<String>>,
    #[serde(default)]
    info: bool,
}

/// One `[[nondeterministic]]` entry, checked.
pub(super) fn parse(src: &Source, raw: RawNondeterministic) -> Result<Nondeterministic> {
    if raw.benchmarks.is_empty() {
        return Err(src.whole(
            "a [[nondeterministic]] entry with `benchmarks = []` names nothing: name at least one \
             glob",
        ));
    }
    Ok(Nondeterministic {
        patterns: Pattern::parse(src, raw.benchmarks)?,
        info: raw.info,
    })
}
