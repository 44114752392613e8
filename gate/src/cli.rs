//! The command line: every argument and help text of irgate, turned into each command's plain
//! options. Nothing below this module knows of clap.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[cfg(feature = "github")]
use crate::commands::comment;
use crate::commands::{
    bisect, calibrate, check, doctor, explain, history, init, refresh, run, runner,
};
use crate::judge::compare::{EnvPolicy, Policy};
use crate::measure::shard::Part;
use crate::paths::Paths;
use crate::render::Format;
use crate::render::dashboard::Site;

const ABOUT: &str = "A CI regression gate on callgrind instruction counts.";

const LONG_ABOUT: &str = "\
A CI regression gate on callgrind instruction counts.

Instruction counts repeat exactly for the same binary, input and environment, so a gate on them
catches a single added instruction with no false alarm, where wall-clock time moves by several
percent from run to run on a shared runner.

The workflow:
  irgate init       find the callgrind suites of this workspace and write gate.toml
  irgate run        run the callgrind suites and collect their counts
  irgate check      compare them with the committed baselines and budgets
  irgate refresh    accept the counts as the new baselines, on purpose
  irgate doctor     show this environment against the baselines', field by field
  irgate explain    show where a benchmark's instructions went, function by function
  irgate history    record runs of the default branch; draw the dashboard
  irgate calibrate  how far code layout moves each count; the budgets that follow
  irgate bisect     which commits of a range moved each benchmark's count
  irgate runner     install the exact callgrind runner the suites need, beside other versions

Exit codes (every command): 0 every budget holds (or the command did its work), 1 a budget is
exceeded, 2 the gate cannot decide (bad or missing input, a different environment, a tool
missing).";

const AFTER_LONG_HELP: &str = "\
Examples:
  irgate init                                  set up gate.toml in this workspace
  irgate run && irgate check                   the gate
  irgate run 'parse::*' && irgate refresh 'parse::*'
                                               re-take the baselines of one group
  irgate check --format json > report.json     a machine-readable report

Files: gate.toml (suites and budgets), baselines/<group>.json (accepted counts, committed),
target/irgate/results.json (the latest run). Paths are relative to the directory holding
gate.toml, else to the Cargo workspace's root.";

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

const BISECT_ABOUT: &str = "\
Find, for every selected benchmark whose count (Ir) differs between --good and --bad, each commit
of the first-parent path good..bad where its count changed. Counts repeat exactly, so the answer
is one commit per move; a range can hold several, and every one is found.

Every candidate is checked out in one scratch git worktree at a fixed path
(<target>/irgate/bisect/src, removed at the end) and built into <target>/irgate/bisect/target
(kept, so the next bisection rebuilds only what changed): the checkout you work in is never
touched, and neither the counts nor the code identity move with the path. Both ends are built and
measured here, the bad end twice: a benchmark whose count does not repeat is left out and named.
Counts recorded elsewhere (baselines, the history) are never used.

Each benchmark is bisected over the commits, recursively on every interval whose ends differ.
At each candidate, irgate builds and compares the compiled code function by function with a
commit where the benchmark's count is known (docs/selection.md): when none of the code its process
executes changed, and no file it may read at run time, its count is known without a run. So most
steps cost a build and no run, and builds are shared by the benchmarks that moved at the same
commit. An interval whose ends have equal counts is taken as unchanged: moves that cancel out
inside it cannot be seen from its ends. A benchmark that moved between the ends although none of
the code it executes changed (addresses, the environment) is left out and named.

Each move is reported with its commit (the full hash), the count before and after, and the changed
functions the benchmark executes there; a benchmark missing on one side is reported with the
commit that added or removed it. A commit inside the range that does not build (or whose suites
cannot run) is skipped and named, as `git bisect skip` does. --max-builds bounds the work; what
stays open is reported undecided, with the commits it lies between. The report ends with the cost:
builds and runs made, against a linear replay of the range (every commit built and run).

Exit codes: 0 the bisection ran (whatever it found), 2 bad input: a revision that names no commit
or starts with `-`, --good not an ancestor of --bad, an end that does not build or run.";

