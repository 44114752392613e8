use gungraun::prelude::*;

#[binary_benchmark]
#[bench::small("100")]
#[bench::large("1000")]
fn tool(limit: &str) -> gungraun::Command {
    gungraun::Command::new(env!("CARGO_BIN_EXE_tool"))
        .arg(limit)
        .build()
}

binary_benchmark_group!(name = cli, benchmarks = [tool]);
main!(binary_benchmark_groups = cli);
