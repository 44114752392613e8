//! Spreads and the learned address budget: how far each benchmark's count moved over the
//! builds ([`spreads`]), and the `[layout]` budget learned from the benchmarks a perturbed build
//! left untouched ([`learn_layout`]).

use std::collections::{BTreeMap, BTreeSet};

use super::{Code, Variant};
use crate::config::budgets::DEFAULT_LAYOUT_BUDGET;
use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::model::Results;

/// A benchmark a perturbed build touched: left out of its spread and of the address budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touched {
    /// Benchmark id.
    pub benchmark: String,
    /// The build.
    pub build: String,
    /// Its Ir in that build minus its Ir in the reference build.
    pub moved: i64,
    /// What differs ([`Code::describe`]).
    pub why: String,
}

/// The address budget (`[layout]`) learned from the benchmarks the perturbed builds left
/// untouched ([`learn_layout`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// The budget in Ir; `None` when no benchmark was proven untouched in a perturbed build
    /// (the default is kept).
    pub budget: Option<u64>,
    /// How many benchmarks it was learned from.
    pub sample: usize,
    /// The perturbed builds it was learned from.
    pub builds: Vec<String>,
    /// The largest spread among them: benchmark and Ir.
    pub largest: Option<(String, u64)>,
    /// The benchmarks a perturbed build touched, by build.
    pub touched: Vec<Touched>,
    /// How many benchmarks of perturbed builds could not be compared by code.
    pub unknown: usize,
}

