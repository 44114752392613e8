//! The compared change, mapped onto the benchmarks through the code record of the side it starts
//! from ([`crate::select::rule`] decides; this turns its answer into the report's terms).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::formats::baseline::Baselines;
use crate::formats::code;
use crate::git::Commit;
use crate::model::code::{CodeRecord, Object};
use crate::model::{ChangeMap, ChangedFunction, Lines, Mode, Results, Touch, UNKNOWN};
use crate::paths::Resolved;
use crate::select::rule as change;
use crate::select::trust;
use irgate_identity::{SourceLine, SourceLines};

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
        Ok(change) => change::Change {
            suites: change::suites_changed(root, &base.commit, &config.suites, &|| {
                crate::measure::workspace::Workspace::load(root)
                    .map(|workspace| crate::measure::suite::discovered(&workspace))
                    .unwrap_or_default()
            }),
            ..change
        },
        Err(error) => return unmapped(&base.commit, error.to_string()),
    };
    let touches = change::touched(base, objects, &change, ids);
    // Functions the record saw executed but no symbol held always count as changed
    // (`UNKNOWN_DIGEST`): they say nothing of whether the record describes its commit's build.
    let unexpected = touches
        .functions
        .iter()
        .filter(|f| {
            base.objects
                .get(&f.object)
                .and_then(|o| o.functions.get(&f.name))
                .is_none_or(|digest| digest != crate::model::code::UNKNOWN_DIGEST)
        })
        .count();
    if change.files.is_empty() && change.inert.is_empty() && unexpected > 0 {
        return unmapped(
            &base.commit,
            format!(
                "no file changed since the code record's commit {}, yet {} that its benchmarks \
                 executed {} in this build: the record does not describe that commit's build \
                 (edited after it was taken, or taken with another toolchain or build settings, or \
                 at a checkout path of another length: docs/gate.md#the-checkouts-path); \
                 {}",
                crate::text::terminal(crate::text::short_commit(&base.commit)),
                crate::text::plural(unexpected, "function"),
                if unexpected == 1 { "differs" } else { "differ" },
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
        .filter_map(|(path, keys)| Some((path, irgate_identity::source_lines(path, &keys).ok()?)))
        .collect();
    let mut located = touches.functions.iter().map(|f| {
        let lines = objects
            .get(&f.object)
            .and_then(|o| o.path.as_deref())
            .and_then(|path| sources.get(path)?.get(&f.name));
        match lines {
            Some(lines) => locate(lines, root, &change.lines, &f.name),
            None => Located::default(),
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
            .map(|(f, located)| ChangedFunction {
                file: located.file,
                lines: located.lines,
                inlined: located.inlined,
                ..f.clone()
            })
            .collect(),
        unmapped: None,
        config_changed: None,
    };
    Mapped {
        map,
        touch: touches.touch,
    }
}

/// How many changed functions are looked up in the line tables: the rest are named by object.
const LOCATED: usize = 64;

/// Where a changed function is in the source: its file, the changed lines within it, and the
/// function those lines are when it was inlined into the changed one ([`locate`]).
#[derive(Debug, Default, PartialEq, Eq)]
struct Located {
    file: String,
    lines: Vec<Lines>,
    inlined: String,
}

/// Where the changed function `name`, whose code has the source `lines` (each instruction's
/// frames, inlined code included), changed: the source file (relative
/// to `root`) holding the most of its lines that the diff's `changed` lines hold, and those lines;
/// else a file the diff changed holding most of its code, else the file holding most of its code,
/// with no lines. When most of those lines (of all the file's lines, without changed ones) are
/// code inlined into it, the inlined function is named. Empty when its line tables name nothing
/// in the workspace.
fn locate(
    lines: &[SourceLine],
    root: &Path,
    changed: &BTreeMap<String, Vec<Lines>>,
    name: &str,
) -> Located {
    // Each instruction at its innermost frame in the workspace (code inlined from elsewhere, the
    // standard library's, is charged to its call site there), with the function it is when that
    // is not the outermost frame (code inlined into the function); by file, with those the diff
    // changed.
    type Place<'a> = (u32, Option<&'a str>);
    let mut by_file: BTreeMap<String, (Vec<Place>, Vec<Place>)> = BTreeMap::new();
    for frames in lines {
        let inside = frames.iter().enumerate().find_map(|(depth, frame)| {
            let file = Path::new(&frame.file);
            let relative = match file.strip_prefix(root) {
                Ok(relative) => relative,
                Err(_) if file.is_relative() => file,
                Err(_) => return None,
            };
            let inlined = (depth + 1 < frames.len())
                .then_some(frame.function.as_deref())
                .flatten();
            Some((relative.to_string_lossy().into_owned(), frame.line, inlined))
        });
        let Some((relative, line, inlined)) = inside else {
            continue;
        };
        let hit = changed
            .get(&relative)
            .is_some_and(|ranges| ranges.iter().any(|r| r.first <= line && line <= r.last));
        let entry = by_file.entry(relative).or_default();
        entry.0.push((line, inlined));
        if hit {
            entry.1.push((line, inlined));
        }
    }
    let best = by_file
        .iter()
        .max_by_key(|(file, (code, hits))| (hits.len(), changed.contains_key(*file), code.len()));
    let Some((file, (code, hits))) = best else {
        return Located::default();
    };
    // Each line's function: an inlined one's name, else `name`'s own code.
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, inlined) in if hits.is_empty() { code } else { hits } {
        *count.entry(inlined.unwrap_or(name)).or_default() += 1;
    }
    let inlined = count
        .into_iter()
        .max_by_key(|(function, n)| (*n, std::cmp::Reverse(*function)))
        .map(|(function, _)| function)
        .filter(|function| *function != name)
        .unwrap_or_default()
        .to_owned();
    let mut hit_lines: Vec<u32> = hits.iter().map(|(line, _)| *line).collect();
    hit_lines.sort_unstable();
    hit_lines.dedup();
    let ranges = crate::text::ranges(hit_lines)
        .into_iter()
        .map(|r| Lines {
            first: *r.start(),
            last: *r.end(),
        })
        .collect();
    Located {
        file: file.clone(),
        lines: ranges,
        inlined,
    }
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
    use irgate_identity::Frame;

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
            identity: irgate_identity::VERSION,
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

    /// An instruction at `file:line` in the wrapper; with `inlined`, code of that function
    /// inlined into it (called from the wrapper's line 12).
    fn line(file: &str, line: u32, inlined: Option<&str>) -> SourceLine {
        let frame = |file: &str, line, function: &str| Frame {
            file: file.to_owned(),
            line,
            function: Some(function.to_owned()),
        };
        let wrapper = "bench::a::__gungraun_wrapper_mod::a";
        match inlined {
            None => vec![frame(file, line, wrapper)],
            Some(function) => vec![
                frame(file, line, function),
                frame("/ws/benches/a.rs", 12, wrapper),
            ],
        }
    }

    /// The wrapper of a benchmark in `benches/a.rs` into which `lib::b::edited` (src/b.rs) was
    /// inlined: the edit is named by its function and lines, not by the wrapper and its file.
    #[test]
    fn a_change_inlined_into_the_changed_function_is_named_with_its_lines() {
        let wrapper = "bench::a::__gungraun_wrapper_mod::a";
        let lines = [
            line("/ws/benches/a.rs", 10, None),
            line("/ws/benches/a.rs", 11, None),
            line("/ws/benches/a.rs", 12, None),
            line("/ws/src/b.rs", 4, Some("lib::b::edited")),
            line("/ws/src/b.rs", 5, Some("lib::b::edited")),
            line("/ws/src/b.rs", 9, Some("lib::b::other")),
        ];
        let changed = BTreeMap::from([("src/b.rs".to_owned(), vec![Lines { first: 3, last: 5 }])]);
        let located = locate(&lines, Path::new("/ws"), &changed, wrapper);
        assert_eq!(
            located,
            Located {
                file: "src/b.rs".to_owned(),
                lines: vec![Lines { first: 4, last: 5 }],
                inlined: "lib::b::edited".to_owned(),
            }
        );
        let function = ChangedFunction {
            object: "release/deps/a".to_owned(),
            name: wrapper.to_owned(),
            how: crate::model::How::Changed,
            file: located.file,
            lines: located.lines,
            inlined: located.inlined,
        };
        assert_eq!(
            crate::select::text::functions_text(&[&function]),
            "`lib::b::edited` (src/b.rs:4-5), inlined into \
             `bench::a::__gungraun_wrapper_mod::a`"
        );
        // No line of the diff in the line tables (a changed constant, say): the changed file the
        // function holds code of is named before its own, with the function inlined from it.
        let elsewhere =
            BTreeMap::from([("src/b.rs".to_owned(), vec![Lines { first: 1, last: 1 }])]);
        let located = locate(&lines, Path::new("/ws"), &elsewhere, wrapper);
        assert_eq!(
            (
                located.file.as_str(),
                located.lines.len(),
                located.inlined.as_str()
            ),
            ("src/b.rs", 0, "lib::b::edited")
        );
        // A change to the function's own code names no other function.
        let own = BTreeMap::from([(
            "benches/a.rs".to_owned(),
            vec![Lines {
                first: 11,
                last: 11,
            }],
        )]);
        let located = locate(&lines, Path::new("/ws"), &own, wrapper);
        assert_eq!(
            (located.file.as_str(), located.inlined.as_str()),
            ("benches/a.rs", "")
        );
        assert_eq!(
            located.lines,
            vec![Lines {
                first: 11,
                last: 11
            }]
        );
    }
}
