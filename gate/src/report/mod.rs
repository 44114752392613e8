//! Renderers of a [`Report`](crate::model::Report): the terminal table, GitHub markdown and
//! stable JSON.

pub mod json;
pub mod markdown;
pub mod table;

use crate::model::Budget;

/// The formats `irgate check` can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// An aligned table for a terminal, worst first.
    #[default]
    Table,
    /// GitHub markdown: the pull-request comment body (also fits a job step summary).
    Markdown,
    /// JSON with a documented, versioned schema (see `report::json`).
    Json,
}

/// Renders `report` in `format`; `full` lists every row in the table even when all is well.
pub fn render(report: &crate::model::Report, format: Format, full: bool) -> String {
    match format {
        Format::Table => table::render(report, full),
        Format::Markdown => markdown::render(report, markdown::STEP_SUMMARY_MAX),
        Format::Json => json::render(report),
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

/// Writes `text` to standard output. A reader that went away (`irgate doctor | head`) is not an
/// error of the gate's: the rest is dropped, and the command's exit code stands.
pub fn print(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// Lays out `lines` of cells as an aligned text table, two spaces between columns; columns where
/// `numeric(i)` holds are right-aligned. Each line ends in a newline, without trailing spaces.
pub fn align(lines: &[Vec<String>], numeric: impl Fn(usize) -> bool) -> String {
    let columns = lines.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            lines
                .iter()
                .filter_map(|line| line.get(i))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for line in lines {
        let mut text = String::new();
        for (i, cell) in line.iter().enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            let pad = " ".repeat(widths[i] - cell.chars().count());
            if numeric(i) {
                text.push_str(&pad);
                text.push_str(cell);
            } else {
                text.push_str(cell);
                text.push_str(&pad);
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}

/// A budget as every report shows it, the larger of its two allowances applying:
/// `max(0.5%, 1,000)`.
pub fn budget(limit: &Budget) -> String {
    format!(
        "max({}%, {})",
        limit.relative_pct,
        thousands(limit.absolute)
    )
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

/// Whether `url` is a plain `https://` address, safe to put in a link: printable ASCII without
/// quotes, brackets or parentheses, under 500 characters.
pub fn is_plain_https(url: &str) -> bool {
    url.starts_with("https://")
        && url.len() < 500
        && url
            .chars()
            .all(|c| c.is_ascii_graphic() && !"()<>[]\"'`\\".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_text_left_and_numbers_right() {
        let lines = vec![
            vec!["name".to_owned(), "Ir".to_owned()],
            vec!["a".to_owned(), "1,234".to_owned()],
        ];
        assert_eq!(align(&lines, |i| i == 1), "name     Ir\na     1,234\n");
    }

    #[test]
    fn shows_budgets_as_the_larger_of_two() {
        let limit = Budget {
            relative_pct: 0.5,
            absolute: 1_000,
        };
        assert_eq!(budget(&limit), "max(0.5%, 1,000)");
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(4_037_660), "4,037,660");
    }
}
