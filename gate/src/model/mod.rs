//! The data every part of the gate shares: results, fingerprints and the compared report.
//!
//! `run` produces [`Results`], `check` turns results and baselines into a [`Report`], and the
//! renderers (terminal, markdown, json) and the GitHub comment only read a [`Report`].

pub mod carry;
pub mod code;
pub mod fingerprint;
pub mod shard;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use carry::{Carry, WholeSuite};

/// Metric name as gungraun spells it (`"Ir"`, `"EstimatedCycles"`) or `dhat.<name>` for DHAT.
pub type Metric = String;

/// The value a fingerprint field records when a tool or file could not be read.
pub const UNKNOWN: &str = "unknown";

/// The `build` of a fingerprint read from a file that did not record it (schema version 1, before
/// irgate controlled the build).
pub const BUILD_UNRECORDED: &str = "not recorded (schema version 1: the bench profile as it was)";

fn build_unrecorded() -> String {
    BUILD_UNRECORDED.to_owned()
}

/// One benchmark's counts, by metric.
pub type Counts = BTreeMap<Metric, u64>;

/// Where a set of counts was taken. Fields that change code paths must match between a baseline
/// and a run for the comparison to mean anything; the rest is recorded for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fingerprint {
    /// `rustc --version --verbose` release, e.g. `1.95.0`.
    pub rustc: String,
    /// The rustc commit hash.
    pub rustc_commit: String,
    /// Target triple, e.g. `x86_64-unknown-linux-gnu`.
    pub target: String,
    /// `valgrind --version`, e.g. `valgrind-3.24.0`.
    pub valgrind: String,
    /// The benchmark library and version of the suites, e.g. `gungraun 0.20.0` (its runner is
    /// the same version).
    pub library: String,
    /// glibc version, e.g. `2.41`.
    pub glibc: String,
    /// The `GLIBC_TUNABLES` the benchmarks ran with (empty when unset).
    pub glibc_tunables: String,
    /// The CPU the benchmarks see (under valgrind, the one valgrind presents), e.g.
    /// `GenuineIntel family 0x6 model 0x3c stepping 0x3, x86-64-v3`.
    pub cpu: String,
    /// That CPU's flags that change which code runs (sorted), e.g. `aes avx2 erms`.
    pub cpu_flags: Vec<String>,
    /// The host's CPU vendor and model (informational: valgrind hides it from the benchmarks).
    pub host_cpu: String,
    /// Whether ASLR was off for the benchmarks: `off`, `on` or `unknown`.
    pub aslr: String,
    /// The settings the suites were built with (`suite_run::Build::describe`), e.g. `irgate
    /// measurement build: codegen-units=1 debug=line-tables-only strip=none incremental=off`.
    /// Files of schema version 1 did not record it: they read as [`BUILD_UNRECORDED`].
    #[serde(default = "build_unrecorded")]
    pub build: String,
    /// Where the counts were taken: `container:<image>` or `host`.
    pub environment: String,
    /// The absolute path the benchmarks ran from (informational: a longer path moves counts by a
    /// few hundredths of a percent, so the pinned container uses one fixed path).
    pub workspace_root: String,
    /// The commit the counts were taken at (informational).
    pub commit: String,
    /// When the counts were taken, RFC 3339 UTC (informational).
    pub date: String,
}

