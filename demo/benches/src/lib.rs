//! The benchmark cases, shared by the callgrind suite (`benches/callgrind.rs`) and the wall-clock
//! suites: the one place that defines case names, sweeps, the payload and the setups.
//!
//! A benchmark is named `<group>::<function>/<id>`, for example `frame::encode_compressed/b512`:
//! the group is the layer, the function the operation, the id the point of the sweep ([`size_id`],
//! [`filters_id`], [`VARINTS`]). [`catalog`] lists every name.
//!
//! Each case owns its state (encoder, decoder, chain, pipeline, buffers), is warmed up once when it
//! is built (buffers grown, CPU features detected), and then does exactly one operation per
//! [`run`](FrameEncode::run) call, as a proxy does in steady state. Setup and teardown stay
//! outside `run`.

use std::hint::black_box;

use codec::cipher::{Decryptor, Encryptor};
use codec::compression::Compression;
use codec::filter::{Action, Chain, Filter, Packet};
use codec::frame::{FrameDecoder, FrameEncoder};
use codec::pipeline::Pipeline;
use codec::varint::{MAX_VARINT_LEN, decode_varint, encode_varint};

/// Payload sizes of the frame, cipher, scan and pipeline sweeps, in bytes.
pub const SIZES: [usize; 6] = [32, 128, 512, 2048, 4096, 16384];
/// Numbers of passthrough filters in the chain sweep.
pub const FILTER_COUNTS: [usize; 5] = [0, 1, 2, 4, 8];
/// Payload size of the filter group's passthrough sweep.
pub const CHAIN_PAYLOAD: usize = 256;
/// Payload size of the pipeline group's passthrough sweep.
pub const PIPELINE_CHAIN_PAYLOAD: usize = 512;
/// Compression threshold of every compressed case (Infrarust's default).
pub const THRESHOLD: usize = 256;
/// The packet id of every framed case (one VarInt byte).
pub const PACKET_ID: i32 = 0x2a;
/// The AES-128 key and IV of the cipher cases (Minecraft uses the shared secret as both).
pub const SECRET: [u8; 16] = *b"irgate-bench-key";

/// The VarInt values, with their ids.
pub const VARINTS: [(&str, i32); 7] = [
    ("v0", 0),
    ("v127", 127),
    ("v128", 128),
    ("v16383", 16383),
    ("v2097151", 2_097_151),
    ("i32max", i32::MAX),
    ("neg1", -1),
];

/// The id of a point of a size sweep: `b` and the size in bytes, e.g. `b512`.
pub fn size_id(size: usize) -> String {
    format!("b{size}")
}

/// The id of a point of the filter-count sweep: `n` and the count, e.g. `n4`.
pub fn filters_id(count: usize) -> String {
    format!("n{count}")
}

/// How a benchmark's ids are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sweep {
    /// [`VARINTS`].
    VarInts,
    /// [`SIZES`], ids from [`size_id`].
    Sizes,
    /// [`FILTER_COUNTS`], ids from [`filters_id`].
    FilterCounts,
}

impl Sweep {
    /// The ids of this sweep, in order.
    pub fn ids(self) -> Vec<String> {
        match self {
            Sweep::VarInts => VARINTS.iter().map(|(id, _)| id.to_string()).collect(),
            Sweep::Sizes => SIZES.iter().map(|&size| size_id(size)).collect(),
            Sweep::FilterCounts => FILTER_COUNTS.iter().map(|&n| filters_id(n)).collect(),
        }
    }
}

