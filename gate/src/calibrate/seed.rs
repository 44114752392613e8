//! The scratch copy's target directory, seeded with the checkout's builds of its dependencies:
//! each calibration build then compiles the workspace's own packages (and runs their build
//! scripts) from nothing, and takes every other package as the checkout's last build left it.
//!
//! What is copied is every entry of `<target>/<profile>/{deps,build,.fingerprint}` that does not
//! belong to a workspace member: cargo names them `<name>-<16 hex digits>` (with `lib` before and
//! an extension after, in `deps/`). A member's entries are left out, so its fingerprint is missing
//! and cargo builds it again, build script included: calibration still sees a member whose build
//! is not reproducible. A dependency's build is taken as it is, once: a dependency whose build
//! script draws random data is not told apart here (docs/calibration.md says so).

use std::collections::BTreeSet;
use std::path::Path;

use crate::error::{Error, Result};

/// The folders of a profile's output that cargo reuses between builds.
const REUSED: [&str; 3] = ["deps", "build", ".fingerprint"];

/// Copies into `scratch_target` what of `checkout_target` belongs to no package named in
/// `members` (package names; their crate names, `-` made `_`, are matched too); returns how many
/// bytes it copied. A checkout with no build yet copies nothing.
pub fn seed(checkout_target: &Path, scratch_target: &Path, members: &[String]) -> Result<u64> {
    let names: BTreeSet<String> = members
        .iter()
        .flat_map(|name| [name.clone(), name.replace('-', "_")])
        .collect();
    let mut copied = 0;
    let Ok(profiles) = std::fs::read_dir(checkout_target) else {
        return Ok(0);
    };
    for profile in profiles.flatten() {
        if !profile.path().join(".fingerprint").is_dir() {
            continue;
        }
        for folder in REUSED {
            let from = profile.path().join(folder);
            let Ok(entries) = std::fs::read_dir(&from) else {
                continue;
            };
            let to = scratch_target.join(profile.file_name()).join(folder);
            std::fs::create_dir_all(&to).map_err(|e| Error::write(&to, e))?;
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if package_of(&name).is_none_or(|package| is_member(package, &names)) {
                    continue;
                }
                copied += copy(&entry.path(), &to.join(&name))?;
            }
        }
    }
    Ok(copied)
}

/// The package or crate name of a file cargo names `[lib]<name>-<16 hex digits>[.<extension>]`;
/// `None` for any other name (left out: only what cargo hashed is reused).
fn package_of(file: &str) -> Option<&str> {
    let stem = file.split_once('.').map_or(file, |(stem, _)| stem);
    let (name, hash) = stem.rsplit_once('-')?;
    if hash.len() != 16 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) || name.is_empty() {
        return None;
    }
    Some(name)
}

/// Whether `name` ([`package_of`]) is one of `names`, with or without the `lib` cargo puts before
/// a library's files (a dependency named `lib…` is then rebuilt: nothing is lost).
fn is_member(name: &str, names: &BTreeSet<String>) -> bool {
    names.contains(name) || name.strip_prefix("lib").is_some_and(|n| names.contains(n))
}

