//! The load report: one run of the load tool as JSON (schema [`SCHEMA`]), keyed by the
//! [`Profile`] it ran under. Runs are only ever compared with runs of the same profile.

use std::fmt::Write as _;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::wire::Wire;

/// The version of the report's JSON layout; a change of layout changes it.
pub const SCHEMA: &str = "irload-report/1";

/// One run of the load tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// What was loaded, as the user named it (for example `direct` or `proxied`).
    pub label: String,
    /// The address loaded.
    pub target: String,
    /// The settings that make two runs comparable.
    pub profile: Profile,
    /// Packets sent in the measured window (after warm-up).
    pub sent: u64,
    /// Packets of the measured window that came back.
    pub received: u64,
    /// Packets of the whole run (warm-up included) that never came back.
    pub lost: u64,
    /// What went wrong on the load's connections, one line each; empty on a clean run.
    pub errors: Vec<String>,
    /// Echoes of the measured window per second, over that window or, when echoes came back
    /// late, from its start to the last echo: an overloaded target shows its real rate.
    pub packets_per_sec: f64,
    /// Payload MiB per second of those echoes (one direction).
    pub mib_per_sec: f64,
    /// Latency from each packet's intended send time to its echo's arrival.
    pub latency_us: Latency,
    /// Latency from each packet's actual send time: what the target and the network cost,
    /// without the sender's own lateness.
    pub service_us: Latency,
    /// The hostile connections of a stress run; absent for a plain load run.
    pub stress: Option<Stress>,
}

/// What a run is comparable on: two runs with different profiles are never compared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    /// Payload bytes per packet.
    pub payload_bytes: usize,
    /// Concurrent connections.
    pub connections: usize,
    /// Packets per second sent on each connection.
    pub rate_per_connection: u32,
    /// The load's framing: compression threshold (`null`: off) and encryption.
    pub wire: Wire,
    /// Seconds of warm-up, not measured.
    pub warmup_secs: u64,
    /// Seconds measured.
    pub duration_secs: u64,
    /// Whether hostile connections ran alongside the load.
    pub stress: bool,
    /// The load tool's version.
    pub tool_version: String,
    /// The machine the run was on.
    pub machine: Machine,
}

/// The machine a run was on: runs on different machines are different profiles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    /// The CPU model, from `/proc/cpuinfo` (`unknown` where there is none).
    pub cpu: String,
    /// Logical CPUs available to the process.
    pub cpus: usize,
    /// Operating system and architecture, e.g. `linux-x86_64`.
    pub os: String,
}

impl Machine {
    /// This machine.
    pub fn this() -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|info| {
                info.lines()
                    .find(|line| line.starts_with("model name"))
                    .and_then(|line| line.split_once(':'))
                    .map(|(_, name)| name.trim().to_owned())
            })
            .unwrap_or_else(|| "unknown".to_owned());
        Machine {
            cpu,
            cpus: std::thread::available_parallelism().map_or(1, usize::from),
            os: format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH),
        }
    }
}

/// A latency distribution, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Latency {
    /// Packets measured.
    pub samples: u64,
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p99_9: f64,
    /// Largest.
    pub max: f64,
}

/// The statistics of [`Latency`], by name, in the order reports list them.
pub const STATISTICS: [&str; 6] = ["mean", "p50", "p90", "p99", "p99.9", "max"];

impl Latency {
    /// The distribution of a histogram of nanoseconds (HdrHistogram keeps 3 significant
    /// digits).
    pub fn from_nanos(histogram: &Histogram<u64>) -> Latency {
        let us = |ns: f64| (ns / 1000.0 * 10.0).round() / 10.0;
        let at = |q: f64| us(histogram.value_at_quantile(q) as f64);
        if histogram.is_empty() {
            return Latency::default();
        }
        Latency {
            samples: histogram.len(),
            mean: us(histogram.mean()),
            p50: at(0.5),
            p90: at(0.9),
            p99: at(0.99),
            p99_9: at(0.999),
            max: us(histogram.max() as f64),
        }
    }