/// Every benchmark function as (group, function, sweep), grouped by layer: B (varint, frame,
/// cipher), A (filter), C (pipeline).
pub const BENCHMARKS: [(&str, &str, Sweep); 22] = [
    ("varint", "encode", Sweep::VarInts),
    ("varint", "decode", Sweep::VarInts),
    ("frame", "encode_uncompressed", Sweep::Sizes),
    ("frame", "decode_uncompressed", Sweep::Sizes),
    ("frame", "encode_compressed", Sweep::Sizes),
    ("frame", "decode_compressed", Sweep::Sizes),
    ("cipher", "encrypt", Sweep::Sizes),
    ("cipher", "decrypt", Sweep::Sizes),
    ("filter", "passthrough", Sweep::FilterCounts),
    ("filter", "scan", Sweep::Sizes),
    ("filter", "realistic", Sweep::Sizes),
    ("pipeline", "uncompressed_empty", Sweep::Sizes),
    ("pipeline", "uncompressed_scan", Sweep::Sizes),
    ("pipeline", "uncompressed_realistic", Sweep::Sizes),
    ("pipeline", "uncompressed_passthrough", Sweep::FilterCounts),
    ("pipeline", "compressed_empty", Sweep::Sizes),
    ("pipeline", "compressed_scan", Sweep::Sizes),
    ("pipeline", "compressed_realistic", Sweep::Sizes),
    ("pipeline", "forward_uncompressed", Sweep::Sizes),
    ("pipeline", "forward_compressed", Sweep::Sizes),
    ("pipeline", "forward_uncompressed_realistic", Sweep::Sizes),
    ("pipeline", "forward_compressed_realistic", Sweep::Sizes),
];

/// Every benchmark name, `<group>::<function>/<id>`, in suite order.
pub fn catalog() -> Vec<String> {
    BENCHMARKS
        .iter()
        .flat_map(|&(group, function, sweep)| {
            sweep
                .ids()
                .into_iter()
                .map(move |id| format!("{group}::{function}/{id}"))
        })
        .collect()
}

/// The payload of `size` bytes: the LCG `state = 0x9E3779B9 ^ size; state = state * 1664525 +
/// 1013904223; byte = state >> 24` (wrapping `u32`), the same bytes Infrarust's benchmarks use.
/// It is hard to compress, so compressed cases do real work.
pub fn payload(size: usize) -> Vec<u8> {
    let mut state = 0x9E37_79B9_u32 ^ size as u32;
    (0..size)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 24) as u8
        })
        .collect()
}

/// Whether a case's frames are compressed (threshold [`THRESHOLD`], level 4, libdeflate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// No compression.
    Uncompressed,
    /// Compression at [`THRESHOLD`].
    Compressed,
}

impl Mode {
    /// The codec's compression setting for this mode.
    pub fn compression(self) -> Option<Compression> {
        match self {
            Mode::Uncompressed => None,
            Mode::Compressed => Some(Compression::new(THRESHOLD)),
        }
    }
}

/// A filter that passes every packet untouched: the cost of dispatch alone.
pub struct Passthrough;

impl Filter for Passthrough {
    #[inline(never)]
    fn filter(&mut self, _packet: &mut Packet<'_>) -> Action {
        Action::Pass
    }
}

/// A filter that reads the whole payload and passes the packet: it counts the bytes equal to
/// [`MARKER`], standing in for a content inspector.
#[derive(Default)]
pub struct Scan {
    /// Marker bytes seen so far.
    pub hits: u64,
}

impl Filter for Scan {
    #[inline(never)]
    fn filter(&mut self, packet: &mut Packet<'_>) -> Action {
        // Per-chunk byte counters (at most 255 hits each) let the compiler count 16 bytes at a time.
        for chunk in packet.payload().chunks(255) {
            let hits = chunk
                .iter()
                .fold(0u8, |n, &byte| n + u8::from(byte == MARKER));
            self.hits += u64::from(hits);
        }
        Action::Pass
    }
}

/// The byte [`Scan`] counts.
pub const MARKER: u8 = 0xa7;

/// Which filters a case's chain holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainKind {
    /// No filter.
    Empty,
    /// `n` [`Passthrough`] filters.
    Passthrough(usize),
    /// One [`Scan`].
    Scan,
    /// A [`Scan`] then two [`Passthrough`]s.
    Realistic,
}

