//! `irgate calibrate`: how far each benchmark's count moves between builds of the same commit
//! that differ only in code the benchmark does not run (code layout, codegen partitioning,
//! inlining elsewhere), and the budget that follows from it.
//!
//! Without results files, `irgate calibrate` makes the builds itself
//! ([`crate::calibrate::measure`]): each [`Variant`] is a copy of the working tree at a
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
//! ([`crate::calibrate::learn_layout`]). `--write` puts the budgets into gate.toml as
//! `[[overrides]]` marked `# irgate calibrate`, replacing the ones an earlier calibration wrote
//! and keeping everything else, comments included; and the learned address budget, when above
//! the default, as `[layout]`, unless gate.toml has a `[layout]` of its own
//! ([`crate::config::write`]).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::calibrate::{Builds, Variant, calibrate, write_into};
use crate::error::Result;
use crate::paths::Paths;

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

/// Runs `irgate calibrate`: prints the spreads, and with `write` updates gate.toml.
pub fn execute(options: &Options) -> Result<ExitCode> {
    let paths = options.paths.resolve()?;
    let builds = if options.results.is_empty() {
        Builds::Made(&options.variants, options.jobs)
    } else {
        Builds::Files(&options.results)
    };
    let calibration = calibrate(&paths, builds)?;
    crate::text::print(&calibration.render());
    if options.write {
        write_into(&paths.config, &calibration)?;
        crate::note!(
            "wrote the calibrated budgets of {} benchmarks into {}",
            calibration.spreads.len(),
            paths.config.display()
        );
    }
    // Benchmarks whose build is not reproducible hold the gate undecided until gate.toml marks
    // them `info`.
    Ok(if calibration.undecided(&paths.config) {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
