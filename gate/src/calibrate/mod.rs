//! Calibration's builds: the working tree copied into one scratch directory whose path is as long
//! as the checkout's ([`scratch_path`]: a count moves with the length of the paths compiled into
//! the binary and handed to it), each [`Variant`] built there cold (its own target directory,
//! inside the copy, emptied first) with the measurement build and run; the benchmarks whose counts
//! differ between two cold builds of the same tree ([`Variant::Rebuild`]: not reproducible, never
//! budgeted) and what differed between them (the data build scripts wrote into `OUT_DIR`, the
//! code identity of the functions a benchmark executed); which benchmarks each perturbed build
//! left untouched, by the code identity; the spread of each benchmark's count over the builds,
//! with the budget it suggests; the address budget (`[layout]`) learned from the benchmarks a
//! perturbed build left untouched; and the [`Calibration`] of them all ([`calibrate`]).

mod calibration;
mod reproducible;
mod scratch;
mod seed;
mod spread;
pub mod text;
mod variants;

pub use calibration::{Builds, Calibration, calibrate, read_results, write_budgets, write_into};
pub use reproducible::{Code, Unreproducible, compare_code, unreproducible};
pub use scratch::{estimate, measure, scratch_path};
pub use spread::{Layout, Spread, Touched, learn_layout, spreads};
pub use variants::{Variant, check_count};

use std::collections::BTreeMap;

use crate::model::Results;
use crate::model::code::CodeRecord;

/// One calibration build: its variant's name, its counts, a digest of every file the build
/// scripts wrote into `OUT_DIR` (by path below the target directory, the package's hash
/// stripped), so two builds of one tree can say which build script wrote other data, and its code.
#[derive(Debug, Clone)]
pub struct Build {
    /// The variant's name.
    pub name: String,
    /// Its counts.
    pub results: Results,
    /// `OUT_DIR` files: `<package>/out/<file>` to a digest of the content.
    pub out_dir: BTreeMap<String, String>,
    /// Its code: for the reference build ([`reference()`]) the record of what each benchmark
    /// executed, for the others the identity of their objects; `None` when not known (results
    /// of a build made elsewhere with no code record beside them).
    pub code: Option<CodeRecord>,
    /// The files this build changed against the reference build, relative to the workspace root
    /// (what a benchmark that reads files at run time may read differently); `None` when not
    /// known.
    pub changed_files: Option<Vec<String>>,
}

/// The build the others are compared with, by code and by count: `base`, else the first.
pub fn reference(builds: &[Build]) -> Option<&Build> {
    builds
        .iter()
        .find(|b| b.name == Variant::Base.name())
        .or(builds.first())
}

#[cfg(test)]
pub(crate) mod fixtures {
    use crate::config::metrics::IR;
    use crate::model::{Counts, Results};

    /// Results holding these Ir counts.
    pub fn run(counts: &[(&str, u64)]) -> Results {
        Results {
            benchmarks: counts
                .iter()
                .map(|(id, ir)| (id.to_string(), Counts::from([(IR.to_owned(), *ir)])))
                .collect(),
            ..Results::default()
        }
    }

    /// Three builds' results: `a::x` steady, `a::y` moving by 17 Ir.
    pub fn runs() -> Vec<(String, Results)> {
        vec![
            ("base".into(), run(&[("a::x", 100), ("a::y", 97_000)])),
            ("cgu1".into(), run(&[("a::x", 100), ("a::y", 97_012)])),
            ("meta".into(), run(&[("a::x", 100), ("a::y", 96_995)])),
        ]
    }
}
