//! The callgrind suite: instruction counts of every layer of the codec, one operation per
//! benchmark. Each case is built and warmed up by a setup function and returned, boxed, by the
//! measured function, so neither setup nor teardown is counted. Cases, sweeps and names come from
//! the `benches` library (`benches::catalog()` lists them); see `benches/README.md`.
//!
//! Run: `cargo bench -p benches --bench callgrind -- --save-summary=json`.

use std::hint::black_box;

use benches::{
    CHAIN_PAYLOAD, ChainKind, ChainRun, CipherDecrypt, CipherEncrypt, FrameDecode, FrameEncode,
    Mode, PIPELINE_CHAIN_PAYLOAD, PipelineRun, varint_bytes, varint_decode, varint_encode,
};
use codec::varint::MAX_VARINT_LEN;
use gungraun::{library_benchmark, library_benchmark_group, main};

// Layer B: VarInt.

// `varint::encode`: one VarInt into a 5-byte buffer.
#[library_benchmark]
#[bench::v0(0)]
#[bench::v127(127)]
#[bench::v128(128)]
#[bench::v16383(16383)]
#[bench::v2097151(2_097_151)]
#[bench::i32max(i32::MAX)]
#[bench::neg1(-1)]
fn encode(value: i32) -> ([u8; MAX_VARINT_LEN], usize) {
    let mut buf = [0; MAX_VARINT_LEN];
    let len = varint_encode(value, &mut buf);
    (buf, len)
}

// `varint::decode`: one VarInt from a buffer.
#[library_benchmark]
#[bench::v0(varint_bytes(0))]
#[bench::v127(varint_bytes(127))]
#[bench::v128(varint_bytes(128))]
#[bench::v16383(varint_bytes(16383))]
#[bench::v2097151(varint_bytes(2_097_151))]
#[bench::i32max(varint_bytes(i32::MAX))]
#[bench::neg1(varint_bytes(-1))]
fn decode(bytes: [u8; MAX_VARINT_LEN]) -> (i32, usize) {
    black_box(varint_decode(&bytes))
}

library_benchmark_group!(name = varint, benchmarks = [encode, decode]);

// Layer B: frames.

// `frame::encode_uncompressed`: one packet into a frame.
#[library_benchmark]
#[bench::b32(args = (32), setup = frame_encode_uncompressed)]
#[bench::b128(args = (128), setup = frame_encode_uncompressed)]
#[bench::b512(args = (512), setup = frame_encode_uncompressed)]
#[bench::b2048(args = (2048), setup = frame_encode_uncompressed)]
#[bench::b4096(args = (4096), setup = frame_encode_uncompressed)]
#[bench::b16384(args = (16384), setup = frame_encode_uncompressed)]
fn encode_uncompressed(mut case: Box<FrameEncode>) -> Box<FrameEncode> {
    black_box(case.run());
    case
}

// `frame::decode_uncompressed`: one frame into a packet.
#[library_benchmark]
#[bench::b32(args = (32), setup = frame_decode_uncompressed)]
#[bench::b128(args = (128), setup = frame_decode_uncompressed)]
#[bench::b512(args = (512), setup = frame_decode_uncompressed)]
#[bench::b2048(args = (2048), setup = frame_decode_uncompressed)]
#[bench::b4096(args = (4096), setup = frame_decode_uncompressed)]
#[bench::b16384(args = (16384), setup = frame_decode_uncompressed)]
fn decode_uncompressed(mut case: Box<FrameDecode>) -> Box<FrameDecode> {
    black_box(case.run());
    case
}

// `frame::encode_compressed`: one packet into a frame, zlib at and above the threshold.
#[library_benchmark]
#[bench::b32(args = (32), setup = frame_encode_compressed)]
#[bench::b128(args = (128), setup = frame_encode_compressed)]
#[bench::b512(args = (512), setup = frame_encode_compressed)]
#[bench::b2048(args = (2048), setup = frame_encode_compressed)]
#[bench::b4096(args = (4096), setup = frame_encode_compressed)]
#[bench::b16384(args = (16384), setup = frame_encode_compressed)]
fn encode_compressed(mut case: Box<FrameEncode>) -> Box<FrameEncode> {
    black_box(case.run());
    case
}

