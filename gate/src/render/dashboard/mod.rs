//! The static dashboard: a self-contained HTML site (inline CSS and SVG, no script, nothing fetched
//! at view time) drawn from the history, page by page.
//!
//! - `index.html`: the [`OVERVIEW_MOVERS`] benchmarks whose Ir moved most over the last `window` runs,
//!   with a trend line, their latest count and that change; then one line per group (its page,
//!   how many benchmarks, how many moved, the largest move), so a benchmark among ten thousand is
//!   two clicks away and the page stays small;
//! - `group-<group>.html` (the group is the id's part before `::`): an index of its benchmarks
//!   (a trend line of Ir, latest Ir, change), then, for those that moved most (at most
//!   [`CHARTED_PER_GROUP`] a group and [`CHARTED`] a site), a section with a chart of Ir and one of
//!   each other metric, points marked where the baselines were refreshed or the environment
//!   changed, and notes: each commit a bisection of the history workflow found the count moved
//!   at, labelled with its subject, and each run where the check judged it `unexplained` (a
//!   possible selection bug). Every benchmark has its anchor there (`#b-<id>`, see [`anchor`]): its section, else
//!   its row of the index;
//! - `runs.html`: every run (`#run-<date>-<commit>`), its commit (linked to the repository when
//!   its URL is given), date, whether it refreshed the baselines, what changed in its
//!   environment, the commits its bisection found and its possible selection bugs. Every chart
//!   point links to its run there.
//!
//! The pages grow with the number of benchmarks by a row each, and no more: the charts, which
//! grow with the runs and the metrics, are drawn for a bounded number of benchmarks.

mod pages;

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use pages::{group_page, overview, runs_page};

use super::chart::{Marker, Note, NoteKind};
use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::formats::history::Run;
use crate::model::fingerprint;
use crate::text::thousands;

/// The overview page's file name.
pub const INDEX: &str = "index.html";

/// The runs page's file name.
pub const RUNS: &str = "runs.html";

/// How many of the benchmarks that moved most the overview lists.
pub const OVERVIEW_MOVERS: usize = 20;

/// How many benchmarks the site draws charts of every metric for, at most: those whose Ir moved
/// most over the window (then by name, so a small suite has them all).
pub const CHARTED: usize = 100;

/// How many of the charted benchmarks one group page holds, at most.
pub const CHARTED_PER_GROUP: usize = 10;

/// How many of a run's found commits and possible selection bugs the runs page lists, each.
pub const LISTED_PER_RUN: usize = 20;

/// How the site is drawn.
#[derive(Debug, Clone)]
pub struct Site {
    /// The change column of the overview compares the latest run with the one this many runs
    /// before it.
    pub window: usize,
    /// The repository's web address (`https://github.com/OWNER/NAME`), to link commits to.
    pub repo_url: Option<String>,
}

/// The page of `id`'s group: `group-<group>.html`.
pub fn page_of(id: &str) -> String {
    group_page_name(crate::id::group_of(id))
}

/// The page of `group` (a checked group name, so a plain file name).
fn group_page_name(group: &str) -> String {
    format!("group-{group}.html")
}

/// The HTML id of `id`'s section on its group page: `b-` and the id with `::` as `--` and `/`
/// as `-` (ids hold no `-`, so this is one to one).
pub fn anchor(id: &str) -> String {
    format!("b-{}", id.replace("::", "--").replace('/', "-"))
}

/// The runs of the history as the dashboard keeps them, pushed oldest first: each run's commit,
/// date and environment, and its counts packed (each benchmark id and metric name stored once, a
/// benchmark's counts as a short list of metric indices and values) rather than as the maps of
/// its results, so that a long history of a large suite fits in memory.
#[derive(Debug, Default)]
pub struct Runs {
    /// Every benchmark id, once.
    ids: Vec<String>,
    /// The index of each id in `ids`.
    index: HashMap<String, u32>,
    /// Every metric name, once.
    metrics: Vec<String>,
    runs: Vec<Kept>,
}

/// A benchmark's counts, packed: pairs of a metric's index (in [`Runs`]'s metrics) and its count.
type Packed = Box<[(u16, u64)]>;

