//! The record pass of one suite: its benchmarks run again under callgrind
//! ([`suite_run::record`]) and, around them, strace ([`observe`]); what each executed is read from
//! callgrind's files ([`record::read`]), and what each read from the trace.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::config::suite::Suite;
use crate::error::{Error, Result};
use crate::measure::library::Library;
use crate::measure::observe::{self, Place};
use crate::measure::record;
use crate::measure::suite_run::{self, Settings};

/// The most bytes of a trace irgate reads.
const MAX_TRACE_BYTES: u64 = 1 << 30;

/// The record pass of `suite` into a fresh directory of `scratch`, read back for the `measured`
/// benchmarks (id to Ir) built into `target` in the workspace at `root`: what each executed and,
/// observed (with strace on the PATH), what each read.
pub fn record_suite(
    suite: &Suite,
    library: &Library,
    settings: &Settings,
    scratch: &Path,
    (target, root): (&Path, &Path),
    measured: &BTreeMap<String, u64>,
) -> Result<record::Found> {
    let name = suite.name().replace('/', "-");
    let home = scratch.join("record").join(&name);
    let trace = scratch.join("record").join(format!("{name}.strace"));
    // Only what this pass writes is read.
    match std::fs::remove_dir_all(&home) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(Error::write(&home, e)),
        _ => {}
    }
    std::fs::create_dir_all(&home).map_err(|e| Error::write(&home, e))?;
    let expected: BTreeSet<String> = measured.keys().cloned().collect();
    let settings = Settings {
        home: Some(&home),
        ..settings.clone()
    };
    let strace = observe::strace();
    suite_run::record(
        suite,
        library,
        &settings,
        &expected,
        strace.as_deref().map(|s| (s, trace.as_path())),
    )?;
    let mut found = record::read(&home, (target, root), library.kind, measured)?;
    if strace.is_none() {
        return Ok(found);
    }
    let text = crate::formats::read_bounded(&trace, MAX_TRACE_BYTES)?;
    let trace_read = observe::parse(&String::from_utf8_lossy(&text), root);
    drop(text);
    let runs = observe::processes(&home)?;
    let ids: BTreeSet<String> = found.benchmarks.keys().cloned().collect();
    let mut by_benchmark = observe::attribute(&trace_read, target, &runs, &ids);
    let runner = library.kind.runner();
    // The runner's own directory (the program the bench binary starts, by its name).
    let mut tools: Vec<_> = trace_read
        .execs
        .values()
        .flatten()
        .filter_map(|argv| argv.first().map(Path::new))
        .filter(|program| {
            program.is_absolute() && program.file_name().is_some_and(|n| *n == *runner)
        })
        .filter_map(|program| program.parent().map(Path::to_owned))
        .collect();
    tools.extend(crate::env::cargo_home().map(|home| home.join("bin")));
    tools.extend(crate::env::rustup_home().map(|home| home.join("toolchains")));
    let place = Place {
        root,
        target,
        own: vec![scratch.to_owned(), home],
        tools,
    };
    let mut digests = BTreeMap::new();
    for (id, executed) in &mut found.benchmarks {
        let accesses = by_benchmark.remove(id).unwrap_or_default();
        executed.observed = Some(observe::observe(&accesses, &place, executed, &mut digests));
    }
    let _ = std::fs::remove_file(&trace);
    Ok(found)
}
