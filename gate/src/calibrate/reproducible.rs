//! Reproducibility: how a benchmark's code in one build compares with the reference build's
//! ([`compare_code`]), and what two cold builds of one tree disagreed on ([`unreproducible`]).

use std::collections::{BTreeMap, BTreeSet};

use super::Build;
use crate::config::metrics::IR;
use crate::model::Touch;
use crate::model::{ChangedFunction, How};
use crate::select::rule::{self as change, Change};

/// How a benchmark's code in one build compares with the reference build's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Code {
    /// Its process executed the same code reading the same data, and reads no file the build
    /// changed: the build left it untouched.
    Same,
    /// It executed these functions, whose code differs, or (none) may read at run time a file
    /// the build changed, as `reads` says.
    Differs {
        /// The functions (or whole objects) whose code differs.
        functions: Vec<ChangedFunction>,
        /// Why it may read a changed file, when that is what differs.
        reads: Option<String>,
    },
    /// Not known (no code record of it, or no identity of an object it executed), and why.
    Unknown(String),
}

impl Code {
    /// What differs, in a phrase (escaped for a terminal: the names are the repository's).
    pub fn describe(&self) -> String {
        match self {
            Code::Same => "the same code".to_owned(),
            Code::Differs { functions, reads } if functions.is_empty() => {
                crate::text::terminal(reads.as_deref().unwrap_or("")).into_owned()
            }
            Code::Differs { functions, .. } => {
                let named: Vec<String> = functions.iter().take(4).map(function).collect();
                format!(
                    "executes {}{}",
                    named.join(", "),
                    if functions.len() > 4 {
                        format!(" and {} more", functions.len() - 4)
                    } else {
                        String::new()
                    }
                )
            }
            Code::Unknown(why) => crate::text::terminal(why).into_owned(),
        }
    }
}

/// A changed function, named with its object: `` `ndfix::drawn` (release/deps/data) ``.
fn function(f: &ChangedFunction) -> String {
    let object = crate::text::terminal(&f.object);
    match f.how {
        How::Whole => format!("the whole of `{object}`"),
        How::Vanished => format!(
            "`{}` ({object}; absent from one build)",
            crate::text::terminal(&f.name)
        ),
        How::Changed => format!("`{}` ({object})", crate::text::terminal(&f.name)),
    }
}

/// The code of every benchmark of `reference`'s results in `build`, compared with the
/// reference's by the code identity ([`change::touched`], with the files `build` changed):
/// every benchmark is [`Code::Unknown`] when either build has no code.
pub fn compare_code(reference: &Build, build: &Build) -> BTreeMap<String, Code> {
    let ids: Vec<String> = reference.results.benchmarks.keys().cloned().collect();
    let (Some(base), Some(other)) = (&reference.code, &build.code) else {
        let missing = if reference.code.is_none() {
            &reference.name
        } else {
            &build.name
        };
        let why = format!("no code record of the build `{missing}`");
        return ids
            .into_iter()
            .map(|id| (id, Code::Unknown(why.clone())))
            .collect();
    };
    let change = Change {
        files: build.changed_files.clone().unwrap_or_default(),
        ..Change::default()
    };
    // Both builds are of one tree, copied: what a benchmark read is judged by the files the
    // variant changed, not read again from a copy that is gone (the observed inputs name its
    // paths).
    let mut base = base.clone();
    for entry in base.benchmarks.values_mut() {
        entry.observed = None;
    }
    let change::Touches { functions, touch } =
        change::touched(&base, &other.objects, &change, &ids);
    touch
        .into_iter()
        .map(|(id, touch)| {
            let reads = base
                .benchmarks
                .get(&id)
                .and_then(|e| e.reads_files.as_ref());
            let code = match touch {
                Touch::Untouched => match (&build.changed_files, reads) {
                    (None, Some(why)) => Code::Unknown(format!(
                        "it may read files at run time ({why}), and which files the build `{}` \
                         changed is not known",
                        build.name
                    )),
                    _ => Code::Same,
                },
                Touch::Runs { functions: changed } => Code::Differs {
                    functions: changed.iter().map(|&i| functions[i].clone()).collect(),
                    reads: None,
                },
                Touch::Reads { reason } => Code::Differs {
                    functions: Vec::new(),
                    reads: Some(reason),
                },
                Touch::Unrecorded { reason } => Code::Unknown(reason),
            };
            (id, code)
        })
        .collect()
}

