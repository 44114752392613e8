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
//! # The callgrind suites to run (`irgate init` writes these). Without any, `irgate run` runs
//! # every callgrind suite of the workspace it finds.
//! [[suite]]
//! package = "benches"          # the cargo package
//! bench = "callgrind"          # its bench target (`cargo bench --bench callgrind`)
//! features = ["callgrind"]     # cargo features to build it with (optional)
//! args = ["--callgrind-args=--collect-systime=no"]  # more runner arguments (optional)
//!
//! # How the suites are built (optional). By default irgate builds them with its measurement build:
//! # line tables, one codegen unit, nothing stripped (see `runner::Build`), so per-function
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

pub mod suite;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use globset::{Glob, GlobMatcher};
use serde::Deserialize;
use toml::Spanned;

use crate::error::{Error, Result};
use crate::model::{Budget, Metric};
use suite::Suite;

/// The metric every configuration gates unless told otherwise, and that every baseline stores.
pub const IR: &str = "Ir";

/// The budget used when `gate.toml` gives none: "+1% and at least +1 Ir". A single instruction
/// (what code layout moves on an untouched benchmark) passes; +10% of a 20-Ir benchmark fails.
pub const DEFAULT_BUDGET: Budget = Budget {
    relative_pct: 1.0,
    absolute: 1,
};

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
    /// The cumulative budget since an anchor, when `[drift]` is given.
    pub drift: Option<Drift>,
    /// The `[[accept]]` entries, in file order.
    pub accepts: Vec<Accept>,
    /// Whether the suites are built with irgate's measurement build (`[build] measurement`,
    /// default true) rather than as the workspace's bench profile says.
    pub measurement_build: bool,
}

/// `[drift]`: how much a benchmark may grow in all since an anchor.
#[derive(Debug, Clone, PartialEq)]
pub struct Drift {
    /// The anchor: a tag or commit (its counts come from the history).
    pub since: String,
    /// The cumulative budget of each metric it gates.
    pub budgets: BTreeMap<Metric, Budget>,
}

/// An `[[accept]]` entry: benchmarks whose rows over budget pass on purpose, why, and until when.
#[derive(Debug, Clone)]
pub struct Accept {
    patterns: Vec<Pattern>,
    /// Why the regression is accepted (never empty).
    pub reason: String,
    /// When the acceptance ends.
    pub until: Until,
    /// Where the entry is, `gate.toml:LINE`.
    pub origin: String,
}

/// When an [`Accept`] ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Until {
    /// Through this day (UTC); expired from the next day on.
    Date(chrono::NaiveDate),
    /// Until this commit is in the checked history (an ancestor of, or, the commit measured).
    Commit(String),
}

impl std::fmt::Display for Until {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Until::Date(date) => write!(f, "until {date}"),
            Until::Commit(commit) => write!(f, "until commit {commit}"),
        }
    }
}

impl Accept {
    /// Whether this entry names benchmark `id`.
    pub fn matches(&self, id: &str) -> bool {
        self.patterns.iter().any(|p| p.matcher.is_match(id))
    }
}

#[derive(Debug, Clone)]
struct Override {
    patterns: Vec<Pattern>,
    budgets: BTreeMap<Metric, Budget>,
}

