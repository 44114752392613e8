//! The report of `irgate calibrate`: the benchmarks whose build is not reproducible, the table
//! of spreads, and the address budget with what it was (and was not) learned from.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::calibrate::{Calibration, Layout, Spread, Unreproducible};
use crate::config::budgets::DEFAULT_LAYOUT_BUDGET;
use crate::text::{align, thousands};

impl Calibration {
    /// The report: the unreproducible benchmarks, the table of spreads, then the address
    /// budget and what it was not learned from.
    pub fn render(&self) -> String {
        let mut out = render_unreproducible(&self.unreproducible);
        let changed: std::collections::BTreeSet<&str> = self
            .layout
            .touched
            .iter()
            .map(|t| t.benchmark.as_str())
            .collect();
        out.push_str(&render(&self.spreads, &self.builds, changed.len()));
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
/// first, then a line for the ones that did not. `changed` benchmarks executed other code in
/// some perturbed build: their count there is left out of their spread, which the text says.
pub fn render(spreads: &[Spread], builds: &[String], changed: usize) -> String {
    let mut moved: Vec<&Spread> = spreads.iter().filter(|s| s.max > s.min).collect();
    moved.sort_by(|a, b| {
        (b.max - b.min)
            .cmp(&(a.max - a.min))
            .then(a.benchmark.cmp(&b.benchmark))
    });
    let same_code = if changed > 0 {
        " while executing the same code"
    } else {
        ""
    };
    let mut out = format!(
        "Calibration over {} builds ({}): {} of {} benchmarks moved{same_code} \
         (layout-sensitive).\n",
        builds.len(),
        builds.join(", "),
        moved.len(),
        spreads.len()
    );
    if changed > 0 {
        let _ = writeln!(
            out,
            "{} executed changed code in a perturbed build: those builds are left out of {} \
             spread (listed below).",
            crate::text::plural(changed, "benchmark"),
            if changed == 1 { "its" } else { "their" }
        );
    }
    out.push('\n');
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
        "{} kept {} exact count in every build{}: budget 1 Ir.",
        if kept == 1 {
            "The 1 other benchmark".to_owned()
        } else {
            format!("The {kept} other benchmarks")
        },
        if kept == 1 { "its" } else { "their" },
        match (changed > 0, kept == 1) {
            (false, _) => "",
            (true, true) => " that left the code it executes unchanged",
            (true, false) => " that left the code they execute unchanged",
        }
    );
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::calibrate::fixtures::runs;
    use crate::calibrate::spreads;

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
        let builds = ["base".into(), "cgu1".into(), "meta".into()];
        let table = render(&spreads, &builds, 0);
        assert!(
            table.contains("1 of 2 benchmarks moved (layout-sensitive)"),
            "{table}"
        );
        assert!(
            table.contains("kept its exact count in every build: budget"),
            "{table}"
        );
        let table = render(&spreads, &builds, 1);
        assert!(
            table.contains("1 of 2 benchmarks moved while executing the same code"),
            "{table}"
        );
        assert!(
            table.contains("1 benchmark executed changed code in a perturbed build"),
            "{table}"
        );
        assert!(
            table.contains("in every build that left the code it executes unchanged"),
            "{table}"
        );
        assert!(
            table.contains("a::y       96,995  97,012      17    0.018%      26  cgu1 meta"),
            "{table}"
        );
    }
}
