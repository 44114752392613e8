//! Running one callgrind suite with the settings that make counts repeat, and reading its counts.
//!
//! The suite runs as `cargo bench -p PACKAGE --bench BENCH [--features F] -- ARGS`, with:
//! - a pinned cache model (`--callgrind-args`, [`CACHE_MODEL`]), so cache metrics do not depend on
//!   what valgrind detects on the host;
//! - `GLIBC_TUNABLES` in the benchmarks' cleared environment: through `--envs` where the runner
//!   has it (gungraun 0.18 and later), else through a `valgrind` wrapper first on the PATH, since
//!   older runners look valgrind up on the PATH and keep the wrapper's environment additions;
//! - ASLR off (`--allow-aslr=no`);
//! - `--jobs` benchmarks at once (`--parallel`, gungraun 0.20): each runs in its own valgrind
//!   process, so counts are those of a serial run; the runner waits at the end of each group;
//! - summaries as JSON, one line per benchmark on stdout (`--output-format=json`);
//! - irgate's measurement build ([`Build`]) unless gate.toml opts out.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::config::suite::Suite;
use crate::error::{Error, Result};
use crate::filter::{self, Filter};
use crate::formats::summary;
use crate::id::Origins;
use crate::measure::library::Library;
use crate::measure::shard::{self, Shard};
use crate::model::Counts;
use crate::text::thousands;

/// The `GLIBC_TUNABLES` used when the environment sets none: glibc then never switches memcpy and
/// memset to `rep movsb`/`rep stosb`, which callgrind counts as one instruction per byte, so
/// counts do not depend on the CPU's thresholds for that switch.
pub const DEFAULT_GLIBC_TUNABLES: &str =
    "glibc.cpu.x86_rep_movsb_threshold=4294967295:glibc.cpu.x86_rep_stosb_threshold=4294967295";

/// The cache model given to callgrind, so cache metrics and EstimatedCycles do not depend on what
/// valgrind detects on the host.
pub const CACHE_MODEL: &str = "--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64";

/// The `GLIBC_TUNABLES` the benchmarks run with: the environment's, else the default.
pub fn glibc_tunables() -> String {
    std::env::var("GLIBC_TUNABLES").unwrap_or_else(|_| DEFAULT_GLIBC_TUNABLES.to_owned())
}

/// The bench-profile settings of irgate's measurement build, as cargo configuration values: line
/// tables, so per-function profiles name functions and files; one codegen unit, so code the
/// benchmarks do not run (or a version bump, which changes every symbol hash) cannot re-partition
/// the crate and change inlining in code they do run; nothing stripped, since stripping would
/// remove the line tables. Incremental compilation is also off (`CARGO_INCREMENTAL=0`): it
/// partitions each crate into many codegen units of its own.
pub const MEASUREMENT_PROFILE: &[(&str, &str)] = &[
    ("codegen-units", "1"),
    ("debug", "\"line-tables-only\""),
    ("strip", "\"none\""),
];

/// Compiler flags in `RUSTFLAGS` that would undo the measurement build: cargo passes them after
/// the profile's.
const CONFLICTING_FLAGS: &[&str] = &["codegen-units", "debuginfo", "strip", "incremental"];

/// How the suites are built: irgate's measurement build ([`MEASUREMENT_PROFILE`], given to cargo
/// as `--config profile.bench.…`, which wins over the workspace's profiles, config files and
/// `CARGO_PROFILE_*` variables), or the workspace's bench profile as it is (`[build] measurement =
/// false`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build {
    /// Whether irgate's measurement build applies.
    measurement: bool,
    /// The packages the workspace manifest gives bench or release profile overrides for: the
    /// measurement settings are repeated for each, since an override wins over its profile.
    overridden: Vec<String>,
    /// The compiler flags the environment gives (`RUSTFLAGS` or `CARGO_ENCODED_RUSTFLAGS`).
    rustflags: Option<String>,
    /// The rustc wrapper that links the workspace's binaries for the code identity
    /// ([`crate::measure::link`]), once written.
    wrapper: Option<PathBuf>,
}

impl Build {
    /// The build of the workspace at `root`: the measurement build when `measurement`, else its
    /// bench profile. Refuses `RUSTFLAGS` that would undo the measurement build.
    pub fn new(measurement: bool, root: &Path) -> Result<Build> {
        Build::with_rustflags(measurement, root, environment_rustflags())
    }

