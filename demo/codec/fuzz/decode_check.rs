//! The decoder's fuzz oracle: the fuzz crate's library, which the fuzz target
//! (`fuzz_targets/decode.rs`) calls and a normal test over fixed seeds
//! (`demo/codec/tests/fuzz_seeds.rs`) includes, so CI runs it without a fuzzer.
//!
//! The first input byte picks the connection settings, the rest is the stream. Nothing may panic,
//! and:
//! - every frame the decoder accepts lies inside the input, and its packet survives a round trip
//!   through an encoder and decoder with the same settings;
//! - a forwarding pipeline with the same settings on both sides, fed the stream in two pieces,
//!   writes exactly the accepted frames, byte for byte, and fails where the decoder failed;
//! - at the end of the stream, leftover bytes are a truncated frame, never silently dropped.

use codec::compression::{Backend, Compression};
use codec::error::{DecodeError, PipelineError};
use codec::filter::Chain;
use codec::frame::{FrameDecoder, FrameEncoder};
use codec::pipeline::Pipeline;

/// What the decoder made of one input that kept every invariant.
#[derive(Debug)]
pub struct Checked {
    /// How many frames it accepted.
    pub frames: usize,
    /// How the stream ended: `Ok` when it was whole frames, else the decoder's error.
    pub outcome: Result<(), DecodeError>,
}

/// Checks one input; panics if an invariant breaks.
pub fn check(data: &[u8]) -> Checked {
    let Some((&config, stream)) = data.split_first() else {
        return Checked {
            frames: 0,
            outcome: Ok(()),
        };
    };
    let backend = Backend::ALL[usize::from(config >> 2) % Backend::ALL.len()];
    let compression = match config & 3 {
        0 => None,
        1 => Some(0),
        2 => Some(64),
        _ => Some(256),
    }
    .map(|threshold| Compression {
        backend,
        ..Compression::new(threshold)
    });

    // The decoder alone.
    let mut decoder = FrameDecoder::new(compression);
    let mut encoder = FrameEncoder::new(compression);
    let mut accepted = Vec::new();
    let mut frames = 0;
    let mut at = 0;
    let outcome: Result<(), DecodeError> = loop {
        match decoder.decode(&stream[at..]) {
            Ok(None) => break decoder.finish(&stream[at..]),
            Err(error) => break Err(error),
            Ok(Some(frame)) => {
                assert!(!frame.raw.is_empty() && frame.raw.len() <= stream.len() - at);
                assert_eq!(frame.raw, &stream[at..at + frame.raw.len()]);
                let (id, payload) = match frame.id_and_payload() {
                    Ok(split) => split,
                    Err(error) => break Err(error),
                };
                let (id, payload) = (id, payload.to_vec());
                at += frame.raw.len();
                accepted.extend_from_slice(&stream[at - frame.raw.len()..at]);
                frames += 1;
                round_trip(&mut encoder, compression, id, &payload);
            }
        }
    };
    if let Err(DecodeError::TruncatedFrame { available, .. }) = &outcome {
        assert_eq!(
            *available,
            stream.len() - at,
            "leftover bytes are the truncated frame"
        );
    }

    // The pipeline, forwarding, fed in two pieces.
    let mut pipeline = Pipeline::new(Chain::new());
    pipeline.set_inbound_compression(compression);
    pipeline.set_outbound_compression(compression);
    let split = usize::from(config).min(stream.len());
    let mut out = Vec::new();
    let result = pipeline
        .process(&stream[..split], &mut out)
        .and_then(|()| pipeline.process(&stream[split..], &mut out))
        .and_then(|()| pipeline.finish());
    assert_eq!(
        out, accepted,
        "the pipeline forwards exactly the accepted frames"
    );
    assert_eq!(result, outcome.clone().map_err(PipelineError::Decode));
    Checked { frames, outcome }
}

/// Re-encodes a decoded packet and decodes it again.
fn round_trip(
    encoder: &mut FrameEncoder,
    compression: Option<Compression>,
    id: i32,
    payload: &[u8],
) {
    let mut wire = Vec::new();
    if encoder.encode(id, payload, &mut wire).is_err() {
        // A packet that inflated past what one frame holds may not fit once recompressed: the
        // encoder's documented error, not a broken invariant.
        return;
    }
    let mut decoder = FrameDecoder::new(compression);
    let frame = decoder
        .decode(&wire)
        .expect("re-encoded frame decodes")
        .expect("whole frame");
    assert_eq!(frame.raw.len(), wire.len());
    assert_eq!(
        frame.id_and_payload().expect("re-encoded packet splits"),
        (id, payload)
    );
}
