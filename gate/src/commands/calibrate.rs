//! `irgate calibrate`: how far each benchmark's count moves between builds of the same commit
//! that differ only in code the benchmark does not run (code layout, codegen partitioning,
//! inlining elsewhere), and the budget that follows from it.
//!
//! Without results files, `irgate calibrate` makes the builds itself ([`measure`]): each
//! [`Variant`] is a copy of the working tree in a scratch directory of its own
//! (`<target>/irgate/calibrate/<n>/src`, paths of one length, like A/B), perturbed in code no
//! benchmark runs, built with the measurement build and run. Given results files (`irgate run
//! --results FILE` of builds made elsewhere), it compares those. The builds' results are compared
//! benchmark by benchmark: the spread is the largest count minus the smallest. The suggested Ir
//! budget is one and a half times the spread, at least 1 Ir, with no relative part: a count moves by what layout
//! moves it by, however large the benchmark, so a relative slack only hides regressions in large
//! benchmarks (+68 Ir is 0.07% of a 97,000-Ir compressed packet). `--write` puts the budgets
//! into gate.toml as `[[overrides]]` marked `# irgate calibrate`, replacing the ones an earlier
//! calibration wrote and keeping everything else, comments included.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use crate::config::Config;
use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::measure::collect::{self, Place, Selection};
use crate::measure::fingerprint;
use crate::measure::paths::{Paths, Resolved};
use crate::measure::workspace::Workspace;
use crate::model::Results;
use crate::text::{align, thousands};

/// The comment that marks the overrides `--write` owns.
const MARK: &str = "# irgate calibrate";

/// What `irgate calibrate` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The results of each build (none: build and run [`Options::variants`] here), named by their
    /// file stems.
    pub results: Vec<PathBuf>,
    /// The builds to make when no results are given (empty: [`Variant::DEFAULT`]).
    pub variants: Vec<Variant>,
    /// How many benchmarks run at once.
    pub jobs: Option<std::num::NonZeroUsize>,
    /// Write the suggested budgets into gate.toml.
    pub write: bool,
    /// Where gate.toml is.
    pub paths: Paths,
}

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
fn check_count(variants: &[Variant]) -> Result<()> {
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

/// The table of spreads: the benchmarks that moved (layout-sensitive) first, largest spread
/// first, then a line for the ones that did not.
pub fn render(spreads: &[Spread], builds: &[String]) -> String {
    let mut moved: Vec<&Spread> = spreads.iter().filter(|s| s.max > s.min).collect();
    moved.sort_by(|a, b| {
        (b.max - b.min)
            .cmp(&(a.max - a.min))
            .then(a.benchmark.cmp(&b.benchmark))
    });
    let mut out = format!(
        "Calibration over {} builds ({}): {} of {} benchmarks moved (layout-sensitive).\n\n",
        builds.len(),
        builds.join(", "),
        moved.len(),
        spreads.len()
    );
    if !moved.is_empty() {
        let mut lines = vec![
            [
                "benchmark",
                "min",
                "max",
                "spread",
                "spread %",
                "budget",
                "moved in",
            ]
            .map(str::to_owned)
            .to_vec(),
        ];
        for s in &moved {
            let spread = s.max - s.min;
            lines.push(vec![
                s.benchmark.clone(),
                thousands(s.min),
                thousands(s.max),
                thousands(spread),
                format!("{:.3}%", spread as f64 * 100.0 / s.min.max(1) as f64),
                thousands(s.suggested()),
                s.moved_in.join(" "),
            ]);
        }
        out.push_str(&align(&lines, |i| (1..=5).contains(&i)));
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "The {} other benchmarks kept their exact count in every build: budget 1 Ir.",
        spreads.len() - moved.len()
    );
    out
}

/// `text` (gate.toml) with the budgets of `spreads` as marked `[[overrides]]`, one per budget
/// value, replacing the ones an earlier calibration wrote.
pub fn write_budgets(
    text: &str,
    path: &Path,
    spreads: &[Spread],
    builds: &[String],
) -> Result<String> {
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| Error::invalid(path.display(), e.to_string()))?;
    let mut by_budget: BTreeMap<u64, Vec<&str>> = BTreeMap::new();
    for s in spreads {
        by_budget
            .entry(s.suggested())
            .or_default()
            .push(&s.benchmark);
    }
    let overrides = doc
        .entry("overrides")
        .or_insert_with(|| toml_edit::ArrayOfTables::new().into())
        .as_array_of_tables_mut()
        .ok_or_else(|| Error::invalid(path.display(), "`overrides` is not an array of tables"))?;
    overrides.retain(|table| {
        !table
            .decor()
            .prefix()
            .and_then(|p| p.as_str())
            .is_some_and(|p| p.contains(MARK))
    });
    for (budget, ids) in by_budget {
        let mut table = toml_edit::Table::new();
        table.decor_mut().set_prefix(format!(
            "\n{MARK} ({}): 1.5 times the largest Ir shift seen, at least 1 Ir.\n",
            builds.join(", ")
        ));
        let mut list = toml_edit::Array::new();
        for id in ids {
            list.push_formatted(toml_edit::Value::from(id).decorated("\n    ", ""));
        }
        list.set_trailing("\n");
        list.set_trailing_comma(true);
        table["benchmarks"] = toml_edit::value(list);
        let mut limit = toml_edit::InlineTable::new();
        limit.insert("relative_pct", 0.0.into());
        limit.insert("absolute", (budget as i64).into());
        let mut budgets = toml_edit::Table::new();
        budgets.set_dotted(true);
        budgets.insert(IR, toml_edit::value(limit));
        table.insert("budgets", toml_edit::Item::Table(budgets));
        overrides.push(table);
    }
    let text = doc.to_string();
    Config::parse(&text, path)?;
    Ok(text)
}