/// The benchmarks whose Ir differs between the builds `base` and `rebuild` (two cold builds of
/// one tree at one path), with their counts; those that executed a function whose code identity
/// differs between them, with the functions; and the `OUT_DIR` files whose content differed:
/// empty when the builds do not include both.
pub fn unreproducible(builds: &[Build]) -> Unreproducible {
    let find = |name: &str| builds.iter().find(|b| b.name == name);
    let (Some(base), Some(again)) = (find("base"), find("rebuild")) else {
        return Unreproducible::default();
    };
    let benchmarks = base
        .results
        .benchmarks
        .iter()
        .filter_map(|(id, counts)| {
            let a = *counts.get(IR)?;
            let b = *again.results.benchmarks.get(id)?.get(IR)?;
            (a != b).then(|| (id.clone(), a, b))
        })
        .collect();
    let code = compare_code(base, again)
        .into_iter()
        .filter_map(|(id, code)| match code {
            Code::Differs { functions, .. } if !functions.is_empty() => Some((id, functions)),
            _ => None,
        })
        .collect();
    let out_dir = base
        .out_dir
        .iter()
        .filter(|(file, digest)| again.out_dir.get(*file) != Some(*digest))
        .map(|(file, _)| file.clone())
        .chain(
            again
                .out_dir
                .keys()
                .filter(|file| !base.out_dir.contains_key(*file))
                .cloned(),
        )
        .collect();
    Unreproducible {
        checked: true,
        benchmarks,
        code,
        out_dir,
    }
}

/// What two cold builds of one tree at one path disagreed on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unreproducible {
    /// Whether the builds held `base` and `rebuild`, so that reproducibility was checked at all.
    pub checked: bool,
    /// Benchmark, Ir of the first build, Ir of the second.
    pub benchmarks: Vec<(String, u64, u64)>,
    /// By benchmark, the functions it executed whose code identity differed between the two
    /// builds (whatever the counts said).
    pub code: BTreeMap<String, Vec<ChangedFunction>>,
    /// The `OUT_DIR` files (`<package>/out/<file>`) whose content differed.
    pub out_dir: Vec<String>,
}

impl Unreproducible {
    /// The ids: those whose count differed, and those whose executed code did.
    pub fn ids(&self) -> BTreeSet<String> {
        self.benchmarks
            .iter()
            .map(|(id, _, _)| id.clone())
            .chain(self.code.keys().cloned())
            .collect()
    }

    /// The functions whose code differed, each once, named with their objects.
    pub fn functions(&self) -> Vec<String> {
        let all: BTreeSet<&ChangedFunction> = self.code.values().flatten().collect();
        all.into_iter().map(function).collect()
    }

    /// The likely cause, in a sentence.
    pub fn cause(&self) -> String {
        let mut causes = Vec::new();
        if !self.code.is_empty() {
            let functions = self.functions();
            let named: Vec<&str> = functions.iter().take(5).map(String::as_str).collect();
            causes.push(format!(
                "the two builds compiled other code or data into functions these benchmarks \
                 execute ({}{}): a build script or macro writing random data, the time or the \
                 environment into the code",
                named.join(", "),
                if functions.len() > 5 { ", ..." } else { "" }
            ));
        }
        if !self.out_dir.is_empty() {
            let named: Vec<&str> = self.out_dir.iter().take(5).map(String::as_str).collect();
            causes.push(format!(
                "build scripts wrote other data into OUT_DIR each time ({}{}): a build script \
                 drawing unseeded random numbers, the time or the environment",
                named.join(", "),
                if self.out_dir.len() > 5 { ", ..." } else { "" }
            ));
        }
        if causes.is_empty() {
            "the build scripts wrote the same OUT_DIR data both times and the benchmarks \
             executed the same code: the benchmark's own run differs (hash seeds: a HashMap's \
             RandomState, the time, addresses)"
                .to_owned()
        } else {
            causes.join("; ")
        }
    }
}
