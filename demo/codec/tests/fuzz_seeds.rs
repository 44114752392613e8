//! The fuzz target's oracle (`fuzz/decode_check.rs`) over a fixed set of inputs, so every test run
//! exercises it without a fuzzer: valid streams of every setting, then the same streams cut,
//! flipped and spliced, and plain noise.

#[path = "../fuzz/decode_check.rs"]
mod decode_check;

use codec::compression::Compression;
use codec::error::DecodeError;
use codec::frame::FrameEncoder;

/// A small deterministic generator (64-bit LCG, high bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }

    fn below(&mut self, n: usize) -> usize {
        self.next() as usize % n.max(1)
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// A stream of valid frames for the settings that `config` selects in the oracle, and how many
/// frames it holds.
fn valid_stream(rng: &mut Lcg, config: u8) -> (Vec<u8>, usize) {
    let compression = match config & 3 {
        0 => None,
        1 => Some(0),
        2 => Some(64),
        _ => Some(256),
    }
    .map(Compression::new);
    let mut encoder = FrameEncoder::new(compression);
    let mut wire = vec![config];
    let frames = 1 + rng.below(4);
    for _ in 0..frames {
        let len = [0, 1, 63, 64, 255, 256, 700, 3000][rng.below(8)];
        let payload = if rng.below(2) == 0 {
            rng.bytes(len)
        } else {
            vec![b'a'; len]
        };
        let id = [0, 0x7f, 0x80, -1][rng.below(4)];
        encoder.encode(id, &payload, &mut wire).unwrap();
    }
    (wire, frames)
}

/// A copy of `input` with one kind of damage.
fn mutate(rng: &mut Lcg, input: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    let at = 1 + rng.below(out.len() - 1);
    match rng.below(4) {
        0 => out.truncate(at),
        1 => out[at] ^= 1 << rng.below(8),
        2 => out[at] = [0x00, 0x7f, 0x80, 0xff][rng.below(4)],
        _ => {
            let len = 1 + rng.below(8);
            let noise = rng.bytes(len);
            out.splice(at..at, noise);
        }
    }
    out
}

#[test]
fn oracle_holds_on_fixed_seeds() {
    let mut rng = Lcg(0x1a2b_3c4d);
    let (mut damaged_refused, mut damaged_accepted) = (0, 0);
    for config in 0..=u8::MAX {
        let (valid, frames) = valid_stream(&mut rng, config);
        for _ in 0..3 {
            let checked = decode_check::check(&mutate(&mut rng, &valid));
            if checked.outcome.is_ok() {
                damaged_accepted += 1;
            } else {
                damaged_refused += 1;
            }
        }

        // A valid stream decodes whole.
        let checked = decode_check::check(&valid);
        assert_eq!(checked.outcome, Ok(()), "config {config}");
        assert_eq!(checked.frames, frames, "config {config}");

        // Half of it gives the frames that fit, and fails only as truncated.
        let half = decode_check::check(&valid[..valid.len() / 2]);
        assert!(half.frames < frames, "config {config}: {half:?}");
        assert!(
            matches!(
                half.outcome,
                Ok(()) | Err(DecodeError::TruncatedFrame { .. })
            ),
            "config {config}: {half:?}"
        );

        let noise_len = rng.below(64);
        decode_check::check(&rng.bytes(noise_len));
    }
    // Damage is caught, and not everything is refused (a flipped payload bit decodes).
    assert!(
        damaged_refused > 0 && damaged_accepted > 0,
        "{damaged_refused} refused, {damaged_accepted} accepted"
    );

    let empty = decode_check::check(&[]);
    assert_eq!((empty.frames, empty.outcome), (0, Ok(())));
    // Compressed settings; a frame length of -1 (five-byte VarInt).
    let negative = decode_check::check(&[3, 0xff, 0xff, 0xff, 0xff, 0x0f]);
    assert_eq!(negative.frames, 0);
    assert!(
        matches!(
            negative.outcome,
            Err(DecodeError::NegativeLength { value: -1, .. })
        ),
        "{negative:?}"
    );
}
