//! The code record of a build: what each benchmark's process executed, read from the record
//! pass's callgrind files ([`crate::measure::suite_run::record`]), and the code identity of the
//! objects the workspace built ([`crate::identity`]). docs/selection.md has the rule.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use irgate_callgrind::{CallGraph, Options};
use sha2::{Digest, Sha256};

use crate::config::metrics::IR;
use crate::error::Result;
use crate::formats::summary;
use crate::model::code::{Executed, Object};

/// The demangled path segment of gungraun's benchmark wrapper: its inclusive cost is the
/// measured region.
const WRAPPER: &str = "::__gungraun_wrapper_mod::";

/// Functions through which a program reads the file system, by their base name: a call to one
/// of them from the workspace's code means the benchmark may read files at run time (libc's own
/// calls, such as the start-up's read of `/proc/self/maps`, are not the workspace's and do not
/// count). glibc's aliases of one function differ from version to version (`open`, `open64`,
/// `__libc_open64`, `__open_2`...): [`file_function`] reads them all as one.
const FILE_FUNCTIONS: &[&str] = &[
    "open",
    "openat",
    "creat",
    "fopen",
    "freopen",
    "opendir",
    "fdopendir",
    "stat",
    "lstat",
    "fstatat",
    "xstat",
    "lxstat",
    "fxstatat",
    "statx",
    "access",
    "faccessat",
    "euidaccess",
    "eaccess",
    "readlink",
    "readlinkat",
    "realpath",
    "dlopen",
    "execve",
    "execv",
    "execvp",
    "execvpe",
    "execveat",
    "posix_spawn",
    "posix_spawnp",
    "fork",
    "vfork",
];

/// Whether `name` (as callgrind names a function, `@VERSION` and all) is one of
/// [`FILE_FUNCTIONS`] under any of glibc's aliases: leading underscores, `libc_` and `GI_`
/// prefixes, and `_nocancel`, `_chk`, `_2` and `64` suffixes dropped.
fn file_function(name: &str) -> bool {
    let mut name = name.split('@').next().unwrap_or_default();
    loop {
        let trimmed = name.trim_start_matches('_');
        let stripped = ["libc_", "GI_"]
            .iter()
            .find_map(|prefix| trimmed.strip_prefix(prefix));
        match stripped {
            Some(rest) => name = rest,
            None => {
                name = trimmed;
                break;
            }
        }
    }
    for suffix in ["_nocancel", "_chk", "_2", "64"] {
        name = name.strip_suffix(suffix).unwrap_or(name);
    }
    FILE_FUNCTIONS.contains(&name)
}

/// The most bytes the reader may hold for one record file.
const MAX_BYTES: usize = 512 << 20;

