//! Load-test comparisons (`irgate comment --load`): latency of two sets of runs of one profile,
//! with a statistic saying whether each difference stands out from run-to-run noise. irgate never
//! gates on them: it shows them in the pull-request comment under their own heading, apart from
//! the gated counts. The format is published as a JSON Schema, `docs/load.schema.json` (generated
//! from the types below; a test keeps it current), so any load tool can write it; this
//! repository's `irload compare --format json` (demo/proxy/README.md) does, and its tests check
//! its output against that schema. The file is untrusted data: every value is checked or rendered
//! inert.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::formats;

/// The schema version of load comparisons: 1, the first with one (files without are refused).
/// Frozen: a change to the layout below bumps it, and [`READABLE_VERSIONS`] keeps the old one.
pub const SCHEMA_VERSION: u32 = 1;

/// The schema versions irgate reads.
pub const READABLE_VERSIONS: &[u32] = &[1];

/// Where the load comparison's JSON Schema is kept, from the workspace root (a test keeps it
/// current).
pub const SCHEMA_FILE: &str = "docs/load.schema.json";

/// One comparison, as `irload compare --format json` writes it: the one definition `irload`
/// writes and irgate reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "irgate load comparison",
    description = "`irgate comment --load FILE`: two sets of load-test runs of one profile, \
                   compared statistic by statistic (`irload compare --format json` writes it). \
                   Shown in the pull-request comment, never gated."
)]
pub struct LoadComparison {
    /// The format's schema version: 1 (`SCHEMA_VERSION`).
    #[schemars(extend("const" = SCHEMA_VERSION))]
    pub schema_version: u32,
    /// The profile every run shares (payload, connections, rate, wire, tool version, machine).
    pub profile: serde_json::Map<String, serde_json::Value>,
    /// The base side's label.
    pub base_label: String,
    /// The new side's label.
    pub new_label: String,
    /// Runs on the base side.
    pub base_runs: usize,
    /// Runs on the new side.
    pub new_runs: usize,
    /// The significance level of the test.
    pub alpha: f64,
    /// Median packets per second, base then new.
    pub packets_per_sec: (f64, f64),
    /// One row per latency statistic.
    #[schemars(length(min = 1))]
    pub rows: Vec<LoadRow>,
}

/// One latency statistic, compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoadRow {
    /// `mean`, `p50`, ... `max`.
    pub statistic: String,
    /// Median over the base runs, in microseconds.
    pub base_us: f64,
    /// Median over the new runs, in microseconds.
    pub new_us: f64,
    /// `new_us - base_us`.
    pub delta_us: f64,
    /// The delta relative to `base_us`, in percent (`null` when `base_us` is 0).
    pub delta_pct: Option<f64>,
    /// The two-sided exact Mann-Whitney U p-value over the per-run values.
    pub p_value: f64,
    /// Whether the difference stands out from run-to-run noise.
    pub verdict: Verdict,
}

/// Whether a difference stands out from run-to-run noise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// p < alpha.
    Distinguishable,
    /// p >= alpha although p could have gone below it with this many runs.
    WithinNoise,
    /// With this many runs no outcome could reach p < alpha.
    TooFewRuns,
}

impl Verdict {
    /// How reports say it.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Distinguishable => "distinguishable",
            Verdict::WithinNoise => "within noise",
            Verdict::TooFewRuns => "too few runs",
        }
    }
}

/// The JSON Schema of the load comparison this irgate reads, pretty, with a final newline.
pub fn schema() -> String {
    let mut text = serde_json::to_string_pretty(&schemars::schema_for!(LoadComparison))
        .expect("a schema serializes");
    text.push('\n');
    text
}

