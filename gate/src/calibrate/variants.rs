//! The builds calibration makes: each [`Variant`], how it perturbs a copy of the workspace,
//! and the manifests of the copy rewritten so that it resolves where it stands.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A build of the working tree that differs from it only in code no benchmark runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// The working tree as it is.
    Base,
    /// The working tree as it is, built again from nothing at the same path: a benchmark whose
    /// count differs from `base`'s has a build that is not reproducible.
    Rebuild,
    /// Every workspace member's version one patch release higher, as a release bumps it: other
    /// symbol hashes, so another order of functions and data in the binary.
    Version,
    /// A function no benchmark calls appended to every member's library.
    Unrelated,
}

/// What a code-free perturbation adds to a library: a function nothing calls.
const UNRELATED_CODE: &str = "
/// Added by `irgate calibrate` to a scratch copy of this crate: code no benchmark runs.
#[doc(hidden)]
#[inline(never)]
pub fn __irgate_calibrate_unrelated(seed: u64) -> u64 {
    let mut x = seed;
    let mut i = 0;
    while i < 64 {
        x = x.rotate_left(7) ^ x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        i += 1;
    }
    x
}
";

impl Variant {
    /// The builds `irgate calibrate` makes by default.
    pub const DEFAULT: &[Variant] = &[
        Variant::Base,
        Variant::Rebuild,
        Variant::Version,
        Variant::Unrelated,
    ];

    /// The reproducibility check alone: the tree built twice from nothing at one path.
    pub const REPRODUCIBILITY: &[Variant] = &[Variant::Base, Variant::Rebuild];

    /// Its name, which names its results file too.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Base => "base",
            Variant::Rebuild => "rebuild",
            Variant::Version => "version",
            Variant::Unrelated => "unrelated",
        }
    }

    /// The files of the copy this variant changes, relative to its root (what a benchmark that
    /// reads files at run time may read differently): the manifests and the lock file for
    /// `version`, the libraries' root files for `unrelated`.
    pub(super) fn changed_files(self, members: &[Member]) -> Vec<String> {
        let shown = |path: &Path| path.display().to_string();
        match self {
            Variant::Base | Variant::Rebuild => Vec::new(),
            Variant::Version => ["Cargo.toml", "Cargo.lock"]
                .into_iter()
                .map(str::to_owned)
                .chain(members.iter().map(|m| shown(&m.manifest)))
                .collect(),
            Variant::Unrelated => members
                .iter()
                .filter_map(|m| m.lib.as_deref())
                .map(shown)
                .collect(),
        }
    }

    /// Perturbs the copy of the workspace at `src`, whose members are `members`.
    pub(super) fn apply(self, src: &Path, members: &[Member]) -> Result<()> {
        match self {
            Variant::Base | Variant::Rebuild => Ok(()),
            Variant::Version => {
                bump_version(
                    &src.join("Cargo.toml"),
                    &["workspace", "package", "version"],
                )?;
                for member in members {
                    bump_version(&src.join(&member.manifest), &["package", "version"])?;
                }
                Ok(())
            }
            Variant::Unrelated => {
                for lib in members.iter().filter_map(|m| m.lib.as_ref()) {
                    let path = src.join(lib);
                    let mut text =
                        std::fs::read_to_string(&path).map_err(|e| Error::read(&path, e))?;
                    text.push_str(UNRELATED_CODE);
                    std::fs::write(&path, text).map_err(|e| Error::write(&path, e))?;
                }
                Ok(())
            }
        }
    }
}

/// A workspace member, by paths relative to the workspace root.
#[derive(Debug, Clone)]
pub(super) struct Member {
    /// Its package name.
    pub(super) name: String,
    /// Its version.
    version: semver::Version,
    /// Its `Cargo.toml`.
    manifest: PathBuf,
    /// Its library's root source file, if it has a library.
    lib: Option<PathBuf>,
}

