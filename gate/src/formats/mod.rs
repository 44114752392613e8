//! Reading and writing irgate's own JSON files (results and baselines): a schema version checked
//! first, counts that must be non-negative integers, no duplicate keys, and atomic writes.

pub mod baseline;
pub mod code;
pub mod history;
pub mod load;
pub mod profiles;
pub mod report;
pub mod results;
pub mod summary;
pub mod unique;

use std::collections::BTreeMap;
use std::fmt;
use std::io::Write;
use std::marker::PhantomData;
use std::path::Path;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::Counts;

/// Reads `path` as an irgate JSON file of kind `what` (e.g. "results") whose `schema_version`
/// must be `expected`. The version is checked before the rest, so an old or future file gets a
/// message about its version rather than about a field.
pub fn read_versioned<T: DeserializeOwned>(path: &Path, what: &str, expected: u32) -> Result<T> {
    read_versions(path, what, &[expected])
}

/// The `schema_version` a JSON file states, when it states a number there; for kinds of file
/// whose versions parse into different types (read the version, then the file as that type).
pub fn schema_version(path: &Path) -> Result<Option<u64>> {
    #[derive(Deserialize)]
    struct Probe {
        schema_version: Option<serde_json::Value>,
    }
    let bytes = read_bounded(path, MAX_BYTES)?;
    let probe: Probe = serde_json::from_slice(&bytes).map_err(|e| json_error(path, &e))?;
    Ok(probe.schema_version.and_then(|v| v.as_u64()))
}

/// The most bytes irgate reads of one of its JSON files (a kind of file may bound itself lower).
pub const MAX_BYTES: u64 = 1 << 30;

