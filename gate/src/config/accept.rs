//! `[[accept]]`: a known regression let pass on purpose, why, and until when.

use serde::Deserialize;
use toml::Spanned;

use super::{Pattern, Source};
use crate::error::Result;

/// An `[[accept]]` entry: benchmarks whose rows over budget pass on purpose, why, and until when.
#[derive(Debug, Clone)]
pub struct Accept {
    pub(super) patterns: Vec<Pattern>,
    /// Why the regression is accepted (never empty).
    pub reason: String,
    /// When the acceptance ends.
    pub until: Until,
    /// Where the entry is, `gate.toml:LINE`.
    pub origin: String,
}

/// When an [`Accept`] ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Until {
    /// Through this day (UTC); expired from the next day on.
    Date(chrono::NaiveDate),
    /// Until this commit is in the checked history (an ancestor of, or, the commit measured).
    Commit(String),
}

impl std::fmt::Display for Until {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Until::Date(date) => write!(f, "until {date}"),
            Until::Commit(commit) => write!(f, "until commit {commit}"),
        }
    }
}

impl Accept {
    /// Whether this entry names benchmark `id`.
    pub fn matches(&self, id: &str) -> bool {
        self.patterns.iter().any(|p| p.matches(id))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAccept {
    benchmarks: Vec<Spanned<String>>,
    reason: Spanned<String>,
    until: Option<Spanned<UntilDate>>,
    until_commit: Option<Spanned<String>>,
}

/// The longest reason an `[[accept]]` entry may give, in characters: every report shows it, and a
/// few sentences and a link say why.
pub const MAX_REASON_CHARS: usize = 1_000;

/// `until` as written: a string `"YYYY-MM-DD"`, or a TOML date (`until = 2026-12-31`, unquoted).
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum UntilDate {
    Text(String),
    Toml(toml::value::Datetime),
    Other(toml::Value),
}

impl UntilDate {
    /// The day, or why it is none.
    fn day(&self) -> std::result::Result<chrono::NaiveDate, String> {
        match self {
            UntilDate::Text(text) => chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .map_err(|e| format!("until = {text:?} is not a date YYYY-MM-DD ({e})")),
            UntilDate::Toml(datetime) => match (datetime.date, datetime.time) {
                (Some(date), None) => chrono::NaiveDate::from_ymd_opt(
                    i32::from(date.year),
                    u32::from(date.month),
                    u32::from(date.day),
                )
                .ok_or_else(|| format!("until = {datetime} is not a day of the calendar")),
                _ => Err(format!(
                    "until = {datetime} holds a time: write the day alone, until = \"YYYY-MM-DD\""
                )),
            },
            UntilDate::Other(value) => Err(format!(
                "until = {value} is not a date: write until = \"YYYY-MM-DD\""
            )),
        }
    }
}

/// One `[[accept]]` entry; an error at what makes it accept nothing, say nothing, say too much or
/// never end.
pub(super) fn parse(src: &Source, raw: Spanned<RawAccept>) -> Result<Accept> {
    let span = raw.span();
    let origin = format!("{}:{}", src.path.display(), src.line(span.start));
    let raw = raw.into_inner();
    if raw.benchmarks.is_empty() {
        return Err(src.at(
            span,
            "an [[accept]] entry with `benchmarks = []` accepts nothing: name at least \
             one glob"
                .to_owned(),
        ));
    }
    if raw.reason.get_ref().trim().is_empty() {
        return Err(src.at(
            raw.reason.span(),
            "the reason of an [[accept]] entry is empty: say why the regression is \
             accepted"
                .to_owned(),
        ));
    }
    let reason_chars = raw.reason.get_ref().chars().count();
    if reason_chars > MAX_REASON_CHARS {
        return Err(src.at(
            raw.reason.span(),
            format!(
                "the reason of an [[accept]] entry is {reason_chars} characters long, over the \
                 {MAX_REASON_CHARS} every report can show: say why in a few sentences and \
                 link the rest"
            ),
        ));
    }
    let until = match (raw.until, raw.until_commit) {
        (Some(date), None) => Until::Date(
            date.get_ref()
                .day()
                .map_err(|message| src.at(date.span(), message))?,
        ),
        (None, Some(commit)) => {
            let hex = commit.get_ref();
            if !(7..=40).contains(&hex.len()) || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(src.at(
                    commit.span(),
                    format!("until_commit = {hex:?} is not a commit hash (7 to 40 hex digits)"),
                ));
            }
            Until::Commit(hex.to_ascii_lowercase())
        }
        _ => {
            return Err(src.at(
                span,
                "an [[accept]] entry needs exactly one of `until = \"YYYY-MM-DD\"` and \
                 `until_commit = \"<sha>\"`: an acceptance must end"
                    .to_owned(),
            ));
        }
    };
    Ok(Accept {
        patterns: Pattern::parse(src, raw.benchmarks)?,
        reason: raw.reason.into_inner(),
        until,
        origin,
    })
}
