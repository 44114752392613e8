//! Renderers of a [`Report`](crate::model::Report): the terminal table, GitHub markdown and
//! stable JSON.

pub mod json;
pub mod markdown;
pub mod table;

/// The formats `irgate check` can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// An aligned table for a terminal, worst first.
    #[default]
    Table,
    /// GitHub markdown: the pull-request comment body (also fits a job step summary).
    Markdown,
    /// JSON with a documented, versioned schema (see `report::json`).
    Json,
}

/// Renders `report` in `format`.
pub fn render(report: &crate::model::Report, format: Format) -> String {
    match format {
        Format::Table => table::render(report),
        Format::Markdown => markdown::render(report, markdown::STEP_SUMMARY_MAX),
        Format::Json => json::render(report),
    }
}

/// `1234567` -> `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(4_037_660), "4,037,660");
    }
}