/// The bytes of the regular file at `path` (a symbolic link is followed), refused without
/// reading when it is something else (a device such as `/dev/zero`, a pipe, a directory) or
/// larger than `max` bytes: a file a pull request commits cannot make irgate read without end.
/// It is opened without blocking (`O_NONBLOCK`) and checked on the open descriptor, so a FIFO
/// with no writer is refused rather than waited on in `open()`.
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|source| Error::read(path, source))?;
    let meta = file
        .metadata()
        .map_err(|source| Error::read(path, source))?;
    if !meta.is_file() {
        return Err(Error::invalid(
            path.display(),
            "not a regular file (a device, a pipe or a directory, or a link to one): irgate \
             reads only regular files here",
        ));
    }
    let too_large = || {
        Error::invalid(
            path.display(),
            format!("larger than {max} bytes: irgate does not read it"),
        )
    };
    if meta.len() > max {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    // The size was checked when opened; the file may grow since.
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| Error::read(path, source))?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read_bounded`] of a UTF-8 text file (`gate.toml`, a report).
pub fn read_text_bounded(path: &Path, max: u64) -> Result<String> {
    String::from_utf8(read_bounded(path, max)?).map_err(|_| {
        let invalid = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        );
        Error::read(path, invalid)
    })
}

/// [`read_versioned`] for a kind of file whose `readable` versions (oldest first) all parse into
/// `T` (fields a newer version added have defaults).
pub fn read_versions<T: DeserializeOwned>(path: &Path, what: &str, readable: &[u32]) -> Result<T> {
    parse_versions(&read_bounded(path, MAX_BYTES)?, path, what, readable)
}

/// [`read_versions`] of `bytes` read from `path` (which names them in messages).
pub fn parse_versions<T: DeserializeOwned>(
    bytes: &[u8],
    path: &Path,
    what: &str,
    readable: &[u32],
) -> Result<T> {
    #[derive(Deserialize)]
    struct Probe {
        schema_version: Option<serde_json::Value>,
    }
    let probe: Probe = serde_json::from_slice(bytes).map_err(|e| json_error(path, &e))?;
    match probe.schema_version {
        None => {
            return Err(Error::invalid(
                path.display(),
                format!("no `schema_version`: this is not an irgate {what} file"),
            ));
        }
        Some(version)
            if !version
                .as_u64()
                .is_some_and(|v| readable.iter().any(|r| u64::from(*r) == v)) =>
        {
            let versions: Vec<String> = readable.iter().map(u32::to_string).collect();
            return Err(Error::invalid(
                path.display(),
                format!(
                    "unsupported schema_version {version}: this irgate reads {what} files of \
                     schema_version {}",
                    versions.join(" or ")
                ),
            ));
        }
        Some(_) => {}
    }
    serde_json::from_slice(bytes).map_err(|e| json_error(path, &e))
}

/// Writes `value` as pretty JSON (with a final newline) to `path` atomically: a temporary file in
/// the same directory, flushed to disk, then renamed over `path`. An interrupted write leaves the
/// old file intact.
pub fn write_json_atomic<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value).expect("irgate's file types serialize");
    text.push('\n');
    write_atomic(path, text.as_bytes())
}

/// Writes `bytes` to `path` atomically (temporary file in the same directory + rename). The file
/// gets the mode `std::fs::write` would give it (0666 less the umask), not the temporary file's
/// 0600.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let write_error = |source| Error::write(path, source);
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(write_error)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".irgate-").suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut temp = builder.tempfile_in(dir).map_err(write_error)?;
    temp.write_all(bytes).map_err(write_error)?;
    temp.as_file().sync_all().map_err(write_error)?;
    temp.persist(path).map_err(|e| write_error(e.error))?;
    Ok(())
}

/// Removes `path`; a file that is not there is no error.
pub fn remove_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::write(path, e)),
        _ => Ok(()),
    }
}

/// The files `<dir>/<group>.json` of a directory kept one file per group (baseline profiles and
/// coverage), by group, sorted; hidden files and others are skipped.
pub fn group_files(dir: &Path) -> Result<Vec<(String, std::path::PathBuf)>> {
    let read_error = |source| Error::read(dir, source);
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(read_error)? {
        let path = entry.map_err(read_error)?.path();
        let group = path
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| !n.starts_with('.'))
            .and_then(|n| n.strip_suffix(".json"))
            .map(str::to_owned);
        if let Some(group) = group {
            found.push((group, path));
        }
    }
    found.sort();
    Ok(found)
}

/// Writes a directory kept one file per group: `texts` by group, each written only when it
/// changed, and the files of the groups in `before` that `texts` no longer has removed. Returns
/// the files written or removed.
pub fn write_group_files(
    dir: &Path,
    before: &std::collections::BTreeSet<String>,
    texts: BTreeMap<String, String>,
) -> Result<Vec<std::path::PathBuf>> {
    let mut touched = Vec::new();
    for group in before.iter().filter(|g| !texts.contains_key(*g)) {
        let path = dir.join(format!("{group}.json"));
        remove_if_present(&path)?;
        touched.push(path);
    }
    for (group, text) in texts {
        let path = dir.join(format!("{group}.json"));
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            write_atomic(&path, text.as_bytes())?;
            touched.push(path);
        }
    }
    Ok(touched)
}

/// Turns a serde_json error into `path:line:column: message`.
pub fn json_error(path: &Path, error: &serde_json::Error) -> Error {
    let message = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let message = message.strip_suffix(&suffix).unwrap_or(&message).to_owned();
    let message = match error.classify() {
        serde_json::error::Category::Eof => format!("truncated JSON ({message})"),
        _ => message,
    };
    Error::invalid(
        format!("{}:{}:{}", path.display(), error.line(), error.column()),
        message,
    )
}

/// Deserializes benchmark counts strictly: benchmark ids must be valid and unique, metric names
/// count metrics and unique, and every count a non-negative integer. Use with
/// `#[serde(deserialize_with = "...")]`.
pub fn strict_benchmarks<'de, D>(deserializer: D) -> Result<BTreeMap<String, Counts>, D::Error>
where
    D: Deserializer<'de>,
{
    let map = UniqueMap::<UniqueMap<Count, MetricKey>, BenchmarkKey>::deserialize(deserializer)?;
    if let Some(message) = map.0.keys().find_map(|id| crate::id::check(id).err()) {
        return Err(de::Error::custom(message));
    }
    if let Some((id, metric)) = map.0.iter().find_map(|(id, counts)| {
        counts
            .0
            .keys()
            .find(|m| !crate::config::metrics::is_count_metric(m))
            .map(|m| (id, m))
    }) {
        return Err(de::Error::custom(format!(
            "{id}: {}",
            crate::config::metrics::unknown_metric(metric)
        )));
    }
    Ok(map
        .0
        .into_iter()
        .map(|(id, counts)| {
            let counts = counts.0.into_iter().map(|(m, c)| (m, c.0)).collect();
            (id, counts)
        })
        .collect())
}

