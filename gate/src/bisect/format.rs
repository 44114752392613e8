//! `irgate bisect --format json`, its one home: [`json`] writes a [`Bisection`] and [`read`] reads
//! the same types back for `irgate history add --bisect` (in CI the file comes from an artifact:
//! untrusted). docs/bisect.md lists its fields. Only what the history keeps is kept
//! ([`Bisected`]); fields are only added within a schema version, so unknown ones are ignored and
//! the ones the history does not keep may be missing.

use std::path::Path;

use serde::Deserialize;

use crate::bisect::Bisection;
use crate::error::{Error, Result};
use crate::formats::history::{Bisected, Found, Open, check_bisected};

/// The schema version of the JSON `irgate bisect --format json` prints.
pub const SCHEMA_VERSION: u32 = 1;

/// The largest file read: a bisection of thousands of moves is far smaller.
pub const MAX_BYTES: u64 = 8 * 1024 * 1024;

/// The most moves (and undecided moves) a bisection kept in the history may hold.
pub const MAX_MOVES: usize = 10_000;

/// A subject is kept to this many characters.
pub const MAX_SUBJECT: usize = 200;

/// A move keeps at most this many of its changed functions, each to [`MAX_SUBJECT`] characters.
pub const MAX_FUNCTIONS: usize = 16;

/// The bisection as JSON: `{"schema_version": 1, "moves": [...], ...}`, keys sorted.
pub fn json(bisection: &Bisection) -> String {
    let mut value = serde_json::to_value(bisection).expect("a bisection serializes");
    if let Some(map) = value.as_object_mut() {
        map.insert("schema_version".to_owned(), SCHEMA_VERSION.into());
    }
    let mut out = serde_json::to_string_pretty(&value).expect("JSON serializes");
    out.push('\n');
    out
}

/// The file: its version beside the bisection's own fields.
#[derive(Deserialize)]
struct File {
    schema_version: serde_json::Value,
    #[serde(flatten)]
    bisection: Bisection,
}

/// Reads and checks the bisection of the range ending at `commit` (the run it is recorded with):
/// the size, the schema version, full hashes, `bad` equal to `commit`, valid benchmark ids, counts
/// that moved, and at most [`MAX_MOVES`] moves. Subjects and function names are shortened to
/// what the history keeps.
pub fn read(path: &Path, commit: &str) -> Result<Bisected> {
    let invalid = |message: String| Error::invalid(path.display(), message);
    let bytes = crate::formats::read_bounded(path, MAX_BYTES)?;
    let File {
        schema_version,
        bisection: file,
    } = serde_json::from_slice(&bytes).map_err(|e| {
        invalid(format!(
            "not the output of `irgate bisect --format json` (line {}, column {}): {e}",
            e.line(),
            e.column()
        ))
    })?;
    if schema_version.as_u64() != Some(u64::from(SCHEMA_VERSION)) {
        return Err(invalid(format!(
            "unsupported schema_version {schema_version}: this irgate reads bisections of \
             schema_version {SCHEMA_VERSION}"
        )));
    }
    if file.moves.len() > MAX_MOVES || file.undecided.len() > MAX_MOVES {
        return Err(invalid(format!(
            "more than {MAX_MOVES} moves: not a bisection the history keeps"
        )));
    }
    if file.bad != commit {
        return Err(invalid(format!(
            "a bisection up to {}, not up to this run's commit {commit}",
            crate::id::escaped(&file.bad)
        )));
    }
    let bisected = Bisected {
        good: file.good,
        moves: file
            .moves
            .into_iter()
            .map(|m| Found {
                benchmark: m.benchmark,
                commit: m.commit,
                subject: shorten(&m.subject),
                before: m.before,
                after: m.after,
                functions: m
                    .functions
                    .iter()
                    .take(MAX_FUNCTIONS)
                    .map(|f| shorten(f))
                    .collect(),
            })
            .collect(),
        undecided: file
            .undecided
            .into_iter()
            .map(|u| Open {
                benchmark: u.benchmark,
                after: u.after,
                through: u.through,
            })
            .collect(),
    };
    check_bisected(&bisected, commit).map_err(invalid)?;
    Ok(bisected)
}

/// `text` to [`MAX_SUBJECT`] characters, `…` marking a cut.
fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_SUBJECT {
        text.to_owned()
    } else {
        let mut cut: String = text.chars().take(MAX_SUBJECT - 1).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bisect::Move;

    #[test]
    fn json_carries_the_version_and_reads_back() {
        let b = Bisection {
            good: "a".repeat(40),
            bad: "b".repeat(40),
            commits: 3,
            benchmarks: 1,
            moves: vec![Move {
                benchmark: "g::f".to_owned(),
                commit: "c".repeat(40),
                subject: "subject".to_owned(),
                before: Some(100),
                after: Some(120),
                functions: vec!["g::f".to_owned()],
                files: Vec::new(),
            }],
            ..Bisection::default()
        };
        let text = json(&b);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["schema_version"], 1);
        assert_eq!(value["moves"][0]["before"], 100);
        assert_eq!(value["moves"][0]["commit"], "c".repeat(40));
        let File {
            schema_version,
            bisection,
        } = serde_json::from_str(&text).unwrap();
        assert_eq!(schema_version, 1);
        assert_eq!(bisection.moves, b.moves);
        assert_eq!((bisection.good, bisection.commits), (b.good, b.commits));
    }

    #[test]
    fn long_text_is_shortened() {
        let long = "é".repeat(MAX_SUBJECT + 5);
        let short = shorten(&long);
        assert_eq!(short.chars().count(), MAX_SUBJECT);
        assert!(short.ends_with('…'));
        assert_eq!(shorten("short"), "short");
    }
}
