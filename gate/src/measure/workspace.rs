//! The Cargo workspace irgate works in, read with `cargo metadata`: its root, its target
//! directory, and its callgrind suites (bench targets written with gungraun or iai-callgrind).

use std::path::{Path, PathBuf};

use cargo_metadata::{Metadata, MetadataCommand, Package, PackageId, TargetKind};

use crate::error::{Error, Result};
use crate::measure::library::Library;

/// A Cargo workspace as irgate needs it.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The workspace root (where `Cargo.toml` with `[workspace]`, or the lone package, is).
    pub root: PathBuf,
    /// Cargo's target directory (honours `CARGO_TARGET_DIR` and `build.target-dir`).
    pub target_dir: PathBuf,
    /// Every bench target of the workspace's members, with the callgrind library its package
    /// depends on, if any.
    pub benches: Vec<BenchTarget>,
    /// The metadata, for the questions asked later.
    metadata: Metadata,
}

/// One `[[bench]]` target of a workspace member.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchTarget {
    /// The package.
    pub package: String,
    /// The bench target's name (`cargo bench --bench NAME`).
    pub bench: String,
    /// Its source file.
    pub src_path: PathBuf,
    /// Features the target requires (`required-features`).
    pub required_features: Vec<String>,
    /// gungraun or iai-callgrind, when the package depends on one (with all features on).
    pub library: Option<Library>,
}

impl BenchTarget {
    /// Whether this target is a callgrind suite: its package depends on gungraun or iai-callgrind
    /// and its source calls that library's `main!`.
    pub fn is_callgrind_suite(&self) -> bool {
        let Some(library) = &self.library else {
            return false;
        };
        let Ok(source) = std::fs::read_to_string(&self.src_path) else {
            return false;
        };
        let krate = library.kind.crate_ident();
        source.contains(&format!("{krate}::main!"))
            || (source.contains(krate) && source.contains("main!("))
    }
}

impl Workspace {
    /// Reads the workspace that `dir` belongs to (`cargo metadata`, all features, so suites
    /// behind a feature are found too).
    pub fn load(dir: &Path) -> Result<Workspace> {
        Ok(Self::from_metadata(&metadata(
            dir,
            Scope::WithDependencies,
        )?))
    }

    fn from_metadata(metadata: &Metadata) -> Workspace {
        let members: Vec<&Package> = metadata.workspace_packages();
        let benches = members
            .iter()
            .flat_map(|package| {
                let library = library_of(metadata, &package.id);
                package
                    .targets
                    .iter()
                    .filter(|target| target.kind.contains(&TargetKind::Bench))
                    .map(move |target| BenchTarget {
                        package: package.name.to_string(),
                        bench: target.name.clone(),
                        src_path: target.src_path.clone().into_std_path_buf(),
                        required_features: target.required_features.clone(),
                        library: library.clone(),
                    })
            })
            .collect();
        Workspace {
            root: metadata.workspace_root.clone().into_std_path_buf(),
            target_dir: metadata.target_directory.clone().into_std_path_buf(),
            benches,
            metadata: metadata.clone(),
        }
    }

    /// Every member's directory (relative to the root, `/`-separated, empty for the root) and
    /// whether one of the packages `suites` (those with the suites that run; every package with
    /// a callgrind suite when empty) depends on it, directly or not (any kind of dependency), or
    /// is it.
    pub fn members(&self, suites: &[String]) -> Vec<(String, bool)> {
        let roots: Vec<&str> = if suites.is_empty() {
            self.callgrind_suites()
                .map(|b| b.package.as_str())
                .collect()
        } else {
            suites.iter().map(String::as_str).collect()
        };
        let used = used_by(&self.metadata, &roots);
        self.metadata
            .workspace_packages()
            .iter()
            .map(|package| {
                let dir = package
                    .manifest_path
                    .parent()
                    .and_then(|d| d.strip_prefix(&self.metadata.workspace_root).ok())
                    .map(|d| d.as_str().replace('\\', "/"))
                    .unwrap_or_default();
                (dir, used.contains(&package.id))
            })
            .collect()
    }

