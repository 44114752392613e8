//! The benchmark library a callgrind suite is written with, gungraun or its old name
//! iai-callgrind, at a version: which runner it needs, and which runner arguments it understands.
//!
//! | library        | versions       | `--list` | `--tools` | `--envs` | filter on ids | summary |
//! |----------------|----------------|----------|-----------|----------|---------------|---------|
//! | iai-callgrind  | 0.12, 0.13     | no       | no        | no       | no            | v2      |
//! | iai-callgrind  | 0.14.0         | no       | no        | no       | no            | v3      |
//! | iai-callgrind  | 0.14.1, 0.14.2 | yes      | no        | no       | no            | v3      |
//! | iai-callgrind  | 0.15           | yes      | yes       | no       | no            | v4, v5  |
//! | iai-callgrind  | 0.16           | yes      | yes       | no       | no            | v6      |
//! | gungraun       | 0.17           | yes      | yes       | no       | yes           | v6      |
//! | gungraun       | 0.18, 0.19     | yes      | yes       | yes      | yes           | v6      |
//! | gungraun       | 0.20           | yes      | yes       | yes      | yes           | v7      |
//!
//! Every version takes `--save-summary=json`, `--output-format=json` (one summary per line on
//! stdout), `--allow-aslr=no` and `--callgrind-args`. Before gungraun, the positional filter
//! matches bench binary names, not benchmark ids. Read from each version's runner argument
//! definitions and summary models.

use std::fmt;
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

    /// The runner crate (and binary) name.
    pub fn runner(self) -> String {
        format!("{}-runner", self.crate_name())
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

    /// Whether the runner runs several benchmarks at once (`--parallel`, gungraun 0.20).
    pub fn runs_parallel(&self) -> bool {
        self.at_least(Kind::Gungraun, 20)
    }

    /// Whether the runner runs extra tools such as DHAT (`--tools`).
    pub fn runs_tools(&self) -> bool {
        self.at_least(Kind::IaiCallgrind, 15)
    }

    /// Whether the runner passes named variables into the benchmarks' cleared environment
    /// (`--envs`). Older runners find valgrind on the PATH, so irgate passes them through a
    /// `valgrind` wrapper there instead ([`crate::runner`]).
    pub fn passes_envs(&self) -> bool {
        self.at_least(Kind::Gungraun, 18)
    }

    /// The command that installs the matching runner.
    pub fn install_command(&self) -> String {
        format!(
            "cargo install {} --version {} --locked",
            self.kind.runner(),
            self.version
        )
    }

    /// The version of the runner `cargo bench` would use (`$<RUNNER_ENV>`, else the runner on
    /// the PATH), or `None` when there is none.
    ///
    /// Runners before gungraun 0.17.1 have no `--version`; asked to serve library version 0.0.0,
    /// every runner refuses with "<runner> (<its version>) is newer than ...".
    pub fn installed_runner(&self) -> Option<String> {
        let runner = std::env::var(self.kind.runner_env()).unwrap_or_else(|_| self.kind.runner());
        let output = Command::new(&runner).arg("--version").output().ok()?;
        if output.status.success() {
            return String::from_utf8_lossy(&output.stdout)
                .split_whitespace()
                .nth(1)
                .map(str::to_owned);
        }
        let output = Command::new(&runner)
            .arg("0.0.0")
            .env("IAI_CALLGRIND_COLOR", "never")
            .env("GUNGRAUN_COLOR", "never")
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&output.stderr);
        let (_, after) = text.split_once(" (")?;
        let (version, rest) = after.split_once(')')?;
        rest.trim_start()
            .starts_with("is newer than")
            .then(|| version.to_owned())
    }

    /// Stops with the exact install command when the runner is missing or of another version.
    pub fn check_runner(&self) -> Result<()> {
        let install = self.install_command();
        let runner = self.kind.runner();
        match self.installed_runner() {
            None => Err(Error::Tool(format!(
                "{runner} is not installed; the suite uses {self}, whose runner must be the same \
                 version: {install}"
            ))),
            Some(found) if found != self.version.to_string() => Err(Error::Tool(format!(
                "{runner} {found} does not match the suite's library, {self}: {install} --force"
            ))),
            Some(_) => Ok(()),
        }
    }
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
        assert_eq!(gun18.kind.runner_env(), "GUNGRAUN_RUNNER");
        assert_eq!(iai16.kind.runner_env(), "IAI_CALLGRIND_RUNNER");
        assert_eq!(
            iai16.install_command(),
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
}