/// Copies the file or folder `from` to `to` (links as links, each file with its modification
/// time: cargo takes an output newer than what was built from it for a stale one, and rebuilds);
/// the bytes copied.
fn copy(from: &Path, to: &Path) -> Result<u64> {
    let meta = std::fs::symlink_metadata(from).map_err(|e| Error::read(from, e))?;
    if meta.file_type().is_symlink() {
        let link = std::fs::read_link(from).map_err(|e| Error::read(from, e))?;
        std::os::unix::fs::symlink(link, to).map_err(|e| Error::write(to, e))?;
        return Ok(0);
    }
    if meta.is_dir() {
        std::fs::create_dir_all(to).map_err(|e| Error::write(to, e))?;
        let mut bytes = 0;
        for entry in std::fs::read_dir(from)
            .map_err(|e| Error::read(from, e))?
            .flatten()
        {
            bytes += copy(&entry.path(), &to.join(entry.file_name()))?;
        }
        return Ok(bytes);
    }
    let bytes = std::fs::copy(from, to).map_err(|e| Error::write(to, e))?;
    let modified = meta.modified().map_err(|e| Error::read(from, e))?;
    std::fs::File::options()
        .write(true)
        .open(to)
        .and_then(|file| file.set_modified(modified))
        .map_err(|e| Error::write(to, e))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargos_hashed_names_are_told_by_package() {
        assert_eq!(package_of("serde-0123456789abcdef"), Some("serde"));
        assert_eq!(
            package_of("libserde-0123456789abcdef.rlib"),
            Some("libserde")
        );
        assert_eq!(package_of("my-crate-0123456789abcdef.d"), Some("my-crate"));
        assert_eq!(package_of("my_crate-0123456789abcdef"), Some("my_crate"));
        assert_eq!(package_of("callgrind"), None);
        assert_eq!(package_of("x-0123"), None);
        assert_eq!(package_of("-0123456789abcdef"), None);
    }

    #[test]
    fn a_members_files_are_left_out_and_everything_else_is_copied() {
        let dir = tempfile::tempdir().unwrap();
        let (checkout, scratch) = (dir.path().join("t"), dir.path().join("s"));
        let release = checkout.join("release");
        let files = [
            ".fingerprint/my-crate-0123456789abcdef/lib-my_crate",
            ".fingerprint/serde-0123456789abcdef/lib-serde",
            "build/my-crate-1111111111111111/out/drawn.rs",
            "build/cc-2222222222222222/out/x.o",
            "deps/libmy_crate-0123456789abcdef.rlib",
            "deps/my_crate-3333333333333333.d",
            "deps/libserde-0123456789abcdef.rlib",
            "deps/libserde-0123456789abcdef.rmeta",
            "deps/libunrelated.so",
        ];
        for file in files {
            let path = release.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, file).unwrap();
        }
        // The binaries cargo uplifts, and irgate's own results, are not cargo's to reuse.
        std::fs::write(release.join("tool"), "bin").unwrap();
        std::fs::create_dir_all(checkout.join("irgate")).unwrap();
        let copied = seed(&checkout, &scratch, &["my-crate".to_owned()]).unwrap();
        let present = |file: &str| scratch.join("release").join(file).exists();
        for kept in [
            ".fingerprint/serde-0123456789abcdef/lib-serde",
            "build/cc-2222222222222222/out/x.o",
            "deps/libserde-0123456789abcdef.rlib",
            "deps/libserde-0123456789abcdef.rmeta",
        ] {
            assert!(present(kept), "{kept} was not copied");
        }
        for left in [
            ".fingerprint/my-crate-0123456789abcdef",
            "build/my-crate-1111111111111111",
            "deps/libmy_crate-0123456789abcdef.rlib",
            "deps/my_crate-3333333333333333.d",
            "deps/libunrelated.so",
            "tool",
        ] {
            assert!(!present(left), "{left} was copied");
        }
        assert!(!scratch.join("irgate").exists());
        // Each file keeps its modification time, by which cargo tells fresh from stale.
        let rlib = "deps/libserde-0123456789abcdef.rlib";
        let past = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        std::fs::File::options()
            .write(true)
            .open(release.join(rlib))
            .unwrap()
            .set_modified(past)
            .unwrap();
        std::fs::remove_dir_all(&scratch).unwrap();
        seed(&checkout, &scratch, &["my-crate".to_owned()]).unwrap();
        let copied_at = std::fs::metadata(scratch.join("release").join(rlib))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(copied_at, past);
        assert!(copied > 0);
        // No build yet: nothing to copy.
        assert_eq!(seed(&dir.path().join("none"), &scratch, &[]).unwrap(), 0);
    }
}
