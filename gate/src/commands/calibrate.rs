//! `irgate calibrate`: how far each benchmark's count moves between builds of the same commit
//! that differ only in code the benchmark does not run (code layout, codegen partitioning,
//! inlining elsewhere), and the budget that follows from it.
//!
//! Without results files, `irgate calibrate` makes the builds itself
//! ([`crate::measure::calibrate::measure`]): each [`Variant`] is a copy of the working tree at a
//! scratch path as long as the checkout's, perturbed in code no benchmark runs (or, `rebuild`,
//! not at all), built from nothing with the measurement build and run. Given results files
//! (`irgate run --results FILE` of builds made elsewhere, with the code records beside them), it
//! compares those. A benchmark whose count, or the code identity of a function it executed,
//! differs between `base` and `rebuild` is not reproducible: it is named (with the functions),
//! never budgeted, and written as `[[nondeterministic]]`. The other builds' results are compared
//! benchmark by benchmark, leaving out, per benchmark, the builds that changed the code it
//! executes (reported): the spread is the largest count minus the smallest. The suggested Ir
//! budget is one and a half times the spread, at least 1 Ir, with no relative part: a count moves
//! by what layout moves it by, however large the benchmark, so a relative slack only hides
//! regressions in large benchmarks (+68 Ir is 0.07% of a 97,000-Ir compressed packet). The
//! address budget (`[layout]`, what a benchmark that runs none of a change's code may move) is
//! learned from the benchmarks perturbed builds provably left untouched
//! ([`learn_layout`]). `--write` puts the budgets into gate.toml as `[[overrides]]` marked
//! `# irgate calibrate`, replacing the ones an earlier calibration wrote and keeping everything
//! else, comments included; and the learned address budget, when above the default, as
//! `[layout]`, unless gate.toml has a `[layout]` of its own.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::config::Config;
use crate::config::budgets::DEFAULT_LAYOUT_BUDGET;
use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::measure::calibrate::{
    Build, Code, Layout, Spread, Unreproducible, Variant, check_count, compare_code, learn_layout,
    measure, reference, spreads, unreproducible,
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
    /// The address budget learned from the benchmarks perturbed builds left untouched.
    pub layout: Layout,
}

impl Calibration {
    /// The spreads over `builds` (from the reference build, [`reference`]), the benchmarks
    /// `base` and `rebuild` disagree on set apart, and, by the code identity, each benchmark's
    /// builds that changed the code it executes left out of its spread; the address budget
    /// learned from the others ([`learn_layout`]).
    pub fn of(builds: &[Build]) -> Result<Calibration> {
        let Some(first) = reference(builds) else {
            return Err(Error::invalid(
                "irgate calibrate",
                "needs the results of at least two builds",
            ));
        };
        // The reference first: spreads and moves are taken from it.
        let mut ordered: Vec<&Build> = builds.iter().collect();
        ordered.sort_by_key(|b| b.name != first.name);
        let runs: Vec<(String, Results)> = ordered
            .iter()
            .map(|b| (b.name.clone(), b.results.clone()))
            .collect();
        let unreproducible = unreproducible(builds);
        let ids = unreproducible.ids();
        let compared: Vec<(String, BTreeMap<String, Code>)> = ordered[1..]
            .iter()
            .map(|b| (b.name.clone(), compare_code(first, b)))
            .collect();
        let layout = learn_layout(&runs, &first.name, &compared, &ids);
        let left_out = layout
            .touched
            .iter()
            .map(|t| (t.benchmark.clone(), t.build.clone()))
            .collect();
        let mut all = spreads(&runs, &left_out)?;
        all.retain(|s| !ids.contains(&s.benchmark));
        Ok(Calibration {
            builds: runs.into_iter().map(|(name, _)| name).collect(),
            spreads: all,
            unreproducible,
            layout,
        })
    }

    /// The report: the unreproducible benchmarks, the table of spreads, then the address
    /// budget and what it was not learned from.
    pub fn render(&self) -> String {
        let mut out = render_unreproducible(&self.unreproducible);
        out.push_str(&render(&self.spreads, &self.builds));
        out.push_str(&render_layout(&self.layout, &self.builds));
        out
    }
}

