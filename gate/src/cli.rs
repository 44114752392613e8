//! The command line: `irgate run`, `irgate check`, `irgate refresh`.

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};

use crate::compare::EnvPolicy;
use crate::report::Format;

const ABOUT: &str = "A CI regression gate on callgrind instruction counts.";

const LONG_ABOUT: &str = "\
A CI regression gate on callgrind instruction counts.

Instruction counts repeat exactly for the same binary, input and environment, so a gate on them
catches a 0.5% regression with no false alarms, where wall-clock time moves by several percent
from run to run on a shared runner.

The workflow:
  irgate run        run the callgrind suite and collect its counts
  irgate check      compare them with the committed baselines and budgets
  irgate refresh    accept the counts as the new baselines, on purpose

Exit codes (all commands): 0 every budget holds, 1 a budget is exceeded, 2 the gate cannot decide
(bad or missing input, a different environment, a tool missing).";

const AFTER_LONG_HELP: &str = "\
Examples:
  irgate run && irgate check                 what `make gate` does
  irgate run 'frame::*' && irgate refresh 'frame::*'
                                             re-take the baselines of one group
  irgate check --format json > report.json   a machine-readable report

Files: gate.toml (budgets), baselines/<group>.json (accepted counts, committed),
target/irgate/results.json (the latest run). Paths are relative to the directory holding
gate.toml, searched upwards from the current directory.";

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
    /// Run the callgrind suite (or read summaries taken elsewhere) and write the results.
    #[command(long_about = RUN_ABOUT)]
    Run(RunArgs),
    /// Compare the latest results with the baselines and budgets; print the report.
    #[command(long_about = CHECK_ABOUT)]
    Check(CheckArgs),
    /// Write the latest results as the new baselines (all benchmarks, or a filter).
    #[command(long_about = REFRESH_ABOUT)]
    Refresh(RefreshArgs),
    /// Post the JSON report as the pull request's one irgate comment; write the step summary.
    #[command(long_about = crate::comment::ABOUT)]
    Comment(crate::comment::CommentArgs),
    /// Measure how much time and Ir move between runs here, and whether each gate catches a
    /// known slowdown.
    #[command(long_about = crate::noise::ABOUT)]
    Noise(crate::noise::NoiseArgs),
    /// Show where a benchmark's instructions went, function by function, against its baseline.
    #[command(long_about = EXPLAIN_ABOUT)]
    Explain(ExplainArgs),
    /// Show this environment's fingerprint and whether it matches the baselines', field by field.
    #[command(long_about = crate::doctor::ABOUT)]
    Doctor(crate::doctor::DoctorArgs),
}

const RUN_ABOUT: &str = "\
Run the callgrind suite and write its counts to target/irgate/results.json.

Runs `cargo bench -p <package> --bench <bench>` under gungraun with the settings that make counts
repeat: a pinned cache model (--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64), GLIBC_TUNABLES
passed through gungraun's cleared environment (the environment's value, or one that pins glibc's
memcpy/memset choice), and ASLR off. Prints one progress line per benchmark. The environment
(toolchain, valgrind, gungraun, glibc, CPU, ASLR state, commit) is recorded with the counts, so
`irgate check` can refuse to compare counts taken in different environments.

With --from, nothing runs: the counts come from gungraun summary directories (every summary.json
below them) or irgate results files, possibly from several CI shards, merged into one. A benchmark
found twice is an error.";

const CHECK_ABOUT: &str = "\
Compare the latest results with baselines/ under the budgets of gate.toml, print the report, and
exit 0 when every budget holds, 1 when one is exceeded, 2 when the gate cannot decide.

Each gated metric (Ir by default) of each benchmark is over budget when it grew by more than the
larger of its relative and absolute allowance (\"+1% and at least +50 Ir\"). A benchmark without a
baseline fails unless --allow-new; an improvement beyond the budget means the baseline is stale
(fails with --strict); a baseline whose benchmark did not run is listed as vanished. If the
environment differs from the baselines' in a field that changes counts (rustc, valgrind, gungraun,
glibc, CPU vendor or flags, ASLR...), the gate refuses to judge (exit 2) and names the fields;
--on-env-mismatch=warn shows the comparison without a verdict instead (exit 0).";

const REFRESH_ABOUT: &str = "\
Write the latest results into baselines/, one file per benchmark group, and show what changed.