/// Calls `f` with the name (its `package` key, else its key) and the table of every dependency
/// of a manifest given as a table: `[dependencies]`, `[dev-dependencies]`,
/// `[build-dependencies]`, the same under `[target.*]`, `[workspace.dependencies]` and every
/// `[patch.*]`. A dependency given as a bare version string has no table and is skipped.
fn each_dependency(
    doc: &mut toml_edit::DocumentMut,
    f: &mut dyn FnMut(&str, &mut dyn toml_edit::TableLike),
) {
    const KINDS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];
    fn deps(
        item: Option<&mut toml_edit::Item>,
        f: &mut dyn FnMut(&str, &mut dyn toml_edit::TableLike),
    ) {
        let Some(table) = item.and_then(toml_edit::Item::as_table_like_mut) else {
            return;
        };
        for (key, dep) in table.iter_mut() {
            if let Some(dep) = dep.as_table_like_mut() {
                let name = dep
                    .get("package")
                    .and_then(toml_edit::Item::as_str)
                    .unwrap_or(key.get())
                    .to_owned();
                f(&name, dep);
            }
        }
    }
    fn nested(item: Option<&mut toml_edit::Item>) -> Vec<&mut toml_edit::Item> {
        item.and_then(toml_edit::Item::as_table_like_mut)
            .map(|t| t.iter_mut().map(|(_, item)| item).collect())
            .unwrap_or_default()
    }
    // `TableLike::get_mut` finds without inserting (`Item::get_mut` would add an empty table).
    fn get<'a>(item: &'a mut toml_edit::Item, key: &str) -> Option<&'a mut toml_edit::Item> {
        item.as_table_like_mut()?.get_mut(key)
    }
    let root = doc.as_item_mut();
    for kind in KINDS {
        deps(get(root, kind), f);
    }
    for target in nested(get(root, "target")) {
        for kind in KINDS {
            deps(get(target, kind), f);
        }
    }
    deps(
        get(root, "workspace").and_then(|w| get(w, "dependencies")),
        f,
    );
    for registry in nested(get(root, "patch")) {
        deps(Some(registry), f);
    }
}

/// Rewrites the manifests of the copy at `src` of the workspace at `root` (its root manifest and
/// `members`'), so that the copy builds where it is: a relative `path` dependency that leaves the
/// workspace (`path = "../shared"`) points to the same directory by its absolute path (cargo
/// compiles such a crate by its absolute path either way, so its code does not change); with
/// `bumped` (the `version` variant), a requirement on a member that its raised version no
/// longer meets (`version = "=0.1.0"`) becomes `=` the raised version.
pub(super) fn rewrite_manifests(
    src: &Path,
    root: &Path,
    members: &[Member],
    bumped: bool,
) -> Result<()> {
    let real_root = root.canonicalize().unwrap_or_else(|_| root.to_owned());
    let mut manifests = vec![PathBuf::from("Cargo.toml")];
    manifests.extend(members.iter().map(|m| m.manifest.clone()));
    manifests.dedup();
    for manifest in manifests {
        let copy = src.join(&manifest);
        let Ok(text) = std::fs::read_to_string(&copy) else {
            continue;
        };
        let mut doc: toml_edit::DocumentMut = text
            .parse()
            .map_err(|e: toml_edit::TomlError| Error::invalid(copy.display(), e.to_string()))?;
        let dir = root.join(manifest.parent().unwrap_or(Path::new("")));
        let mut changed = false;
        each_dependency(&mut doc, &mut |name, dep| {
            if let Some(path) = dep.get("path").and_then(toml_edit::Item::as_str)
                && Path::new(path).is_relative()
            {
                let original = dir.join(path);
                let real = original.canonicalize().unwrap_or(original);
                if !real.starts_with(&real_root) {
                    dep.insert("path", toml_edit::value(real.display().to_string()));
                    changed = true;
                }
            }
            let member = members.iter().find(|m| m.name == name);
            if let (true, Some(member)) = (bumped, member) {
                let mut raised = member.version.clone();
                raised.patch += 1;
                let requirement = dep
                    .get("version")
                    .and_then(toml_edit::Item::as_str)
                    .and_then(|v| semver::VersionReq::parse(v).ok());
                if requirement.is_some_and(|r| !r.matches(&raised)) {
                    dep.insert("version", toml_edit::value(format!("={raised}")));
                    changed = true;
                }
            }
        });
        if changed {
            std::fs::write(&copy, doc.to_string()).map_err(|e| Error::write(&copy, e))?;
        }
    }
    Ok(())
}

