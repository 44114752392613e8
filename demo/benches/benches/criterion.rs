//! Wall-clock benchmarks (criterion) of every case of the callgrind suite, under the same names:
//! criterion's ids are the gate's, `frame::encode_compressed/b512` (group
//! `frame::encode_compressed`, parameter `b512`), so a filter selects the same benchmarks in both
//! suites, and `irgate noise` pairs them by id.
//!
//! ```sh
//! cargo bench -p benches --bench criterion                        # everything, HTML report
//! cargo bench -p benches --bench criterion -- 'pipeline::.*/b512'  # a regex over the ids
//! cargo criterion -p benches --bench criterion                    # via cargo-criterion
//! ```
//!
//! Warm-up and measurement take 0.5 s and 1 s per benchmark instead of criterion's 3 s and 5 s,
//! so that the whole suite runs in about four minutes; `--warm-up-time`, `--measurement-time` and
//! `--sample-size` override them as usual.

use std::time::{Duration, Instant};

use benches::{BENCHMARKS, Case, SIZES, Sweep, size_id};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// Every benchmark of the catalog: one criterion group per `<group>::<function>`, one benchmark
/// per point of its sweep. Size sweeps also report throughput (payload bytes per second).
fn suite(c: &mut Criterion) {
    for (group, function, sweep) in BENCHMARKS {
        let name = format!("{group}::{function}");
        let mut bench_group = c.benchmark_group(&name);
        for id in sweep.ids() {
            if sweep == Sweep::Sizes
                && let Some(size) = SIZES.into_iter().find(|&size| size_id(size) == id)
            {
                bench_group.throughput(Throughput::Bytes(size as u64));
            }
            let mut case = Case::build(&format!("{name}/{id}"))
                .unwrap_or_else(|| panic!("{name}/{id} is in the catalog but builds no case"));
            // `Case::run` dispatches on the kind of case once per batch of iterations.
            bench_group.bench_function(BenchmarkId::from_parameter(&id), |b| {
                b.iter_custom(|iterations| {
                    let start = Instant::now();
                    case.run(iterations);
                    start.elapsed()
                })
            });
        }
        bench_group.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
}

criterion_group!(name = wall_clock; config = config(); targets = suite);
criterion_main!(wall_clock);
