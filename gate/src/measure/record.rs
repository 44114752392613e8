//! The code record of a build: what each benchmark's process executed, read from the record
//! pass's callgrind files ([`crate::measure::suite_run::record`]), and the code identity of the
//! objects the workspace built ([`irgate_identity`]). docs/selection.md has the rule.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use irgate_callgrind::{CallGraph, Options};
use sha2::{Digest, Sha256};

use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::formats::summary;
use crate::measure::library::Kind;
use crate::model::Counts;
use crate::model::code::{Executed, FILE_PREFIX, Keep, Object};

/// Functions through which a process reads the file system or starts a program that may, by their
/// base name: a call to one of them from any code of a benchmark's process (the workspace's, or a
/// system library's, such as zlib's `gzopen`) means the benchmark may read files at run time; the C
/// library's calls are not counted, only the calls into it ([`c_library`]). `syscall` is
/// here because Rust's standard library reaches `statx` through it. glibc's aliases of one
/// function differ from version to version (`open`, `open64`, `__libc_open64`, `__open_2`...):
/// [`file_function`] reads them all as one.
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
    "popen",
    "system",
    "execl",
    "execlp",
    "execle",
    "fexecve",
    "dlmopen",
    "scandir",
    "scandirat",
    "ftw",
    "nftw",
    "glob",
    "openat2",
    "open_by_handle_at",
    "name_to_handle_at",
    "tmpfile",
    "mkstemp",
    "mkostemp",
    "truncate",
    "statfs",
    "statvfs",
    "pathconf",
    "getxattr",
    "lgetxattr",
    "syscall",
];

/// Whether `name` (as callgrind names a function, `@VERSION` and all) is one of
/// [`FILE_FUNCTIONS`] under any of glibc's aliases ([`base_name`]).
fn file_function(name: &str) -> bool {
    FILE_FUNCTIONS.contains(&base_name(name))
}

