//! The benchmark library a callgrind suite is written with, gungraun or its old name
//! iai-callgrind, at a version: which runner it needs, and which runner arguments it understands.
//!
//! | library        | versions       | `--list` | `--tools` | `--envs` | filter on ids | summary | record |
//! |----------------|----------------|----------|-----------|----------|---------------|---------|--------|
//! | iai-callgrind  | 0.12, 0.13     | no       | no        | no       | no            | v2      | no     |
//! | iai-callgrind  | 0.14.0         | no       | no        | no       | no            | v3      | yes    |
//! | iai-callgrind  | 0.14.1, 0.14.2 | yes      | no        | no       | no            | v3      | yes    |
//! | iai-callgrind  | 0.15           | yes      | yes       | no       | no            | v4, v5  | yes    |
//! | iai-callgrind  | 0.16           | yes      | yes       | no       | no            | v6      | yes    |
//! | gungraun       | 0.17           | yes      | yes       | no       | yes           | v6      | yes    |
//! | gungraun       | 0.18, 0.19     | yes      | yes       | yes      | yes           | v6      | yes    |
//! | gungraun       | 0.20           | yes      | yes       | yes      | yes           | v7      | yes    |
//!
//! Every version takes `--save-summary=json`, `--output-format=json` (one summary per line on
//! stdout), `--allow-aslr=no` and `--callgrind-args`. Before gungraun, the positional filter (and
//! `$IAI_CALLGRIND_FILTER`, the same argument) is a substring of the bench binary's name, not of a
//! benchmark id, and nothing else selects benchmarks: a suite runs whole or not at all. Read from
//! each version's runner argument definitions and summary models.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};

/// gungraun or iai-callgrind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `iai-callgrind`, 0.12 to 0.16.
    IaiCallgrind,
    /// `gungraun`, 0.17 to 0.20.
    Gungraun,
}

impl Kind {
    /// The crate's name on crates.io.
    pub fn crate_name(self) -> &'static str {
        match self {
            Kind::IaiCallgrind => "iai-callgrind",
            Kind::Gungraun => "gungraun",
        }
    }

    /// The crate's name in Rust code.
    pub fn crate_ident(self) -> &'static str {
        match self {
            Kind::IaiCallgrind => "iai_callgrind",
            Kind::Gungraun => "gungraun",
        }
    }

    /// The environment variable that points the library at a runner binary.
    pub fn runner_env(self) -> &'static str {
        match self {
            Kind::IaiCallgrind => "IAI_CALLGRIND_RUNNER",
            Kind::Gungraun => "GUNGRAUN_RUNNER",
        }
    }

    /// The environment variable of the library's output directory.
    pub fn home_env(self) -> &'static str {
        match self {
            Kind::IaiCallgrind => "IAI_CALLGRIND_HOME",
            Kind::Gungraun => "GUNGRAUN_HOME",
        }
    }

    /// The library's output directory inside cargo's target directory when
    /// [`Kind::home_env`] is not set.
    pub fn default_home(self) -> &'static str {
        match self {
            Kind::IaiCallgrind => "iai",
            Kind::Gungraun => "gungraun",
        }
    }

    /// The runner crate (and binary) name.
    pub fn runner(self) -> String {
        format!("{}-runner", self.crate_name())
    }

    /// The module the library's `#[library_benchmark]` macro puts each benchmark's own function
    /// in (`<group>::<function>::<module>::<function>`), between the generated per-id function
    /// and the user's code: its exit marks where the measured region ends. Both libraries' macros
    /// generate it at every version irgate drives (iai-callgrind-macros 0.3 to 0.6, gungraun-macros
    /// 0.7 to 0.10).
    pub fn wrapper_mod(self) -> &'static str {
        match self {
            Kind::IaiCallgrind => "__iai_callgrind_wrapper_mod",
            Kind::Gungraun => "__gungraun_wrapper_mod",
        }
    }
}

/// A library at a version, e.g. gungraun 0.20.0.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Library {
    /// Which library.
    pub kind: Kind,
    /// Its version, as Cargo resolved it.
    pub version: semver::Version,
}

