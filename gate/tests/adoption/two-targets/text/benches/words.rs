use std::hint::black_box;

use gungraun::prelude::*;

#[library_benchmark]
#[bench::short("one two three")]
#[bench::line("the quick brown fox jumps over the lazy dog")]
fn count(text: &str) -> usize {
    black_box(text::count_words(black_box(text)))
}

library_benchmark_group!(name = digest, benchmarks = count);
main!(library_benchmark_groups = digest);
