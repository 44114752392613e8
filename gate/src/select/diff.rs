//! The diff as git gives it: which files changed and how (`git diff --raw -z`), and the
//! untracked files of a working tree.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{Error, Result};
use crate::git;

/// Options that keep the user's git configuration out of the output irgate parses: no colours,
/// no external diff or text conversion, paths from the top of the repository.
const PLAIN: &[&str] = &[
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
];

/// How a file changed between the two sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Status {
    /// Added (or untracked in the working tree).
    Added,
    /// Deleted.
    Deleted,
    /// Modified in place.
    Modified,
    /// Renamed from another path (with or without edits).
    Renamed,
    /// Copied from another path.
    Copied,
    /// Its type changed (a file became a link or a submodule), or git reported a status irgate
    /// does not know.
    Other,
}

/// The blob name git writes for a file of the working tree.
pub(super) const NO_BLOB: &str = "0000000000000000000000000000000000000000";

/// One changed file, its paths relative to the top of the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Entry {
    /// How it changed.
    pub status: Status,
    /// The path on the base side (for renames and copies, the old one).
    pub old: Option<String>,
    /// The path on the head side.
    pub new: Option<String>,
    /// The git modes on either side (`100644`, `100755`, `120000` for a link, `160000` for a
    /// submodule, `000000` where the file does not exist).
    pub modes: (String, String),
    /// The blobs on either side; [`NO_BLOB`] for a file of the working tree.
    pub blobs: (String, String),
    /// Whether its paths are UTF-8 (else they were read lossily).
    pub utf8: bool,
}

/// The changed files between `base` and `head` (the working tree when `None`), from
/// `git diff --raw -z -M`, run at the top of the repository.
pub(super) fn files(top: &Path, base: &str, head: Option<&str>) -> Result<Vec<Entry>> {
    let mut args = vec!["diff", "--raw", "-z", "-M", "--no-abbrev"];
    args.extend_from_slice(PLAIN);
    args.push(base);
    args.extend(head);
    args.push("--");
    let mut fields: Vec<Vec<u8>> = Vec::new();
    git::records(top, &args, 0, &mut |field| {
        fields.push(field.to_vec());
        Ok(())
    })?;
    parse_raw(&fields)
}

/// Reads `git diff --raw -z` output split at its NUL bytes: `:old new sha sha STATUS`, then one
/// path, or two for renames and copies.
pub(super) fn parse_raw(fields: &[Vec<u8>]) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    let mut fields = fields.iter().filter(|f| !f.is_empty());
    let bad = |what: &str| Error::Tool(format!("git diff --raw: unexpected output: {what}"));
    while let Some(head) = fields.next() {
        let mut utf8 = true;
        let head = String::from_utf8_lossy(head);
        let parts: Vec<&str> = head.trim_start_matches(':').split(' ').collect();
        let [old_mode, new_mode, old_blob, new_blob, status] = parts[..] else {
            return Err(bad(&head));
        };
        let letter = status.chars().next().ok_or_else(|| bad(&head))?;
        let mut path = || -> Result<Option<String>> {
            let raw = fields.next().ok_or_else(|| bad("a path is missing"))?;
            utf8 &= std::str::from_utf8(raw).is_ok();
            Ok(Some(String::from_utf8_lossy(raw).into_owned()))
        };
        let first = path()?;
        let (status, old, new) = match letter {
            'A' => (Status::Added, None, first),
            'D' => (Status::Deleted, first, None),
            'M' => (Status::Modified, first.clone(), first),
            'R' => (Status::Renamed, first, path()?),
            'C' => (Status::Copied, first, path()?),
            _ => (Status::Other, first.clone(), first),
        };
        entries.push(Entry {
            status,
            old,
            new,
            modes: (old_mode.to_owned(), new_mode.to_owned()),
            blobs: (old_blob.to_owned(), new_blob.to_owned()),
            utf8,
        });
    }
    Ok(entries)
}

/// The untracked files of the working tree that git does not ignore, as added files.
pub(super) fn untracked(top: &Path) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    let args = [
        "ls-files",
        "--others",
        "--exclude-standard",
        "-z",
        "--full-name",
    ];
    git::records(top, &args, 0, &mut |path| {
        if !path.is_empty() {
            entries.push(Entry {
                status: Status::Added,
                old: None,
                new: Some(String::from_utf8_lossy(path).into_owned()),
                modes: ("000000".into(), "100644".into()),
                blobs: (NO_BLOB.into(), NO_BLOB.into()),
                utf8: std::str::from_utf8(path).is_ok(),
            });
        }
        Ok(())
    })?;
    Ok(entries)
}