impl fmt::Display for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind.crate_name(), self.version)
    }
}

impl Library {
    /// The library a crate is, if it is one of the two.
    pub fn from_crate(name: &str, version: &semver::Version) -> Option<Library> {
        let kind = match name {
            "gungraun" => Kind::Gungraun,
            "iai-callgrind" => Kind::IaiCallgrind,
            _ => return None,
        };
        Some(Library {
            kind,
            version: version.clone(),
        })
    }

    /// Whether irgate drives this version: iai-callgrind 0.12 to 0.16, gungraun 0.17 to 0.20.
    pub fn check_supported(&self) -> Result<()> {
        let minor = (self.version.major, self.version.minor);
        let supported = match self.kind {
            Kind::IaiCallgrind => ((0, 12)..=(0, 16)).contains(&minor),
            Kind::Gungraun => ((0, 17)..=(0, 20)).contains(&minor),
        };
        if supported {
            Ok(())
        } else {
            Err(Error::Tool(format!(
                "{self} is not supported: irgate drives iai-callgrind 0.12 to 0.16 and gungraun \
                 0.17 to 0.20"
            )))
        }
    }

    fn at_least(&self, kind: Kind, minor: u64) -> bool {
        self.kind > kind || (self.kind == kind && self.version.minor >= minor)
    }

    /// Whether the runner lists benchmarks (`--list`, iai-callgrind 0.14.1 and later).
    pub fn lists(&self) -> bool {
        self.at_least(Kind::IaiCallgrind, 15)
            || (self.kind == Kind::IaiCallgrind && self.version >= semver::Version::new(0, 14, 1))
    }

    /// Whether the runner's positional filter matches benchmark ids (gungraun); before, it
    /// matches bench binary names.
    pub fn filters_ids(&self) -> bool {
        self.kind == Kind::Gungraun
    }

    /// Whether `run --only-touched` can leave benchmarks of a suite out: one by one where the
    /// runner filters on ids (gungraun), else whole suites (iai-callgrind 0.14.1 to 0.16), which
    /// takes the runner's listing to know the benchmarks of each. `Err` says why not.
    pub fn skips(&self) -> std::result::Result<(), String> {
        if self.lists() {
            Ok(())
        } else {
            Err(format!(
                "its runner ({self}) can neither run benchmarks by id nor list them, so irgate \
                 cannot tell which suite a benchmark is in (iai-callgrind 0.14.1 and later list)"
            ))
        }
    }

    /// Whether the runner runs several benchmarks at once (`--parallel`, gungraun 0.20).
    pub fn runs_parallel(&self) -> bool {
        self.at_least(Kind::Gungraun, 20)
    }

    /// Whether the runner runs extra tools such as DHAT (`--tools`).
    pub fn runs_tools(&self) -> bool {
        self.at_least(Kind::IaiCallgrind, 15)
    }

    /// Whether the code record can be taken (`run --record`): the benchmark wrapper
    /// ([`Kind::wrapper_mod`]) marks where the measured region ends, and callgrind writes each
    /// part of a run to a file of its own. iai-callgrind 0.12 and 0.13 force `--combine-dumps=yes`
    /// (every part in one file), so their record cannot tell the measured region from the rest:
    /// `Err` says so.
    pub fn records(&self) -> std::result::Result<(), String> {
        if self.at_least(Kind::IaiCallgrind, 14) {
            Ok(())
        } else {
            Err(format!(
                "{self}'s runner writes every part of a run into one callgrind file \
                 (--combine-dumps=yes), so the record cannot tell where the measured region ends: \
                 iai-callgrind 0.14 or later (or gungraun) records"
            ))
        }
    }

    /// Whether the runner passes named variables into the benchmarks' cleared environment
    /// (`--envs`). Older runners find valgrind on the PATH, so irgate passes them through a
    /// `valgrind` wrapper there instead ([`crate::measure::suite_run`]).
    pub fn passes_envs(&self) -> bool {
        self.at_least(Kind::Gungraun, 18)
    }

