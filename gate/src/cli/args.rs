//! Every argument of irgate's command line, as clap reads it.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[cfg(feature = "github")]
use super::help::COMMENT_ABOUT;
use super::help::{
    ABOUT, AFTER_LONG_HELP, BISECT_ABOUT, CALIBRATE_ABOUT, CHECK_ABOUT, DOCTOR_ABOUT,
    EXPLAIN_ABOUT, HISTORY_ADD_ABOUT, HISTORY_RENDER_ABOUT, INIT_ABOUT, LONG_ABOUT, REFRESH_ABOUT,
    RUN_ABOUT, RUNNER_INSTALL_ABOUT,
};
use crate::measure::shard::Part;

/// irgate's command line.
#[derive(Debug, Parser)]
#[command(
    name = "irgate",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_long_help = AFTER_LONG_HELP,
    propagate_version = true
)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// irgate's commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Find this workspace's callgrind suites and write gate.toml (and, on request, CI files).
    #[command(long_about = INIT_ABOUT)]
    Init(InitArgs),
    /// Run the callgrind suites (or read summaries taken elsewhere) and write the results.
    #[command(long_about = RUN_ABOUT)]
    Run(RunArgs),
    /// Compare the latest results with the baselines and budgets; print the report.
    #[command(long_about = CHECK_ABOUT)]
    Check(CheckArgs),
    /// Write the latest results as the new baselines (all benchmarks, or a filter).
    #[command(long_about = REFRESH_ABOUT)]
    Refresh(RefreshArgs),
    /// Show where a benchmark's instructions went, function by function, against its baseline.
    #[command(long_about = EXPLAIN_ABOUT)]
    Explain(ExplainArgs),
    /// Show this environment's fingerprint and whether it matches the baselines', field by field.
    #[command(long_about = DOCTOR_ABOUT)]
    Doctor(DoctorArgs),
    /// Record runs of the default branch over time, and draw the dashboard from them.
    #[command(subcommand)]
    History(HistoryCommand),
    /// Measure how far counts move between builds that differ only in code no benchmark runs;
    /// suggest (and write) budgets.
    #[command(long_about = CALIBRATE_ABOUT)]
    Calibrate(CalibrateArgs),
    /// Install (or show) the exact callgrind runner each suite's library needs.
    #[command(subcommand)]
    Runner(RunnerCommand),
    /// Find each commit of a range where a benchmark's count changed.
    #[command(long_about = BISECT_ABOUT)]
    Bisect(BisectArgs),
    /// Post the JSON report as the pull request's one irgate comment; write the step summary.
    #[cfg(feature = "github")]
    #[command(long_about = COMMENT_ABOUT)]
    Comment(CommentArgs),
}

/// `irgate runner` commands.
#[derive(Debug, Subcommand)]
pub enum RunnerCommand {
    /// Install the runners the suites need into irgate's cache (skipping those found).
    #[command(long_about = RUNNER_INSTALL_ABOUT)]
    Install(RunnerArgs),
    /// Print the runner each suite's library will use, one path a line (exit 2 when missing).
    Path(RunnerArgs),
}

/// Arguments of `irgate runner`.
#[derive(Debug, Args)]
pub struct RunnerArgs {
    /// Budget configuration, whose `[[suite]]`s are used [default: gate.toml]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// `irgate history` commands.
#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Add runs (results files) to the history, never replacing one.
    #[command(long_about = HISTORY_ADD_ABOUT)]
    Add(HistoryAddArgs),
    /// Draw the history as a static HTML dashboard.
    #[command(long_about = HISTORY_RENDER_ABOUT)]
    Render(HistoryRenderArgs),
}

