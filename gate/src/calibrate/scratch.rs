//! The scratch copy: the working tree copied into one directory whose path is as long as the
//! checkout's ([`scratch_path`]), each variant built there from nothing and run ([`measure`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::variants::{members, rewrite_manifests};
use super::{Build, Variant, check_count, reference};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::measure::collect::{self, Place, Selection};
use crate::measure::fingerprint;
use crate::measure::workspace::Workspace;
use crate::paths::Resolved;

/// The scratch directory calibration copies the checkout at `root` into: a path exactly as long
/// as `root`, so that the paths compiled into the binaries (panic locations, `file!()`,
/// `CARGO_MANIFEST_DIR`) and those the benchmark process sees keep their lengths. A binary
/// benchmark measured 297,472 Ir in a checkout and 301,151 Ir in a copy whose path was 34 bytes
/// longer, so a copy at another length measures the path, not layout. `<temp>/igc/s` padded
/// with `x` to the length, else (a short checkout path, such as the pinned container's
/// `/irgate`) a sibling of the checkout whose name ends in `~` in place of its last character.
pub fn scratch_path(root: &Path) -> Result<PathBuf> {
    let length = root.as_os_str().len();
    let base = std::env::temp_dir().join("igc").join("s");
    let base_length = base.as_os_str().len();
    if length >= base_length {
        let mut path = base.into_os_string();
        path.push("x".repeat(length - base_length));
        let mut path = PathBuf::from(path);
        if path == root {
            // The checkout is the scratch path itself: its neighbour `t...`.
            path.set_file_name(format!("t{}", "x".repeat(length - base_length)));
        }
        return Ok(path);
    }
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match (root.parent(), name.chars().count()) {
        (Some(parent), 2..) if name.is_ascii() => {
            Ok(parent.join(format!("{}~", &name[..name.len() - 1])))
        }
        _ => Err(Error::Tool(format!(
            "calibration copies the checkout to a path of the same length as {} (counts move with \
             the path's length), and finds none: move the checkout to a path of at least {} bytes",
            root.display(),
            base_length
        ))),
    }
}

/// Builds and runs each of `variants`, one after the other, in one scratch copy of the working
/// tree at `paths.root` whose path is as long as the checkout's ([`scratch_path`]); each build
/// compiles the workspace's packages from nothing and takes the checkout's builds of the
/// dependencies (`calibrate/seed.rs`), writes its results beside
/// the workspace's (`<target>/irgate/calibrate/<variant>.json`), and is returned.
pub fn measure(
    paths: &Resolved,
    config: &Config,
    selection: &Selection,
    variants: &[Variant],
) -> Result<Vec<Build>> {
    check_count(variants)?;
    // The copy builds in a target directory of its own, inside it, at the same place relative
    // to the copy as the checkout's. Sharing the workspace's was tried and is unsound: cargo
    // hashes a member by its path relative to the workspace root, so a copy's artifacts took the
    // member's place, with dep-info pointing into the copy, and the next `irgate run` kept
    // running the copy's code after the member changed.
    let workspace = Workspace::load(&paths.root)?;
    let results_dir = workspace.target_dir.join("irgate").join("calibrate");
    let src = scratch_path(&paths.root)?;
    let target = match workspace.target_dir.strip_prefix(&paths.root) {
        Ok(inside) => src.join(inside),
        Err(_) => src.join("target"),
    };
    let lock = lock(&src)?;
    // Removed however the calibration ends: done, failed or interrupted.
    let scratch = crate::cleanup::Removed::new(&src);
    let members = members(&paths.root)?;
    let member_names: Vec<String> = members.iter().map(|m| m.name.clone()).collect();
    // The reference build records what each benchmark executed (a second, recording pass of
    // its benchmarks); the others only hash their objects.
    let recorded = if variants.contains(&Variant::Base) {
        Variant::Base
    } else {
        variants[0]
    };
    let mut builds = Vec::new();
    let started = Instant::now();
    for (index, variant) in variants.iter().enumerate() {
        // The mirror removes every file git does not list, the copy's target directory with
        // them: each build compiles the workspace's packages from nothing.
        crate::measure::ab::mirror(&paths.root, &src)?;
        remove_dir(&target)?;
        // The dependencies as the checkout's last build left them: only the workspace's own
        // packages are built again.
        super::seed::seed(&workspace.target_dir, &target, &member_names)?;
        variant.apply(&src, &members)?;
        rewrite_manifests(&src, &paths.root, &members, *variant == Variant::Version)?;
        crate::note!(
            "calibrate: build {} of {}, `{}`, in {}{}",
            index + 1,
            variants.len(),
            variant.name(),
            src.display(),
            estimate(started.elapsed(), index, variants.len())
        );
        let label = format!("{:<10}", variant.name());
        let variant_paths = Resolved {
            root: src.clone(),
            ..paths.clone()
        };
        let place = Place {
            target: target.clone(),
            home: None,
            label: &label,
        };
        let one = Instant::now();
        let variant_selection = Selection {
            record: *variant == recorded,
            ..*selection
        };
        let (mut results, code) = collect::run_with_code(
            &variant_paths,
            config,
            &variant_selection,
            None,
            Some(&place),
        )
        .map_err(|e| Error::Tool(format!("calibration build `{}`: {e}", variant.name())))?;
        results.fingerprint.commit = fingerprint::commit(&paths.root);
        results.fingerprint.workspace_root = paths.root.display().to_string();
        let file = results_dir.join(format!("{}.json", variant.name()));
        crate::formats::results::write(&file, &results)?;
        crate::note!(
            "calibrate: `{}` built and ran in {:.0} s; wrote {}",
            variant.name(),
            one.elapsed().as_secs_f64(),
            file.display()
        );
        builds.push(Build {
            name: variant.name().to_owned(),
            results,
            out_dir: out_dir_digests(&target),
            code: Some(code),
            changed_files: Some(variant.changed_files(&members)),
        });
    }
    // Nothing of the copy is reused: its space is given back.
    remove_dir(&src)?;
    drop(scratch);
    drop(lock);
    narrow_to_reference(&mut builds);
    for build in &builds {
        if let Some(code) = &build.code {
            let file = results_dir.join(format!("{}.json", build.name));
            crate::formats::code::write(&crate::paths::code_record_of(&file), code)?;
        }
    }
    Ok(builds)
}