// `frame::decode_compressed`: one frame into a packet, inflated at and above the threshold.
#[library_benchmark]
#[bench::b32(args = (32), setup = frame_decode_compressed)]
#[bench::b128(args = (128), setup = frame_decode_compressed)]
#[bench::b512(args = (512), setup = frame_decode_compressed)]
#[bench::b2048(args = (2048), setup = frame_decode_compressed)]
#[bench::b4096(args = (4096), setup = frame_decode_compressed)]
#[bench::b16384(args = (16384), setup = frame_decode_compressed)]
fn decode_compressed(mut case: Box<FrameDecode>) -> Box<FrameDecode> {
    black_box(case.run());
    case
}

fn frame_encode_uncompressed(size: usize) -> Box<FrameEncode> {
    Box::new(FrameEncode::new(Mode::Uncompressed, size))
}

fn frame_decode_uncompressed(size: usize) -> Box<FrameDecode> {
    Box::new(FrameDecode::new(Mode::Uncompressed, size))
}

fn frame_encode_compressed(size: usize) -> Box<FrameEncode> {
    Box::new(FrameEncode::new(Mode::Compressed, size))
}

fn frame_decode_compressed(size: usize) -> Box<FrameDecode> {
    Box::new(FrameDecode::new(Mode::Compressed, size))
}

library_benchmark_group!(
    name = frame,
    benchmarks = [
        encode_uncompressed,
        decode_uncompressed,
        encode_compressed,
        decode_compressed
    ]
);

// Layer B: AES-128-CFB8.

// `cipher::encrypt`: the payload, in place.
#[library_benchmark]
#[bench::b32(args = (32), setup = cipher_encrypt)]
#[bench::b128(args = (128), setup = cipher_encrypt)]
#[bench::b512(args = (512), setup = cipher_encrypt)]
#[bench::b2048(args = (2048), setup = cipher_encrypt)]
#[bench::b4096(args = (4096), setup = cipher_encrypt)]
#[bench::b16384(args = (16384), setup = cipher_encrypt)]
fn encrypt(mut case: Box<CipherEncrypt>) -> Box<CipherEncrypt> {
    case.run();
    case
}

// `cipher::decrypt`: the payload, in place.
#[library_benchmark]
#[bench::b32(args = (32), setup = cipher_decrypt)]
#[bench::b128(args = (128), setup = cipher_decrypt)]
#[bench::b512(args = (512), setup = cipher_decrypt)]
#[bench::b2048(args = (2048), setup = cipher_decrypt)]
#[bench::b4096(args = (4096), setup = cipher_decrypt)]
#[bench::b16384(args = (16384), setup = cipher_decrypt)]
fn decrypt(mut case: Box<CipherDecrypt>) -> Box<CipherDecrypt> {
    case.run();
    case
}

fn cipher_encrypt(size: usize) -> Box<CipherEncrypt> {
    Box::new(CipherEncrypt::new(size))
}

fn cipher_decrypt(size: usize) -> Box<CipherDecrypt> {
    Box::new(CipherDecrypt::new(size))
}

library_benchmark_group!(name = cipher, benchmarks = [encrypt, decrypt]);

// Layer A: the filter chain.

// `filter::passthrough`: a 256-byte packet through 0 to 8 passthrough filters.
#[library_benchmark]
#[bench::n0(args = (0), setup = chain_passthrough)]
#[bench::n1(args = (1), setup = chain_passthrough)]
#[bench::n2(args = (2), setup = chain_passthrough)]
#[bench::n4(args = (4), setup = chain_passthrough)]
#[bench::n8(args = (8), setup = chain_passthrough)]
fn passthrough(mut case: Box<ChainRun>) -> Box<ChainRun> {
    black_box(case.run());
    case
}

// `filter::scan`: one filter that reads the whole payload.
#[library_benchmark]
#[bench::b32(args = (32), setup = chain_scan)]
#[bench::b128(args = (128), setup = chain_scan)]
#[bench::b512(args = (512), setup = chain_scan)]
#[bench::b2048(args = (2048), setup = chain_scan)]
#[bench::b4096(args = (4096), setup = chain_scan)]
#[bench::b16384(args = (16384), setup = chain_scan)]
fn scan(mut case: Box<ChainRun>) -> Box<ChainRun> {
    black_box(case.run());
    case
}