/// The counts of one run of the suite (or of several merged shards).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema)]
pub struct Results {
    /// The environment the counts were taken in.
    pub fingerprint: Fingerprint,
    /// The suites that ran (`package/bench`).
    pub suites: Vec<String>,
    /// The cargo features the suites were built with besides their defaults (`run --features`),
    /// sorted.
    pub features: Vec<String>,
    /// The benchmark filters the run was limited to (globs over ids); empty for the whole suite.
    /// Baselines outside the filters were not run, rather than vanished.
    pub filters: Vec<String>,
    /// Counts by benchmark id, e.g. `frame::encode_compressed/512`.
    pub benchmarks: BTreeMap<String, Counts>,
    /// The wall milliseconds each benchmark took under valgrind, where the runner reports it
    /// (gungraun 0.20): what shards are balanced by is fitted to these.
    pub durations_ms: BTreeMap<String, u64>,
    /// The benchmarks of `benchmarks` that did not run (`irgate run --only-touched`): they run
    /// none of the changed code, and their counts are the baselines'. Sorted.
    pub carried: Vec<String>,
    /// The shard of the selection this run measured (`irgate run --shard K/N`); `None` for a
    /// whole run and for merged shards. Written in results files as `"shard": "K/N"`.
    #[serde(skip)]
    #[schemars(skip)]
    pub shard: Option<shard::Part>,
    /// What `benchmarks` holds for binary benchmarks: their program's count, or why the whole
    /// process's.
    #[serde(default)]
    pub process: Processes,
}

/// What a set of counts (a run's, a baseline group's) holds for its binary benchmarks. A binary
/// benchmark runs a whole process, whose start-up and exit (the dynamic loader, the C library,
/// the Rust runtime's stack-guard set-up reading `/proc/self/maps`) move with the program's
/// layout; its gated counts are its program's alone: the inclusive cost of the frames the
/// program's code starts in ([`irgate_callgrind::program_cost`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema)]
pub struct Processes {
    /// By binary benchmark id: the whole process's counts of the metrics whose count in
    /// `benchmarks` is the program's alone (information; the other metrics there are the whole
    /// process's).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub whole: BTreeMap<String, Counts>,
    /// By binary benchmark id: why its counts in `benchmarks` are the whole process's (no frame
    /// of the program's `main` in its callgrind files, or none to read).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unsplit: BTreeMap<String, String>,
}

impl Processes {
    /// Whether `id`'s count of `metric` is its program's alone.
    pub fn is_program(&self, id: &str, metric: &str) -> bool {
        self.whole.get(id).is_some_and(|c| c.contains_key(metric))
    }

    /// `id`'s whole process's count of `metric`, given its count in `benchmarks`.
    pub fn whole_count(&self, id: &str, metric: &str, count: Option<u64>) -> Option<u64> {
        match self.whole.get(id).and_then(|c| c.get(metric)) {
            Some(whole) => Some(*whole),
            None => count,
        }
    }

    /// Whether `id` is a binary benchmark this knows of.
    pub fn is_binary(&self, id: &str) -> bool {
        self.whole.contains_key(id) || self.unsplit.contains_key(id)
    }

    /// Adds `other`'s entries.
    pub fn extend(&mut self, other: Processes) {
        self.whole.extend(other.whole);
        self.unsplit.extend(other.unsplit);
    }

    /// Keeps only the benchmarks `keep` accepts.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.whole.retain(|id, _| keep(id));
        self.unsplit.retain(|id, _| keep(id));
    }

    /// `id`'s entries only.
    pub fn of(&self, id: &str) -> Processes {
        let mut one = self.clone();
        one.retain(|other| other == id);
        one
    }
}

impl Results {
    /// An error when some counts were carried from the baselines rather than measured (`irgate
    /// run --only-touched`): `what` (a refresh, the history) needs every count measured.
    pub fn require_measured(&self, origin: &str, what: &str) -> crate::error::Result<()> {
        match self.carried.first() {
            None => Ok(()),
            Some(first) => Err(crate::error::Error::invalid(
                origin,
                format!(
                    "{what} needs every count measured, but {} of these were carried from the \
                     baselines (`{first}`...: `irgate run --only-touched`): run `irgate run` \
                     without it",
                    self.carried.len()
                ),
            )),
        }
    }
}

/// A difference between the baseline's fingerprint and the run's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FieldMismatch {
    /// Fingerprint field name, e.g. `valgrind`.
    pub field: String,
    /// The baseline's value.
    pub baseline: String,
    /// The run's value.
    pub current: String,
}