    /// The runner's directory in irgate's cache, `<cache>/<runner>-<version>`, where `irgate
    /// runner install` puts it (`cargo install --root`); `None` without a cache directory.
    pub fn cache_root(&self) -> Option<PathBuf> {
        let dir = runners_dir()?;
        Some(dir.join(format!("{}-{}", self.kind.runner(), self.version)))
    }

    /// The runner binary in irgate's cache, when `$<RUNNER_ENV>` does not name one and the
    /// cache holds it: what `cargo bench` must be pointed at (the PATH's runner is used
    /// otherwise).
    pub fn cached_runner(&self) -> Option<PathBuf> {
        if crate::env::var_os(self.kind.runner_env()).is_some() {
            return None;
        }
        let binary = self.cache_root()?.join("bin").join(self.kind.runner());
        binary.is_file().then_some(binary)
    }

    /// The `cargo install` command that puts the matching runner into irgate's cache, beside
    /// the other versions, without touching the PATH's runner.
    pub fn install_command(&self) -> Vec<String> {
        let mut command: Vec<String> = [
            "cargo",
            "install",
            &self.kind.runner(),
            "--version",
            &self.version.to_string(),
            "--locked",
        ]
        .map(str::to_owned)
        .to_vec();
        if let Some(root) = self.cache_root() {
            command.extend(["--root".to_owned(), root.display().to_string()]);
        }
        command
    }

    /// The runner `cargo bench` will use, which must be this version: `$<RUNNER_ENV>` when set,
    /// else irgate's cache, else the PATH. An error says what was found and how to get the
    /// right one side by side, never by replacing another version.
    pub fn runner(&self) -> Result<Runner> {
        let env = self.kind.runner_env();
        let cached = self
            .cache_root()
            .map(|r| r.join("bin").join(self.kind.runner()));
        self.find_runner(crate::env::var_os(env), cached.as_deref())
    }

    fn find_runner(&self, env_value: Option<OsString>, cached: Option<&Path>) -> Result<Runner> {
        let env = self.kind.runner_env();
        let wanted = self.version.to_string();
        let runner = self.kind.runner();
        if let Some(value) = env_value {
            let path = PathBuf::from(value);
            return match runner_version(path.as_os_str()) {
                Some(found) if found == wanted => Ok(Runner {
                    path,
                    source: Source::Env(env),
                }),
                found => Err(Error::Tool(format!(
                    "${env} points at {} ({}), but the suite uses {self}, whose runner must be \
                     {runner} {wanted}: point ${env} at that version, or unset it and run \
                     `irgate runner install`",
                    path.display(),
                    found.map_or("not a runner that answers".to_owned(), |v| format!(
                        "{runner} {v}"
                    )),
                ))),
            };
        }
        if let Some(path) = cached.filter(|p| p.is_file()) {
            return match runner_version(path.as_os_str()) {
                Some(found) if found == wanted => Ok(Runner {
                    path: path.to_owned(),
                    source: Source::Cache,
                }),
                found => Err(Error::Tool(format!(
                    "{}: irgate's cached {runner} answers {}, not {wanted}: delete {} and run \
                     `irgate runner install`",
                    path.display(),
                    found.as_deref().unwrap_or("nothing"),
                    path.parent()
                        .and_then(Path::parent)
                        .unwrap_or(path)
                        .display()
                ))),
            };
        }
        let on_path = find_on_path(&runner, None);
        let found = on_path.as_ref().and_then(|p| runner_version(p.as_os_str()));
        if let (Some(path), Some(found)) = (&on_path, &found)
            && *found == wanted
        {
            return Ok(Runner {
                path: path.clone(),
                source: Source::Path,
            });
        }
        let there = match (&on_path, &found) {
            (Some(path), Some(found)) => format!(
                "the PATH's {runner} ({}) is {found}, which irgate leaves alone (another \
                 project may need it); ",
                path.display()
            ),
            _ => format!("no {runner} on the PATH or in irgate's cache; "),
        };
        Err(Error::Tool(format!(
            "the suite uses {self}, whose runner must be {runner} {wanted}: {there}`irgate runner \
             install` installs it into irgate's cache beside any other version (cargo builds it: \
             about 3 minutes of CPU time, longer on busy cores: `{}`), or point ${env} at one",
            self.install_command().join(" ")
        )))
    }
}

