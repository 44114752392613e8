//! The environment a set of counts was taken in: collecting it, and comparing two of them.
//!
//! Fields that change which instructions run (toolchain, valgrind, the benchmark library, glibc and its
//! tunables, the CPU the benchmarks see and its code-path flags, ASLR, the build settings) must match between a
//! baseline and a run for the comparison to mean anything; the rest (host CPU, environment, path,
//! commit, date) is recorded for people.

use std::path::Path;
use std::process::Command;

use crate::cpu;
use crate::error::{Error, Result};
use crate::library::Library;
use crate::model::{FieldMismatch, Fingerprint, UNKNOWN};

/// The fields that must be equal between a baseline and a run.
pub const MUST_MATCH: &[&str] = &[
    "rustc",
    "rustc_commit",
    "target",
    "valgrind",
    "library",
    "glibc",
    "glibc_tunables",
    "cpu",
    "cpu_flags",
    "aslr",
    "build",
];

/// The fields that must also be equal when a cache metric is gated: the measured program's
/// memory layout follows the checkout path and the environment it runs in.
pub const MUST_MATCH_FOR_CACHE_METRICS: &[&str] = &["environment", "workspace_root"];

/// The environment variable naming a JSON file that holds a fingerprint (the `fingerprint` object
/// of a results file): when it is set, [`collect`] reads that file and asks nothing of this
/// machine (no valgrind, rustc or git). For tests only: counts taken with it set prove nothing.
pub const INJECTED: &str = "IRGATE_FINGERPRINT";

/// Collects the fingerprint of this machine, for suites written with `libraries`, built as
/// `build` describes and run with `glibc_tunables` from `workspace_root`; or the one the file
/// named by [`INJECTED`] holds, an error when that file cannot be read or is not a fingerprint.
pub fn collect(
    glibc_tunables: &str,
    workspace_root: &Path,
    libraries: &[Library],
    build: String,
) -> Result<Fingerprint> {
    if let Some(path) = std::env::var_os(INJECTED) {
        let path = Path::new(&path);
        let text = std::fs::read_to_string(path).map_err(|e| Error::read(path, e))?;
        return serde_json::from_str(&text).map_err(|e| {
            Error::invalid(
                format!("{} (named by {INJECTED})", path.display()),
                format!("not a fingerprint: {e}"),
            )
        });
    }
    // In the workspace: its rust-toolchain.toml picks the toolchain (an A/B base may pin another).
    let rustc =
        stdout_of(Command::new("rustc").arg("-vV").current_dir(workspace_root)).unwrap_or_default();
    let rustc_field = |key: &str| {
        rustc
            .lines()
            .find_map(|line| line.strip_prefix(key))
            .map(|value| value.trim().to_owned())
            .unwrap_or_else(|| UNKNOWN.to_owned())
    };
    let benchmarked = cpu::benchmarked();
    Ok(Fingerprint {
        rustc: rustc_field("release:"),
        rustc_commit: rustc_field("commit-hash:"),
        target: rustc_field("host:"),
        valgrind: first_line(command_output("valgrind", &["--version"])),
        library: library_field(libraries),
        glibc: glibc_version(),
        glibc_tunables: glibc_tunables.to_owned(),
        cpu: benchmarked.identity,
        cpu_flags: benchmarked.flags,
        host_cpu: cpu::host().identity,
        aslr: aslr_state().to_owned(),
        build,
        environment: environment(),
        workspace_root: workspace_root.display().to_string(),
        commit: commit(workspace_root),
        date: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    })
}

/// The commit checked out at `root`, with `-dirty` when tracked files have uncommitted changes;
/// `unknown` outside a git repository.
pub fn commit(root: &Path) -> String {
    let root = root.to_string_lossy();
    command_output("git", &["-C", &root, "rev-parse", "HEAD"])
        .map(|hash| {
            let dirty = command_output(
                "git",
                &["-C", &root, "status", "--porcelain", "--untracked-files=no"],
            )
            .is_some_and(|status| !status.trim().is_empty());
            format!("{}{}", hash.trim(), if dirty { "-dirty" } else { "" })
        })
        .unwrap_or_else(|| UNKNOWN.to_owned())
}

/// The fields of a fingerprint with their values as text, in declaration order.
pub fn fields(fingerprint: &Fingerprint) -> Vec<(&'static str, String)> {
    let Fingerprint {
        rustc,
        rustc_commit,
        target,
        valgrind,
        library,
        glibc,
        glibc_tunables,
        cpu,
        cpu_flags,
        host_cpu,
        aslr,
        build,
        environment,
        workspace_root,
        commit,
        date,
    } = fingerprint;
    vec![
        ("rustc", rustc.clone()),
        ("rustc_commit", rustc_commit.clone()),
        ("target", target.clone()),
        ("valgrind", valgrind.clone()),
        ("library", library.clone()),
        ("glibc", glibc.clone()),
        ("glibc_tunables", glibc_tunables.clone()),
        ("cpu", cpu.clone()),
        ("cpu_flags", cpu_flags.join(" ")),
        ("host_cpu", host_cpu.clone()),
        ("aslr", aslr.clone()),
        ("build", build.clone()),
        ("environment", environment.clone()),
        ("workspace_root", workspace_root.clone()),
        ("commit", commit.clone()),
        ("date", date.clone()),
    ]
}

