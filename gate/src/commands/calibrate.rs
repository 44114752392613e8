//! `irgate calibrate`: how far each benchmark's count moves between builds of the same commit
//! that differ only in code the benchmark does not run (code layout, codegen partitioning,
//! inlining elsewhere), and the budget that follows from it.
//!
//! Without results files, `irgate calibrate` makes the builds itself
//! ([`crate::measure::calibrate::measure`]): each [`Variant`] is a copy of the working tree at a
//! scratch path as long as the checkout's, perturbed in code no benchmark runs (or, `rebuild`,
//! not at all), built from nothing with the measurement build and run. Given results files
//! (`irgate run --results FILE` of builds made elsewhere), it compares those. A benchmark whose
//! count differs between `base` and `rebuild` is not reproducible: it is named, never budgeted,
//! and written as `[[nondeterministic]]`. The other builds' results are compared
//! benchmark by benchmark: the spread is the largest count minus the smallest. The suggested Ir
//! budget is one and a half times the spread, at least 1 Ir, with no relative part: a count moves by what layout
//! moves it by, however large the benchmark, so a relative slack only hides regressions in large
//! benchmarks (+68 Ir is 0.07% of a 97,000-Ir compressed packet). `--write` puts the budgets
//! into gate.toml as `[[overrides]]` marked `# irgate calibrate`, replacing the ones an earlier
//! calibration wrote and keeping everything else, comments included; and, when the largest
//! budget exceeds the default layout budget, that as `[layout]` (the budget of a benchmark that
//! runs none of a change's code), unless gate.toml has a `[layout]` of its own.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::config::Config;
use crate::config::budgets::DEFAULT_LAYOUT_BUDGET;
use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::measure::calibrate::{
    Build, Spread, Unreproducible, Variant, check_count, measure, spreads, unreproducible,
};
use crate::measure::collect::Selection;
use crate::measure::paths::Paths;
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

/// What a calibration found: the budgets of the benchmarks whose builds are reproducible, and the
/// ones whose are not (never budgeted).
#[derive(Debug, Clone)]
pub struct Calibration {
    /// The builds' names.
    pub builds: Vec<String>,
    /// The spread of every benchmark whose count two cold builds of one tree agreed on.
    pub spreads: Vec<Spread>,
    /// What two cold builds of one tree disagreed on.
    pub unreproducible: Unreproducible,
}

impl Calibration {
    /// The spreads over `builds`, the benchmarks `base` and `rebuild` disagree on set apart.
    pub fn of(builds: &[Build]) -> Result<Calibration> {
        let runs: Vec<(String, Results)> = builds
            .iter()
            .map(|b| (b.name.clone(), b.results.clone()))
            .collect();
        let unreproducible = unreproducible(builds);
        let ids = unreproducible.ids();
        let mut all = spreads(&runs)?;
        all.retain(|s| !ids.contains(&s.benchmark));
        Ok(Calibration {
            builds: runs.into_iter().map(|(name, _)| name).collect(),
            spreads: all,
            unreproducible,
        })
    }

    /// The report: the unreproducible benchmarks, then the table of spreads.
    pub fn render(&self) -> String {
        let mut out = render_unreproducible(&self.unreproducible);
        out.push_str(&render(&self.spreads, &self.builds));
        out
    }
}

/// The benchmarks two cold builds of one tree counted differently, with the likely cause and what
/// irgate does about them; empty when there are none.
pub fn render_unreproducible(found: &Unreproducible) -> String {
    if found.benchmarks.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "Not reproducible: {} counted differently in two builds of this tree from nothing at one \
         path (`base`, `rebuild`):\n",
        crate::text::plural(found.benchmarks.len(), "benchmark")
    );
    for (id, a, b) in &found.benchmarks {
        let _ = writeln!(
            out,
            "  {}  {} Ir, then {} Ir",
            crate::text::terminal(id),
            thousands(*a),
            thousands(*b)
        );
    }
    let _ = writeln!(
        out,
        "Likely cause: {}.\nNo budget is calibrated for them: each is [[nondeterministic]] in \
         gate.toml, and a moved count is undecided (exit 2) until the build is reproducible, or \
         until the entry says `info = true`.\n",
        crate::text::terminal(&found.cause())
    );
    out
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
    let kept = spreads.len() - moved.len();
    let _ = writeln!(
        out,
        "{} kept {} exact count in every build: budget 1 Ir.",
        if kept == 1 {
            "The 1 other benchmark".to_owned()
        } else {
            format!("The {kept} other benchmarks")
        },
        if kept == 1 { "its" } else { "their" }
    );
    out
}