impl ChainKind {
    /// Builds the chain.
    pub fn build(self) -> Chain {
        let mut chain = Chain::new();
        match self {
            ChainKind::Empty => {}
            ChainKind::Passthrough(n) => (0..n).for_each(|_| chain.push(Passthrough)),
            ChainKind::Scan => chain.push(Scan::default()),
            ChainKind::Realistic => {
                chain.push(Scan::default());
                chain.push(Passthrough);
                chain.push(Passthrough);
            }
        }
        chain
    }
}

/// One frame holding [`PACKET_ID`] and the payload of `size` bytes, framed for `mode`.
pub fn frame(mode: Mode, size: usize) -> Vec<u8> {
    let mut wire = Vec::new();
    FrameEncoder::new(mode.compression())
        .encode(PACKET_ID, &payload(size), &mut wire)
        .expect("benchmark packets fit in a frame");
    wire
}

/// The encoded bytes of a VarInt.
pub fn varint_bytes(value: i32) -> [u8; MAX_VARINT_LEN] {
    let mut buf = [0; MAX_VARINT_LEN];
    encode_varint(value, &mut buf);
    buf
}

/// `varint::encode`: one VarInt into a 5-byte buffer; returns its length.
#[inline]
pub fn varint_encode(value: i32, buf: &mut [u8; MAX_VARINT_LEN]) -> usize {
    encode_varint(black_box(value), black_box(buf))
}

/// `varint::decode`: one VarInt from the start of `bytes`.
#[inline]
pub fn varint_decode(bytes: &[u8; MAX_VARINT_LEN]) -> (i32, usize) {
    decode_varint(black_box(bytes)).expect("benchmark VarInts are valid")
}

/// `frame::encode_*`: one packet into a frame.
pub struct FrameEncode {
    encoder: FrameEncoder,
    payload: Vec<u8>,
    out: Vec<u8>,
}

impl FrameEncode {
    /// The case for `mode` at `size` bytes, warmed up.
    pub fn new(mode: Mode, size: usize) -> Self {
        let mut case = FrameEncode {
            encoder: FrameEncoder::new(mode.compression()),
            payload: payload(size),
            out: Vec::new(),
        };
        case.run();
        case
    }

    /// Encodes the packet once.
    #[inline]
    pub fn run(&mut self) -> usize {
        self.out.clear();
        self.encoder
            .encode(PACKET_ID, black_box(&self.payload), &mut self.out)
            .expect("benchmark packets fit in a frame");
        self.out.len()
    }
}

/// `frame::decode_*`: one frame into a packet id and payload.
pub struct FrameDecode {
    decoder: FrameDecoder,
    wire: Vec<u8>,
}

impl FrameDecode {
    /// The case for `mode` at `size` bytes, warmed up.
    pub fn new(mode: Mode, size: usize) -> Self {
        let mut case = FrameDecode {
            decoder: FrameDecoder::new(mode.compression()),
            wire: frame(mode, size),
        };
        case.run();
        case
    }

    /// Decodes the frame once; returns the packet id and payload length.
    #[inline]
    pub fn run(&mut self) -> (i32, usize) {
        let frame = self
            .decoder
            .decode(black_box(&self.wire))
            .and_then(|frame| {
                frame
                    .expect("the case holds a whole frame")
                    .id_and_payload()
            })
            .expect("benchmark frames are valid");
        (frame.0, black_box(frame.1).len())
    }
}

/// `cipher::encrypt`: AES-128-CFB8 over the payload, in place.
pub struct CipherEncrypt {
    encryptor: Encryptor,
    buf: Vec<u8>,
}

impl CipherEncrypt {
    /// The case at `size` bytes, warmed up.
    pub fn new(size: usize) -> Self {
        let mut case = CipherEncrypt {
            encryptor: Encryptor::new(&SECRET, &SECRET),
            buf: payload(size),
        };
        case.run();
        case
    }

    /// Encrypts the buffer once (the stream goes on: each run encrypts the next bytes).
    #[inline]
    pub fn run(&mut self) {
        self.encryptor.encrypt(black_box(&mut self.buf));
    }
}

