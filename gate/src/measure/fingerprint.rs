//! The environment a set of counts was taken in: collecting it, and comparing two of them.
//!
//! Fields that change which instructions run (toolchain, valgrind, the benchmark library, glibc and its
//! tunables, the CPU the benchmarks see and its code-path flags, ASLR, the build settings) must match between a
//! baseline and a run for the comparison to mean anything; the rest (host CPU, environment, path,
//! commit, date) is recorded for people.

use std::path::Path;
use std::process::Command;

use crate::error::Result;
use crate::git::Commit;
use crate::measure::cpu;
use crate::measure::library::Library;
use crate::model::{Fingerprint, UNKNOWN};

/// The environment variable naming a JSON file that holds a fingerprint (the `fingerprint` object
/// of a results file): when it is set, [`collect`] reads that file and asks nothing of this
/// machine (no valgrind, rustc or git). A test hook: only a build with the `test-hooks` feature
/// (irgate's own tests) reads it, since counts taken with it set prove nothing.
#[cfg(feature = "test-hooks")]
pub const INJECTED: &str = "IRGATE_FINGERPRINT";

/// Collects the fingerprint of this machine, for suites written with `libraries`, built as
/// `build` describes and run with `glibc_tunables` from `workspace_root`. With the `test-hooks`
/// feature, the one the file named by `INJECTED` holds when it is set, an error when that file
/// cannot be read or is not a fingerprint.
pub fn collect(
    glibc_tunables: &str,
    workspace_root: &Path,
    libraries: &[Library],
    build: String,
) -> Result<Fingerprint> {
    #[cfg(feature = "test-hooks")]
    if let Some(path) = crate::env::injected_fingerprint() {
        return injected(Path::new(&path));
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

/// The fingerprint the file at `path` (named by [`INJECTED`]) holds.
#[cfg(feature = "test-hooks")]
fn injected(path: &Path) -> Result<Fingerprint> {
    use crate::error::Error;
    let text = std::fs::read_to_string(path).map_err(|e| Error::read(path, e))?;
    serde_json::from_str(&text).map_err(|e| {
        Error::invalid(
            format!("{} (named by {INJECTED})", path.display()),
            format!("not a fingerprint: {e}"),
        )
    })
}

/// The commit checked out at `root` as the fingerprint records it (`<hash>-dirty` when tracked
/// files have uncommitted changes); `unknown` outside a git repository.
pub fn commit(root: &Path) -> String {
    Commit::head(root).map_or_else(|| UNKNOWN.to_owned(), |c| c.to_string())
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
    crate::env::environment().unwrap_or_else(|| "host".to_owned())
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
