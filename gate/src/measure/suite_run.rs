//! Running one callgrind suite with the settings that make counts repeat, and reading its counts.
//!
//! The suite runs as `cargo bench -p PACKAGE --bench BENCH [--features F] -- ARGS`, with:
//! - a pinned cache model (`--callgrind-args`, [`CACHE_MODEL`]), so cache metrics do not depend on
//!   what valgrind detects on the host;
//! - `GLIBC_TUNABLES` in the benchmarks' cleared environment: through `--envs` where the runner
//!   has it (gungraun 0.18 and later), else through a `valgrind` wrapper first on the PATH, since
//!   older runners look valgrind up on the PATH and keep the wrapper's environment additions;
//! - ASLR off (`--allow-aslr=no`);
//! - valgrind's options from its command line only (`--command-line-only=yes`: no `.valgrindrc`,
//!   no `VALGRIND_OPTS`), and nothing else outside irgate that decides what is counted
//!   ([`settings_guard`](crate::measure::settings_guard));
//! - `--jobs` benchmarks at once (`--parallel`, gungraun 0.20): each runs in its own valgrind
//!   process, so counts are those of a serial run; the runner waits at the end of each group;
//! - summaries as JSON, one line per benchmark on stdout (`--output-format=json`);
//! - irgate's measurement build ([`Build`]) unless gate.toml opts out.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::config::metrics::IR;
use crate::config::suite::Suite;
use crate::error::{Error, Result};
use crate::filter;
use crate::formats::summary;
use crate::id::Origins;
use crate::measure::cargo::{build, cargo_bench, describe};
use crate::measure::library::{Kind, Library, find_on_path};
use crate::measure::patterns::{covering_patterns, runner_pattern};
use crate::measure::settings_guard::COMMAND_LINE_ONLY;
use crate::measure::shard;
use crate::model::{Counts, Processes};
use crate::text::thousands;

// The build and the settings a run takes, and the artifacts of its build, are found here by
// their callers; each has one home in a module of its own.
pub use crate::measure::build::{Build, MEASUREMENT_PROFILE};
pub use crate::measure::cargo::{Settings, artifacts, list};

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
    crate::env::glibc_tunables().unwrap_or_else(|| DEFAULT_GLIBC_TUNABLES.to_owned())
}