/// Arguments of `irgate history add`.
#[derive(Debug, Args)]
pub struct HistoryAddArgs {
    /// Results files, one run each, oldest first [default: the latest results]
    #[arg(value_name = "RESULTS")]
    pub results: Vec<PathBuf>,
    /// The history directory (holds runs/)
    #[arg(long, value_name = "DIR")]
    pub history: PathBuf,
    /// The full commit hash the counts were taken at, when not the one in the results
    #[arg(long, value_name = "SHA")]
    pub commit: Option<String>,
    /// Mark the run as one that accepted new baselines
    #[arg(long)]
    pub refreshed: bool,
    /// Keep what `irgate bisect --format json` found since the previous recorded run (one run)
    #[arg(long, value_name = "FILE")]
    pub bisect: Option<PathBuf>,
    /// Keep the benchmarks this run's `irgate check --format json` report judged unexplained
    /// (one run)
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

/// Arguments of `irgate history render`.
#[derive(Debug, Args)]
pub struct HistoryRenderArgs {
    /// The history directory (holds runs/)
    #[arg(long, value_name = "DIR")]
    pub history: PathBuf,
    /// Where to write the site
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The overview's change column compares the latest run with the one this many runs before
    #[arg(long, value_name = "RUNS", default_value_t = 10)]
    pub window: usize,
    /// The repository's https:// address, to link every run's commit to
    /// (e.g. <https://github.com/OWNER/NAME>)
    #[arg(long, value_name = "URL", value_parser = https_url)]
    pub repo_url: Option<String>,
}

/// Arguments of `irgate calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Results files of builds made elsewhere (`irgate run --results FILE` of each), at least
    /// two, each named by its file's stem; without any, irgate makes the builds itself
    #[arg(value_name = "RESULTS", num_args = 2..)]
    pub results: Vec<PathBuf>,
    /// The builds to make (without RESULTS) [default: base,rebuild,version,unrelated]
    #[arg(
        long,
        value_name = "VARIANT",
        value_delimiter = ',',
        conflicts_with = "results"
    )]
    pub variants: Vec<VariantArg>,
    /// How many benchmarks run at once (default: one per core)
    #[arg(long, value_name = "N")]
    pub jobs: Option<std::num::NonZeroUsize>,
    /// Write the suggested budgets into gate.toml
    #[arg(long)]
    pub write: bool,
    /// Budget configuration to write [default: gate.toml]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// `--variants` values of `irgate calibrate`: the builds of [`crate::calibrate::Variant`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VariantArg {
    /// The working tree as it is.
    Base,
    /// The working tree as it is, built again from nothing at the same path: a benchmark whose
    /// count differs from `base`'s has a build that is not reproducible.
    Rebuild,
    /// Every workspace member's version one patch release higher, as a release bumps it: other
    /// symbol hashes, so another order of functions and data in the binary.
    Version,
    /// A function no benchmark calls appended to every member's library.
    Unrelated,
}

/// Arguments of `irgate explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The benchmark id, e.g. 'filter::passthrough/n8'
    #[arg(value_name = "BENCH")]
    pub benchmark: String,
    /// Output format
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    pub format: FormatArg,
    #[command(flatten)]
    pub paths: PathArgs,
}

/// Where the gate's files are; each defaults to a path below the repository root.
#[derive(Debug, Clone, Args)]
pub struct PathArgs {
    /// Budget configuration [default: gate.toml]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Directory of baseline files [default: baselines/]
    #[arg(long, value_name = "DIR")]
    pub baselines: Option<PathBuf>,
    /// Results file [default: target/irgate/results.json, or under $CARGO_TARGET_DIR]
    #[arg(long, value_name = "FILE")]
    pub results: Option<PathBuf>,
}

/// Arguments of `irgate init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Also write the GitHub workflows and the pinned image's pins (.irgate/image.env)
    #[arg(long)]
    pub ci: bool,
    /// Do not run the suites; use the default budget
    #[arg(long)]
    pub no_run: bool,
    /// Do not calibrate (building the workspace's packages twice more from nothing, to find
    /// benchmarks whose build is not reproducible); `irgate calibrate --write` does it later
    #[arg(long)]
    pub no_calibrate: bool,
    /// Overwrite files that exist
    #[arg(long)]
    pub force: bool,
    /// The branch the history workflow records (--ci) [default: the repository's default
    /// branch: origin's HEAD, else the one of `main` and `master` that exists, else the current]
    #[arg(long, value_name = "BRANCH")]
    pub default_branch: Option<String>,
}