/// What the address budget was learned from, and the benchmarks a perturbed build touched.
pub fn render_layout(layout: &Layout, builds: &[String]) -> String {
    let mut out = String::new();
    if !layout.touched.is_empty() {
        let _ = writeln!(
            out,
            "\nChanged by a perturbed build (its count there is the change's, not layout: left \
             out of the benchmark's spread and of the address budget):"
        );
        for t in &layout.touched {
            let _ = writeln!(
                out,
                "  {} in `{}`: {} Ir: {}",
                crate::text::terminal(&t.benchmark),
                crate::text::terminal(&t.build),
                crate::text::signed(t.moved),
                t.why
            );
        }
    }
    let default = DEFAULT_LAYOUT_BUDGET.absolute;
    let reference = builds.first().map_or("", String::as_str);
    match (&layout.budget, &layout.largest) {
        (Some(budget), Some((id, spread))) => {
            let _ = writeln!(
                out,
                "\nAddress budget ([layout]): {budget} Ir, learned from {} that {} left untouched \
                 (executing the same code as in `{}`): their largest spread is {} Ir ({}); 1.5 \
                 times that, rounded up, and never below the default {default} Ir.",
                crate::text::plural(layout.sample, "benchmark"),
                layout
                    .builds
                    .iter()
                    .map(|b| format!("`{}`", crate::text::terminal(b)))
                    .collect::<Vec<_>>()
                    .join(", "),
                crate::text::terminal(reference),
                thousands(*spread),
                crate::text::terminal(id)
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "\nAddress budget ([layout]): not learned, the default {default} Ir stays: no \
                 benchmark was proven untouched by a build that perturbs the code (`version`, \
                 `unrelated`, or results files with their code record)."
            );
        }
    }
    if layout.unknown > 0 {
        let _ = writeln!(
            out,
            "{} of a perturbed build could not be compared by code (no code record): budgeted by \
             their spread, not learned from for [layout].",
            crate::text::plural(layout.unknown, "benchmark")
        );
    }
    out
}

