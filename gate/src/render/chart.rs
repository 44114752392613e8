//! The dashboard's charts as plain inline SVG: a line chart with axes, labels and marked points,
//! and a sparkline. The browser lays the text out, so no font is embedded or fetched.

use std::fmt::Write as _;

use crate::text::html::escape;
use crate::text::thousands;

/// One point of a series: its value (absent where the benchmark did not run), where it links to
/// and what its tooltip says.
pub struct Point {
    /// The count, if the benchmark ran.
    pub value: Option<u64>,
    /// The link of the point (the run's row on the runs page).
    pub href: String,
    /// The tooltip: commit, date, value.
    pub label: String,
    /// The x-axis label of this run (its date).
    pub tick: String,
}

/// What happened at a run, drawn as a vertical line through the chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// The baselines were refreshed.
    Refresh,
    /// The environment changed (a field that changes counts).
    EnvChange,
}

impl Marker {
    /// The CSS class and the label drawn at the top of the line.
    fn class_and_label(self) -> (&'static str, &'static str) {
        match self {
            Marker::Refresh => ("refresh", "refresh"),
            Marker::EnvChange => ("env", "env"),
        }
    }
}

/// A note drawn on a chart at one run: a commit a bisection found the count moved at (between the
/// run before and this one), or a possible selection bug at this run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The run's index among the points.
    pub run: usize,
    /// What the note says.
    pub kind: NoteKind,
    /// The text drawn in the chart (untrusted: escaped here, and cut to [`NOTE_LABEL`]
    /// characters).
    pub label: String,
    /// Its tooltip, in full (untrusted: escaped here).
    pub title: String,
}

/// The kinds of [`Note`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteKind {
    /// A commit where a bisection found the count moved: drawn between the run before and this
    /// one, labelled with the commit's subject.
    Found,
    /// The check judged the benchmark `unexplained` at this run: a possible selection bug.
    Unexplained,
}

impl NoteKind {
    /// The CSS class of the note's group (its label's is this and `-label`).
    pub fn class(self) -> &'static str {
        match self {
            NoteKind::Found => "found",
            NoteKind::Unexplained => "unexplained",
        }
    }
}

/// At most this many characters of a note's label are drawn.
pub const NOTE_LABEL: usize = 28;

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 100.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 26.0;
const BOTTOM: f64 = 56.0;
const TICKS: usize = 5;
const MAX_X_LABELS: usize = 6;

/// A line chart of `points` with the y axis titled `metric`, `markers` at their run indices.
pub fn line(title: &str, metric: &str, points: &[Point], markers: &[(usize, Marker)]) -> String {
    line_with_notes(title, metric, points, markers, &[])
}

