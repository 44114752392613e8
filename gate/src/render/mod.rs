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
