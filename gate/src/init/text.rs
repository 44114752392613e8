//! What `irgate init` prints: the suites it found, the path check after calibration, and the
//! next steps.

use std::fmt::Write as _;
use std::path::Path;

use crate::calibrate::Unreproducible;
use crate::config::suite::Suite;
use crate::init::Recording;
use crate::measure::library::Library;
use crate::model::Results;
use crate::text::thousands;

/// The suites `init` found in the workspace at `root`, each with its library and features.
pub fn found(root: &Path, suites: &[(Suite, Library)]) -> String {
    let mut found = format!(
        "irgate init: {} callgrind suite(s) in {}:\n",
        suites.len(),
        root.display()
    );
    for (suite, library) in suites {
        let features = if suite.features.is_empty() {
            String::new()
        } else {
            format!(", features {}", suite.features.join(","))
        };
        let _ = writeln!(found, "  {} ({library}{features})", suite.name());
    }
    found
}

/// A warning naming the reproducible benchmarks whose count differs between the checkout and the
/// first scratch build (same tree, a path of the same length): the path moved them after all,
/// and no budget is widened for it; empty when none did.
pub fn path_check(checkout: &Results, copy: &Results, unreproducible: &Unreproducible) -> String {
    let unreproducible = unreproducible.ids();
    let moved: Vec<String> = checkout
        .benchmarks
        .iter()
        .filter(|(id, _)| !unreproducible.contains(*id))
        .filter_map(|(id, counts)| {
            let here = *counts.get(crate::config::metrics::IR)?;
            let there = *copy.benchmarks.get(id)?.get(crate::config::metrics::IR)?;
            (here != there).then(|| {
                format!(
                    "{} ({} Ir here, {} Ir in the copy)",
                    crate::text::terminal(id),
                    thousands(here),
                    thousands(there)
                )
            })
        })
        .collect();
    if moved.is_empty() {
        return String::new();
    }
    format!(
        "irgate init: warning: {} counted differently in this checkout and in a copy at a path of \
         the same length: {}. The calibrated budgets do not hold this; take the baselines in one \
         place (CI's checkout path) and tell irgate's maintainers.\n",
        crate::text::plural(moved.len(), "benchmark"),
        moved.join(", ")
    )
}