    /// [`Build::new`] with the compiler flags the environment gives.
    fn with_rustflags(measurement: bool, root: &Path, rustflags: Option<String>) -> Result<Build> {
        if measurement
            && let Some(flags) = &rustflags
            && let Some(flag) = CONFLICTING_FLAGS.iter().find(|f| flags.contains(*f))
        {
            return Err(Error::Tool(format!(
                "RUSTFLAGS sets `{flag}`, which would undo irgate's measurement build (one codegen \
                 unit, line tables, nothing stripped): remove it from RUSTFLAGS, or build as the \
                 bench profile says with `[build] measurement = false` in gate.toml"
            )));
        }
        let overridden = if measurement {
            profile_overrides(&root.join("Cargo.toml"))?
        } else {
            Vec::new()
        };
        Ok(Build {
            measurement,
            overridden,
            rustflags,
            wrapper: None,
        })
    }

    /// This build, linked for the code identity through a wrapper written into `dir`.
    pub fn linked_for_identity(mut self, dir: &Path) -> Result<Build> {
        self.wrapper = Some(crate::measure::link::write_wrapper(dir)?);
        Ok(self)
    }

    /// What the fingerprint records: the settings, and the environment's `RUSTFLAGS`.
    pub fn describe(&self) -> String {
        let mut text = if self.measurement {
            let settings: Vec<String> = MEASUREMENT_PROFILE
                .iter()
                .map(|(key, value)| format!("{key}={}", value.trim_matches('"')))
                .collect();
            format!(
                "irgate measurement build: {} incremental=off",
                settings.join(" ")
            )
        } else {
            "the workspace's bench profile ([build] measurement = false)".to_owned()
        };
        if let Some(flags) = &self.rustflags {
            text.push_str(&format!("; RUSTFLAGS={flags}"));
        }
        text
    }

    /// The arguments and environment that give cargo this build.
    fn apply(&self, command: &mut Command) {
        if let Some(wrapper) = &self.wrapper {
            crate::measure::link::apply(command, wrapper);
        }
        if !self.measurement {
            return;
        }
        command.env("CARGO_INCREMENTAL", "0");
        for (key, value) in MEASUREMENT_PROFILE {
            command.args(["--config", &format!("profile.bench.{key}={value}")]);
        }
        for package in &self.overridden {
            for (key, value) in MEASUREMENT_PROFILE {
                command.args([
                    "--config",
                    &format!("profile.bench.package.\"{package}\".{key}={value}"),
                ]);
            }
        }
    }
}

/// The compiler flags of the environment, as cargo reads them: `CARGO_ENCODED_RUSTFLAGS` first
/// (its separators shown as spaces), else `RUSTFLAGS`; `None` when empty.
fn environment_rustflags() -> Option<String> {
    std::env::var("CARGO_ENCODED_RUSTFLAGS")
        .map(|flags| flags.replace('\x1f', " "))
        .or_else(|_| std::env::var("RUSTFLAGS"))
        .ok()
        .filter(|flags| !flags.trim().is_empty())
}

/// The packages `[profile.bench.package.*]` and `[profile.release.package.*]` of the manifest at
/// `manifest` name (the bench profile inherits the release profile's overrides); none when there
/// is no manifest (cargo says so when it builds).
fn profile_overrides(manifest: &Path) -> Result<Vec<String>> {
    let text = match std::fs::read_to_string(manifest) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::read(manifest, e)),
    };
    let table: toml::Table = toml::from_str(&text)
        .map_err(|e| Error::invalid(manifest.display(), e.message().to_owned()))?;
    let mut names: Vec<String> = ["bench", "release"]
        .iter()
        .filter_map(|profile| {
            table
                .get("profile")?
                .get(profile)?
                .get("package")?
                .as_table()
        })
        .flat_map(|packages| packages.keys().cloned())
        .filter(|name| !name.contains(['"', '\\']))
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

/// How to run a suite.
#[derive(Debug, Clone)]
pub struct Settings<'a> {
    /// The workspace root, where cargo runs.
    pub root: &'a Path,
    /// A directory irgate may write its helpers to (the `valgrind` wrapper).
    pub scratch: &'a Path,
    /// The `GLIBC_TUNABLES` to pass to the benchmarks.
    pub tunables: &'a str,
    /// Whether to run DHAT too.
    pub dhat: bool,
    /// Only benchmarks matching this filter.
    pub filter: Option<&'a Filter>,
    /// The library's output directory, instead of its default under the target directory.
    pub home: Option<&'a Path>,
    /// Cargo's target directory, instead of the workspace's.
    pub target: Option<&'a Path>,
    /// Put before each progress line, to tell apart suites that run at once (A/B).
    pub label: &'a str,
    /// How many benchmarks run at once, each in its own callgrind process (runners that cannot
    /// run them in parallel run one at a time).
    pub jobs: usize,
    /// How the suite is built.
    pub build: &'a Build,
    /// Only the benchmarks of this shard.
    pub shard: Option<&'a Shard>,
    /// Benchmarks not to run: they run none of the changed code (`run --only-touched`).
    pub skip: Option<&'a BTreeSet<String>>,
}

