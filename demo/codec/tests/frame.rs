//! Frame encoding and decoding: round trips for any packet, size and threshold, and a typed error
//! for every kind of malformed input.

use codec::compression::{Backend, Compression, Level};
use codec::error::{DecodeError, EncodeError, Field, VarIntError};
use codec::frame::{FrameDecoder, FrameEncoder, MAX_DATA_LEN, MAX_FRAME_LEN};
use codec::varint::{decode_varint, put_varint};
use proptest::prelude::*;

fn compression(threshold: usize) -> Option<Compression> {
    Some(Compression::new(threshold))
}

/// Decodes the single frame in `wire` with every backend, expecting the same error from each.
fn decode_err(compression: Option<Compression>, wire: &[u8]) -> DecodeError {
    let errors: Vec<DecodeError> = Backend::ALL
        .iter()
        .map(|backend| {
            let settings = compression.map(|c| Compression {
                backend: *backend,
                ..c
            });
            FrameDecoder::new(settings)
                .decode(wire)
                .expect_err("malformed frame must not decode")
        })
        .collect();
    assert!(
        errors.windows(2).all(|pair| pair[0] == pair[1]),
        "backends disagree: {errors:?}"
    );
    errors[0].clone()
}

/// Encodes a packet with compression at threshold 0 and returns (data length field, zlib stream).
fn zlib_frame_parts(id: i32, payload: &[u8]) -> (i32, Vec<u8>) {
    let mut wire = Vec::new();
    FrameEncoder::new(compression(0))
        .encode(id, payload, &mut wire)
        .unwrap();
    let (_, prefix) = decode_varint(&wire).unwrap();
    let (data_len, n) = decode_varint(&wire[prefix..]).unwrap();
    (data_len, wire[prefix + n..].to_vec())
}

/// A compressed-connection frame with any data length field and body.
fn compressed_frame(data_len: i32, body: &[u8]) -> Vec<u8> {
    let mut inner = Vec::new();
    put_varint(&mut inner, data_len);
    inner.extend_from_slice(body);
    let mut wire = Vec::new();
    put_varint(&mut wire, inner.len() as i32);
    wire.extend_from_slice(&inner);
    wire
}

#[test]
fn uncompressed_frame_layout() {
    let mut wire = Vec::new();
    FrameEncoder::new(None)
        .encode(0x20, b"abc", &mut wire)
        .unwrap();
    assert_eq!(wire, [4, 0x20, b'a', b'b', b'c']);
}

#[test]
fn small_packet_on_compressed_connection_is_sent_as_is() {
    let mut wire = Vec::new();
    FrameEncoder::new(compression(256))
        .encode(0x20, b"abc", &mut wire)
        .unwrap();
    assert_eq!(wire, [5, 0, 0x20, b'a', b'b', b'c']);
}

#[test]
fn packet_at_threshold_is_compressed() {
    let payload = vec![7u8; 255];
    let mut wire = Vec::new();
    FrameEncoder::new(compression(256))
        .encode(1, &payload, &mut wire)
        .unwrap();
    let (len, prefix) = decode_varint(&wire).unwrap();
    assert_eq!(prefix + len as usize, wire.len());
    let (data_len, _) = decode_varint(&wire[prefix..]).unwrap();
    assert_eq!(data_len, 256, "data length is the packet size, id included");
    assert!(wire.len() < 100, "255 equal bytes must compress");
    let mut decoder = FrameDecoder::new(compression(256));
    let frame = decoder.decode(&wire).unwrap().unwrap();
    assert_eq!(frame.id_and_payload().unwrap(), (1, &payload[..]));
}

