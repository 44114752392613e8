//! What a path held, as an observed input keeps it: a digest of its content, of its listing (a
//! directory whose entries a process listed), or its absence. The record pass writes these and
//! selection computes them again, so both sides use this one function.

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

pub use crate::model::code::{ABSENT, UNNAMED_PATH};

/// Linux's `O_NONBLOCK` (x86-64 and most architectures).
const O_NONBLOCK: i32 = 0o4000;

/// The key of a path that names a directory's listing ends with this.
pub const LISTING: char = '/';

/// What a path that was only looked at (stat, access) keeps: its kind, one of these
/// ([`ABSENT`] first), after following links.
pub const KINDS: &[&str] = &[ABSENT, "file", "dir", "special"];

const _: () = assert!(KINDS.len() + 1 == crate::model::code::INPUT_WORDS.len());

/// Whether `key` names a directory's listing ([`LISTING`]; `/` itself is the root).
pub fn is_listing(key: &str) -> bool {
    key.len() > 1 && key.ends_with(LISTING)
}

/// The kind of what the path of `key` holds now (one of [`KINDS`]).
pub fn kind(root: &Path, key: &str) -> &'static str {
    match std::fs::metadata(resolve(root, key)) {
        Err(_) => ABSENT,
        Ok(meta) if meta.is_file() => "file",
        Ok(meta) if meta.is_dir() => "dir",
        Ok(_) => "special",
    }
}

/// What the path of `key` holds now, in the form `recorded` (what a record kept of it) takes:
/// its kind where the record kept a kind, else its [`digest`].
pub fn now(root: &Path, key: &str, recorded: &str) -> String {
    if KINDS.contains(&recorded) && !is_listing(key) {
        kind(root, key).to_owned()
    } else {
        digest(root, key)
    }
}

/// What the path of `key` holds now, `root` the workspace root that relative keys start from:
/// [`ABSENT`], or a digest (32 hex digits) of its kind and content, with a link's target; of a
/// directory, its kind only, or its sorted entries when `key` names its listing ([`LISTING`]).
/// A device, pipe or socket is never opened: its kind is its digest.
pub fn digest(root: &Path, key: &str) -> String {
    let listed = is_listing(key);
    let path = resolve(root, key.trim_end_matches(LISTING));
    let mut hasher = Sha256::new();
    let Ok(meta) = std::fs::symlink_metadata(&path) else {
        return ABSENT.to_owned();
    };
    if meta.file_type().is_symlink() {
        hasher.update(b"link\0");
        if let Ok(target) = std::fs::read_link(&path) {
            hasher.update(target.as_os_str().as_encoded_bytes());
        }
        hasher.update(b"\0");
    }
    match std::fs::metadata(&path) {
        Err(_) => hasher.update(b"dangling"),
        Ok(meta) if meta.is_dir() => {
            hasher.update(b"dir\0");
            if listed {
                let mut names: Vec<Vec<u8>> = std::fs::read_dir(&path)
                    .map(|entries| {
                        entries
                            .filter_map(|e| e.ok())
                            .map(|e| e.file_name().as_encoded_bytes().to_vec())
                            .collect()
                    })
                    .unwrap_or_default();
                names.sort();
                for name in names {
                    hasher.update(&name);
                    hasher.update(b"\0");
                }
            }
        }
        Ok(meta) if meta.is_file() => {
            hasher.update(b"file\0");
            // Without blocking, and read only if still a regular file once open: a file swapped
            // for a pipe since it was looked at would otherwise hang the read.
            use std::os::unix::fs::OpenOptionsExt;
            let opened = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(O_NONBLOCK)
                .open(&path)
                .ok()
                .filter(|file| file.metadata().is_ok_and(|meta| meta.is_file()));
            match opened {
                Some(mut file) => {
                    let mut buffer = vec![0u8; 1 << 16];
                    loop {
                        match file.read(&mut buffer) {
                            Ok(0) => break,
                            Ok(n) => hasher.update(&buffer[..n]),
                            Err(_) => {
                                hasher.update(b"\0unreadable");
                                break;
                            }
                        }
                    }
                }
                None => hasher.update(b"unreadable"),
            }
        }
        Ok(meta) => {
            use std::os::unix::fs::FileTypeExt;
            let kind = meta.file_type();
            hasher.update(match () {
                () if kind.is_fifo() => "fifo",
                () if kind.is_socket() => "socket",
                () if kind.is_char_device() => "char device",
                _ => "block device",
            });
        }
    }
    hasher.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The path of `key`: relative keys start at `root`.
fn resolve(root: &Path, key: &str) -> PathBuf {
    if key.starts_with('/') {
        PathBuf::from(key)
    } else {
        root.join(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_listing_links_and_absence_each_change_the_digest() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("d")).unwrap();
        std::fs::write(root.join("d/a"), b"one").unwrap();
        let file = digest(root, "d/a");
        assert!(file.len() == 32 && file != ABSENT);
        assert_eq!(digest(root, "d/missing"), ABSENT);
        let (whole, listing) = (digest(root, "d"), digest(root, "d/"));
        assert_ne!(whole, listing);
        std::fs::write(root.join("d/b"), b"two").unwrap();
        // A new entry changes the listing, not the directory's kind.
        assert_eq!(digest(root, "d"), whole);
        assert_ne!(digest(root, "d/"), listing);
        std::fs::write(root.join("d/a"), b"uno").unwrap();
        assert_ne!(digest(root, "d/a"), file);
        // The same content, same digest; an absolute key reads the same file.
        std::fs::write(root.join("d/a"), b"one").unwrap();
        assert_eq!(digest(root, "d/a"), file);
        assert_eq!(
            digest(Path::new("/"), &root.join("d/a").to_string_lossy()),
            file
        );
        std::os::unix::fs::symlink("a", root.join("d/l")).unwrap();
        assert_ne!(digest(root, "d/l"), file, "a link is not its target");
        // Looked at only: the kind, whatever the content.
        assert_eq!(kind(root, "d/a"), "file");
        assert_eq!(now(root, "d/a", "file"), "file");
        assert_eq!(now(root, "d/a", &file), file);
        assert_eq!(now(root, "d", "dir"), "dir");
        assert_eq!(now(root, "d/gone", "file"), ABSENT);
        assert_eq!(now(root, "/", "dir"), "dir", "the root is no listing");
        // A pipe is never opened (a read would wait for a writer): its kind is its digest.
        let made = std::process::Command::new("mkfifo")
            .arg(root.join("d/pipe"))
            .status()
            .unwrap();
        assert!(made.success());
        assert_eq!(kind(root, "d/pipe"), "special");
        assert_eq!(digest(root, "d/pipe").len(), 32);
    }
}
