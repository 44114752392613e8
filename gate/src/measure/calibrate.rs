//! Calibration's builds: the working tree copied into scratch directories of their own
//! (`<target>/irgate/calibrate/<n>/src`, paths of one length, like A/B), each [`Variant`]
//! perturbed in code no benchmark runs, built with the measurement build and run; and the spread
//! of each benchmark's count over the builds, with the budget it suggests.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::config::Config;
use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::measure::collect::{self, Place, Selection};
use crate::measure::fingerprint;
use crate::measure::paths::Resolved;
use crate::measure::workspace::Workspace;
use crate::model::Results;

/// A build of the working tree that differs from it only in code no benchmark runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Variant {
    /// The working tree as it is.
    Base,
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
    pub const DEFAULT: &[Variant] = &[Variant::Base, Variant::Version, Variant::Unrelated];

    /// Its name, which names its results file too.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Base => "base",
            Variant::Version => "version",
            Variant::Unrelated => "unrelated",
        }
    }

    /// Perturbs the copy of the workspace at `src`, whose members are `members`.
    fn apply(self, src: &Path, members: &[Member]) -> Result<()> {
        match self {
            Variant::Base => Ok(()),
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
struct Member {
    /// Its `Cargo.toml`.
    manifest: PathBuf,
    /// Its library's root source file, if it has a library.
    lib: Option<PathBuf>,
}

/// The members of the workspace at `root` (`cargo metadata`), those inside it.
fn members(root: &Path) -> Result<Vec<Member>> {
    let metadata = cargo_metadata::MetadataCommand::new()
        .current_dir(root)
        .no_deps()
        .exec()
        .map_err(|e| Error::Tool(format!("cargo metadata in {}: {e}", root.display())))?;
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

/// Refuses fewer than 2 variants (nothing to compare) or more than 10 (the scratch copies' paths
/// have one digit, so they keep one length).
pub fn check_count(variants: &[Variant]) -> Result<()> {
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

/// Builds and runs each of `variants` in a scratch copy of the working tree at `paths.root` (one
/// at a time, in the workspace's target directory, so they share the dependencies' builds with
/// each other and with `irgate run`), writes each
/// one's results beside them (`<target>/irgate/calibrate/<variant>.json`) and returns them.
pub fn measure(
    config: &Config,
    paths: &Resolved,
    selection: &Selection,
    variants: &[Variant],
) -> Result<Vec<(String, Results)>> {
    check_count(variants)?;
    // Each copy builds in a target directory of its own (`<dir>/<n>/target`). Sharing the
    // workspace's was tried and is unsound: cargo hashes a member by its path relative to the
    // workspace root, so a copy's artifacts took the member's place, with dep-info pointing into
    // the copy, and the next `irgate run` kept running the copy's code after the member changed.
    let target = Workspace::load(&paths.root)?.target_dir;
    let dir = target.join("irgate").join("calibrate");
    let members = members(&paths.root)?;
    let mut runs = Vec::new();
    for (index, variant) in variants.iter().enumerate() {
        // One digit: every scratch copy's path has the same length.
        let side = dir.join(index.to_string());
        let src = side.join("src");
        crate::measure::ab::mirror(&paths.root, &src)?;
        variant.apply(&src, &members)?;
        eprintln!(
            "irgate: calibrate: build {} of {}, `{}`, in {}",
            index + 1,
            variants.len(),
            variant.name(),
            src.display()
        );
        let started = Instant::now();
        let label = format!("{:<10}", variant.name());
        let place = Place {
            dir: &side,
            label: &label,
        };
        let variant_paths = Resolved {
            root: src.clone(),
            ..paths.clone()
        };
        let mut results =
            collect::run_suites(config, selection, &variant_paths, None, Some(&place))
                .map_err(|e| Error::Tool(format!("calibration build `{}`: {e}", variant.name())))?;
        results.fingerprint.commit = fingerprint::commit(&paths.root);
        let file = dir.join(format!("{}.json", variant.name()));
        crate::formats::results::write(&file, &results)?;
        eprintln!(
            "irgate: calibrate: `{}` built and ran in {:.0} s; wrote {}",
            variant.name(),
            started.elapsed().as_secs_f64(),
            file.display()
        );
        runs.push((variant.name().to_owned(), results));
    }
    Ok(runs)
}

/// How far one benchmark's Ir moved across the builds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spread {
    /// Benchmark id.
    pub benchmark: String,
    /// The smallest count.
    pub min: u64,
    /// The largest count.
    pub max: u64,
    /// The builds whose count differs from the first build's.
    pub moved_in: Vec<String>,
}

impl Spread {
    /// The suggested absolute Ir budget: one and a half times the spread (rounded up), at least
    /// 1 Ir.
    pub fn suggested(&self) -> u64 {
        (3 * (self.max - self.min)).div_ceil(2).max(1)
    }
}

/// The spread of every benchmark over `runs` (name, results), in id order. Every run must hold
/// the same benchmarks, taken in the same environment.
pub fn spreads(runs: &[(String, Results)]) -> Result<Vec<Spread>> {
    let [(first_name, first), rest @ ..] = runs else {
        return Err(Error::invalid(
            "irgate calibrate",
            "needs the results of at least two builds",
        ));
    };
    if rest.is_empty() {
        return Err(Error::invalid(
            first_name,
            "one build only: calibration compares the results of at least two builds",
        ));
    }
    for (name, run) in rest {
        let differ = crate::model::fingerprint::mismatches(&first.fingerprint, &run.fingerprint);
        if let Some(m) = differ.first() {
            return Err(Error::invalid(
                name,
                format!(
                    "taken in another environment than {first_name} ({}: `{}` against `{}`): \
                     calibrate with builds run in one environment",
                    m.field, m.current, m.baseline
                ),
            ));
        }
        for (a, b, name) in [(first, run, name), (run, first, first_name)] {
            if let Some(id) = a
                .benchmarks
                .keys()
                .find(|id| !b.benchmarks.contains_key(*id))
            {
                return Err(Error::invalid(
                    name,
                    format!("has no benchmark `{id}`: every build must run the same suite"),
                ));
            }
        }
    }
    let ir = |name: &str, run: &Results, id: &str| -> Result<u64> {
        run.benchmarks[id]
            .get(IR)
            .copied()
            .ok_or_else(|| Error::invalid(name, format!("benchmark `{id}` has no Ir count")))
    };
    let mut out = Vec::new();
    for id in first.benchmarks.keys() {
        let reference = ir(first_name, first, id)?;
        let (mut min, mut max, mut moved_in) = (reference, reference, Vec::new());
        for (name, run) in rest {
            let count = ir(name, run, id)?;
            min = min.min(count);
            max = max.max(count);
            if count != reference {
                moved_in.push(name.clone());
            }
        }
        out.push(Spread {
            benchmark: id.clone(),
            min,
            max,
            moved_in,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_variant_raises_every_version_by_one_patch_release() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
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
                manifest: "a/Cargo.toml".into(),
                lib: Some("a/src/lib.rs".into()),
            },
            Member {
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
}
