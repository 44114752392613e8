//! What `irgate check` costs over 200 stored benchmarks: reading the files, comparing, rendering.
//! `cargo bench -p irgate --bench check`.

use std::collections::BTreeMap;
use std::path::Path;

use irgate::config::Config;
use irgate::formats::baseline::{self, Baselines, Selection};
use irgate::formats::results;
use irgate::judge::compare::{self, Judgement, Policy};
use irgate::model::{Counts, Mode, Report, Results};
use irgate::render;

const BENCHMARKS: u64 = 200;

fn main() {
    divan::main();
}

/// 200 benchmarks in 10 groups, every 7th one 3% slower than its baseline.
fn fixture(dir: &Path) -> (Results, Results) {
    let counts = |ir: u64| {
        Counts::from([
            ("Ir".to_owned(), ir),
            ("EstimatedCycles".to_owned(), ir * 2),
        ])
    };
    let ids = (0..BENCHMARKS).map(|i| (format!("group{}::bench/b{i}", i % 10), 1_000 + i * 997));
    let base = Results {
        benchmarks: ids.clone().map(|(id, ir)| (id, counts(ir))).collect(),
        ..Results::default()
    };
    let new = Results {
        benchmarks: ids
            .enumerate()
            .map(|(n, (id, ir))| (id, counts(if n % 7 == 0 { ir * 103 / 100 } else { ir })))
            .collect::<BTreeMap<_, _>>(),
        ..base.clone()
    };
    let config = Config::default();
    let metrics = config.stored_metrics();
    let empty = Baselines::load(dir).unwrap();
    let updates = baseline::plan_refresh(
        &empty,
        &base,
        &Selection {
            in_scope: &|_| true,
            metrics: &metrics,
            required: &metrics,
            prune: false,
        },
    )
    .unwrap();
    baseline::write_updates(&updates).unwrap();
    results::write(&dir.join("run").join("results.json"), &new).unwrap();
    (base, new)
}

/// The judgement `irgate check` makes of `new` against `baselines`.
fn judge(new: &Results, baselines: &Baselines, config: &Config) -> Report {
    compare::judge(&Judgement {
        results: new,
        baselines,
        config,
        policy: Policy::default(),
        mode: &Mode::Baselines,
        anchor: None,
        change: None,
    })
    .unwrap()
}

#[divan::bench]
fn compare_and_render(bencher: divan::Bencher) {
    let dir = tempfile::tempdir().unwrap();
    let (_, new) = fixture(dir.path());
    let baselines = Baselines::load(dir.path()).unwrap();
    let config = Config::default();
    bencher.bench(|| {
        let report = judge(&new, &baselines, &config);
        render::table::render(&report, true)
    });
}

#[divan::bench]
fn read_compare_and_render(bencher: divan::Bencher) {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let config = Config::default();
    bencher.bench(|| {
        let new = results::read(&dir.path().join("run").join("results.json")).unwrap();
        let baselines = Baselines::load_nonempty(dir.path()).unwrap();
        let report = judge(&new, &baselines, &config);
        render::table::render(&report, true)
    });
}
