//! The callgrind suite declares exactly the benchmarks of `benches::catalog()`, under the same
//! names: gungraun needs its ids spelled out as attributes, so this test keeps the two in step.
//! The names come from the suite itself: its bench binary's `--list` (answered by
//! gungraun-runner, as `cargo bench` runs it, without running any benchmark).

use std::collections::BTreeSet;
use std::process::Command;

/// `<group>::<function>/<id>` for every benchmark `--list` prints
/// (`callgrind::<group>::<function>::<id>: benchmark`).
fn listed_names(listing: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in listing.lines() {
        let Some(path) = line.strip_suffix(": benchmark") else {
            continue;
        };
        let parts: Vec<&str> = path.split("::").collect();
        let [_, group, function, id] = parts[..] else {
            panic!("not `file::group::function::id`: {line}");
        };
        assert!(
            names.insert(format!("{group}::{function}/{id}")),
            "{line} is listed twice"
        );
    }
    names
}

/// The suite's own list: `cargo bench --bench callgrind -- --list`, built with the dev profile
/// (the tests' build has compiled its dependencies already).
fn suite_listing() -> String {
    let output = Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "bench",
            "--quiet",
            "--profile",
            "dev",
            "--bench",
            "callgrind",
            "--",
            "--list",
        ])
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "`cargo bench --bench callgrind -- --list` failed (is gungraun-runner installed?): {stderr}"
    );
    String::from_utf8(output.stdout).expect("the listing is UTF-8")
}

#[test]
fn callgrind_suite_matches_the_catalog() {
    let listing = suite_listing();
    let listed = listed_names(&listing);
    let catalog: BTreeSet<String> = benches::catalog().into_iter().collect();
    let missing: Vec<_> = catalog.difference(&listed).collect();
    let extra: Vec<_> = listed.difference(&catalog).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:?}, not in catalog {extra:?}"
    );
    assert_eq!(listed.len(), 132);
    assert!(
        listing.contains(&format!("\n0 tests, {} benchmarks", listed.len())),
        "the runner's count agrees: {listing}"
    );
}

#[test]
fn listing_parser_sees_groups_functions_and_ids() {
    let listing = "callgrind::frame::encode::b32: benchmark\n\
                   callgrind::frame::encode::b64: benchmark\n\
                   \n\
                   0 tests, 2 benchmarks\n";
    let names: Vec<String> = listed_names(listing).into_iter().collect();
    assert_eq!(names, ["frame::encode/b32", "frame::encode/b64"]);
}