/// The key of the object at `path`, built into cargo's target directory `target`: its path
/// under it, `/`-separated, with cargo's hash suffix (`-` and 16 hex digits) dropped from the
/// file name; `None` for an object outside the target directory (the system's libraries, which
/// the environment's fingerprint covers).
pub fn object_key(target: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(target).ok()?;
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let name = parts.pop()?;
    let name = match name.rsplit_once('-') {
        Some((stem, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            stem.to_owned()
        }
        _ => match name.split_once('-') {
            // A shared object: `libname-<hash>.so`.
            Some((stem, rest))
                if rest.len() == 19
                    && rest.ends_with(".so")
                    && rest[..16].bytes().all(|b| b.is_ascii_hexdigit()) =>
            {
                format!("{stem}.so")
            }
            _ => name,
        },
    };
    parts.push(name);
    Some(parts.join("/"))
}

/// What the record pass found for one suite: each benchmark's record or why there is none, and
/// the objects they executed (key to file).
#[derive(Debug, Default)]
pub struct Found {
    /// By benchmark id.
    pub benchmarks: BTreeMap<String, Executed>,
    /// Why a benchmark has no record, by id.
    pub unrecorded: BTreeMap<String, String>,
    /// The objects the records name, by key.
    pub objects: BTreeMap<String, PathBuf>,
    /// The instructions any benchmark executed, by object key: the object's own addresses.
    pub executed: BTreeMap<String, BTreeSet<u64>>,
}

/// Reads the record pass's files under `home` (a gungraun output directory) for the benchmarks
/// in `measured` (id to measured Ir), whose objects were built into `target`. A benchmark whose
/// files cannot be read, or whose recorded region does not cost what was measured, has no
/// record but a reason: it counts as touched.
pub fn read(home: &Path, target: &Path, measured: &BTreeMap<String, u64>) -> Result<Found> {
    let mut found = Found::default();
    let mut seen = BTreeSet::new();
    for summary_path in summary::find(home)? {
        let id = summary::read(&summary_path)?.id;
        let Some(&ir) = measured.get(&id) else {
            continue;
        };
        seen.insert(id.clone());
        let dir = summary_path.parent().unwrap_or(home);
        let kind = summary::kind(&summary_path)?;
        match benchmark(dir, target, ir, &kind, &mut found.executed) {
            Ok((executed, objects)) => {
                found.objects.extend(objects);
                found.benchmarks.insert(id, executed);
            }
            Err(reason) => {
                crate::warning!(
                    "no code record of {}: {}",
                    crate::text::terminal(&id),
                    crate::text::terminal(&reason)
                );
                found.unrecorded.insert(id, reason);
            }
        }
    }
    for id in measured.keys().filter(|id| !seen.contains(*id)) {
        found.unrecorded.insert(
            id.clone(),
            "the record pass left no summary of it".to_owned(),
        );
    }
    Ok(found)
}

/// One benchmark's record from its files in `dir`.
fn benchmark(
    dir: &Path,
    target: &Path,
    measured: u64,
    kind: &summary::Kind,
    addresses: &mut BTreeMap<String, BTreeSet<u64>>,
) -> std::result::Result<(Executed, BTreeMap<String, PathBuf>), String> {
    let files = callgrind_files(dir)?;
    if files.is_empty() {
        return Err(format!("{}: no callgrind file", dir.display()));
    }
    let mut executed = Executed::default();
    let mut objects: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut region = 0u64;
    let mut parts = 0;
    for file in &files {
        let termination = trigger(file)?.is_none_or(|t| t == "Program termination");
        // After the measured region of a library benchmark: cannot move its count.
        if termination && matches!(kind, summary::Kind::Library) {
            continue;
        }
        parts += 1;
        let reader = std::fs::File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let options = Options {
            event: Some(IR.to_owned()),
            max_bytes: MAX_BYTES,
            lines: false,
        };
        let graph = irgate_callgrind::parse_with(BufReader::new(reader), &options)
            .map_err(|e| format!("{}: {e}", file.display()))?;
        region += add_graph(&graph, target, (&mut executed, addresses), &mut objects);
    }
    match kind {
        summary::Kind::Library => {
            if parts == 0 {
                return Err(
                    "the measured region never ended in the record (no part before the \
                            program's end)"
                        .to_owned(),
                );
            }
            if region != measured {
                return Err(format!(
                    "the record's measured region cost {region} Ir, the run counted {measured}: \
                     the record does not cover it (client requests or a custom entry point?)"
                ));
            }
        }
        summary::Kind::Binary { harness } => {
            // The program is the process; its setup ran in the harness, outside valgrind.
            executed.whole.extend(objects.keys().cloned());
            if let Some(key) = harness.as_deref().and_then(|h| object_key(target, h)) {
                objects.insert(key.clone(), harness.clone().unwrap_or_default());
                executed.whole.insert(key);
            }
            executed.reads_files = Some(
                "a binary benchmark: its setup and the program may read and write files".into(),
            );
        }
    }
    Ok((executed, objects))
}

/// Adds the functions `graph` executed in workspace objects to `executed` and their instructions'
/// addresses to `addresses` (their objects to `objects`), notes a call from them into the file
/// system; returns the inclusive Ir of the calls into gungraun's benchmark wrapper from outside
/// it (the measured region).
fn add_graph(
    graph: &CallGraph,
    target: &Path,
    (executed, addresses): (&mut Executed, &mut BTreeMap<String, BTreeSet<u64>>),
    objects: &mut BTreeMap<String, PathBuf>,
) -> u64 {
    let mut keys: Vec<Option<String>> = Vec::with_capacity(graph.nodes.len());
    for node in &graph.nodes {
        let key = object_key(target, Path::new(&*node.object));
        if let Some(key) = &key {
            objects
                .entry(key.clone())
                .or_insert_with(|| PathBuf::from(&*node.object));
        }
        keys.push(key);
    }
    let ran = |i: usize| graph.nodes[i].self_cost.iter().any(|c| *c > 0);
    let mut region = 0;
    for (i, node) in graph.nodes.iter().enumerate() {
        let inside = node.name.contains(WRAPPER);
        for (callee, call) in &node.calls {
            let target_node = &graph.nodes[*callee];
            if !inside && target_node.name.contains(WRAPPER) {
                region += call.cost.first().copied().unwrap_or(0);
            }
            if keys[i].is_some()
                && executed.reads_files.is_none()
                && file_function(&target_node.name)
            {
                executed.reads_files = Some(format!(
                    "`{}` calls `{}`",
                    crate::text::elide_generics(&node.name),
                    target_node.name
                ));
            }
        }
        if let Some(key) = &keys[i] {
            addresses.entry(key.clone()).or_default().extend(
                node.by_address
                    .iter()
                    .filter(|(_, costs)| costs.iter().any(|c| *c > 0))
                    .map(|(address, _)| address),
            );
        }
        if let Some(key) = &keys[i]
            && (ran(i) || !node.calls.is_empty())
        {
            executed
                .functions
                .entry(key.clone())
                .or_default()
                .insert(node.name.to_string());
        }
    }
    region
}

/// The `desc: Trigger:` of a callgrind file: why the part was dumped.
fn trigger(file: &Path) -> std::result::Result<Option<String>, String> {
    let reader = std::fs::File::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
    for line in BufReader::new(reader).lines().take(64) {
        let line = line.map_err(|e| format!("{}: {e}", file.display()))?;
        if let Some(trigger) = line.strip_prefix("desc: Trigger: ") {
            return Ok(Some(trigger.trim().to_owned()));
        }
        if line.starts_with("fn=") {
            break;
        }
    }
    Ok(None)
}

/// The callgrind files of one benchmark's record: `callgrind.*.out` with any part and thread
/// numbers.
fn callgrind_files(dir: &Path) -> std::result::Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut found: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("callgrind.") && n.ends_with(".out"))
        })
        .collect();
    found.sort();
    Ok(found)
}