/// What a suite's run gave.
#[derive(Debug, Clone, Default)]
pub struct SuiteRun {
    /// Counts by benchmark id (those matching the filter, in the shard).
    pub benchmarks: BTreeMap<String, Counts>,
    /// The wall milliseconds of each, where the runner reports them.
    pub durations_ms: BTreeMap<String, u64>,
    /// Every benchmark the suite lists (empty when its runner cannot list).
    pub listed: Vec<String>,
}

/// Runs `suite` (written with `library`) and returns its counts. A suite with no benchmark
/// matching the filter (or in the shard) does not run.
pub fn run(suite: &Suite, library: &Library, settings: &Settings) -> Result<SuiteRun> {
    if settings.dhat && !library.runs_tools() {
        return Err(Error::Tool(format!(
            "suite `{}`: gate.toml names a DHAT metric, but {library} cannot run DHAT (iai-callgrind \
             0.15 and later can)",
            suite.name()
        )));
    }
    if let Some(shard) = settings.shard {
        shard::check_runner(&format!("--shard {}", shard.part), &suite.name(), library)?;
    }
    if settings.skip.is_some() {
        shard::check_runner("--only-touched", &suite.name(), library)?;
    }
    let in_scope = |id: &str| {
        filter::in_scope(settings.filter, id)
            && settings.shard.is_none_or(|s| s.contains(id))
            && settings.skip.is_none_or(|s| !s.contains(id))
    };
    let subset = settings.shard.is_some() || settings.skip.is_some();
    let expected = if library.lists() {
        let listed = list(suite, library, settings)?;
        let expected: BTreeSet<String> = listed
            .iter()
            .map(|(id, _)| id)
            .filter(|id| in_scope(id))
            .cloned()
            .collect();
        if expected.is_empty() && (settings.filter.is_some() || subset) {
            return Ok(SuiteRun {
                benchmarks: BTreeMap::new(),
                durations_ms: BTreeMap::new(),
                listed: listed.into_iter().map(|(id, _)| id).collect(),
            });
        }
        Some((listed, expected))
    } else {
        build(suite, library, settings)?;
        None
    };
    // A shard runs one pattern per group or function it holds whole, else per benchmark, since
    // gungraun takes one pattern. Else gungraun filters on `file::group::function::id`; ours is a
    // glob over `group::function/id`. Brace alternatives have no gungraun equivalent, and
    // iai-callgrind filters bench binaries only: then everything runs and irgate filters
    // afterwards.
    let patterns: Vec<Option<String>> = match &expected {
        Some((listed, expected)) if subset => covering_patterns(listed, expected)
            .into_iter()
            .map(Some)
            .collect(),
        _ => {
            let narrower = expected
                .as_ref()
                .is_none_or(|(listed, expected)| expected.len() < listed.len());
            vec![
                settings
                    .filter
                    .filter(|_| library.filters_ids() && narrower)
                    .and_then(runner_pattern),
            ]
        }
    };
    if let Some(shard) = settings.shard
        && let Some((listed, expected)) = &expected
    {
        eprintln!(
            "irgate: suite {}, shard {}: {} of its {} benchmarks, in {} runs of the runner",
            suite.name(),
            shard.part,
            expected.len(),
            listed.len(),
            patterns.len()
        );
    }
    let total = expected.as_ref().map(|(_, e)| e.len());
    let mut read = Read::default();
    for pattern in &patterns {
        let command = bench_command(suite, library, settings, pattern.as_deref())?;
        read_run(command, suite, settings, &in_scope, total, &mut read)?;
    }
    if let Some(error) = read.failure {
        return Err(error);
    }
    let Read {
        benchmarks,
        durations_ms,
        ..
    } = read;
    if let Some((_, expected)) = &expected {
        let missing: Vec<&str> = expected
            .iter()
            .filter(|id| !benchmarks.contains_key(*id))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(Error::Tool(format!(
                "suite `{}` listed benchmarks that produced no summary: {}",
                suite.name(),
                missing.join(", ")
            )));
        }
    }
    if benchmarks.is_empty() && settings.filter.is_none() && !subset {
        return Err(Error::Tool(format!(
            "suite `{}` ran no benchmark: is `{}` a callgrind suite?",
            suite.name(),
            suite.bench
        )));
    }
    Ok(SuiteRun {
        benchmarks,
        durations_ms,
        listed: expected
            .map(|(listed, _)| listed.into_iter().map(|(id, _)| id).collect())
            .unwrap_or_default(),
    })
}