/// The members of the workspace at `root` (`cargo metadata`), those inside it.
pub(super) fn members(root: &Path) -> Result<Vec<Member>> {
    let metadata =
        crate::measure::workspace::metadata(root, crate::measure::workspace::Scope::MembersOnly)?;
    let inside = |path: &Path| path.strip_prefix(root).ok().map(Path::to_owned);
    Ok(metadata
        .workspace_packages()
        .into_iter()
        .filter_map(|package| {
            let lib = package
                .targets
                .iter()
                .find(|t| {
                    t.kind.iter().any(|k| {
                        matches!(
                            k,
                            cargo_metadata::TargetKind::Lib | cargo_metadata::TargetKind::RLib
                        )
                    })
                })
                .and_then(|t| inside(t.src_path.as_std_path()));
            Some(Member {
                name: package.name.to_string(),
                version: package.version.clone(),
                manifest: inside(package.manifest_path.as_std_path())?,
                lib,
            })
        })
        .collect())
}

/// Raises the version at `key` of the manifest at `manifest` by one patch release, when it holds
/// one there (a member that inherits its version has none: the workspace's is raised).
fn bump_version(manifest: &Path, key: &[&str]) -> Result<()> {
    let text = std::fs::read_to_string(manifest).map_err(|e| Error::read(manifest, e))?;
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| Error::invalid(manifest.display(), e.to_string()))?;
    let Some((last, tables)) = key.split_last() else {
        return Ok(());
    };
    let mut item = doc.as_item_mut();
    for name in tables {
        match item.get_mut(name) {
            Some(inner) => item = inner,
            None => return Ok(()),
        }
    }
    let Some(value) = item.get_mut(last).and_then(toml_edit::Item::as_value_mut) else {
        return Ok(());
    };
    let Some(version) = value.as_str().map(str::to_owned) else {
        return Ok(());
    };
    let mut parsed = semver::Version::parse(&version)
        .map_err(|e| Error::invalid(manifest.display(), format!("version {version:?}: {e}")))?;
    parsed.patch += 1;
    let decor = value.decor().clone();
    *value = parsed.to_string().into();
    *value.decor_mut() = decor;
    std::fs::write(manifest, doc.to_string()).map_err(|e| Error::write(manifest, e))
}

