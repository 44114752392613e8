//! What decides what callgrind counts is irgate's alone: every setting outside irgate that could
//! change it is refused, with its name and where it was set, or overridden, and said so
//! (docs/gate.md, "The measurement is irgate's").
//!
//! [`guard`] runs on every `cargo bench` irgate starts (a run, the record pass, calibration,
//! bisection, A/B: they all go through `measure::cargo::cargo_bench`), before it starts:
//! - cargo's configuration at every level cargo reads (`.cargo/config.toml` and `.cargo/config`
//!   in the directory cargo runs in and each one above it, `$CARGO_HOME/config.toml`, the files
//!   they `include`, and the command's own `--config`): an `[env]` entry that the runner reads
//!   (`GUNGRAUN_*`, `IAI_CALLGRIND_*`), that valgrind reads (`VALGRIND_*`), that reaches the
//!   measured process through the runner's clearing of its environment (`LD_*`), or that
//!   decides which programs run or what glibc does (`PATH`, `GLIBC_TUNABLES`) is refused, and
//!   so is a `[target.*] runner`;
//! - the gate.toml suite's runner arguments: an option that decides what is counted is refused;
//! - irgate's own environment: the runner's variables, `VALGRIND_OPTS`, `LD_PRELOAD` and
//!   `CARGO_TARGET_<TRIPLE>_RUNNER` are taken out of the command's environment, and a note says so.
//!
//! `.valgrindrc` (in the benchmark's directory or `$HOME`) and `VALGRIND_OPTS` are ignored by
//! valgrind itself: irgate passes `--command-line-only=yes` ([`COMMAND_LINE_ONLY`]).
//!
//! Every path and value here comes from the repository under test: untrusted text, to escape
//! where it is written.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::config::suite::Suite;
use crate::error::{Error, Result};
use crate::text::terminal;

/// The valgrind argument that makes it read its options from its command line only, never from
/// `VALGRIND_OPTS` or a `.valgrindrc` (in the benchmark's working directory or in `$HOME`).
pub const COMMAND_LINE_ONLY: &str = "--command-line-only=yes";

/// The prefixes of the runners' environment variables (gungraun, iai-callgrind).
const RUNNER_PREFIXES: [&str; 2] = ["GUNGRAUN_", "IAI_CALLGRIND_"];

/// The runner options that change only what the runner prints, never what is counted: the
/// environment and gate.toml may set them.
const SHOWN_ONLY: [&str; 6] = [
    "COLOR",
    "LOG",
    "SHOW_GRID",
    "SHOW_INTERMEDIATE",
    "SHOW_ONLY_COMPARISON",
    "TRUNCATE_DESCRIPTION",
];

/// The runner variables irgate sets itself where the user's environment does not (the runner
/// binary, the output directory): the environment may set them, a repository may not.
const OWN: [&str; 2] = ["RUNNER", "HOME"];

/// The runner option gate.toml's `[[suite]] args` may give besides those [`SHOWN_ONLY`]: the
/// variables passed into the benchmarks' environment (a change to the entry touches its
/// benchmarks, docs/selection.md).
const SUITE_MAY_SET: [&str; 1] = ["ENVS"];

/// Why an `[env]` entry of cargo's configuration named `key` is refused, if it is.
fn env_entry_refused(key: &str) -> Option<&'static str> {
    if let Some(option) = runner_option(key) {
        return (!SHOWN_ONLY.contains(&option))
            .then_some("the runner reads it, and its settings decide what callgrind counts");
    }
    if key.starts_with("VALGRIND_") {
        return Some("valgrind reads it, and irgate decides valgrind's settings");
    }
    if key.starts_with("LD_") {
        return Some(
            "the runner passes it into the measured process whatever it clears, and the code it \
             loads is in no record",
        );
    }
    match key {
        "PATH" => Some("it decides which runner and which valgrind run"),
        "GLIBC_TUNABLES" => Some("irgate sets it, and it moves glibc's counts"),
        _ => None,
    }
}

/// The runner option a variable named `key` sets (`GUNGRAUN_VALGRIND_ARGS`: `VALGRIND_ARGS`).
fn runner_option(key: &str) -> Option<&str> {
    RUNNER_PREFIXES
        .iter()
        .find_map(|prefix| key.strip_prefix(prefix))
        .filter(|option| !option.is_empty())
}

/// Whether irgate takes a variable of its own environment named `key` out of the suite's
/// `cargo bench`: it would decide what is counted.
fn overridden_in_environment(key: &str) -> bool {
    if let Some(option) = runner_option(key) {
        return !SHOWN_ONLY.contains(&option) && !OWN.contains(&option);
    }
    key == "VALGRIND_OPTS" || key == "LD_PRELOAD" || target_runner_variable(key)
}

/// `CARGO_TARGET_<TRIPLE>_RUNNER`: cargo's `[target.<triple>] runner`, set from the environment.
fn target_runner_variable(key: &str) -> bool {
    key.strip_prefix("CARGO_TARGET_")
        .and_then(|rest| rest.strip_suffix("_RUNNER"))
        .is_some_and(|triple| !triple.is_empty())
}