/// The `cargo bench` command that runs the suite's benchmarks matching `pattern` (all without).
fn bench_command(
    suite: &Suite,
    library: &Library,
    settings: &Settings,
    pattern: Option<&str>,
) -> Result<Command> {
    // Instruction addresses let `profiles` charge inlined code to its own function.
    runner_command(suite, library, settings, pattern, "--dump-instr=yes")
}

/// `cargo bench` with the runner's arguments, `callgrind` after the pinned cache model.
fn runner_command(
    suite: &Suite,
    library: &Library,
    settings: &Settings,
    pattern: Option<&str>,
    callgrind: &str,
) -> Result<Command> {
    let mut command = cargo_bench(suite, library, settings);
    command
        .arg("--save-summary=json")
        .arg("--output-format=json")
        .arg("--allow-aslr=no")
        .arg(format!("--callgrind-args={CACHE_MODEL} {callgrind}"))
        .args(settings.dhat.then_some("--tools=dhat"))
        .args(
            library
                .runs_parallel()
                .then(|| format!("--parallel={}", settings.jobs)),
        )
        .args(&suite.args)
        .args(pattern)
        .env("GLIBC_TUNABLES", settings.tunables);
    pass_tunables(&mut command, library, settings)?;
    Ok(command)
}

/// The callgrind arguments of the record pass ([`record`]). With `--demangle=no`, gungraun's own
/// toggle (a pattern over demangled names) matches nothing; collection starts at `main` instead
/// and never stops, and each exit from the benchmark's wrapper dumps a part. The parts before the
/// final one (dumped at program termination) hold everything the process executed from `main`
/// to the end of the measured region: setup, argument expressions, lazy statics, the harness.
/// `--show-below-main=yes` keeps the real names of the code below `main` (else valgrind calls
/// it `(below main)`, a name no symbol has).
pub const RECORD_ARGS: &str = "--demangle=no --show-below-main=yes --toggle-collect=main \
     --dump-after=*__gungraun_wrapper_mod* --dump-instr=yes";

/// Runs `suite`'s benchmarks that `settings`' filter selects again, under callgrind with
/// [`RECORD_ARGS`], into `settings.home` (which must be set: the record never mixes with the
/// measurement's files). Their counts are not read; `expected` ids are checked to have run.
pub fn record(
    suite: &Suite,
    library: &Library,
    settings: &Settings,
    expected: &BTreeSet<String>,
) -> Result<()> {
    if !library.records() {
        return Err(Error::Tool(format!(
            "suite `{}` uses {library}: the code record needs gungraun 0.17 or later (its \
             benchmark wrapper marks where the measured region ends)",
            suite.name()
        )));
    }
    let pattern = settings.filter.and_then(runner_pattern);
    // DHAT has nothing to record.
    let settings = &Settings {
        dhat: false,
        ..settings.clone()
    };
    let mut command = runner_command(suite, library, settings, pattern.as_deref(), RECORD_ARGS)?;
    eprintln!(
        "irgate: recording what each benchmark executes: {}",
        describe(&command)
    );
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Tool(format!("cannot start cargo: {e}")))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut seen = BTreeSet::new();
    for (at, line) in BufReader::new(stdout).lines().enumerate() {
        let line = line.map_err(|e| Error::Tool(format!("cannot read cargo bench output: {e}")))?;
        if !line.starts_with('{') {
            eprintln!("{line}");
            continue;
        }
        let origin = format!("suite `{}`, record output line {}", suite.name(), at + 1);
        if let Ok(measurement) = summary::parse(line.as_bytes(), &origin)
            && expected.contains(&measurement.id)
        {
            seen.insert(measurement.id.clone());
            eprintln!(
                "{}[{}/{}] recorded {}",
                settings.label,
                seen.len(),
                expected.len(),
                measurement.id
            );
        }
    }
    wait_for(child, suite, "the record pass")
}

/// Waits for `cargo bench` of `suite` (`what` it was doing, for the error).
fn wait_for(mut child: std::process::Child, suite: &Suite, what: &str) -> Result<()> {
    let status = child
        .wait()
        .map_err(|e| Error::Tool(format!("cargo bench: {e}")))?;
    if !status.success() {
        return Err(Error::Tool(format!(
            "suite `{}`: {what} failed ({status}); its output is above",
            suite.name()
        )));
    }
    Ok(())
}