/// The benchmarks two cold builds of one tree counted differently, with the likely cause and what
/// irgate does about them; empty when there are none.
pub fn render_unreproducible(found: &Unreproducible) -> String {
    if found.ids().is_empty() {
        return String::new();
    }
    let mut out = format!(
        "Not reproducible: {} counted differently, or executed other code, in two builds of this \
         tree from nothing at one path (`base`, `rebuild`):\n",
        crate::text::plural(found.ids().len(), "benchmark")
    );
    for id in found.ids() {
        let counts = match found.benchmarks.iter().find(|(b, _, _)| *b == id) {
            Some((_, a, b)) => format!("{} Ir, then {} Ir", thousands(*a), thousands(*b)),
            None => "the same count both times".to_owned(),
        };
        let code = match found.code.get(&id) {
            Some(functions) => {
                let unit = Unreproducible {
                    code: BTreeMap::from([(id.clone(), functions.clone())]),
                    ..Unreproducible::default()
                };
                format!(
                    "; executes code that differed: {}",
                    unit.functions().join(", ")
                )
            }
            None => String::new(),
        };
        let _ = writeln!(out, "  {}  {counts}{code}", crate::text::terminal(&id));
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
    let own_layout = doc.get("layout").is_some_and(|layout| {
        !layout
            .as_table()
            .and_then(|t| t.decor().prefix())
            .and_then(|p| p.as_str())
            .is_some_and(|p| p.contains(MARK))
    });
    if !own_layout {
        doc.remove("layout");
        let learned = &calibration.layout;
        if let (Some(budget), Some((_, spread))) = (learned.budget, &learned.largest)
            && budget > DEFAULT_LAYOUT_BUDGET.absolute
        {
            let mut limit = toml_edit::InlineTable::new();
            limit.insert("absolute", (budget as i64).into());
            let mut layout = toml_edit::Table::new();
            layout.decor_mut().set_prefix(format!(
                "\n{MARK} ({}): the address budget of a benchmark that runs none of a change's \
                 code,\n# learned from {} left untouched by {}: 1.5 times their largest spread \
                 ({spread} Ir), at least {}.\n",
                builds.join(", "),
                crate::text::plural(learned.sample, "benchmark"),
                crate::text::terminal(&learned.builds.join(", ")),
                DEFAULT_LAYOUT_BUDGET.absolute
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
/// benchmarks (none when there are none); entries written by hand are kept, and so is the marked
/// one when reproducibility was not checked (no `base` and `rebuild` among the builds).
fn write_nondeterministic(
    doc: &mut toml_edit::DocumentMut,
    path: &Path,
    found: &Unreproducible,
    info: bool,
) -> Result<()> {
    if !found.checked {
        return Ok(());
    }
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
    let ids = found.ids();
    if !ids.is_empty() {
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
        for id in &ids {
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

/// Reads the results files among `paths`, named by their stems, each with the code record
/// beside it when there is one (`irgate run --record --results FILE` writes it: `<stem>.code.json`).
/// The per-function profiles and code records `irgate run` writes beside results
/// (`*.profiles.json`, `*.code.json`, which a glob over a directory picks up) are skipped, said
/// on stderr. Which files a build made elsewhere changed is not known.
pub fn read_results(paths: &[PathBuf]) -> Result<Vec<Build>> {
    let mut runs = Vec::new();
    for path in paths {
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Some(what) = [
            (".profiles.json", "per-function profiles"),
            (".code.json", "a code record"),
        ]
        .into_iter()
        .find_map(|(suffix, what)| name.ends_with(suffix).then_some(what))
        {
            eprintln!(
                "irgate: calibrate: skipped {}: {what}, not results",
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
            code: crate::formats::code::read(&crate::paths::code_record_of(path))?,
            changed_files: None,
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
    let undecided = calibration.unreproducible.ids().iter().any(|id| {
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
    use std::collections::BTreeSet;

    use super::*;
    use crate::change::{ChangedFunction, How};
    use crate::model::Counts;
    use crate::model::code::{CodeRecord, Executed, Object};

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
        let spreads = spreads(&runs(), &BTreeSet::new()).unwrap();
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
        let error = spreads(&runs, &BTreeSet::new()).unwrap_err().to_string();
        assert_eq!(
            error,
            "meta: has no benchmark `a::x`: every build must run the same suite"
        );
        let mut runs = self::runs();
        runs[1].1.fingerprint.valgrind = "valgrind-3.19.0".into();
        let error = spreads(&runs, &BTreeSet::new()).unwrap_err().to_string();
        assert!(
            error.starts_with("cgu1: taken in another environment than base (valgrind"),
            "{error}"
        );
        let error = spreads(&runs[..1], &BTreeSet::new())
            .unwrap_err()
            .to_string();
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
            spreads: spreads(&runs(), &BTreeSet::new()).unwrap(),
            builds: builds.to_vec(),
            unreproducible: Unreproducible::default(),
            layout: Layout::default(),
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
        "#);
        let config = Config::parse(&once, Path::new("gate.toml")).unwrap();
        assert_eq!(config.budgets_for("a::y")[IR].absolute, 26);
        // No code record: no benchmark is proven untouched, so no address budget is learned, and
        // the largest budget (a::y's 26) is not taken for one.
        assert_eq!(
            config.layout_allowance(IR, &config.budgets_for("a::x")[IR], 100),
            16.0
        );
        // A learned one above the default goes into [layout], saying how it was learned.
        let learned = Calibration {
            layout: Layout {
                budget: Some(26),
                sample: 2,
                builds: vec!["cgu1".into()],
                largest: Some(("a::y".into(), 17)),
                ..Layout::default()
            },
            ..calibration.clone()
        };
        let with = write_budgets(text, Path::new("gate.toml"), &learned, false).unwrap();
        assert!(
            with.ends_with(
                "# irgate calibrate (base, cgu1): the address budget of a benchmark that runs \
                 none of a change's code,\n# learned from 2 benchmarks left untouched by cgu1: \
                 1.5 times their largest spread (17 Ir), at least 16.\n[layout]\nIr = { \
                 absolute = 26 }\n"
            ),
            "{with}"
        );
        let config = Config::parse(&with, Path::new("gate.toml")).unwrap();
        assert_eq!(
            config.layout_allowance(IR, &config.budgets_for("a::x")[IR], 100),
            26.0
        );
        // Written again without it, the marked [layout] goes.
        let gone = write_budgets(&with, Path::new("gate.toml"), &calibration, false).unwrap();
        assert_eq!(gone, once);
        // A [layout] of the user's own is kept.
        let mine = "[budgets]\nIr = { absolute = 1 }\n\n[layout]\nIr = { absolute = 3 }\n";
        let kept = write_budgets(mine, Path::new("gate.toml"), &learned, false).unwrap();
        assert!(kept.contains("[layout]\nIr = { absolute = 3 }\n"), "{kept}");
        assert_eq!(kept.matches("[layout]").count(), 1, "{kept}");
    }

    fn build(name: &str, counts: &[(&str, u64)], out: &[(&str, &str)]) -> Build {
        Build {
            name: name.to_owned(),
            results: run(counts),
            out_dir: out
                .iter()
                .map(|(f, d)| (f.to_string(), d.to_string()))
                .collect(),
            code: None,
            changed_files: None,
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
            unreproducible: Unreproducible {
                checked: true,
                ..Unreproducible::default()
            },
            ..calibration.clone()
        };
        let gone = write_budgets(&again, Path::new("gate.toml"), &fixed, false).unwrap();
        assert!(!gone.contains("nondeterministic"), "{gone}");
        // Not checked (no `rebuild` among the builds): the entry stays as it was.
        let unchecked = Calibration {
            unreproducible: Unreproducible::default(),
            ..calibration
        };
        let kept = write_budgets(&again, Path::new("gate.toml"), &unchecked, false).unwrap();
        assert_eq!(kept.matches("[[nondeterministic]]").count(), 1, "{kept}");
        assert!(kept.contains("    \"data::lookup\",\n]\n"), "{kept}");
    }

    /// One object `release/deps/b` holding functions of the given digests.
    fn objects(functions: &[(&str, &str)]) -> BTreeMap<String, Object> {
        let object = Object {
            functions: functions
                .iter()
                .map(|(name, digest)| (name.to_string(), digest.repeat(32)))
                .collect(),
            whole: "f".repeat(32),
            ..Object::default()
        };
        BTreeMap::from([("release/deps/b".to_owned(), object)])
    }

    /// A build with code: `record` (benchmark, the function it executes, whether it reads
    /// files) for the reference build, the objects' identity for the others.
    fn coded(
        name: &str,
        counts: &[(&str, u64)],
        functions: &[(&str, &str)],
        record: &[(&str, &str, bool)],
        changed_files: Option<&[&str]>,
    ) -> Build {
        let benchmarks = record
            .iter()
            .map(|(id, function, reads)| {
                let executed = Executed {
                    functions: BTreeMap::from([(
                        "release/deps/b".to_owned(),
                        BTreeSet::from([function.to_string()]),
                    )]),
                    reads_files: reads.then(|| "it calls `open`".to_owned()),
                    ..Executed::default()
                };
                (id.to_string(), executed)
            })
            .collect();
        Build {
            code: Some(CodeRecord {
                objects: objects(functions),
                benchmarks,
                ..CodeRecord::default()
            }),
            changed_files: changed_files.map(|f| f.iter().map(|f| f.to_string()).collect()),
            ..build(name, counts, &[])
        }
    }

    /// Issue #32, items 1 and 4: by the code identity, a benchmark whose executed code differs
    /// between two builds of one tree is not reproducible (even at an equal count), named with
    /// the function; a benchmark a perturbed build touched is reported and left out of its
    /// spread and of the address budget, which is learned from the untouched ones only.
    #[test]
    fn the_identity_names_what_is_not_reproducible_and_the_address_budget_learns_from_untouched_benchmarks()
     {
        let record = [
            ("a::x", "x", false),
            ("a::y", "y", false),
            ("a::v", "v", false),
            ("a::f", "f", true),
        ];
        let same = [("x", "1"), ("y", "2"), ("v", "3"), ("f", "4")];
        let base = [("a::x", 1_000), ("a::y", 50), ("a::v", 700), ("a::f", 90)];
        let builds = [
            coded("base", &base, &same, &record, Some(&[])),
            // `y`'s code differs between two builds of one tree; its count does not.
            coded(
                "rebuild",
                &base,
                &[("x", "1"), ("y", "9"), ("v", "3"), ("f", "4")],
                &[],
                Some(&[]),
            ),
            // The version is compiled into `v`: a::v moves by the change, not by layout.
            coded(
                "version",
                &[
                    ("a::x", 1_020),
                    ("a::y", 50),
                    ("a::v", 1_200),
                    ("a::f", 400),
                ],
                &[("x", "1"), ("y", "2"), ("v", "8"), ("f", "4")],
                &[],
                Some(&["Cargo.toml"]),
            ),
            coded(
                "unrelated",
                &[("a::x", 996), ("a::y", 50), ("a::v", 700), ("a::f", 90)],
                &same,
                &[],
                Some(&["src/lib.rs"]),
            ),
        ];
        let calibration = Calibration::of(&builds).unwrap();
        let found = &calibration.unreproducible;
        assert!(found.benchmarks.is_empty(), "{found:?}");
        assert_eq!(
            found.code,
            BTreeMap::from([(
                "a::y".to_owned(),
                vec![ChangedFunction {
                    object: "release/deps/b".into(),
                    name: "y".into(),
                    how: How::Changed,
                }]
            )])
        );
        assert_eq!(found.ids(), BTreeSet::from(["a::y".to_owned()]));
        let layout = &calibration.layout;
        // a::x: 996 to 1,020 over base, version and unrelated: 24 Ir, so 36. a::v: base and
        // unrelated only (0 Ir). a::f reads files, and both perturbed builds changed one.
        assert_eq!(layout.budget, Some(36));
        assert_eq!(layout.largest, Some(("a::x".to_owned(), 24)));
        assert_eq!(layout.sample, 2);
        assert_eq!(layout.builds, ["unrelated", "version"]);
        let touched: Vec<(&str, &str, i64)> = layout
            .touched
            .iter()
            .map(|t| (t.benchmark.as_str(), t.build.as_str(), t.moved))
            .collect();
        assert_eq!(
            touched,
            [
                ("a::f", "version", 310),
                ("a::f", "unrelated", 0),
                ("a::v", "version", 500)
            ]
        );
        assert_eq!(layout.touched[2].why, "executes `v` (release/deps/b)");
        // Spreads: a::v's 500 Ir in `version` is left out (budget 1), a::y is not budgeted.
        let budgets: BTreeMap<&str, u64> = calibration
            .spreads
            .iter()
            .map(|s| (s.benchmark.as_str(), s.suggested()))
            .collect();
        assert_eq!(
            budgets,
            BTreeMap::from([("a::f", 1), ("a::v", 1), ("a::x", 36)])
        );
        let text = calibration.render();
        assert!(
            text.contains("  a::y  the same count both times; executes code that differed: `y` (release/deps/b)")
                && text.contains("other code or data into functions these benchmarks execute (`y` (release/deps/b))")
                && text.contains("  a::v in `version`: +500 Ir: executes `v` (release/deps/b)")
                && text.contains("Address budget ([layout]): 36 Ir, learned from 2 benchmarks that `unrelated`, `version` left untouched"),
            "{text}"
        );
        let written = write_budgets("", Path::new("gate.toml"), &calibration, false).unwrap();
        assert!(
            written.contains("[layout]\nIr = { absolute = 36 }\n"),
            "{written}"
        );
        assert!(
            written.contains("[[nondeterministic]]\nbenchmarks = [\n    \"a::y\",\n]\n"),
            "{written}"
        );

        // Without code records nothing is proven untouched: nothing is learned, whatever moved.
        let blind: Vec<Build> = builds
            .iter()
            .map(|b| Build {
                code: None,
                ..b.clone()
            })
            .collect();
        let calibration = Calibration::of(&blind).unwrap();
        assert_eq!(calibration.layout.budget, None);
        assert_eq!(calibration.layout.unknown, 8);
        assert!(calibration.unreproducible.ids().is_empty());
        let written = write_budgets("", Path::new("gate.toml"), &calibration, false).unwrap();
        assert!(!written.contains("[layout]"), "{written}");
        assert!(
            calibration
                .render()
                .contains("Address budget ([layout]): not learned, the default 16 Ir stays"),
            "{}",
            calibration.render()
        );
    }
}