/// What the keys of a [`UniqueMap`] are, for its error message.
trait KeyKind {
    const WHAT: &'static str;
}
struct BenchmarkKey;
impl KeyKind for BenchmarkKey {
    const WHAT: &'static str = "benchmark id";
}
struct MetricKey;
impl KeyKind for MetricKey {
    const WHAT: &'static str = "metric";
}

/// A JSON object whose keys must not repeat (serde would silently keep the last).
struct UniqueMap<V, K>(BTreeMap<String, V>, PhantomData<K>);

impl<'de, V: Deserialize<'de>, K: KeyKind> Deserialize<'de> for UniqueMap<V, K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<V, K>(PhantomData<(V, K)>);
        impl<'de, V: Deserialize<'de>, K: KeyKind> Visitor<'de> for MapVisitor<V, K> {
            type Value = UniqueMap<V, K>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "an object keyed by {}", K::WHAT)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut map = BTreeMap::new();
                while let Some(key) = access.next_key::<String>()? {
                    if map.contains_key(&key) {
                        return Err(de::Error::custom(format!("duplicate {} `{key}`", K::WHAT)));
                    }
                    let value = access.next_value()?;
                    map.insert(key, value);
                }
                Ok(UniqueMap(map, PhantomData))
            }
        }
        deserializer.deserialize_map(MapVisitor(PhantomData))
    }
}

/// Why a number a parser could only read as a float is not a count. JSON parsers hand over as a
/// float any number they cannot hold as an integer: `99.0`, `1e3`, `-5` (in some readers) and
/// 2^64 and beyond.
pub fn not_a_count(v: f64) -> String {
    if v.fract() != 0.0 || !v.is_finite() {
        format!("non-integer count {v}: counts are non-negative integers")
    } else if v < 0.0 {
        format!("negative count {v}: counts are non-negative integers")
    } else if v >= u64::MAX as f64 {
        "count too large: at least 2^64, and counts are at most 2^64 - 1".to_owned()
    } else {
        format!("count {v:?} written with a decimal point: write counts as integers")
    }
}

/// A count: a non-negative integer, with a clear message for anything else.
struct Count(u64);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CountVisitor;
        impl Visitor<'_> for CountVisitor {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a count (a non-negative integer)")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Count, E> {
                Ok(Count(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Count, E> {
                u64::try_from(v).map(Count).map_err(|_| {
                    E::custom(format!(
                        "negative count {v}: counts are non-negative integers"
                    ))
                })
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Count, E> {
                Err(E::custom(not_a_count(v)))
            }
        }
        deserializer.deserialize_any(CountVisitor)
    }
}

