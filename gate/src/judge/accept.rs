//! Whether the `[[accept]]` entries of gate.toml still hold. An entry with `until = DATE` holds
//! through that day, UTC; one with `until_commit = SHA` holds until that commit is in the history
//! of the commit the results were measured at (it, or an ancestor of it), asked of git in the
//! repository. An expired entry, or one whose end cannot be told, stops the gate (fail closed).
//! An entry that lets every benchmark regress, or whose date lies more than a year away, is
//! warned about.

use std::collections::BTreeSet;
use std::path::Path;

use chrono::NaiveDate;

use crate::config::Config;
use crate::config::accept::Until;
use crate::error::{Error, Result};
use crate::git::Commit;

/// Refuses the configuration when one of its `[[accept]]` entries has expired on `today` (UTC)
/// or at commit `measured` of the git repository at `repo`, naming each such entry.
pub fn refuse_expired(
    config: &Config,
    today: NaiveDate,
    measured: &str,
    repo: &Path,
) -> Result<()> {
    let mut expired = Vec::new();
    for accept in &config.accepts {
        let ended = match &accept.until {
            Until::Date(date) => today > *date,
            Until::Commit(commit) => landed(commit, measured, repo).map_err(|why| {
                Error::invalid(
                    &accept.origin,
                    format!(
                        "cannot tell whether the [[accept]] entry ({}) has expired: {why}",
                        accept.until
                    ),
                )
            })?,
        };
        if ended {
            expired.push(format!(
                "{} ({}, reason: {:?})",
                accept.origin, accept.until, accept.reason
            ));
        }
    }
    if expired.is_empty() {
        return Ok(());
    }
    Err(Error::invalid(
        expired.join("; "),
        format!(
            "[[accept]] entry expired (today is {today}, UTC): remove it, and if the regression \
             stays, accept it for good with `irgate run && irgate refresh` and a reviewed \
             baseline diff"
        ),
    ))
}

/// How far ahead an `until` date may lie without a warning.
const MAX_DAYS_AHEAD: i64 = 366;

/// Warnings about `[[accept]]` entries that hold but accept too much: one matching every one of
/// the benchmarks `ids` (two or more), one whose date lies more than a year after `today`.
pub fn warnings(config: &Config, today: NaiveDate, ids: &BTreeSet<&str>) -> Vec<String> {
    let mut out = Vec::new();
    for accept in &config.accepts {
        if ids.len() > 1 && ids.iter().all(|id| accept.matches(id)) {
            out.push(format!(
                "{}: the [[accept]] entry matches every one of the {} benchmarks: it lets any \
                 regression pass; name the benchmarks it is for",
                accept.origin,
                ids.len()
            ));
        }
        if let Until::Date(date) = accept.until
            && (date - today).num_days() > MAX_DAYS_AHEAD
        {
            out.push(format!(
                "{}: the [[accept]] entry holds until {date}, {} days from today: an acceptance \
                 meant for good is a refreshed baseline (`irgate run && irgate refresh`)",
                accept.origin,
                (date - today).num_days()
            ));
        }
    }
    out
}

/// Whether `commit` is `measured` or one of its ancestors, in the repository at `repo`.
fn landed(commit: &str, measured: &str, repo: &Path) -> std::result::Result<bool, String> {
    let measured = Commit::parse(measured).hash;
    if measured.is_empty() || measured == crate::model::UNKNOWN {
        return Err("the results do not record the commit they were measured at".to_owned());
    }
    crate::git::is_ancestor(repo, commit, &measured)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(until: &str) -> Config {
        let text =
            format!("[[accept]]\nbenchmarks = [\"a::*\"]\nreason = \"on purpose\"\n{until}\n");
        Config::parse(&text, Path::new("gate.toml")).unwrap()
    }

    #[test]
    fn a_date_holds_through_its_day() {
        let config = config("until = \"2026-11-23\"");
        let day = |d: &str| NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap();
        assert!(refuse_expired(&config, day("2026-11-23"), "unknown", Path::new(".")).is_ok());
        let error = refuse_expired(&config, day("2026-11-24"), "unknown", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("gate.toml:1 (until 2026-11-23, reason: \"on purpose\"): [[accept]] entry expired (today is 2026-11-24"),
            "{error}"
        );
    }

    #[test]
    fn an_entry_for_every_benchmark_or_for_years_is_warned_about() {
        let today = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
        let ids: BTreeSet<&str> = ["a::x", "a::y"].into();
        let warned = warnings(&config("until = \"2026-06-30\""), today, &ids);
        assert_eq!(warned.len(), 1, "{warned:?}");
        assert!(
            warned[0].starts_with(
                "gate.toml:1: the [[accept]] entry matches every one of the 2 benchmarks"
            ),
            "{warned:?}"
        );
        let ids: BTreeSet<&str> = ["a::x", "b::y"].into();
        assert!(warnings(&config("until = \"2027-01-02\""), today, &ids).is_empty());
        let warned = warnings(&config("until = \"2031-01-01\""), today, &ids);
        assert_eq!(
            warned,
            [
                "gate.toml:1: the [[accept]] entry holds until 2031-01-01, 1826 days from today: an \
              acceptance meant for good is a refreshed baseline (`irgate run && irgate refresh`)"
            ]
        );
        assert!(warnings(&config("until_commit = \"0123456\""), today, &ids).is_empty());
    }

    #[test]
    fn a_commit_needs_a_known_measured_commit() {
        let config = config("until_commit = \"0123456\"");
        let today = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
        let error = refuse_expired(&config, today, "unknown", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("gate.toml:1: cannot tell whether the [[accept]] entry (until commit 0123456) has expired: the results do not record"),
            "{error}"
        );
    }
}