/// Keeps, of every build's code but the reference's, only the functions the reference's
/// benchmarks executed: all that is compared, and the files written beside the results stay
/// small.
fn narrow_to_reference(builds: &mut [Build]) {
    let Some(executed) = reference(builds)
        .and_then(|b| b.code.as_ref())
        .map(|c| c.benchmarks.clone())
    else {
        return;
    };
    let name = reference(builds).map(|b| b.name.clone());
    for build in builds.iter_mut() {
        if Some(&build.name) == name.as_ref() {
            continue;
        }
        if let Some(code) = &mut build.code {
            code.benchmarks = executed.clone();
            code.narrow_to_executed();
            code.benchmarks.clear();
        }
    }
}

/// ", about N min left" after `done` of `total` builds took `elapsed` (the first build is the
/// estimate of each; nothing before it).
pub fn estimate(elapsed: std::time::Duration, done: usize, total: usize) -> String {
    if done == 0 {
        return String::new();
    }
    let left = elapsed.as_secs_f64() / done as f64 * (total - done) as f64;
    format!(
        " (about {} left, at {:.0} s a build so far)",
        crate::text::duration(left),
        elapsed.as_secs_f64() / done as f64
    )
}

/// Holds the scratch copy for this process: another calibration at once would build into it.
fn lock(src: &Path) -> Result<std::fs::File> {
    let mut path = src.as_os_str().to_owned();
    path.push(".lock");
    let path = PathBuf::from(path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::write(parent, e))?;
    }
    let file = std::fs::File::create(&path).map_err(|e| Error::write(&path, e))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(_) => Err(Error::Tool(format!(
            "another calibration is building in {} ({} is locked): wait for it to finish",
            src.display(),
            path.display()
        ))),
    }
}

/// Removes the directory `dir` and all it holds, if it exists.
fn remove_dir(dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::write(dir, e)),
        _ => Ok(()),
    }
}

/// A digest of every file below `<target>/<profile>/build/<package>-<hash>/out/`, by
/// `<package>/out/<file>` (the hash stripped: it is the same for two builds of one tree).
fn out_dir_digests(target: &Path) -> BTreeMap<String, String> {
    use sha2::Digest as _;
    let mut out = BTreeMap::new();
    let dirs = |dir: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|entries| entries.filter_map(|e| Some(e.ok()?.path())).collect())
            .unwrap_or_default()
    };
    for profile in dirs(target) {
        for package in dirs(&profile.join("build")) {
            let name = package
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let name = name
                .rsplit_once('-')
                .map_or(name.as_str(), |(n, _)| n)
                .to_owned();
            let root = package.join("out");
            let mut stack = vec![root.clone()];
            while let Some(dir) = stack.pop() {
                for path in dirs(&dir) {
                    if path.is_dir() {
                        stack.push(path);
                    } else if let Ok(bytes) = std::fs::read(&path) {
                        let rel = path.strip_prefix(&root).unwrap_or(&path);
                        let digest = format!("{:x}", sha2::Sha256::digest(&bytes));
                        out.insert(format!("{name}/out/{}", rel.display()), digest);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scratch_copy_has_the_checkouts_path_length() {
        for root in [
            "/work/wt-harden2",
            "/home/someone/projects/a-rather-long-checkout-name",
            "/tmp/igc/sx",
        ] {
            let path = scratch_path(Path::new(root)).unwrap();
            assert_eq!(path.as_os_str().len(), root.len(), "{}", path.display());
            assert_ne!(path, Path::new(root));
        }
        // Shorter than the temporary directory's: a sibling.
        let temp = std::env::temp_dir().join("igc").join("s");
        if temp.as_os_str().len() > "/irgate".len() {
            assert_eq!(
                scratch_path(Path::new("/irgate")).unwrap(),
                Path::new("/irgat~")
            );
        }
        assert!(scratch_path(Path::new("/a")).is_err());
        assert_eq!(estimate(std::time::Duration::from_secs(100), 0, 4), "");
        assert_eq!(
            estimate(std::time::Duration::from_secs(200), 1, 4),
            " (about 10 min 0 s left, at 200 s a build so far)"
        );
    }
}
