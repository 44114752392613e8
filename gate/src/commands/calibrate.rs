//! `irgate calibrate`: how far each benchmark's count moves between builds of the same commit
//! that differ only in code the benchmark does not run (code layout, codegen partitioning,
//! inlining elsewhere), and the budget that follows from it.
//!
//! Without results files, `irgate calibrate` makes the builds itself
//! ([`crate::measure::calibrate::measure`]): each [`Variant`] is a copy of the working tree in a scratch directory of its own
//! (`<target>/irgate/calibrate/<n>/src`, paths of one length, like A/B), perturbed in code no
//! benchmark runs, built with the measurement build and run. Given results files (`irgate run
//! --results FILE` of builds made elsewhere), it compares those. The builds' results are compared
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
use crate::measure::calibrate::{Spread, Variant, check_count, measure, spreads};
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
        let kept = write_budgets(mine, Path::new("gate.toml"), &spreads, &builds).unwrap();
        assert!(kept.contains("[layout]\nIr = { absolute = 3 }\n"), "{kept}");
        assert!(!kept.contains("absolute = 26 }\n\n[layout]"), "{kept}");
    }
}
