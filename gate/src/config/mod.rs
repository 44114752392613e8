//! `gate.toml`: which metrics are gated, with what budget, per benchmark.
//!
//! ```toml
//! # Metrics shown for information only; they never fail the gate.
//! info = ["EstimatedCycles", "dhat.TotalBytes", "dhat.TotalBlocks"]
//!
//! # The default budget of each gated metric. A metric is gated when it has a budget here or in a
//! # matching override. A change is over budget when it exceeds the larger of `relative_pct`
//! # percent of the baseline and `absolute` counts, so "+1% and at least +50 Ir".
//! [budgets]
//! Ir = { relative_pct = 1.0, absolute = 50 }
//!
//! # Per-benchmark budgets, by glob over benchmark ids (`*` also crosses `/` and `::`). Every
//! # matching override applies in file order, so a later one wins for the metrics it names.
//! [[overrides]]
//! benchmarks = ["filter::*", "pipeline::*"]
//! budgets.Ir = { relative_pct = 0.5, absolute = 20 }
//! budgets."dhat.TotalBytes" = { absolute = 0 }
//!
//! # A known regression let pass on purpose, reviewed like any change to this file: the named
//! # benchmarks' rows over budget pass as "accepted", with the reason shown in every report,
//! # until the date (UTC, inclusive) or until the commit is in the checked history; `irgate
//! # check` refuses an expired entry (exit 2) until it is removed.
//! [[accept]]
//! benchmarks = ["frame::decode_compressed/*"]
//! reason = "checksum verification on decode (#42): +68 Ir per packet, paid on purpose"
//! until = "2026-12-31"         # or until_commit = "<sha>"
//!
//! # Benchmarks whose counts differ between two cold builds of one commit (calibration's
//! # reproducibility check writes these): a moved count is undecided, exit 2, unless `info = true`
//! # (shown, never gated). Remove the entry once the build is reproducible.
//! [[nondeterministic]]
//! benchmarks = ["data::lookup/*"]
//! info = true
//!
//! # The callgrind suites to run (`irgate init` writes these). Without any, `irgate run` runs
//! # every callgrind suite of the workspace it finds.
//! [[suite]]
//! package = "benches"          # the cargo package
//! bench = "callgrind"          # its bench target (`cargo bench --bench callgrind`)
//! features = ["callgrind"]     # cargo features to build it with (optional)
//! args = ["--callgrind-args=--collect-systime=no"]  # more runner arguments (optional)
//!
//! # How the suites are built (optional). By default irgate builds them with its measurement build:
//! # line tables, one codegen unit, nothing stripped (see `suite_run::Build`), so per-function
//! # profiles name functions and unrelated code does not move counts. `measurement = false`
//! # builds them as the workspace's bench profile says.
//! [build]
//! measurement = false
//!
//! # A cumulative budget (optional): `irgate check --history DIR` fails a benchmark that grew by
//! # more than this since the anchor, a tag or commit recorded in the history, even when every
//! # single change stayed within its own budget.
//! [drift]
//! since = "v0.3.0"
//! budgets.Ir = { relative_pct = 4.0 }
//! ```
//!
//! Unknown keys, unknown metric names, bad globs and negative budgets are errors with the file,
//! line and column.

pub mod accept;
pub mod budgets;
pub mod drift;
pub mod initial;
pub mod metrics;
pub mod nondeterministic;
pub mod suite;
pub mod write;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use globset::{Glob, GlobMatcher};
use serde::Deserialize;
use toml::Spanned;

use crate::error::{Error, Result};
use crate::model::{Budget, Metric};
use accept::{Accept, RawAccept};
use budgets::{DEFAULT_BUDGET, DEFAULT_LAYOUT_BUDGET, Override, RawBudget, RawOverride};
use drift::{Drift, RawDrift};
use metrics::IR;
use nondeterministic::{Nondeterministic, RawNondeterministic};
use suite::{RawSuite, Suite};

