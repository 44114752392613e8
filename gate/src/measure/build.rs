//! How the suites are built: irgate's measurement build (one codegen unit, line tables, nothing
//! stripped, no incremental compilation), given to cargo so that it wins over the workspace's
//! profiles, or the workspace's bench profile as it is.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};

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

    /// Says which crates the last build linked with their symbols kept although their profile
    /// strips them ([`crate::measure::link`]): the code identity and per-function profiles read
    /// the symbol table, and lld refuses `--strip-all` beside `--emit-relocs`. Stripping changes
    /// no loaded byte, so the counts are those of the stripped build.
    pub(super) fn note_kept_symbols(&self) -> Result<()> {
        let Some(wrapper) = &self.wrapper else {
            return Ok(());
        };
        let kept = crate::measure::link::take_kept_symbols(wrapper)?;
        if !kept.is_empty() {
            crate::note!(
                "the bench profile strips symbols (`strip = true` or `\"symbols\"`), which the \
                 code identity and the profiles need: irgate linked {} with `strip = \"debuginfo\"` \
                 instead (stripping moves no loaded byte, so the counts are the same; docs/gate.md)",
                crate::text::terminal(&kept.join(", "))
            );
        }
        Ok(())
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
    pub(super) fn apply(&self, command: &mut Command) {
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
    crate::env::rustflags()
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
