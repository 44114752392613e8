//! A load-test comparison as its own section of the pull-request comment, within a size.

use std::fmt::Write as _;

use crate::formats::load::{LoadComparison, LoadRow};
use crate::text::markdown::code;
use crate::text::plural;

/// The comment section in at most `max` bytes: its own heading, the profile, and one row per
/// statistic. What does not fit (profile entries, then rows, from the end) is left out with a line
/// saying how much and why; when not even that fits, nothing (the caller says so).
pub fn markdown(comparison: &LoadComparison, max: usize) -> String {
    let profile: Vec<String> = comparison
        .profile
        .iter()
        .map(|(key, value)| code(&format!("{key}={value}")))
        .collect();
    let rows: Vec<String> = comparison.rows.iter().map(row).collect();
    let full = section(comparison, &profile, &rows, None);
    if full.len() <= max {
        return full;
    }
    // The note is longest when it counts everything left out: reserve that much.
    let reserve = omitted(profile.len(), rows.len()).len();
    let frame = section(comparison, &[], &[], None).len() + reserve;
    if frame > max {
        return String::new();
    }
    let mut used = frame;
    let kept_rows = fitting(&rows, &mut used, max);
    let kept_profile = fitting(&profile, &mut used, max);
    let note = omitted(profile.len() - kept_profile, rows.len() - kept_rows);
    section(
        comparison,
        &profile[..kept_profile],
        &rows[..kept_rows],
        Some(&note),
    )
}

/// How many of `items` (each with a separator) fit after `used` bytes within `max`; adds theirs.
fn fitting(items: &[String], used: &mut usize, max: usize) -> usize {
    let mut kept = 0;
    for item in items {
        if *used + item.len() + 2 > max {
            break;
        }
        *used += item.len() + 2;
        kept += 1;
    }
    kept
}

/// The line saying what was left out of the section, and why.
fn omitted(profile: usize, rows: usize) -> String {
    format!(
        "*Left out of this load comparison to stay within GitHub's size limit: {} and {}; the \
         file given to `irgate comment --load` holds them all.*\n",
        plural(profile, "profile field"),
        plural(rows, "statistic")
    )
}

/// The section with the `profile` entries and table `rows` given, and a `note` under the table.
fn section(
    comparison: &LoadComparison,
    profile: &[String],
    rows: &[String],
    note: Option<&str>,
) -> String {
    let mut out = String::from("### Load test (informational, never gated)\n\n");
    let _ = writeln!(out, "Profile: {}.\n", profile.join(", "));
    let _ = writeln!(
        out,
        "{} ({} runs) against {} ({} runs): latency from each packet's intended send time, median \
         over runs; *distinguishable* when a two-sided exact Mann-Whitney U test over the per-run \
         values gives p < {}. Runs of another profile are never compared.\n",
        code(&comparison.new_label),
        comparison.new_runs,
        code(&comparison.base_label),
        comparison.base_runs,
        comparison.alpha
    );
    out.push_str(
        "| latency (µs) | base | new | delta | p | verdict |\n|:--|--:|--:|--:|--:|:--|\n",
    );
    for row in rows {
        out.push_str(row);
    }
    if let Some(note) = note {
        let _ = write!(out, "\n{note}");
    }
    let _ = writeln!(
        out,
        "\nThroughput: {:.0} packets/s (base) and {:.0} packets/s (new).",
        comparison.packets_per_sec.0, comparison.packets_per_sec.1
    );
    out
}

/// One table row.
fn row(row: &LoadRow) -> String {
    let verdict = row.verdict.text();
    format!(
        "| {} | {:.1} | {:.1} | {:+.1} | {:.3} | {verdict} |\n",
        code(&row.statistic),
        row.base_us,
        row.new_us,
        row.delta_us,
        row.p_value
    )
}
