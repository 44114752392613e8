//! Taking a run's results: measuring the selection (both sides with A/B) or merging results taken
//! elsewhere, adding the carried counts, and writing the results with their profiles and code
//! record.

use std::path::PathBuf;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::measure::ab;
use crate::measure::collect::{
    Selection, read_from, run_started, run_with_code, runner_output, suite_dirs, write_code,
    write_profiles, write_results,
};
use crate::model::Carry;
use crate::paths::Resolved;

/// Measures `selection` of the workspace at `paths` (with `base`, that revision too, A/B), or
/// merges the summaries and results `from` names, adds `carry`'s counts, and writes the results
/// beside their profiles and code record. A measuring run first removes the results it replaces:
/// one that fails leaves none behind for `check` to pass on.
pub fn write(
    (paths, config, selection): (&Resolved, &Config, &Selection),
    filter: Option<&Filter>,
    (base, from): (Option<&str>, &[PathBuf]),
    carry: Option<&Carry>,
) -> Result<()> {
    if from.is_empty() {
        // A run that fails must leave no results behind for `check` to pass on.
        discard(paths)?;
        if base.is_some() {
            discard(&paths.base_side())?;
        }
    }
    if let Some(rev) = base {
        let sides = ab::measure(paths, config, selection, filter, rev)?;
        let base_paths = paths.base_side();
        let [head_home, base_home] = &sides.homes;
        let [head_root, base_root] = &sides.roots;
        let [head_code, base_code] = &sides.codes;
        write_code(paths, head_code)?;
        write_code(&base_paths, base_code)?;
        let (mut head, mut base) = (sides.head, sides.base);
        if let Some(carry) = carry {
            carry.add_to(&mut head);
            carry.add_to(&mut base);
        }
        for (side, results, home, root) in [
            (paths, &head, head_home, head_root),
            (&base_paths, &base, base_home, base_root),
        ] {
            write_results(side, results)?;
            // Source paths relative to the side's own checkout, so that the sides compare.
            let built = Resolved {
                root: root.clone(),
                ..side.clone()
            };
            write_profiles(
                &suite_dirs(results, std::slice::from_ref(home)),
                &built,
                results,
                run_started(results),
            );
        }
        return Ok(());
    }
    let (mut results, code) = if from.is_empty() {
        let (results, code) = run_with_code(paths, config, selection, filter, None)?;
        (results, Some(code))
    } else {
        let results = read_from(from, &paths.root, config, filter)?;
        (results, None)
    };
    // Profiles only of the benchmarks that ran: a carried one's files are an older run's.
    let sources = if from.is_empty() {
        runner_output(&results, &paths.root)
    } else {
        from.to_vec()
    };
    let ran = results.clone();
    if let Some(carry) = carry {
        carry.add_to(&mut results);
    }
    write_results(paths, &results)?;
    if let Some(code) = &code {
        write_code(paths, code)?;
    }
    // Only what this run wrote: summaries older than its start are an earlier run's.
    let since = from.is_empty().then(|| run_started(&ran)).flatten();
    write_profiles(&sources, paths, &ran, since);
    Ok(())
}

/// Removes the results file of `paths` and the files beside it, before a run writes new ones: a
/// run that fails part-way then leaves nothing that `check` could read as its outcome.
fn discard(paths: &Resolved) -> Result<()> {
    for path in [paths.results.clone(), paths.profiles(), paths.code_record()] {
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::write(&path, e));
            }
            _ => {}
        }
    }
    Ok(())
}