    /// Directories below the root (at most three levels down; not `target`, nor hidden ones)
    /// whose `Cargo.toml` is no member's and names gungraun or iai-callgrind: a separate workspace
    /// (such as a `bench/` package with a `[workspace]` of its own) where irgate would find
    /// suites. Relative to the root, `/`-separated, sorted; at most a few.
    pub fn nested_suites(&self) -> Vec<String> {
        let members: std::collections::BTreeSet<PathBuf> = self
            .metadata
            .workspace_packages()
            .iter()
            .map(|p| p.manifest_path.clone().into_std_path_buf())
            .collect();
        let mut found = Vec::new();
        let mut dirs = vec![(self.root.clone(), 0)];
        while let Some((dir, depth)) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if !entry.file_type().is_ok_and(|t| t.is_dir())
                    || name.starts_with('.')
                    || name == "target"
                    || path == self.target_dir
                {
                    continue;
                }
                let manifest = path.join("Cargo.toml");
                let names_a_library = !members.contains(&manifest)
                    && std::fs::metadata(&manifest).is_ok_and(|m| m.len() < 1 << 20)
                    && std::fs::read_to_string(&manifest).is_ok_and(|text| {
                        text.contains("gungraun") || text.contains("iai-callgrind")
                    });
                if names_a_library && let Ok(relative) = path.strip_prefix(&self.root) {
                    found.push(relative.to_string_lossy().replace('\\', "/"));
                }
                if depth < 2 && found.len() < 5 {
                    dirs.push((path, depth + 1));
                }
            }
        }
        found.sort();
        found
    }

    /// The bench targets that are callgrind suites.
    pub fn callgrind_suites(&self) -> impl Iterator<Item = &BenchTarget> {
        self.benches.iter().filter(|b| b.is_callgrind_suite())
    }

    /// The bench target `bench` of `package`.
    pub fn bench(&self, package: &str, bench: &str) -> Option<&BenchTarget> {
        self.benches
            .iter()
            .find(|b| b.package == package && b.bench == bench)
    }
}

/// The members of the workspace at `root` and whether one of the `suites`' packages depends on
/// each ([`Workspace::members`]); none when the workspace cannot be read (then every file counts
/// as the suites').
pub fn members(root: &Path, suites: &[String]) -> Vec<(String, bool)> {
    Workspace::load(root)
        .map(|workspace| workspace.members(suites))
        .unwrap_or_default()
}

/// The packages named `roots` and every package they depend on (any kind of dependency), from
/// the resolve graph.
fn used_by(metadata: &Metadata, roots: &[&str]) -> std::collections::BTreeSet<PackageId> {
    let mut used = std::collections::BTreeSet::new();
    let Some(resolve) = &metadata.resolve else {
        // Without the graph, every member counts as used.
        return metadata
            .workspace_packages()
            .iter()
            .map(|p| p.id.clone())
            .collect();
    };
    let mut todo: Vec<PackageId> = metadata
        .workspace_packages()
        .iter()
        .filter(|p| roots.contains(&p.name.as_str()))
        .map(|p| p.id.clone())
        .collect();
    while let Some(id) = todo.pop() {
        if !used.insert(id.clone()) {
            continue;
        }
        if let Some(node) = resolve.nodes.iter().find(|n| n.id == id) {
            todo.extend(node.deps.iter().map(|dep| dep.pkg.clone()));
        }
    }
    used
}

/// The callgrind library a package depends on (any kind of dependency), from the resolve graph.
fn library_of(metadata: &Metadata, id: &PackageId) -> Option<Library> {
    let node = metadata
        .resolve
        .as_ref()?
        .nodes
        .iter()
        .find(|n| n.id == *id)?;
    node.deps.iter().find_map(|dep| {
        let package = &metadata[&dep.pkg];
        Library::from_crate(&package.name, &package.version)
    })
}

