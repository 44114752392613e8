//! The code record's file: the code identity of the objects a run built and, when the run
//! recorded it (`irgate run --record`), what each benchmark's process executed, function by
//! function (docs/selection.md).
//!
//! `irgate run` writes it beside the results (`target/irgate/results.code.json` for
//! `target/irgate/results.json`); `irgate refresh` keeps a recorded one with the baselines,
//! `baselines/code/record.json`:
//!
//! ```json
//! {
//!   "schema_version": 1,
//!   "commit": "0123456789abcdef0123456789abcdef01234567",
//!   "identity": 1,
//!   "objects": {
//!     "release/deps/callgrind": {
//!       "whole": "5f0c…",
//!       "functions": { "codec::frame::Frame::encode": "9a41…", "main": "77c2…" }
//!     }
//!   },
//!   "benchmarks": {
//!     "frame::encode/b32": {
//!       "executed": { "release/deps/callgrind": "0-1" },
//!       "counts": { "Ir": 2104 }
//!     }
//!   },
//!   "unrecorded": { "frame::decode/b64": "its process left no record" }
//! }
//! ```
//!
//! An object's key is its path under cargo's target directory with cargo's hash suffix dropped.
//! `executed` lists, per object, the functions the benchmark executed as ranges of indices into
//! that object's `functions` (sorted by key), so each name is written once. `whole` names objects
//! a benchmark depends on as a whole; `reads_files` says why a benchmark may read files at run
//! time. `counts` are the counts the benchmark's run measured: the entry describes the baseline
//! only while the baseline's counts are these (schema_version 1 kept none; such a record is still
//! read, and an entry of it describes only a baseline measured at the record's commit, which
//! `irgate refresh` then writes into it). `inputs` (schema_version 3) are the paths the
//! benchmark's processes were seen to name during the record pass, each with the digest of what it
//! held or `absent` (a key ending in `/` names a directory's listing), and `environment` how many
//! paths of the environment they named besides (docs/selection.md, "Observed inputs"); an entry
//! without `inputs` was not observed, and `reads_files` decides for it. `commit` is a full commit hash (with `-dirty` for a working tree with changes);
//! `identity` the version of the rules the digests were made with (`irgate_identity::VERSION`).
//! An object's `parts` hold the digests of single-instance functions in two parts (`code`, and
//! `data` by reference offset: in a record, only the references of executed instructions), and a
//! run's objects name the file they were read from (`path`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use irgate_identity::Parts;
use serde::{Deserialize, Serialize};

use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::formats;
use crate::model::Counts;
use crate::model::code::{CodeRecord, Executed, FILE_PREFIX, INPUT_WORDS, Object, Observed};

/// The schema version of code records this irgate writes: 2 added each entry's `counts`, 3 its
/// observed `inputs` and `environment`.
pub const SCHEMA_VERSION: u32 = 3;

/// The schema versions of code records this irgate reads, oldest first.
const READABLE: &[u32] = &[1, 2, 3];

/// The most bytes of a code record irgate reads.
pub const MAX_BYTES: u64 = 256 << 20;

/// The file in the baseline directory that holds the baselines' code record.
pub const BASELINE_FILE: &str = "code/record.json";

/// The most functions one object may list, and the most indices a benchmark's ranges may
/// expand to: a bound on what a hostile file can make irgate allocate.
const MAX_FUNCTIONS: usize = 4_000_000;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CodeFile {
    schema_version: u32,
    commit: String,
    identity: u32,
    #[serde(default, deserialize_with = "formats::unique::map")]
    objects: BTreeMap<String, ObjectFile>,
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "formats::unique::map"
    )]
    benchmarks: BTreeMap<String, ExecutedFile>,
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "formats::unique::map"
    )]
    unrecorded: BTreeMap<String, String>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ObjectFile {
    whole: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    imprecise: Option<String>,
    #[serde(deserialize_with = "formats::unique::map")]
    functions: BTreeMap<String, String>,
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "formats::unique::map"
    )]
    parts: BTreeMap<String, PartsFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    path: Option<PathBuf>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PartsFile {
    code: String,
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "formats::unique::map"
    )]
    data: BTreeMap<u32, String>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExecutedFile {
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "formats::unique::map"
    )]
    executed: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    whole: BTreeSet<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reads_files: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "formats::unique::map"
    )]
    counts: BTreeMap<String, u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    inputs: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "is_zero")]
    environment: u64,
}

