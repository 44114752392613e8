//! The compared change, mapped onto the benchmarks through the code record of the side it starts
//! from ([`crate::change`] decides; this turns its answer into the report's terms).

use std::collections::BTreeMap;
use std::path::Path;

use crate::change;
use crate::config::Config;
use crate::identity::SourceLines;
use crate::judge::compare::Mapped;
use crate::measure::paths::Resolved;
use crate::model::code::{CodeRecord, Object};
use crate::model::{ChangeMap, ChangedFunction, Lines};

/// Maps the change from the commit of `base` (the code record of the side the change starts
/// from: what each benchmark executed there, or why there is none) to `head` (a commit, or the
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
    if crate::git::Commit::parse(&base.commit).dirty {
        return unmapped(
            &base.commit,
            format!(
                "the code record was taken on uncommitted changes (`{}`): that code is in no \
                 commit to diff from",
                base.commit
            ),
        );
    }
    if base.identity != crate::identity::VERSION {
        return unmapped(
            &base.commit,
            format!(
                "the code record was taken with the identity rules of version {}, this irgate's \
                 are version {}: take it again (`irgate run --record`, then `irgate refresh`)",
                base.identity,
                crate::identity::VERSION
            ),
        );
    }
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
    let everything = config.inert_everything();
    if !everything.is_empty() && !change.inert.is_empty() {
        eprintln!(
            "irgate: warning: [change] inert names every file ({}): {} changed files count as \
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
    let Some((file, mut hits)) = best else {
        return (String::new(), Vec::new());
    };
    hits.sort_unstable();
    hits.dedup();
    let mut ranges: Vec<Lines> = Vec::new();
    for line in hits {
        match ranges.last_mut() {
            Some(last) if last.last + 1 == line => last.last = line,
            _ => ranges.push(Lines {
                first: line,
                last: line,
            }),
        }
    }
    (file, ranges)
}