    /// The values in the order of [`STATISTICS`].
    pub fn values(&self) -> [f64; 6] {
        [
            self.mean, self.p50, self.p90, self.p99, self.p99_9, self.max,
        ]
    }
}

/// The hostile side of a stress run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stress {
    /// Each kind of attack and what became of it.
    pub attacks: Vec<AttackOutcome>,
    /// Whether a fresh connection got its packet echoed after the run: the target survived.
    pub target_up_after: bool,
}

/// The connections of one kind of attack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttackOutcome {
    /// The attack's name.
    pub attack: String,
    /// Connections that sent it.
    pub attempts: u64,
    /// Of those, how many the target closed within the allowed time.
    pub closed: u64,
    /// The longest it took the target to close one, in milliseconds.
    pub max_close_ms: u64,
    /// Why the attack did not run, when it did not (`attempts` is then 0).
    pub skipped: Option<String>,
}

impl Report {
    /// Whether the run was clean: nothing lost, no errors, and for a stress run every attack
    /// connection closed by the target and the target still up.
    pub fn passed(&self) -> bool {
        let stress_ok = self.stress.as_ref().is_none_or(|stress| {
            stress.target_up_after
                && stress
                    .attacks
                    .iter()
                    .all(|a| a.closed == a.attempts && (a.attempts > 0 || a.skipped.is_some()))
        });
        self.lost == 0 && self.errors.is_empty() && self.received == self.sent && stress_ok
    }

