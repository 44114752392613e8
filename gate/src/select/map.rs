//! The compared change, mapped onto the benchmarks through the code record of the side it starts
//! from ([`crate::select::rule`] decides; this turns its answer into the report's terms).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::formats::baseline::Baselines;
use crate::formats::code;
use crate::git::Commit;
use crate::identity::SourceLines;
use crate::model::code::{CodeRecord, Object};
use crate::model::{ChangeMap, ChangedFunction, Lines, Mode, Results, Touch, UNKNOWN};
use crate::paths::Resolved;
use crate::select::rule as change;
use crate::select::trust;

/// A change mapped onto the benchmarks: the map the report shows, and each benchmark's touch
/// (a benchmark missing from `touch` counts as touched).
#[derive(Debug, Clone, Default)]
pub struct Mapped {
    /// What changed.
    pub map: ChangeMap,
    /// By benchmark id.
    pub touch: BTreeMap<String, Touch>,
}

/// Maps the change from the commit of `base` (the code record of the side the change starts
/// from, as [`trust`] checked it: what each benchmark executed there, or why there is none) to `head` (a commit, or the
/// working tree when `None`, whose build's objects are `objects`) in the repository at `paths`'
/// root onto the benchmarks `ids`. irgate's own files (the target directory, the baselines,
/// gate.toml, `.irgate/`) never count as changed; `config`'s `[change] inert` names the files no
/// benchmark reads at run time. Never fails: a change that cannot be mapped says why in the map, and every
/// benchmark then counts as touched.
pub fn map(
    paths: &Resolved,
    (base, head): (std::result::Result<&CodeRecord, String>, Option<&str>),
    objects: std::result::Result<&BTreeMap<String, Object>, String>,
    config: &Config,
    ids: &[String],
) -> Mapped {
    let unmapped = |base_commit: &str, reason: String| Mapped {
        map: ChangeMap {
            base: base_commit.to_owned(),
            head: head.unwrap_or_default().to_owned(),
            unmapped: Some(reason),
            ..ChangeMap::default()
        },
        touch: BTreeMap::new(),
    };
    let base = match base {
        Ok(base) => base,
        Err(reason) => return unmapped("", reason),
    };
    let objects = match objects {
        Ok(objects) => objects,
        Err(reason) => return unmapped(&base.commit, reason),
    };
    let root = &paths.root;
    let own = paths.own();
    let change = match change::between(root, (&base.commit, head), &own, &|path| {
        config.is_inert(path)
    }) {
        Ok(change) => change,
        Err(error) => return unmapped(&base.commit, error.to_string()),
    };
    let touches = change::touched(base, objects, &change, ids);
    if change.files.is_empty() && change.inert.is_empty() && !touches.functions.is_empty() {
        return unmapped(
            &base.commit,
            format!(
                "no file changed since the code record's commit {}, yet {} that its benchmarks \
                 executed {} in this build: the record does not describe that commit's build \
                 (edited after it was taken, or taken with another toolchain or build settings); \
                 {}",
                crate::text::terminal(crate::text::short_commit(&base.commit)),
                crate::text::plural(touches.functions.len(), "function"),
                if touches.functions.len() == 1 {
                    "differs"
                } else {
                    "differ"
                },
                trust::TAKE_AGAIN
            ),
        );
    }
    let everything = config.inert_everything();
    if !everything.is_empty() && !change.inert.is_empty() {
        crate::warning!(
            "[change] inert names every file ({}): {} changed files count as \
             read by no benchmark, so a benchmark that reads one at run time is not selected \
             for it; name the files no benchmark reads instead",
            crate::text::terminal(&everything.join(", ")),
            change.inert.len()
        );
    }
    // Each object's line tables read once, for the first few changed functions it holds.
    let mut wanted: BTreeMap<&Path, Vec<&str>> = BTreeMap::new();
    for f in touches.functions.iter().take(LOCATED) {
        if let Some(path) = objects.get(&f.object).and_then(|o| o.path.as_deref())
            && !f.name.is_empty()
        {
            wanted.entry(path).or_default().push(&f.name);
        }
    }
    let sources: BTreeMap<&Path, BTreeMap<String, SourceLines>> = wanted
        .into_iter()
        .filter_map(|(path, keys)| Some((path, crate::identity::source_lines(path, &keys).ok()?)))
        .collect();
    let mut located = touches.functions.iter().map(|f| {
        let lines = objects
            .get(&f.object)
            .and_then(|o| o.path.as_deref())
            .and_then(|path| sources.get(path)?.get(&f.name));
        match lines {
            Some(lines) => locate(lines, root, &change.lines),
            None => (String::new(), Vec::new()),
        }
    });
    let map = ChangeMap {
        base: change.base.clone(),
        head: change.head.clone().unwrap_or_default(),
        files: change.files.clone(),
        functions: touches
            .functions
            .iter()
            .map(|f| (f, located.next().unwrap_or_default()))
            .map(|(f, (file, lines))| ChangedFunction {
                object: f.object.clone(),
                name: f.name.clone(),
                how: match f.how {
                    change::How::Changed => "changed",
                    change::How::Vanished => "vanished",
                    change::How::Whole => "whole",
                }
                .to_owned(),
                file,
                lines,
            })
            .collect(),
        unmapped: None,
    };
    Mapped {
        map,
        touch: touches.touch,
    }
}

