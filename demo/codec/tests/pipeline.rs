//! The intercepted pipeline end to end: forwarding, the fast path, filters, compression and
//! encryption on each side, input split anywhere, and errors.

use codec::cipher::{Decryptor, Encryptor};
use codec::compression::{Compression, Level};
use codec::error::{DecodeError, Field, PipelineError};
use codec::filter::{Action, Chain, Filter, Packet};
use codec::frame::{FrameDecoder, FrameEncoder};
use codec::pipeline::Pipeline;
use proptest::prelude::*;

const SECRET: [u8; 16] = *b"0123456789abcdef";

fn packets() -> Vec<(i32, Vec<u8>)> {
    vec![
        (0x00, b"handshake".to_vec()),
        (0x1c, (0..2000u32).map(|i| (i * 31 % 256) as u8).collect()),
        (0x05, Vec::new()),
        (0x7f, vec![9; 300]),
    ]
}

fn encode_all(compression: Option<Compression>, packets: &[(i32, Vec<u8>)]) -> Vec<u8> {
    let mut encoder = FrameEncoder::new(compression);
    let mut wire = Vec::new();
    for (id, payload) in packets {
        encoder.encode(*id, payload, &mut wire).unwrap();
    }
    wire
}

fn decode_all(compression: Option<Compression>, wire: &[u8]) -> Vec<(i32, Vec<u8>)> {
    let mut decoder = FrameDecoder::new(compression);
    let mut at = 0;
    let mut packets = Vec::new();
    while let Some(frame) = decoder.decode(&wire[at..]).unwrap() {
        at += frame.raw.len();
        let (id, payload) = frame.id_and_payload().unwrap();
        packets.push((id, payload.to_vec()));
    }
    assert_eq!(at, wire.len(), "output ends on a frame boundary");
    packets
}

fn run(pipeline: &mut Pipeline, input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    pipeline.process(input, &mut out).unwrap();
    pipeline.finish().unwrap();
    out
}

struct DropId(i32);
impl Filter for DropId {
    fn filter(&mut self, packet: &mut Packet<'_>) -> Action {
        if packet.id() == self.0 {
            Action::Drop
        } else {
            Action::Pass
        }
    }
}

/// Appends a byte to the payload of packets with the given id.
struct Tag(i32);
impl Filter for Tag {
    fn filter(&mut self, packet: &mut Packet<'_>) -> Action {
        if packet.id() == self.0 {
            packet.payload_mut().push(b'!');
        }
        Action::Pass
    }
}

#[test]
fn unchanged_frames_are_forwarded_byte_for_byte() {
    for compression in [None, Some(Compression::new(256))] {
        let input = encode_all(compression, &packets());
        let mut pipeline = Pipeline::new(Chain::new());
        pipeline.set_inbound_compression(compression);
        pipeline.set_outbound_compression(compression);
        assert_eq!(run(&mut pipeline, &input), input, "{compression:?}");
    }
}

#[test]
fn fast_path_neither_recompresses_nor_canonicalises() {
    // Level 9 output and a non-minimal VarInt id (0x80 0x00 is 0): what this side's encoder would
    // not produce. The fast path forwards the frames exactly.
    let level9 = Compression {
        level: Level::new(9).unwrap(),
        ..Compression::new(64)
    };
    let mut input = encode_all(Some(level9), &packets());
    input.extend_from_slice(&[4, 0, 0x80, 0x00, b'x']);
    let mut pipeline = Pipeline::new(Chain::new());
    pipeline.set_inbound_compression(Some(Compression::new(64)));
    pipeline.set_outbound_compression(Some(Compression::new(64)));
    assert_eq!(run(&mut pipeline, &input), input);

    // Re-encoding unchanged packets produces this side's own frames instead.
    let mut pipeline = Pipeline::new(Chain::new());
    pipeline.set_inbound_compression(Some(Compression::new(64)));
    pipeline.set_outbound_compression(Some(Compression::new(64)));
    pipeline.set_reencode_unchanged(true);
    let out = run(&mut pipeline, &input);
    let mut expected_packets = packets();
    expected_packets.push((0, b"x".to_vec()));
    assert_eq!(
        out,
        encode_all(Some(Compression::new(64)), &expected_packets)
    );
}

#[test]
fn different_thresholds_reencode() {
    let input = encode_all(Some(Compression::new(1000)), &packets());
    let mut pipeline = Pipeline::new(Chain::new());
    pipeline.set_inbound_compression(Some(Compression::new(1000)));
    pipeline.set_outbound_compression(Some(Compression::new(16)));
    let out = run(&mut pipeline, &input);
    assert_eq!(out, encode_all(Some(Compression::new(16)), &packets()));
    assert_eq!(decode_all(Some(Compression::new(16)), &out), packets());
}