/// What one compared row says.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// More than the budget allows: fails the check.
    OverBudget,
    /// More than the budget allows, let pass on purpose by an `[[accept]]` entry of gate.toml.
    Accepted,
    /// No baseline for this benchmark: fails closed unless new benchmarks are allowed.
    New,
    /// Better than the budget: the baseline is stale, refresh to lock in the gain.
    Stale,
    /// Beyond the budget, but the benchmark executed none of the changed code and stayed within
    /// the address budget (`[layout]`): code addresses moved it. Passes.
    Layout,
    /// Beyond the address budget although the benchmark executed none of the changed code: not
    /// the change's code (addresses beyond `[layout]`, the environment, or nondeterminism). The
    /// gate cannot decide.
    Unexplained,
    /// Moved, but gate.toml's `[[nondeterministic]]` names the benchmark: two cold builds of one
    /// commit gave it different counts, so no budget can tell a change from the build. The gate
    /// cannot decide.
    Nondeterministic,
    /// A baseline whose benchmark did not run.
    Vanished,
    /// Within budget.
    Ok,
    /// A metric that is reported but not gated.
    Info,
}

impl Status {
    /// The one label of a status, as every report writes it.
    pub fn label(self) -> &'static str {
        match self {
            Status::OverBudget => "over budget",
            Status::Accepted => "accepted: over budget on purpose",
            Status::New => "new: no baseline",
            Status::Stale => "stale: better than budget",
            Status::Layout => "moved without executing changed code: within the address budget",
            Status::Unexplained => {
                "moved without executing changed code, beyond the address budget: a possible selection blind spot"
            }
            Status::Nondeterministic => {
                "moved, but its build is not reproducible ([[nondeterministic]]): undecided"
            }
            Status::Vanished => "vanished: did not run",
            Status::Ok => "within budget",
            Status::Info => "not gated",
        }
    }
}

/// The budget a row was judged against: the larger of a relative and an absolute allowance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Budget {
    /// Allowed relative increase, in percent.
    pub relative_pct: f64,
    /// Allowed absolute increase, in counts; the larger of the two limits applies.
    pub absolute: u64,
}

/// One benchmark and metric, compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Row {
    /// Benchmark id.
    pub benchmark: String,
    /// Metric name.
    pub metric: Metric,
    /// The baseline's count (absent for a new benchmark).
    pub baseline: Option<u64>,
    /// The run's count (absent for a vanished benchmark).
    pub new: Option<u64>,
    /// The budget (absent for info rows and rows missing a side).
    pub limit: Option<Budget>,
    /// The verdict on this row.
    pub status: Status,
    /// Whether this row fails the gate: always when over budget; when new unless new benchmarks
    /// are allowed; when stale with `--strict`.
    pub fails: bool,
    /// For a drift row: the anchor whose count `baseline` is (`v0.3.0 (0123456789, 2026-11-11)`);
    /// the row judges the growth since then under the drift budget of gate.toml.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Why a row over budget passes (status `accepted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<Accepted>,
    /// Whether the benchmark runs code the change touched (when the report maps the change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub touch: Option<Touch>,
}

/// Whether a benchmark runs code the compared change touched (docs/selection.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Touch {
    /// Its process executed none of the changed code, and reads no changed file: held to the
    /// address budget.
    Untouched,
    /// It executed these changed functions (indices into [`ChangeMap::functions`]).
    Runs {
        /// Indices into [`ChangeMap::functions`].
        functions: Vec<usize>,
    },
    /// It may read inputs that changed: files at run time that `[change] inert` does not name,
    /// or what the harness passes it (its gate.toml `[[suite]]` entry).
    Reads {
        /// Why it may read them, and which changed.
        reason: String,
    },
    /// Its code record is missing or cannot be compared, so it counts as touched.
    Unrecorded {
        /// Why.
        reason: String,
    },
}

impl Touch {
    /// Whether the benchmark counts as touched (everything but [`Touch::Untouched`]).
    pub fn is_touched(&self) -> bool {
        *self != Touch::Untouched
    }
}