/// A multi-line tool message on one line, every cause kept: cargo's "Caused by:" lines name what
/// actually failed (a missing git submodule, a manifest that does not parse).
/// What `cargo metadata` resolves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The workspace's members and every dependency, with all features (suites behind a feature
    /// are found too).
    WithDependencies,
    /// The workspace's members alone (`--no-deps`): no lock file is resolved.
    MembersOnly,
}

/// `cargo metadata` of the workspace `dir` belongs to: the one way irgate runs it.
pub fn metadata(dir: &Path, scope: Scope) -> Result<Metadata> {
    let mut command = MetadataCommand::new();
    command.current_dir(dir);
    match scope {
        Scope::WithDependencies => command.features(cargo_metadata::CargoOpt::AllFeatures),
        Scope::MembersOnly => command.no_deps(),
    };
    command.exec().map_err(|error| {
        Error::Tool(format!(
            "{}: cannot read the Cargo workspace (`cargo metadata`): {}",
            dir.display(),
            one_line(&error.to_string())
        ))
    })
}

fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && *line != "Caused by:")
        .collect::<Vec<_>>()
        .join("; ")
}

/// Writes `text` to `path`, creating its directories: the manifests and sources of the
/// workspaces tests build.
#[cfg(test)]
pub(crate) fn write_for_tests(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_a_suite_depends_on_are_used_and_the_others_not() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| write_for_tests(&dir.path().join(path), text);
        write(
            "Cargo.toml",
            "[workspace]\nresolver = \"2\"\nmembers = [\"suite\", \"lib\", \"deep\", \"tool\"]\n",
        );
        let package = |name: &str, deps: &str| {
            format!(
                "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
                 [dependencies]\n{deps}"
            )
        };
        write(
            "suite/Cargo.toml",
            &package("suite", "lib = { path = \"../lib\" }\n"),
        );
        write(
            "lib/Cargo.toml",
            &package("lib", "deep = { path = \"../deep\" }\n"),
        );
        write("deep/Cargo.toml", &package("deep", ""));
        write(
            "tool/Cargo.toml",
            &package("tool", "lib = { path = \"../lib\" }\n"),
        );
        for member in ["suite", "lib", "deep", "tool"] {
            write(&format!("{member}/src/lib.rs"), "");
        }
        let workspace = Workspace::load(dir.path()).unwrap();
        let mut members = workspace.members(&["suite".to_owned()]);
        members.sort();
        assert_eq!(
            members,
            [
                ("deep".to_owned(), true),
                ("lib".to_owned(), true),
                ("suite".to_owned(), true),
                ("tool".to_owned(), false),
            ]
        );
    }

    #[test]
    fn a_separate_workspace_below_with_a_suite_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| write_for_tests(&dir.path().join(path), text);
        write(
            "Cargo.toml",
            "[package]\nname = \"zip\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        );
        write("src/lib.rs", "");
        // The bench package is a workspace of its own, as some repositories keep it.
        write(
            "bench/Cargo.toml",
            "[package]\nname = \"zip-bench\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [workspace]\n\n[dev-dependencies]\ngungraun = \"0.19\"\n",
        );
        // Not suites: a manifest without a callgrind library, and one under target/.
        write("fuzz/Cargo.toml", "[package]\nname = \"zip-fuzz\"\n");
        write(
            "target/x/Cargo.toml",
            "[dev-dependencies]\ngungraun = \"0.19\"\n",
        );
        let workspace = Workspace::load(dir.path()).unwrap();
        assert_eq!(workspace.nested_suites(), ["bench"]);
        let error = crate::measure::suite::resolve(&[], &workspace).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("a package outside this workspace names one (`bench`)"),
            "{error}"
        );
    }

    #[test]
    fn a_metadata_failure_keeps_its_causes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dependencies]\nsub = { path = \"vendor/sub\" }\n",
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "").unwrap();
        let error = Workspace::load(dir.path()).unwrap_err().to_string();
        assert!(error.contains("cannot read the Cargo workspace"), "{error}");
        // The cause cargo gives after "Caused by:", the missing manifest, is kept.
        assert!(error.contains("vendor/sub/Cargo.toml"), "{error}");
        assert!(!error.contains('\n'), "{error}");
    }
}
