use std::hint::black_box;

use iai_callgrind::{library_benchmark, library_benchmark_group, main};

#[library_benchmark]
#[bench::card(b"7992739871")]
#[bench::long(b"4539 1488 0343 6467")]
fn luhn(digits: &[u8]) -> u8 {
    black_box(checks::luhn(black_box(digits)))
}

#[library_benchmark]
#[bench::b64(&[3u8; 64])]
fn adler(bytes: &[u8]) -> u32 {
    black_box(checks::adler32(black_box(bytes)))
}

library_benchmark_group!(name = card; benchmarks = luhn);
library_benchmark_group!(name = sums; benchmarks = adler);
main!(library_benchmark_groups = card, sums);