/// The compared change, mapped onto the code each benchmark's process executed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChangeMap {
    /// The commit the change starts from (the baselines' record's or the A/B base's).
    pub base: String,
    /// Where it ends: a commit, or empty for the working tree.
    pub head: String,
    /// The changed files no `[change] inert` glob names: what benchmarks that read files at run
    /// time may read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// The functions some benchmark executed whose machine code changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<ChangedFunction>,
    /// Why the change could not be mapped, when it could not: every benchmark then counts as
    /// touched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unmapped: Option<String>,
    /// What the change did to gate.toml, when it was judged by the base's (`--record-from`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_changed: Option<String>,
}

/// A function the change modified, as the compiled code says.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct ChangedFunction {
    /// The object it is in (`release/deps/callgrind`: a path under the target directory, cargo's
    /// hash suffix dropped).
    pub object: String,
    /// Its name (demangled, without hash), e.g. `codec::frame::Frame::encode`; empty when the
    /// whole object counts (a binary benchmark's harness).
    pub name: String,
    /// `changed`, `vanished` (not in the head build) or `whole` (the object as a whole).
    #[schemars(with = "String")]
    pub how: How,
    /// Its source file, relative to the workspace root, when the line tables name one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub file: String,
    /// The changed lines on the head side within it, when the diff names some.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<Lines>,
    /// The function whose code those lines are, when it is not `name` but was inlined into it
    /// (the line tables' innermost frame there): the function the change edited.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub inlined: String,
}

/// An inclusive range of 1-based source lines.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub struct Lines {
    /// The first line.
    pub first: u32,
    /// The last line (at least `first`).
    pub last: u32,
}

/// How a function's code changed between the base and the head build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum How {
    /// Its code identity differs.
    Changed,
    /// The head build has no function of that key.
    Vanished,
    /// The whole object, which a benchmark depends on as a whole, differs.
    Whole,
}

impl ChangedFunction {
    /// Function `name` of `object` (empty for the whole object) as `select::rule` finds it, not
    /// located in the source yet (`select::map` adds the file and lines).
    pub fn new(object: &str, name: &str, how: How) -> ChangedFunction {
        ChangedFunction {
            object: object.to_owned(),
            name: name.to_owned(),
            how,
            file: String::new(),
            lines: Vec::new(),
            inlined: String::new(),
        }
    }

    /// `file:120-131,140` as reports cite it, or the object when no line table names a file.
    pub fn location(&self) -> String {
        if self.file.is_empty() {
            return self.object.clone();
        }
        let lines: Vec<String> = self.lines.iter().map(|l| l.to_string()).collect();
        if lines.is_empty() {
            return self.file.clone();
        }
        format!("{}:{}", self.file, lines.join(","))
    }

    /// The changed function's name (the inlined one's, when the change is code inlined into
    /// `name`), or `every function of OBJECT` for a whole object.
    pub fn label(&self) -> String {
        if self.name.is_empty() {
            format!("every function of {}", self.object)
        } else if !self.inlined.is_empty() {
            self.inlined.clone()
        } else {
            self.name.clone()
        }
    }

    /// The function the changed code was inlined into, when it was ([`ChangedFunction::inlined`]).
    pub fn host(&self) -> Option<&str> {
        (!self.inlined.is_empty() && !self.name.is_empty()).then_some(self.name.as_str())
    }
}

impl std::fmt::Display for Lines {
    /// `12` or `12-14`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::text::range(&(self.first..=self.last)))
    }
}

/// A regression let pass on purpose: the `[[accept]]` entry that did it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Accepted {
    /// The entry's reason.
    pub reason: String,
    /// When it ends: `until 2026-12-31` or `until commit <sha>`.
    pub until: String,
    /// Where the entry is, `gate.toml:LINE`.
    pub origin: String,
}

impl Row {
    /// Relative change in percent, when both sides exist and the baseline is not zero.
    pub fn change_pct(&self) -> Option<f64> {
        match (self.baseline, self.new) {
            (Some(old), Some(new)) if old > 0 => {
                Some((new as f64 - old as f64) * 100.0 / old as f64)
            }
            _ => None,
        }
    }
}

