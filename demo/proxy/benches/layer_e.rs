//! Layer E costs nothing when it is off: one 512-byte frame through the pipeline the proxy
//! builds (`proxy::wire::pipeline` with `proxy::filters::chain`) and through a pipeline built
//! from codec alone with the same filters. Without the `timing` feature both count the same
//! instructions; with it the proxy's pipeline counts more (the timestamps and events).
//! `scripts/layer-e-zero-cost.sh` runs both builds and checks exactly that.
//!
//! Run: `cargo bench -p proxy --bench layer_e [--features timing]`.

use codec::filter::{Action, Chain, Filter, Packet};
use codec::pipeline::Pipeline;
use gungraun::{library_benchmark, library_benchmark_group, main};
use proxy::filters::{self, FilterKind};
use proxy::wire::{self, Sender, Wire};

/// One frame and a pipeline to run it through.
struct Case {
    pipeline: Pipeline,
    frame: Vec<u8>,
    out: Vec<u8>,
}

impl Case {
    fn new(pipeline: Pipeline) -> Box<Case> {
        let mut frame = Vec::new();
        Sender::new(Wire::default())
            .send(0x10, &proxy::load::fill(512, 0), &mut frame)
            .unwrap();
        let mut case = Box::new(Case {
            pipeline,
            frame,
            out: Vec::new(),
        });
        // Warm up: buffers reach their steady-state size outside the measurement.
        case.run();
        case
    }

    /// The measured work; its output stays in `out`, returned with the case (gungraun keeps
    /// the return value opaque to the optimiser).
    fn run(&mut self) {
        self.out.clear();
        self.pipeline.process(&self.frame, &mut self.out).unwrap();
    }
}

/// codec's own passthrough: the same body as the proxy's `pass` filter.
struct Pass;

impl Filter for Pass {
    fn filter(&mut self, _: &mut Packet<'_>) -> Action {
        Action::Pass
    }
}

fn codec_built(filters: usize) -> Box<Case> {
    let mut chain = Chain::new();
    for _ in 0..filters {
        chain.push(Pass);
    }
    Case::new(wire::pipeline(Wire::default(), Wire::default(), chain))
}

fn proxy_built(filters: usize) -> Box<Case> {
    let kinds = vec![FilterKind::Pass; filters];
    let chain = filters::chain(&kinds, "upstream");
    Case::new(wire::pipeline(Wire::default(), Wire::default(), chain))
}

// `layer_e::codec_built`: the pipeline from codec alone, 0 or 1 passthrough filters.
#[library_benchmark]
#[bench::n0(args = (0), setup = codec_built)]
#[bench::n1(args = (1), setup = codec_built)]
fn codec_pipeline(mut case: Box<Case>) -> Box<Case> {
    case.run();
    case
}

// `layer_e::proxy_built`: the pipeline as the proxy builds it, 0 or 1 `pass` filters.
#[library_benchmark]
#[bench::n0(args = (0), setup = proxy_built)]
#[bench::n1(args = (1), setup = proxy_built)]
fn proxy_pipeline(mut case: Box<Case>) -> Box<Case> {
    case.run();
    case
}

library_benchmark_group!(
    name = layer_e,
    benchmarks = [codec_pipeline, proxy_pipeline]
);

main!(library_benchmark_groups = layer_e);