/// Arguments of `irgate run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Only benchmarks whose id matches this glob, e.g. 'frame::*' or 'pipeline::*/b512'
    #[arg(value_name = "FILTER")]
    pub filter: Option<String>,
    /// Only this suite ('package/bench' or the bench's name); repeat for more
    #[arg(long = "suite", value_name = "SUITE")]
    pub suites: Vec<String>,
    /// Cargo features added to every suite that runs, e.g. to build a known slowdown in; repeat
    /// or separate with commas
    #[arg(long, value_name = "FEATURES", value_delimiter = ',')]
    pub features: Vec<String>,
    /// Read summary directories or irgate results (a file, or a directory holding results.json)
    /// instead of running; repeat to merge shards
    #[arg(long, value_name = "PATH", conflicts_with = "suites")]
    pub from: Vec<PathBuf>,
    /// How many benchmarks run at once, each in its own callgrind process [default: the number
    /// of cores]. Counts do not depend on it; gungraun 0.20 runs benchmarks of one group in
    /// parallel (older runners run one at a time)
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<NonZeroUsize>,
    /// A/B: also build and run the suite at this revision (a branch, tag or commit), at the same
    /// time and in the same environment. The revision is checked out in a git worktree and the
    /// working tree mirrored beside it (`<target>/irgate/ab/{base,head}/src`: paths of one length,
    /// which counts depend on; beside the repository instead when a manifest's relative path
    /// leaves it, `path = "../sibling"`); its results go beside the working tree's (results.base.json), for
    /// `irgate check --base`. A revision starting with `-` is refused
    #[arg(long, value_name = "REV", conflicts_with = "from", value_parser = revision)]
    pub base: Option<String>,
    /// Only the K-th of N disjoint shards of the selected benchmarks, e.g. 2/3, for N CI jobs
    /// whose results `--from` merges. Bench functions are dealt out by the baselines' Ir (the
    /// estimated time under callgrind), heaviest first; one without a baseline goes by its
    /// name's hash, so adding a benchmark moves no other. Needs gungraun 0.17 or later
    #[arg(long, value_name = "K/N", conflicts_with = "from")]
    pub shard: Option<Part>,
    /// Run only the benchmarks the change can move: the workspace is built first, and a
    /// benchmark runs when its process (from its start to the end of the measured region:
    /// setup, arguments and harness included) executed a function whose machine code differs
    /// from the baselines' code record (`code/record.json`, taken by `run --record`), or when a
    /// path its processes were seen to read holds something else now (a record taken without
    /// strace: when it may read files at run time and a file changed that `[change] inert` does
    /// not name; docs/selection.md). The others are not run and keep the baselines' counts (`carried` in
    /// the results, said in every report). Without a record, or with a suite whose runner
    /// cannot run a selection (iai-callgrind), everything runs and irgate says why. With --base,
    /// the record must be of that revision. Needs gungraun 0.17 or later
    #[arg(long, conflicts_with = "from")]
    pub only_touched: bool,
    /// With --only-touched: read the baselines' code record from this revision (a pull
    /// request's base commit), never from the tree under test, which the change may have altered.
    /// When the change alters the baselines since then, every benchmark runs and irgate says why.
    /// gate.toml (its `[change]` rules, budgets, suites) is read from it too, all but its
    /// `[[accept]]` entries: the change's edits apply once merged, and irgate says what they are.
    /// The GitHub Action passes the pull request's base. A revision starting with `-` is refused
    #[arg(long, value_name = "REV", requires = "only_touched", value_parser = revision)]
    pub record_from: Option<String>,
    /// With --only-touched: build, list which benchmarks would run and the changed function (or
    /// file) that selects each, and run nothing
    #[arg(long, requires = "only_touched")]
    pub dry_run: bool,
    /// Also record what each benchmark's process executes, function by function, and what its
    /// processes read (observed with strace, when it is on the PATH), for `irgate refresh` to
    /// keep with the baselines (`code/record.json`): what --only-touched and change-aware
    /// verdicts compare against. Runs every benchmark a second time under callgrind (about as
    /// long again as the run), but the suites none of whose benchmarks the change since the
    /// baselines' record touched or moved: their entries are kept from it (docs/selection.md).
    /// With --base, it records the base side, which `check --base`
    /// compares against. Taken for gungraun and iai-callgrind 0.14 or later; for older suites
    /// irgate says why not
    #[arg(long, conflicts_with_all = ["from", "shard", "only_touched"])]
    pub record: bool,
    #[command(flatten)]
    pub paths: PathArgs,
}