/// A runner binary and where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runner {
    /// The binary.
    pub path: PathBuf,
    /// How it was found.
    pub source: Source,
}

/// Where a runner was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The library's runner variable (`GUNGRAUN_RUNNER`, `IAI_CALLGRIND_RUNNER`).
    Env(&'static str),
    /// irgate's runner cache.
    Cache,
    /// The PATH.
    Path,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Env(var) => write!(f, "${var}"),
            Source::Cache => f.write_str("irgate's cache"),
            Source::Path => f.write_str("the PATH"),
        }
    }
}

/// irgate's runner cache: `$IRGATE_RUNNERS`, else `$XDG_CACHE_HOME/irgate/runners`, else
/// `$HOME/.cache/irgate/runners`; `None` when none of them is set.
pub fn runners_dir() -> Option<PathBuf> {
    crate::env::runners_dir()
}

/// The first file `name` on the PATH, outside the directory `skip`.
pub fn find_on_path(name: &str, skip: Option<&Path>) -> Option<PathBuf> {
    crate::env::path_dirs()
        .into_iter()
        .filter(|dir| skip.is_none_or(|skip| dir != skip))
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// `command`'s output. A binary written a moment ago can still be open for writing in a child
/// another thread forked before exec (`ETXTBSY`, "text file busy"): that is tried again, a few
/// times, a few milliseconds apart.
fn output_of(command: &mut Command) -> std::io::Result<std::process::Output> {
    const ETXTBSY: i32 = 26;
    let mut tries = 0;
    loop {
        match command.output() {
            Err(error) if error.raw_os_error() == Some(ETXTBSY) && tries < 20 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(5 * tries));
            }
            result => return result,
        }
    }
}