/// `text` (gate.toml) with the budgets of `calibration` as marked `[[overrides]]`, one per
/// budget value, and its unreproducible benchmarks as a marked `[[nondeterministic]]` entry
/// (with `info = true` when `info`), replacing the ones an earlier calibration wrote.
pub fn write_budgets(
    text: &str,
    path: &Path,
    calibration: &Calibration,
    info: bool,
) -> Result<String> {
    let Calibration {
        spreads, builds, ..
    } = calibration;
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| Error::invalid(path.display(), e.to_string()))?;
    write_nondeterministic(&mut doc, path, &calibration.unreproducible, info)?;
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
    let largest = spreads.iter().map(Spread::suggested).max().unwrap_or(0);
    let own_layout = doc.get("layout").is_some_and(|layout| {
        !layout
            .as_table()
            .and_then(|t| t.decor().prefix())
            .and_then(|p| p.as_str())
            .is_some_and(|p| p.contains(MARK))
    });
    if !own_layout {
        doc.remove("layout");
        if largest > DEFAULT_LAYOUT_BUDGET.absolute {
            let mut limit = toml_edit::InlineTable::new();
            limit.insert("absolute", (largest as i64).into());
            let mut layout = toml_edit::Table::new();
            layout.decor_mut().set_prefix(format!(
                "\n{MARK} ({}): the largest budget above, for benchmarks that run none of a \
                 change's code.\n",
                builds.join(", ")
            ));
            layout.insert(IR, toml_edit::value(limit));
            doc.insert("layout", toml_edit::Item::Table(layout));
        }
    }
    let text = doc.to_string();
    Config::parse(&text, path)?;
    Ok(text)
}

/// Replaces the marked `[[nondeterministic]]` entry of `doc` with one naming `found`'s
/// benchmarks (none when there are none); entries written by hand are kept.
fn write_nondeterministic(
    doc: &mut toml_edit::DocumentMut,
    path: &Path,
    found: &Unreproducible,
    info: bool,
) -> Result<()> {
    let entries = doc
        .entry("nondeterministic")
        .or_insert_with(|| toml_edit::ArrayOfTables::new().into())
        .as_array_of_tables_mut()
        .ok_or_else(|| {
            Error::invalid(
                path.display(),
                "`nondeterministic` is not an array of tables",
            )
        })?;
    entries.retain(|table| {
        !table
            .decor()
            .prefix()
            .and_then(|p| p.as_str())
            .is_some_and(|p| p.contains(MARK))
    });
    if !found.benchmarks.is_empty() {
        let mut table = toml_edit::Table::new();
        let then = if info {
            "Shown for information, never gated (info = true): make the build reproducible, \
             then remove this entry to gate them again."
        } else {
            "A moved count is undecided (exit 2) until the build is reproducible (then remove \
             this entry), or until `info = true` here."
        };
        // File names under OUT_DIR are the build's: escaped, so none starts a line of gate.toml.
        let cause = crate::text::terminal(&found.cause()).into_owned();
        table.decor_mut().set_prefix(format!(
            "\n{MARK}: two builds of this tree from nothing at one path counted these benchmarks \
             differently,\n# so no budget can tell a change from the build. Likely cause: {cause}.\n\
             # {then}\n"
        ));
        let mut list = toml_edit::Array::new();
        for (id, _, _) in &found.benchmarks {
            list.push_formatted(toml_edit::Value::from(id.as_str()).decorated("\n    ", ""));
        }
        list.set_trailing("\n");
        list.set_trailing_comma(true);
        table["benchmarks"] = toml_edit::value(list);
        if info {
            table["info"] = toml_edit::value(true);
        }
        entries.push(table);
    }
    if entries.is_empty() {
        doc.remove("nondeterministic");
    }
    Ok(())
}