/// A libc function's name as callgrind gives it, without glibc's decorations: `@VERSION`, leading
/// underscores, `libc_`, `GI_`, `IO_new_` and `IO_` prefixes (`_IO_new_popen` is `popen`), and
/// `_nocancel`, `_chk`, `_2` and `64` suffixes.
fn base_name(name: &str) -> &str {
    let mut name = name.split('@').next().unwrap_or_default();
    loop {
        let trimmed = name.trim_start_matches('_');
        let stripped = ["libc_", "GI_", "IO_new_", "IO_"]
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
    name
}

/// Whether the object at `object` is the C library's own (libc, libpthread, the dynamic loader):
/// its calls into file functions are not counted, because the call from outside into its entry
/// point (`fopen`, `popen`, `nftw`...) is what names the file. What it opens on its own are the
/// system's files: the shared libraries it loads, `/proc/self/maps` for the main thread's stack
/// guard, locale and time-zone data (docs/selection.md, limits).
fn c_library(object: &str) -> bool {
    let file = object.rsplit('/').next().unwrap_or(object);
    [
        "libc.so",
        "libc-",
        "libpthread",
        "ld-linux",
        "ld64.so",
        "ld.so",
    ]
    .iter()
    .any(|name| file.starts_with(name))
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

/// Reads the record pass's files under `home` (the output directory of a suite written with
/// `library`) for the benchmarks in `measured` (id to measured Ir), whose objects were built into
/// `target` in the workspace at `root`. A benchmark whose
/// files cannot be read, or whose recorded region does not cost what was measured, has no
/// record but a reason: it counts as touched.
pub fn read(
    home: &Path,
    (target, root): (&Path, &Path),
    library: Kind,
    measured: &BTreeMap<String, u64>,
) -> Result<Found> {
    // The demangled path segment of the benchmark wrapper: its inclusive cost is the measured
    // region.
    let wrapper = format!("::{}::", library.wrapper_mod());
    let mut found = Found::default();
    let mut seen = BTreeSet::new();
    let mut instances = BTreeMap::new();
    for summary_path in summary::find(home)? {
        let id = summary::read(&summary_path)?.id;
        let Some(&ir) = measured.get(&id) else {
            continue;
        };
        seen.insert(id.clone());
        let dir = summary_path.parent().unwrap_or(home);
        let kind = summary::kind(&summary_path)?;
        match benchmark(
            dir,
            (target, root, &wrapper),
            ir,
            &kind,
            (&mut found.executed, &mut instances),
        ) {
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

/// Why a library benchmark that measured 0 Ir has no record: its measured region is empty, so
/// no exit from the benchmark wrapper marks where it ends.
pub const MEASURED_NOTHING: &str = "it measured 0 Ir: the compiler folded its body away, so there \
     is no measured region to record (pass its inputs through `std::hint::black_box`)";

/// One benchmark's record from its files in `dir`.
fn benchmark(
    dir: &Path,
    (target, root, wrapper): (&Path, &Path, &str),
    measured: u64,
    kind: &summary::Kind,
    (addresses, instances): (&mut BTreeMap<String, BTreeSet<u64>>, &mut InstancesByObject),
) -> std::result::Result<(Executed, BTreeMap<String, PathBuf>), String> {
    if measured == 0 && matches!(kind, summary::Kind::Library) {
        return Err(MEASURED_NOTHING.to_owned());
    }
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
        let mut options = Options::default();
        options.event = Some(IR.to_owned());
        options.max_bytes = MAX_BYTES;
        let graph = irgate_callgrind::parse_with(BufReader::new(reader), &options)
            .map_err(|e| format!("{}: {e}", file.display()))?;
        region += add_graph(
            &graph,
            (target, root, wrapper),
            (&mut executed, addresses),
            (&mut objects, instances),
        );
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
                     client requests, or a count that does not repeat (docs/gate.md)?"
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

/// The generic instances each object (by file) tells apart ([`irgate_identity::instances`]), read
/// once per record pass; `None` for an object that could not be read (its functions keep the
/// names callgrind gives them, which its identity then lacks: they count as changed).
type InstancesByObject = BTreeMap<PathBuf, Option<irgate_identity::Instances>>;

/// Adds the functions `graph` executed in workspace objects to `executed` (each generic instance
/// by its own key, from the addresses that executed: callgrind names all of them alike) and their
/// instructions' addresses to `addresses` (their objects to `objects`), notes a call from any code
/// of the process outside the C library into the file system; returns the inclusive Ir of the
/// calls into the benchmark wrapper (`wrapper`, a segment of its demangled path) from outside it
/// (the measured region).
fn add_graph(
    graph: &CallGraph,
    (target, root, wrapper): (&Path, &Path, &str),
    (executed, addresses): (&mut Executed, &mut BTreeMap<String, BTreeSet<u64>>),
    (objects, instances): (&mut BTreeMap<String, PathBuf>, &mut InstancesByObject),
) -> u64 {
    let mut keys: Vec<Option<String>> = Vec::with_capacity(graph.nodes.len());
    for node in &graph.nodes {
        let path = Path::new(&*node.object);
        let key = object_key(target, path);
        if key.is_none()
            && let Some(file) = repository_file(root, path)
            && node.self_cost.iter().any(|c| *c > 0)
        {
            executed.whole.insert(file);
        }
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
        let inside = node.name.contains(wrapper);
        for (callee, call) in &node.calls {
            let target_node = &graph.nodes[*callee];
            if !inside && target_node.name.contains(wrapper) {
                region += call.cost.first().copied().unwrap_or(0);
            }
            if executed.reads_files.is_none()
                && file_function(&target_node.name)
                && !c_library(&node.object)
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
            let name = irgate_callgrind::recursion_level(&node.name).0;
            let file = Path::new(&*node.object);
            if !instances.contains_key(file) {
                instances.insert(file.to_owned(), irgate_identity::instances(file).ok());
            }
            let known = &instances[file];
            let ran_at = node
                .by_address
                .iter()
                .filter(|(_, costs)| costs.iter().any(|c| *c > 0))
                .map(|(address, _)| address);
            let names = known
                .as_ref()
                .and_then(|known| known.at(name, ran_at))
                .unwrap_or_else(|| BTreeSet::from([name.to_owned()]));
            executed
                .functions
                .entry(key.clone())
                .or_default()
                .extend(names);
        }
    }
    region
}

/// The dependency of a benchmark that executed code of the object at `path`, when the object is
/// a file of the workspace at `root` built by no one (a prebuilt shared library committed in the
/// repository): `file:` and its path from the root. It is code, compared whole: the benchmark is
/// touched when the change alters that file. `None` for an object elsewhere (the system's).
fn repository_file(root: &Path, path: &Path) -> Option<String> {
    let relative = match path.strip_prefix(root) {
        Ok(relative) => relative.to_owned(),
        Err(_) => {
            let canonical = root.canonicalize().ok()?;
            path.canonicalize()
                .ok()?
                .strip_prefix(&canonical)
                .ok()?
                .to_owned()
        }
    };
    Some(format!("{}{}", FILE_PREFIX, relative.to_string_lossy()))
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

/// Whether a record pass may keep `id`'s entry of `keep` for this run of it, which measured
/// `counts` in a build of `objects` (by key): the change left it untouched, its entry counted the
/// same instructions (Ir; the cache metrics move with addresses, the code executed does not), and
/// every object the entry names was built here.
pub fn keeps(keep: &Keep, id: &str, counts: &Counts, objects: &BTreeMap<String, PathBuf>) -> bool {
    let Some(entry) = keep.record.benchmarks.get(id) else {
        return false;
    };
    let built = |key: &String| key.starts_with(FILE_PREFIX) || objects.contains_key(key);
    keep.untouched.contains(id)
        && entry
            .counts
            .get(IR)
            .is_some_and(|ir| counts.get(IR) == Some(ir))
        && entry.functions.keys().all(built)
        && entry.whole.iter().all(built)
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
                Some(addresses) => irgate_identity::read_executed(path, roots, addresses),
                None => irgate_identity::read(path, roots),
            }
            .map_err(Error::from),
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
fn object(identity: irgate_identity::Identity) -> Object {
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
        functions: crate::model::code::with_unnamed(identity.functions, identity.unnamed),
        whole,
        imprecise: identity.imprecise,
        parts: identity.parts,
        path: None,
        constructors: identity.constructors,
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
    use crate::model::code::CodeRecord;

    #[test]
    fn an_entry_is_kept_only_untouched_with_the_same_counts_and_objects_built_here() {
        let counts = |ir: u64| Counts::from([(IR.to_owned(), ir)]);
        let entry = Executed {
            functions: BTreeMap::from([("release/deps/bench".to_owned(), BTreeSet::new())]),
            whole: BTreeSet::from(["file:lib/prebuilt.so".to_owned()]),
            counts: counts(10),
            ..Executed::default()
        };
        let keep = Keep {
            record: CodeRecord {
                commit: "a".repeat(40),
                benchmarks: BTreeMap::from([
                    ("g::same".to_owned(), entry.clone()),
                    ("g::touched".to_owned(), entry.clone()),
                    (
                        "g::elsewhere".to_owned(),
                        Executed {
                            whole: BTreeSet::from(["release/deps/libgone.so".to_owned()]),
                            ..entry
                        },
                    ),
                ]),
                ..CodeRecord::default()
            },
            untouched: ["g::same", "g::elsewhere", "g::new"]
                .map(String::from)
                .into(),
        };
        let built = BTreeMap::from([("release/deps/bench".to_owned(), PathBuf::from("/t/b"))]);
        assert!(keeps(&keep, "g::same", &counts(10), &built));
        // Cache misses move with the layout: the same instructions ran.
        let mut moved = counts(10);
        moved.insert("I1mr".to_owned(), 3);
        assert!(keeps(&keep, "g::same", &moved, &built));
        // Another instruction count: something the record does not see ran.
        assert!(!keeps(&keep, "g::same", &counts(11), &built));
        assert!(!keeps(&keep, "g::same", &Counts::new(), &built));
        // Touched by the change, or without an earlier entry.
        assert!(!keeps(&keep, "g::touched", &counts(10), &built));
        assert!(!keeps(&keep, "g::new", &counts(10), &built));
        // It names an object this run did not build.
        assert!(!keeps(&keep, "g::elsewhere", &counts(10), &built));
    }

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
            "popen@@GLIBC_2.2.5",
            "_IO_new_popen",
            "system",
            "execl",
            "nftw64",
            "syscall",
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

    /// A part as the record pass dumps it: `main` calls the benchmark's per-id function, which
    /// calls the wrapper module's function of `library`'s macros (90 Ir inclusive).
    fn part(wrapper_mod: &str) -> CallGraph {
        let text = format!(
            "events: Ir\nfn=main\n1 5\ncfn=bench::f::one\ncalls=1 1\n1 100\n\
             fn=bench::f::one\n1 10\ncfn=bench::f::{wrapper_mod}::f\ncalls=1 1\n1 90\n\
             fn=bench::f::{wrapper_mod}::f\n1 90\ntotals: 105\n"
        );
        irgate_callgrind::parse_with(text.as_bytes(), &Options::default()).unwrap()
    }

    #[test]
    fn the_measured_region_is_the_wrapper_of_the_suites_library() {
        for kind in [Kind::IaiCallgrind, Kind::Gungraun] {
            let other = match kind {
                Kind::IaiCallgrind => Kind::Gungraun,
                Kind::Gungraun => Kind::IaiCallgrind,
            };
            let wrapper = format!("::{}::", kind.wrapper_mod());
            let region = |graph: &CallGraph| {
                let (mut executed, mut addresses) = (Executed::default(), BTreeMap::new());
                add_graph(
                    graph,
                    (Path::new("/w/target"), Path::new("/w"), &wrapper),
                    (&mut executed, &mut addresses),
                    (&mut BTreeMap::new(), &mut BTreeMap::new()),
                )
            };
            assert_eq!(region(&part(kind.wrapper_mod())), 90, "{kind:?}");
            // The other library's wrapper marks nothing in this suite.
            assert_eq!(region(&part(other.wrapper_mod())), 0, "{kind:?}");
        }
    }

    #[test]
    fn a_benchmark_that_measured_nothing_says_why_it_has_no_record() {
        let why = benchmark(
            Path::new("/nonexistent"),
            (
                Path::new("/w/target"),
                Path::new("/w"),
                "::__gungraun_wrapper_mod::",
            ),
            0,
            &summary::Kind::Library,
            (&mut BTreeMap::new(), &mut BTreeMap::new()),
        )
        .unwrap_err();
        assert_eq!(why, MEASURED_NOTHING);
        assert!(
            why.contains("measured 0 Ir") && why.contains("black_box"),
            "{why}"
        );
        // A benchmark that measured something is read from its files (here: none).
        let missing = benchmark(
            Path::new("/nonexistent"),
            (
                Path::new("/w/target"),
                Path::new("/w"),
                "::__gungraun_wrapper_mod::",
            ),
            7,
            &summary::Kind::Library,
            (&mut BTreeMap::new(), &mut BTreeMap::new()),
        )
        .unwrap_err();
        assert!(missing.starts_with("/nonexistent"), "{missing}");
    }

    #[test]
    fn calls_into_the_c_library_count_and_its_own_calls_do_not() {
        for own in [
            "/usr/lib/x86_64-linux-gnu/libc.so.6",
            "/lib/x86_64-linux-gnu/libpthread.so.0",
            "/lib/x86_64-linux-gnu/libc-2.31.so",
            "/lib64/ld-linux-x86-64.so.2",
        ] {
            assert!(c_library(own), "{own}");
        }
        for outside in [
            "/usr/lib/x86_64-linux-gnu/libz.so.1",
            "/work/repo/prebuilt/libvend.so",
            "/work/target/release/deps/fixture-0123",
            "/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
        ] {
            assert!(!c_library(outside), "{outside}");
        }
    }

    #[test]
    fn a_shared_library_of_the_repository_is_a_file_dependency() {
        let root = Path::new("/work/repo");
        assert_eq!(
            repository_file(root, Path::new("/work/repo/prebuilt/libvend.so")).as_deref(),
            Some("file:prebuilt/libvend.so")
        );
        assert_eq!(
            repository_file(root, Path::new("/usr/lib/x86_64-linux-gnu/libz.so.1")),
            None
        );
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