/// The binaries and shared objects `cargo bench` builds for `suite` (the bench binary, the
/// package's `[[bin]]` programs), from cargo's own messages: what the code identity reads.
pub fn artifacts(suite: &Suite, library: &Library, settings: &Settings) -> Result<Vec<PathBuf>> {
    let mut build = no_run(suite, library, settings);
    build
        .arg("--message-format=json-render-diagnostics")
        .stderr(Stdio::inherit());
    let output = built_output(&mut build, suite)?;
    Ok(linked_artifacts(&output.stdout))
}

/// The linked files cargo's JSON messages name: executables, and `.so` files of artifacts.
fn linked_artifacts(messages: &[u8]) -> Vec<PathBuf> {
    #[derive(serde::Deserialize)]
    struct Target {
        #[serde(default)]
        kind: Vec<String>,
    }
    #[derive(serde::Deserialize)]
    struct Message {
        reason: String,
        #[serde(default)]
        executable: Option<PathBuf>,
        #[serde(default)]
        filenames: Vec<PathBuf>,
        target: Option<Target>,
    }
    let mut found: Vec<PathBuf> = Vec::new();
    for line in messages.split(|b| *b == b'\n') {
        let Ok(message) = serde_json::from_slice::<Message>(line) else {
            continue;
        };
        if message.reason != "compiler-artifact" {
            continue;
        }
        // Shared objects the benchmarks can load; a proc-macro runs only while building.
        let loaded = message
            .target
            .is_some_and(|t| t.kind.iter().any(|k| k == "cdylib" || k == "dylib"));
        let shared = message
            .filenames
            .into_iter()
            .filter(|f| loaded && f.extension().is_some_and(|e| e == "so"));
        found.extend(message.executable.into_iter().chain(shared));
    }
    found.sort();
    found.dedup();
    found
}

/// Passes `GLIBC_TUNABLES` into the benchmarks' cleared environment: through `--envs` where the
/// runner has it, else through a `valgrind` wrapper first on the PATH.
fn pass_tunables(command: &mut Command, library: &Library, settings: &Settings) -> Result<()> {
    if library.passes_envs() {
        command.arg("--envs=GLIBC_TUNABLES");
    } else {
        let wrapper_dir = write_valgrind_wrapper(settings.scratch, settings.tunables)?;
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![wrapper_dir];
        dirs.extend(std::env::split_paths(&path));
        command.env(
            "PATH",
            std::env::join_paths(dirs).map_err(|e| Error::Tool(format!("PATH: {e}")))?,
        );
    }
    Ok(())
}

/// What the runs of a suite gave so far.
#[derive(Default)]
struct Read {
    benchmarks: BTreeMap<String, Counts>,
    durations_ms: BTreeMap<String, u64>,
    origins: Origins,
    /// The first summary that could not be read, reported after the runner is done.
    failure: Option<Error>,
    /// Output lines read, over every run: where a summary came from.
    lines: usize,
}

/// Runs `command` and reads the summaries it prints (one JSON line each) into `read`, keeping
/// those `in_scope`; every other line is passed on to stderr.
fn read_run(
    mut command: Command,
    suite: &Suite,
    settings: &Settings,
    in_scope: &dyn Fn(&str) -> bool,
    total: Option<usize>,
    read: &mut Read,
) -> Result<()> {
    eprintln!("irgate: running {}", describe(&command));
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Tool(format!("cannot start cargo: {e}")))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| Error::Tool(format!("cannot read cargo bench output: {e}")))?;
        read.lines += 1;
        if !line.starts_with('{') {
            eprintln!("{line}");
            continue;
        }
        let origin = format!("suite `{}`, output line {}", suite.name(), read.lines);
        let measurement = match summary::parse(line.as_bytes(), &origin) {
            Ok(m) => m,
            Err(e) => {
                read.failure.get_or_insert(e);
                continue;
            }
        };
        if !in_scope(&measurement.id) {
            continue;
        }
        if let Err(duplicate) = read.origins.insert(&measurement.id, origin) {
            read.failure.get_or_insert(duplicate);
            continue;
        }
        let position = match total {
            Some(total) => {
                let width = total.to_string().len();
                format!("[{:>width$}/{total}]", read.benchmarks.len() + 1)
            }
            None => format!("[{}]", read.benchmarks.len() + 1),
        };
        eprintln!(
            "{}{position} {:<48} {:>13} Ir",
            settings.label,
            measurement.id,
            thousands(measurement.counts["Ir"]),
        );
        if let Some(ms) = measurement.duration_ms {
            read.durations_ms.insert(measurement.id.clone(), ms);
        }
        read.benchmarks.insert(measurement.id, measurement.counts);
    }
    wait_for(child, suite, "cargo bench")
}