#[test]
fn backends_read_each_others_frames() {
    let payload: Vec<u8> = (0..3000u32).map(|i| (i % 13) as u8).collect();
    for writer in Backend::ALL.iter().copied() {
        let mut wire = Vec::new();
        let settings = Compression {
            threshold: 64,
            level: Level::new(6).unwrap(),
            backend: writer,
        };
        FrameEncoder::new(Some(settings))
            .encode(9, &payload, &mut wire)
            .unwrap();
        for reader in Backend::ALL.iter().copied() {
            let mut decoder = FrameDecoder::new(Some(Compression {
                backend: reader,
                ..Compression::new(64)
            }));
            let frame = decoder.decode(&wire).unwrap().unwrap();
            assert_eq!(
                frame.id_and_payload().unwrap(),
                (9, &payload[..]),
                "{writer:?} -> {reader:?}"
            );
        }
    }
}

#[test]
fn partial_input_waits_for_more() {
    let mut wire = Vec::new();
    FrameEncoder::new(None)
        .encode(1, &[5; 300], &mut wire)
        .unwrap();
    let mut decoder = FrameDecoder::new(None);
    for cut in 0..wire.len() {
        assert_eq!(decoder.decode(&wire[..cut]), Ok(None), "cut at {cut}");
    }
    assert_eq!(decoder.decode(&wire).unwrap().unwrap().raw, &wire[..]);
}

