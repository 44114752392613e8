//! Comparing load runs, honestly. Load results are informational: they are never gated on, and
//! runs are compared only when every one of them has the same [`Profile`].
//!
//! With several runs per side, each latency statistic (mean, p50, p90, p99, p99.9, max) is
//! judged on its per-run values with a two-sided exact Mann–Whitney U test. It assumes nothing
//! about how latency is distributed (tails of latency are anything but normal) and only that the
//! runs of a side are independent; a difference is called distinguishable from noise when the
//! p-value is below `alpha`. The exact test has a floor: with 3 runs per side the smallest
//! possible p-value is 0.1 (all three of one side above all three of the other), so at
//! `alpha = 0.05` it needs at least 4 runs per side (smallest p = 0.029). Fewer runs are reported
//! with their deltas and the verdict "too few runs". Ties between runs are counted as half and
//! the p-value taken conservatively.

use std::fmt::Write as _;

use irgate::formats::load::{self, LoadComparison, LoadRow, Verdict};

use crate::report::{Profile, Report, STATISTICS};

/// Why runs cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// A side has no runs.
    #[error("the {0} side has no runs")]
    Empty(&'static str),
    /// Two runs have different profiles.
    #[error(
        "runs of different profiles are never compared: {first} and {other} differ in {fields}"
    )]
    ProfileMismatch {
        /// The first run's label.
        first: String,
        /// The mismatching run's label.
        other: String,
        /// The fields that differ.
        fields: String,
    },
}

/// The comparison of two sets of runs of one profile: the file irgate reads, and the profile
/// as irload knows it (for the text table).
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The profile every run shares.
    pub profile: Profile,
    /// Everything else, as `irload compare --format json` writes it.
    pub file: LoadComparison,
}

/// Compares runs of latency from the intended send time: `new` (e.g. through the proxy) against
/// `base` (e.g. the backend directly). Refuses unless every run has the same profile.
pub fn compare(base: &[Report], new: &[Report], alpha: f64) -> Result<Comparison, CompareError> {
    let first = base.first().ok_or(CompareError::Empty("base"))?;
    let new_first = new.first().ok_or(CompareError::Empty("new"))?;
    for other in base.iter().chain(new) {
        let fields = differing_fields(&first.profile, &other.profile);
        if !fields.is_empty() {
            return Err(CompareError::ProfileMismatch {
                first: first.label.clone(),
                other: other.label.clone(),
                fields: fields.join(", "),
            });
        }
    }
    let column = |runs: &[Report], i: usize| -> Vec<f64> {
        runs.iter().map(|r| r.latency_us.values()[i]).collect()
    };
    let rows = STATISTICS
        .iter()
        .enumerate()
        .map(|(i, &statistic)| {
            let (b, n) = (column(base, i), column(new, i));
            let (base_us, new_us) = (median(&b), median(&n));
            let delta_us = round1(new_us - base_us);
            let p_value = mann_whitney_p(&b, &n);
            let verdict = if min_p(b.len(), n.len()) >= alpha {
                Verdict::TooFewRuns
            } else if p_value < alpha {
                Verdict::Distinguishable
            } else {
                Verdict::WithinNoise
            };
            LoadRow {
                statistic: statistic.to_owned(),
                base_us,
                new_us,
                delta_us,
                delta_pct: (base_us != 0.0).then(|| round1(delta_us / base_us * 100.0)),
                p_value: (p_value * 1000.0).round() / 1000.0,
                verdict,
            }
        })
        .collect();
    let throughput =
        |runs: &[Report]| median(&runs.iter().map(|r| r.packets_per_sec).collect::<Vec<_>>());
    let profile = match serde_json::to_value(&first.profile) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => unreachable!("a profile serializes as an object"),
    };
    Ok(Comparison {
        profile: first.profile.clone(),
        file: LoadComparison {
            schema_version: load::SCHEMA_VERSION,
            profile,
            base_label: first.label.clone(),
            new_label: new_first.label.clone(),
            base_runs: base.len(),
            new_runs: new.len(),
            alpha,
            packets_per_sec: (throughput(base), throughput(new)),
            rows,
        },
    })
}

/// The names of the profile fields in which `a` and `b` differ.
fn differing_fields(a: &Profile, b: &Profile) -> Vec<&'static str> {
    let checks = [
        ("payload", a.payload_bytes != b.payload_bytes),
        ("connections", a.connections != b.connections),
        ("rate", a.rate_per_connection != b.rate_per_connection),
        ("compression", a.wire.threshold != b.wire.threshold),
        ("encryption", a.wire.encrypt != b.wire.encrypt),
        ("warm-up", a.warmup_secs != b.warmup_secs),
        ("duration", a.duration_secs != b.duration_secs),
        ("stress", a.stress != b.stress),
        ("tool version", a.tool_version != b.tool_version),
        ("machine", a.machine != b.machine),
    ];
    checks
        .into_iter()
        .filter(|&(_, differs)| differs)
        .map(|(name, _)| name)
        .collect()
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The median of `values` (not empty).
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        round1((sorted[mid - 1] + sorted[mid]) / 2.0)
    }
}