/// What a suite's run gave.
#[derive(Debug, Clone, Default)]
pub struct SuiteRun {
    /// Counts by benchmark id (those matching the filter, in the shard).
    pub benchmarks: BTreeMap<String, Counts>,
    /// The wall milliseconds of each, where the runner reports them.
    pub durations_ms: BTreeMap<String, u64>,
    /// What `benchmarks` holds for binary benchmarks.
    pub process: Processes,
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
    if settings.skip.is_some()
        && let Err(why) = library.skips()
    {
        return Err(Error::Tool(format!(
            "--only-touched: suite `{}`: {why}",
            suite.name()
        )));
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
            if settings.skip.is_some() {
                crate::note!(
                    "suite {}: not run: none of its benchmarks in scope is to run",
                    suite.name()
                );
            }
            return Ok(SuiteRun {
                benchmarks: BTreeMap::new(),
                durations_ms: BTreeMap::new(),
                process: Processes::default(),
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
    // afterwards (a selected run leaves out an iai-callgrind suite only whole, above).
    let patterns: Vec<Option<String>> = match &expected {
        Some((listed, expected)) if subset && library.filters_ids() => {
            covering_patterns(listed, expected)
                .into_iter()
                .map(Some)
                .collect()
        }
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
        crate::note!(
            "suite {}, shard {}: {} of its {} benchmarks, in {} runs of the runner",
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
        process,
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
        process,
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
    let mut command = cargo_bench(suite, library, settings)?;
    command
        .arg("--save-summary=json")
        .arg("--output-format=json")
        .arg("--allow-aslr=no")
        .arg(format!(
            "--callgrind-args={COMMAND_LINE_ONLY} {CACHE_MODEL} {callgrind}"
        ))
        .args(settings.dhat.then_some("--tools=dhat"))
        .args(
            settings
                .dhat
                .then(|| format!("--dhat-args={COMMAND_LINE_ONLY}")),
        )
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

/// The callgrind arguments of the record pass ([`record`]) of a suite written with `kind`. With
/// `--demangle=no`, the runner's own toggle (a pattern over demangled names) matches nothing;
/// collection starts at `main` instead and never stops, and each exit from the benchmark's wrapper
/// ([`Kind::wrapper_mod`]) dumps a part. The parts before the final one (dumped at program
/// termination) hold everything the process executed from `main` to the end of the measured
/// region: setup, argument expressions, lazy statics, the harness. `--show-below-main=yes` keeps
/// the real names of the code below `main` (else valgrind calls it `(below main)`, a name no
/// symbol has).
pub fn record_args(kind: Kind) -> String {
    format!(
        "--demangle=no --show-below-main=yes --toggle-collect=main --dump-after=*{}* \
         --dump-instr=yes",
        kind.wrapper_mod()
    )
}

/// Runs `suite`'s benchmarks that `settings`' filter selects again, under callgrind with
/// [`record_args`], into `settings.home` (which must be set: the record never mixes with the
/// measurement's files). Their counts are not read; `expected` ids are checked to have run. With
/// `observe` (strace and a file), it runs under strace, which writes what every process named into
/// that file ([`crate::measure::observe`]).
pub fn record(
    suite: &Suite,
    library: &Library,
    settings: &Settings,
    expected: &BTreeSet<String>,
    observe: Option<(&Path, &Path)>,
) -> Result<()> {
    if let Err(why) = library.records() {
        return Err(Error::Tool(format!(
            "suite `{}`: no code record: {why}",
            suite.name()
        )));
    }
    let pattern = settings.filter.and_then(runner_pattern);
    // DHAT has nothing to record.
    let settings = &Settings {
        dhat: false,
        ..settings.clone()
    };
    let command = runner_command(
        suite,
        library,
        settings,
        pattern.as_deref(),
        &record_args(library.kind),
    )?;
    crate::note!(
        "recording what each benchmark executes and reads: {}",
        describe(&command)
    );
    let mut command = match observe {
        Some((strace, trace)) => crate::measure::observe::observed(&command, strace, trace),
        None => command,
    };
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

/// Passes `GLIBC_TUNABLES` into the benchmarks' cleared environment: through `--envs` where the
/// runner has it, else through a `valgrind` wrapper first on the PATH.
fn pass_tunables(command: &mut Command, library: &Library, settings: &Settings) -> Result<()> {
    if library.passes_envs() {
        command.arg("--envs=GLIBC_TUNABLES");
    } else {
        let wrapper_dir = write_valgrind_wrapper(settings.scratch, settings.tunables)?;
        let mut dirs = vec![wrapper_dir];
        dirs.extend(crate::env::path_dirs());
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
    process: Processes,
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
    crate::note!("running {}", describe(&command));
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
        let counts = crate::formats::profiles::gated(&measurement, &mut read.process);
        let whole = match read.process.whole.get(&measurement.id) {
            Some(_) => format!(
                " (program; whole process {})",
                thousands(measurement.counts[IR])
            ),
            None => String::new(),
        };
        eprintln!(
            "{}{position} {:<48} {:>13} Ir{whole}",
            settings.label,
            measurement.id,
            thousands(counts[IR]),
        );
        if let Some(ms) = measurement.duration_ms {
            read.durations_ms.insert(measurement.id.clone(), ms);
        }
        read.benchmarks.insert(measurement.id, counts);
    }
    wait_for(child, suite, "cargo bench")
}

/// Writes `<scratch>/valgrind-wrapper/valgrind`, which runs the real valgrind with
/// `GLIBC_TUNABLES` set and the environment otherwise as it was given; returns its directory.
fn write_valgrind_wrapper(scratch: &Path, tunables: &str) -> Result<PathBuf> {
    let dir = scratch.join("valgrind-wrapper");
    let valgrind = find_on_path("valgrind", Some(&dir)).ok_or_else(|| {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wrapper_sets_the_tunables_and_runs_the_real_valgrind() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = write_valgrind_wrapper(scratch.path(), "glibc.cpu.x=1").unwrap();
        let script = std::fs::read_to_string(dir.join("valgrind")).unwrap();
        assert!(
            script.contains("exec /usr/bin/env -u PWD GLIBC_TUNABLES='glibc.cpu.x=1' '/"),
            "{script}"
        );
        let output = crate::measure::fresh_script::output(
            Command::new(dir.join("valgrind"))
                .arg("--version")
                .env_clear(),
        );
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
            let output = crate::measure::fresh_script::output(&mut command);
            let mut lines: Vec<String> = String::from_utf8(output.stdout)
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect();
            lines.sort();
            lines
        };
        let real = find_on_path("valgrind", Some(&dir)).unwrap();
        let through_wrapper = env_seen(&dir.join("valgrind"), None);
        assert!(through_wrapper.contains(&"GLIBC_TUNABLES=glibc.cpu.x=1".to_owned()));
        assert_eq!(through_wrapper, env_seen(&real, Some("glibc.cpu.x=1")));
    }
}