/// [`line()`], with `notes` drawn on it.
pub fn line_with_notes(
    title: &str,
    metric: &str,
    points: &[Point],
    markers: &[(usize, Marker)],
    notes: &[Note],
) -> String {
    let (low, high) = range(points.iter().filter_map(|p| p.value));
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let x = |i: usize| {
        if points.len() <= 1 {
            LEFT + plot_w / 2.0
        } else {
            LEFT + plot_w * i as f64 / (points.len() - 1) as f64
        }
    };
    let y = |v: f64| TOP + plot_h * (1.0 - (v - low) / (high - low));
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{}"><title>{}</title>"#,
        escape(title),
        escape(title)
    );
    // Grid and y labels, at round counts one label each.
    for v in ticks(low, high) {
        let yy = y(v as f64);
        let _ = write!(
            out,
            r#"<line class="grid" x1="{LEFT}" x2="{}" y1="{yy:.1}" y2="{yy:.1}"/><text class="ylabel" x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            WIDTH - RIGHT,
            LEFT - 6.0,
            yy + 4.0,
            thousands(v)
        );
    }
    // Axes and their titles.
    let bottom = HEIGHT - BOTTOM;
    let _ = write!(
        out,
        r#"<line class="axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{bottom}"/><line class="axis" x1="{LEFT}" x2="{}" y1="{bottom}" y2="{bottom}"/><text class="axis-title" transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle">{}</text><text class="axis-title" x="{:.1}" y="{}" text-anchor="middle">run (date, oldest to newest)</text>"#,
        WIDTH - RIGHT,
        TOP + plot_h / 2.0,
        escape(metric),
        LEFT + plot_w / 2.0,
        HEIGHT - 6.0
    );
    // x labels: the first, the last and evenly spread ones between, each date once (runs of one
    // day share the first one's).
    let step = points.len().div_ceil(MAX_X_LABELS).max(1);
    let mut last_tick = None;
    for (i, point) in points.iter().enumerate() {
        if (i % step == 0 || i + 1 == points.len()) && last_tick != Some(&point.tick) {
            last_tick = Some(&point.tick);
            // The outermost labels stay inside the chart.
            let anchor = match i {
                0 if points.len() > 1 => "start",
                i if i + 1 == points.len() && i > 0 => "end",
                _ => "middle",
            };
            let _ = write!(
                out,
                r#"<text class="xlabel" x="{:.1}" y="{}" text-anchor="{anchor}">{}</text>"#,
                x(i),
                bottom + 18.0,
                escape(&point.tick)
            );
        }
    }
    for &(i, marker) in markers {
        let (class, label) = marker.class_and_label();
        let dy = if marker == Marker::Refresh { 0.0 } else { 11.0 };
        let _ = write!(
            out,
            r#"<line class="marker {class}" x1="{0:.1}" x2="{0:.1}" y1="{TOP}" y2="{bottom}"/><text class="marker-label {class}" x="{0:.1}" y="{1:.1}" text-anchor="middle">{label}</text>"#,
            x(i),
            TOP - 14.0 + dy
        );
    }
    // Notes: a solid line each, and its label low in the plot, stacked per run.
    let mut stacked: std::collections::HashMap<usize, usize> = Default::default();
    for note in notes.iter().filter(|n| n.run < points.len()) {
        let at = match (note.kind, note.run) {
            (NoteKind::Found, i) if i > 0 => (x(i - 1) + x(i)) / 2.0,
            (_, i) => x(i),
        };
        let level = stacked.entry(note.run).or_default();
        let label_y = bottom - 6.0 - 13.0 * *level as f64;
        *level += 1;
        let (anchor, dx) = if at > LEFT + plot_w / 2.0 {
            ("end", -4.0)
        } else {
            ("start", 4.0)
        };
        let mut label: String = note.label.chars().take(NOTE_LABEL).collect();
        if note.label.chars().count() > NOTE_LABEL {
            label.pop();
            label.push('…');
        }
        let class = note.kind.class();
        let _ = write!(
            out,
            r#"<g class="{class}"><title>{}</title><line x1="{at:.1}" x2="{at:.1}" y1="{TOP}" y2="{bottom}"/><text class="{class}-label" x="{:.1}" y="{label_y:.1}" text-anchor="{anchor}">{}</text></g>"#,
            escape(&note.title),
            at + dx,
            escape(&label)
        );
    }
    // The series, broken where the benchmark did not run.
    let values: Vec<Option<u64>> = points.iter().map(|p| p.value).collect();
    for segment in segments(&values) {
        out.push_str(r#"<polyline class="series" points=""#);
        for (n, &i) in segment.iter().enumerate() {
            let sep = if n == 0 { "" } else { " " };
            let _ = write!(
                out,
                "{sep}{:.1},{:.1}",
                x(i),
                y(values[i].unwrap_or_default() as f64)
            );
        }
        out.push_str(r#""/>"#);
    }
    for (i, point) in points.iter().enumerate() {
        if let Some(v) = point.value {
            let _ = write!(
                out,
                r#"<a href="{}"><circle class="point" cx="{:.1}" cy="{:.1}" r="4"><title>{}</title></circle></a>"#,
                escape(&point.href),
                x(i),
                y(v as f64),
                escape(&point.label)
            );
        }
    }
    out.push_str("</svg>");
    out
}

/// A small trend line of `values`, without axes: a polyline per stretch of runs the benchmark
/// ran in, in whole units of a 120 x 28 box (its style comes from the page's `svg.spark`).
pub fn sparkline(values: &[Option<u64>]) -> String {
    const W: f64 = 120.0;
    const H: f64 = 28.0;
    let (low, high) = range(values.iter().flatten().copied());
    let x = |i: usize| {
        if values.len() <= 1 {
            W / 2.0
        } else {
            2.0 + (W - 4.0) * i as f64 / (values.len() - 1) as f64
        }
    };
    let y = |v: u64| 2.0 + (H - 4.0) * (1.0 - (v as f64 - low) / (high - low));
    let mut out = format!(r#"<svg class="spark" viewBox="0 0 {W} {H}" aria-hidden="true">"#);
    for segment in segments(values) {
        out.push_str(r#"<polyline points=""#);
        for (n, &i) in segment.iter().enumerate() {
            let sep = if n == 0 { "" } else { " " };
            let _ = write!(
                out,
                "{sep}{:.0},{:.0}",
                x(i),
                y(values[i].unwrap_or_default())
            );
        }
        out.push_str(r#""/>"#);
    }
    out.push_str("</svg>");
    out
}

/// The y-axis labels for the range `low..=high`: whole counts the smallest round step apart (1, 2
/// or 5 times a power of ten) that gives at most [`TICKS`] of them, so no two read the same.
fn ticks(low: f64, high: f64) -> Vec<u64> {
    let mut step = 1_u64;
    loop {
        let (first, last) = ((low / step as f64).ceil(), (high / step as f64).floor());
        if last - first < TICKS as f64 {
            return (first as u64..=last as u64).map(|k| k * step).collect();
        }
        step = match step.to_string().as_bytes()[0] {
            b'2' => step / 2 * 5,
            _ => step * 2,
        };
    }
}

/// The y range: the values' minimum and maximum with 5% room, never empty.
fn range(values: impl Iterator<Item = u64>) -> (f64, f64) {
    let (min, max) = values.fold((u64::MAX, 0), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if min > max {
        return (0.0, 1.0);
    }
    let (min, max) = (min as f64, max as f64);
    let pad = ((max - min) * 0.05).max(max * 0.005).max(1.0);
    ((min - pad).max(0.0), max + pad)
}

/// Runs of consecutive indices where a value exists.
fn segments(values: &[Option<u64>]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut current = Vec::new();
    for (i, value) in values.iter().enumerate() {
        if value.is_some() {
            current.push(i);
        } else if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(value: Option<u64>) -> Point {
        Point {
            value,
            href: "runs.html#run-1".into(),
            label: "<b>".into(),
            tick: "11-20".into(),
        }
    }

    #[test]
    fn a_chart_breaks_where_a_benchmark_did_not_run_and_escapes_text() {
        let svg = line(
            "a::b <Ir>",
            "Ir",
            &[
                point(Some(10)),
                point(None),
                point(Some(12)),
                point(Some(11)),
            ],
            &[(2, Marker::Refresh), (3, Marker::EnvChange)],
        );
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches(r#"class="point""#).count(), 3);
        assert_eq!(svg.matches(r#"class="ylabel""#).count(), TICKS);
        assert!(svg.contains("marker refresh") && svg.contains("marker env"));
        assert!(svg.contains("a::b &lt;Ir&gt;") && !svg.contains("<b>"));
    }

    /// The labels of `class` in `svg`, in order.
    fn labels(svg: &str, class: &str) -> Vec<String> {
        let open = format!(r#"<text class="{class}""#);
        svg.match_indices(&open)
            .map(|(i, _)| {
                let rest = &svg[i..];
                let start = rest.find('>').unwrap() + 1;
                rest[start..start + rest[start..].find('<').unwrap()].to_owned()
            })
            .collect()
    }

    #[test]
    fn y_labels_are_round_and_never_repeat() {
        let zeros = line("z", "Ir", &[point(Some(0)), point(Some(0))], &[]);
        assert_eq!(labels(&zeros, "ylabel"), ["0", "1"]);
        let counts = [194_516, 198_406, 190_012].map(|v| point(Some(v)));
        let svg = line("c", "Ir", &counts, &[]);
        assert_eq!(
            labels(&svg, "ylabel"),
            ["190,000", "192,000", "194,000", "196,000", "198,000"]
        );
        for (low, high) in [
            (0.0, 1.0),
            (10.0, 13.2),
            (0.0, 7.0),
            (5.0, 1e9),
            (99.5, 100.5),
        ] {
            let ticks = ticks(low, high);
            assert!(
                !ticks.is_empty() && ticks.len() <= TICKS,
                "{low} {high}: {ticks:?}"
            );
            assert!(ticks.windows(2).all(|w| w[0] < w[1]), "{ticks:?}");
            assert!(ticks.iter().all(|&t| t as f64 >= low && t as f64 <= high));
        }
    }

    #[test]
    fn runs_of_one_day_share_one_x_label() {
        let day = |tick: &str| Point {
            tick: tick.into(),
            ..point(Some(5))
        };
        let points = [
            day("11-20"),
            day("11-20"),
            day("11-20"),
            day("11-21"),
            day("11-21"),
        ];
        assert_eq!(
            labels(&line("d", "Ir", &points, &[]), "xlabel"),
            ["11-20", "11-21"]
        );
        let points = [day("11-20"), day("11-20")];
        assert_eq!(labels(&line("d", "Ir", &points, &[]), "xlabel"), ["11-20"]);
    }

    /// A note's label and tooltip are escaped (markup, quotes, bidi controls) and the label cut;
    /// a found commit sits between its run and the one before.
    #[test]
    fn notes_are_escaped_and_placed_between_runs() {
        let hostile = "<script>alert('x')</script> \"q\" \u{202E}evil";
        let notes = [
            Note {
                run: 2,
                kind: NoteKind::Found,
                label: hostile.into(),
                title: hostile.into(),
            },
            Note {
                run: 1,
                kind: NoteKind::Unexplained,
                label: "selection bug?".into(),
                title: "t".into(),
            },
            Note {
                run: 9,
                kind: NoteKind::Found,
                label: "beyond the points".into(),
                title: "t".into(),
            },
        ];
        let points = [point(Some(1)), point(Some(2)), point(Some(3))];
        let svg = line_with_notes("t", "Ir", &points, &[], &notes);
        assert!(
            !svg.contains("<script") && !svg.contains('\u{202E}'),
            "{svg}"
        );
        assert!(svg.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &quot;q&quot;"));
        assert_eq!(
            labels(&svg, "found-label"),
            ["&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;…"]
        );
        assert_eq!(labels(&svg, "unexplained-label"), ["selection bug?"]);
        // x(1) and x(2) of three points over the plot's width: the found line halfway.
        let middle = LEFT + (WIDTH - LEFT - RIGHT) * 0.75;
        assert!(svg.contains(&format!(r#"<line x1="{middle:.1}""#)), "{svg}");
        assert_eq!(
            line("t", "Ir", &points, &[]),
            line_with_notes("t", "Ir", &points, &[], &[])
        );
    }

    #[test]
    fn a_flat_or_empty_series_still_has_a_range() {
        assert!(range([5, 5].into_iter()).0 < range([5, 5].into_iter()).1);
        assert_eq!(range(std::iter::empty()), (0.0, 1.0));
        assert!(sparkline(&[Some(3)]).contains("<polyline"));
    }
}