#[derive(Debug, Clone)]
struct Pattern {
    text: String,
    line: usize,
    matcher: GlobMatcher,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    info: Vec<Spanned<String>>,
    budgets: Option<BTreeMap<Spanned<String>, RawBudget>>,
    #[serde(default)]
    overrides: Vec<RawOverride>,
    #[serde(default, rename = "suite")]
    suites: Vec<Spanned<RawSuite>>,
    drift: Option<RawDrift>,
    #[serde(default, rename = "accept")]
    accepts: Vec<Spanned<RawAccept>>,
    build: Option<RawBuild>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBuild {
    measurement: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDrift {
    since: Spanned<String>,
    budgets: BTreeMap<Spanned<String>, RawBudget>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAccept {
    benchmarks: Vec<Spanned<String>>,
    reason: Spanned<String>,
    until: Option<Spanned<String>>,
    until_commit: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuite {
    package: String,
    bench: String,
    #[serde(default)]
    features: Vec<String>,
    #[serde(default)]
    args: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOverride {
    benchmarks: Vec<Spanned<String>>,
    budgets: BTreeMap<Spanned<String>, RawBudget>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBudget {
    relative_pct: Option<Spanned<f64>>,
    absolute: Option<u64>,
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
            drift: None,
            accepts: Vec::new(),
            measurement_build: true,
        }
    }
}

impl Config {
    /// Reads and validates the configuration at `path`.
    pub fn load(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::read(path, source))?;
        Self::parse(&text, path)
    }

    /// Reads `path`; when it does not exist and was not named explicitly, the built-in default
    /// (gate Ir with [`DEFAULT_BUDGET`]), said on stderr.
    pub fn load_or_default(path: &Path, explicit: bool) -> Result<Config> {
        if explicit || path.exists() {
            return Self::load(path);
        }
        eprintln!(
            "irgate: no {}: gating Ir with the default budget, {}; `irgate init` writes one",
            path.display(),
            DEFAULT_BUDGET
        );
        Ok(Config::default())
    }

    /// Parses and validates `text`, read from `path`.
    pub fn parse(text: &str, path: &Path) -> Result<Config> {
        let at = |span: std::ops::Range<usize>, message: String| {
            let (line, column) = line_column(text, span.start);
            Error::invalid(format!("{}:{line}:{column}", path.display()), message)
        };
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
            Some(span) => at(span, error.message().to_owned()),
            None => Error::invalid(path.display(), error.message().to_owned()),
        })?;

        let metric = |name: &Spanned<String>| -> Result<Metric> {
            if is_count_metric(name.get_ref()) {
                Ok(name.get_ref().clone())
            } else {
                Err(at(name.span(), unknown_metric(name.get_ref())))
            }
        };
        let budgets =
            |raw: BTreeMap<Spanned<String>, RawBudget>| -> Result<BTreeMap<Metric, Budget>> {
                let mut out = BTreeMap::new();
                for (name, budget) in raw {
                    if budget.relative_pct.is_none() && budget.absolute.is_none() {
                        return Err(at(
                            name.span(),
                            format!(
                                "the budget of `{}` is empty: give `relative_pct`, `absolute` or \
                                 both (`{{ absolute = 0 }}` is a zero budget)",
                                name.get_ref()
                            ),
                        ));
                    }
                    let relative_pct = match budget.relative_pct {
                        Some(pct) if !pct.get_ref().is_finite() || *pct.get_ref() < 0.0 => {
                            return Err(at(
                                pct.span(),
                                format!(
                                    "relative_pct is {}: a budget is a non-negative percentage",
                                    pct.get_ref()
                                ),
                            ));
                        }
                        Some(pct) => *pct.get_ref(),
                        None => 0.0,
                    };
                    out.insert(
                        metric(&name)?,
                        Budget {
                            relative_pct,
                            absolute: budget.absolute.unwrap_or(0),
                        },
                    );
                }
                Ok(out)
            };

        let info = raw.info.iter().map(metric).collect::<Result<Vec<_>>>()?;
        let default_budgets = match raw.budgets {
            Some(raw) => budgets(raw)?,
            None => Config::default().budgets,
        };
        let patterns = |globs: Vec<Spanned<String>>| -> Result<Vec<Pattern>> {
            let mut patterns = Vec::new();
            for pattern in globs {
                let matcher = Glob::new(pattern.get_ref())
                    .map_err(|e| at(pattern.span(), format!("invalid glob: {}", e.kind())))?
                    .compile_matcher();
                patterns.push(Pattern {
                    text: pattern.get_ref().clone(),
                    line: line_column(text, pattern.span().start).0,
                    matcher,
                });
            }
            Ok(patterns)
        };
        let mut overrides = Vec::new();
        for raw in raw.overrides {
            if raw.benchmarks.is_empty() {
                return Err(Error::invalid(
                    path.display(),
                    "an [[overrides]] entry with `benchmarks = []` applies to nothing: name at \
                     least one glob",
                ));
            }
            overrides.push(Override {
                patterns: patterns(raw.benchmarks)?,
                budgets: budgets(raw.budgets)?,
            });
        }
        let mut accepts = Vec::new();
        for raw in raw.accepts {
            let span = raw.span();
            let origin = format!("{}:{}", path.display(), line_column(text, span.start).0);
            let raw = raw.into_inner();
            if raw.benchmarks.is_empty() {
                return Err(at(
                    span,
                    "an [[accept]] entry with `benchmarks = []` accepts nothing: name at least \
                     one glob"
                        .to_owned(),
                ));
            }
            if raw.reason.get_ref().trim().is_empty() {
                return Err(at(
                    raw.reason.span(),
                    "the reason of an [[accept]] entry is empty: say why the regression is \
                     accepted"
                        .to_owned(),
                ));
            }
            let until = match (raw.until, raw.until_commit) {
                (Some(date), None) => Until::Date(
                    chrono::NaiveDate::parse_from_str(date.get_ref(), "%Y-%m-%d").map_err(|e| {
                        at(
                            date.span(),
                            format!(
                                "until = {:?} is not a date YYYY-MM-DD ({e})",
                                date.get_ref()
                            ),
                        )
                    })?,
                ),
                (None, Some(commit)) => {
                    let hex = commit.get_ref();
                    if !(7..=40).contains(&hex.len()) || !hex.bytes().all(|b| b.is_ascii_hexdigit())
                    {
                        return Err(at(
                            commit.span(),
                            format!(
                                "until_commit = {hex:?} is not a commit hash (7 to 40 hex digits)"
                            ),
                        ));
                    }
                    Until::Commit(hex.to_ascii_lowercase())
                }
                _ => {
                    return Err(at(
                        span,
                        "an [[accept]] entry needs exactly one of `until = \"YYYY-MM-DD\"` and \
                         `until_commit = \"<sha>\"`: an acceptance must end"
                            .to_owned(),
                    ));
                }
            };
            accepts.push(Accept {
                patterns: patterns(raw.benchmarks)?,
                reason: raw.reason.into_inner(),
                until,
                origin,
            });
        }
        let mut suites: Vec<Suite> = Vec::new();
        for raw in raw.suites {
            let span = raw.span();
            let raw = raw.into_inner();
            let suite = Suite {
                package: raw.package,
                bench: raw.bench,
                features: raw.features,
                args: raw.args,
            };
            if suites.iter().any(|s| s.name() == suite.name()) {
                return Err(at(
                    span,
                    format!("suite `{}` is declared twice", suite.name()),
                ));
            }
            suites.push(suite);
        }
        let drift = match raw.drift {
            Some(raw) => {
                let since = raw.since.get_ref();
                // The anchor reaches `git rev-parse`: a plain name, never an option.
                if since.is_empty()
                    || since.len() > 200
                    || since.starts_with('-')
                    || !since.chars().all(|c| c.is_ascii_graphic())
                {
                    return Err(at(
                        raw.since.span(),
                        format!(
                            "since = {}: name a tag or commit (printable ASCII, not starting \
                             with `-`)",
                            crate::id::escaped(since)
                        ),
                    ));
                }
                if raw.budgets.is_empty() {
                    return Err(Error::invalid(
                        path.display(),
                        "[drift] has no budget: give one, e.g. `budgets.Ir = { relative_pct = 4.0 }`",
                    ));
                }
                Some(Drift {
                    since: since.clone(),
                    budgets: budgets(raw.budgets)?,
                })
            }
            None => None,
        };
        let config = Config {
            path: Some(path.to_owned()),
            info,
            suites,
            budgets: default_budgets,
            overrides,
            drift,
            accepts,
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
            if over.patterns.iter().any(|p| p.matcher.is_match(id)) {
                budgets.extend(over.budgets.iter().map(|(m, l)| (m.clone(), *l)));
            }
        }
        budgets
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
            .filter(|p| !ids.clone().any(|id| p.matcher.is_match(id)))
            .map(|p| format!("{path}:{}: `{}`", p.line, p.text))
            .collect()
    }
}

/// How much a count may move from `baseline` under `limit` before it is over budget (or stale):
/// the larger of the relative and the absolute allowance.
pub fn allowance(limit: &Budget, baseline: u64) -> f64 {
    (baseline as f64 * limit.relative_pct / 100.0).max(limit.absolute as f64)
}

/// Whether `name` is a count metric irgate can gate: a callgrind event (not a rate) or `dhat.` and
/// a DHAT metric, as gungraun names them.
pub fn is_count_metric(name: &str) -> bool {
    let parses = |value: &str, dhat: bool| {
        let value = serde_json::Value::String(value.to_owned());
        if dhat {
            serde_json::from_value::<gungraun_summary::v7::DhatMetric>(value).is_ok()
        } else {
            serde_json::from_value::<gungraun_summary::v7::EventKind>(value).is_ok()
        }
    };
    match name.strip_prefix("dhat.") {
        Some(dhat) => parses(dhat, true),
        None => !name.ends_with("Rate") && parses(name, false),
    }
}

/// Callgrind's metrics that come from its cache simulation. They depend on where the measured
/// program's stack and data lie, which moves with the checkout path and the environment the
/// benchmark is started with (docs/container.md#cache-metrics), so they are gated only between
/// runs at the same path in the same environment.
pub const CACHE_METRICS: &[&str] = &[
    "I1mr",
    "D1mr",
    "D1mw",
    "ILmr",
    "DLmr",
    "DLmw",
    "L1hits",
    "LLhits",
    "RamHits",
    "EstimatedCycles",
];

/// Why `name` is refused where a metric is expected (see [`is_count_metric`]).
pub fn unknown_metric(name: &str) -> String {
    format!(
        "unknown metric `{name}`: use a callgrind count such as `Ir` or `EstimatedCycles`, or \
         `dhat.` and a DHAT metric such as `dhat.TotalBytes`"
    )
}

/// 1-based line and column of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config> {
        Config::parse(text, Path::new("gate.toml"))
    }

    const SAMPLE: &str = r#"