#[test]
fn filters_modify_and_drop() {
    let mut chain = Chain::new();
    chain.push(DropId(0x05));
    chain.push(Tag(0x1c));
    let compression = Some(Compression::new(256));
    let input = encode_all(compression, &packets());
    let mut pipeline = Pipeline::new(chain);
    pipeline.set_inbound_compression(compression);
    pipeline.set_outbound_compression(compression);
    let out = run(&mut pipeline, &input);

    let mut expected = packets();
    expected.retain(|(id, _)| *id != 0x05);
    expected[1].1.push(b'!');
    assert_eq!(decode_all(compression, &out), expected);
    // Unchanged packets still took the fast path: their frames are in the output as they came.
    let first = encode_all(compression, &packets()[..1]);
    assert!(out.starts_with(&first));
}

#[test]
fn encryption_on_both_sides() {
    let compression = Some(Compression::new(256));
    let mut input = encode_all(compression, &packets());
    Encryptor::new(&SECRET, &SECRET).encrypt(&mut input);
    let other_secret = [7u8; 16];
    let mut pipeline = Pipeline::new(Chain::new());
    pipeline.set_inbound_compression(compression);
    pipeline.set_outbound_compression(compression);
    pipeline.enable_inbound_encryption(&SECRET);
    pipeline.enable_outbound_encryption(&other_secret);
    let mut out = run(&mut pipeline, &input);
    Decryptor::new(&other_secret, &other_secret).decrypt(&mut out);
    assert_eq!(decode_all(compression, &out), packets());
}

#[test]
fn malformed_frame_stops_the_pipeline_after_the_good_ones() {
    let good = encode_all(None, &packets()[..2]);
    let mut input = good.clone();
    input.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
    let mut pipeline = Pipeline::new(Chain::new());
    let mut out = Vec::new();
    assert_eq!(
        pipeline.process(&input, &mut out),
        Err(PipelineError::Decode(DecodeError::NegativeLength {
            field: Field::FrameLength,
            value: -1
        }))
    );
    assert_eq!(out, good);
}

#[test]
fn stream_ending_inside_a_frame_is_an_error() {
    let input = encode_all(None, &packets());
    let mut pipeline = Pipeline::new(Chain::new());
    let mut out = Vec::new();
    pipeline
        .process(&input[..input.len() - 3], &mut out)
        .unwrap();
    assert!(matches!(
        pipeline.finish(),
        Err(PipelineError::Decode(DecodeError::TruncatedFrame { .. }))
    ));
    pipeline
        .process(&input[input.len() - 3..], &mut out)
        .unwrap();
    assert_eq!(pipeline.finish(), Ok(()));
    assert_eq!(out, input);
}

#[test]
fn chain_can_be_extended_later() {
    let input = encode_all(None, &packets());
    let mut pipeline = Pipeline::new(Chain::new());
    pipeline.chain_mut().push(DropId(0x00));
    let out = run(&mut pipeline, &input);
    assert_eq!(decode_all(None, &out), packets()[1..]);
}

fn side() -> impl Strategy<Value = (Option<usize>, bool)> {
    (
        prop_oneof![Just(None), (0usize..3000).prop_map(Some)],
        any::<bool>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the settings of each side and however the input is split, the packets that come
    /// out are the packets that went in (the tagged one modified), in order.
    #[test]
    fn any_settings_and_any_split(
        inbound in side(),
        outbound in side(),
        reencode: bool,
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let (in_threshold, in_encrypted) = inbound;
        let (out_threshold, out_encrypted) = outbound;
        let in_compression = in_threshold.map(Compression::new);
        let out_compression = out_threshold.map(Compression::new);
        let mut input = encode_all(in_compression, &packets());
        if in_encrypted {
            Encryptor::new(&SECRET, &SECRET).encrypt(&mut input);
        }
        let mut chain = Chain::new();
        chain.push(Tag(0x7f));
        let mut pipeline = Pipeline::new(chain);
        pipeline.set_inbound_compression(in_compression);
        pipeline.set_outbound_compression(out_compression);
        pipeline.set_reencode_unchanged(reencode);
        if in_encrypted {
            pipeline.enable_inbound_encryption(&SECRET);
        }
        if out_encrypted {
            pipeline.enable_outbound_encryption(&SECRET);
        }
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(input.len() + 1)).collect();
        cuts.push(0);
        cuts.push(input.len());
        cuts.sort_unstable();
        let mut out = Vec::new();
        for pair in cuts.windows(2) {
            pipeline.process(&input[pair[0]..pair[1]], &mut out).unwrap();
        }
        pipeline.finish().unwrap();
        if out_encrypted {
            Decryptor::new(&SECRET, &SECRET).decrypt(&mut out);
        }
        let mut expected = packets();
        expected[3].1.push(b'!');
        prop_assert_eq!(decode_all(out_compression, &out), expected);
    }
}
