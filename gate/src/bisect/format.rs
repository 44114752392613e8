//! `irgate bisect --format json`, read back by `irgate history add --bisect` (in CI it comes from
//! an artifact: untrusted). [`crate::bisect::text::json`] writes it; docs/bisect.md lists its
//! fields. Only what the history keeps is read ([`Bisected`]); fields are only added within a
//! schema version, so unknown ones are ignored.

use std::io::Read;
use std::path::Path;

use serde::Deserialize;

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

#[derive(Deserialize)]
struct File {
    schema_version: serde_json::Value,
    good: String,
    bad: String,
    moves: Vec<Move>,
    #[serde(default)]
    undecided: Vec<Undecided>,
}

#[derive(Deserialize)]
struct Move {
    benchmark: String,
    commit: String,
    subject: String,
    before: Option<u64>,
    after: Option<u64>,
    #[serde(default)]
    functions: Vec<String>,
}

#[derive(Deserialize)]
struct Undecided {
    benchmark: String,
    after: String,
    through: String,
}

/// Reads and checks the bisection of the range ending at `commit` (the run it is recorded with):
/// the size, the schema version, full hashes, `bad` equal to `commit`, valid benchmark ids, counts
/// that moved, and at most [`MAX_MOVES`] moves. Subjects and function names are shortened to
/// what the history keeps.
pub fn read(path: &Path, commit: &str) -> Result<Bisected> {
    let invalid = |message: String| Error::invalid(path.display(), message);
    let read_error = |source| Error::read(path, source);
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(invalid(format!(
            "larger than {MAX_BYTES} bytes: not the output of `irgate bisect --format json`"
        )));
    }
    let file: File = serde_json::from_slice(&bytes).map_err(|e| {
        invalid(format!(
            "not the output of `irgate bisect --format json` (line {}, column {}): {e}",
            e.line(),
            e.column()
        ))
    })?;
    if file.schema_version.as_u64() != Some(u64::from(SCHEMA_VERSION)) {
        return Err(invalid(format!(
            "unsupported schema_version {}: this irgate reads bisections of schema_version \
             {SCHEMA_VERSION}",
            file.schema_version
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

    #[test]
    fn long_text_is_shortened() {
        let long = "é".repeat(MAX_SUBJECT + 5);
        let short = shorten(&long);
        assert_eq!(short.chars().count(), MAX_SUBJECT);
        assert!(short.ends_with('…'));
        assert_eq!(shorten("short"), "short");
    }
}