/// The fewest runner patterns, over the module paths of `listed` (id, `file::group::function
/// [::id]`), that run exactly the `wanted` ids: a group's pattern when it is wanted whole, else a
/// function's, else each benchmark's own path.
fn covering_patterns(listed: &[(String, String)], wanted: &BTreeSet<String>) -> Vec<String> {
    let whole = |same: &dyn Fn(&String) -> bool| {
        listed
            .iter()
            .filter(|(id, _)| same(id))
            .all(|(id, _)| wanted.contains(id))
    };
    let mut patterns = Vec::new();
    for (id, path) in listed.iter().filter(|(id, _)| wanted.contains(id)) {
        let segments: Vec<&str> = path.split("::").collect();
        let group = crate::id::group_of(id);
        let function = shard::unit_of(id);
        let pattern = if segments.len() >= 3 && whole(&|other| crate::id::group_of(other) == group)
        {
            format!("{}::{}::*", segments[0], segments[1])
        } else if segments.len() == 4 && whole(&|other| shard::unit_of(other) == function) {
            format!("{}::*", segments[..3].join("::"))
        } else {
            path.clone()
        };
        if !patterns.contains(&pattern) {
            patterns.push(pattern);
        }
    }
    patterns
}

/// gungraun's filter for one of ours: a glob over `group::function/id` becomes a pattern over
/// `file::group::function::id`; `None` for brace alternatives, which gungraun has no equivalent
/// for (everything runs then, and irgate filters afterwards).
fn runner_pattern(filter: &Filter) -> Option<String> {
    (!filter.text.contains(['{', '}'])).then(|| format!("*::{}", filter.text.replace('/', "::")))
}

/// `cargo bench -p <package> --bench <bench> [--features F] --`, run from the workspace root.
fn cargo_bench(suite: &Suite, library: &Library, settings: &Settings) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.current_dir(settings.root).args([
        "bench",
        "-p",
        &suite.package,
        "--bench",
        &suite.bench,
    ]);
    if !suite.features.is_empty() {
        command.args(["--features", &suite.features.join(",")]);
    }
    if let Some(home) = settings.home {
        command.env(library.kind.home_env(), home);
    }
    if let Some(runner) = library.cached_runner() {
        command.env(library.kind.runner_env(), runner);
    }
    if let Some(target) = settings.target {
        command.env("CARGO_TARGET_DIR", target);
    }
    settings.build.apply(&mut command);
    command.arg("--");
    command
}

/// The output of `command`, a cargo command that builds `suite`; an error naming it when it fails.
fn built_output(command: &mut Command, suite: &Suite) -> Result<std::process::Output> {
    let output = command
        .output()
        .map_err(|e| Error::Tool(format!("cannot start cargo: {e}")))?;
    if !output.status.success() {
        return Err(Error::Tool(format!(
            "building suite `{}` failed: {} ({})",
            suite.name(),
            describe(command),
            output.status
        )));
    }
    Ok(output)
}

/// `cargo bench ... --no-run`: the suite's build alone, with the same arguments and environment.
fn no_run(suite: &Suite, library: &Library, settings: &Settings) -> Command {
    let command = cargo_bench(suite, library, settings);
    // `--no-run` goes before `--`: rebuild the command's arguments without the separator.
    let args: Vec<_> = command
        .get_args()
        .filter(|a| *a != "--")
        .map(ToOwned::to_owned)
        .collect();
    let mut build = Command::new(command.get_program());
    build
        .current_dir(settings.root)
        .args(args)
        .arg("--no-run")
        .envs(command.get_envs().filter_map(|(k, v)| Some((k, v?))));
    build
}

/// Builds the suite without running it (for runners that cannot list benchmarks).
fn build(suite: &Suite, library: &Library, settings: &Settings) -> Result<()> {
    let mut build = no_run(suite, library, settings);
    let status = build
        .status()
        .map_err(|e| Error::Tool(format!("cannot start cargo: {e}")))?;
    if !status.success() {
        return Err(Error::Tool(format!(
            "building suite `{}` failed: {} ({status})",
            suite.name(),
            describe(&build)
        )));
    }
    Ok(())
}

/// Every benchmark in the suite (`cargo bench ... -- --list`), which also builds it: its id and
/// its module path, `file::group::function[::id]`.
fn list(suite: &Suite, library: &Library, settings: &Settings) -> Result<Vec<(String, String)>> {
    let mut command = cargo_bench(suite, library, settings);
    command.arg("--list").stderr(Stdio::inherit());
    let output = built_output(&mut command, suite)?;
    let ids: Vec<(String, String)> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            line.strip_suffix(": benchmark")
                .or_else(|| line.strip_suffix(": bench"))
        })
        .map(|path| (listed_id(path), path.to_owned()))
        .collect();
    if ids.is_empty() {
        return Err(Error::Tool(format!(
            "{} lists no benchmark: is `{}` a callgrind suite?",
            describe(&command),
            suite.bench
        )));
    }
    Ok(ids)
}