/// The code identity of each object in `objects` (key to file), its paths normalized by `roots`;
/// an object irgate cannot read is left out with the reason. With the instructions that executed
/// in an object (`executed`, a record's), its functions keep only the data references that
/// executed instructions may hold.
pub fn identities(
    objects: &BTreeMap<String, PathBuf>,
    roots: &[PathBuf],
    executed: &BTreeMap<String, BTreeSet<u64>>,
) -> (BTreeMap<String, Object>, BTreeMap<String, String>) {
    let mut found = BTreeMap::new();
    let mut failed = BTreeMap::new();
    for (key, path) in objects {
        let identity = match checked_map(path) {
            Err(error) => Err(error),
            Ok(()) => match executed.get(key) {
                Some(addresses) => crate::identity::read_executed(path, roots, addresses),
                None => crate::identity::read(path, roots),
            },
        };
        match identity {
            Ok(identity) => {
                let mut object = object(identity);
                object.path = Some(path.clone());
                found.insert(key.clone(), object);
            }
            Err(error) => {
                failed.insert(key.clone(), error.to_string());
            }
        }
    }
    (found, failed)
}

/// The most bytes of a link map the identity reads.
const MAX_MAP_BYTES: u64 = 1 << 30;

/// Refuses the link map beside the object at `path` (which the identity reads whole) when it is
/// not a regular file or is larger than [`MAX_MAP_BYTES`]: a link to `/dev/zero` would be read
/// without end. No map is no error (the identity is then less precise, and says so).
fn checked_map(path: &Path) -> Result<()> {
    let map = crate::measure::link::map_path(path);
    let meta = match std::fs::metadata(&map) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        other => other.map_err(|e| crate::error::Error::read(&map, e))?,
    };
    let refused = |why: String| Err(crate::error::Error::invalid(map.display(), why));
    if !meta.is_file() {
        return refused(
            "the link map is not a regular file (a device, a pipe or a directory, or a link to \
             one): irgate does not read it"
                .to_owned(),
        );
    }
    if meta.len() > MAX_MAP_BYTES {
        return refused(format!(
            "the link map is larger than {MAX_MAP_BYTES} bytes: irgate does not read it"
        ));
    }
    Ok(())
}