/// A parsed, validated `gate.toml`.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where it was read from (for messages); `None` for the built-in default.
    pub path: Option<PathBuf>,
    /// Metrics reported for information.
    pub info: Vec<Metric>,
    /// The declared suites, in file order (empty: run the suites found in the workspace).
    pub suites: Vec<Suite>,
    budgets: BTreeMap<Metric, Budget>,
    overrides: Vec<Override>,
    /// `[layout]`: how far a benchmark that runs none of the changed code may move, by metric.
    layout: BTreeMap<Metric, Budget>,
    /// `[change] inert`: globs over paths (from the workspace root) of files that cannot change
    /// what a benchmark runs.
    inert: Vec<Pattern>,
    /// The cumulative budget since an anchor, when `[drift]` is given.
    pub drift: Option<Drift>,
    /// The `[[accept]]` entries, in file order.
    pub accepts: Vec<Accept>,
    /// The `[[nondeterministic]]` entries: benchmarks whose builds are not reproducible.
    pub nondeterministic: Vec<Nondeterministic>,
    /// Whether the suites are built with irgate's measurement build (`[build] measurement`,
    /// default true) rather than as the workspace's bench profile says.
    pub measurement_build: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    info: Vec<Spanned<String>>,
    budgets: Option<BTreeMap<Spanned<String>, RawBudget>>,
    layout: Option<BTreeMap<Spanned<String>, RawBudget>>,
    #[serde(default)]
    overrides: Vec<RawOverride>,
    #[serde(default, rename = "suite")]
    suites: Vec<Spanned<RawSuite>>,
    drift: Option<RawDrift>,
    #[serde(default, rename = "accept")]
    accepts: Vec<Spanned<RawAccept>>,
    #[serde(default)]
    nondeterministic: Vec<RawNondeterministic>,
    build: Option<RawBuild>,
    change: Option<RawChange>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChange {
    inert: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBuild {
    measurement: bool,
}

impl Default for Config {
    /// Gate Ir with [`DEFAULT_BUDGET`], report nothing else.
    fn default() -> Self {
        Config {
            path: None,
            info: Vec::new(),
            suites: Vec::new(),
            budgets: BTreeMap::from([(IR.to_owned(), DEFAULT_BUDGET)]),
            overrides: Vec::new(),
            layout: BTreeMap::from([(IR.to_owned(), DEFAULT_LAYOUT_BUDGET)]),
            inert: Vec::new(),
            drift: None,
            accepts: Vec::new(),
            nondeterministic: Vec::new(),
            measurement_build: true,
        }
    }
}

/// The most bytes of a `gate.toml` irgate reads.
pub const MAX_BYTES: u64 = 16 << 20;

impl Config {
    /// Reads and validates the configuration at `path`.
    pub fn load(path: &Path) -> Result<Config> {
        let text = crate::formats::read_text_bounded(path, MAX_BYTES)?;
        Self::parse(&text, path)
    }

    /// Reads `path`; when it does not exist and was not named explicitly, the built-in default
    /// (gate Ir with [`DEFAULT_BUDGET`]), said on stderr.
    pub fn load_or_default(path: &Path, explicit: bool) -> Result<Config> {
        if explicit || path.exists() {
            return Self::load(path);
        }
        crate::note!(
            "no {}: gating Ir with the default budget, {}; `irgate init` writes one",
            path.display(),
            DEFAULT_BUDGET
        );
        Ok(Config::default())
    }

    /// Parses and validates `text`, read from `path`.
    pub fn parse(text: &str, path: &Path) -> Result<Config> {
        if text
            .lines()
            .all(|line| line.trim().is_empty() || line.trim_start().starts_with('#'))
        {
            return Err(Error::invalid(
                path.display(),
                "the file is empty: it declares no suite and no budget; write one with \
                 `irgate init`, or remove it to gate Ir with the built-in default budget",
            ));
        }
        let raw: RawConfig = toml::from_str(text).map_err(|error| match error.span() {
            Some(span) => Source { text, path }.at(span, error.message().to_owned()),
            None => Error::invalid(path.display(), error.message().to_owned()),
        })?;

        let src = Source { text, path };
        let info = raw
            .info
            .iter()
            .map(|name| metrics::parse(&src, name))
            .collect::<Result<Vec<_>>>()?;
        let default_budgets = match raw.budgets {
            Some(raw) => budgets::parse(&src, raw)?,
            None => Config::default().budgets,
        };
        let layout = match raw.layout {
            Some(raw) => budgets::parse(&src, raw)?,
            None => Config::default().layout,
        };
        let inert = match raw.change {
            Some(change) => Pattern::parse(&src, change.inert)?,
            None => Vec::new(),
        };
        let overrides = raw
            .overrides
            .into_iter()
            .map(|raw| budgets::parse_override(&src, raw))
            .collect::<Result<Vec<_>>>()?;
        let accepts = raw
            .accepts
            .into_iter()
            .map(|raw| accept::parse(&src, raw))
            .collect::<Result<Vec<_>>>()?;
        let nondeterministic = raw
            .nondeterministic
            .into_iter()
            .map(|raw| nondeterministic::parse(&src, raw))
            .collect::<Result<Vec<_>>>()?;
        let suites = suite::parse(&src, raw.suites)?;
        let drift = raw.drift.map(|raw| drift::parse(&src, raw)).transpose()?;
        let config = Config {
            path: Some(path.to_owned()),
            info,
            suites,
            budgets: default_budgets,
            overrides,
            layout,
            inert,
            drift,
            accepts,
            nondeterministic,
            measurement_build: raw.build.is_none_or(|b| b.measurement),
        };
        // An info metric may be gated for some benchmarks by an override, not for all.
        if let Some(both) = config.info.iter().find(|m| config.budgets.contains_key(*m)) {
            return Err(Error::invalid(
                path.display(),
                format!(
                    "`{both}` is both in `info` (not gated) and in [budgets] (gated for every \
                     benchmark): keep one, or gate it for some benchmarks in [[overrides]]"
                ),
            ));
        }
        if config.gated_metrics().is_empty() {
            return Err(Error::invalid(
                path.display(),
                "no metric is gated: give at least one budget, e.g. \
                 `[budgets]` `Ir = { relative_pct = 1.0, absolute = 50 }`",
            ));
        }
        Ok(config)
    }

    /// The budgets of benchmark `id`, by gated metric.
    pub fn budgets_for(&self, id: &str) -> BTreeMap<Metric, Budget> {
        let mut budgets = self.budgets.clone();
        for over in &self.overrides {
            if over.patterns.iter().any(|p| p.matches(id)) {
                budgets.extend(over.budgets.iter().map(|(m, l)| (m.clone(), *l)));
            }
        }
        budgets
    }

    /// How far `metric` of a benchmark that runs none of the changed code may move: the larger
    /// allowance of `[layout]` and of the benchmark's own budget `limit` (a layout budget never
    /// makes an untouched benchmark stricter than a touched one).
    pub fn layout_allowance(&self, metric: &str, limit: &Budget, baseline: u64) -> f64 {
        let own = budgets::allowance(limit, baseline);
        self.layout
            .get(metric)
            .map_or(own, |layout| own.max(budgets::allowance(layout, baseline)))
    }

    /// The `[change] inert` globs that name files of any name and place (`**`, `*`...), with
    /// their lines: they say no benchmark reads any file at run time, which a data file a
    /// benchmark reads would make untrue.
    pub fn inert_everything(&self) -> Vec<String> {
        const ANY: [&str; 4] = ["a", "b/c/d.bin", "Cargo.lock", "benches/data/input.json"];
        self.inert
            .iter()
            .filter(|p| ANY.iter().all(|path| p.matches(path)))
            .map(|p| format!("`{}` (gate.toml:{})", p.text, p.line))
            .collect()
    }

    /// Whether gate.toml's `[change] inert` says the file at `path` (from the workspace root)
    /// cannot change what a benchmark runs.
    pub fn is_inert(&self, path: &str) -> bool {
        self.inert.iter().any(|p| p.matches(path))
    }

    /// Every metric gated for some benchmark.
    pub fn gated_metrics(&self) -> BTreeSet<Metric> {
        self.budgets
            .keys()
            .chain(self.overrides.iter().flat_map(|o| o.budgets.keys()))
            .cloned()
            .collect()
    }

    /// The metrics a baseline keeps: Ir, every gated metric and every info metric.
    pub fn stored_metrics(&self) -> BTreeSet<Metric> {
        let mut metrics = self.gated_metrics();
        metrics.extend(self.info.iter().cloned());
        metrics.insert(IR.to_owned());
        metrics
    }

    /// Whether some gated or reported metric comes from DHAT, so the suite must run it.
    pub fn needs_dhat(&self) -> bool {
        self.stored_metrics().iter().any(|m| m.starts_with("dhat."))
    }

    /// The first `[[nondeterministic]]` entry naming benchmark `id`: its build is not
    /// reproducible.
    pub fn nondeterministic_for(&self, id: &str) -> Option<&Nondeterministic> {
        self.nondeterministic.iter().find(|n| n.matches(id))
    }

    /// The first `[[accept]]` entry naming benchmark `id`.
    pub fn acceptance_for(&self, id: &str) -> Option<&Accept> {
        self.accepts.iter().find(|a| a.matches(id))
    }

    /// Override and accept patterns that match none of `ids`, as `file:line: pattern` (typos,
    /// usually).
    pub fn unmatched_patterns<'a>(
        &self,
        ids: impl Iterator<Item = &'a str> + Clone,
    ) -> Vec<String> {
        let path = self
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        self.overrides
            .iter()
            .flat_map(|o| &o.patterns)
            .chain(self.accepts.iter().flat_map(|a| &a.patterns))
            .filter(|p| !ids.clone().any(|id| p.matches(id)))
            .map(|p| format!("{path}:{}: `{}`", p.line, p.text))
            .collect()
    }
}