/// `cipher::decrypt`: AES-128-CFB8 over the payload, in place.
pub struct CipherDecrypt {
    decryptor: Decryptor,
    buf: Vec<u8>,
}

impl CipherDecrypt {
    /// The case at `size` bytes, warmed up.
    pub fn new(size: usize) -> Self {
        let mut case = CipherDecrypt {
            decryptor: Decryptor::new(&SECRET, &SECRET),
            buf: payload(size),
        };
        case.run();
        case
    }

    /// Decrypts the buffer once.
    #[inline]
    pub fn run(&mut self) {
        self.decryptor.decrypt(black_box(&mut self.buf));
    }
}

/// `filter::*`: one packet through a chain.
pub struct ChainRun {
    chain: Chain,
    payload: Vec<u8>,
    edited: Vec<u8>,
}

impl ChainRun {
    /// The case for `kind` over a payload of `size` bytes, warmed up.
    pub fn new(kind: ChainKind, size: usize) -> Self {
        let mut case = ChainRun {
            chain: kind.build(),
            payload: payload(size),
            edited: Vec::new(),
        };
        case.run();
        case
    }

    /// Runs the packet through the chain once.
    #[inline]
    pub fn run(&mut self) -> Action {
        let mut packet = Packet::new(PACKET_ID, black_box(&self.payload), &mut self.edited);
        self.chain.apply(&mut packet)
    }
}

/// `pipeline::*`: one frame in, through the chain, and out.
pub struct PipelineRun {
    pipeline: Pipeline,
    input: Vec<u8>,
    out: Vec<u8>,
}

impl PipelineRun {
    /// Decode, filter and re-encode every packet (`set_reencode_unchanged(true)`), both sides in
    /// `mode`: the whole intercept path, as for a packet a filter changed.
    pub fn reencode(mode: Mode, kind: ChainKind, size: usize) -> Self {
        Self::new(mode, kind, size, true)
    }

    /// Decode, filter and forward the unchanged frame as it arrived (the fast path), both sides
    /// in `mode`.
    pub fn forward(mode: Mode, kind: ChainKind, size: usize) -> Self {
        Self::new(mode, kind, size, false)
    }

    fn new(mode: Mode, kind: ChainKind, size: usize, reencode: bool) -> Self {
        let mut pipeline = Pipeline::new(kind.build());
        pipeline.set_inbound_compression(mode.compression());
        pipeline.set_outbound_compression(mode.compression());
        pipeline.set_reencode_unchanged(reencode);
        let mut case = PipelineRun {
            pipeline,
            input: frame(mode, size),
            out: Vec::new(),
        };
        case.run();
        case
    }

    /// Passes the frame through once; returns the bytes sent on.
    #[inline]
    pub fn run(&mut self) -> usize {
        self.out.clear();
        self.pipeline
            .process(black_box(&self.input), &mut self.out)
            .expect("benchmark frames are valid");
        self.out.len()
    }
}

/// Any case of the catalog, built from its name: for harnesses that iterate over [`catalog`].
pub enum Case {
    /// `varint::encode`: the value and the buffer it is written to.
    VarIntEncode(i32, [u8; MAX_VARINT_LEN]),
    /// `varint::decode`.
    VarIntDecode([u8; MAX_VARINT_LEN]),
    /// `frame::encode_*`.
    FrameEncode(FrameEncode),
    /// `frame::decode_*`.
    FrameDecode(FrameDecode),
    /// `cipher::encrypt`.
    CipherEncrypt(CipherEncrypt),
    /// `cipher::decrypt`.
    CipherDecrypt(CipherDecrypt),
    /// `filter::*`.
    Chain(ChainRun),
    /// `pipeline::*` (boxed: a pipeline is large).
    Pipeline(Box<PipelineRun>),
}