/// `--format` values of `irgate bisect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BisectFormatArg {
    /// A short table for a terminal
    Text,
    /// JSON: {"schema_version": 1, "moves": [{"benchmark", "commit", "before", "after",
    /// "functions"}], "builds", "runs", ...}
    Json,
}

/// Arguments of `irgate bisect`.
#[derive(Debug, Args)]
pub struct BisectArgs {
    /// Only benchmarks whose id matches this glob, e.g. 'frame::*'
    #[arg(value_name = "FILTER")]
    pub filter: Option<String>,
    /// A revision with the old counts (a branch, tag or commit; not starting with `-`)
    #[arg(long, value_name = "REV", value_parser = revision)]
    pub good: String,
    /// A revision with the new counts, a descendant of --good
    #[arg(long, value_name = "REV", value_parser = revision)]
    pub bad: String,
    /// The most builds to make, both ends included; what stays open is reported undecided
    #[arg(long, value_name = "N")]
    pub max_builds: Option<usize>,
    /// Only this suite ('package/bench' or the bench's name); repeat for more
    #[arg(long = "suite", value_name = "SUITE")]
    pub suites: Vec<String>,
    /// Cargo features added to every suite; repeat or separate with commas
    #[arg(long, value_name = "FEATURES", value_delimiter = ',')]
    pub features: Vec<String>,
    /// How many benchmarks run at once [default: the number of cores]
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<NonZeroUsize>,
    /// Report format
    #[arg(long, value_enum, default_value_t = BisectFormatArg::Text)]
    pub format: BisectFormatArg,
    /// Budget configuration (its suites and `[change]` inert) [default: gate.toml]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// `--on-env-mismatch` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EnvPolicyArg {
    /// Refuse to judge: exit 2, naming the differing fields
    Fail,
    /// Show the comparison without a verdict: exit 0
    Warn,
    /// Drift triage: measure the baselines' commit again here beside the working tree (A/B),
    /// report what the environment moved and what the code moved, and gate the code's change
    Remeasure,
}

/// `--format` values of `irgate check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// An aligned table for a terminal, worst first
    Table,
    /// GitHub markdown, within a job step summary's 1 MiB (--max-chars sets another limit;
    /// `irgate comment` cuts the pull-request comment to GitHub's 65,536 characters itself)
    Markdown,
    /// JSON with a documented, versioned schema
    Json,
}

