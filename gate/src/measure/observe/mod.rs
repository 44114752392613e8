//! Observing what a benchmark's processes read: the record pass runs under strace, which sees
//! every process and thread from the bench binary's start (the harness's listing process, the
//! runner, each valgrind process and the program it runs, every child and thread) name every path
//! it opens, executes, stats, lists or tests. Each path is kept, per benchmark, with a digest of
//! what it held (docs/selection.md, "Observed inputs").

mod digest;
mod parse;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Command;

pub use digest::{ABSENT, KINDS, LISTING, UNNAMED_PATH, digest, is_listing, kind, now};
pub use parse::{Access, How, Trace, parse};

use crate::error::{Error, Result};
use crate::formats::summary;
use crate::measure::library::find_on_path;
use crate::model::code::{Executed, Observed};

/// The system calls strace is asked for: those that name a path (`%file`: open, stat, access,
/// readlink, exec...), those that start and end processes and threads (`%process`), and those
/// that list a directory or change to one through a descriptor.
pub const SYSCALLS: &str = "%file,%process,getdents,getdents64,fchdir";

/// Directories whose files are the environment's, not the repository's: the system's libraries,
/// programs and settings, the kernel's files, valgrind's own. The fingerprint (toolchain,
/// valgrind, glibc) covers them; they are counted, not compared.
const ENVIRONMENT: &[&str] = &[
    "/proc",
    "/sys",
    "/dev",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/libexec",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/usr/libexec",
    "/usr/share",
    "/usr/bin",
    "/usr/sbin",
    "/bin",
    "/sbin",
    "/etc",
];

/// strace, from the PATH; `None` (and a warning: the record pass then observes nothing, and
/// the coarse rule applies to what it records) when it is not there.
pub fn strace() -> Option<PathBuf> {
    let found = find_on_path("strace", None);
    if found.is_none() {
        crate::warning!(
            "strace is not on the PATH, so the record pass cannot observe what each benchmark \
             reads: its entries say only whether a benchmark may read files, and any changed \
             file that `[change] inert` does not name touches those (install the Debian package \
             `strace`)"
        );
    }
    found
}

/// `command`, run under `strace` ([`strace`]) into the file `trace`: every process and thread
/// it starts is followed (`-f`), each descriptor printed with its path (`-y`), whole strings
/// (`-s`), only the [`SYSCALLS`] stopped at (`--seccomp-bpf`).
pub fn observed(command: &Command, strace: &Path, trace: &Path) -> Command {
    let mut wrapped = Command::new(strace);
    wrapped
        .args(["-f", "-qq", "-y", "-s", "65536", "--seccomp-bpf", "-e"])
        .arg(format!("trace={SYSCALLS}"))
        .arg("-o")
        .arg(trace)
        .arg("--")
        .arg(command.get_program())
        .args(command.get_args());
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => wrapped.env(name, value),
            None => wrapped.env_remove(name),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        wrapped.current_dir(dir);
    }
    wrapped
}

/// Where a record pass ran: what its paths are relative to, and which are irgate's own.
#[derive(Debug, Clone)]
pub struct Place<'a> {
    /// The workspace root: paths under it are kept relative to it.
    pub root: &'a Path,
    /// Cargo's target directory: its objects with a code identity are compared by it.
    pub target: &'a Path,
    /// Directories of irgate's own (the record pass's output, irgate's scratch): never inputs.
    pub own: Vec<PathBuf>,
    /// Directories of the measurement's own programs (the runner's, the toolchain's, cargo's
    /// `bin`): the environment's, which the fingerprint names.
    pub tools: Vec<PathBuf>,
}

/// The processes (by id) of benchmark runs in `home` (the record pass's output): each
/// callgrind file names the process it was written by (`pid:`), and its summary the benchmark.
pub fn processes(home: &Path) -> Result<BTreeMap<u32, String>> {
    let mut found = BTreeMap::new();
    for summary_path in summary::find(home)? {
        let id = summary::read(&summary_path)?.id;
        let dir = summary_path.parent().unwrap_or(home);
        let entries = std::fs::read_dir(dir).map_err(|e| Error::read(dir, e))?;
        for entry in entries.filter_map(|e| e.ok()) {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if !(name.starts_with("callgrind.") && name.ends_with(".out")) {
                continue;
            }
            let path = entry.path();
            let file = std::fs::File::open(&path).map_err(|e| Error::read(&path, e))?;
            let pid = BufReader::new(file)
                .lines()
                .take(16)
                .map_while(|line| line.ok())
                .find_map(|line| line.strip_prefix("pid: ")?.trim().parse::<u32>().ok());
            if let Some(pid) = pid {
                found.insert(pid, id.clone());
            }
        }
    }
    Ok(found)
}

