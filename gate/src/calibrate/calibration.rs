//! A calibration from end to end: its builds, made here or read from results files
//! ([`calibrate`]), compared into a [`Calibration`], and its budgets written into gate.toml
//! ([`write_into`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{
    Build, Code, Layout, Spread, Unreproducible, Variant, check_count, compare_code, learn_layout,
    measure, reference, spreads, unreproducible,
};
use crate::config::Config;
use crate::config::write::{Calibrated, LearnedLayout};
use crate::error::{Error, Result};
use crate::measure::collect::Selection;
use crate::model::Results;
use crate::paths::Resolved;

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
    /// The spreads over `builds` (from the reference build, [`reference()`]), the benchmarks
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

    /// What of it is written into gate.toml: the budgets, the unreproducible benchmarks (as
    /// `info` when `info`) when reproducibility was checked, and the learned address budget.
    pub fn written(&self, info: bool) -> Calibrated<'_> {
        let found = &self.unreproducible;
        Calibrated {
            builds: &self.builds,
            budgets: self
                .spreads
                .iter()
                .map(|s| (s.benchmark.as_str(), s.suggested()))
                .collect(),
            nondeterministic: found.checked.then(|| (found.ids(), found.cause())),
            info,
            layout: match (&self.layout.budget, &self.layout.largest) {
                (Some(budget), Some((_, spread))) => Some(LearnedLayout {
                    budget: *budget,
                    spread: *spread,
                    sample: self.layout.sample,
                    builds: &self.layout.builds,
                }),
                _ => None,
            },
        }
    }

    /// Whether a benchmark whose build is not reproducible holds the gate undecided: one that
    /// the gate.toml at `config` does not mark `info` (an unreadable gate.toml marks none).
    pub fn undecided(&self, config: &Path) -> bool {
        let marked = Config::load_or_default(config, false).ok();
        self.unreproducible.ids().iter().any(|id| {
            !marked
                .as_ref()
                .and_then(|c| c.nondeterministic_for(id))
                .is_some_and(|n| n.info)
        })
    }
}

/// Where a calibration's builds come from.
#[derive(Debug, Clone, Copy)]
pub enum Builds<'a> {
    /// Results files of builds made elsewhere ([`read_results`]).
    Files(&'a [PathBuf]),
    /// Builds of these variants made here ([`measure`]; none: [`Variant::DEFAULT`]), running
    /// this many benchmarks at once.
    Made(&'a [Variant], Option<std::num::NonZeroUsize>),
}

/// The calibration of `builds` in the workspace of `paths`: made here (with the gate.toml of
/// `paths`) or read, then compared ([`Calibration::of`]).
pub fn calibrate(paths: &Resolved, builds: Builds) -> Result<Calibration> {
    let runs = match builds {
        Builds::Made(variants, jobs) => {
            let variants = if variants.is_empty() {
                Variant::DEFAULT
            } else {
                variants
            };
            check_count(variants)?;
            let config = Config::load_or_default(&paths.config, paths.config_named)?;
            let selection = Selection {
                jobs,
                ..Selection::default()
            };
            measure(paths, &config, &selection, variants)?
        }
        Builds::Files(files) => read_results(files)?,
    };
    Calibration::of(&runs)
}

/// `text` (gate.toml at `path`) with what `calibration` found written in
/// ([`crate::config::write::calibrated`]), its unreproducible benchmarks as `info` when `info`.
pub fn write_budgets(
    text: &str,
    path: &Path,
    calibration: &Calibration,
    info: bool,
) -> Result<String> {
    crate::config::write::calibrated(text, path, &calibration.written(info))
}

/// Writes what `calibration` found into the gate.toml at `path` ([`write_budgets`]), creating it
/// when there is none.
pub fn write_into(path: &Path, calibration: &Calibration) -> Result<()> {
    let text = if path.exists() {
        crate::formats::read_text_bounded(path, crate::config::MAX_BYTES)?
    } else {
        String::new()
    };
    let text = write_budgets(&text, path, calibration, false)?;
    crate::formats::write_atomic(path, text.as_bytes())
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
            crate::note!("calibrate: skipped {}: {what}, not results", path.display());
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::calibrate::fixtures::{run, runs};
    use crate::config::metrics::IR;
    use crate::model::code::{CodeRecord, Executed, Object};
    use crate::model::{ChangedFunction, How};

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

    /// Two builds of one tree are compared by the files the variant changed, not by reading
    /// the observed inputs again: they name the scratch copy's paths, gone once it is removed.
    #[test]
    fn observed_inputs_of_a_removed_copy_do_not_make_a_build_differ() {
        let record = [("a::f", "f", true)];
        let mut base = coded("base", &[("a::f", 90)], &[("f", "4")], &record, Some(&[]));
        let entry = base
            .code
            .as_mut()
            .unwrap()
            .benchmarks
            .get_mut("a::f")
            .unwrap();
        entry.observed = Some(crate::model::code::Observed {
            inputs: BTreeMap::from([(
                "/nonexistent/irgate-scratch/data.bin".to_owned(),
                "a".repeat(32),
            )]),
            environment: 0,
        });
        let again = coded("rebuild", &[("a::f", 90)], &[("f", "4")], &[], Some(&[]));
        assert_eq!(compare_code(&base, &again)["a::f"], Code::Same);
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
                vec![ChangedFunction::new("release/deps/b", "y", How::Changed)]
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