/// The number of arrangements of `n` and `m` values giving each U from 0 to `n * m`, under the
/// null hypothesis that all `C(n + m, n)` orderings are equally likely.
fn u_counts(n: usize, m: usize) -> Vec<f64> {
    // counts[j][u] for the current i: arrangements of i values from the first side and j from
    // the second with statistic u. Recurrence on who holds the largest value.
    let mut prev: Vec<Vec<f64>> = (0..=m).map(|_| vec![1.0]).collect();
    for i in 1..=n {
        let mut cur: Vec<Vec<f64>> = Vec::with_capacity(m + 1);
        cur.push(vec![1.0]);
        for j in 1..=m {
            // The largest is from the first side: it beats all j of the second side.
            let mut counts = vec![0.0; i * j + 1];
            for (u, c) in prev[j].iter().enumerate() {
                counts[u + j] += c;
            }
            // The largest is from the second side: it beats none of the first.
            for (u, c) in cur[j - 1].iter().enumerate() {
                counts[u] += c;
            }
            cur.push(counts);
        }
        prev = cur;
    }
    prev.swap_remove(m)
}

/// The two-sided exact Mann–Whitney p-value of samples `a` and `b` (ties count half; the
/// p-value of a tied U is taken at the less extreme integer, so it errs towards "noise").
pub fn mann_whitney_p(a: &[f64], b: &[f64]) -> f64 {
    let u: f64 = a
        .iter()
        .map(|x| {
            b.iter()
                .map(|y| match x.total_cmp(y) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                })
                .sum::<f64>()
        })
        .sum();
    let nm = (a.len() * b.len()) as f64;
    let extreme = u.min(nm - u).ceil() as usize;
    let counts = u_counts(a.len(), b.len());
    let total: f64 = counts.iter().sum();
    let tail: f64 = counts[..=extreme].iter().sum();
    (2.0 * tail / total).min(1.0)
}

/// The smallest two-sided p-value `n` against `m` runs can give: `2 / C(n + m, n)`.
pub fn min_p(n: usize, m: usize) -> f64 {
    if n == 0 || m == 0 {
        return 1.0;
    }
    let mut choose = 1.0;
    for k in 0..n {
        choose = choose * (m + n - k) as f64 / (k + 1) as f64;
    }
    (2.0 / choose).min(1.0)
}

impl Comparison {
    fn describe(&self) -> String {
        let p = &self.profile;
        format!(
            "{} connections x {} pkt/s, {} B payload, compression {}, encryption {}, {} s, irload {}, {} ({} CPUs)",
            p.connections,
            p.rate_per_connection,
            p.payload_bytes,
            p.wire
                .threshold
                .map_or("off".to_owned(), |t| format!("threshold {t}")),
            if p.wire.encrypt { "on" } else { "off" },
            p.duration_secs,
            p.tool_version,
            p.machine.cpu,
            p.machine.cpus,
        )
    }

    fn p_text(row: &LoadRow) -> String {
        format!("{:.3}", row.p_value)
    }

    fn pct_text(row: &LoadRow) -> String {
        row.delta_pct
            .map_or("-".to_owned(), |d| format!("{d:+.1}%"))
    }