impl Case {
    /// Builds (and warms up) the case named `<group>::<function>/<id>`; `None` if the catalog
    /// has no such name.
    pub fn build(name: &str) -> Option<Case> {
        use ChainKind::{Empty, Passthrough, Realistic, Scan};
        use Mode::{Compressed, Uncompressed};
        let (bench, id) = name.split_once('/')?;
        let varint = || {
            VARINTS
                .iter()
                .find(|(v, _)| *v == id)
                .map(|&(_, value)| value)
        };
        let size = || SIZES.iter().copied().find(|&size| size_id(size) == id);
        let count = || FILTER_COUNTS.iter().copied().find(|&n| filters_id(n) == id);
        Some(match bench {
            "varint::encode" => Case::VarIntEncode(varint()?, [0; MAX_VARINT_LEN]),
            "varint::decode" => Case::VarIntDecode(varint_bytes(varint()?)),
            "frame::encode_uncompressed" => {
                Case::FrameEncode(FrameEncode::new(Uncompressed, size()?))
            }
            "frame::decode_uncompressed" => {
                Case::FrameDecode(FrameDecode::new(Uncompressed, size()?))
            }
            "frame::encode_compressed" => Case::FrameEncode(FrameEncode::new(Compressed, size()?)),
            "frame::decode_compressed" => Case::FrameDecode(FrameDecode::new(Compressed, size()?)),
            "cipher::encrypt" => Case::CipherEncrypt(CipherEncrypt::new(size()?)),
            "cipher::decrypt" => Case::CipherDecrypt(CipherDecrypt::new(size()?)),
            "filter::passthrough" => {
                Case::Chain(ChainRun::new(Passthrough(count()?), CHAIN_PAYLOAD))
            }
            "filter::scan" => Case::Chain(ChainRun::new(Scan, size()?)),
            "filter::realistic" => Case::Chain(ChainRun::new(Realistic, size()?)),
            "pipeline::uncompressed_empty" => pipeline_reencode(Uncompressed, Empty, size()?),
            "pipeline::uncompressed_scan" => pipeline_reencode(Uncompressed, Scan, size()?),
            "pipeline::uncompressed_realistic" => {
                pipeline_reencode(Uncompressed, Realistic, size()?)
            }
            "pipeline::uncompressed_passthrough" => {
                pipeline_reencode(Uncompressed, Passthrough(count()?), PIPELINE_CHAIN_PAYLOAD)
            }
            "pipeline::compressed_empty" => pipeline_reencode(Compressed, Empty, size()?),
            "pipeline::compressed_scan" => pipeline_reencode(Compressed, Scan, size()?),
            "pipeline::compressed_realistic" => pipeline_reencode(Compressed, Realistic, size()?),
            "pipeline::forward_uncompressed" => pipeline_forward(Uncompressed, Empty, size()?),
            "pipeline::forward_compressed" => pipeline_forward(Compressed, Empty, size()?),
            "pipeline::forward_uncompressed_realistic" => {
                pipeline_forward(Uncompressed, Realistic, size()?)
            }
            "pipeline::forward_compressed_realistic" => {
                pipeline_forward(Compressed, Realistic, size()?)
            }
            _ => return None,
        })
    }

    /// Does the case's operation `times` times (the dispatch on the kind of case happens once).
    #[inline]
    pub fn run(&mut self, times: u64) {
        match self {
            Case::VarIntEncode(value, buf) => repeat(times, || varint_encode(*value, buf)),
            Case::VarIntDecode(bytes) => repeat(times, || varint_decode(bytes)),
            Case::FrameEncode(case) => repeat(times, || case.run()),
            Case::FrameDecode(case) => repeat(times, || case.run()),
            Case::CipherEncrypt(case) => repeat(times, || case.run()),
            Case::CipherDecrypt(case) => repeat(times, || case.run()),
            Case::Chain(case) => repeat(times, || case.run()),
            Case::Pipeline(case) => repeat(times, || case.run()),
        }
    }
}

/// Calls `op` `times` times, keeping every result.
#[inline(always)]
fn repeat<T>(times: u64, mut op: impl FnMut() -> T) {
    for _ in 0..times {
        black_box(op());
    }
}