info = ["EstimatedCycles", "dhat.TotalBytes"]

[budgets]
Ir = { relative_pct = 1.0, absolute = 50 }

[[overrides]]
benchmarks = ["filter::*"]
budgets.Ir = { relative_pct = 5.0 }

[[overrides]]
benchmarks = ["filter::scan/*"]
budgets.Ir = { absolute = 10 }
budgets."dhat.TotalBytes" = { absolute = 0 }
"#;

    #[test]
    fn overrides_apply_in_order_by_glob() {
        let config = parse(SAMPLE).unwrap();
        let limit = |id: &str, metric: &str| config.budgets_for(id).get(metric).copied();
        assert_eq!(
            limit("varint::encode/v0", "Ir"),
            Some(Budget {
                relative_pct: 1.0,
                absolute: 50
            })
        );
        assert_eq!(
            limit("filter::alloc", "Ir"),
            Some(Budget {
                relative_pct: 5.0,
                absolute: 0
            })
        );
        assert_eq!(
            limit("filter::scan/s512", "Ir"),
            Some(Budget {
                relative_pct: 0.0,
                absolute: 10
            })
        );
        assert_eq!(limit("filter::alloc", "dhat.TotalBytes"), None);
        assert_eq!(
            limit("filter::scan/s32", "dhat.TotalBytes"),
            Some(Budget {
                relative_pct: 0.0,
                absolute: 0
            })
        );
        assert!(config.needs_dhat());
        assert_eq!(
            config.stored_metrics().into_iter().collect::<Vec<_>>(),
            ["EstimatedCycles", "Ir", "dhat.TotalBytes"]
        );
    }

    #[test]
    fn the_larger_allowance_applies() {
        let limit = Budget {
            relative_pct: 1.0,
            absolute: 50,
        };
        assert_eq!(allowance(&limit, 1_000), 50.0);
        assert_eq!(allowance(&limit, 100_000), 1_000.0);
    }

    #[test]
    fn missing_budgets_table_means_the_default() {
        let config = parse("info = []").unwrap();
        assert_eq!(config.budgets_for("a::b").get(IR), Some(&DEFAULT_BUDGET));
    }

    #[test]
    fn the_measurement_build_is_on_unless_gate_toml_opts_out() {
        assert!(parse("info = []").unwrap().measurement_build);
        assert!(Config::default().measurement_build);
        assert!(
            !parse("[build]\nmeasurement = false\n")
                .unwrap()
                .measurement_build
        );
        let error = parse("[build]\nmeasurement = \"no\"\n").unwrap_err();
        assert!(error.to_string().contains("gate.toml:2:"), "{error}");
        let error = parse("[build]\ncodegen_units = 4\n").unwrap_err();
        assert!(
            error.to_string().contains("unknown field `codegen_units`"),
            "{error}"
        );
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let cases = [
            (
                "[budgets]\nIr = { relative_pct = 1.0, absolut = 50 }\n",
                "gate.toml:2:",
                "unknown field `absolut`",
            ),
            ("infos = []\n", "gate.toml:1:1", "unknown field `infos`"),
            (
                "[budgets]\nIR = { absolute = 5 }\n",
                "gate.toml:2:1",
                "unknown metric `IR`",
            ),
            (
                "info = [\"L1HitRate\"]\n",
                "gate.toml:1:9",
                "unknown metric `L1HitRate`",
            ),
            (
                "[budgets]\nIr = { relative_pct = -1.0 }\n",
                "gate.toml:2:23",
                "relative_pct is -1",
            ),
            ("[budgets]\nIr = { absolute = -5 }\n", "gate.toml:2:", "-5"),
            (
                "[[overrides]]\nbenchmarks = [\"a[\"]\nbudgets.Ir = {}\n",
                "gate.toml:2:15",
                "invalid glob",
            ),
            ("[budgets]\n", "gate.toml", "no metric is gated"),
            ("[budgets\n", "gate.toml:1:", ""),
        ];
        for (text, origin, message) in cases {
            let error = parse(text).unwrap_err().to_string();
            assert!(error.starts_with(origin), "{text:?}: {error}");
            assert!(error.contains(message), "{text:?}: {error}");
        }
    }

    #[test]
    fn near_empty_budgets_are_refused_each_with_its_rule() {
        for (text, message) in [
            ("[budgets]\nIr = {}\n", "the budget of `Ir` is empty"),
            (
                "[[overrides]]\nbenchmarks = []\nbudgets.Ir = { absolute = 1 }\n",
                "`benchmarks = []` applies to nothing",
            ),
            (
                "info = [\"EstimatedCycles\"]\n[budgets]\nEstimatedCycles = { absolute = 1 }\n",
                "`EstimatedCycles` is both in `info` (not gated) and in [budgets]",
            ),
            ("", "the file is empty"),
            ("\n  \n# only a comment\n", "the file is empty"),
        ] {
            let error = parse(text).unwrap_err().to_string();
            assert!(error.contains(message), "{text:?}: {error}");
        }
        assert_eq!(
            parse("[budgets]\nIr = { absolute = 0 }\n")
                .unwrap()
                .budgets_for("a")[IR],
            Budget {
                relative_pct: 0.0,
                absolute: 0
            }
        );
    }

    #[test]
    fn reads_the_drift_budget_with_the_budget_syntax() {
        let config =
            parse("[drift]\nsince = \"v0.3.0\"\nbudgets.Ir = { relative_pct = 4.0 }\n").unwrap();
        assert_eq!(
            config.drift,
            Some(Drift {
                since: "v0.3.0".into(),
                budgets: BTreeMap::from([(
                    IR.to_owned(),
                    Budget {
                        relative_pct: 4.0,
                        absolute: 0
                    }
                )]),
            })
        );
        assert_eq!(
            parse("[budgets]\nIr = { absolute = 1 }\n").unwrap().drift,
            None
        );
        for (text, message) in [
            (
                "[drift]\nsince = \"--upload-pack=x\"\nbudgets.Ir = { absolute = 1 }",
                "gate.toml:2:9: since = \"--upload-pack=x\": name a tag or commit",
            ),
            (
                "[drift]\nsince = \"v1\"\nbudgets = {}",
                "[drift] has no budget",
            ),
            (
                "[drift]\nsince = \"v1\"\nbudgets.Ir = { relative_pct = -1.0 }",
                "relative_pct is -1",
            ),
            (
                "[drift]\nbudgets.Ir = { absolute = 1 }",
                "missing field `since`",
            ),
        ] {
            let error = parse(text).unwrap_err().to_string();
            assert!(error.contains(message), "{text:?}: {error}");
        }
    }

    #[test]
    fn reports_patterns_matching_nothing() {
        let config = parse(SAMPLE).unwrap();
        let ids = ["filter::alloc", "varint::encode/v0"];
        assert_eq!(
            config.unmatched_patterns(ids.iter().copied()),
            ["gate.toml:12: `filter::scan/*`"]
        );
    }

    #[test]
    fn knows_count_metrics() {
        for name in [
            "Ir",
            "EstimatedCycles",
            "L1hits",
            "dhat.TotalBytes",
            "dhat.TotalBlocks",
        ] {
            assert!(is_count_metric(name), "{name}");
        }
        for name in ["ir", "L1HitRate", "dhat.Ir", "TotalBytes", ""] {
            assert!(!is_count_metric(name), "{name}");
        }
    }
}