    /// A plain-text summary of the run.
    pub fn to_text(&self) -> String {
        let p = &self.profile;
        let mut s = String::new();
        let compression = p
            .wire
            .threshold
            .map_or("off".to_owned(), |t| format!("threshold {t}"));
        let _ = writeln!(
            s,
            "{} ({}): {} connections x {} pkt/s, {} B payload, compression {}, encryption {}, {} s (+{} s warm-up){}",
            self.label,
            self.target,
            p.connections,
            p.rate_per_connection,
            p.payload_bytes,
            compression,
            if p.wire.encrypt { "on" } else { "off" },
            p.duration_secs,
            p.warmup_secs,
            if p.stress { ", under attack" } else { "" },
        );
        let _ = writeln!(
            s,
            "sent {}, received {}, lost {}; {:.0} packets/s, {:.2} MiB/s",
            self.sent, self.received, self.lost, self.packets_per_sec, self.mib_per_sec
        );
        let _ = writeln!(
            s,
            "{:<22} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "latency (us)", "mean", "p50", "p90", "p99", "p99.9", "max"
        );
        for (name, latency) in [
            ("from intended send", &self.latency_us),
            ("from actual send", &self.service_us),
        ] {
            let v = latency.values();
            let _ = writeln!(
                s,
                "{name:<22} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
                v[0], v[1], v[2], v[3], v[4], v[5]
            );
        }
        if let Some(stress) = &self.stress {
            for a in &stress.attacks {
                match &a.skipped {
                    Some(why) => {
                        let _ = writeln!(s, "attack {:<16} skipped: {why}", a.attack);
                    }
                    None => {
                        let _ = writeln!(
                            s,
                            "attack {:<16} {}/{} connections closed by the target, slowest after {} ms",
                            a.attack, a.closed, a.attempts, a.max_close_ms
                        );
                    }
                }
            }
            let _ = writeln!(
                s,
                "target up after the attacks: {}",
                if stress.target_up_after { "yes" } else { "NO" }
            );
        }
        for error in &self.errors {
            let _ = writeln!(s, "error: {error}");
        }
        s
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A report with every field set, for tests.
    pub(crate) fn sample(label: &str, p50: f64) -> Report {
        Report {
            schema: SCHEMA.to_owned(),
            label: label.to_owned(),
            target: "127.0.0.1:25566".to_owned(),
            profile: Profile {
                payload_bytes: 256,
                connections: 2,
                rate_per_connection: 1000,
                wire: Wire {
                    threshold: Some(256),
                    encrypt: true,
                },
                warmup_secs: 2,
                duration_secs: 20,
                stress: false,
                tool_version: "0.1.0".to_owned(),
                machine: Machine {
                    cpu: "AMD EPYC".to_owned(),
                    cpus: 2,
                    os: "linux-x86_64".to_owned(),
                },
            },
            sent: 40000,
            received: 40000,
            lost: 0,
            errors: vec![],
            packets_per_sec: 2000.0,
            mib_per_sec: 0.488,
            latency_us: Latency {
                samples: 40000,
                mean: p50 + 10.0,
                p50,
                p90: p50 + 20.0,
                p99: p50 + 100.0,
                p99_9: p50 + 500.0,
                max: p50 + 1000.0,
            },
            service_us: Latency::default(),
            stress: None,
        }
    }

    /// The JSON layout is frozen: a change here is a change of [`SCHEMA`].
    #[test]
    fn json_layout_is_frozen() {
        let json = serde_json::to_value(sample("proxied", 50.0)).unwrap();
        let expected = serde_json::json!({
            "schema": "irload-report/1",
            "label": "proxied",
            "target": "127.0.0.1:25566",
            "profile": {
                "payload_bytes": 256,
                "connections": 2,
                "rate_per_connection": 1000,
                "wire": {"threshold": 256, "encrypt": true},
                "warmup_secs": 2,
                "duration_secs": 20,
                "stress": false,
                "tool_version": "0.1.0",
                "machine": {"cpu": "AMD EPYC", "cpus": 2, "os": "linux-x86_64"}
            },
            "sent": 40000,
            "received": 40000,
            "lost": 0,
            "errors": [],
            "packets_per_sec": 2000.0,
            "mib_per_sec": 0.488,
            "latency_us": {"samples": 40000, "mean": 60.0, "p50": 50.0, "p90": 70.0,
                           "p99": 150.0, "p99_9": 550.0, "max": 1050.0},
            "service_us": {"samples": 0, "mean": 0.0, "p50": 0.0, "p90": 0.0,
                           "p99": 0.0, "p99_9": 0.0, "max": 0.0},
            "stress": null
        });
        assert_eq!(json, expected);
        let back: Report = serde_json::from_value(json).unwrap();
        assert_eq!(back, sample("proxied", 50.0));
    }

    #[test]
    fn stress_section_layout_is_frozen() {
        let stress = Stress {
            attacks: vec![AttackOutcome {
                attack: "half-frame".to_owned(),
                attempts: 3,
                closed: 3,
                max_close_ms: 2001,
                skipped: None,
            }],
            target_up_after: true,
        };
        assert_eq!(
            serde_json::to_value(&stress).unwrap(),
            serde_json::json!({
                "attacks": [{"attack": "half-frame", "attempts": 3, "closed": 3,
                             "max_close_ms": 2001, "skipped": null}],
                "target_up_after": true
            })
        );
    }

    #[test]
    fn a_run_passes_only_when_clean() {
        let clean = sample("a", 50.0);
        assert!(clean.passed());
        let lost = Report {
            lost: 1,
            ..clean.clone()
        };
        assert!(!lost.passed());
        let mut attacked = clean.clone();
        attacked.stress = Some(Stress {
            attacks: vec![AttackOutcome {
                attack: "garbage".to_owned(),
                attempts: 4,
                closed: 3,
                max_close_ms: 10,
                skipped: None,
            }],
            target_up_after: true,
        });
        assert!(!attacked.passed(), "an attack connection was left open");
    }

    #[test]
    fn latency_comes_from_the_histogram_in_microseconds() {
        let mut histogram = Histogram::<u64>::new_with_bounds(1, 600_000_000_000, 3).unwrap();
        for us in 1..=1000u64 {
            histogram.record(us * 1000).unwrap();
        }
        let latency = Latency::from_nanos(&histogram);
        assert_eq!(latency.samples, 1000);
        // HdrHistogram keeps 3 significant digits: within 0.1%.
        let near = |got: f64, want: f64| (got - want).abs() <= want / 1000.0;
        assert!(near(latency.p50, 500.0), "{}", latency.p50);
        assert!(near(latency.p99, 990.0), "{}", latency.p99);
        assert!(near(latency.max, 1000.0), "{}", latency.max);
        assert!((latency.mean - 500.5).abs() < 1.0, "{}", latency.mean);
    }
}