// `filter::realistic`: a scan and two passthrough filters.
#[library_benchmark]
#[bench::b32(args = (32), setup = chain_realistic)]
#[bench::b128(args = (128), setup = chain_realistic)]
#[bench::b512(args = (512), setup = chain_realistic)]
#[bench::b2048(args = (2048), setup = chain_realistic)]
#[bench::b4096(args = (4096), setup = chain_realistic)]
#[bench::b16384(args = (16384), setup = chain_realistic)]
fn realistic(mut case: Box<ChainRun>) -> Box<ChainRun> {
    black_box(case.run());
    case
}

fn chain_passthrough(count: usize) -> Box<ChainRun> {
    Box::new(ChainRun::new(ChainKind::Passthrough(count), CHAIN_PAYLOAD))
}

fn chain_scan(size: usize) -> Box<ChainRun> {
    Box::new(ChainRun::new(ChainKind::Scan, size))
}

fn chain_realistic(size: usize) -> Box<ChainRun> {
    Box::new(ChainRun::new(ChainKind::Realistic, size))
}

library_benchmark_group!(name = filter, benchmarks = [passthrough, scan, realistic]);

// Layer C: the intercepted pipeline. `<mode>_<chain>` decodes, filters and re-encodes every
// packet; `forward_*` forwards the unchanged frame as it arrived (the fast path).

// `pipeline::uncompressed_empty`: decode, no filter, re-encode; uncompressed.
#[library_benchmark]
#[bench::b32(args = (32), setup = pipeline_uncompressed_empty)]
#[bench::b128(args = (128), setup = pipeline_uncompressed_empty)]
#[bench::b512(args = (512), setup = pipeline_uncompressed_empty)]
#[bench::b2048(args = (2048), setup = pipeline_uncompressed_empty)]
#[bench::b4096(args = (4096), setup = pipeline_uncompressed_empty)]
#[bench::b16384(args = (16384), setup = pipeline_uncompressed_empty)]
fn uncompressed_empty(mut case: Box<PipelineRun>) -> Box<PipelineRun> {
    black_box(case.run());
    case
}

// `pipeline::uncompressed_scan`: decode, a scan, re-encode; uncompressed.
#[library_benchmark]
#[bench::b32(args = (32), setup = pipeline_uncompressed_scan)]
#[bench::b128(args = (128), setup = pipeline_uncompressed_scan)]
#[bench::b512(args = (512), setup = pipeline_uncompressed_scan)]
#[bench::b2048(args = (2048), setup = pipeline_uncompressed_scan)]
#[bench::b4096(args = (4096), setup = pipeline_uncompressed_scan)]
#[bench::b16384(args = (16384), setup = pipeline_uncompressed_scan)]
fn uncompressed_scan(mut case: Box<PipelineRun>) -> Box<PipelineRun> {
    black_box(case.run());
    case
}

// `pipeline::uncompressed_realistic`: decode, scan + 2 passthrough, re-encode; uncompressed.
#[library_benchmark]
#[bench::b32(args = (32), setup = pipeline_uncompressed_realistic)]
#[bench::b128(args = (128), setup = pipeline_uncompressed_realistic)]
#[bench::b512(args = (512), setup = pipeline_uncompressed_realistic)]
#[bench::b2048(args = (2048), setup = pipeline_uncompressed_realistic)]
#[bench::b4096(args = (4096), setup = pipeline_uncompressed_realistic)]
#[bench::b16384(args = (16384), setup = pipeline_uncompressed_realistic)]
fn uncompressed_realistic(mut case: Box<PipelineRun>) -> Box<PipelineRun> {
    black_box(case.run());
    case
}

// `pipeline::uncompressed_passthrough`: a 512-byte packet, 0 to 8 passthrough filters, re-encode.
#[library_benchmark]
#[bench::n0(args = (0), setup = pipeline_uncompressed_passthrough)]
#[bench::n1(args = (1), setup = pipeline_uncompressed_passthrough)]
#[bench::n2(args = (2), setup = pipeline_uncompressed_passthrough)]
#[bench::n4(args = (4), setup = pipeline_uncompressed_passthrough)]
#[bench::n8(args = (8), setup = pipeline_uncompressed_passthrough)]
fn uncompressed_passthrough(mut case: Box<PipelineRun>) -> Box<PipelineRun> {
    black_box(case.run());
    case
}