/// Whether `n` is 0 (an entry that observed no path of the environment writes none).
fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl CodeFile {
    fn new(record: &CodeRecord) -> CodeFile {
        let benchmarks = record
            .benchmarks
            .iter()
            .map(|(id, executed)| {
                let ranges = executed
                    .functions
                    .iter()
                    .map(|(object, names)| {
                        let positions: Vec<usize> = record
                            .objects
                            .get(object)
                            .map(|o| {
                                o.functions
                                    .keys()
                                    .enumerate()
                                    .filter(|(_, name)| names.contains(*name))
                                    .map(|(at, _)| at)
                                    .collect()
                            })
                            .unwrap_or_default();
                        (object.clone(), ranges_text(&positions))
                    })
                    .collect();
                let file = ExecutedFile {
                    executed: ranges,
                    whole: executed.whole.clone(),
                    reads_files: executed.reads_files.clone(),
                    counts: executed.counts.clone(),
                    inputs: executed.observed.as_ref().map(|o| o.inputs.clone()),
                    environment: executed.observed.as_ref().map_or(0, |o| o.environment),
                };
                (id.clone(), file)
            })
            .collect();
        CodeFile {
            schema_version: SCHEMA_VERSION,
            commit: record.commit.clone(),
            identity: record.identity,
            objects: record
                .objects
                .iter()
                .map(|(key, object)| {
                    let file = ObjectFile {
                        whole: object.whole.clone(),
                        imprecise: object.imprecise.clone(),
                        functions: object.functions.clone(),
                        parts: object
                            .parts
                            .iter()
                            .map(|(name, parts)| {
                                let file = PartsFile {
                                    code: parts.code.clone(),
                                    data: parts.data.clone(),
                                };
                                (name.clone(), file)
                            })
                            .collect(),
                        path: object.path.clone(),
                    };
                    (key.clone(), file)
                })
                .collect(),
            benchmarks,
            unrecorded: record.unrecorded.clone(),
        }
    }

    /// The record, checked: a full commit hash, normalized object keys, digests, indices in
    /// range.
    fn record(self, path: &Path) -> Result<CodeRecord> {
        let invalid = |message: String| Error::invalid(path.display(), message);
        if !is_commit(&self.commit) {
            return Err(invalid(format!(
                "`commit` must be a full commit hash (40 hex digits, `-dirty` after it for a \
                 working tree with changes), not `{}`",
                self.commit
            )));
        }
        let mut record = CodeRecord {
            commit: self.commit,
            identity: self.identity,
            unrecorded: self.unrecorded,
            ..CodeRecord::default()
        };
        for (key, object) in self.objects {
            if let Some(why) = bad_key(&key) {
                return Err(invalid(format!("object `{key}`: {why}")));
            }
            if object.functions.len() > MAX_FUNCTIONS {
                return Err(invalid(format!(
                    "object `{key}` lists more than {MAX_FUNCTIONS} functions"
                )));
            }
            let parts_digests = object
                .parts
                .values()
                .flat_map(|p| std::iter::once(&p.code).chain(p.data.values()));
            for digest in std::iter::once(&object.whole)
                .chain(object.functions.values())
                .chain(parts_digests)
            {
                if !is_digest(digest) {
                    return Err(invalid(format!(
                        "object `{key}`: `{digest}` is not a digest (32 lowercase hex digits)"
                    )));
                }
            }
            record.objects.insert(
                key,
                Object {
                    functions: object.functions,
                    whole: object.whole,
                    imprecise: object.imprecise,
                    parts: object
                        .parts
                        .into_iter()
                        .map(|(name, parts)| {
                            let parts = Parts {
                                code: parts.code,
                                data: parts.data,
                            };
                            (name, parts)
                        })
                        .collect(),
                    path: object.path,
                    constructors: BTreeSet::new(),
                },
            );
        }
        // Each object's function names by index, listed once (not once per benchmark).
        let names: BTreeMap<&str, Vec<&String>> = record
            .objects
            .iter()
            .map(|(key, object)| (key.as_str(), object.functions.keys().collect()))
            .collect();
        for (id, file) in self.benchmarks {
            let mut executed = Executed {
                whole: file.whole,
                reads_files: file.reads_files,
                // Version 1 kept no counts: what a field of that name says there is no one's.
                counts: if self.schema_version < 2 {
                    BTreeMap::new()
                } else {
                    file.counts
                },
                // Version 3 added what the record pass observed each benchmark read.
                observed: match (self.schema_version >= 3, file.inputs) {
                    (true, Some(inputs)) => Some(Observed {
                        inputs,
                        environment: file.environment,
                    }),
                    _ => None,
                },
                ..Executed::default()
            };
            for (path, digest) in executed.observed.iter().flat_map(|o| &o.inputs) {
                if path.is_empty() || !(is_digest(digest) || INPUT_WORDS.contains(&digest.as_str()))
                {
                    return Err(invalid(format!(
                        "`{id}`: input `{path}`: `{digest}` is not a digest (32 lowercase hex \
                         digits) nor one of {}",
                        INPUT_WORDS.join(", ")
                    )));
                }
            }
            for key in &executed.whole {
                if !record.objects.contains_key(key) && !key.starts_with(FILE_PREFIX) {
                    return Err(invalid(format!(
                        "`{id}` depends on object `{key}`, which `objects` does not hold"
                    )));
                }
            }
            for (key, ranges) in file.executed {
                let names = names.get(key.as_str()).ok_or_else(|| {
                    invalid(format!(
                        "`{id}` executed functions of object `{key}`, which `objects` does not \
                         hold"
                    ))
                })?;
                let positions = parse_ranges(&ranges, names.len())
                    .map_err(|why| invalid(format!("`{id}`, object `{key}`: {why}")))?;
                executed.functions.insert(
                    key,
                    positions.into_iter().map(|at| names[at].clone()).collect(),
                );
            }
            record.benchmarks.insert(id, executed);
        }
        Ok(record)
    }
}