/// The address budget learned from `runs` (name, results) against the build `reference`, given
/// how each other build's code compares with the reference's (`compared`, by build and
/// benchmark). For each benchmark not in `unreproducible`, its learning set is the reference
/// build and every perturbed build (neither the reference nor `rebuild`, which perturbs
/// nothing) whose code is [`Code::Same`] for it; a benchmark whose set holds two builds or
/// more is learned from, with its spread (largest count minus smallest) over the set. The
/// budget is one and a half times the largest such spread, rounded up, and never below the
/// default layout budget; with no benchmark learned from, there is none (the default stays).
pub fn learn_layout(
    runs: &[(String, Results)],
    reference: &str,
    compared: &[(String, BTreeMap<String, Code>)],
    unreproducible: &BTreeSet<String>,
) -> Layout {
    let ir = |name: &str, id: &str| -> Option<u64> {
        let (_, run) = runs.iter().find(|(n, _)| n == name)?;
        run.benchmarks.get(id)?.get(IR).copied()
    };
    let mut layout = Layout::default();
    let mut builds = BTreeSet::new();
    let Some((_, base)) = runs.iter().find(|(n, _)| n == reference) else {
        return layout;
    };
    for id in base.benchmarks.keys() {
        let Some(first) = ir(reference, id).filter(|_| !unreproducible.contains(id)) else {
            continue;
        };
        let (mut min, mut max, mut size) = (first, first, 1);
        for (build, codes) in compared {
            let Some(count) = ir(build, id) else {
                continue;
            };
            match codes.get(id) {
                Some(Code::Same) if build != Variant::Rebuild.name() => {
                    min = min.min(count);
                    max = max.max(count);
                    size += 1;
                    builds.insert(build.clone());
                }
                Some(code @ Code::Differs { .. }) => layout.touched.push(Touched {
                    benchmark: id.clone(),
                    build: build.clone(),
                    moved: crate::text::signed_delta(count, first),
                    why: code.describe(),
                }),
                Some(Code::Unknown(_)) | None if build != Variant::Rebuild.name() => {
                    layout.unknown += 1;
                }
                _ => {}
            }
        }
        if size < 2 {
            continue;
        }
        layout.sample += 1;
        if layout.largest.as_ref().is_none_or(|(_, l)| max - min > *l) {
            layout.largest = Some((id.clone(), max - min));
        }
    }
    layout.builds = builds.into_iter().collect();
    layout.budget = layout
        .largest
        .as_ref()
        .map(|(_, spread)| (3 * spread).div_ceil(2).max(DEFAULT_LAYOUT_BUDGET.absolute));
    layout
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

/// The spread of every benchmark over `runs` (name, results), in id order, leaving out the
/// builds `left_out` names for it (benchmark, build: a build that changed the code it
/// executes). Every run must hold the same benchmarks, taken in the same environment.
pub fn spreads(
    runs: &[(String, Results)],
    left_out: &BTreeSet<(String, String)>,
) -> Result<Vec<Spread>> {
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
            if left_out.contains(&(id.clone(), name.clone())) {
                continue;
            }
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
    use crate::calibrate::fixtures::runs;

    /// One and a half times the spread, rounded up, at least 1 Ir: 0 -> 1, 1 -> 2, 2 -> 3, 3 -> 5,
    /// 68 -> 102.
    #[test]
    fn the_suggested_budget_is_one_and_a_half_spreads_rounded_up_at_least_one() {
        let spread = |min, max| Spread {
            benchmark: "a::b".into(),
            min,
            max,
            moved_in: Vec::new(),
        };
        let suggested: Vec<u64> = [(10, 10), (10, 11), (10, 12), (10, 13), (100, 168)]
            .into_iter()
            .map(|(min, max)| spread(min, max).suggested())
            .collect();
        assert_eq!(suggested, [1, 2, 3, 5, 102]);
    }

    /// The learning rule alone: a benchmark's spread over `base` and the perturbed builds that
    /// left it untouched, one and a half times the largest, never below the default; `rebuild`
    /// (nothing perturbed), touched and unknown builds teach nothing, and with nothing learned
    /// the default stays.
    #[test]
    fn the_address_budget_is_learned_from_untouched_benchmarks_only() {
        use crate::model::Counts;
        let run = |name: &str, counts: &[(&str, u64)]| {
            let results = Results {
                benchmarks: counts
                    .iter()
                    .map(|(id, ir)| (id.to_string(), Counts::from([(IR.to_owned(), *ir)])))
                    .collect(),
                ..Results::default()
            };
            (name.to_owned(), results)
        };
        let runs = [
            run("base", &[("a", 100), ("b", 100), ("c", 100)]),
            run("rebuild", &[("a", 100), ("b", 100), ("c", 100)]),
            run("version", &[("a", 102), ("b", 900), ("c", 150)]),
        ];
        let codes = |a: Code, b: Code, c: Code| {
            BTreeMap::from([
                ("a".to_owned(), a),
                ("b".to_owned(), b),
                ("c".to_owned(), c),
            ])
        };
        let touched = || Code::Differs {
            functions: Vec::new(),
            reads: Some("it reads files".into()),
        };
        let none = BTreeSet::new();
        // a moved 2 Ir untouched: 3, below the floor; b moved 800 Ir by the change; c unknown.
        let compared = [
            (
                "rebuild".to_owned(),
                codes(Code::Same, Code::Same, Code::Same),
            ),
            (
                "version".to_owned(),
                codes(Code::Same, touched(), Code::Unknown("no record".into())),
            ),
        ];
        let layout = learn_layout(&runs, "base", &compared, &none);
        assert_eq!(layout.budget, Some(DEFAULT_LAYOUT_BUDGET.absolute));
        assert_eq!(layout.largest, Some(("a".to_owned(), 2)));
        assert_eq!((layout.sample, layout.unknown), (1, 1));
        assert_eq!(layout.touched.len(), 1);
        assert_eq!(
            (
                layout.touched[0].benchmark.as_str(),
                layout.touched[0].moved
            ),
            ("b", 800)
        );
        // c untouched too: its 50 Ir make 75.
        let compared = [(
            "version".to_owned(),
            codes(Code::Same, touched(), Code::Same),
        )];
        let layout = learn_layout(&runs, "base", &compared, &none);
        assert_eq!(layout.budget, Some(75));
        // ... unless it is not reproducible.
        let layout = learn_layout(&runs, "base", &compared, &BTreeSet::from(["c".to_owned()]));
        assert_eq!(layout.budget, Some(16));
        // Only `rebuild` (init's check): nothing perturbed, nothing learned, the default stays.
        let compared = [(
            "rebuild".to_owned(),
            codes(Code::Same, Code::Same, Code::Same),
        )];
        let layout = learn_layout(&runs[..2], "base", &compared, &none);
        assert_eq!((layout.budget, layout.sample), (None, 0));
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
}