/// The version a runner binary reports, or `None` when it does not answer as a runner.
///
/// Runners before gungraun 0.17.1 have no `--version`; asked to serve library version 0.0.0,
/// every runner refuses with "<runner> (<its version>) is newer than ...".
fn runner_version(runner: &std::ffi::OsStr) -> Option<String> {
    let output = output_of(Command::new(runner).arg("--version")).ok()?;
    if output.status.success() {
        return String::from_utf8_lossy(&output.stdout)
            .split_whitespace()
            .nth(1)
            .map(str::to_owned);
    }
    let output = output_of(
        Command::new(runner)
            .arg("0.0.0")
            .env("IAI_CALLGRIND_COLOR", "never")
            .env("GUNGRAUN_COLOR", "never"),
    )
    .ok()?;
    let text = String::from_utf8_lossy(&output.stderr);
    let (_, after) = text.split_once(" (")?;
    let (version, rest) = after.split_once(')')?;
    rest.trim_start()
        .starts_with("is newer than")
        .then(|| version.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library(name: &str, version: &str) -> Library {
        Library::from_crate(name, &semver::Version::parse(version).unwrap()).unwrap()
    }

    #[test]
    fn capabilities_follow_the_versions() {
        let iai12 = library("iai-callgrind", "0.12.3");
        let iai14 = library("iai-callgrind", "0.14.2");
        let iai16 = library("iai-callgrind", "0.16.1");
        let gun17 = library("gungraun", "0.17.2");
        let gun18 = library("gungraun", "0.18.0");
        assert!(!iai12.lists() && !iai12.runs_tools() && !iai12.passes_envs());
        assert!(!library("iai-callgrind", "0.14.0").lists());
        assert!(iai14.lists() && !iai14.runs_tools() && !iai14.filters_ids());
        assert!(iai16.runs_tools() && !iai16.passes_envs());
        assert!(gun17.lists() && !gun17.passes_envs() && gun17.filters_ids());
        assert!(gun18.passes_envs());
        assert!(gun17.records().is_ok() && iai16.records().is_ok() && iai14.records().is_ok());
        let refused = iai12.records().unwrap_err();
        assert!(
            refused.starts_with("iai-callgrind 0.12.3's runner writes every part")
                && refused.contains("iai-callgrind 0.14 or later"),
            "{refused}"
        );
        assert!(library("iai-callgrind", "0.13.4").records().is_err());
        // A selected run leaves out whole suites where the runner lists them, single benchmarks
        // where it also filters on ids.
        assert!(gun17.skips().is_ok() && iai14.skips().is_ok() && iai16.skips().is_ok());
        let unlisted = library("iai-callgrind", "0.14.0").skips().unwrap_err();
        assert!(
            unlisted.contains("(iai-callgrind 0.14.0) can neither run benchmarks by id nor list"),
            "{unlisted}"
        );
        assert!(iai12.skips().is_err());
        assert_eq!(gun18.kind.runner_env(), "GUNGRAUN_RUNNER");
        assert_eq!(iai16.kind.runner_env(), "IAI_CALLGRIND_RUNNER");
        assert_eq!(
            iai16.install_command()[..6].join(" "),
            "cargo install iai-callgrind-runner --version 0.16.1 --locked"
        );
        assert_eq!(iai16.to_string(), "iai-callgrind 0.16.1");
    }

    #[test]
    fn unsupported_versions_are_named() {
        assert!(library("gungraun", "0.20.0").check_supported().is_ok());
        assert!(library("iai-callgrind", "0.12.0").check_supported().is_ok());
        let error = library("iai-callgrind", "0.11.0")
            .check_supported()
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("iai-callgrind 0.11.0 is not supported"),
            "{error}"
        );
        assert!(library("gungraun", "0.21.0").check_supported().is_err());
        assert!(Library::from_crate("divan", &semver::Version::new(0, 1, 0)).is_none());
    }

    /// A stand-in runner at `dir/<runner>` that reports `version` as runners do.
    fn fake_runner(dir: &Path, name: &str, version: &str) -> PathBuf {
        let path = dir.join(name);
        crate::measure::fresh_script::write(
            &path,
            &format!("#!/bin/sh\necho '{name} {version}'\n"),
        );
        path
    }

    #[test]
    fn the_runner_variable_wins_and_must_be_the_exact_version() {
        let dir = tempfile::tempdir().unwrap();
        let lib = library("gungraun", "0.19.3");
        let right = fake_runner(dir.path(), "gungraun-runner", "0.19.3");
        let found = lib
            .find_runner(Some(right.clone().into_os_string()), None)
            .unwrap();
        assert_eq!(found.path, right);
        assert_eq!(found.source.to_string(), "$GUNGRAUN_RUNNER");

        let other = tempfile::tempdir().unwrap();
        let wrong = fake_runner(other.path(), "gungraun-runner", "0.18.0");
        let cached = fake_runner(dir.path(), "cached", "0.19.3");
        let error = lib
            .find_runner(Some(wrong.into_os_string()), Some(&cached))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("$GUNGRAUN_RUNNER points at")
                && error.contains("(gungraun-runner 0.18.0)")
                && error.contains("must be gungraun-runner 0.19.3"),
            "{error}"
        );
    }

    #[test]
    fn the_cache_serves_its_version_and_a_missing_runner_is_installed_beside_others() {
        let dir = tempfile::tempdir().unwrap();
        // No real runner answers for this version, whatever the PATH holds.
        let lib = library("gungraun", "0.17.9");
        let cached = fake_runner(dir.path(), "gungraun-runner", "0.17.9");
        let found = lib.find_runner(None, Some(&cached)).unwrap();
        assert_eq!((found.path, found.source), (cached, Source::Cache));

        let error = lib
            .find_runner(None, Some(&dir.path().join("absent")))
            .unwrap_err()
            .to_string();
        assert!(error.contains("`irgate runner install`"), "{error}");
        assert!(error.contains("must be gungraun-runner 0.17.9"), "{error}");
        assert!(!error.contains("--force"), "{error}");
    }

    #[test]
    fn a_cached_runner_of_another_version_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let lib = library("iai-callgrind", "0.13.9");
        let cached = fake_runner(dir.path(), "iai-callgrind-runner", "0.13.0");
        let error = lib
            .find_runner(None, Some(&cached))
            .unwrap_err()
            .to_string();
        assert!(error.contains("answers 0.13.0, not 0.13.9"), "{error}");
    }
}
