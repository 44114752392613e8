//! What a bisection found: the moves, what stays undecided, the benchmarks left out and why,
//! the commits skipped, and the cost against a linear replay.

use serde::{Deserialize, Serialize};

use crate::text;

/// What a bisection found: the content of `irgate bisect --format json` ([`super::format`]). A
/// file may lack what the history does not keep (any field but `good`, `bad`, `moves`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Bisection {
    /// The good end (a full hash).
    pub good: String,
    /// The bad end (a full hash).
    pub bad: String,
    /// Commits on the first-parent path `good..bad` (the bad end included).
    #[serde(default)]
    pub commits: usize,
    /// Benchmarks measured at both ends with a count that repeats.
    #[serde(default)]
    pub benchmarks: usize,
    /// Of those, the ones whose count is equal at both ends.
    #[serde(default)]
    pub unchanged: usize,
    /// Each commit where a benchmark's count changed, by benchmark then commit order.
    pub moves: Vec<Move>,
    /// Moves whose commit could not be decided, and why.
    #[serde(default)]
    pub undecided: Vec<Undecided>,
    /// Benchmarks left out: their count at the bad end differed between two runs of one build.
    #[serde(default)]
    pub unreproducible: Vec<Unreproducible>,
    /// Benchmarks left out: their count differs between the ends, but the code they execute and
    /// the files they may read do not (addresses, the environment, nondeterminism).
    #[serde(default)]
    pub unexplained: Vec<Unexplained>,
    /// Commits inside the range that did not build (or whose suite did not run), skipped.
    #[serde(default)]
    pub skipped: Vec<Skipped>,
    /// Builds made (the ends included).
    #[serde(default)]
    pub builds: usize,
    /// Suite runs (each a run of some benchmarks, with the record pass except the repeat).
    #[serde(default)]
    pub runs: usize,
    /// Benchmarks measured, summed over the runs.
    #[serde(default)]
    pub benchmark_runs: usize,
    /// The commits where the suite ran, in the order they first ran (full hashes).
    #[serde(default)]
    pub measured: Vec<String>,
    /// What a linear replay of the range costs: every commit and the good end built and run.
    #[serde(default)]
    pub linear: Linear,
    /// Wall time of the bisection, in seconds.
    #[serde(default)]
    pub seconds: f64,
}

/// One change point of one benchmark.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Move {
    /// The benchmark.
    pub benchmark: String,
    /// The commit (a full hash) whose count differs from its first parent's.
    pub commit: String,
    /// The commit's subject.
    pub subject: String,
    /// The count (Ir) at the first parent; `None`: the benchmark did not exist there.
    pub before: Option<u64>,
    /// The count at the commit; `None`: the benchmark was removed.
    pub after: Option<u64>,
    /// The changed functions the benchmark executes there (`name`, or `object (whole)`).
    #[serde(default)]
    pub functions: Vec<String>,
    /// The changed files it may read at run time, when that is what touched it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

/// A move whose commit stayed open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undecided {
    /// The benchmark.
    pub benchmark: String,
    /// The last commit known to have the old count (a full hash).
    pub after: String,
    /// The first commit known to have the new count; the move is in `after..through`.
    pub through: String,
    /// How many commits that is.
    #[serde(default)]
    pub commits: usize,
    /// The counts at those two commits.
    pub before: Option<u64>,
    /// The count at `through`.
    pub count: Option<u64>,
    /// Why it stayed open.
    #[serde(default)]
    pub why: String,
}

/// A benchmark whose count did not repeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unreproducible {
    /// The benchmark.
    pub benchmark: String,
    /// Its counts at the bad end, run twice.
    pub counts: [Option<u64>; 2],
}

/// A benchmark that moved between the ends with no change to what it executes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unexplained {
    /// The benchmark.
    pub benchmark: String,
    /// Its count at the good end.
    pub good: u64,
    /// Its count at the bad end.
    pub bad: u64,
}

/// A commit inside the range that was skipped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// The commit (a full hash).
    pub commit: String,
    /// Why (the first line of the error; the rest is on stderr).
    pub why: String,
}

/// The cost of a linear replay of the same range.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Linear {
    /// Every commit of the range and the good end.
    pub builds: usize,
    /// A full run of the suite at each.
    pub runs: usize,
    /// Every benchmark at each.
    pub benchmark_runs: usize,
}

/// A count, or `none` when the benchmark did not exist.
pub fn count_text(count: Option<u64>) -> String {
    count.map_or_else(|| "none".to_owned(), text::thousands)
}