/// `file::group::function[::id]` as the runner lists it -> `group::function[/id]`.
fn listed_id(module_path: &str) -> String {
    let segments: Vec<&str> = module_path.split("::").collect();
    match segments.as_slice() {
        [_, group, function, id] => format!("{group}::{function}/{id}"),
        _ => summary::benchmark_id(module_path, None),
    }
}

/// Writes `<scratch>/valgrind-wrapper/valgrind`, which runs the real valgrind with
/// `GLIBC_TUNABLES` set and the environment otherwise as it was given; returns its directory.
fn write_valgrind_wrapper(scratch: &Path, tunables: &str) -> Result<PathBuf> {
    let dir = scratch.join("valgrind-wrapper");
    let valgrind = find_on_path("valgrind", &dir).ok_or_else(|| {
        Error::Tool("valgrind is not on the PATH: install the Debian package `valgrind`".into())
    })?;
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    // `sh` adds PWD to what it passes on; the runner cleared the environment, so take it out.
    let script = format!(
        "#!/bin/sh\n# Written by irgate: runs valgrind with GLIBC_TUNABLES in the benchmarks' \
         environment\n# (this runner has no --envs).\nexec /usr/bin/env -u PWD GLIBC_TUNABLES={} \
         {} \"$@\"\n",
        quote(tunables),
        quote(&valgrind.to_string_lossy())
    );
    let path = dir.join("valgrind");
    crate::formats::write_atomic(&path, script.as_bytes())?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .map_err(|source| Error::write(&path, source))?;
    Ok(dir)
}