/// One run, its counts packed.
#[derive(Debug)]
struct Kept {
    /// The run, its benchmarks, durations and carried ones taken out.
    run: Run,
    /// How many benchmarks it ran.
    benchmarks: usize,
    /// Counts by index of benchmark id (none where it did not run).
    counts: Vec<Option<Packed>>,
}

impl Kept {
    /// The counts of the benchmark of index `id`, if it ran.
    fn counts(&self, id: u32) -> Option<&[(u16, u64)]> {
        self.counts.get(id as usize)?.as_deref()
    }
}

impl Runs {
    /// Keeps `run`, newer than those pushed before.
    pub fn push(&mut self, mut run: Run) {
        let benchmarks = std::mem::take(&mut run.results.benchmarks);
        run.results.durations_ms.clear();
        run.results.carried.clear();
        let ran = benchmarks.len();
        let mut counts = Vec::new();
        for (id, metrics) in benchmarks {
            let index = match self.index.entry(id) {
                Entry::Occupied(entry) => *entry.get(),
                Entry::Vacant(entry) => {
                    self.ids.push(entry.key().clone());
                    *entry.insert(self.ids.len() as u32 - 1)
                }
            } as usize;
            if counts.len() <= index {
                counts.resize(index + 1, None);
            }
            let packed = metrics
                .into_iter()
                .map(|(metric, count)| (self.metric_index(metric), count))
                .collect();
            counts[index] = Some(packed);
        }
        self.runs.push(Kept {
            run,
            benchmarks: ran,
            counts,
        });
    }

    /// How many runs there are.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// Whether there is no run.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The index of `metric` in `metrics`, added if new.
    fn metric_index(&mut self, metric: String) -> u16 {
        match self.metrics.iter().position(|m| *m == metric) {
            Some(index) => index as u16,
            None => {
                self.metrics.push(metric);
                (self.metrics.len() - 1) as u16
            }
        }
    }

    /// `id`'s counts of `metric`, one slot per run (`None` where it did not run).
    fn values(&self, id: &str, metric: &str) -> Vec<Option<u64>> {
        let id = self.index.get(id);
        let metric = self.metrics.iter().position(|m| m == metric);
        self.runs
            .iter()
            .map(|kept| {
                let counts = kept.counts(*id?)?;
                let metric = metric? as u16;
                counts.iter().find(|(m, _)| *m == metric).map(|(_, c)| *c)
            })
            .collect()
    }

    /// The metrics any run recorded for `id`, Ir first, then by name.
    fn metrics_of(&self, id: &str) -> Vec<&str> {
        let Some(id) = self.index.get(id) else {
            return Vec::new();
        };
        let metrics: BTreeSet<&str> = self
            .runs
            .iter()
            .filter_map(|kept| kept.counts(*id))
            .flat_map(|counts| counts.iter())
            .map(|(m, _)| self.metrics[usize::from(*m)].as_str())
            .collect();
        let mut ordered: Vec<&str> = metrics.into_iter().collect();
        ordered.sort_by_key(|&m| (m != IR, m));
        ordered
    }
}

impl FromIterator<Run> for Runs {
    fn from_iter<I: IntoIterator<Item = Run>>(runs: I) -> Runs {
        let mut kept = Runs::default();
        for run in runs {
            kept.push(run);
        }
        kept
    }
}

/// Draws the site's pages one at a time, handing each to `emit` with its file name, so no page
/// waits in memory for the others; returns how many pages there were.
pub fn render(
    runs: &Runs,
    site: &Site,
    mut emit: impl FnMut(&str, String) -> Result<()>,
) -> Result<usize> {
    let history = History::of(runs, site.window);
    emit(INDEX, overview(&history, site))?;
    emit(RUNS, runs_page(&history, site))?;
    for (group, ids) in &history.groups {
        emit(
            &group_page_name(group),
            group_page(group, ids, &history, site),
        )?;
    }
    Ok(2 + history.groups.len())
}

/// Draws the site into `out` (created if missing), each page written as soon as it is drawn and
/// readable by all (a web server serves them); returns how many pages there were.
pub fn write(runs: &Runs, site: &Site, out: &Path) -> Result<usize> {
    std::fs::create_dir_all(out).map_err(|source| Error::write(out, source))?;
    render(runs, site, |name, html| {
        let path = out.join(name);
        std::fs::write(&path, html).map_err(|source| Error::write(&path, source))
    })
}