/// Why the entry `executed`, of a record taken at commit `taken`, does not describe a baseline of
/// `baseline` counts measured at commit `at`, when it does not: Ir must be in both and equal, and
/// every metric both hold. An entry without counts (a record of schema_version 1 kept none)
/// describes only a baseline measured at the record's own clean commit: the same code.
pub fn mismatch(
    executed: &Executed,
    taken: &str,
    (baseline, at): (&Counts, &str),
) -> Option<String> {
    let again = "take it again with `irgate run --record`, then `irgate refresh`";
    if executed.counts.is_empty() {
        if taken == at && !crate::git::Commit::parse(taken).dirty {
            return None;
        }
        return Some(format!(
            "its code record keeps no counts (a record of schema_version 1) and its baseline was \
             measured at another commit ({}) than the record ({}): {again}",
            crate::text::short_commit(at),
            crate::text::short_commit(taken)
        ));
    }
    let differs = |metric: &str| match (executed.counts.get(metric), baseline.get(metric)) {
        (Some(a), Some(b)) => a != b,
        _ => metric == IR,
    };
    let metric = std::iter::once(IR)
        .chain(executed.counts.keys().map(String::as_str))
        .find(|m| differs(m))?;
    let shown = |c: &Counts| c.get(metric).map_or("none".to_owned(), u64::to_string);
    Some(format!(
        "its code record describes another count than its baseline ({metric} {} recorded, {} \
         in the baseline): the baseline was refreshed without `irgate run --record`? {again}",
        shown(&executed.counts),
        shown(baseline)
    ))
}

/// Whether `text` is a full commit hash, with `-dirty` after it or not.
fn is_commit(text: &str) -> bool {
    let hash = text.strip_suffix("-dirty").unwrap_or(text);
    hash.len() == 40
        && hash
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// Whether `text` is a digest as the code identity writes it.
fn is_digest(text: &str) -> bool {
    text.len() == 32
        && text
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

/// Why `key` is not a normalized object key (a relative, `/`-separated path without `.`, `..` or
/// empty parts), when it is not.
pub fn bad_key(key: &str) -> Option<&'static str> {
    if key.is_empty() {
        Some("an empty path")
    } else if key.contains('\\') {
        Some("a path with a backslash (write it with `/`)")
    } else if key.starts_with('/') {
        Some("an absolute path (keys are relative to the target directory)")
    } else if key
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == "..")
    {
        Some("a path that is not normalized (an empty, `.` or `..` part)")
    } else {
        None
    }
}

/// `0-3,7,9-12` for positions.
fn ranges_text(positions: &[usize]) -> String {
    crate::text::ranges(positions.to_vec())
        .iter()
        .map(crate::text::range)
        .collect::<Vec<_>>()
        .join(",")
}