    /// A plain-text table.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "profile: {}", self.describe());
        let _ = writeln!(
            s,
            "{} ({} runs) -> {} ({} runs); latency from intended send time, medians over runs; Mann-Whitney U, alpha {}",
            self.file.base_label,
            self.file.base_runs,
            self.file.new_label,
            self.file.new_runs,
            self.file.alpha
        );
        let _ = writeln!(
            s,
            "{:<7} {:>12} {:>12} {:>10} {:>8} {:>7}  verdict",
            "us", &self.file.base_label, &self.file.new_label, "delta", "delta%", "p"
        );
        for row in &self.file.rows {
            let _ = writeln!(
                s,
                "{:<7} {:>12.1} {:>12.1} {:>+10.1} {:>8} {:>7}  {}",
                row.statistic,
                row.base_us,
                row.new_us,
                row.delta_us,
                Self::pct_text(row),
                Self::p_text(row),
                row.verdict.text()
            );
        }
        let _ = writeln!(
            s,
            "throughput: {:.0} -> {:.0} packets/s",
            self.file.packets_per_sec.0, self.file.packets_per_sec.1
        );
        s
    }

    /// A markdown section with its own heading, for a pull-request comment: informational, apart
    /// from the gated instruction counts (irgate's renderer, as the comment shows it).
    pub fn to_markdown(&self) -> String {
        irgate::render::load::markdown(&self.file, usize::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample;

    fn runs(label: &str, p50s: &[f64]) -> Vec<Report> {
        p50s.iter().map(|&p50| sample(label, p50)).collect()
    }

    #[test]
    fn exact_p_values_match_the_textbook() {
        // All four of one side above all four of the other: 2 / C(8, 4).
        assert!(
            (mann_whitney_p(&[5.0, 6.0, 7.0, 8.0], &[1.0, 2.0, 3.0, 4.0]) - 2.0 / 70.0).abs()
                < 1e-12
        );
        // U = 3 with 5 against 5: P(U <= 3) = 7 / 252, two-sided 0.0556 (R: wilcox.test, exact).
        let p = mann_whitney_p(&[1.1, 2.2, 3.3, 4.4, 5.5], &[3.0, 6.0, 7.0, 8.0, 9.0]);
        assert!((p - 14.0 / 252.0).abs() < 1e-12, "{p}");
        // Interleaved samples are no evidence at all.
        assert_eq!(mann_whitney_p(&[1.0, 3.0, 5.0], &[2.0, 4.0, 6.0]), 0.7);
        // Identical samples: every pair tied.
        assert_eq!(mann_whitney_p(&[2.0, 2.0], &[2.0, 2.0]), 1.0);
        // The distribution of U counts every ordering once.
        assert_eq!(u_counts(4, 3).iter().sum::<f64>(), 35.0);
        assert_eq!(min_p(3, 3), 0.1);
        assert!((min_p(4, 4) - 2.0 / 70.0).abs() < 1e-12);
        assert_eq!(min_p(1, 1), 1.0);
    }

    #[test]
    fn verdicts_follow_the_runs() {
        let direct = runs("direct", &[50.0, 51.0, 49.0, 50.5]);
        // Proxied clearly slower in every run.
        let slower = runs("proxied", &[70.0, 71.0, 69.0, 72.0]);
        let c = compare(&direct, &slower, 0.05).unwrap();
        let p50 = &c.file.rows[1];
        assert_eq!(p50.statistic, "p50");
        assert_eq!((p50.base_us, p50.new_us), (50.3, 70.5));
        assert_eq!(p50.delta_us, 20.2);
        assert_eq!(p50.verdict, Verdict::Distinguishable);
        // Overlapping runs: within noise.
        let same = runs("proxied", &[50.2, 49.5, 51.5, 50.0]);
        let c = compare(&direct, &same, 0.05).unwrap();
        assert!(
            c.file
                .rows
                .iter()
                .all(|r| r.verdict == Verdict::WithinNoise)
        );
        // Three runs a side can never reach p < 0.05, however far apart.
        let c = compare(&direct[..3], &slower[..3], 0.05).unwrap();
        assert!(c.file.rows.iter().all(|r| r.verdict == Verdict::TooFewRuns));
        assert_eq!(c.file.rows[1].p_value, 0.1);
        // One run a side: deltas, no judgement.
        let c = compare(&direct[..1], &slower[..1], 0.05).unwrap();
        assert_eq!(c.file.rows[1].verdict, Verdict::TooFewRuns);
    }

    #[test]
    fn different_profiles_are_refused() {
        let direct = runs("direct", &[50.0]);
        let mut other = runs("proxied", &[60.0]);
        other[0].profile.payload_bytes = 4096;
        other[0].profile.wire.encrypt = false;
        let error = compare(&direct, &other, 0.05).unwrap_err().to_string();
        assert_eq!(
            error,
            "runs of different profiles are never compared: direct and proxied differ in payload, encryption"
        );
        // Within one side too.
        let mut base = runs("direct", &[50.0, 51.0]);
        base[1].profile.machine.cpu = "Intel Xeon".to_owned();
        let error = compare(&base, &direct, 0.05).unwrap_err().to_string();
        assert!(error.ends_with("differ in machine"), "{error}");
        assert!(matches!(
            compare(&[], &direct, 0.05),
            Err(CompareError::Empty("base"))
        ));
    }

    #[test]
    fn irgate_reads_the_file_irload_writes() {
        let c = compare(&runs("direct", &[50.0]), &runs("proxied", &[60.0]), 0.05).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("compare.json");
        std::fs::write(&path, serde_json::to_string_pretty(&c.file).unwrap()).unwrap();
        let read = irgate::formats::load::read(&path).unwrap();
        assert_eq!(read, c.file);
        assert_eq!(read.profile["payload_bytes"], c.profile.payload_bytes);
    }

    #[test]
    fn markdown_has_its_own_heading_and_a_row_per_statistic() {
        let c = compare(&runs("direct", &[50.0]), &runs("proxied", &[60.0]), 0.05).unwrap();
        let md = c.to_markdown();
        assert!(
            md.starts_with("### Load test (informational, never gated)\n"),
            "{md}"
        );
        assert!(
            md.contains("| `p99.9` | 550.0 | 560.0 | +10.0 | 1.000 | too few runs |"),
            "{md}"
        );
        assert_eq!(
            md.lines().filter(|l| l.starts_with("| ")).count(),
            1 + STATISTICS.len()
        );
        let text = c.to_text();
        assert!(
            text.contains("direct (1 runs) -> proxied (1 runs)"),
            "{text}"
        );
    }
}