/// The first executable `name` on the PATH outside `skip`.
fn find_on_path(name: &str, skip: &Path) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| dir != skip)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// A command as a shell line, for messages.
pub fn describe(command: &Command) -> String {
    let quote = |s: &std::ffi::OsStr| {
        let s = s.to_string_lossy();
        if s.contains([' ', '*', '\'']) {
            format!("'{s}'")
        } else {
            s.into_owned()
        }
    };
    let envs = command
        .get_envs()
        .filter(|(k, _)| *k != "PATH")
        .filter_map(|(k, v)| Some(format!("{}={}", k.to_string_lossy(), quote(v?))));
    let words = std::iter::once(quote(command.get_program())).chain(command.get_args().map(quote));
    envs.chain(words).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_globs_become_gungraun_patterns() {
        let pattern = |glob: &str| runner_pattern(&Filter::new(glob).unwrap());
        assert_eq!(pattern("frame::*").as_deref(), Some("*::frame::*"));
        assert_eq!(
            pattern("pipeline::*/b512").as_deref(),
            Some("*::pipeline::*::b512")
        );
        assert_eq!(
            pattern("varint::decode/v0").as_deref(),
            Some("*::varint::decode::v0")
        );
        assert_eq!(pattern("{frame,varint}::*"), None);
    }

    fn workspace(manifest: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
        dir
    }

    fn cargo_args(build: &Build) -> Vec<String> {
        let mut command = Command::new("cargo");
        build.apply(&mut command);
        command
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn the_measurement_build_wins_over_profiles_and_their_package_overrides() {
        let dir = workspace(
            "[workspace]\n[profile.bench]\nstrip = true\n[profile.release.package.codec]\n\
             codegen-units = 16\n[profile.bench.package.\"*\"]\ndebug = false\n",
        );
        let build = Build::with_rustflags(true, dir.path(), None).unwrap();
        let args = cargo_args(&build);
        for expected in [
            "profile.bench.codegen-units=1",
            "profile.bench.debug=\"line-tables-only\"",
            "profile.bench.strip=\"none\"",
            "profile.bench.package.\"codec\".codegen-units=1",
            "profile.bench.package.\"*\".debug=\"line-tables-only\"",
            "profile.bench.package.\"*\".strip=\"none\"",
        ] {
            assert!(args.contains(&expected.to_owned()), "{expected}: {args:?}");
        }
        assert_eq!(args.len(), 2 * 3 * 3);
        let mut command = Command::new("cargo");
        build.apply(&mut command);
        assert!(
            command
                .get_envs()
                .any(|(k, v)| k == "CARGO_INCREMENTAL" && v == Some("0".as_ref()))
        );
        assert_eq!(
            build.describe(),
            "irgate measurement build: codegen-units=1 debug=line-tables-only strip=none \
             incremental=off"
        );
    }

    #[test]
    fn opting_out_builds_as_the_profile_says_and_records_it() {
        let dir = workspace("[workspace]\n");
        let build =
            Build::with_rustflags(false, dir.path(), Some("-C codegen-units=4".into())).unwrap();
        assert!(cargo_args(&build).is_empty());
        assert_eq!(
            build.describe(),
            "the workspace's bench profile ([build] measurement = false); RUSTFLAGS=-C \
             codegen-units=4"
        );
    }

    #[test]
    fn rustflags_that_undo_the_measurement_build_are_refused() {
        let dir = workspace("[workspace]\n");
        let error = Build::with_rustflags(true, dir.path(), Some("-Ccodegen-units=16".into()))
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("RUSTFLAGS sets `codegen-units`, which would undo"),
            "{error}"
        );
        assert!(error.contains("[build] measurement = false"), "{error}");
        let build =
            Build::with_rustflags(true, dir.path(), Some("-C target-cpu=native".into())).unwrap();
        assert!(
            build
                .describe()
                .ends_with("; RUSTFLAGS=-C target-cpu=native"),
            "{}",
            build.describe()
        );
        let broken = workspace("[workspace\n");
        let error = Build::with_rustflags(true, broken.path(), None).unwrap_err();
        assert!(error.to_string().contains("Cargo.toml"), "{error}");
    }

    #[test]
    fn a_shard_runs_the_fewest_patterns_that_cover_exactly_its_benchmarks() {
        let listed: Vec<(String, String)> = [
            "cg::varint::encode::v0",
            "cg::varint::encode::v1",
            "cg::varint::decode::v0",
            "cg::frame::encode::b1",
            "cg::frame::encode::b2",
            "cg::frame::decode::b1",
            "cg::filter::alloc",
            "cg::filter::chain::n1",
        ]
        .iter()
        .map(|path| (listed_id(path), path.to_string()))
        .collect();
        let wanted = |ids: &[&str]| ids.iter().map(|id| id.to_string()).collect();
        assert_eq!(
            covering_patterns(
                &listed,
                &wanted(&[
                    "varint::encode/v0",
                    "varint::encode/v1",
                    "varint::decode/v0"
                ])
            ),
            ["cg::varint::*"]
        );
        assert_eq!(
            covering_patterns(
                &listed,
                &wanted(&["frame::encode/b1", "frame::encode/b2", "filter::alloc"])
            ),
            ["cg::frame::encode::*", "cg::filter::alloc"]
        );
        assert_eq!(
            covering_patterns(&listed, &wanted(&["frame::encode/b2", "filter::chain/n1"])),
            ["cg::frame::encode::b2", "cg::filter::chain::*"]
        );
    }

    #[test]
    fn listed_module_paths_become_ids() {
        assert_eq!(
            listed_id("callgrind::varint::encode::v0"),
            "varint::encode/v0"
        );
        assert_eq!(listed_id("callgrind::filter::alloc"), "filter::alloc");
    }

    #[test]
    fn the_wrapper_sets_the_tunables_and_runs_the_real_valgrind() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = write_valgrind_wrapper(scratch.path(), "glibc.cpu.x=1").unwrap();
        let script = std::fs::read_to_string(dir.join("valgrind")).unwrap();
        assert!(
            script.contains("exec /usr/bin/env -u PWD GLIBC_TUNABLES='glibc.cpu.x=1' '/"),
            "{script}"
        );
        let output = Command::new(dir.join("valgrind"))
            .arg("--version")
            .env_clear()
            .output()
            .unwrap();
        assert!(output.status.success());
        assert!(String::from_utf8_lossy(&output.stdout).starts_with("valgrind-"));
        // The benchmarked program sees the same environment as when the runner passes the
        // variable itself (`--envs`): the tunables, and nothing the wrapper added.
        let env_seen = |valgrind: &Path, tunables: Option<&str>| {
            let mut command = Command::new(valgrind);
            command
                .args(["-q", "--tool=none", "/usr/bin/env"])
                .env_clear();
            if let Some(value) = tunables {
                command.env("GLIBC_TUNABLES", value);
            }
            let mut lines: Vec<String> = String::from_utf8(command.output().unwrap().stdout)
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect();
            lines.sort();
            lines
        };
        let real = find_on_path("valgrind", &dir).unwrap();
        let through_wrapper = env_seen(&dir.join("valgrind"), None);
        assert!(through_wrapper.contains(&"GLIBC_TUNABLES=glibc.cpu.x=1".to_owned()));
        assert_eq!(through_wrapper, env_seen(&real, Some("glibc.cpu.x=1")));
    }
}