/// Whether a differing `field` makes two sets of counts incomparable.
pub fn must_match(field: &str) -> bool {
    MUST_MATCH.contains(&field)
}

/// The must-match fields where `current` differs from `baseline`.
pub fn mismatches(baseline: &Fingerprint, current: &Fingerprint) -> Vec<FieldMismatch> {
    differences(baseline, current, must_match)
}

/// The fields a gated cache metric also needs equal, where `current` differs from `baseline`.
pub fn cache_mismatches(baseline: &Fingerprint, current: &Fingerprint) -> Vec<FieldMismatch> {
    differences(baseline, current, |field| {
        MUST_MATCH_FOR_CACHE_METRICS.contains(&field)
    })
}

fn differences(
    baseline: &Fingerprint,
    current: &Fingerprint,
    compared: impl Fn(&str) -> bool,
) -> Vec<FieldMismatch> {
    fields(baseline)
        .into_iter()
        .zip(fields(current))
        .filter(|((field, old), (_, new))| compared(field) && old != new)
        .map(|((field, old), (_, new))| FieldMismatch {
            field: field.to_owned(),
            baseline: old,
            current: new,
        })
        .collect()
}

/// The `library` field: the distinct libraries of the suites, e.g. `gungraun 0.20.0`.
pub fn library_field(libraries: &[Library]) -> String {
    let mut names: Vec<String> = libraries.iter().map(Library::to_string).collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        UNKNOWN.to_owned()
    } else {
        names.join(", ")
    }
}

/// Whether ASLR is off for processes started through `setarch -R`, as gungraun starts valgrind:
/// `off` when the kernel has it disabled or `setarch -R` sets `ADDR_NO_RANDOMIZE`, `on` when
/// `setarch` is missing or refused (Docker's default seccomp profile refuses that personality
/// call), `unknown` when the state cannot be read.
pub fn aslr_state() -> &'static str {
    const ADDR_NO_RANDOMIZE: u32 = 0x0040000;
    if std::fs::read_to_string("/proc/sys/kernel/randomize_va_space").is_ok_and(|v| v.trim() == "0")
    {
        return "off";
    }
    let Some(arch) = command_output("uname", &["-m"]) else {
        return UNKNOWN;
    };
    match Command::new("setarch")
        .args([arch.trim(), "-R", "cat", "/proc/self/personality"])
        .output()
    {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            match u32::from_str_radix(text.trim(), 16) {
                Ok(flags) if flags & ADDR_NO_RANDOMIZE != 0 => "off",
                Ok(_) => "on",
                Err(_) => UNKNOWN,
            }
        }
        _ => "on",
    }
}

/// `IRGATE_ENVIRONMENT` (the pinned image sets it to `container:<image>`), else `host`.
fn environment() -> String {
    std::env::var("IRGATE_ENVIRONMENT")
        .ok()
        .filter(|value| !value.is_empty())
        .unwrap_or_else(|| "host".to_owned())
}

/// glibc's version, e.g. `2.36`.
fn glibc_version() -> String {
    if let Some(out) = command_output("getconf", &["GNU_LIBC_VERSION"]) {
        // "glibc 2.36"
        if let Some(version) = out.split_whitespace().nth(1) {
            return version.to_owned();
        }
    }
    // "ldd (Debian GLIBC 2.36-9+deb12u14) 2.36"
    command_output("ldd", &["--version"])
        .and_then(|out| {
            out.lines()
                .next()?
                .split_whitespace()
                .last()
                .map(str::to_owned)
        })
        .unwrap_or_else(|| UNKNOWN.to_owned())
}

fn first_line(output: Option<String>) -> String {
    output
        .and_then(|out| out.lines().next().map(|line| line.trim().to_owned()))
        .filter(|line| !line.is_empty())
        .unwrap_or_else(|| UNKNOWN.to_owned())
}

/// The stdout of a successful command, or `None`.
fn command_output(program: &str, args: &[&str]) -> Option<String> {
    stdout_of(Command::new(program).args(args))
}

/// The standard output of `command`, if it ran and succeeded.
fn stdout_of(command: &mut Command) -> Option<String> {
    let out = command.output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Fingerprint {
        Fingerprint {
            rustc: "1.95.0".into(),
            valgrind: "valgrind-3.24.0".into(),
            cpu_flags: vec!["avx2".into(), "erms".into()],
            commit: "abc".into(),
            ..Fingerprint::default()
        }
    }

    #[test]
    fn mismatches_name_must_match_fields_only() {
        let baseline = sample();
        let mut current = sample();
        current.valgrind = "valgrind-3.19.0".into();
        current.cpu_flags.push("fsrm".into());
        current.commit = "def".into();
        current.host_cpu = "another".into();
        let found = mismatches(&baseline, &current);
        let names: Vec<_> = found.iter().map(|m| m.field.as_str()).collect();
        assert_eq!(names, ["valgrind", "cpu_flags"]);
        assert_eq!(found[0].baseline, "valgrind-3.24.0");
        assert_eq!(found[0].current, "valgrind-3.19.0");
        assert_eq!(found[1].current, "avx2 erms fsrm");
    }

    #[test]
    fn every_must_match_field_exists() {
        let names: Vec<_> = fields(&sample()).into_iter().map(|(n, _)| n).collect();
        for field in MUST_MATCH {
            assert!(names.contains(field), "{field}");
        }
    }
}