/// The gate's decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// Every budget holds: exit 0.
    Passed,
    /// `count` benchmarks failed (over budget, or new/stale where those fail): exit 1.
    Failed {
        /// How many benchmarks failed.
        count: usize,
    },
    /// The gate cannot decide (bad input, environment mismatch): exit 2.
    Undecided {
        /// Why, in one sentence a person can act on.
        reason: String,
    },
    /// The environment differs from the baselines' and `--on-env-mismatch=warn` was given: the
    /// rows are shown for information, with no verdict: exit 0.
    NoVerdict {
        /// Why there is no verdict.
        reason: String,
    },
}

impl Report {
    /// The report of a gate that cannot decide, and why: no rows, exit 2.
    pub fn undecided(reason: String) -> Report {
        Report {
            outcome: Outcome::Undecided { reason },
            mode: Mode::default(),
            rows: Vec::new(),
            fingerprint: Fingerprint::default(),
            env_mismatches: Vec::new(),
            attribution: Attribution::default(),
            change: None,
            carried: Vec::new(),
        }
    }

    /// Whether `benchmark` did not run (`irgate run --only-touched`): its counts are the
    /// baselines', carried.
    pub fn is_carried(&self, benchmark: &str) -> bool {
        self.carried.iter().any(|id| id == benchmark)
    }

    /// How many of the report's benchmarks did not run ([`Report::is_carried`]).
    pub fn carried_count(&self) -> usize {
        self.benchmarks(|row| self.is_carried(&row.benchmark)).len()
    }

    /// How many benchmarks the report holds (a benchmark has a row per metric).
    pub fn benchmark_count(&self) -> usize {
        self.benchmarks(|_| true).len()
    }

    /// How many benchmarks have a row with `status` (only rows that fail the gate when
    /// `failing`): the one tally every report prints.
    pub fn tally(&self, status: Status, failing: bool) -> usize {
        self.benchmarks(|row| row.status == status && (!failing || row.fails))
            .len()
    }

    /// How many benchmarks run code the compared change touched (or count as touched).
    pub fn touched_count(&self) -> usize {
        self.benchmarks(|row| row.touch.as_ref().is_some_and(Touch::is_touched))
            .len()
    }

    fn benchmarks(&self, keep: impl Fn(&Row) -> bool) -> std::collections::BTreeSet<&str> {
        self.rows
            .iter()
            .filter(|row| keep(row))
            .map(|row| row.benchmark.as_str())
            .collect()
    }
}

impl Outcome {
    /// The process exit code for this outcome.
    pub fn exit_code(&self) -> u8 {
        match self {
            Outcome::Passed | Outcome::NoVerdict { .. } => 0,
            Outcome::Failed { .. } => 1,
            Outcome::Undecided { .. } => 2,
        }
    }
}

/// What the run was compared with.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Mode {
    /// The committed baselines.
    #[default]
    Baselines,
    /// A base commit measured in the same job (`irgate run --base`).
    Ab {
        /// The base commit.
        commit: String,
    },
    /// Drift triage (`--on-env-mismatch=remeasure`): the environment differs from the baselines',
    /// so the baselines' commit was measured again here, beside the working tree (A/B). The rows
    /// are the code's change (that commit -> the working tree), the only one gated.
    Remeasured {
        /// The baselines' commit.
        commit: String,
        /// The environment's change, benchmark by benchmark: the baseline's Ir, and the same
        /// commit's Ir measured here.
        environment: Vec<EnvDelta>,
    },
}

/// What the environment alone moved one benchmark's Ir by: the same commit, measured where the
/// baselines were taken and here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EnvDelta {
    /// Benchmark id.
    pub benchmark: String,
    /// The baseline's Ir.
    pub baseline: u64,
    /// The baselines' commit measured here.
    pub remeasured: u64,
}

impl EnvDelta {
    /// The change in percent (0 for a zero baseline).
    pub fn change_pct(&self) -> f64 {
        if self.baseline == 0 {
            return 0.0;
        }
        (self.remeasured as f64 - self.baseline as f64) * 100.0 / self.baseline as f64
    }
}