/// The changed lines on the head side of every file between `base` and `head` (the working
/// tree when `None`), by path from the top, from the hunk headers of one `git diff -U0` (no
/// context lines; each file diffed as text). A hunk that only removes lines counts as the line
/// before it.
pub(super) fn changed_lines(
    top: &Path,
    base: &str,
    head: Option<&str>,
) -> Result<BTreeMap<String, Vec<(u32, u32)>>> {
    let mut args = vec!["diff", "-U0", "--text", "--no-renames"];
    args.extend_from_slice(PLAIN);
    args.push(base);
    args.extend(head);
    args.push("--");
    let mut lines: BTreeMap<String, Vec<(u32, u32)>> = BTreeMap::new();
    let mut file: Option<String> = None;
    git::records(top, &args, b'\n', &mut |line| {
        if let Some(path) = line.strip_prefix(b"+++ ") {
            // `+++ b/path`, or `+++ /dev/null` for a deleted file.
            file = path
                .strip_prefix(b"b/")
                .map(|p| String::from_utf8_lossy(p).into_owned());
        } else if let Some((start, count)) = parse_header(line)?
            && let Some(file) = &file
        {
            let range = if count == 0 {
                (start.max(1), start.max(1))
            } else {
                (start, start.saturating_add(count - 1))
            };
            lines.entry(file.clone()).or_default().push(range);
        }
        Ok(())
    })?;
    Ok(lines)
}

/// The head side `(start, count)` of a hunk header `@@ -a[,b] +c[,d] @@ ...`; `None` for any other
/// line (every line of a hunk's body starts with ` `, `+`, `-` or `\`, so none is mistaken for a
/// header).
fn parse_header(line: &[u8]) -> Result<Option<(u32, u32)>> {
    let Some(rest) = line.strip_prefix(b"@@ -") else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(rest);
    let bad = || Error::Tool(format!("git diff: unreadable hunk header `@@ -{text}`"));
    let (ranges, _) = text.split_once(" @@").ok_or_else(bad)?;
    let (_, new) = ranges.split_once(" +").ok_or_else(bad)?;
    let range = match new.split_once(',') {
        Some((start, count)) => start.parse().ok().zip(count.parse().ok()),
        None => new.parse().ok().map(|start| (start, 1)),
    };
    range.map(Some).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunk_headers_give_the_head_side_with_and_without_counts() {
        assert_eq!(parse_header(b"@@ -3 +3 @@ fn a() {").unwrap(), Some((3, 1)));
        assert_eq!(parse_header(b"@@ -10,0 +11,2 @@").unwrap(), Some((11, 2)));
        assert_eq!(
            parse_header(b"@@ -20,3 +22,0 @@ impl X {").unwrap(),
            Some((22, 0))
        );
        assert_eq!(
            parse_header(b"+@@ -1 +1 @@ a line of the file").unwrap(),
            None
        );
        assert!(parse_header(b"@@ -1 +x @@").is_err());
        assert!(parse_header(b"@@ -1 @@").is_err());
    }

    #[test]
    fn raw_entries_with_renames_copies_and_paths_that_are_not_utf8() {
        let fields: Vec<Vec<u8>> = vec![
            b":100644 100644 aa bb M".to_vec(),
            b"src/a b.rs".to_vec(),
            b":100644 100644 aa bb R087".to_vec(),
            b"old\nname.rs".to_vec(),
            "new \u{1f600}.rs".as_bytes().to_vec(),
            b":000000 100644 00 bb A".to_vec(),
            b"bad\xffname".to_vec(),
            b":100644 120000 aa bb T".to_vec(),
            b"link".to_vec(),
            b":100644 100644 aa bb C100".to_vec(),
            b"x".to_vec(),
            b"y".to_vec(),
        ];
        let entries = parse_raw(&fields).unwrap();
        assert_eq!(entries.len(), 5);
        assert_eq!(entries[0].status, Status::Modified);
        assert_eq!(entries[0].new.as_deref(), Some("src/a b.rs"));
        assert_eq!(entries[0].modes, ("100644".into(), "100644".into()));
        assert_eq!(entries[1].status, Status::Renamed);
        assert_eq!(entries[1].old.as_deref(), Some("old\nname.rs"));
        assert_eq!(entries[1].new.as_deref(), Some("new \u{1f600}.rs"));
        assert_eq!(entries[2].status, Status::Added);
        assert!(!entries[2].utf8 && entries[0].utf8 && entries[1].utf8);
        assert_eq!(entries[2].new.as_deref(), Some("bad\u{fffd}name"));
        assert_eq!(entries[3].status, Status::Other);
        assert_eq!(entries[3].modes.1, "120000");
        assert_eq!(entries[4].status, Status::Copied);
        assert!(parse_raw(&[b":100644 M".to_vec(), b"x".to_vec()]).is_err());
        assert!(parse_raw(&[b":100644 100644 a b M".to_vec()]).is_err());
    }
}