Only the benchmarks in the results (and matching FILTER, if given) are written; the baselines of
benchmarks that did not run are kept (unless --prune). Files are replaced atomically, so an
interrupted refresh loses nothing. Review the diff and commit it: that is how a new baseline is
accepted on purpose.";

const EXPLAIN_ABOUT: &str = "\
Show where a benchmark's instructions went between its baseline and the latest run, function by
function: the functions whose self Ir changed most (baseline, new, change, and the inclusive
change), the rest summed as one line, renames and inlining changes shown as what they are, and a
differential flame graph (SVG) beside the results (target/irgate/flamegraphs/).

Reads the per-function profiles `irgate run` writes beside the results and the ones `irgate
refresh` stores in baselines/profiles/. `irgate check` does the same for every benchmark over
budget.";

/// Arguments of `irgate explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The benchmark id, e.g. 'filter::passthrough/n8'
    #[arg(value_name = "BENCH")]
    pub benchmark: String,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    #[command(flatten)]
    pub paths: Paths,
}

/// Where the gate's files are; each defaults to a path below the directory holding gate.toml.
#[derive(Debug, Clone, Args)]
pub struct Paths {
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

/// Arguments of `irgate run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Only benchmarks whose id matches this glob, e.g. 'frame::*' or 'pipeline::*/b512'
    #[arg(value_name = "FILTER")]
    pub filter: Option<String>,
    /// Read gungraun summaries (a directory) or irgate results (a file, or a directory holding
    /// results.json) instead of running; repeat to merge shards
    #[arg(long, value_name = "PATH")]
    pub from: Vec<PathBuf>,
    /// The cargo package of the callgrind suite
    #[arg(long, default_value = "benches", value_name = "NAME")]
    pub package: String,
    /// The bench target of the callgrind suite
    #[arg(long, default_value = "callgrind", value_name = "NAME")]
    pub bench: String,
    /// Cargo features to build the suite with (passed to `cargo bench --features`)
    #[arg(long, value_name = "FEATURES")]
    pub features: Option<String>,
    /// gungraun's output directory (`GUNGRAUN_HOME`) instead of target/gungraun. Not an option:
    /// `irgate noise` gives its runs their own, so that they never share files with another run.
    #[arg(skip)]
    pub gungraun_home: Option<PathBuf>,
    #[command(flatten)]
    pub paths: Paths,
}

/// Arguments of `irgate check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Report format
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Fail on stale baselines (improvements beyond the budget) too
    #[arg(long)]
    pub strict: bool,
    /// Let benchmarks without a baseline pass (they are still listed)
    #[arg(long)]
    pub allow_new: bool,
    /// What a different environment does: fail refuses to judge (exit 2); warn shows the
    /// comparison without a verdict (exit 0)
    #[arg(long, value_enum, default_value_t = EnvPolicy::Fail, value_name = "POLICY")]
    pub on_env_mismatch: EnvPolicy,
    #[command(flatten)]
    pub paths: Paths,
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
    pub paths: Paths,
}

/// The gate's files, resolved.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The directory holding gate.toml (or Cargo.lock): the workspace the suite runs in.
    pub root: PathBuf,
    /// gate.toml, and whether it was named explicitly (then it must exist).
    pub config: (PathBuf, bool),
    /// The baseline directory.
    pub baselines: PathBuf,
    /// The results file.
    pub results: PathBuf,
}

impl Paths {
    /// Resolves the defaults against the workspace root found from the current directory.
    pub fn resolve(&self) -> Resolved {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let root = find_root(&cwd);
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(|dir| cwd.join(dir))
            .unwrap_or_else(|| root.join("target"));
        Resolved {
            config: match &self.config {
                Some(path) => (path.clone(), true),
                None => (root.join("gate.toml"), false),
            },
            baselines: self
                .baselines
                .clone()
                .unwrap_or_else(|| root.join("baselines")),
            results: self
                .results
                .clone()
                .unwrap_or_else(|| target.join("irgate").join(crate::results::FILE_NAME)),
            root,
        }
    }
}

/// The nearest ancestor of `start` holding gate.toml, else one holding Cargo.lock, else `start`.
fn find_root(start: &Path) -> PathBuf {
    for marker in ["gate.toml", "Cargo.lock"] {
        if let Some(dir) = start.ancestors().find(|dir| dir.join(marker).is_file()) {
            return dir.to_owned();
        }
    }
    start.to_owned()
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
