//! The static dashboard: a self-contained HTML site (inline CSS and SVG, no script, nothing fetched
//! at view time) drawn from the history, page by page.
//!
//! - `index.html`: the [`MOVERS`] benchmarks whose Ir moved most over the last `window` runs,
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

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use super::chart::{self, Marker, Note, NoteKind, Point};
use crate::config::metrics::IR;
use crate::error::{Error, Result};
use crate::formats::history::Run;
use crate::model::fingerprint;
use crate::text::html::escape;
use crate::text::{plural, signed_pct, thousands};

/// The overview page's file name.
pub const INDEX: &str = "index.html";

/// The runs page's file name.
pub const RUNS: &str = "runs.html";

/// How many of the benchmarks that moved most the overview lists.
pub const MOVERS: usize = 20;

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

const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;\
max-width:1200px;padding:1rem;color:#1a1a1a;background:#fff;line-height:1.4}\
h1{font-size:1.5rem;margin:.2rem 0}h2{font-size:1.2rem;margin:1.5rem 0 .5rem}\
h3{font-size:1rem;margin:.8rem 0 .2rem}nav a{margin-right:1rem}\
.wrap{overflow-x:auto}table{border-collapse:collapse;width:100%}\
th,td{padding:.3rem .5rem;border-bottom:1px solid #ddd;text-align:left;vertical-align:middle}\
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
code{font-size:.9em}.up{color:#b3261e}.down{color:#1b7f3b}.muted{color:#666}\
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,520px),1fr));gap:1rem}\
figure{margin:0}svg.chart{width:100%;height:auto;display:block}svg.spark{width:120px;height:28px}\
svg text{font-size:11px;fill:#333}svg .axis-title{font-size:12px;font-weight:600}\
.grid{stroke:#e5e5e5}.axis{stroke:#333}.series,.spark polyline{fill:none;stroke:#1f6fb2;stroke-width:2}\
.point{fill:#1f6fb2}.point:hover{fill:#b3261e}\
.marker{stroke-width:1.5;stroke-dasharray:4 3}.marker.refresh{stroke:#7b3fc4}\
.marker.env{stroke:#d9730d}text.refresh{fill:#7b3fc4}text.env{fill:#d9730d}\
.key-refresh{color:#7b3fc4}.key-env{color:#d9730d}\
g.found line{stroke:#00a3a3;stroke-width:2}text.found-label{fill:#00a3a3;font-weight:600}\
g.unexplained line{stroke:#c2185b;stroke-width:2;stroke-dasharray:2 2}\
text.unexplained-label{fill:#c2185b;font-weight:600}.key-found{color:#00a3a3}\
.key-unexplained{color:#c2185b}\
@media (max-width:600px){body{padding:.5rem}th,td{padding:.2rem .3rem;font-size:.8rem}\
svg.spark{width:64px}svg.chart text,svg.chart .axis-title{font-size:17px}}";

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>\
         <nav><a href=\"{INDEX}\">Overview</a><a href=\"{RUNS}\">Runs</a></nav>\n{body}\n</body></html>\n",
        escape(title)
    )
}

fn run_anchor(run: &Run) -> String {
    format!("run-{}-{}", run.stamp(), run.commit)
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

/// A move as a table cell, flagged when the environment changed in the window.
fn change_cell(change: Option<Move>) -> String {
    let Some(change) = change else {
        return "<td class=\"num muted\">–</td>".to_owned();
    };
    let flag = if change.env_changed {
        " <span class=\"key-env\" title=\"the environment changed in this window: the counts do \
         not compare\">env</span>"
    } else {
        ""
    };
    let class = if change.pct > 0.0 {
        "up"
    } else if change.pct < 0.0 {
        "down"
    } else {
        "muted"
    };
    format!(
        "<td class=\"num {class}\">{}{flag}</td>",
        signed_pct(change.pct)
    )
}

/// The latest count of `values`, as a table cell.
fn latest_cell(values: &[Option<u64>]) -> String {
    let latest = values
        .iter()
        .rev()
        .find_map(|v| *v)
        .map_or("–".to_owned(), thousands);
    format!("<td class=\"num\">{latest}</td>")
}

/// A link to `id`'s section on its group page.
fn benchmark_link(id: &str) -> String {
    format!(
        "<a href=\"{}#{}\"><code>{}</code></a>",
        page_of(id),
        anchor(id),
        escape(id)
    )
}

fn overview(history: &History, site: &Site) -> String {
    let mut body = String::from("<h1>irgate: instruction counts over time</h1>");
    match (history.runs().next(), history.runs().next_back()) {
        (Some(first), Some(last)) => {
            let _ = write!(
                body,
                "<p>{} of {} on the default branch, {} to {} (latest: <a href=\"{RUNS}#{}\"><code>{}</code></a>). \
                 Change: the latest count against the one {} before it.</p>",
                plural(history.runs.len(), "run"),
                plural(history.benchmarks, "benchmark"),
                first.date.format("%Y-%m-%d"),
                last.date.format("%Y-%m-%d"),
                run_anchor(last),
                last.short_commit(),
                plural(site.window, "run")
            );
        }
        _ => body.push_str("<p>No runs recorded yet.</p>"),
    }
    let movers = &history.movers[..history.movers.len().min(MOVERS)];
    let window = plural(site.window, "run");
    if movers.is_empty() {
        let _ = write!(
            body,
            "<h2>Moved most</h2><p>No benchmark's Ir moved over the last {window}.</p>"
        );
    } else {
        let _ = write!(
            body,
            "<h2>Moved most</h2><p>The {} whose Ir moved most over the last {window}, largest \
             first, of {} that moved.</p><div class=\"wrap\"><table><thead><tr><th>benchmark</th>\
             <th>trend (Ir)</th><th class=\"num\">latest Ir</th><th class=\"num\">change, last \
             {window}</th></tr></thead><tbody>",
            plural(movers.len(), "benchmark"),
            history.movers.len()
        );
        for id in movers {
            let values = history.runs.values(id, IR);
            let _ = write!(
                body,
                "<tr><td>{}</td><td>{}</td>{}{}</tr>",
                benchmark_link(id),
                chart::sparkline(&values),
                latest_cell(&values),
                change_cell(history.moves.get(id).copied())
            );
        }
        body.push_str("</tbody></table></div>");
    }
    let _ = write!(
        body,
        "<h2>Groups</h2><p>A benchmark's group is its id up to the first <code>::</code>; its page \
         lists them all with the trend of their Ir, and charts every metric of those that moved \
         most.</p><div class=\"wrap\"><table><thead><tr>\
         <th>group</th><th class=\"num\">benchmarks</th><th class=\"num\">moved, last {window}\
         </th><th class=\"num\">largest move</th></tr></thead><tbody>"
    );
    for (group, ids) in &history.groups {
        let moved: Vec<Move> = ids
            .iter()
            .filter_map(|id| history.moves.get(id).copied())
            .filter(|m| m.pct != 0.0)
            .collect();
        let largest = moved
            .iter()
            .copied()
            .max_by(|a, b| a.pct.abs().total_cmp(&b.pct.abs()));
        let _ = write!(
            body,
            "<tr><td><a href=\"{}\"><code>{}</code></a></td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td>{}</tr>",
            group_page_name(group),
            escape(group),
            thousands(ids.len() as u64),
            thousands(moved.len() as u64),
            change_cell(largest)
        );
    }
    body.push_str("</tbody></table></div>");
    page("irgate dashboard", &body)
}

/// A group's page: an index of its benchmarks, each with the trend of its Ir, then a section of
/// charts of every metric for each of them in [`History::charted`]. A benchmark's anchor
/// ([`anchor`]) is its section where it has one, else its row of the index.
fn group_page(group: &str, ids: &[&str], history: &History, site: &Site) -> String {
    let window = plural(site.window, "run");
    let charted: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| history.charted.contains(id))
        .collect();
    let rule = format!(
        "charts of every metric are drawn for the benchmarks whose Ir moved most over the window, \
         at most {CHARTED_PER_GROUP} a group and {CHARTED} in all"
    );
    let charts = match charted.len() {
        0 => format!("No chart here: {rule}."),
        n if n == ids.len() => format!("Each has its charts below, linked from its name ({rule})."),
        1 => {
            format!("The one that moved most has its charts below, linked from its name ({rule}).")
        }
        n => format!(
            "The {} that moved most have their charts below, linked from their names ({rule}).",
            thousands(n as u64)
        ),
    };
    let mut body = format!(
        "<h1>Group <code>{}</code></h1><p>{}, each with the trend of its Ir over every run; change: \
         the latest count against the one {window} before it. {charts}</p><div class=\"wrap\">\
         <table><thead><tr><th>benchmark</th><th>trend (Ir)</th><th class=\"num\">latest Ir</th>\
         <th class=\"num\">change, last {window}</th></tr></thead><tbody>",
        escape(group),
        plural(ids.len(), "benchmark"),
    );
    for &id in ids {
        let values = history.runs.values(id, IR);
        if history.charted.contains(id) {
            let _ = write!(
                body,
                "<tr><td><a href=\"#{}\"><code>{}</code></a></td>",
                anchor(id),
                escape(id)
            );
        } else {
            let _ = write!(
                body,
                "<tr id=\"{}\"><td><code>{}</code></td>",
                anchor(id),
                escape(id)
            );
        }
        let _ = write!(
            body,
            "<td>{}</td>{}{}</tr>",
            chart::sparkline(&values),
            latest_cell(&values),
            change_cell(history.moves.get(id).copied())
        );
    }
    body.push_str("</tbody></table></div>");
    if !charted.is_empty() {
        body.push_str(
            "<p>Every point links to its run. <span class=\"key-refresh\">- - refresh</span>: \
             the baselines were refreshed at that run; <span class=\"key-env\">- - env</span>: \
             the environment changed (the counts before and after do not compare).",
        );
        if charted.iter().any(|id| history.notes.contains_key(id)) {
            body.push_str(
                " <span class=\"key-found\">| subject</span>: the commit a bisection found the \
                 Ir moved at, between two runs (its tooltip: the commit and the counts); \
                 <span class=\"key-unexplained\">: selection bug?</span>: the check judged the \
                 benchmark unexplained at that run (moved beyond the address budget although the \
                 code identity said untouched).",
            );
        }
        body.push_str("</p>");
    }
    for id in charted {
        let _ = write!(
            body,
            "<section id=\"{}\"><h2><code>{}</code></h2><div class=\"charts\">",
            anchor(id),
            escape(id)
        );
        for metric in history.runs.metrics_of(id) {
            let points: Vec<Point> = history
                .runs()
                .zip(history.runs.values(id, metric))
                .map(|(run, value)| Point {
                    value,
                    href: format!("{RUNS}#{}", run_anchor(run)),
                    label: format!(
                        "{} {} {metric}: {}",
                        run.short_commit(),
                        run.date.format("%Y-%m-%d %H:%M"),
                        value.map_or("did not run".to_owned(), thousands)
                    ),
                    tick: run.date.format("%m-%d").to_string(),
                })
                .collect();
            let title = format!("{id}: {metric}");
            let notes = match history.notes.get(id) {
                Some(notes) if metric == IR => notes.as_slice(),
                _ => &[],
            };
            let _ = write!(
                body,
                "<figure><h3>{}</h3>{}</figure>",
                escape(&title),
                chart::line_with_notes(&title, metric, &points, &history.markers, notes)
            );
        }
        body.push_str("</div></section>");
    }
    page(&format!("irgate: {group}"), &body)
}

fn runs_page(history: &History, site: &Site) -> String {
    let mut body = String::from(
        "<h1>Runs</h1><div class=\"wrap\"><table><thead><tr><th>date (UTC)</th><th>commit</th>\
         <th>baselines</th><th>environment</th><th class=\"num\">benchmarks</th>\
         <th>found</th></tr></thead><tbody>",
    );
    for (i, kept) in history.runs.runs.iter().enumerate().rev() {
        let run = &kept.run;
        let commit = match &site.repo_url {
            Some(url) => format!(
                "<a href=\"{}/commit/{}\"><code>{}</code></a>",
                escape(url.trim_end_matches('/')),
                run.commit,
                run.short_commit()
            ),
            None => format!(
                "<code title=\"{}\">{}</code>",
                run.commit,
                run.short_commit()
            ),
        };
        let env = &history.env_changes[i];
        let env = if env.is_empty() {
            "<span class=\"muted\">same</span>".to_owned()
        } else {
            let fields: Vec<String> = env
                .iter()
                .map(|field| {
                    let value = fingerprint::fields(&run.results.fingerprint)
                        .into_iter()
                        .find(|(name, _)| name == field)
                        .map(|(_, v)| v)
                        .unwrap_or_default();
                    format!("{field} <code>{}</code>", escape(&value))
                })
                .collect();
            format!(
                "<span class=\"key-env\">changed:</span> {}",
                fields.join(", ")
            )
        };
        let _ = write!(
            body,
            "<tr id=\"{}\"><td>{}</td><td>{commit}</td><td>{}</td><td>{env}</td>\
             <td class=\"num\">{}</td><td>{}</td></tr>",
            run_anchor(run),
            run.date.format("%Y-%m-%d %H:%M"),
            if run.refreshed {
                "<span class=\"key-refresh\">refreshed</span>"
            } else {
                "<span class=\"muted\">kept</span>"
            },
            kept.benchmarks,
            found_cell(run, &history.runs.index)
        );
    }
    body.push_str("</tbody></table></div>");
    page("irgate: runs", &body)
}

/// What a run's bisection found and its possible selection bugs, for the runs page: at most
/// [`LISTED_PER_RUN`] of each, every text escaped; a benchmark some run recorded (one of
/// `known`) links to its chart.
fn found_cell(run: &Run, known: &HashMap<String, u32>) -> String {
    let name = |id: &str| {
        if known.contains_key(id) {
            benchmark_link(id)
        } else {
            format!("<code>{}</code>", escape(id))
        }
    };
    let mut parts = Vec::new();
    if let Some(bisection) = &run.bisection {
        let moves: Vec<String> = bisection
            .moves
            .iter()
            .take(LISTED_PER_RUN)
            .map(|m| {
                format!(
                    "{} at <code title=\"{}\">{}</code> {}",
                    name(&m.benchmark),
                    m.commit,
                    crate::text::short_commit(&m.commit),
                    escape(&m.subject)
                )
            })
            .collect();
        let more = bisection.moves.len().saturating_sub(LISTED_PER_RUN);
        let mut text = format!(
            "<span class=\"key-found\">bisected since <code>{}</code>:</span> {}",
            crate::text::short_commit(&bisection.good),
            if moves.is_empty() {
                "no move found".to_owned()
            } else {
                moves.join("; ")
            }
        );
        if more > 0 {
            let _ = write!(text, "; and {more} more");
        }
        if !bisection.undecided.is_empty() {
            let _ = write!(
                text,
                " ({} undecided)",
                plural(bisection.undecided.len(), "move")
            );
        }
        parts.push(text);
    }
    if !run.unexplained.is_empty() {
        let ids: Vec<String> = run
            .unexplained
            .iter()
            .take(LISTED_PER_RUN)
            .map(|u| name(&u.benchmark))
            .collect();
        let more = run.unexplained.len().saturating_sub(LISTED_PER_RUN);
        parts.push(format!(
            "<span class=\"key-unexplained\">possible selection bug:</span> {}{}",
            ids.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    if parts.is_empty() {
        "<span class=\"muted\">–</span>".to_owned()
    } else {
        parts.join("<br>")
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