/// Reads the results files among `paths`, named by their stems. The per-function profiles
/// `irgate run` writes beside results (`*.profiles.json`, which a glob over a directory picks up)
/// are skipped, said on stderr.
pub fn read_results(paths: &[PathBuf]) -> Result<Vec<Build>> {
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
        runs.push(Build {
            name,
            results: crate::formats::results::read(path)?,
            out_dir: BTreeMap::new(),
        });
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
    let calibration = Calibration::of(&runs)?;
    crate::text::print(&calibration.render());
    let config_path = options.paths.resolve()?.config;
    if options.write {
        let text = match std::fs::read_to_string(&config_path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => {
                return Err(Error::read(&config_path, source));
            }
        };
        let text = write_budgets(&text, &config_path, &calibration, false)?;
        crate::formats::write_atomic(&config_path, text.as_bytes())?;
        eprintln!(
            "irgate: wrote the calibrated budgets of {} benchmarks into {}",
            calibration.spreads.len(),
            config_path.display()
        );
    }
    // Benchmarks whose build is not reproducible hold the gate undecided until gate.toml marks
    // them `info`.
    let marked = Config::load_or_default(&config_path, false).ok();
    let undecided = calibration
        .unreproducible
        .benchmarks
        .iter()
        .any(|(id, _, _)| {
            !marked
                .as_ref()
                .and_then(|c| c.nondeterministic_for(id))
                .is_some_and(|n| n.info)
        });
    Ok(if undecided {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
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
        assert_eq!(runs[0].name, "base");
    }

    #[test]
    fn writing_replaces_its_own_overrides_and_keeps_the_rest() {
        let text = "# mine\n[budgets]\nIr = { relative_pct = 1.0, absolute = 20 } # default\n\n\
                    [[overrides]]\nbenchmarks = [\"a::x\"] # by hand\nbudgets.Ir = { absolute = 5 }\n";
        let builds = ["base".to_owned(), "cgu1".to_owned()];
        let calibration = Calibration {
            spreads: spreads(&runs()).unwrap(),
            builds: builds.to_vec(),
            unreproducible: Unreproducible::default(),
        };
        let once = write_budgets(text, Path::new("gate.toml"), &calibration, false).unwrap();
        let twice = write_budgets(&once, Path::new("gate.toml"), &calibration, false).unwrap();
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

        # irgate calibrate (base, cgu1): the largest budget above, for benchmarks that run none of a change's code.
        [layout]
        Ir = { absolute = 26 }
        "#);
        let config = Config::parse(&once, Path::new("gate.toml")).unwrap();
        assert_eq!(config.budgets_for("a::y")[IR].absolute, 26);
        // The largest budget, 26, above the default layout budget of 16: it goes into [layout].
        assert!(
            once.contains("[layout]\nIr = { absolute = 26 }\n"),
            "{once}"
        );
        assert_eq!(
            config.layout_allowance(IR, &config.budgets_for("a::x")[IR], 100),
            26.0
        );
        // A [layout] of the user's own is kept.
        let mine = "[budgets]\nIr = { absolute = 1 }\n\n[layout]\nIr = { absolute = 3 }\n";
        let kept = write_budgets(mine, Path::new("gate.toml"), &calibration, false).unwrap();
        assert!(kept.contains("[layout]\nIr = { absolute = 3 }\n"), "{kept}");
        assert!(!kept.contains("absolute = 26 }\n\n[layout]"), "{kept}");
    }

    fn build(name: &str, counts: &[(&str, u64)], out: &[(&str, &str)]) -> Build {
        Build {
            name: name.to_owned(),
            results: run(counts),
            out_dir: out
                .iter()
                .map(|(f, d)| (f.to_string(), d.to_string()))
                .collect(),
        }
    }

    #[test]
    fn an_unreproducible_benchmark_is_named_with_its_cause_and_never_budgeted() {
        // The incident: a build script drew the benchmark's data from an unseeded generator, and
        // calibration read 4,459 Ir of it as layout (a budget of 6,689 Ir).
        let builds = [
            build(
                "base",
                &[("data::lookup", 100_000), ("a::x", 100)],
                &[("data/out/table.rs", "1"), ("other/out/x", "9")],
            ),
            build(
                "rebuild",
                &[("data::lookup", 104_459), ("a::x", 100)],
                &[("data/out/table.rs", "2"), ("other/out/x", "9")],
            ),
            build("version", &[("data::lookup", 97_000), ("a::x", 102)], &[]),
        ];
        let calibration = Calibration::of(&builds).unwrap();
        assert_eq!(
            calibration.unreproducible.benchmarks,
            [("data::lookup".to_owned(), 100_000, 104_459)]
        );
        assert_eq!(calibration.unreproducible.out_dir, ["data/out/table.rs"]);
        assert_eq!(calibration.spreads.len(), 1, "only a::x is budgeted");
        assert_eq!(calibration.spreads[0].suggested(), 3);
        let text = calibration.render();
        assert!(
            text.contains("Not reproducible: 1 benchmark counted differently")
                && text.contains("data::lookup  100,000 Ir, then 104,459 Ir")
                && text.contains("other data into OUT_DIR each time (data/out/table.rs)"),
            "{text}"
        );
        let written = write_budgets(
            "[budgets]\nIr = { absolute = 1 }\n",
            Path::new("gate.toml"),
            &calibration,
            true,
        )
        .unwrap();
        assert!(
            !written.contains("6689") && !written.contains("absolute = 6"),
            "{written}"
        );
        assert!(
            written.contains(
                "[[nondeterministic]]\nbenchmarks = [\n    \"data::lookup\",\n]\ninfo = true\n"
            ),
            "{written}"
        );
        assert!(written.contains("# irgate calibrate: two builds of this tree from nothing"));
        let config = Config::parse(&written, Path::new("gate.toml")).unwrap();
        assert!(config.nondeterministic_for("data::lookup").unwrap().info);
        assert!(config.nondeterministic_for("a::x").is_none());
        // Written again (undecided this time), the entry is replaced, not added.
        let again = write_budgets(&written, Path::new("gate.toml"), &calibration, false).unwrap();
        assert_eq!(again.matches("[[nondeterministic]]").count(), 1, "{again}");
        assert!(!again.contains("\ninfo = true"), "{again}");
        // Reproducible again: the entry goes.
        let fixed = Calibration {
            unreproducible: Unreproducible::default(),
            ..calibration
        };
        let gone = write_budgets(&again, Path::new("gate.toml"), &fixed, false).unwrap();
        assert!(!gone.contains("nondeterministic"), "{gone}");
    }
}