// `pipeline::compressed_empty`: decode, no filter, re-encode; compressed.
#[library_benchmark]
#[bench::b32(args = (32), setup = pipeline_compressed_empty)]
#[bench::b128(args = (128), setup = pipeline_compressed_empty)]
#[bench::b512(args = (512), setup = pipeline_compressed_empty)]
#[bench::b2048(args = (2048), setup = pipeline_compressed_empty)]
#[bench::b4096(args = (4096), setup = pipeline_compressed_empty)]
#[bench::b16384(args = (16384), setup = pipeline_compressed_empty)]
fn compressed_empty(mut case: Box<PipelineRun>) -> Box<PipelineRun> {
    black_box(case.run());
    case
}

// `pipeline::compressed_scan`: decode, a scan, re-encode; compressed.
#[library_benchmark]
#[bench::b32(args = (32), setup = pipeline_compressed_scan)]
#[bench::b128(args = (128), setup = pipeline_compressed_scan)]
#[bench::b512(args = (512), setup = pipeline_compressed_scan)]
#[bench::b2048(args = (2048), setup = pipeline_compressed_scan)]
#[bench::b4096(args = (4096), setup = pipeline_compressed_scan)]
#[bench::b16384(args = (16384), setup = pipeline_compressed_scan)]
fn compressed_scan(mut case: Box<PipelineRun>) -> Box<PipelineRun> {
    black_box(case.run());
    case
}

// `pipeline::compressed_realistic`: decode, scan + 2 passthrough, re-encode; compressed.
#[library_benchmark]
#[bench::b32(args = (32), setup = pipeline_compressed_realistic)]
#[bench::b128(args = (128), setup = pipeline_compressed_realistic)]
#[bench::b512(args = (512), setup = pipeline_compressed_realistic)]
#[bench::b2048(args = (2048), setup = pipeline_compressed_realistic)]
#[bench::b4096(args = (4096), setup = pipeline_compressed_realistic)]
#[bench::b16384(args = (16384), setup = pipeline_compressed_realistic)]
fn compressed_realistic(mut case: Box<PipelineRun>) -> Box<PipelineRun> {
    black_box(case.run());
    case
}

// `pipeline::forward_uncompressed`: decode, no filter, forward the frame as it arrived; uncompressed.
#[library_benchmark]
#[bench::b32(args = (32), setup = pipeline_forward_uncompressed)]
#[bench::b128(args = (128), setup = pipeline_forward_uncompressed)]
#[bench::b512(args = (512), setup = pipeline_forward_uncompressed)]
#[bench::b2048(args = (2048), setup = pipeline_forward_uncompressed)]
#[bench::b4096(args = (4096), setup = pipeline_forward_uncompressed)]
#[bench::b16384(args = (16384), setup = pipeline_forward_uncompressed)]
fn forward_uncompressed(mut case: Box<PipelineRun>) -> Box<PipelineRun> {
    black_box(case.run());
    case
}

// `pipeline::forward_compressed`: decode, no filter, forward the frame as it arrived; compressed.
#[library_benchmark]
#[bench::b32(args = (32), setup = pipeline_forward_compressed)]
#[bench::b128(args = (128), setup = pipeline_forward_compressed)]
#[bench::b512(args = (512), setup = pipeline_forward_compressed)]
#[bench::b2048(args = (2048), setup = pipeline_forward_compressed)]
#[bench::b4096(args = (4096), setup = pipeline_forward_compressed)]
#[bench::b16384(args = (16384), setup = pipeline_forward_compressed)]
fn forward_compressed(mut case: Box<PipelineRun>) -> Box<PipelineRun> {
    black_box(case.run());
    case
}

