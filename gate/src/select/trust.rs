//! Whether a code record may map a change: the checks `run --only-touched` and `check`'s change
//! map make, once, here. A record is trusted only where it describes the baselines: of a commit
//! the checkout descends from and, benchmark by benchmark, of the counts that are its baseline
//! (docs/selection.md, "What the code record is trusted for").
//!
//! Every path and name here comes from the repository under test: untrusted text, to escape
//! where it is written.

use std::collections::BTreeSet;
use std::path::Path;

use crate::error::Result;
use crate::formats::baseline::Baselines;
use crate::formats::code;
use crate::git::{self, Commit};
use crate::model::code::CodeRecord;
use crate::paths::Resolved;
use crate::text::{short_commit, terminal};

/// How to take the record again, said after every reason a record is not trusted.
pub(super) const TAKE_AGAIN: &str =
    "take it again with `irgate run --record`, then `irgate refresh`";

/// `record` (the code record of `what`, e.g. "the baselines", as read) when a change can be
/// mapped from it: there is one, it records benchmarks, its commit is clean and its digests were
/// made with this irgate's identity rules; else why not.
pub fn usable(
    record: Result<Option<CodeRecord>>,
    what: &str,
) -> std::result::Result<CodeRecord, String> {
    let record = match record {
        Ok(Some(record)) if !record.benchmarks.is_empty() => record,
        Ok(Some(record)) => {
            let whose = if what.ends_with('s') {
                format!("{what}'")
            } else {
                format!("{what}'s")
            };
            return Err(crate::select::text::empty_record(&whose, &record));
        }
        Ok(None) => {
            return Err(format!(
                "{what} have no code record: take it with `irgate run --record`, then `irgate \
                 refresh` for baselines"
            ));
        }
        Err(error) => return Err(error.to_string()),
    };
    if Commit::parse(&record.commit).dirty {
        return Err(format!(
            "the code record of {what} was taken on uncommitted changes (`{}`): that code is in \
             no commit to diff from",
            terminal(&record.commit)
        ));
    }
    if record.identity != irgate_identity::VERSION {
        return Err(format!(
            "the code record of {what} was taken with the identity rules of version {}, this \
             irgate's are version {}: {TAKE_AGAIN}",
            record.identity,
            irgate_identity::VERSION
        ));
    }
    Ok(record)
}

/// The baselines' code record as selection trusts it, read from the working tree or, with
/// `from` (a revision: a pull request's base), from that commit, never from the tree under
/// test: then the baselines must be that commit's too. The record must be [`usable`] and of a
/// commit HEAD descends from. Each benchmark's entry that does not describe its baseline
/// ([`code::mismatch`]: another count, refreshed without `--record`), or that records nothing
/// executed, is moved to `unrecorded` with the reason, so that benchmark counts as touched.
pub fn baseline_record(
    paths: &Resolved,
    baselines: &Baselines,
    from: Option<&str>,
) -> std::result::Result<CodeRecord, String> {
    let what = "the baselines";
    let root = &paths.root;
    let record = match from {
        None => usable(code::read(&paths.baselines.join(code::BASELINE_FILE)), what)?,
        Some(rev) => {
            let commit = git::resolve(root, rev).ok_or_else(|| {
                format!(
                    "`{}` names no commit in this checkout: fetch it (actions/checkout with \
                     `fetch-depth: 0`) so that the code record is read from it",
                    terminal(rev)
                )
            })?;
            let short = short_commit(&commit).to_owned();
            let dir = git::in_repository(root, &paths.baselines)?;
            // The baselines at the top of the repository: every file is theirs.
            let dir = if dir.is_empty() { ".".to_owned() } else { dir };
            let changed = git::changed_since(root, &commit, &dir)?;
            if !changed.is_empty() {
                return Err(format!(
                    "the change alters the baselines since {short} ({}): the code record and \
                     counts of {short} are the only ones trusted, so every benchmark runs",
                    super::rule::files_text(&changed)
                ));
            }
            let relative = format!("{dir}/{}", code::BASELINE_FILE);
            let origin = format!("{short}:{relative}");
            let record = git::blob(root, &commit, &relative, code::MAX_BYTES)?
                .map(|bytes| code::parse(bytes, Path::new(&origin)))
                .transpose();
            usable(record, &format!("{what} at {short}"))?
        }
    };
    let taken = record.commit.as_str();
    if git::resolve(root, taken).is_none() {
        return Err(format!(
            "the code record of {what} is of commit {}, which this checkout does not hold: fetch \
             the history (actions/checkout with `fetch-depth: 0`), or {TAKE_AGAIN}",
            terminal(short_commit(taken))
        ));
    }
    if !git::is_ancestor(root, taken, "HEAD")? {
        return Err(format!(
            "the code record of {what} is of commit {}, which HEAD does not descend from: it \
             describes a build this history does not hold (taken on another branch, or edited); \
             {TAKE_AGAIN}",
            terminal(short_commit(taken))
        ));
    }
    Ok(of_baselines(record, baselines))
}

/// `record` with each entry that does not describe its benchmark's baseline in `baselines`, or
/// records nothing executed, moved to `unrecorded`, with the reason.
fn of_baselines(mut record: CodeRecord, baselines: &Baselines) -> CodeRecord {
    let entries = std::mem::take(&mut record.benchmarks);
    let taken = record.commit.clone();
    for (id, executed) in entries {
        let nothing =
            executed.functions.values().all(BTreeSet::is_empty) && executed.whole.is_empty();
        let why = if nothing {
            Some(format!(
                "its code record says it executed nothing, which no process does: {TAKE_AGAIN}"
            ))
        } else {
            baselines
                .get(&id)
                .and_then(|(counts, at)| code::mismatch(&executed, &taken, (counts, &at.commit)))
        };
        match why {
            Some(why) => {
                record.unrecorded.insert(id, why);
            }
            None => {
                record.benchmarks.insert(id, executed);
            }
        }
    }
    record
}

#[cfg(test)]
mod tests;
