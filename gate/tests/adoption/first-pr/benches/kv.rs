use std::hint::black_box;

use gungraun::prelude::*;
use kvline::bench_api;

#[library_benchmark]
#[bench::short(b"key=value")]
#[bench::long(&[b'x'; 512])]
fn checksum(data: &[u8]) -> u32 {
    black_box(bench_api::checksum(black_box(data)))
}

#[library_benchmark]
#[bench::simple("name = irgate")]
#[bench::none("no separator here")]
fn parse(line: &str) -> usize {
    black_box(bench_api::parse(black_box(line)))
}

#[library_benchmark]
#[bench::few("one two three")]
#[bench::many("the quick brown fox jumps over the lazy dog and runs on and on")]
fn words(text: &str) -> usize {
    black_box(bench_api::words(black_box(text)))
}

#[library_benchmark]
fn kernel() -> usize {
    black_box(bench_api::os_type())
}

library_benchmark_group!(name = lines, benchmarks = [checksum, parse, words]);
library_benchmark_group!(name = system, benchmarks = kernel);
main!(library_benchmark_groups = lines, system);
