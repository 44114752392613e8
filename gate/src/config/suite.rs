//! `[[suite]]`: a callgrind suite as gate.toml declares it (or as the workspace holds it): one
//! bench target, run by `cargo bench` under gungraun or iai-callgrind.

use serde::Deserialize;
use toml::Spanned;

use super::Source;
use crate::error::Result;

/// A suite as `gate.toml` declares it (or as the workspace holds it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suite {
    /// The cargo package.
    pub package: String,
    /// The bench target (`cargo bench --bench NAME`).
    pub bench: String,
    /// Cargo features to build it with.
    pub features: Vec<String>,
    /// More runner arguments, after irgate's own.
    pub args: Vec<String>,
}

impl Suite {
    /// The suite's name in messages and results: `package/bench`.
    pub fn name(&self) -> String {
        format!("{}/{}", self.package, self.bench)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSuite {
    package: String,
    bench: String,
    #[serde(default)]
    features: Vec<String>,
    #[serde(default)]
    args: Vec<String>,
}

/// The `[[suite]]` entries, in file order; an error at one declared twice.
pub(super) fn parse(src: &Source, raw: Vec<Spanned<RawSuite>>) -> Result<Vec<Suite>> {
    let mut suites: Vec<Suite> = Vec::new();
    for raw in raw {
        let span = raw.span();
        let raw = raw.into_inner();
        let suite = Suite {
            package: raw.package,
            bench: raw.bench,
            features: raw.features,
            args: raw.args,
        };
        if suites.iter().any(|s| s.name() == suite.name()) {
            return Err(src.at(span, format!("suite `{}` is declared twice", suite.name())));
        }
        suites.push(suite);
    }
    Ok(suites)
}