/// The history as the pages read it: the runs, their benchmarks by group, each benchmark's move
/// over the window, which benchmarks get charts, and what each run changed. Counts are looked up
/// in the runs when a page needs them, never copied.
struct History<'a> {
    runs: &'a Runs,
    /// Benchmark ids by group, both in name order.
    groups: BTreeMap<&'a str, Vec<&'a str>>,
    /// How many benchmarks there are.
    benchmarks: usize,
    /// Each benchmark's move of Ir over the window, where it has two counts to compare.
    moves: HashMap<&'a str, Move>,
    /// The benchmarks whose Ir moved, the largest move first.
    movers: Vec<&'a str>,
    /// The benchmarks drawn with a chart of every metric (see [`CHARTED`]).
    charted: HashSet<&'a str>,
    /// The runs that refreshed the baselines or changed the environment, by index.
    markers: Vec<(usize, Marker)>,
    /// The environment fields each run changed from the run before.
    env_changes: Vec<Vec<String>>,
    /// The notes on each benchmark's Ir chart: the commits its bisections found, the runs
    /// where it was unexplained.
    notes: HashMap<&'a str, Vec<Note>>,
}

impl<'a> History<'a> {
    fn of(runs: &'a Runs, window: usize) -> History<'a> {
        let mut ids: Vec<&str> = runs.ids.iter().map(String::as_str).collect();
        ids.sort_unstable();
        let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for &id in &ids {
            groups.entry(crate::id::group_of(id)).or_default().push(id);
        }
        let env_changes: Vec<Vec<String>> = runs
            .runs
            .iter()
            .enumerate()
            .map(|(i, kept)| match i.checked_sub(1).map(|p| &runs.runs[p]) {
                Some(previous) => fingerprint::mismatches(
                    &previous.run.results.fingerprint,
                    &kept.run.results.fingerprint,
                )
                .into_iter()
                .map(|m| m.field)
                .collect(),
                None => Vec::new(),
            })
            .collect();
        let markers = runs
            .runs
            .iter()
            .zip(&env_changes)
            .enumerate()
            .flat_map(|(i, (kept, env))| {
                let refresh = kept.run.refreshed.then_some((i, Marker::Refresh));
                let env = (!env.is_empty()).then_some((i, Marker::EnvChange));
                refresh.into_iter().chain(env)
            })
            .collect();
        let moves: HashMap<&str, Move> = ids
            .iter()
            .filter_map(|&id| {
                let change = window_move(&runs.values(id, IR), window, &env_changes)?;
                Some((id, change))
            })
            .collect();
        // Every benchmark, those that moved most first (then by name): the movers lead it, and
        // the charts go to its first ones.
        let mut ranked: Vec<(&str, f64)> = ids
            .iter()
            .map(|&id| (id, moves.get(id).map_or(0.0, |m| m.pct.abs())))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        let movers = ranked
            .iter()
            .take_while(|(_, pct)| *pct > 0.0)
            .map(|(id, _)| *id)
            .collect();
        let mut per_group: HashMap<&str, usize> = HashMap::new();
        let mut charted = HashSet::new();
        for (id, _) in ranked {
            if charted.len() == CHARTED {
                break;
            }
            let in_group = per_group.entry(crate::id::group_of(id)).or_default();
            if *in_group < CHARTED_PER_GROUP {
                *in_group += 1;
                charted.insert(id);
            }
        }
        History {
            runs,
            groups,
            benchmarks: ids.len(),
            moves,
            movers,
            charted,
            markers,
            env_changes,
            notes: notes(runs),
        }
    }

    /// The runs, oldest first.
    fn runs(&self) -> impl DoubleEndedIterator<Item = &'a Run> + ExactSizeIterator {
        self.runs.runs.iter().map(|kept| &kept.run)
    }
}