const INIT_ABOUT: &str = "\
Set irgate up in the Cargo workspace of the current directory.

Finds the workspace's callgrind suites with `cargo metadata`: bench targets of packages that
depend on gungraun (0.17 to 0.20) or iai-callgrind (0.12 to 0.16), including suites behind a
feature (their `required-features` are written with them). Unless --no-run, runs them once to
see how large the benchmarks are, and chooses the budget from that: +1%, and at least 5% of the
smallest benchmark's count (no less than 1 Ir, no more than 50), so a +10% change of the smallest
benchmark fails while one instruction moved by code layout passes.

Writes gate.toml at the workspace root. With --ci, also writes the GitHub workflows
(.github/workflows/: irgate.yml checks pull requests, irgate-comment.yml posts the comment,
irgate-refresh.yml takes baselines in CI, irgate-history.yml records every push to the default
branch and draws the dashboard) and the pinned image's pins (.irgate/image.env: the toolchain of
rust-toolchain.toml, else the one in use here, and the runner's exact version). Nothing else is
created.

Everything that can be checked is checked before anything is built: that no file to write exists
(--force overwrites), the toolchain and default branch to pin, that the suites share one runner
for the image, valgrind, and that the runner of each suite's library is there at its exact
version (`irgate runner install` installs it). The run writes the results and the per-function
profiles, so `irgate refresh` then takes baselines that `irgate explain` can read. Prints the
next steps.";

const RUN_ABOUT: &str = "\
Run every callgrind suite declared in gate.toml (or found in the workspace, without any) and
write their counts to target/irgate/results.json.

Each suite runs as `cargo bench -p <package> --bench <bench> [--features ...]` under its library
(gungraun or iai-callgrind: the version comes from `cargo metadata`, and the runner must be that
version, checked before anything is built) with the settings that make counts repeat: a pinned
cache model (--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64), GLIBC_TUNABLES in the
benchmarks' cleared environment (the environment's value, or one that pins glibc's memcpy/memset
choice), and ASLR off. Prints one progress line per benchmark. The environment (toolchain,
valgrind, the library, glibc, CPU, ASLR state, commit) is recorded with the counts, so `irgate
check` can refuse to compare counts taken in different environments.

Benchmark ids are `group::function/id` (the bench file's name left out), so an id must be unique
across suites: a run refuses one found in two suites and names both. Suites may share a group:
its baseline file then holds the benchmarks of each.

With --from, nothing runs: the counts come from summary directories (every summary.json below
them) or irgate results files, possibly from several CI shards, merged into one. A benchmark
found twice is an error.";

const CHECK_ABOUT: &str = "\
Compare the latest results with baselines/ under the budgets of gate.toml, print the report, and
exit 0 when every budget holds, 1 when one is exceeded, 2 when the gate cannot decide.

Each gated metric (Ir by default) of each benchmark is over budget when it grew by more than the
larger of its relative and absolute allowance (default: +1% and at least +1 Ir). A benchmark
without a baseline fails unless --allow-new; an improvement beyond the budget means the baseline
is stale (fails with --strict); a baseline whose benchmark did not run is listed as vanished.
Results that miss a suite declared in gate.toml are refused (exit 2): run every suite. If the
environment differs from the baselines' in a field that changes counts (rustc, valgrind, the
library, glibc, CPU vendor or flags, ASLR...), the gate refuses to judge (exit 2) and names the
fields; --on-env-mismatch=warn shows the comparison without a verdict instead (exit 0), and
--on-env-mismatch=remeasure triages the drift: it builds and runs the baselines' commit (their
fingerprint's `commit`) here, beside the working tree, as `irgate run --base` does, reports per
benchmark what the environment moved (baseline -> that commit measured here) and what the code
moved (that commit measured here -> the working tree), and gates the code's move only.

--base compares with the base side of `irgate run --base REV` (A/B) instead of the baselines.