/// The positions `text` (`0-3,7`) lists, each below `len`, sorted and disjoint.
fn parse_ranges(text: &str, len: usize) -> std::result::Result<Vec<usize>, String> {
    let mut positions: Vec<usize> = Vec::new();
    if text.is_empty() {
        return Ok(positions);
    }
    for part in text.split(',') {
        let number = |n: &str| {
            n.parse::<usize>()
                .map_err(|_| format!("`{part}` is not an index or a range of indices"))
        };
        let (start, end) = match part.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(part)?, number(part)?),
        };
        if start > end || end >= len || positions.last().is_some_and(|&last| last >= start) {
            return Err(format!(
                "`{part}` is out of order or past the object's {len} functions"
            ));
        }
        positions.extend(start..=end);
    }
    Ok(positions)
}

/// Reads the code record at `path` (a regular file of at most [`MAX_BYTES`]); `None` when there
/// is none.
pub fn read(path: &Path) -> Result<Option<CodeRecord>> {
    if !path.exists() {
        return Ok(None);
    }
    parse(formats::read_bounded(path, MAX_BYTES)?, path).map(Some)
}

/// The code record in `bytes`, read from `origin` (which names it in messages). The bytes are
/// freed once parsed, before each benchmark's ranges are expanded into names (docs/scale.md).
pub fn parse(bytes: Vec<u8>, origin: &Path) -> Result<CodeRecord> {
    let file: CodeFile = formats::parse_versions(&bytes, origin, "code record", READABLE)?;
    drop(bytes);
    file.record(origin)
}

/// Writes `record` to `path`.
pub fn write(path: &Path, record: &CodeRecord) -> Result<()> {
    formats::write_json_atomic(path, &CodeFile::new(record))
}