fn pipeline_reencode(mode: Mode, kind: ChainKind, size: usize) -> Case {
    Case::Pipeline(Box::new(PipelineRun::reencode(mode, kind, size)))
}

fn pipeline_forward(mode: Mode, kind: ChainKind, size: usize) -> Case {
    Case::Pipeline(Box::new(PipelineRun::forward(mode, kind, size)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_is_the_documented_lcg() {
        // First bytes for size 32, worked by hand from the formula.
        let mut state = 0x9E37_79B9_u32 ^ 32;
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        assert_eq!(payload(32)[0], (state >> 24) as u8);
        assert_eq!(payload(32).len(), 32);
        assert_ne!(
            payload(32)[..],
            payload(33)[..32],
            "the seed depends on the size"
        );
    }

    #[test]
    fn payload_is_hard_to_compress() {
        let size = 16384;
        let mut case = FrameEncode::new(Mode::Compressed, size);
        assert!(
            case.run() > size * 9 / 10,
            "LCG bytes should barely compress"
        );
    }

    #[test]
    fn catalog_names_are_unique_and_complete() {
        let names = catalog();
        let unique: std::collections::BTreeSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
        assert_eq!(names.len(), 2 * 7 + 4 * 6 + 2 * 6 + 5 + 2 * 6 + 10 * 6 + 5);
        assert!(names.contains(&"frame::encode_compressed/b512".to_string()));
        assert!(names.contains(&"varint::decode/neg1".to_string()));
        assert!(names.contains(&"filter::passthrough/n4".to_string()));
    }

    #[test]
    fn every_case_runs_and_does_what_it_says() {
        for &size in &SIZES {
            for mode in [Mode::Uncompressed, Mode::Compressed] {
                let wire = frame(mode, size);
                assert_eq!(FrameEncode::new(mode, size).run(), wire.len());
                assert_eq!(FrameDecode::new(mode, size).run(), (PACKET_ID, size));
                let reencode = PipelineRun::reencode(mode, ChainKind::Realistic, size).run();
                let forward = PipelineRun::forward(mode, ChainKind::Realistic, size).run();
                assert_eq!((reencode, forward), (wire.len(), wire.len()));
            }
            let plain = payload(size);
            let mut encrypted = CipherEncrypt::new(size).buf;
            assert_ne!(encrypted, plain);
            Decryptor::new(&SECRET, &SECRET).decrypt(&mut encrypted);
            assert_eq!(encrypted, plain);
            let mut decrypted = CipherDecrypt::new(size).buf;
            assert_ne!(decrypted, plain);
            Encryptor::new(&SECRET, &SECRET).encrypt(&mut decrypted);
            assert_eq!(decrypted, plain);
            assert_eq!(ChainRun::new(ChainKind::Scan, size).run(), Action::Pass);
        }
        for &count in &FILTER_COUNTS {
            let mut case = ChainRun::new(ChainKind::Passthrough(count), CHAIN_PAYLOAD);
            assert_eq!(case.chain.len(), count);
            assert_eq!(case.run(), Action::Pass);
        }
        for (_, value) in VARINTS {
            let mut buf = [0; MAX_VARINT_LEN];
            let len = varint_encode(value, &mut buf);
            assert_eq!(varint_decode(&buf), (value, len));
            assert_eq!(varint_bytes(value), buf);
        }
    }

    #[test]
    fn every_catalog_name_builds_and_nothing_else() {
        for name in catalog() {
            let mut case = Case::build(&name).unwrap_or_else(|| panic!("{name} does not build"));
            case.run(2);
        }
        for bad in [
            "frame::encode_compressed/b513",
            "frame::nope/b512",
            "varint::decode/v1",
            "x",
        ] {
            assert!(Case::build(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn scan_reads_every_byte() {
        let mut scan = Scan::default();
        let data = [MARKER, 1, MARKER, MARKER];
        let mut edited = Vec::new();
        scan.filter(&mut Packet::new(1, &data, &mut edited));
        assert_eq!(scan.hits, 3);
    }
}
