//! The dashboard's pages, drawn from the [`History`]: the overview, a page per group and the
//! runs, with their shared style and cells.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::{
    CHARTED, CHARTED_PER_GROUP, History, INDEX, LISTED_PER_RUN, Move, OVERVIEW_MOVERS, RUNS, Site,
    anchor, group_page_name, page_of,
};
use crate::config::metrics::IR;
use crate::formats::history::Run;
use crate::model::fingerprint;
use crate::render::chart::{self, Point};
use crate::text::html::escape;
use crate::text::{plural, signed_pct, thousands};

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

pub(super) fn overview(history: &History, site: &Site) -> String {
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
    let movers = &history.movers[..history.movers.len().min(OVERVIEW_MOVERS)];
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
pub(super) fn group_page(group: &str, ids: &[&str], history: &History, site: &Site) -> String {
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
        // A binary benchmark's charted count is its program's, since the run that split it.
        let note = match history.runs().next_back() {
            Some(latest) if latest.results.process.is_binary(id) => {
                let what = match latest.results.process.whole.get(id).and_then(|c| c.get(IR)) {
                    Some(whole) => format!(
                        "binary benchmark: its program's count (whole process {} Ir)",
                        thousands(*whole)
                    ),
                    None => "binary benchmark: its whole process's count".to_owned(),
                };
                format!(" <small>{}</small>", escape(&what))
            }
            _ => String::new(),
        };
        if history.charted.contains(id) {
            let _ = write!(
                body,
                "<tr><td><a href=\"#{}\"><code>{}</code></a>{note}</td>",
                anchor(id),
                escape(id)
            );
        } else {
            let _ = write!(
                body,
                "<tr id=\"{}\"><td><code>{}</code>{note}</td>",
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

pub(super) fn runs_page(history: &History, site: &Site) -> String {
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