/// Reads the results files among `paths`, named by their stems. The per-function profiles
/// `irgate run` writes beside results (`*.profiles.json`, which a glob over a directory picks up)
/// are skipped, said on stderr.
pub fn read_results(paths: &[PathBuf]) -> Result<Vec<(String, Results)>> {
    let mut runs = Vec::new();
    for path in paths {
        if path
            .file_name()
            .is_some_and(|name| name.to_string_lossy().ends_with(".profiles.json"))
        {
            eprintln!(
                "irgate: calibrate: skipped {}: per-function profiles, not results",
                path.display()
            );
            continue;
        }
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        runs.push((name, crate::formats::results::read(path)?));
    }
    Ok(runs)
}

/// Runs `irgate calibrate`: prints the spreads, and with `write` updates gate.toml.
pub fn execute(options: &Options) -> Result<ExitCode> {
    let runs = if options.results.is_empty() {
        let variants = if options.variants.is_empty() {
            Variant::DEFAULT
        } else {
            &options.variants
        };
        check_count(variants)?;
        let paths = options.paths.resolve()?;
        let config = Config::load_or_default(&paths.config, paths.config_named)?;
        let selection = Selection {
            jobs: options.jobs,
            ..Selection::default()
        };
        measure(&config, &paths, &selection, variants)?
    } else {
        read_results(&options.results)?
    };
    let builds: Vec<String> = runs.iter().map(|(name, _)| name.clone()).collect();
    let spreads = spreads(&runs)?;
    crate::text::print(&render(&spreads, &builds));
    if options.write {
        let config = options.paths.resolve()?.config;
        let text = match std::fs::read_to_string(&config) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => {
                return Err(Error::read(&config, source));
            }
        };
        let text = write_budgets(&text, &config, &spreads, &builds)?;
        crate::formats::write_atomic(&config, text.as_bytes())?;
        eprintln!(
            "irgate: wrote the calibrated budgets of {} benchmarks into {}",
            spreads.len(),
            config.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Counts;

    fn run(counts: &[(&str, u64)]) -> Results {
        Results {
            benchmarks: counts
                .iter()
                .map(|(id, ir)| (id.to_string(), Counts::from([(IR.to_owned(), *ir)])))
                .collect(),
            ..Results::default()
        }
    }

    fn runs() -> Vec<(String, Results)> {
        vec![
            ("base".into(), run(&[("a::x", 100), ("a::y", 97_000)])),
            ("cgu1".into(), run(&[("a::x", 100), ("a::y", 97_012)])),
            ("meta".into(), run(&[("a::x", 100), ("a::y", 96_995)])),
        ]
    }

    #[test]
    fn the_spread_is_the_largest_minus_the_smallest_and_the_budget_one_and_a_half_times_that() {
        let spreads = spreads(&runs()).unwrap();
        assert_eq!(spreads[0].suggested(), 1);
        assert_eq!(
            spreads[1],
            Spread {
                benchmark: "a::y".into(),
                min: 96_995,
                max: 97_012,
                moved_in: vec!["cgu1".into(), "meta".into()]
            }
        );
        assert_eq!(spreads[1].suggested(), 26);
        let table = render(&spreads, &["base".into(), "cgu1".into(), "meta".into()]);
        assert!(table.contains("1 of 2 benchmarks moved"), "{table}");
        assert!(
            table.contains("a::y       96,995  97,012      17    0.018%      26  cgu1 meta"),
            "{table}"
        );
    }

    #[test]
    fn builds_must_hold_the_same_benchmarks_in_one_environment() {
        let mut runs = runs();
        runs[2].1.benchmarks.remove("a::x");
        let error = spreads(&runs).unwrap_err().to_string();
        assert_eq!(
            error,
            "meta: has no benchmark `a::x`: every build must run the same suite"
        );
        let mut runs = self::runs();
        runs[1].1.fingerprint.valgrind = "valgrind-3.19.0".into();
        let error = spreads(&runs).unwrap_err().to_string();
        assert!(
            error.starts_with("cgu1: taken in another environment than base (valgrind"),
            "{error}"
        );
        let error = spreads(&runs[..1]).unwrap_err().to_string();
        assert!(error.contains("one build only"), "{error}");
    }

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

    #[test]
    fn profiles_beside_results_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let results = dir.path().join("base.json");
        crate::formats::results::write(&results, &run(&[("a::x", 1)])).unwrap();
        let profiles = dir.path().join("base.profiles.json");
        std::fs::write(
            &profiles,
            r#"{"schema_version": 1, "event": "Ir", "benchmarks": {}}"#,
        )
        .unwrap();
        let runs = read_results(&[results, profiles]).unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].0, "base");
    }

    #[test]
    fn writing_replaces_its_own_overrides_and_keeps_the_rest() {
        let text = "# mine\n[budgets]\nIr = { relative_pct = 1.0, absolute = 20 } # default\n\n\
                    [[overrides]]\nbenchmarks = [\"a::x\"] # by hand\nbudgets.Ir = { absolute = 5 }\n";
        let builds = ["base".to_owned(), "cgu1".to_owned()];
        let spreads = spreads(&runs()).unwrap();
        let once = write_budgets(text, Path::new("gate.toml"), &spreads, &builds).unwrap();
        let twice = write_budgets(&once, Path::new("gate.toml"), &spreads, &builds).unwrap();
        assert_eq!(once, twice);
        assert!(once.starts_with(text), "{once}");
        insta::assert_snapshot!(&once[text.len()..], @r#"

        # irgate calibrate (base, cgu1): 1.5 times the largest Ir shift seen, at least 1 Ir.
        [[overrides]]
        benchmarks = [
            "a::x",
        ]
        budgets.Ir = { relative_pct = 0.0, absolute = 1 }

        # irgate calibrate (base, cgu1): 1.5 times the largest Ir shift seen, at least 1 Ir.
        [[overrides]]
        benchmarks = [
            "a::y",
        ]
        budgets.Ir = { relative_pct = 0.0, absolute = 26 }
        "#);
        let config = Config::parse(&once, Path::new("gate.toml")).unwrap();
        assert_eq!(config.budgets_for("a::y")[IR].absolute, 26);
    }
}