/// The text of a gate.toml being parsed, for errors that name its file, line and column.
struct Source<'a> {
    text: &'a str,
    path: &'a Path,
}

impl Source<'_> {
    /// An error at `span`: `file:line:column: message`.
    fn at(&self, span: std::ops::Range<usize>, message: String) -> Error {
        let (line, column) = line_column(self.text, span.start);
        Error::invalid(format!("{}:{line}:{column}", self.path.display()), message)
    }

    /// An error about the whole file.
    fn whole(&self, message: &str) -> Error {
        Error::invalid(self.path.display(), message.to_owned())
    }

    /// The 1-based line of byte `offset`.
    fn line(&self, offset: usize) -> usize {
        line_column(self.text, offset).0
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Pattern {
    text: String,
    line: usize,
    matcher: GlobMatcher,
}

impl Pattern {
    /// The globs of `globs`, compiled; an error at the first that is not a glob.
    fn parse(src: &Source, globs: Vec<Spanned<String>>) -> Result<Vec<Pattern>> {
        globs
            .into_iter()
            .map(|pattern| {
                let matcher = Glob::new(pattern.get_ref())
                    .map_err(|e| src.at(pattern.span(), format!("invalid glob: {}", e.kind())))?
                    .compile_matcher();
                Ok(Pattern {
                    text: pattern.get_ref().clone(),
                    line: src.line(pattern.span().start),
                    matcher,
                })
            })
            .collect()
    }

    /// Whether the glob matches benchmark `id`.
    fn matches(&self, id: &str) -> bool {
        self.matcher.is_match(id)
    }
}

/// 1-based line and column of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}
