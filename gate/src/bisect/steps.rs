//! A bisection's steps at one commit: the checkout and build in the scratch worktree, the run of
//! the benchmarks it needs, and the change between two commits' code that says which benchmarks
//! it touches.

use std::collections::{BTreeMap, BTreeSet};

use super::{Failed, State};
use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::measure::ab;
use crate::measure::collect::{self, Place, Selection};
use crate::model::Touch;
use crate::model::code::{CodeRecord, Object};
use crate::paths::Resolved;
use crate::select::identify;
use crate::select::rule::{self as change, Change};

impl State<'_> {
    /// The resolved paths and the place of the scratch worktree.
    pub(super) fn place(&self) -> (Resolved, Place<'_>) {
        let paths = Resolved {
            root: self.src.clone(),
            ..self.request.paths.clone()
        };
        let place = Place::in_dir(&self.place_dir, "");
        (paths, place)
    }

    /// Checks point `p` out in the scratch worktree and builds it: its code identity, or why it
    /// cannot be built (an error of irgate's own, such as git failing, is an `Err`).
    pub(super) fn build(&mut self, p: usize) -> Result<std::result::Result<(), Failed>> {
        if let Some(built) = self.builds.get(&p) {
            return Ok(built.as_ref().map(|_| ()).map_err(Clone::clone));
        }
        self.out.builds += 1;
        ab::checkout(&self.request.paths.root, &self.points[p].hash, &self.src)?;
        let lock = "Cargo.lock";
        let user_lock = self.request.paths.root.join(lock);
        if !self.src.join(lock).exists() && user_lock.exists() {
            // A repository that ignores its lock file: every commit builds with the working
            // tree's, as A/B does.
            std::fs::copy(&user_lock, self.src.join(lock))
                .map_err(|e| Error::write(&self.src.join(lock), e))?;
        }
        let (paths, place) = self.place();
        let built = identify::build_code(
            &paths,
            self.request.config,
            &self.request.selection,
            Some(&place),
        );
        let outcome = match built {
            Ok(built) => {
                self.refuses_selection |= !built.refusals.is_empty();
                Ok(built.objects)
            }
            Err(error) => Err(error.to_string()),
        };
        let result = outcome.as_ref().map(|_| ()).map_err(Clone::clone);
        self.builds.insert(p, outcome);
        Ok(result)
    }

    /// Runs the benchmarks `only` (every selected one when `None`) at the built point `p`, with
    /// the record pass when `record`; their counts. The record is kept for [`Self::same_code`].
    pub(super) fn measure(
        &mut self,
        p: usize,
        only: Option<&BTreeSet<String>>,
        record: bool,
    ) -> Result<BTreeMap<String, u64>> {
        self.build(p)?.map_err(Error::Tool)?;
        ab::checkout(&self.request.paths.root, &self.points[p].hash, &self.src)?;
        let skip: Option<BTreeSet<String>> = only
            .filter(|_| !self.refuses_selection)
            .map(|only| self.all.difference(only).cloned().collect());
        let selection = Selection {
            skip: skip.as_ref(),
            record,
            ..self.request.selection
        };
        let (paths, place) = self.place();
        let hash = self.points[p].hash.clone();
        let (results, code) = collect::run_with_code(
            &paths,
            self.request.config,
            &selection,
            self.request.filter,
            Some(&place),
        )?;
        self.out.runs += 1;
        self.out.benchmark_runs += results.benchmarks.len();
        if !self.out.measured.contains(&hash) {
            self.out.measured.push(hash.clone());
        }
        if record {
            // Written (and kept for inspection), and read back: the record as its file holds it,
            // as `irgate refresh` keeps it and `run --only-touched` compares with it.
            let file = self
                .place_dir
                .join("records")
                .join(format!("{hash}.code.json"));
            crate::formats::code::write(&file, &code)?;
            let code = crate::formats::code::read(&file)?.unwrap_or_default();
            merge(self.records.entry(p).or_default(), code);
        }
        Ok(results
            .benchmarks
            .iter()
            .filter(|(id, _)| only.is_none_or(|o| o.contains(*id)))
            .filter_map(|(id, counts)| Some((id.clone(), *counts.get(IR)?)))
            .collect())
    }

    /// The files changed between points `a` and `b`, in either order.
    pub(super) fn change(&mut self, a: usize, b: usize) -> Result<&Change> {
        let key = (a.min(b), a.max(b));
        if !self.changes.contains_key(&key) {
            let paths = self.request.paths;
            let config = self.request.config;
            let found = change::between(
                &paths.root,
                (&self.points[key.0].hash, Some(&self.points[key.1].hash)),
                &paths.own(),
                &|path| config.is_inert(path),
            )?;
            self.changes.insert(key, found);
        }
        Ok(&self.changes[&key])
    }

    /// Whether benchmark `id` is touched between the measured point `from` (its record) and the
    /// built point `to`.
    pub(super) fn touches(&mut self, id: &str, from: usize, to: usize) -> Result<change::Touches> {
        let change = self.change(from, to)?.clone();
        let empty = CodeRecord::default();
        let record = self.records.get(&from).unwrap_or(&empty);
        let objects = match self.builds.get(&to) {
            Some(Ok(objects)) => objects,
            _ => return Err(Error::Tool(format!("bisect: point {to} was not built"))),
        };
        Ok(change::touched(record, objects, &change, &[id.to_owned()]))
    }

    /// Whether benchmark `id` executes the same code and may read the same files at the built
    /// point `to` as at the measured point `from`: then its count there is the same.
    pub(super) fn same_code(&mut self, id: &str, from: usize, to: usize) -> Result<bool> {
        Ok(self.differs(id, from, to)?.is_none())
    }

    /// What differs for benchmark `id` between the measured point `from` and the built point
    /// `to`: the changed code it executes, or the changed file it may read, or why irgate cannot
    /// tell; `None` when nothing does.
    pub(super) fn differs(&mut self, id: &str, from: usize, to: usize) -> Result<Option<String>> {
        if from == to {
            return Ok(None);
        }
        let touches = self.touches(id, from, to)?;
        Ok(match touches.touch.get(id) {
            Some(Touch::Untouched) => None,
            Some(Touch::Runs { functions }) => {
                let names: Vec<String> = functions
                    .iter()
                    .filter_map(|&k| touches.functions.get(k))
                    .take(3)
                    .map(|f| format!("`{}` ({})", f.name, f.object))
                    .collect();
                Some(format!(
                    "executes changed code: {}{}",
                    names.join(", "),
                    if functions.len() > 3 { ", ..." } else { "" }
                ))
            }
            Some(Touch::Reads { reason } | Touch::Unrecorded { reason }) => Some(reason.clone()),
            None => Some("no verdict".to_owned()),
        })
    }
}