/// Reads and checks a comparison file.
pub fn read(path: &Path) -> Result<LoadComparison> {
    let invalid = |message: String| Error::invalid(path.display(), message);
    let comparison: LoadComparison =
        formats::read_versions(path, "load comparison", READABLE_VERSIONS)?;
    if comparison.rows.is_empty() {
        return Err(invalid("a load comparison without rows".to_owned()));
    }
    let numbers = comparison
        .rows
        .iter()
        .flat_map(|r| [r.base_us, r.new_us, r.delta_us, r.p_value]);
    if !numbers
        .chain([
            comparison.alpha,
            comparison.packets_per_sec.0,
            comparison.packets_per_sec.1,
        ])
        .all(f64::is_finite)
    {
        return Err(invalid("a number that is not finite".to_owned()));
    }
    Ok(comparison)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::load::markdown;

    const SAMPLE: &str = r#"{
      "schema_version": 1,
      "profile": {"payload_bytes": 256, "connections": 2, "stress": false},
      "base_label": "direct", "new_label": "proxied", "base_runs": 5, "new_runs": 5,
      "alpha": 0.05, "packets_per_sec": [1000.0, 999.0],
      "rows": [{"statistic": "p50", "base_us": 80.0, "new_us": 150.5, "delta_us": 70.5,
                "delta_pct": 88.1, "p_value": 0.008, "verdict": "distinguishable"}]
    }"#;

    fn write(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("load.json");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn the_committed_json_schema_is_the_load_comparisons() {
        let committed =
            crate::formats::assert_committed_schema(SCHEMA_FILE, &schema(), "formats::load");
        let schema: serde_json::Value = serde_json::from_str(&committed).unwrap();
        assert_eq!(
            schema["properties"]["schema_version"]["const"],
            SCHEMA_VERSION
        );
    }

    /// Version 1's layout, frozen: a change here is a new [`SCHEMA_VERSION`].
    #[test]
    fn the_layout_of_version_1_is_frozen() {
        let comparison: LoadComparison = serde_json::from_str(SAMPLE).unwrap();
        let written = serde_json::to_value(&comparison).unwrap();
        let frozen: serde_json::Value = serde_json::from_str(SAMPLE).unwrap();
        assert_eq!(written, frozen);
        assert_eq!(SCHEMA_VERSION, 1);
        assert_eq!(READABLE_VERSIONS, [1]);
    }

    #[test]
    fn renders_its_own_section_with_the_statistic_named() {
        let (_dir, path) = write(SAMPLE);
        let md = markdown(&read(&path).unwrap(), usize::MAX);
        assert!(
            md.starts_with("### Load test (informational, never gated)\n"),
            "{md}"
        );
        assert!(
            md.contains("| `p50` | 80.0 | 150.5 | +70.5 | 0.008 | distinguishable |"),
            "{md}"
        );
        assert!(
            md.contains("Mann-Whitney U") && md.contains("`payload_bytes=256`"),
            "{md}"
        );
    }

    #[test]
    fn a_large_comparison_keeps_what_fits_and_says_what_was_left_out() {
        let mut comparison: LoadComparison = serde_json::from_str(SAMPLE).unwrap();
        let row = comparison.rows[0].clone();
        comparison.rows = (0..2_000)
            .map(|i| LoadRow {
                statistic: format!("p{i}"),
                ..row.clone()
            })
            .collect();
        for i in 0..500 {
            comparison
                .profile
                .insert(format!("key{i}"), serde_json::json!("x".repeat(100)));
        }
        let full = markdown(&comparison, usize::MAX);
        assert!(!full.contains("Left out"), "{}", &full[..300]);
        let md = markdown(&comparison, 20_000);
        assert!(md.len() <= 20_000 && md.len() > 15_000, "{}", md.len());
        assert!(md.starts_with("### Load test (informational, never gated)\n"));
        assert!(md.contains("| `p0` | 80.0 | 150.5 | +70.5 | 0.008 | distinguishable |"));
        let shown = md.matches("| distinguishable |").count();
        let profile = md.lines().find(|l| l.starts_with("Profile: ")).unwrap();
        let shown_profile = profile.matches('`').count() / 2;
        let note = format!(
            "*Left out of this load comparison to stay within GitHub's size limit: {} profile \
             fields and {} statistics;",
            503 - shown_profile,
            2_000 - shown
        );
        assert!(md.contains(&note), "{md}");
        assert!(md.ends_with("packets/s (new).\n"), "{md}");
        assert_eq!(markdown(&comparison, 200), "");
    }

    #[test]
    fn hostile_or_malformed_files_are_refused_or_inert() {
        let hostile = SAMPLE.replace("\"proxied\"", "\"</details>@admin <img src=x>\"");
        let (_dir, path) = write(&hostile);
        let md = markdown(&read(&path).unwrap(), usize::MAX);
        // Inside a code span HTML and mentions are text: the label appears only there.
        assert!(md.contains("`</details>@admin <img src=x>`"), "{md}");
        assert_eq!(md.matches("<img").count(), 1, "{md}");
        for (text, message) in [
            (
                SAMPLE.replace("distinguishable", "gated"),
                "unknown variant",
            ),
            (SAMPLE.replace("0.008", "1e999"), "number out of range"),
            ("{}".to_owned(), "not an irgate load comparison file"),
            (
                SAMPLE.replace("\"schema_version\": 1", "\"schema_version\": 9"),
                "unsupported schema_version 9",
            ),
        ] {
            let (_dir, path) = write(&text);
            let error = read(&path).unwrap_err().to_string();
            assert!(error.contains(message), "{error}");
        }
    }
}