/// How many changed functions are looked up in the line tables: the rest are named by object.
const LOCATED: usize = 64;

/// Where a changed function whose code has the source `lines` (its line tables' lines, inlined
/// code included) changed: the source file (relative to `root`) holding the most of its lines
/// the diff's `changed` lines hold, and those lines; else the file holding most of its code, with
/// no lines. Empty when its line tables name nothing in the workspace.
fn locate(
    lines: &[(String, u32)],
    root: &Path,
    changed: &BTreeMap<String, Vec<Lines>>,
) -> (String, Vec<Lines>) {
    let mut by_file: BTreeMap<String, (usize, Vec<u32>)> = BTreeMap::new();
    for (file, line) in lines {
        let (file, line) = (Path::new(file), *line);
        let Ok(relative) = file.strip_prefix(root).or_else(|_| {
            if file.is_relative() {
                Ok(file)
            } else {
                Err(())
            }
        }) else {
            continue;
        };
        let relative = relative.to_string_lossy().into_owned();
        let entry = by_file.entry(relative.clone()).or_default();
        entry.0 += 1;
        let hit = changed
            .get(&relative)
            .is_some_and(|ranges| ranges.iter().any(|r| r.first <= line && line <= r.last));
        if hit {
            entry.1.push(line);
        }
    }
    let best = by_file
        .iter()
        .max_by_key(|(_, (code, hits))| (hits.len(), *code))
        .map(|(file, (_, hits))| (file.clone(), hits.clone()));
    let Some((file, hits)) = best else {
        return (String::new(), Vec::new());
    };
    let ranges = irgate_callgrind::ranges(hits)
        .into_iter()
        .map(|r| Lines {
            first: *r.start(),
            last: *r.end(),
        })
        .collect();
    (file, ranges)
}

/// The change from the compared side's commit (the baselines' code record's, or A/B's base) to
/// the results' (the working tree when they were taken on uncommitted changes), mapped onto `ids`
/// through that side's code record (the baselines', read from `record_from` when given, as
/// [`trust::baseline_record`] reads it) and the results' code identity. `None` for drift
/// triage, whose change is mapped by its own run.
pub fn compared(
    config: &Config,
    paths: &Resolved,
    (results, baselines): (&Results, &Baselines),
    (mode, record_from): (&Mode, Option<&str>),
    ids: &[String],
) -> Option<Mapped> {
    let base = match mode {
        Mode::Baselines => trust::baseline_record(paths, baselines, record_from),
        Mode::Ab { commit } => {
            let side = trust::usable(
                code::read(&paths.base_side().code_record()),
                "the base side",
            );
            side.or_else(|side| {
                // The baselines' record serves when it is of the base commit.
                trust::baseline_record(paths, baselines, record_from)
                    .ok()
                    .filter(|b| &b.commit == commit)
                    .ok_or(side)
            })
        }
        Mode::Remeasured { .. } => return None,
    };
    let head_code = match code::read(&paths.code_record()) {
        Ok(Some(code)) if !code.objects.is_empty() => Ok(code),
        Ok(_) => Err(format!(
            "{}: the results have no code identity (taken with --from, or by an older irgate)",
            paths.code_record().display()
        )),
        Err(error) => Err(error.to_string()),
    };
    let head = Commit::parse(&results.fingerprint.commit);
    let head = if head.dirty || head.hash == UNKNOWN || head.hash.is_empty() {
        None
    } else {
        Some(head.hash.as_str())
    };
    let mut mapped = map(
        paths,
        (base.as_ref().map_err(Clone::clone), head),
        head_code.as_ref().map(|c| &c.objects).map_err(Clone::clone),
        config,
        ids,
    );
    if mapped.map.base.is_empty() {
        // Not mapped for want of a record: the span still starts where the comparison does.
        mapped.map.base = match mode {
            Mode::Ab { commit } => commit.clone(),
            _ => baselines_commit(baselines, results).unwrap_or_default(),
        };
    }
    Some(mapped)
}