/// Refuses the settings outside irgate that would decide what `command` (a suite's `cargo
/// bench`, run in `root`) counts, and takes those of irgate's own environment out of it, saying
/// so once per process.
pub fn guard(command: &mut Command, root: &Path, suite: &Suite) -> Result<()> {
    refuse_suite_args(suite)?;
    refuse_config_flags(command)?;
    for file in config_files(root, crate::env::cargo_home().as_deref()) {
        refuse_in_config(&file)?;
    }
    let mut overridden: Vec<OsString> = crate::env::vars()
        .into_iter()
        .map(|(key, _)| key)
        .filter(|key| key.to_str().is_some_and(overridden_in_environment))
        .collect();
    overridden.sort();
    for key in &overridden {
        command.env_remove(key);
    }
    if !overridden.is_empty() {
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            crate::note!(
                "ignoring {} from the environment: what callgrind counts is irgate's to decide \
                 (docs/gate.md, \"The measurement is irgate's\")",
                overridden
                    .iter()
                    .map(|key| terminal(&key.to_string_lossy()).into_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        });
    }
    Ok(())
}

/// Refuses a runner option in `suite`'s `args` (gate.toml) that decides what is counted.
fn refuse_suite_args(suite: &Suite) -> Result<()> {
    for arg in &suite.args {
        let Some(option) = arg.strip_prefix("--") else {
            continue;
        };
        let name = option.split('=').next().unwrap_or_default();
        let upper = name.replace('-', "_").to_ascii_uppercase();
        if SHOWN_ONLY.contains(&upper.as_str()) || SUITE_MAY_SET.contains(&upper.as_str()) {
            continue;
        }
        return Err(Error::invalid(
            crate::paths::CONFIG_FILE,
            format!(
                "suite `{}` passes the runner `--{}`: the runner's settings decide what callgrind \
                 counts, and they are irgate's; remove it from `args`",
                terminal(&suite.name()),
                terminal(name)
            ),
        ));
    }
    Ok(())
}

/// Refuses a `--config` of `command` that sets `[env]` or a `[target]` key.
fn refuse_config_flags(command: &Command) -> Result<()> {
    let args: Vec<&OsStr> = command.get_args().collect();
    for pair in args.windows(2) {
        if pair[0] != "--config" {
            continue;
        }
        let value = pair[1].to_string_lossy();
        if value.starts_with("env.") || value.starts_with("target.") {
            return Err(Error::invalid(
                "--config",
                format!(
                    "`{}` would set cargo's [env] or [target] for the benchmarks: what callgrind \
                     counts is irgate's to decide",
                    terminal(&value)
                ),
            ));
        }
    }
    Ok(())
}

/// The configuration files cargo reads for a command run in `dir`, nearest first: in
/// `.cargo/` of `dir` and of each directory above it, then in `cargo_home` (each `config.toml`
/// and `config`, those that exist).
pub fn config_files(dir: &Path, cargo_home: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = dir.ancestors().map(|d| d.join(".cargo")).collect();
    dirs.extend(cargo_home.map(Path::to_path_buf));
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        for name in ["config.toml", "config"] {
            let file = dir.join(name);
            if file.is_file() && !files.contains(&file) {
                files.push(file);
            }
        }
    }
    files
}

/// Refuses what the cargo configuration file `file` (and the files it includes) sets that would
/// decide what is counted: [`env_entry_refused`] entries of `[env]`, and `[target.*] runner`.
fn refuse_in_config(file: &Path) -> Result<()> {
    refuse_in_config_at(file, 0)
}

/// [`refuse_in_config`], `depth` includes deep.
fn refuse_in_config_at(file: &Path, depth: usize) -> Result<()> {
    let origin = file.display();
    let text = std::fs::read_to_string(file).map_err(|source| Error::read(file, source))?;
    let table: toml::Table = toml::from_str(&text)
        .map_err(|e| Error::invalid(&origin, format!("cargo cannot read it either: {e}")))?;
    if let Some(reason) = refused_in(&table) {
        return Err(Error::invalid(&origin, reason));
    }
    let includes = match table.get("include") {
        None => Vec::new(),
        Some(toml::Value::String(path)) => vec![path.clone()],
        Some(toml::Value::Array(items)) => items
            .iter()
            .filter_map(|item| match item {
                toml::Value::String(path) => Some(path.clone()),
                toml::Value::Table(t) => t.get("path")?.as_str().map(str::to_owned),
                _ => None,
            })
            .collect(),
        Some(_) => Vec::new(),
    };
    let dir = file.parent().unwrap_or(Path::new("."));
    for include in includes {
        let included = dir.join(include);
        if depth >= 8 {
            return Err(Error::invalid(
                &origin,
                "includes nest deeper than 8 files: irgate cannot tell what they set",
            ));
        }
        if included.is_file() {
            refuse_in_config_at(&included, depth + 1)?;
        }
    }
    Ok(())
}

/// Why a cargo configuration (one file's table) may not be used for a measurement, if it may
/// not: the first entry it sets that decides what is counted.
pub fn refused_in(table: &toml::Table) -> Option<String> {
    if let Some(env) = table.get("env").and_then(toml::Value::as_table) {
        for key in env.keys() {
            if let Some(why) = env_entry_refused(key) {
                return Some(format!(
                    "`[env] {}`: {why}; irgate alone decides that, so it refuses to measure with \
                     this entry: remove it",
                    terminal(key)
                ));
            }
        }
    }
    if let Some(targets) = table.get("target").and_then(toml::Value::as_table) {
        for (target, settings) in targets {
            if settings.get("runner").is_some() {
                return Some(format!(
                    "`[target.{}] runner`: the benchmarks would run through another program, \
                     which decides what is counted; remove it (irgate runs them under its own \
                     runner and valgrind)",
                    terminal(target)
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;