/// What to do after init: `ran` when the suites ran, `recording` what the code record holds,
/// `suites` the suites found, `branch` the history's branch with --ci.
pub fn next_steps(
    ran: bool,
    recording: &Recording,
    suites: &[(Suite, Library)],
    branch: Option<&str>,
) -> String {
    let mut out = String::from("\nNext steps:\n");
    let what = match recording {
        Recording::Nothing(_) => "the baselines",
        _ => "the baselines and the code record",
    };
    if ran {
        let _ = writeln!(
            out,
            "  irgate refresh                 take {what} from the run above\n\
             \x20                                (baselines/)"
        );
    } else if matches!(recording, Recording::Nothing(_)) {
        out.push_str("  irgate run && irgate refresh   take the baselines (baselines/)\n");
    } else {
        out.push_str("  irgate run --record && irgate refresh   take the baselines and the code record (baselines/)\n");
    }
    match recording {
        Recording::Every => {}
        Recording::Partial(unrecorded) => {
            let _ = writeln!(
                out,
                "                                 {} {} no code record, so `irgate run \
                 --only-touched` runs {} on every change: {}",
                crate::text::plural(unrecorded.len(), "benchmark"),
                if unrecorded.len() == 1 { "has" } else { "have" },
                if unrecorded.len() == 1 { "it" } else { "them" },
                crate::text::terminal(&crate::select::text::unrecorded(unrecorded))
            );
        }
        Recording::Nothing(why) => {
            let _ = writeln!(
                out,
                "                                 no code record: `irgate run --only-touched` \
                 will run every benchmark: {}",
                crate::text::terminal(why)
            );
        }
    }
    out.push_str(
        "  git add gate.toml baselines/   commit them: that is how counts are accepted\n\
         \x20 irgate run && irgate check     the gate, after every change\n",
    );
    match branch {
        Some(branch) => {
            // Selection skips benchmarks only where the runner can run one by id (gungraun).
            let whole: Vec<String> = suites
                .iter()
                .filter(|(_, library)| !library.filters_ids())
                .map(|(suite, library)| format!("`{}` ({library})", suite.name()))
                .collect();
            let selects = match recording {
                Recording::Nothing(_) => {
                    "every benchmark (no code record to select by: above); the\n".to_owned()
                }
                _ if !whole.is_empty() => format!(
                    "every benchmark of {}, whose runner\n\
                     \x20   cannot run one by id, and of the others only those the change can move; the\n",
                    whole.join(", ")
                ),
                _ => "only the benchmarks the change can move, from the base commit's\n\
                      \x20   code record (only-touched: \"false\" in it runs them all); the\n"
                    .to_owned(),
            };
            let _ = write!(
                out,
                "  CI: commit .github/workflows/irgate*.yml and .irgate/image.env; take the baselines in\n\
                 \x20   CI's pinned image (the 'irgate refresh' workflow), since counts compare only\n\
                 \x20   within one environment. On a pull request, the 'irgate' workflow runs\n\
                 \x20   {selects}\
                 \x20   'irgate history' workflow measures every benchmark on every push to {branch}\n\
                 \x20   and draws the dashboard (repository variable IRGATE_PAGES=true publishes it)\n"
            );
        }
        None => out.push_str("  irgate init --ci --force       also write the GitHub workflows\n"),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Counts;

    #[test]
    fn a_count_the_copys_path_moved_is_named_not_budgeted() {
        let results = |counts: &[(&str, u64)]| Results {
            benchmarks: counts
                .iter()
                .map(|(id, ir)| (id.to_string(), Counts::from([("Ir".to_owned(), *ir)])))
                .collect(),
            ..Results::default()
        };
        let unreproducible = Unreproducible {
            benchmarks: vec![("nd::x".into(), 5, 9)],
            ..Default::default()
        };
        let here = results(&[("bin::run", 297_472), ("a::y", 10), ("nd::x", 7)]);
        let same = results(&[("bin::run", 297_472), ("a::y", 10), ("nd::x", 5)]);
        assert_eq!(path_check(&here, &same, &unreproducible), "");
        let moved = results(&[("bin::run", 301_151), ("a::y", 10), ("nd::x", 5)]);
        let warning = path_check(&here, &moved, &unreproducible);
        assert!(
            warning.contains("1 benchmark counted differently in this checkout and in a copy")
                && warning.contains("bin::run (297,472 Ir here, 301,151 Ir in the copy)")
                && !warning.contains("nd::x"),
            "{warning}"
        );
    }

    #[test]
    fn next_steps_promise_the_record_only_where_it_can_be_taken() {
        let every = next_steps(true, &Recording::Every, &[], None);
        assert!(
            every.contains("take the baselines and the code record from the run above"),
            "{every}"
        );
        let nothing = next_steps(
            true,
            &Recording::Nothing("suite `p/b`: it cannot".into()),
            &[],
            None,
        );
        assert!(
            nothing.contains("take the baselines from the run above")
                && nothing.contains(
                    "no code record: `irgate run --only-touched` will run every benchmark: \
                     suite `p/b`: it cannot"
                )
                && !nothing.contains("code record from")
                && !nothing.contains("--record"),
            "{nothing}"
        );
        let ci = next_steps(true, &Recording::Every, &[], Some("main"));
        assert!(
            ci.contains(
                "On a pull request, the 'irgate' workflow runs\n    only the benchmarks the \
                 change can move, from the base commit's\n    code record (only-touched: \
                 \"false\" in it runs them all); the\n    'irgate history' workflow measures \
                 every benchmark on every push to main\n"
            ),
            "{ci}"
        );
        let ci = next_steps(true, &Recording::Nothing("why".into()), &[], Some("main"));
        assert!(
            ci.contains("the 'irgate' workflow runs\n    every benchmark (no code record"),
            "{ci}"
        );
        // A runner that cannot run one benchmark by id runs its whole suite on a pull request.
        let iai = (
            Suite {
                package: "lib".into(),
                bench: "iai".into(),
                features: Vec::new(),
                args: Vec::new(),
            },
            Library {
                kind: crate::measure::library::Kind::IaiCallgrind,
                version: semver::Version::new(0, 16, 1),
            },
        );
        let ci = next_steps(true, &Recording::Every, &[iai], Some("main"));
        assert!(
            ci.contains(
                "the 'irgate' workflow runs\n    every benchmark of `lib/iai` (iai-callgrind \
                 0.16.1), whose runner\n    cannot run one by id, and of the others only those \
                 the change can move; the\n"
            ),
            "{ci}"
        );
        let not_run = next_steps(false, &Recording::Nothing("why".into()), &[], None);
        assert!(
            not_run.contains("irgate run && irgate refresh") && !not_run.contains("--record"),
            "{not_run}"
        );
        let partial = next_steps(
            true,
            &Recording::Partial([("g::f/a".to_owned(), "it measured 0 Ir".to_owned())].into()),
            &[],
            None,
        );
        assert!(
            partial.contains(
                "1 benchmark has no code record, so `irgate run --only-touched` runs it on every \
                 change: it measured 0 Ir (`g::f/a`)"
            ),
            "{partial}"
        );
    }
}
