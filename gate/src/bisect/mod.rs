//! Bisection: for every selected benchmark whose count differs between two revisions, each commit
//! of the first-parent path `good..bad` where it changed (docs/bisect.md).
//!
//! Counts repeat exactly, so the question has one answer per benchmark. Every candidate is built
//! in one scratch git worktree at one fixed path (`<target>/irgate/bisect/src`, or beside the
//! repository when a manifest's relative path leaves it: [`crate::measure::outside`]; built into
//! `<target>/irgate/bisect/target`), so neither the counts nor the code identity move with the
//! path, and the user's checkout is never touched. Both ends are measured here (the bad end twice,
//! to leave out benchmarks whose count does not repeat); in between, a benchmark is run at a
//! commit only when the code it executes (or a file it may read) differs from a commit where its
//! count is known: otherwise its count is that commit's, known without a run
//! ([`crate::select::rule::touched`] decides). So most steps cost a build and no run.
//!
//! Each benchmark is bisected over the commit indices, recursively on every interval whose ends
//! differ, so every change point is found; an interval whose ends are equal is taken as unchanged
//! (moves that cancel out inside it are not seen). Midpoints are the same for every benchmark, so
//! benchmarks that moved at the same commit share their builds.
//!
//! A carried count is an inference: code addresses can move a count a few instructions while the
//! code it executes stays the same (glibc's `memcmp` moved 21 Ir that way in a public crate's
//! history). So every count on either side of a move found is measured before the move is
//! reported; where the measured count differs from the carried one, that benchmark's carried
//! counts are dropped, it is measured at every step from then on, and its intervals between
//! measured counts are bisected again. A reported move's counts are measured,
//! never carried.

pub mod format;
mod outcome;
mod steps;
pub mod text;
mod verify;

pub use outcome::{
    Bisection, Linear, Move, Skipped, Undecided, Unexplained, Unreproducible, count_text,
};

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::git;
use crate::measure::ab;
use crate::measure::collect::Selection;
use crate::measure::workspace::Workspace;
use crate::model::How;
use crate::model::Touch;
use crate::model::code::{CodeRecord, Object};
use crate::paths::Resolved;
use crate::select::rule::Change;
use crate::text::short_commit;

/// What to bisect.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// gate.toml (the working tree's: its suites and `[change] inert` serve every commit).
    pub config: &'a Config,
    /// The user's repository.
    pub paths: &'a Resolved,
    /// Suites, features, jobs (its `skip` and `record` are set here).
    pub selection: Selection<'a>,
    /// Only the benchmarks matching this glob.
    pub filter: Option<&'a Filter>,
    /// A revision where the counts are the old ones.
    pub good: &'a str,
    /// A revision after it (a descendant) where they are the new ones.
    pub bad: &'a str,
    /// The most builds to make (the two ends included); what stays open is reported undecided.
    pub max_builds: Option<usize>,
}

/// A commit of the path: index 0 is the good end, the last the bad end.
#[derive(Debug, Clone)]
struct Point {
    hash: String,
    subject: String,
}

/// A benchmark's count at a point, and the measured point whose record says what it executes
/// there (the same code as at this point).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Known {
    count: Option<u64>,
    from: usize,
}

/// Why a point has no build.
type Failed = String;

/// The bisection's state.
struct State<'a> {
    request: Request<'a>,
    points: Vec<Point>,
    place_dir: PathBuf,
    src: PathBuf,
    builds: BTreeMap<usize, std::result::Result<BTreeMap<String, Object>, Failed>>,
    records: BTreeMap<usize, CodeRecord>,
    known: BTreeMap<String, BTreeMap<usize, Known>>,
    changes: BTreeMap<(usize, usize), Change>,
    /// Every benchmark id seen at the ends: what a partial run skips.
    all: BTreeSet<String>,
    /// Benchmarks whose carried count proved wrong: measured at every step.
    no_carry: BTreeSet<String>,
    refuses_selection: bool,
    out: Bisection,
}