/// The paths named in `trace`, by benchmark: those of a process of a benchmark's run (one of
/// `runs`, by process id, or a process or thread it started) are that benchmark's; those of
/// every other process from the bench binary's start (the listing process, the runner) are each
/// of `ids`'. Processes before the bench binary's start (cargo's build) are not observed, nor a
/// `cargo` the harness starts outside any benchmark's run (gungraun's runner asks `cargo
/// metadata` for the workspace's root and target directory: what cargo reads there is the
/// build's, which the code identity covers).
pub fn attribute(
    trace: &Trace,
    target: &Path,
    runs: &BTreeMap<u32, String>,
    ids: &BTreeSet<String>,
) -> BTreeMap<String, Vec<Access>> {
    let is_bench = |argv: &Vec<String>| {
        argv.first()
            .is_some_and(|p| Path::new(p).starts_with(target))
            && argv.iter().any(|a| a == "--bench")
    };
    let is_cargo = |argv: &Vec<String>| {
        argv.first()
            .and_then(|p| Path::new(p).file_name())
            .is_some_and(|name| name == "cargo")
    };
    // The nearest of a process and its starters that is a benchmark's run or the bench binary.
    let owner = |pid: u32| -> Option<Option<&String>> {
        let mut at = pid;
        let mut cargo = false;
        for _ in 0..4096 {
            if let Some(id) = runs.get(&at) {
                return Some(Some(id));
            }
            let execs = trace.execs.get(&at);
            if execs.is_some_and(|e| e.iter().any(is_bench)) {
                return (!cargo).then_some(None);
            }
            cargo |= execs.is_some_and(|e| e.iter().any(is_cargo));
            at = *trace.parents.get(&at)?;
        }
        None
    };
    let mut owners: BTreeMap<u32, Option<Option<&String>>> = BTreeMap::new();
    let mut found: BTreeMap<String, Vec<Access>> =
        ids.iter().map(|id| (id.clone(), Vec::new())).collect();
    for access in &trace.accesses {
        let owned = *owners
            .entry(access.pid)
            .or_insert_with(|| owner(access.pid));
        match owned {
            None => {}
            Some(Some(id)) => {
                if let Some(list) = found.get_mut(id) {
                    list.push(access.clone());
                }
            }
            Some(None) => {
                for list in found.values_mut() {
                    list.push(access.clone());
                }
            }
        }
    }
    found
}

/// What `accesses` (one benchmark's, in order) say it read, as its record keeps it: each path's
/// digest now where a process opened it (a listing's where one listed it), its kind where they
/// only looked at it, or [`ABSENT`] where it was first found absent; leaving out what the run created
/// (a file it emptied or created first, anything in a directory it made), irgate's own files,
/// the objects of `executed` (compared by their code identity) and the environment's files,
/// which are counted. `digests` keeps what each path held, for the other benchmarks of the pass.
pub fn observe(
    accesses: &[Access],
    place: &Place,
    executed: &Executed,
    digests: &mut BTreeMap<String, String>,
) -> Observed {
    let mut first: BTreeMap<&Path, &Access> = BTreeMap::new();
    let (mut listed, mut opened): (BTreeSet<&Path>, BTreeSet<&Path>) = Default::default();
    for access in accesses {
        first.entry(&access.path).or_insert(access);
        match access.how {
            How::Listed => listed.insert(&access.path),
            How::Opened | How::Written => opened.insert(&access.path),
            _ => false,
        };
    }
    let made: Vec<&Path> = first
        .values()
        .filter(|a| a.how == How::Created && !a.absent)
        .map(|a| a.path.as_path())
        .collect();
    let identified = |path: &Path| {
        crate::measure::record::object_key(place.target, path).is_some_and(|key| {
            executed.functions.contains_key(&key) || executed.whole.contains(&key)
        })
    };
    let mut observed = Observed::default();
    for (path, access) in first {
        let inside_made = made.iter().any(|dir| path != *dir && path.starts_with(dir));
        // What the run made under a temporary directory has a name of its choosing (random):
        // its absence before says nothing.
        let temporary = ["/tmp", "/var/tmp"].iter().any(|t| path.starts_with(t));
        let output =
            access.how == How::Replaced || inside_made || (access.how == How::Created && temporary);
        if output || place.own.iter().any(|own| path.starts_with(own)) {
            continue;
        }
        if environment(path) || place.tools.iter().any(|tool| path.starts_with(tool)) {
            observed.environment += 1;
            continue;
        }
        // The objects the code identity compares; the checkout's root and the directories above
        // it, which are where the checkout is (its path's length is in the identity).
        if identified(path) || place.root.starts_with(path) {
            continue;
        }
        let key = match path.strip_prefix(place.root) {
            Ok(relative) if !relative.as_os_str().is_empty() => relative.to_str(),
            _ => path.to_str(),
        };
        let Some(key) = key else {
            observed
                .inputs
                .insert(path.to_string_lossy().into_owned(), UNNAMED_PATH.to_owned());
            continue;
        };
        let mut now = |key: String| {
            let held = digests
                .entry(key.clone())
                .or_insert_with(|| digest(place.root, &key))
                .clone();
            (key, held)
        };
        let (key, held) = if access.absent || access.how == How::Created {
            (key.to_owned(), ABSENT.to_owned())
        } else if opened.contains(path) {
            now(key.to_owned())
        } else {
            (key.to_owned(), kind(place.root, key).to_owned())
        };
        if listed.contains(path) && held != ABSENT {
            let (listing, held) = now(format!("{key}{LISTING}"));
            observed.inputs.insert(listing, held);
        }
        observed.inputs.insert(key, held);
    }
    observed
}

/// Whether `path` is the environment's ([`ENVIRONMENT`]).
fn environment(path: &Path) -> bool {
    ENVIRONMENT.iter().any(|dir| path.starts_with(dir))
}

#[cfg(test)]
mod tests;