/// The commit the baselines of the benchmarks in `results` were taken at: one commit, clean, or
/// an error saying why it cannot be measured again.
pub fn baselines_commit(baselines: &Baselines, results: &Results) -> Result<String> {
    let commits: BTreeSet<&str> = results
        .benchmarks
        .keys()
        .filter_map(|id| baselines.get(id))
        .map(|(_, fingerprint)| fingerprint.commit.as_str())
        .collect();
    let origin = baselines.dir.display();
    match commits.into_iter().collect::<Vec<_>>().as_slice() {
        [commit] if Commit::parse(commit).dirty => Err(Error::invalid(
            origin,
            format!(
                "the baselines were taken on a working tree with uncommitted changes \
                 (`{commit}`): that code cannot be measured again; refresh them on a clean \
                 checkout to triage drift"
            ),
        )),
        [commit] if *commit == UNKNOWN || commit.is_empty() => Err(Error::invalid(
            origin,
            "the baselines record no commit: refresh them in a git checkout to triage drift",
        )),
        [commit] => Ok((*commit).to_owned()),
        [] => Err(Error::invalid(
            origin,
            "no benchmark of the results has a baseline: nothing to triage",
        )),
        several => Err(Error::invalid(
            origin,
            format!(
                "the baselines were taken at several commits ({}): drift triage measures one; \
                 refresh them together",
                several.join(", ")
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::git::for_tests as git;
    use crate::model::code::Executed;

    const BENCH: &str = "release/deps/callgrind";

    fn object(digest: char) -> Object {
        Object {
            functions: BTreeMap::from([
                ("main".to_owned(), "1".repeat(32)),
                ("shared".to_owned(), digest.to_string().repeat(32)),
            ]),
            whole: "2".repeat(32),
            ..Object::default()
        }
    }

    #[test]
    fn a_record_of_a_commit_no_file_changed_since_must_match_the_build() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "--quiet"]);
        std::fs::write(root.join("lib.rs"), "fn shared() {}\n").unwrap();
        git(root, &["add", "lib.rs"]);
        git(root, &["commit", "--quiet", "-m", "one"]);
        let paths = Resolved {
            root: root.to_owned(),
            config: root.join("gate.toml"),
            config_named: false,
            baselines: root.join("baselines"),
            results: root.join("target/irgate/results.json"),
        };
        let record = CodeRecord {
            commit: crate::git::resolve(root, "HEAD").unwrap(),
            identity: crate::identity::VERSION,
            objects: BTreeMap::from([(BENCH.to_owned(), object('3'))]),
            benchmarks: BTreeMap::from([(
                "g::shared/x".to_owned(),
                Executed {
                    functions: BTreeMap::from([(
                        BENCH.to_owned(),
                        BTreeSet::from(["main".to_owned(), "shared".to_owned()]),
                    )]),
                    ..Executed::default()
                },
            )]),
            unrecorded: BTreeMap::new(),
        };
        let ids = ["g::shared/x".to_owned()];
        let mapped = |objects: &BTreeMap<String, Object>| {
            map(
                &paths,
                (Ok(&record), None),
                Ok(objects),
                &Config::default(),
                &ids,
            )
        };
        // The build of the record's commit: untouched.
        let same = mapped(&BTreeMap::from([(BENCH.to_owned(), object('3'))]));
        assert_eq!(same.map.unmapped, None);
        assert_eq!(same.touch["g::shared/x"], Touch::Untouched);
        // Other code, though no file changed: the record is not of that commit's build.
        let other = mapped(&BTreeMap::from([(BENCH.to_owned(), object('4'))]));
        let why = other.map.unmapped.unwrap();
        assert!(
            why.contains("no file changed since the code record's commit"),
            "{why}"
        );
        assert!(other.touch.is_empty(), "every benchmark counts as touched");
        // With a file changed, the same build is a change mapped as ever.
        std::fs::write(root.join("lib.rs"), "fn shared() { slow() }\n").unwrap();
        let changed = mapped(&BTreeMap::from([(BENCH.to_owned(), object('4'))]));
        assert_eq!(changed.map.unmapped, None);
        assert!(changed.touch["g::shared/x"].is_touched());
    }
}
