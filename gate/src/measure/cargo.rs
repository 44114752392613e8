//! A suite's `cargo bench`: how it runs ([`Settings`]), its command line, its build alone
//! (`--no-run`), the benchmarks it lists, the files it links, and a command as a shell line.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::config::suite::Suite;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::measure::build::Build;
use crate::measure::library::Library;
use crate::measure::patterns::listed_id;
use crate::measure::settings_guard;
use crate::measure::shard::Shard;

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

/// The binaries and shared objects `cargo bench` builds for `suite` (the bench binary, the
/// package's `[[bin]]` programs), from cargo's own messages: what the code identity reads.
pub fn artifacts(suite: &Suite, library: &Library, settings: &Settings) -> Result<Vec<PathBuf>> {
    let mut build = no_run(suite, library, settings)?;
    build
        .arg("--message-format=json-render-diagnostics")
        .stderr(Stdio::inherit());
    let output = built_output(&mut build, suite)?;
    settings.build.note_kept_symbols()?;
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

/// `cargo bench -p <package> --bench <bench> [--features F] --`, run from the workspace root;
/// refused when a setting outside irgate would decide what it counts ([`settings_guard`]).
pub(super) fn cargo_bench(
    suite: &Suite,
    library: &Library,
    settings: &Settings,
) -> Result<Command> {
    let mut command = Command::new(crate::env::cargo());
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
    settings_guard::guard(&mut command, settings.root, suite)?;
    command.arg("--");
    Ok(command)
}

/// The output of `command`, a cargo command that builds `suite`; an error naming it when it fails.
pub(super) fn built_output(command: &mut Command, suite: &Suite) -> Result<std::process::Output> {
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
pub(super) fn no_run(suite: &Suite, library: &Library, settings: &Settings) -> Result<Command> {
    let command = cargo_bench(suite, library, settings)?;
    // `--no-run` goes before `--`: rebuild the command's arguments without the separator.
    let args: Vec<_> = command
        .get_args()
        .filter(|a| *a != "--")
        .map(ToOwned::to_owned)
        .collect();
    let mut build = Command::new(command.get_program());
    build.current_dir(settings.root).args(args).arg("--no-run");
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => build.env(key, value),
            None => build.env_remove(key),
        };
    }
    Ok(build)
}

/// Builds the suite without running it (for runners that cannot list benchmarks).
pub(super) fn build(suite: &Suite, library: &Library, settings: &Settings) -> Result<()> {
    let mut build = no_run(suite, library, settings)?;
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
    settings.build.note_kept_symbols()
}

/// Every benchmark in the suite (`cargo bench ... -- --list`), which also builds it: its id and
/// its module path, `file::group::function[::id]`.
pub fn list(
    suite: &Suite,
    library: &Library,
    settings: &Settings,
) -> Result<Vec<(String, String)>> {
    let mut command = cargo_bench(suite, library, settings)?;
    command.arg("--list").stderr(Stdio::inherit());
    let output = built_output(&mut command, suite)?;
    settings.build.note_kept_symbols()?;
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