/// Arguments of `irgate check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Report format
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    pub format: FormatArg,
    /// --format markdown: the most characters the report takes (default: the step summary's
    /// 1 MiB, counted in bytes; a pull-request comment holds 65536, which `irgate comment`
    /// keeps). Rows that do not fit are left out with a line saying how many
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(4_096..))]
    pub max_chars: Option<u32>,
    /// Print every row, not only a summary, when every budget holds
    #[arg(long)]
    pub full: bool,
    /// Fail on stale baselines (improvements beyond the budget) too
    #[arg(long)]
    pub strict: bool,
    /// Let benchmarks without a baseline pass (they are still listed)
    #[arg(long)]
    pub allow_new: bool,
    /// What a different environment does
    #[arg(long, value_enum, default_value_t = EnvPolicyArg::Fail, value_name = "POLICY")]
    pub on_env_mismatch: EnvPolicyArg,
    /// The history (a checkout of the history branch), where gate.toml's `[drift]` anchor is
    /// recorded; needed when gate.toml has a `[drift]` budget
    #[arg(long, value_name = "DIR")]
    pub history: Option<PathBuf>,
    /// The published dashboard's https:// address: the markdown report links each failing
    /// benchmark to its chart there
    #[arg(long, value_name = "URL", value_parser = https_url)]
    pub dashboard_url: Option<String>,
    /// A/B: compare with the base revision measured by `irgate run --base REV` in the same job
    /// (results.base.json beside the results), not with the baselines
    #[arg(long)]
    pub base: bool,
    /// Judge every benchmark as touched by the change: no change map, no layout budget (the
    /// verdict of irgate before change-aware verdicts)
    #[arg(long)]
    pub no_change_map: bool,
    /// Map the change through the baselines' code record of this revision (a pull request's
    /// base commit), never the tree under test's; when the change alters the baselines since
    /// then, every benchmark counts as touched and the report says why (as `run --record-from`).
    /// gate.toml, but its `[[accept]]` entries, is read from it too; the report says what the
    /// change did to it (its edits apply once merged)
    #[arg(long, value_name = "REV", conflicts_with_all = ["base", "no_change_map"], value_parser = revision)]
    pub record_from: Option<String>,
    #[command(flatten)]
    pub paths: PathArgs,
}

/// A plain `https://` address, for a link.
fn https_url(url: &str) -> Result<String, String> {
    if crate::text::is_plain_https(url) {
        Ok(url.trim_end_matches('/').to_owned())
    } else {
        Err(
            "give a plain https:// address with a host, e.g. https://github.com/OWNER/NAME (no \
             user, quotes, brackets or spaces)"
                .to_owned(),
        )
    }
}

/// Arguments of `irgate refresh`.
#[derive(Debug, Args)]
pub struct RefreshArgs {
    /// Only benchmarks whose id matches this glob, e.g. 'frame::*'
    #[arg(value_name = "FILTER")]
    pub filter: Option<String>,
    /// Also delete the baselines (matching FILTER) of benchmarks that did not run
    #[arg(long)]
    pub prune: bool,
    /// Show what would change without writing
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub paths: PathArgs,
}

/// Arguments of `irgate doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    pub paths: PathArgs,
}

/// Arguments of `irgate comment`.
#[cfg(feature = "github")]
#[derive(Debug, Args)]
pub struct CommentArgs {
    /// The report written by `irgate check --format json` ('-' reads standard input)
    #[arg(long, value_name = "FILE")]
    pub report: PathBuf,
    /// The repository the pull request is in
    #[arg(long, env = "GITHUB_REPOSITORY", value_name = "OWNER/NAME")]
    pub repo: Option<String>,
    /// The pull-request number
    #[arg(long, value_name = "NUMBER", required_unless_present = "no_post")]
    pub pr: Option<u64>,
    /// Post only if the pull request's head is still this commit, the one the report was measured
    /// on (a newer push has its own run)
    #[arg(long, value_name = "SHA")]
    pub head_sha: Option<String>,
    /// Only a comment by this login counts as irgate's, e.g. `github-actions[bot]`
    #[arg(long, value_name = "LOGIN")]
    pub author: Option<String>,
    /// Write the step summary and annotations only; post nothing (for the read-only
    /// pull_request workflow)
    #[arg(long)]
    pub no_post: bool,
    /// A load-test comparison (`irload compare --format json`) to show under its own heading,
    /// informational and never gated
    #[arg(long, value_name = "FILE")]
    pub load: Option<PathBuf>,
    /// The published dashboard's https:// address: each failing benchmark links to its chart
    /// there
    #[arg(long, env = "IRGATE_DASHBOARD_URL", value_name = "URL", value_parser = https_url)]
    pub dashboard_url: Option<String>,
}

/// A revision given on the command line (`--base`): refused at once when git would read it as an
/// option ([`crate::git::revision`]).
fn revision(text: &str) -> std::result::Result<String, String> {
    crate::git::revision(text).map(str::to_owned)
}
