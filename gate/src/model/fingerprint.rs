//! Comparing two environments' fingerprints: which fields must match for counts to compare, and
//! which differ.

use super::{FieldMismatch, Fingerprint};

/// The fields that must be equal between a baseline and a run.
pub const MUST_MATCH: &[&str] = &[
    "rustc",
    "rustc_commit",
    "target",
    "valgrind",
    "library",
    "glibc",
    "glibc_tunables",
    "cpu",
    "cpu_flags",
    "aslr",
    "build",
];

/// The fields that must also be equal when a cache metric is gated: the measured program's
/// memory layout follows the checkout path and the environment it runs in.
pub const MUST_MATCH_FOR_CACHE_METRICS: &[&str] = &["environment", "workspace_root"];

/// The fields of a fingerprint with their values as text, in declaration order.
pub fn fields(fingerprint: &Fingerprint) -> Vec<(&'static str, String)> {
    let Fingerprint {
        rustc,
        rustc_commit,
        target,
        valgrind,
        library,
        glibc,
        glibc_tunables,
        cpu,
        cpu_flags,
        host_cpu,
        aslr,
        build,
        environment,
        workspace_root,
        commit,
        date,
    } = fingerprint;
    vec![
        ("rustc", rustc.clone()),
        ("rustc_commit", rustc_commit.clone()),
        ("target", target.clone()),
        ("valgrind", valgrind.clone()),
        ("library", library.clone()),
        ("glibc", glibc.clone()),
        ("glibc_tunables", glibc_tunables.clone()),
        ("cpu", cpu.clone()),
        ("cpu_flags", cpu_flags.join(" ")),
        ("host_cpu", host_cpu.clone()),
        ("aslr", aslr.clone()),
        ("build", build.clone()),
        ("environment", environment.clone()),
        ("workspace_root", workspace_root.clone()),
        ("commit", commit.clone()),
        ("date", date.clone()),
    ]
}

/// Whether a differing `field` makes two sets of counts incomparable.
pub fn must_match(field: &str) -> bool {
    MUST_MATCH.contains(&field)
}

/// The must-match fields where `current` differs from `baseline`.
pub fn mismatches(baseline: &Fingerprint, current: &Fingerprint) -> Vec<FieldMismatch> {
    differences(baseline, current, must_match)
}

/// The fields a gated cache metric also needs equal, where `current` differs from `baseline`.
pub fn cache_mismatches(baseline: &Fingerprint, current: &Fingerprint) -> Vec<FieldMismatch> {
    differences(baseline, current, |field| {
        MUST_MATCH_FOR_CACHE_METRICS.contains(&field)
    })
}

fn differences(
    baseline: &Fingerprint,
    current: &Fingerprint,
    compared: impl Fn(&str) -> bool,
) -> Vec<FieldMismatch> {
    fields(baseline)
        .into_iter()
        .zip(fields(current))
        .filter(|((field, old), (_, new))| compared(field) && old != new)
        .map(|((field, old), (_, new))| FieldMismatch {
            field: field.to_owned(),
            baseline: old,
            current: new,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Fingerprint {
        Fingerprint {
            rustc: "1.95.0".into(),
            valgrind: "valgrind-3.24.0".into(),
            cpu_flags: vec!["avx2".into(), "erms".into()],
            commit: "abc".into(),
            ..Fingerprint::default()
        }
    }

    #[test]
    fn mismatches_name_must_match_fields_only() {
        let baseline = sample();
        let mut current = sample();
        current.valgrind = "valgrind-3.19.0".into();
        current.cpu_flags.push("fsrm".into());
        current.commit = "def".into();
        current.host_cpu = "another".into();
        let found = mismatches(&baseline, &current);
        let names: Vec<_> = found.iter().map(|m| m.field.as_str()).collect();
        assert_eq!(names, ["valgrind", "cpu_flags"]);
        assert_eq!(found[0].baseline, "valgrind-3.24.0");
        assert_eq!(found[0].current, "valgrind-3.19.0");
        assert_eq!(found[1].current, "avx2 erms fsrm");
    }

    #[test]
    fn every_must_match_field_exists() {
        let names: Vec<_> = fields(&sample()).into_iter().map(|(n, _)| n).collect();
        for field in MUST_MATCH {
            assert!(names.contains(field), "{field}");
        }
    }
}