// `pipeline::forward_uncompressed_realistic`: decode, scan + 2 passthrough, forward the frame as it arrived; uncompressed.
#[library_benchmark]
#[bench::b32(args = (32), setup = pipeline_forward_uncompressed_realistic)]
#[bench::b128(args = (128), setup = pipeline_forward_uncompressed_realistic)]
#[bench::b512(args = (512), setup = pipeline_forward_uncompressed_realistic)]
#[bench::b2048(args = (2048), setup = pipeline_forward_uncompressed_realistic)]
#[bench::b4096(args = (4096), setup = pipeline_forward_uncompressed_realistic)]
#[bench::b16384(args = (16384), setup = pipeline_forward_uncompressed_realistic)]
fn forward_uncompressed_realistic(mut case: Box<PipelineRun>) -> Box<PipelineRun> {
    black_box(case.run());
    case
}

// `pipeline::forward_compressed_realistic`: decode, scan + 2 passthrough, forward the frame as it arrived; compressed.
#[library_benchmark]
#[bench::b32(args = (32), setup = pipeline_forward_compressed_realistic)]
#[bench::b128(args = (128), setup = pipeline_forward_compressed_realistic)]
#[bench::b512(args = (512), setup = pipeline_forward_compressed_realistic)]
#[bench::b2048(args = (2048), setup = pipeline_forward_compressed_realistic)]
#[bench::b4096(args = (4096), setup = pipeline_forward_compressed_realistic)]
#[bench::b16384(args = (16384), setup = pipeline_forward_compressed_realistic)]
fn forward_compressed_realistic(mut case: Box<PipelineRun>) -> Box<PipelineRun> {
    black_box(case.run());
    case
}

fn pipeline_uncompressed_empty(size: usize) -> Box<PipelineRun> {
    Box::new(PipelineRun::reencode(
        Mode::Uncompressed,
        ChainKind::Empty,
        size,
    ))
}

fn pipeline_uncompressed_scan(size: usize) -> Box<PipelineRun> {
    Box::new(PipelineRun::reencode(
        Mode::Uncompressed,
        ChainKind::Scan,
        size,
    ))
}

fn pipeline_uncompressed_realistic(size: usize) -> Box<PipelineRun> {
    Box::new(PipelineRun::reencode(
        Mode::Uncompressed,
        ChainKind::Realistic,
        size,
    ))
}

fn pipeline_uncompressed_passthrough(count: usize) -> Box<PipelineRun> {
    Box::new(PipelineRun::reencode(
        Mode::Uncompressed,
        ChainKind::Passthrough(count),
        PIPELINE_CHAIN_PAYLOAD,
    ))
}

fn pipeline_compressed_empty(size: usize) -> Box<PipelineRun> {
    Box::new(PipelineRun::reencode(
        Mode::Compressed,
        ChainKind::Empty,
        size,
    ))
}

fn pipeline_compressed_scan(size: usize) -> Box<PipelineRun> {
    Box::new(PipelineRun::reencode(
        Mode::Compressed,
        ChainKind::Scan,
        size,
    ))
}

fn pipeline_compressed_realistic(size: usize) -> Box<PipelineRun> {
    Box::new(PipelineRun::reencode(
        Mode::Compressed,
        ChainKind::Realistic,
        size,
    ))
}

fn pipeline_forward_uncompressed(size: usize) -> Box<PipelineRun> {
    Box::new(PipelineRun::forward(
        Mode::Uncompressed,
        ChainKind::Empty,
        size,
    ))
}

fn pipeline_forward_compressed(size: usize) -> Box<PipelineRun> {
    Box::new(PipelineRun::forward(
        Mode::Compressed,
        ChainKind::Empty,
        size,
    ))
}

fn pipeline_forward_uncompressed_realistic(size: usize) -> Box<PipelineRun> {
    Box::new(PipelineRun::forward(
        Mode::Uncompressed,
        ChainKind::Realistic,
        size,
    ))
}

fn pipeline_forward_compressed_realistic(size: usize) -> Box<PipelineRun> {
    Box::new(PipelineRun::forward(
        Mode::Compressed,
        ChainKind::Realistic,
        size,
    ))
}

library_benchmark_group!(
    name = pipeline,
    benchmarks = [
        uncompressed_empty,
        uncompressed_scan,
        uncompressed_realistic,
        uncompressed_passthrough,
        compressed_empty,
        compressed_scan,
        compressed_realistic,
        forward_uncompressed,
        forward_compressed,
        forward_uncompressed_realistic,
        forward_compressed_realistic,
    ]
);

main!(
    library_benchmark_groups = varint,
    frame,
    cipher,
    filter,
    pipeline
);