/// The baselines' code record, in the baseline directory `baselines`; `None` when there is none.
pub fn load_baseline(baselines: &Path) -> Result<Option<CodeRecord>> {
    read(&baselines.join(BASELINE_FILE))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> CodeRecord {
        let object = Object {
            functions: BTreeMap::from([
                ("a::f".to_owned(), "0".repeat(32)),
                ("a::g".to_owned(), "1".repeat(32)),
                ("main".to_owned(), "2".repeat(32)),
            ]),
            whole: "3".repeat(32),
            imprecise: None,
            path: None,
            constructors: BTreeSet::new(),
            parts: BTreeMap::from([(
                "a::f".to_owned(),
                Parts {
                    code: "4".repeat(32),
                    data: BTreeMap::from([(7, "5".repeat(32))]),
                },
            )]),
        };
        CodeRecord {
            commit: "a".repeat(40),
            identity: 1,
            objects: BTreeMap::from([("release/deps/callgrind".to_owned(), object)]),
            benchmarks: BTreeMap::from([(
                "g::f/x".to_owned(),
                Executed {
                    functions: BTreeMap::from([(
                        "release/deps/callgrind".to_owned(),
                        BTreeSet::from(["a::f".to_owned(), "main".to_owned()]),
                    )]),
                    whole: BTreeSet::new(),
                    reads_files: Some("calls `open64`".to_owned()),
                    counts: BTreeMap::from([("Ir".to_owned(), 2104)]),
                    observed: Some(Observed {
                        inputs: BTreeMap::from([
                            ("data/input.bin".to_owned(), "6".repeat(32)),
                            ("/etc/missing".to_owned(), "absent".to_owned()),
                            ("src/lib.rs".to_owned(), "file".to_owned()),
                        ]),
                        environment: 12,
                    }),
                },
            )]),
            unrecorded: BTreeMap::from([("g::h/y".to_owned(), "no record".to_owned())]),
        }
    }

    #[test]
    fn a_record_round_trips_and_names_each_function_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("code.json");
        write(&path, &record()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(r#""release/deps/callgrind": "0,2""#),
            "{text}"
        );
        assert_eq!(read(&path).unwrap(), Some(record()));
    }

    #[test]
    fn older_records_are_read_without_what_their_versions_lacked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("code.json");
        write(&path, &record()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(r#""schema_version": 3"#), "{text}");
        assert!(text.contains(r#""Ir": 2104"#), "{text}");
        assert!(text.contains(r#""src/lib.rs": "file""#), "{text}");
        let mut expected = record();
        let entry = expected.benchmarks.get_mut("g::f/x").unwrap();
        // Version 2 observed nothing: the coarse rule (`reads_files`) decides for its entries.
        entry.observed = None;
        let as_version = |version: u32| {
            let old = text.replace(
                r#""schema_version": 3"#,
                &format!(r#""schema_version": {version}"#),
            );
            std::fs::write(&path, old).unwrap();
            read(&path).unwrap().unwrap()
        };
        assert_eq!(as_version(2), expected);
        // Version 1 kept no counts either.
        expected
            .benchmarks
            .get_mut("g::f/x")
            .unwrap()
            .counts
            .clear();
        assert_eq!(as_version(1), expected);
    }

    #[test]
    fn an_observed_input_must_hold_a_digest_or_a_known_word() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("code.json");
        write(&path, &record()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(
            &path,
            text.replace(r#""src/lib.rs": "file""#, r#""src/lib.rs": "maybe""#),
        )
        .unwrap();
        let error = read(&path).unwrap_err().to_string();
        assert!(
            error.contains("input `src/lib.rs`") && error.contains("maybe"),
            "{error}"
        );
    }

    #[test]
    fn a_record_that_is_no_regular_file_or_too_large_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("record.json");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let error = read(&link).unwrap_err().to_string();
        assert!(error.contains("not a regular file"), "{error}");
        // A sparse file past the bound: refused by its size, before a byte is read.
        let large = dir.path().join("large.json");
        std::fs::File::create(&large)
            .unwrap()
            .set_len(MAX_BYTES + 1)
            .unwrap();
        let error = read(&large).unwrap_err().to_string();
        assert!(error.contains("larger than"), "{error}");
        // A directory.
        let error = read(dir.path()).unwrap_err().to_string();
        assert!(error.contains("not a regular file"), "{error}");
        // A FIFO with no writer: refused, not waited on in `open()`.
        let fifo = formats::tests::fifo(dir.path(), "fifo.json");
        let error = formats::tests::refused_unblocked(&fifo, |p| read(p).map(|_| ()));
        assert!(error.contains("not a regular file"), "{error}");
        // The baselines' record, `baselines/code/record.json`, as the issue found it.
        let baselines = dir.path().join("baselines");
        std::fs::create_dir_all(baselines.join("code")).unwrap();
        formats::tests::fifo(&baselines.join("code"), "record.json");
        let error = formats::tests::refused_unblocked(&baselines, |p| load_baseline(p).map(|_| ()));
        assert!(error.contains("not a regular file"), "{error}");
        assert!(error.contains("code/record.json"), "{error}");
    }

    #[test]
    fn ranges_are_written_short_and_read_back_checked() {
        assert_eq!(ranges_text(&[0, 1, 2, 3, 7, 9, 10]), "0-3,7,9-10");
        assert_eq!(
            parse_ranges("0-3,7,9-10", 11).unwrap(),
            [0, 1, 2, 3, 7, 9, 10]
        );
        for bad in [
            "3-1",
            "0-11",
            "5,4",
            "1,1",
            "x",
            "1-",
            "-1",
            "0-18446744073709551615",
        ] {
            assert!(parse_ranges(bad, 11).is_err(), "{bad}");
        }
    }

    #[test]
    fn refuses_ref_names_unnormalized_keys_and_bad_digests() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("code.json");
        type Spoil<'a> = &'a dyn Fn(&mut CodeRecord);
        let cases: [(Spoil, &str); 6] = [
            (&|r| r.commit = "main".into(), "full commit hash"),
            (&|r| r.commit = "A".repeat(40), "full commit hash"),
            (
                &|r| {
                    let o = r.objects.remove("release/deps/callgrind").unwrap();
                    r.objects.insert("./release/deps/x".into(), o);
                },
                "not normalized",
            ),
            (
                &|r| {
                    let o = r.objects.remove("release/deps/callgrind").unwrap();
                    r.objects.insert("release//x".into(), o);
                },
                "not normalized",
            ),
            (
                &|r| {
                    let o = r.objects.remove("release/deps/callgrind").unwrap();
                    r.objects.insert("release\\x".into(), o);
                },
                "backslash",
            ),
            (
                &|r| {
                    r.objects.get_mut("release/deps/callgrind").unwrap().whole = "zz".into();
                },
                "not a digest",
            ),
        ];
        for (change, expected) in cases {
            let mut bad = record();
            change(&mut bad);
            formats::write_json_atomic(&path, &CodeFile::new(&bad)).unwrap();
            let error = read(&path).unwrap_err().to_string();
            assert!(error.contains(expected), "{error}");
        }
    }
}