#[test]
fn overlong_length_varint() {
    assert_eq!(
        decode_err(None, &[0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
        DecodeError::VarInt {
            field: Field::FrameLength,
            source: VarIntError::TooLong { max: 5 }
        }
    );
}

#[test]
fn negative_length() {
    assert_eq!(
        decode_err(None, &[0xff, 0xff, 0xff, 0xff, 0x0f, 0]),
        DecodeError::NegativeLength {
            field: Field::FrameLength,
            value: -1
        }
    );
}

#[test]
fn oversize_length() {
    let mut wire = Vec::new();
    put_varint(&mut wire, MAX_FRAME_LEN as i32 + 1);
    assert_eq!(
        decode_err(None, &wire),
        DecodeError::TooLarge {
            field: Field::FrameLength,
            len: MAX_FRAME_LEN + 1,
            max: MAX_FRAME_LEN
        }
    );
}

#[test]
fn empty_frame_has_no_packet_id() {
    let mut decoder = FrameDecoder::new(None);
    let frame = decoder.decode(&[0]).unwrap().unwrap();
    assert_eq!(
        frame.id_and_payload(),
        Err(DecodeError::Truncated {
            field: Field::PacketId
        })
    );
}

#[test]
fn packet_id_cut_off_by_frame_end() {
    let mut decoder = FrameDecoder::new(None);
    let frame = decoder.decode(&[2, 0x80, 0x80, 0x01]).unwrap().unwrap();
    assert_eq!(
        frame.id_and_payload(),
        Err(DecodeError::Truncated {
            field: Field::PacketId
        })
    );
}

#[test]
fn overlong_packet_id() {
    let mut decoder = FrameDecoder::new(None);
    let frame = decoder
        .decode(&[6, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
        .unwrap()
        .unwrap();
    assert_eq!(
        frame.id_and_payload(),
        Err(DecodeError::VarInt {
            field: Field::PacketId,
            source: VarIntError::TooLong { max: 5 }
        })
    );
}

#[test]
fn compressed_frame_without_data_length() {
    assert_eq!(
        decode_err(compression(256), &[0]),
        DecodeError::Truncated {
            field: Field::DataLength
        }
    );
    assert_eq!(
        decode_err(compression(256), &[1, 0x80]),
        DecodeError::Truncated {
            field: Field::DataLength
        }
    );
}

#[test]
fn negative_data_length() {
    assert_eq!(
        decode_err(compression(256), &compressed_frame(-5, b"xx")),
        DecodeError::NegativeLength {
            field: Field::DataLength,
            value: -5
        }
    );
}

#[test]
fn overlong_data_length() {
    assert_eq!(
        decode_err(
            compression(256),
            &[7, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]
        ),
        DecodeError::VarInt {
            field: Field::DataLength,
            source: VarIntError::TooLong { max: 5 }
        }
    );
}

#[test]
fn compressed_packet_below_threshold() {
    let (_, zlib) = zlib_frame_parts(1, &[3; 99]);
    assert_eq!(
        decode_err(compression(256), &compressed_frame(100, &zlib)),
        DecodeError::BelowThreshold {
            data_len: 100,
            threshold: 256
        }
    );
}

#[test]
fn data_length_mismatch_after_decompression() {
    let (data_len, zlib) = zlib_frame_parts(1, &[3; 999]);
    assert_eq!(data_len, 1000);
    assert_eq!(
        decode_err(compression(256), &compressed_frame(1500, &zlib)),
        DecodeError::DataLengthMismatch {
            declared: 1500,
            actual: 1000
        }
    );
    assert_eq!(
        decode_err(compression(256), &compressed_frame(900, &zlib)),
        DecodeError::DecompressedOverrun { declared: 900 }
    );
}

#[test]
fn decompression_bomb_is_stopped() {
    // 4 MiB of zeros deflate to a few KiB: a small frame that would inflate a thousandfold.
    let (data_len, zlib) = zlib_frame_parts(0, &vec![0; 4 << 20]);
    assert!(zlib.len() < 8192, "bomb is {} bytes", zlib.len());
    assert_eq!(data_len, (4 << 20) + 1);
    // Declared small: inflation stops at the declared size.
    assert_eq!(
        decode_err(compression(256), &compressed_frame(1 << 16, &zlib)),
        DecodeError::DecompressedOverrun { declared: 1 << 16 }
    );
    // Declared huge: refused before inflating anything.
    assert_eq!(
        decode_err(
            compression(256),
            &compressed_frame(MAX_DATA_LEN as i32 + 1, &zlib)
        ),
        DecodeError::TooLarge {
            field: Field::DataLength,
            len: MAX_DATA_LEN + 1,
            max: MAX_DATA_LEN
        }
    );
    // Declared honestly, it is a legal packet.
    let wire = compressed_frame(data_len, &zlib);
    let mut decoder = FrameDecoder::new(compression(256));
    assert_eq!(
        decoder.decode(&wire).unwrap().unwrap().packet.len(),
        (4 << 20) + 1
    );
}

#[test]
fn corrupt_zlib_stream() {
    let (data_len, mut zlib) = zlib_frame_parts(1, &[3; 999]);
    let last = zlib.len() - 1;
    zlib[last] ^= 0xff; // breaks the Adler-32 checksum
    assert_eq!(
        decode_err(compression(256), &compressed_frame(data_len, &zlib)),
        DecodeError::CorruptZlib
    );
    assert_eq!(
        decode_err(
            compression(256),
            &compressed_frame(data_len, &zlib[..zlib.len() / 2])
        ),
        DecodeError::CorruptZlib
    );
}

#[test]
fn truncated_frame_at_end_of_stream() {
    let mut wire = Vec::new();
    FrameEncoder::new(None)
        .encode(1, &[0; 40], &mut wire)
        .unwrap();
    let decoder = FrameDecoder::new(None);
    assert_eq!(decoder.finish(&[]), Ok(()));
    assert_eq!(
        decoder.finish(&wire[..10]),
        Err(DecodeError::TruncatedFrame {
            expected: Some(wire.len()),
            available: 10
        })
    );
    assert_eq!(
        decoder.finish(&[0x80, 0x80]),
        Err(DecodeError::TruncatedFrame {
            expected: None,
            available: 2
        })
    );
    assert_eq!(
        decoder.finish(&[0x80, 0x80]).unwrap_err().to_string(),
        "truncated frame: the stream ended after 2 bytes of a frame"
    );
    assert_eq!(
        decoder.finish(&wire[..10]).unwrap_err().to_string(),
        format!(
            "truncated frame: the stream ended after 10 bytes of a frame of {}",
            wire.len()
        )
    );
}

#[test]
fn encoding_a_packet_larger_than_a_frame_fails() {
    let payload = vec![0; MAX_FRAME_LEN];
    let mut out = Vec::new();
    assert_eq!(
        FrameEncoder::new(None).encode(1, &payload, &mut out),
        Err(EncodeError::PacketTooLarge {
            len: MAX_FRAME_LEN + 1,
            max: MAX_FRAME_LEN
        })
    );
    assert!(out.is_empty(), "nothing is written on error");
    let huge = vec![0; MAX_DATA_LEN];
    assert_eq!(
        FrameEncoder::new(compression(256)).encode(1, &huge, &mut out),
        Err(EncodeError::PacketTooLarge {
            len: MAX_DATA_LEN + 1,
            max: MAX_DATA_LEN
        })
    );
    // Compressible, so it fits in a frame once compressed.
    FrameEncoder::new(compression(256))
        .encode(1, &payload, &mut out)
        .unwrap();
    assert!(out.len() < MAX_FRAME_LEN);
}

#[test]
fn settings_can_change_mid_stream() {
    let mut encoder = FrameEncoder::new(None);
    let mut decoder = FrameDecoder::new(None);
    assert_eq!((encoder.threshold(), decoder.threshold()), (None, None));
    encoder.set_compression(compression(16));
    decoder.set_compression(compression(16));
    assert_eq!(
        (encoder.threshold(), decoder.threshold()),
        (Some(16), Some(16))
    );
    let mut wire = Vec::new();
    encoder.encode(3, &[1; 100], &mut wire).unwrap();
    assert_eq!(
        decoder
            .decode(&wire)
            .unwrap()
            .unwrap()
            .id_and_payload()
            .unwrap(),
        (3, &[1; 100][..])
    );
}

fn threshold_strategy() -> impl Strategy<Value = Option<usize>> {
    prop_oneof![Just(None), (0usize..2048).prop_map(Some)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any packets, any threshold, any backend: decoding what was encoded gives the packets back,
    /// frame by frame, whatever way the stream is cut.
    #[test]
    fn frames_round_trip(
        packets in proptest::collection::vec(
            (any::<i32>(), proptest::collection::vec(any::<u8>(), 0..3000)), 1..5),
        threshold in threshold_strategy(),
        backend_index in 0usize..2,
        cut in any::<prop::sample::Index>(),
    ) {
        let backends = Backend::ALL;
        let backend = backends[backend_index % backends.len()];
        let settings = threshold.map(|threshold| Compression { backend, ..Compression::new(threshold) });
        let mut encoder = FrameEncoder::new(settings);
        let mut wire = Vec::new();
        let mut ends = Vec::new();
        for (id, payload) in &packets {
            encoder.encode(*id, payload, &mut wire).unwrap();
            ends.push(wire.len());
        }
        let mut decoder = FrameDecoder::new(settings);
        let cut = cut.index(wire.len() + 1);
        let mut at = 0;
        for ((id, payload), end) in packets.iter().zip(&ends) {
            if *end > cut && at <= cut {
                prop_assert_eq!(decoder.decode(&wire[at..cut]), Ok(None));
            }
            let frame = decoder.decode(&wire[at..]).unwrap().unwrap();
            prop_assert_eq!(frame.raw, &wire[at..*end]);
            prop_assert_eq!(frame.id_and_payload().unwrap(), (*id, &payload[..]));
            at = *end;
        }
        prop_assert_eq!(decoder.decode(&wire[at..]), Ok(None));
        prop_assert_eq!(decoder.finish(&wire[at..]), Ok(()));
    }

    /// Arbitrary bytes never panic the decoder, and whatever it accepts is inside the input.
    #[test]
    fn arbitrary_bytes_decode_or_fail_cleanly(
        bytes in proptest::collection::vec(any::<u8>(), 0..512),
        threshold in threshold_strategy(),
    ) {
        let mut decoder = FrameDecoder::new(threshold.map(Compression::new));
        if let Ok(Some(frame)) = decoder.decode(&bytes) {
            prop_assert!(frame.raw.len() <= bytes.len());
            let _ = frame.id_and_payload();
        }
    }
}