Change-aware verdicts: the compiled code of the results' build is compared, function by function,
with the code record of the compared side (the baselines' `code/record.json`, taken by `irgate run
--record`, or the A/B base's), and each benchmark is touched when its process executed a changed
function or may read a changed file (docs/selection.md). An untouched benchmark runs the same code:
a move beyond its budget but within the address budget ([layout] in gate.toml) passes as code
addresses; beyond that, the gate cannot blame the change and cannot decide (exit 2): the report
names it as the environment's or nondeterminism. Each failing benchmark names the changed
functions it runs. A change that cannot be mapped is said, and every benchmark is then held to its
budget. --no-change-map judges every benchmark as touched.

When every budget holds, the report is a short summary (the largest movers within budget);
--full prints every row.

With a [drift] budget in gate.toml, a benchmark also fails when it grew by more than that budget
since the anchor (a tag or commit recorded in the history, --history DIR), even if every single
change stayed within its own budget; its row says since when. If the anchor has no run in the
history, or its counts were taken in another environment, the gate cannot decide (exit 2).";

const REFRESH_ABOUT: &str = "\
Write the latest results into baselines/, one file per benchmark group, and show what changed.

Only the benchmarks in the results (and matching FILTER, if given) are written; the baselines of
benchmarks that did not run are kept (unless --prune). Files are replaced atomically, so an
interrupted refresh loses nothing. Review the diff and commit it: that is how a new baseline is
accepted on purpose.";

const DOCTOR_ABOUT: &str = "\
Print the environment of this machine (or container) as `irgate run` would record it, and compare
it field by field with the environment the baselines were taken in.

Fields that change which instructions run (toolchain, valgrind, the benchmark library, glibc and
its tunables, the CPU the benchmarks see and its code-path flags, ASLR) must match, or `irgate
check` refuses to compare (exit 2). The others (host CPU, environment, path, commit, date) are
shown for information.

`cpu` is the CPU as programs running under valgrind see it: valgrind presents its own CPU model to
them, and glibc and the crates choose their code paths by that model, not by the host's.

It also shows the runner `irgate run` would use for each suite's library ($GUNGRAUN_RUNNER or
$IAI_CALLGRIND_RUNNER, irgate's runner cache, or the PATH), which must be the library's exact
version.

Exit codes: 0 every field that matters matches (or there are no baselines yet) and every runner
is there, 2 one differs, a runner is missing or of another version, or the baselines cannot be
read.";

#[cfg(feature = "github")]
const COMMENT_ABOUT: &str = "\
Post the report of `irgate check --format json` as the pull request's one irgate comment (updated
in place on every run, found by a hidden marker), append it to the job's step summary
($GITHUB_STEP_SUMMARY) and print ::error annotations for failing benchmarks (under GitHub Actions).

The token comes from GITHUB_TOKEN and never appears in any output; it is only ever sent to the
API's host, GITHUB_API_URL (default https://api.github.com). Rate limits and server errors are
retried with backoff.

The exit code is the gate's own, read from the report (0 passed, 1 over budget, 2 undecided):
a failure to post is reported and does not change it.";

const EXPLAIN_ABOUT: &str = "\
Show where a benchmark's instructions went between its baseline and the latest run, function by
function: the functions whose self Ir changed most (baseline, new, change, and the inclusive
change), the rest summed as one line, renames and inlining changes shown as what they are, and a
differential flame graph (SVG) beside the results (target/irgate/flamegraphs/).

Reads the per-function profiles `irgate run` writes beside the results and the ones `irgate
refresh` stores in baselines/profiles/. `irgate check` does the same for every benchmark over
budget.";

const HISTORY_ADD_ABOUT: &str = "\
Record runs in the history: one file per run, runs/<date>-<commit>.json under --history (a
checkout of the history branch, in CI). Each RESULTS file (default: the latest results) becomes one
run; give several, oldest first, to import an existing series.

The commit and date come from the results' fingerprint (--commit names another commit, for one
file); results taken with uncommitted changes are refused. A run is added as a new file and never
replaces one: the same run recorded twice is reported and kept, a different run under the same
name is an error. So two pushes racing to the history branch write different files, and a
`git pull --rebase` before the push merges them.

--bisect FILE keeps with the run what `irgate bisect --good <previous recorded commit> --bad
<this commit> --format json` found: each commit that moved a count, with its subject, drawn on
the dashboard's charts. --report FILE keeps the benchmarks this run's JSON report judged
`unexplained` (moved beyond the address budget although the code identity said untouched):
possible selection bugs, marked on the dashboard. Both files are checked as untrusted input.";

const HISTORY_RENDER_ABOUT: &str = "\
Draw the history as a static, self-contained HTML site in --out (inline CSS and SVG, no script,
nothing fetched at view time; fits a laptop and a phone): index.html, the benchmarks whose Ir
moved most over the last --window runs and a line per group; group-<group>.html, every benchmark
of the group with a trend line of its Ir and its change, and for those that moved most a chart of
Ir and of every other recorded metric, with the runs that refreshed the baselines or changed the
environment marked; runs.html, every run with its commit (linked to --repo-url when given).
Publish it with GitHub Pages, or as an artifact.";

const RUNNER_INSTALL_ABOUT: &str = "\
Install the callgrind runner of every suite's library (gungraun-runner or iai-callgrind-runner, at
the library's exact version) that is not found yet, into irgate's runner cache: one directory per
version ($IRGATE_RUNNERS, else $XDG_CACHE_HOME/irgate/runners, else ~/.cache/irgate/runners), side
by side, so repositories needing different versions share a machine. The runner on the PATH is
never replaced.

`irgate run` uses, in this order: $GUNGRAUN_RUNNER (or $IAI_CALLGRIND_RUNNER) when set, which
must then be the exact version; the cache's runner of that version; the PATH's, when it is that
version. A runner already found is not installed again. Installing builds the runner with cargo
(about 3 minutes of CPU time; on 2 busy cores it took 12 min 45 s), with a progress line every 20 s:
the crates compiled and about how long is left.";

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
    /// Budget configuration, whose [[suite]]s are used [default: gate.toml]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

impl From<&RunnerArgs> for runner::Options {
    fn from(args: &RunnerArgs) -> Self {
        runner::Options {
            paths: Paths {
                config: args.config.clone(),
                ..Paths::default()
            },
        }
    }
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
    /// (e.g. https://github.com/OWNER/NAME)
    #[arg(long, value_name = "URL", value_parser = https_url)]
    pub repo_url: Option<String>,
}

const CALIBRATE_ABOUT: &str = "\
Build and run the suites several ways and compare their counts benchmark by benchmark. Each build
is a copy of the working tree at a scratch path exactly as long as the checkout's (counts move with
the length of the paths compiled into the binary), built there from nothing with irgate's
measurement build: `base` (as it is), `rebuild` (as it is, built again from nothing at the same
path: the reproducibility check), `version` (every workspace member one patch release higher, as
a release bumps it: other symbol hashes), `unrelated` (a function no benchmark calls added to every
member's library). Each build's results are written to <target>/irgate/calibrate/<variant>.json.
Given RESULTS files instead (`irgate run --results FILE` of builds made elsewhere), compares those
(a pair named base.json and rebuild.json is the reproducibility check); per-function profiles
among them (*.profiles.json) are skipped.

A benchmark whose count differs between `base` and `rebuild` has a build that is not reproducible
(a build script drawing random data into OUT_DIR, hash seeds): it is named, with the OUT_DIR files
that differed, never budgeted, and the exit code is 2 until gate.toml marks it `info`.

Prints every other benchmark whose Ir moved between the builds (layout-sensitive), with its
smallest and largest count, the spread and the builds it moved in, and the suggested budget: 1.5
times the spread (rounded up), at least 1 Ir, and no relative part (layout moves a count by a few
instructions whatever its size, so a relative slack only hides regressions of large benchmarks).

With --write, puts those budgets into gate.toml as [[overrides]] marked `# irgate calibrate`
(one per budget value) and the unreproducible benchmarks as a marked [[nondeterministic]] entry,
replacing the ones an earlier calibration wrote and keeping the rest of the file, comments
included. The builds must hold the same benchmarks, taken in one environment.";

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
    pub variants: Vec<crate::measure::calibrate::Variant>,
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

impl From<&PathArgs> for Paths {
    fn from(args: &PathArgs) -> Paths {
        Paths {
            config: args.config.clone(),
            baselines: args.baselines.clone(),
            results: args.results.clone(),
        }
    }
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
    /// Do not calibrate (building the suites twice more from nothing, to find benchmarks whose
    /// build is not reproducible); `irgate calibrate --write` does it later
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
    /// working tree mirrored beside it (<target>/irgate/ab/{base,head}/src: paths of one length,
    /// which counts depend on); its results go beside the working tree's (results.base.json), for
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
    /// from the baselines' code record (`code/record.json`, taken by `run --record`), or when it may
    /// read files at run time and a file changed that `[change] inert` does not name
    /// (docs/selection.md). The others are not run and keep the baselines' counts (`carried` in
    /// the results, said in every report). Without a record, or with a suite whose runner
    /// cannot run a selection (iai-callgrind), everything runs and irgate says why. With --base,
    /// the record must be of that revision. Needs gungraun 0.17 or later
    #[arg(long, conflicts_with = "from")]
    pub only_touched: bool,
    /// With --only-touched: build, list which benchmarks would run and the changed function (or
    /// file) that selects each, and run nothing
    #[arg(long, requires = "only_touched")]
    pub dry_run: bool,
    /// Also record what each benchmark's process executes, function by function, for `irgate
    /// refresh` to keep with the baselines (`code/record.json`): what --only-touched and change-aware
    /// verdicts compare against. Runs every benchmark a second time under callgrind (about as
    /// long again as the run). With --base, it records the base side, which `check --base`
    /// compares against
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
    /// Budget configuration (its suites and [change] inert) [default: gate.toml]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

impl From<&BisectArgs> for bisect::Options {
    fn from(args: &BisectArgs) -> Self {
        bisect::Options {
            filter: args.filter.clone(),
            good: args.good.clone(),
            bad: args.bad.clone(),
            max_builds: args.max_builds,
            suites: args.suites.clone(),
            features: args.features.clone(),
            jobs: args.jobs,
            json: args.format == BisectFormatArg::Json,
            paths: Paths {
                config: args.config.clone(),
                ..Paths::default()
            },
        }
    }
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

impl From<FormatArg> for Format {
    fn from(arg: FormatArg) -> Format {
        match arg {
            FormatArg::Table => Format::Table,
            FormatArg::Markdown => Format::Markdown,
            FormatArg::Json => Format::Json,
        }
    }
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
    /// The history (a checkout of the history branch), where gate.toml's [drift] anchor is
    /// recorded; needed when gate.toml has a [drift] budget
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
    /// Only a comment by this login counts as irgate's, e.g. 'github-actions[bot]'
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

impl Command {
    /// Runs the command: the dispatch table from each command line to its command's options.
    pub fn execute(&self) -> crate::error::Result<ExitCode> {
        match self {
            Command::Init(args) => init::execute(&args.into()),
            Command::Run(args) => run::execute(&args.into()),
            Command::Check(args) => check::execute(&args.into()),
            Command::Refresh(args) => refresh::execute(&args.into()),
            Command::Doctor(args) => doctor::execute(&args.into()),
            Command::Runner(RunnerCommand::Install(args)) => runner::install(&args.into()),
            Command::Runner(RunnerCommand::Path(args)) => runner::path(&args.into()),
            Command::Calibrate(args) => calibrate::execute(&args.into()),
            Command::Bisect(args) => bisect::execute(&args.into()),
            Command::Explain(args) => explain::execute(&args.into()),
            Command::History(HistoryCommand::Add(args)) => history::add(&args.into()),
            Command::History(HistoryCommand::Render(args)) => history::render(&args.into()),
            #[cfg(feature = "github")]
            Command::Comment(args) => comment::execute(&args.into()),
        }
    }
}

impl From<&InitArgs> for init::Options {
    fn from(args: &InitArgs) -> Self {
        init::Options {
            ci: args.ci,
            run: !args.no_run,
            calibrate: !args.no_calibrate,
            force: args.force,
            default_branch: args.default_branch.clone(),
        }
    }
}

impl From<&RunArgs> for run::Options {
    fn from(args: &RunArgs) -> Self {
        run::Options {
            filter: args.filter.clone(),
            from: args.from.clone(),
            suites: args.suites.clone(),
            features: args.features.clone(),
            jobs: args.jobs,
            base: args.base.clone(),
            shard: args.shard,
            only_touched: args.only_touched,
            dry_run: args.dry_run,
            record: args.record,
            paths: (&args.paths).into(),
        }
    }
}

impl From<&CheckArgs> for check::Options {
    fn from(args: &CheckArgs) -> Self {
        check::Options {
            format: args.format.into(),
            full: args.full,
            policy: Policy {
                strict: args.strict,
                allow_new: args.allow_new,
                on_env_mismatch: match args.on_env_mismatch {
                    EnvPolicyArg::Fail => EnvPolicy::Fail,
                    EnvPolicyArg::Warn => EnvPolicy::Warn,
                    EnvPolicyArg::Remeasure => EnvPolicy::Remeasure,
                },
            },
            base: args.base,
            change_map: !args.no_change_map,
            paths: (&args.paths).into(),
            history: args.history.clone(),
            dashboard_url: args.dashboard_url.clone(),
            max_chars: args.max_chars.map(|n| n as usize),
        }
    }
}

impl From<&RefreshArgs> for refresh::Options {
    fn from(args: &RefreshArgs) -> Self {
        refresh::Options {
            filter: args.filter.clone(),
            prune: args.prune,
            dry_run: args.dry_run,
            paths: (&args.paths).into(),
        }
    }
}

impl From<&DoctorArgs> for doctor::Options {
    fn from(args: &DoctorArgs) -> Self {
        doctor::Options {
            paths: (&args.paths).into(),
        }
    }
}

impl From<&CalibrateArgs> for calibrate::Options {
    fn from(args: &CalibrateArgs) -> Self {
        calibrate::Options {
            results: args.results.clone(),
            variants: args.variants.clone(),
            jobs: args.jobs,
            write: args.write,
            paths: Paths {
                config: args.config.clone(),
                ..Paths::default()
            },
        }
    }
}

impl From<&ExplainArgs> for explain::Options {
    fn from(args: &ExplainArgs) -> Self {
        explain::Options {
            benchmark: args.benchmark.clone(),
            format: args.format.into(),
            paths: (&args.paths).into(),
        }
    }
}

impl From<&HistoryAddArgs> for history::AddOptions {
    fn from(args: &HistoryAddArgs) -> Self {
        history::AddOptions {
            history: args.history.clone(),
            results: args.results.clone(),
            commit: args.commit.clone(),
            refreshed: args.refreshed,
            bisect: args.bisect.clone(),
            report: args.report.clone(),
            paths: Paths::default(),
        }
    }
}

impl From<&HistoryRenderArgs> for history::RenderOptions {
    fn from(args: &HistoryRenderArgs) -> Self {
        history::RenderOptions {
            history: args.history.clone(),
            out: args.out.clone(),
            site: Site {
                window: args.window,
                repo_url: args.repo_url.clone(),
            },
        }
    }
}

#[cfg(feature = "github")]
impl From<&CommentArgs> for comment::Options {
    fn from(args: &CommentArgs) -> Self {
        comment::Options {
            report: args.report.clone(),
            repo: args.repo.clone(),
            pr: args.pr,
            head_sha: args.head_sha.clone(),
            author: args.author.clone(),
            post: !args.no_post,
            load: args.load.clone(),
            dashboard_url: args.dashboard_url.clone(),
        }
    }
}

/// A revision given on the command line (`--base`): refused at once when git would read it as an
/// option ([`crate::git::revision`]).
fn revision(text: &str) -> std::result::Result<String, String> {
    crate::git::revision(text).map(str::to_owned)
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