/// Adds a run's code record to the record of the same build.
fn merge(into: &mut CodeRecord, code: CodeRecord) {
    into.commit = code.commit;
    into.identity = code.identity;
    for (key, object) in code.objects {
        let entry = into.objects.entry(key).or_insert_with(|| Object {
            functions: BTreeMap::new(),
            whole: object.whole.clone(),
            imprecise: object.imprecise.clone(),
            parts: BTreeMap::new(),
            path: object.path.clone(),
            constructors: object.constructors.clone(),
        });
        entry.functions.extend(object.functions);
        entry.parts.extend(object.parts);
    }
    into.benchmarks.extend(code.benchmarks);
    into.unrecorded.extend(code.unrecorded);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn a_merged_record_holds_both_runs() {
        let mut into = CodeRecord::default();
        let mut a = CodeRecord::default();
        a.objects.insert(
            "o".to_owned(),
            Object {
                functions: [("f".to_owned(), "1".to_owned())].into(),
                whole: "w".to_owned(),
                ..Object::default()
            },
        );
        a.benchmarks.insert("x".to_owned(), Default::default());
        let mut b = a.clone();
        b.objects.get_mut("o").unwrap().functions = [("g".to_owned(), "2".to_owned())].into();
        b.benchmarks.clear();
        b.benchmarks.insert("y".to_owned(), Default::default());
        merge(&mut into, a);
        merge(&mut into, b);
        assert_eq!(into.objects["o"].functions.len(), 2);
        assert_eq!(into.benchmarks.len(), 2);
    }
}