/// Tests: the JSON Schema committed at `file` (relative to the workspace root) is `schema`, the
/// one generated from the types; `IRGATE_BLESS=1` rewrites it (`module` names the test filter
/// that does). Returns the committed text.
#[cfg(test)]
pub(crate) fn assert_committed_schema(file: &str, schema: &str, module: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(file);
    if crate::env::bless() {
        std::fs::write(&path, schema).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == schema,
        "{file} is not the schema its types generate: regenerate it with \
         `IRGATE_BLESS=1 cargo test -p irgate --lib {module}`"
    );
    committed
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Doc {
        #[serde(deserialize_with = "strict_benchmarks")]
        benchmarks: BTreeMap<String, Counts>,
    }

    fn parse(text: &str) -> Result<Doc> {
        serde_json::from_str(text).map_err(|e| json_error(Path::new("f.json"), &e))
    }

    #[cfg(unix)]
    #[test]
    fn atomic_writes_get_the_mode_of_a_plain_write() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (atomic, plain) = (dir.path().join("a.json"), dir.path().join("b.json"));
        write_atomic(&atomic, b"{}").unwrap();
        std::fs::write(&plain, b"{}").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        // Under the usual umask 022 the temporary file's 0600 would show as a difference.
        assert_eq!(mode(&atomic), mode(&plain));
    }

    /// A FIFO with no writer at `dir/name` (opening it to read would block).
    pub(crate) fn fifo(dir: &Path, name: &str) -> std::path::PathBuf {
        let path = dir.join(name);
        let c_path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
        path
    }

    /// `read(path)`'s error, from a thread: a read that blocks (in `open()` on a FIFO, as before
    /// the fix) fails the test instead of hanging it.
    pub(crate) fn refused_unblocked<T: Send + 'static>(
        path: &Path,
        read: fn(&Path) -> Result<T>,
    ) -> String {
        let (send, receive) = std::sync::mpsc::channel();
        let owned = path.to_owned();
        std::thread::spawn(move || send.send(read(&owned).err().map(|e| e.to_string())));
        let outcome = receive.recv_timeout(std::time::Duration::from_secs(60));
        // Unblock a reader stuck in `open()` so the thread ends.
        if outcome.is_err() {
            let _ = std::fs::OpenOptions::new().write(true).open(path);
        }
        outcome
            .expect("the read blocked on the FIFO")
            .expect("the FIFO was read as a file")
    }

    #[test]
    fn a_fifo_is_refused_without_blocking_in_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = fifo(dir.path(), "results.json");
        for error in [
            refused_unblocked(&path, |p| read_bounded(p, MAX_BYTES)),
            refused_unblocked(&path, |p| read_text_bounded(p, MAX_BYTES)),
            refused_unblocked(&path, |p| {
                read_versions::<serde_json::Value>(p, "results", &[1])
            }),
            refused_unblocked(&path, crate::config::Config::load),
            refused_unblocked(&path, crate::formats::report::read),
            refused_unblocked(&path, crate::formats::summary::read),
        ] {
            assert!(error.contains("not a regular file"), "{error}");
            assert!(error.contains("results.json"), "{error}");
        }
    }

    #[test]
    fn accepts_integer_counts() {
        let doc = parse(r#"{"benchmarks": {"a::b/1": {"Ir": 5, "EstimatedCycles": 0}}}"#).unwrap();
        assert_eq!(doc.benchmarks["a::b/1"]["Ir"], 5);
        assert_eq!(doc.benchmarks["a::b/1"]["EstimatedCycles"], 0);
    }

    #[test]
    fn rejects_bad_counts_and_duplicates_with_position() {
        let cases = [
            (
                r#"{"benchmarks": {"a": {"Ir": -5}}}"#,
                "f.json:1:30: negative count -5",
            ),
            (
                r#"{"benchmarks": {"a": {"Ir": 1.5}}}"#,
                "f.json:1:31: non-integer count 1.5",
            ),
            (
                r#"{"benchmarks": {"a": {"Ir": "7"}}}"#,
                "invalid type: string \"7\", expected a count",
            ),
            (
                r#"{"benchmarks": {"a": {"Ir": 1}, "a": {"Ir": 2}}}"#,
                "duplicate benchmark id `a`",
            ),
            (
                r#"{"benchmarks": {"a": {"Ir": 1, "Ir": 2}}}"#,
                "duplicate metric `Ir`",
            ),
            (r#"{"benchmarks": {"a": {"Ir": 1"#, "truncated JSON"),
            (
                r#"{"benchmarks": {"a": {"Ir": 18446744073709551616}}}"#,
                "count too large: at least 2^64",
            ),
            (
                r#"{"benchmarks": {"a": {"Ir": 99.0}}}"#,
                "count 99.0 written with a decimal point",
            ),
        ];
        for (text, expected) in cases {
            let error = parse(text).unwrap_err().to_string();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }

    #[test]
    fn versioned_read_checks_the_version_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        std::fs::write(&path, r#"{"schema_version": 9, "whatever": true}"#).unwrap();
        let error = read_versioned::<serde_json::Value>(&path, "results", 1).unwrap_err();
        assert!(
            error.to_string().contains("unsupported schema_version 9"),
            "{error}"
        );
        std::fs::write(&path, r#"{"benchmarks": {}}"#).unwrap();
        let error = read_versioned::<serde_json::Value>(&path, "results", 1).unwrap_err();
        assert!(error.to_string().contains("no `schema_version`"), "{error}");
        std::fs::write(&path, r#"{"schema_version": 1}"#).unwrap();
        assert!(read_versions::<serde_json::Value>(&path, "results", &[1, 2]).is_ok());
        let error = read_versions::<serde_json::Value>(&path, "results", &[2]).unwrap_err();
        assert!(
            error.to_string().contains(
                "unsupported schema_version 1: this irgate reads results files of \
                           schema_version 2"
            ),
            "{error}"
        );
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.json");
        write_json_atomic(&path, &serde_json::json!({"a": 1})).unwrap();
        write_json_atomic(&path, &serde_json::json!({"a": 2})).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\n  \"a\": 2\n}\n"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["x.json"]);
    }
}