/// A compared run: what every renderer reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Report {
    /// The decision.
    pub outcome: Outcome,
    /// What the run was compared with.
    #[serde(default)]
    pub mode: Mode,
    /// Rows sorted worst first (by status, then by change).
    pub rows: Vec<Row>,
    /// The run's environment.
    pub fingerprint: Fingerprint,
    /// Fields where the baseline's environment differs from the run's.
    pub env_mismatches: Vec<FieldMismatch>,
    /// Where the instructions of the benchmarks over budget went, function by function.
    #[serde(default, flatten)]
    pub attribution: Attribution,
    /// The compared change mapped onto the benchmarks, when the report is change-aware.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<ChangeMap>,
    /// The benchmarks that did not run (`irgate run --only-touched`): their counts are the
    /// baselines'.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub carried: Vec<String>,
}

/// The explanations a report carries.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Attribution {
    /// One per explained benchmark, in the report's row order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub explanations: Vec<Explained>,
    /// Why benchmarks over budget are not explained, when they are not (one line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation_note: Option<String>,
    /// Where the flame graphs can be downloaded (the measuring workflow run's page): set by
    /// `irgate comment` from `IRGATE_ARTIFACTS_URL`, never read from a report.
    #[serde(skip)]
    pub artifacts_url: Option<String>,
    /// The published dashboard (`irgate history render`): failing benchmarks link to their
    /// charts there. Set by `--dashboard-url`, never read from a report.
    #[serde(skip)]
    pub dashboard_url: Option<String>,
    /// The pull request's changed files (`https://github.com/OWNER/NAME/pull/N/files`): the
    /// changed lines a failing benchmark runs link there. Set by `irgate comment`, never read
    /// from a report.
    #[serde(skip)]
    pub diff_url: Option<String>,
    /// The binary benchmarks of the rows, by id: which of their counts the rows gate (the
    /// program's alone, or the whole process's and why), and the whole process's counts.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub processes: BTreeMap<String, Process>,
}

/// A binary benchmark in a report: which counts its rows compare, and its whole process's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Process {
    /// The metrics whose rows compare the program's counts alone: the inclusive cost of the
    /// frames its code starts in, without the process's start-up and exit. The rows of the
    /// other metrics compare the whole process's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub program: Vec<Metric>,
    /// The whole process's counts by metric, in the baseline and in this run (information where
    /// the rows compare the program's).
    pub whole: BTreeMap<Metric, Whole>,
    /// Why some rows compare the whole process's counts, when they do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A whole process's count, in the baseline and in this run.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Whole {
    /// The baseline's.
    pub baseline: Option<u64>,
    /// This run's.
    pub new: Option<u64>,
}

impl Process {
    /// Whether the rows of `metric` compare the program's counts alone.
    pub fn gates_program(&self, metric: &str) -> bool {
        self.program.iter().any(|m| m == metric)
    }
}

/// One benchmark's explanation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Explained {
    /// The benchmark id.
    pub benchmark: String,
    /// Where its Ir went.
    #[serde(flatten)]
    pub explanation: irgate_callgrind::Explanation,
    /// The differential flame graph's file name, in the flame graph directory (the CI
    /// artifact), when one was drawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flamegraph: Option<String>,
}

impl std::fmt::Display for Budget {
    /// A budget as every report shows it, the larger of its two allowances applying:
    /// `max(0.5%, 1,000)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "max({}%, {})",
            // `+ 0.0` makes a negative zero (`relative_pct = -0.0`) read `0%`, not `-0%`.
            self.relative_pct + 0.0,
            crate::text::thousands(self.absolute)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shows_budgets_as_the_larger_of_two() {
        let limit = Budget {
            relative_pct: 0.5,
            absolute: 1_000,
        };
        assert_eq!(limit.to_string(), "max(0.5%, 1,000)");
        let zero = Budget {
            relative_pct: -0.0,
            absolute: 50,
        };
        assert_eq!(zero.to_string(), "max(0%, 50)");
        let large = Budget {
            relative_pct: 9.9e1,
            absolute: 0,
        };
        assert_eq!(large.to_string(), "max(99%, 0)");
    }
}
