//! Renderers of a [`Report`](crate::model::Report): the terminal table, GitHub markdown and
//! stable JSON.

pub mod chart;
pub mod dashboard;
pub mod doctor;
pub mod explanation;
pub mod github;
pub mod load;
pub mod markdown;
pub mod refresh;
pub mod table;

/// The formats `irgate check` can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// An aligned table for a terminal, worst first.
    #[default]
    Table,
    /// GitHub markdown: the pull-request comment body (also fits a job step summary).
    Markdown,
    /// JSON with a documented, versioned schema (see `formats::report`).
    Json,
}

/// Renders `report` in `format`; `full` lists every row in the table even when all is well; the
/// markdown stays within `limit`.
pub fn render(
    report: &crate::model::Report,
    format: Format,
    full: bool,
    limit: markdown::Limit,
) -> String {
    match format {
        Format::Table => table::render(report, full),
        Format::Markdown => markdown::render(report, limit),
        Format::Json => crate::formats::report::render(report),
    }
}

/// How many benchmarks a verdict speaks for: "15 benchmarks", or when some were not run
/// (`--only-touched`) "3 benchmarks run (of 15)": a carried count was never measured.
pub fn counted(report: &crate::model::Report) -> String {
    let total = report.benchmark_count();
    match report.carried_count() {
        0 => crate::text::plural(total, "benchmark"),
        carried => format!(
            "{} run (of {total})",
            crate::text::plural(total - carried, "benchmark")
        ),
    }
}

/// How many of the changes `pcts` (in percent) are not zero, and the largest: "3 benchmarks by up
/// to 1.25%", or "no benchmark".
pub fn moved(pcts: impl Iterator<Item = f64>) -> String {
    let (count, largest) = pcts
        .filter(|p| *p != 0.0)
        .fold((0, 0.0_f64), |(n, max), p| (n + 1, max.max(p.abs())));
    match count {
        0 => "no benchmark".to_owned(),
        1 => format!("1 benchmark by {largest:.2}%"),
        n => format!("{n} benchmarks by up to {largest:.2}%"),
    }
}

/// The line every report (and `init`) gives the benchmarks of `ids` that measured 0 Ir, `None`
/// when there are none: they measure nothing, why, what to do, and what it costs (no code record,
/// so `--only-touched` runs them on every change).
pub fn measures_nothing<'a>(ids: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let ids: std::collections::BTreeSet<&str> = ids.into_iter().collect();
    if ids.is_empty() {
        return None;
    }
    let named: Vec<String> = ids.iter().map(|id| format!("`{id}`")).collect();
    let (they, measure, its) = if ids.len() == 1 {
        ("it", "measures", "its")
    } else {
        ("they", "measure", "each one's")
    };
    Some(format!(
        "Measures nothing: {} {measure} 0 Ir ({}): the compiler folded {its} body away, seeing \
         through {its} inputs; pass them through `std::hint::black_box`. With nothing measured, \
         {they} cannot be recorded, so `irgate run --only-touched` runs {} on every change.",
        crate::text::plural(ids.len(), "benchmark"),
        named.join(", "),
        if ids.len() == 1 { "it" } else { "them" },
    ))
}

/// The benchmarks of `report` whose Ir row counted 0 ([`measures_nothing`]).
pub fn measured_nothing(report: &crate::model::Report) -> Option<String> {
    measures_nothing(
        report
            .rows
            .iter()
            .filter(|row| row.metric == crate::config::metrics::IR && row.new == Some(0))
            .map(|row| row.benchmark.as_str()),
    )
}

/// What a binary benchmark's row compares, in one line (untrusted: the reason may quote a path):
/// `gated on the program's count (its main, without the process's start-up and exit); whole
/// process 306,776 -> 307,789`, or `gated on the whole process's count: REASON`. `None` for a
/// library benchmark's row and a drift row.
pub fn gated_line(report: &crate::model::Report, row: &crate::model::Row) -> Option<String> {
    let process = report.attribution.processes.get(&row.benchmark)?;
    if row.since.is_some() {
        return None;
    }
    if !process.gates_program(&row.metric) {
        let reason = process.reason.as_deref().unwrap_or("no program count");
        return Some(format!("gated on the whole process's count: {reason}"));
    }
    let count = |n: Option<u64>| n.map_or_else(|| "–".to_owned(), crate::text::thousands);
    let whole = process.whole.get(&row.metric).copied().unwrap_or_default();
    Some(format!(
        "gated on the program's count (its main, without the process's start-up and exit); \
         whole process {} -> {}",
        count(whole.baseline),
        count(whole.new)
    ))
}

#[cfg(test)]
mod tests {
    use crate::model::{Outcome, Process, Report, Row, Status, Whole};

    #[test]
    fn a_binary_benchmarks_row_says_which_count_it_gates() {
        let row = |benchmark: &str, metric: &str| Row {
            benchmark: benchmark.to_owned(),
            metric: metric.to_owned(),
            baseline: Some(4_085),
            new: Some(4_085),
            limit: None,
            status: Status::Ok,
            fails: false,
            since: None,
            accepted: None,
            touch: None,
        };
        let mut report = Report::undecided(String::new());
        report.outcome = Outcome::Passed;
        report.attribution.processes.insert(
            "cli::tool/run".to_owned(),
            Process {
                program: vec!["Ir".to_owned()],
                whole: [(
                    "Ir".to_owned(),
                    Whole {
                        baseline: Some(307_417),
                        new: Some(305_180),
                    },
                )]
                .into(),
                reason: Some("dhat counts the whole process".to_owned()),
            },
        );
        assert_eq!(
            super::gated_line(&report, &row("cli::tool/run", "Ir")).unwrap(),
            "gated on the program's count (its main, without the process's start-up and exit); \
             whole process 307,417 -> 305,180"
        );
        assert_eq!(
            super::gated_line(&report, &row("cli::tool/run", "dhat.TotalBytes")).unwrap(),
            "gated on the whole process's count: dhat counts the whole process"
        );
        assert_eq!(super::gated_line(&report, &row("lib::f/x", "Ir")), None);
    }
}
