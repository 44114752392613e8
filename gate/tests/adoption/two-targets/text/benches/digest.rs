use std::hint::black_box;

use gungraun::prelude::*;

#[library_benchmark]
#[bench::b16(&[7u8; 16])]
#[bench::b256(&[7u8; 256])]
fn fnv(bytes: &[u8]) -> u32 {
    black_box(text::fnv1a(black_box(bytes)))
}

library_benchmark_group!(name = digest, benchmarks = fnv);
main!(library_benchmark_groups = digest);