/// The notes of every benchmark's Ir chart (see [`History::notes`]), by benchmark.
fn notes(runs: &Runs) -> HashMap<&str, Vec<Note>> {
    let mut notes: HashMap<&str, Vec<Note>> = HashMap::new();
    for (i, kept) in runs.runs.iter().enumerate() {
        for m in kept.run.bisection.iter().flat_map(|b| &b.moves) {
            let Some((id, _)) = runs.index.get_key_value(m.benchmark.as_str()) else {
                continue;
            };
            let count = |c: Option<u64>| c.map_or("none".to_owned(), thousands);
            notes.entry(id).or_default().push(Note {
                run: i,
                kind: NoteKind::Found,
                label: m.subject.clone(),
                title: format!(
                    "{} {}: Ir {} -> {} (found by bisection)",
                    crate::text::short_commit(&m.commit),
                    m.subject,
                    count(m.before),
                    count(m.after)
                ),
            });
        }
        for u in &kept.run.unexplained {
            let Some((id, _)) = runs.index.get_key_value(u.benchmark.as_str()) else {
                continue;
            };
            notes.entry(id).or_default().push(Note {
                run: i,
                kind: NoteKind::Unexplained,
                label: "selection bug?".to_owned(),
                title: format!(
                    "{} moved beyond the address budget at {} although the code identity said \
                     untouched: a possible selection bug",
                    u.benchmark,
                    kept.run.short_commit()
                ),
            });
        }
    }
    notes
}

/// A benchmark's move over the window: its relative change, and whether the environment changed
/// in between (then the counts do not compare).
#[derive(Debug, Clone, Copy)]
struct Move {
    pct: f64,
    env_changed: bool,
}

/// The move of `values` between the latest run and the one `window` runs before it (or the first
/// after it that has a value); `None` without two counts to compare.
fn window_move(values: &[Option<u64>], window: usize, env_changes: &[Vec<String>]) -> Option<Move> {
    let last = values.iter().rposition(Option::is_some)?;
    let first = (last.saturating_sub(window)..last).find(|&i| values[i].is_some())?;
    match (values[first], values[last]) {
        (Some(old), Some(new)) if old > 0 => Some(Move {
            pct: (new as f64 - old as f64) * 100.0 / old as f64,
            env_changed: env_changes[first + 1..=last].iter().any(|c| !c.is_empty()),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The packed counts read back as the runs held them, with a slot for each run a benchmark
    /// or a metric is missing from.
    #[test]
    fn packed_runs_keep_every_count() {
        let run = |commit: char, benchmarks: &[(&str, &[(&str, u64)])]| {
            let results = crate::model::Results {
                fingerprint: crate::model::Fingerprint {
                    commit: commit.to_string().repeat(40),
                    date: "2026-11-20T10:00:00Z".into(),
                    ..Default::default()
                },
                benchmarks: benchmarks
                    .iter()
                    .map(|(id, counts)| {
                        let counts = counts.iter().map(|(m, c)| (m.to_string(), *c)).collect();
                        (id.to_string(), counts)
                    })
                    .collect(),
                ..Default::default()
            };
            Run::from_results(results, None, false, "r").unwrap()
        };
        let runs: Runs = [
            run('a', &[("f::a/x", &[("Ir", 10), ("Dr", 3)])]),
            run('b', &[("f::a/x", &[("Ir", 11)]), ("f::b/y", &[("Ir", 7)])]),
            run('c', &[("f::b/y", &[("Dr", 1), ("Ir", 8)])]),
        ]
        .into_iter()
        .collect();
        assert_eq!(runs.len(), 3);
        assert_eq!(runs.values("f::a/x", IR), [Some(10), Some(11), None]);
        assert_eq!(runs.values("f::a/x", "Dr"), [Some(3), None, None]);
        assert_eq!(runs.values("f::b/y", IR), [None, Some(7), Some(8)]);
        assert_eq!(runs.values("f::c/z", IR), [None, None, None]);
        assert_eq!(runs.values("f::b/y", "Dw"), [None, None, None]);
        assert_eq!(runs.metrics_of("f::b/y"), ["Ir", "Dr"]);
        let ran: Vec<usize> = runs.runs.iter().map(|kept| kept.benchmarks).collect();
        assert_eq!(ran, [1, 2, 1]);
    }

    #[test]
    fn anchors_are_one_to_one_and_pages_are_per_group() {
        assert_eq!(anchor("frame::encode/b512"), "b-frame--encode-b512");
        assert_ne!(anchor("a::b::c"), anchor("a::b/c"));
        assert_eq!(page_of("frame::encode/b512"), "group-frame.html");
    }
}