/// An identity as a record keeps it, with the digest of the whole.
fn object(identity: crate::identity::Identity) -> Object {
    let mut hasher = Sha256::new();
    for (name, digest) in &identity.functions {
        hasher.update(name.as_bytes());
        hasher.update([0]);
        hasher.update(digest.as_bytes());
        hasher.update([b'\n']);
    }
    let whole: String = hasher.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Object {
        functions: identity.functions,
        whole,
        imprecise: identity.imprecise,
        parts: identity.parts,
        path: None,
    }
}

/// The directories whose paths are compiled into objects (panic locations,
/// `CARGO_MANIFEST_DIR`) and so replaced in the identity: the workspace root and cargo's home.
pub fn roots(root: &Path) -> Vec<PathBuf> {
    let mut roots = vec![root.to_owned()];
    if let Some(home) = crate::env::cargo_home() {
        roots.push(home);
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_functions_are_known_under_glibcs_aliases() {
        for name in [
            "open",
            "open64",
            "open64@@GLIBC_2.2.5",
            "__libc_open64",
            "__GI___open64_nocancel",
            "__open_2",
            "__open64_2",
            "openat64",
            "fopen64",
            "__xstat64",
            "statx",
            "__realpath_chk",
            "opendir",
            "posix_spawnp",
        ] {
            assert!(file_function(name), "{name}");
        }
        for name in [
            "malloc",
            "memcpy",
            "pthread_getattr_np",
            "openssl",
            "operator",
            "stats",
        ] {
            assert!(!file_function(name), "{name}");
        }
    }

    #[test]
    fn a_link_map_that_is_no_regular_file_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let object = dir.path().join("bench");
        std::fs::write(&object, b"not an object").unwrap();
        assert!(checked_map(&object).is_ok(), "no map: no error");
        std::os::unix::fs::symlink("/dev/zero", crate::measure::link::map_path(&object)).unwrap();
        let (found, failed) = identities(
            &BTreeMap::from([("release/bench".to_owned(), object)]),
            &[],
            &BTreeMap::new(),
        );
        assert!(found.is_empty());
        assert!(
            failed["release/bench"].contains("not a regular file"),
            "{failed:?}"
        );
    }

    #[test]
    fn object_keys_drop_cargos_hash_and_leave_the_system_out() {
        let target = Path::new("/w/target");
        let key = |p: &str| object_key(target, Path::new(p));
        assert_eq!(
            key("/w/target/release/deps/callgrind-0123456789abcdef").as_deref(),
            Some("release/deps/callgrind")
        );
        assert_eq!(key("/w/target/release/cli").as_deref(), Some("release/cli"));
        assert_eq!(
            key("/w/target/release/deps/libfoo-0123456789abcdef.so").as_deref(),
            Some("release/deps/libfoo.so")
        );
        assert_eq!(
            key("/w/target/release/deps/my-tool").as_deref(),
            Some("release/deps/my-tool")
        );
        assert_eq!(key("/usr/lib/x86_64-linux-gnu/libc.so.6"), None);
    }
}