/// Refuses fewer than 2 variants (nothing to compare), more than 10, or one twice.
pub fn check_count(variants: &[Variant]) -> Result<()> {
    if let Some(twice) = variants
        .iter()
        .enumerate()
        .find_map(|(i, v)| variants[..i].contains(v).then_some(v))
    {
        return Err(Error::invalid(
            "irgate calibrate",
            format!("`{}` is named twice", twice.name()),
        ));
    }
    if (2..=10).contains(&variants.len()) {
        return Ok(());
    }
    Err(Error::invalid(
        "irgate calibrate",
        format!(
            "{} variants: calibration compares 2 to 10 builds",
            variants.len()
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_variant_raises_every_version_by_one_patch_release() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            crate::measure::workspace::write_for_tests(&dir.path().join(path), text)
        };
        write(
            "Cargo.toml",
            "[workspace]\nmembers = [\"a\", \"b\"]\n\n[workspace.package]\nversion = \"1.2.3\" # ours\n",
        );
        write(
            "a/Cargo.toml",
            "[package]\nname = \"a\"\nversion = \"0.1.9-rc.1\"\n",
        );
        write(
            "b/Cargo.toml",
            "[package]\nname = \"b\"\nversion.workspace = true\n",
        );
        write("a/src/lib.rs", "//! a\npub fn a() {}\n");
        let members = [
            Member {
                name: "a".into(),
                version: "0.1.9-rc.1".parse().unwrap(),
                manifest: "a/Cargo.toml".into(),
                lib: Some("a/src/lib.rs".into()),
            },
            Member {
                name: "b".into(),
                version: "1.2.3".parse().unwrap(),
                manifest: "b/Cargo.toml".into(),
                lib: None,
            },
        ];
        Variant::Version.apply(dir.path(), &members).unwrap();
        let read = |path: &str| std::fs::read_to_string(dir.path().join(path)).unwrap();
        assert!(
            read("Cargo.toml").ends_with("[workspace.package]\nversion = \"1.2.4\" # ours\n"),
            "{}",
            read("Cargo.toml")
        );
        assert!(read("a/Cargo.toml").contains("version = \"0.1.10-rc.1\""));
        assert!(read("b/Cargo.toml").contains("version.workspace = true"));

        Variant::Unrelated.apply(dir.path(), &members).unwrap();
        let lib = read("a/src/lib.rs");
        assert!(lib.starts_with("//! a\npub fn a() {}\n\n/// Added by `irgate calibrate`"));
        assert!(lib.contains("pub fn __irgate_calibrate_unrelated(seed: u64) -> u64"));

        write(
            "a/Cargo.toml",
            "[package]\nname = \"a\"\nversion = \"one\"\n",
        );
        let error = Variant::Version
            .apply(dir.path(), &members)
            .unwrap_err()
            .to_string();
        assert!(error.contains("a/Cargo.toml: version \"one\""), "{error}");
    }

    #[test]
    fn a_variant_named_twice_is_refused() {
        let error = check_count(&[Variant::Base, Variant::Base]).unwrap_err();
        assert!(
            error.to_string().contains("`base` is named twice"),
            "{error}"
        );
        assert!(check_count(Variant::DEFAULT).is_ok());
        assert!(check_count(Variant::REPRODUCIBILITY).is_ok());
    }

    /// Issue #33, item 13: a copy of a workspace with a relative path dependency outside it, and
    /// a member pinned by another with `=x.y.z`, resolves (`cargo metadata`) after the rewrite,
    /// in the `version` variant too; before it, neither did.
    #[test]
    fn a_copy_resolves_with_an_outside_path_dependency_and_an_exact_pin() {
        let dir = tempfile::tempdir().unwrap();
        let write = crate::measure::workspace::write_for_tests;
        let root = dir.path().join("checkout");
        let shared = dir.path().join("shared");
        write(
            &shared.join("Cargo.toml"),
            "[package]\nname = \"shared\"\nversion = \"0.3.0\"\nedition = \"2021\"\n",
        );
        write(&shared.join("src/lib.rs"), "pub fn s() {}\n");
        let tree = [
            (
                "Cargo.toml",
                "[workspace]\nresolver = \"2\"\nmembers = [\"a\", \"b\"]\n",
            ),
            (
                "a/Cargo.toml",
                "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
                 [dependencies]\nshared = { path = \"../../shared\" }\n",
            ),
            ("a/src/lib.rs", "pub fn a() {}\n"),
            (
                "b/Cargo.toml",
                "[package]\nname = \"b\"\nversion = \"0.2.0\"\nedition = \"2021\"\n\n\
                 [dev-dependencies.a]\npath = \"../a\"\nversion = \"=0.1.0\"\n",
            ),
            ("b/src/lib.rs", "pub fn b() {}\n"),
        ];
        for (path, text) in tree {
            write(&root.join(path), text);
        }
        let members = members(&root).unwrap();
        assert_eq!(members.len(), 2);
        let resolves = |src: &Path| {
            std::process::Command::new(crate::env::cargo())
                .args(["metadata", "--offline", "--format-version", "1"])
                .current_dir(src)
                .output()
                .unwrap()
                .status
                .success()
        };
        for variant in [Variant::Base, Variant::Version] {
            // A scratch copy elsewhere, as calibration makes it.
            let src = dir.path().join("scratch").join(variant.name()).join("copy");
            for (path, text) in tree {
                write(&src.join(path), text);
            }
            variant.apply(&src, &members).unwrap();
            assert!(
                !resolves(&src),
                "{}: resolved before the rewrite",
                variant.name()
            );
            rewrite_manifests(&src, &root, &members, variant == Variant::Version).unwrap();
            assert!(
                resolves(&src),
                "{}: does not resolve: {}",
                variant.name(),
                std::fs::read_to_string(src.join("a/Cargo.toml")).unwrap()
            );
            let a = std::fs::read_to_string(src.join("a/Cargo.toml")).unwrap();
            let real = shared.canonicalize().unwrap();
            assert!(a.contains(&format!("path = \"{}\"", real.display())), "{a}");
            let b = std::fs::read_to_string(src.join("b/Cargo.toml")).unwrap();
            let pin = if variant == Variant::Version {
                "=0.1.1"
            } else {
                "=0.1.0"
            };
            assert!(b.contains(&format!("version = \"{pin}\"")), "{b}");
        }
    }
}