/// Bisects: see the module's documentation.
pub fn bisect(request: Request) -> Result<Bisection> {
    let started = Instant::now();
    let root = &request.paths.root;
    let good = ab::resolve(root, request.good)?;
    let bad = ab::resolve(root, request.bad)?;
    if good == bad {
        return Err(Error::Tool(format!(
            "--good and --bad name the same commit ({}): there is no range to bisect",
            short_commit(&good)
        )));
    }
    if !git::is_ancestor(root, &good, &bad).map_err(Error::Tool)? {
        return Err(Error::Tool(format!(
            "--good {} ({}) is not an ancestor of --bad {} ({}): bisection needs the good \
             revision before the bad one on the bad one's history",
            crate::text::terminal(request.good),
            short_commit(&good),
            crate::text::terminal(request.bad),
            short_commit(&bad)
        )));
    }
    let points = path(root, &good, &bad)?;
    let n = points.len() - 1;
    let dir = Workspace::load(root)?
        .target_dir
        .join("irgate")
        .join("bisect");
    let outside = crate::measure::outside::find_all(root, false, &[&good, &bad])?;
    let src = crate::measure::outside::place(root, "bisect", &outside, dir.join("src"))?;
    if !outside.is_empty() {
        crate::note!(
            "bisect: {}",
            crate::measure::outside::note(&outside, &[&src])
        );
    }
    let mut state = State {
        request,
        points,
        place_dir: dir.clone(),
        src: src.clone(),
        builds: BTreeMap::new(),
        records: BTreeMap::new(),
        known: BTreeMap::new(),
        changes: BTreeMap::new(),
        all: BTreeSet::new(),
        no_carry: BTreeSet::new(),
        refuses_selection: false,
        out: Bisection {
            good,
            bad,
            commits: n,
            ..Bisection::default()
        },
    };
    crate::note!(
        "bisect: {} on the first-parent path {}..{}, built in {}",
        crate::text::plural(n, "commit"),
        short_commit(&state.out.good),
        short_commit(&state.out.bad),
        src.display()
    );
    let worktree = Worktree {
        root: root.clone(),
        dir: src,
    };
    let result = state.run();
    drop(worktree);
    let mut out = result?;
    out.seconds = (started.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    Ok(out)
}

/// The scratch worktree, removed when the bisection ends (its target directory is kept, so a
/// next bisection rebuilds only what changed).
struct Worktree {
    root: PathBuf,
    dir: PathBuf,
}

impl Drop for Worktree {
    fn drop(&mut self) {
        if self.dir.exists() {
            let dir = self.dir.to_string_lossy();
            let _ = git::run(&self.root, &["worktree", "remove", "--force", &dir]);
        }
        let _ = git::run(&self.root, &["worktree", "prune"]);
    }
}

/// The good end, then each commit of the first-parent path `good..bad`, oldest first, with its
/// subject.
fn path(root: &Path, good: &str, bad: &str) -> Result<Vec<Point>> {
    let range = format!("{good}..{bad}");
    let listed = git::run(
        root,
        &[
            "log",
            "--first-parent",
            "--reverse",
            "--format=%H%x09%s",
            "--end-of-options",
            &range,
        ],
    )?
    .ok_or_else(|| {
        Error::Tool(format!(
            "cannot list the commits of {range} (git log failed)"
        ))
    })?;
    let subject = git::stdout(root, &["log", "-1", "--format=%s", good, "--"]).unwrap_or_default();
    let mut points = vec![Point {
        hash: good.to_owned(),
        subject,
    }];
    for line in listed.lines().filter(|l| !l.is_empty()) {
        let (hash, subject) = line.split_once('\t').unwrap_or((line, ""));
        points.push(Point {
            hash: hash.to_owned(),
            subject: subject.to_owned(),
        });
    }
    if points.last().map(|p| p.hash.as_str()) != Some(bad) {
        return Err(Error::Tool(format!(
            "the first-parent path {range} does not end at the bad commit"
        )));
    }
    Ok(points)
}

/// `[i, j]` of one benchmark, whose ends have different counts.
type Interval = (String, usize, usize);

impl State<'_> {
    fn run(&mut self) -> Result<Bisection> {
        let n = self.points.len() - 1;
        // The ends: built and measured here (the bad end twice); their failures are the user's
        // input's. Each is measured right after its build, so the worktree moves once.
        let depth = (usize::BITS - n.leading_zeros()) as usize;
        let mut ends = Vec::new();
        for (end, point, times) in [("good", 0, 1), ("bad", n, 2)] {
            crate::note!(
                "bisect: build {} of about {}: {} {} (the {end} end)",
                self.out.builds + 1,
                2 + depth,
                short_commit(&self.points[point].hash),
                crate::text::terminal(&self.points[point].subject)
            );
            let hash = self.points[point].hash.clone();
            let fail = |why: String| {
                Error::Tool(format!(
                    "the {end} end {} does not build or its suites cannot run: {why}",
                    short_commit(&hash)
                ))
            };
            if let Err(why) = self.build(point)? {
                return Err(fail(why));
            }
            for time in 0..times {
                let counts = self
                    .measure(point, None, time == 0)
                    .map_err(|e| fail(e.to_string()))?;
                ends.push(counts);
            }
        }
        let [good, bad, again]: [BTreeMap<String, u64>; 3] = ends.try_into().expect("three runs");
        self.all = good.keys().chain(bad.keys()).cloned().collect();
        let mut open: Vec<Interval> = Vec::new();
        for id in self.all.clone() {
            let (g, b, b2) = (good.get(&id), bad.get(&id), again.get(&id));
            if b != b2 {
                self.out.unreproducible.push(Unreproducible {
                    benchmark: id,
                    counts: [b.copied(), b2.copied()],
                });
                continue;
            }
            self.out.benchmarks += 1;
            let known = self.known.entry(id.clone()).or_default();
            known.insert(
                0,
                Known {
                    count: g.copied(),
                    from: 0,
                },
            );
            known.insert(
                n,
                Known {
                    count: b.copied(),
                    from: n,
                },
            );
            if g == b {
                self.out.unchanged += 1;
                continue;
            }
            if let (Some(&g), Some(&b)) = (g, b)
                && self.same_code(&id, 0, n)?
            {
                self.out.unexplained.push(Unexplained {
                    benchmark: id,
                    good: g,
                    bad: b,
                });
                continue;
            }
            open.push((id, 0, n));
        }
        for u in &self.out.unreproducible {
            crate::note!(
                "bisect: {} left out: its count at the bad end did not repeat ({} then {})",
                crate::text::terminal(&u.benchmark),
                count_text(u.counts[0]),
                count_text(u.counts[1])
            );
        }
        for u in &self.out.unexplained {
            crate::note!(
                "bisect: {} left out: its count moved ({} -> {}), but none of the code it \
                 executes and no file it may read changed (addresses, the environment or \
                 nondeterminism)",
                crate::text::terminal(&u.benchmark),
                crate::text::thousands(u.good),
                crate::text::thousands(u.bad)
            );
        }
        loop {
            self.bisect_all(open)?;
            open = self.verify_carried()?;
            if open.is_empty() {
                break;
            }
        }
        self.out.linear = Linear {
            builds: n + 1,
            runs: n + 1,
            benchmark_runs: (n + 1) * self.all.len(),
        };
        Ok(std::mem::take(&mut self.out))
    }

    /// Splits every open interval until each is one commit (a move) or stays undecided.
    fn bisect_all(&mut self, mut open: Vec<Interval>) -> Result<()> {
        loop {
            // Intervals of one commit are moves; the others want a midpoint.
            let mut wanting: BTreeMap<usize, Vec<Interval>> = BTreeMap::new();
            for (id, i, j) in std::mem::take(&mut open) {
                if j == i + 1 {
                    let found = self.found(&id, i, j)?;
                    self.out.moves.push(found);
                    continue;
                }
                match self.midpoint(i, j) {
                    Some(m) => wanting.entry(m).or_default().push((id, i, j)),
                    None => self.undecided(
                        &id,
                        i,
                        j,
                        "every commit between them was skipped (it did not build or run)",
                    ),
                }
            }
            if wanting.is_empty() {
                break;
            }
            if self
                .request
                .max_builds
                .is_some_and(|max| self.out.builds >= max)
            {
                let why = format!(
                    "--max-builds {} reached",
                    self.request.max_builds.unwrap_or_default()
                );
                for (id, i, j) in wanting.into_values().flatten() {
                    self.undecided(&id, i, j, &why);
                }
                break;
            }
            // The midpoint most intervals want, the earliest of those.
            let (&m, _) = wanting
                .iter()
                .max_by(|a, b| a.1.len().cmp(&b.1.len()).then(b.0.cmp(a.0)))
                .expect("not empty");
            let intervals = wanting.remove(&m).unwrap_or_default();
            let remaining = estimate(wanting.values().flatten().chain(&intervals));
            let open_ids: BTreeSet<&String> = wanting
                .values()
                .flatten()
                .chain(&intervals)
                .map(|(id, _, _)| id)
                .collect();
            crate::note!(
                "bisect: build {} of about {}: {} {}; {} open",
                self.out.builds + 1,
                self.out.builds + remaining,
                short_commit(&self.points[m].hash),
                crate::text::terminal(&self.points[m].subject),
                crate::text::plural(open_ids.len(), "benchmark")
            );
            let built = self.build(m)?;
            if let Err(why) = built {
                self.skip(m, why);
                open.extend(intervals);
                open.extend(wanting.into_values().flatten());
                continue;
            }
            // Each benchmark's count at m: carried from an end whose code it shares, else run.
            let mut derived: Vec<(String, Known)> = Vec::new();
            let mut needed: BTreeMap<String, String> = BTreeMap::new();
            for (id, i, j) in &intervals {
                if self.known[id].contains_key(&m) {
                    continue;
                }
                if self.no_carry.contains(id) {
                    needed.insert(
                        id.clone(),
                        "its count moved where the code it executes did not (addresses): \
                         measured at every step"
                            .to_owned(),
                    );
                    continue;
                }
                let mut carried = None;
                let mut why = String::new();
                for end in [*i, *j] {
                    let known = self.known[id][&end];
                    if known.count.is_none() {
                        continue;
                    }
                    match self.differs(id, known.from, m)? {
                        None => {
                            carried = Some(known);
                            break;
                        }
                        Some(reason) if why.is_empty() => why = reason,
                        Some(_) => {}
                    }
                }
                match carried {
                    Some(known) => derived.push((id.clone(), known)),
                    None => {
                        needed.insert(id.clone(), why);
                    }
                }
            }
            for (id, known) in derived {
                self.known.entry(id).or_default().insert(m, known);
            }
            if !needed.is_empty() {
                for (id, why) in &needed {
                    crate::note!(
                        "bisect: runs {} at {}: {}",
                        crate::text::terminal(id),
                        short_commit(&self.points[m].hash),
                        crate::text::terminal(why)
                    );
                }
                let needed: BTreeSet<String> = needed.into_keys().collect();
                match self.measure(m, Some(&needed), true) {
                    Ok(counts) => {
                        for id in &needed {
                            let count = counts.get(id).copied();
                            self.known
                                .entry(id.clone())
                                .or_default()
                                .insert(m, Known { count, from: m });
                        }
                    }
                    Err(error) => {
                        self.skip(m, error.to_string());
                        // Counts carried to m stand on its build; but m is no interval end now.
                        open.extend(intervals);
                        open.extend(wanting.into_values().flatten());
                        continue;
                    }
                }
            }
            for (id, i, j) in intervals {
                let at = |p: usize| self.known[&id][&p].count;
                if at(i) != at(m) {
                    open.push((id.clone(), i, m));
                }
                if at(m) != at(j) {
                    open.push((id, m, j));
                }
            }
            open.extend(wanting.into_values().flatten());
        }
        self.out.moves.sort_by(|a, b| {
            let index = |c: &str| self.points.iter().position(|p| p.hash == c);
            (&a.benchmark, index(&a.commit)).cmp(&(&b.benchmark, index(&b.commit)))
        });
        Ok(())
    }

    /// The point to try between `i` and `j`: the middle, else the nearest not skipped.
    fn midpoint(&self, i: usize, j: usize) -> Option<usize> {
        let m = i + (j - i) / 2;
        (0..j - i)
            .flat_map(|d| [m.checked_add(d), m.checked_sub(d)])
            .flatten()
            .filter(|&p| p > i && p < j)
            .find(|p| !matches!(self.builds.get(p), Some(Err(_))))
    }

    /// The move of `id` at point `j` (its first parent `i`), with the changed functions it
    /// executes there.
    fn found(&mut self, id: &str, i: usize, j: usize) -> Result<Move> {
        let (before, after) = (self.known[id][&i], self.known[id][&j]);
        let mut functions = Vec::new();
        let mut files = Vec::new();
        // Through the record of the side where the benchmark exists, against the other's build.
        let compared = if before.count.is_some() {
            Some((before.from, j))
        } else if after.count.is_some() {
            Some((after.from, i))
        } else {
            None
        };
        if let Some((from, to)) = compared {
            let touches = self.touches(id, from, to)?;
            match touches.touch.get(id) {
                Some(Touch::Runs { functions: at }) => {
                    functions = at
                        .iter()
                        .filter_map(|&k| touches.functions.get(k))
                        .map(|f| match f.how {
                            How::Whole => format!("{} (whole)", f.object),
                            _ => f.name.clone(),
                        })
                        .collect();
                }
                Some(Touch::Reads { .. }) => files = self.change(from, to)?.files.clone(),
                _ => {}
            }
        }
        Ok(Move {
            benchmark: id.to_owned(),
            commit: self.points[j].hash.clone(),
            subject: self.points[j].subject.clone(),
            before: before.count,
            after: after.count,
            functions,
            files,
        })
    }

    fn undecided(&mut self, id: &str, i: usize, j: usize, why: &str) {
        self.out.undecided.push(Undecided {
            benchmark: id.to_owned(),
            after: self.points[i].hash.clone(),
            through: self.points[j].hash.clone(),
            commits: j - i,
            before: self.known[id][&i].count,
            count: self.known[id][&j].count,
            why: why.to_owned(),
        });
    }

    fn skip(&mut self, m: usize, why: String) {
        let first = why.lines().next().unwrap_or_default().to_owned();
        crate::note!(
            "bisect: skipping {} (as `git bisect skip` does): {}",
            short_commit(&self.points[m].hash),
            crate::text::terminal(&first)
        );
        self.builds.insert(m, Err(first.clone()));
        self.out.skipped.push(Skipped {
            commit: self.points[m].hash.clone(),
            why: first,
        });
    }
}

/// About how many builds the open intervals still need: the depth of each distinct interval's
/// bisection.
fn estimate<'a>(intervals: impl Iterator<Item = &'a Interval>) -> usize {
    let distinct: BTreeSet<(usize, usize)> = intervals.map(|(_, i, j)| (*i, *j)).collect();
    distinct
        .iter()
        .map(|(i, j)| (usize::BITS - (j - i - 1).leading_zeros()) as usize)
        .sum::<usize>()
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_is_the_depth_of_each_distinct_interval() {
        let id = String::from("a");
        let open = [(id.clone(), 0, 16), (id.clone(), 0, 16), (id, 4, 6)];
        assert_eq!(estimate(open.iter()), 4 + 1);
        assert_eq!(estimate([].iter()), 1);
    }
}
