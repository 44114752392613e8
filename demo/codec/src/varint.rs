//! Minecraft's VarInt and VarLong: little-endian groups of 7 bits, the high bit of each byte set
//! when another byte follows. A VarInt takes at most 5 bytes, a VarLong at most 10; negative
//! numbers are encoded as their two's-complement bits, so they always take the maximum.

use crate::error::VarIntError;

/// The most bytes a VarInt takes.
pub const MAX_VARINT_LEN: usize = 5;
/// The most bytes a VarLong takes.
pub const MAX_VARLONG_LEN: usize = 10;

/// Decodes a VarInt from the start of `buf`, returning the value and the bytes it took.
///
/// [`VarIntError::Incomplete`] means `buf` ends before the number does (read more input);
/// [`VarIntError::TooLong`] means the number is malformed.
#[inline]
pub fn decode_varint(buf: &[u8]) -> Result<(i32, usize), VarIntError> {
    match buf.first() {
        Some(&byte) if byte < 0x80 => Ok((i32::from(byte), 1)),
        Some(_) => decode_varint_multi(buf),
        None => Err(VarIntError::Incomplete),
    }
}

/// The multi-byte path of [`decode_varint`].
#[inline]
fn decode_varint_multi(buf: &[u8]) -> Result<(i32, usize), VarIntError> {
    let mut value = 0u32;
    for i in 0..MAX_VARINT_LEN {
        let Some(&byte) = buf.get(i) else {
            return Err(VarIntError::Incomplete);
        };
        value |= u32::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            return Ok((value as i32, i + 1));
        }
    }
    Err(VarIntError::TooLong {
        max: MAX_VARINT_LEN,
    })
}

/// Encodes `value` into `out`, returning how many bytes of it were written.
#[inline]
pub fn encode_varint(value: i32, out: &mut [u8; MAX_VARINT_LEN]) -> usize {
    let mut rest = value as u32;
    let mut len = 0;
    while rest >= 0x80 {
        out[len] = rest as u8 | 0x80;
        rest >>= 7;
        len += 1;
    }
    out[len] = rest as u8;
    len + 1
}

/// Appends the VarInt encoding of `value` to `out`.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, value: i32) {
    let mut buf = [0; MAX_VARINT_LEN];
    let len = encode_varint(value, &mut buf);
    // A fixed-size copy compiles to two moves; a copy of `len` bytes would call memcpy.
    out.extend_from_slice(&buf);
    out.truncate(out.len() - MAX_VARINT_LEN + len);
}

/// How many bytes the VarInt encoding of `value` takes.
#[inline]
pub const fn varint_len(value: i32) -> usize {
    let bits = 32 - (value as u32 | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Decodes a VarLong from the start of `buf`, returning the value and the bytes it took.
///
/// The errors mean what they mean for [`decode_varint`].
pub fn decode_varlong(buf: &[u8]) -> Result<(i64, usize), VarIntError> {
    let mut value = 0u64;
    for (i, &byte) in buf.iter().take(MAX_VARLONG_LEN).enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            return Ok((value as i64, i + 1));
        }
    }
    if buf.len() >= MAX_VARLONG_LEN {
        Err(VarIntError::TooLong {
            max: MAX_VARLONG_LEN,
        })
    } else {
        Err(VarIntError::Incomplete)
    }
}

/// Encodes `value` into `out`, returning how many bytes of it were written.
pub fn encode_varlong(value: i64, out: &mut [u8; MAX_VARLONG_LEN]) -> usize {
    let mut rest = value as u64;
    let mut len = 0;
    while rest >= 0x80 {
        out[len] = rest as u8 | 0x80;
        rest >>= 7;
        len += 1;
    }
    out[len] = rest as u8;
    len + 1
}

/// How many bytes the VarLong encoding of `value` takes.
pub const fn varlong_len(value: i64) -> usize {
    let bits = 64 - (value as u64 | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Known encodings from the protocol's documentation.
    const VARINTS: &[(i32, &[u8])] = &[
        (0, &[0x00]),
        (1, &[0x01]),
        (127, &[0x7f]),
        (128, &[0x80, 0x01]),
        (255, &[0xff, 0x01]),
        (25565, &[0xdd, 0xc7, 0x01]),
        (2097151, &[0xff, 0xff, 0x7f]),
        (i32::MAX, &[0xff, 0xff, 0xff, 0xff, 0x07]),
        (-1, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
        (i32::MIN, &[0x80, 0x80, 0x80, 0x80, 0x08]),
    ];

    #[test]
    fn varint_known_encodings() {
        for &(value, bytes) in VARINTS {
            let mut buf = [0; MAX_VARINT_LEN];
            let len = encode_varint(value, &mut buf);
            assert_eq!(&buf[..len], bytes, "encode {value}");
            assert_eq!(varint_len(value), bytes.len(), "len {value}");
            assert_eq!(
                decode_varint(bytes),
                Ok((value, bytes.len())),
                "decode {value}"
            );
        }
    }

    #[test]
    fn varlong_known_encodings() {
        let cases: &[(i64, &[u8])] = &[
            (0, &[0x00]),
            (2147483648, &[0x80, 0x80, 0x80, 0x80, 0x08]),
            (
                i64::MAX,
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],
            ),
            (
                -1,
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
            ),
            (
                i64::MIN,
                &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
            ),
        ];
        for &(value, bytes) in cases {
            let mut buf = [0; MAX_VARLONG_LEN];
            let len = encode_varlong(value, &mut buf);
            assert_eq!(&buf[..len], bytes, "encode {value}");
            assert_eq!(varlong_len(value), bytes.len(), "len {value}");
            assert_eq!(
                decode_varlong(bytes),
                Ok((value, bytes.len())),
                "decode {value}"
            );
        }
    }

    #[test]
    fn partial_buffer_needs_more_bytes() {
        assert_eq!(decode_varint(&[]), Err(VarIntError::Incomplete));
        assert_eq!(decode_varint(&[0x80]), Err(VarIntError::Incomplete));
        assert_eq!(
            decode_varint(&[0xff, 0xff, 0xff, 0xff]),
            Err(VarIntError::Incomplete)
        );
        assert_eq!(decode_varlong(&[0xff; 9]), Err(VarIntError::Incomplete));
    }

    #[test]
    fn overlong_is_malformed() {
        assert_eq!(
            decode_varint(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01]),
            Err(VarIntError::TooLong { max: 5 })
        );
        assert_eq!(
            decode_varint(&[0xff; 5]),
            Err(VarIntError::TooLong { max: 5 })
        );
        assert_eq!(
            decode_varlong(&[0xff; 10]),
            Err(VarIntError::TooLong { max: 10 })
        );
    }

    #[test]
    fn decode_stops_at_the_last_byte() {
        assert_eq!(decode_varint(&[0xac, 0x02, 0xff, 0xff]), Ok((300, 2)));
    }

    proptest! {
        #[test]
        fn varint_round_trips(value: i32, tail in proptest::collection::vec(any::<u8>(), 0..8)) {
            let mut buf = [0; MAX_VARINT_LEN];
            let len = encode_varint(value, &mut buf);
            prop_assert_eq!(len, varint_len(value));
            let mut wire = buf[..len].to_vec();
            wire.extend_from_slice(&tail);
            prop_assert_eq!(decode_varint(&wire), Ok((value, len)));
            for cut in 0..len {
                prop_assert_eq!(decode_varint(&wire[..cut]), Err(VarIntError::Incomplete));
            }
            let mut vec = Vec::new();
            put_varint(&mut vec, value);
            prop_assert_eq!(&vec[..], &buf[..len]);
        }

        #[test]
        fn varlong_round_trips(value: i64) {
            let mut buf = [0; MAX_VARLONG_LEN];
            let len = encode_varlong(value, &mut buf);
            prop_assert_eq!(len, varlong_len(value));
            prop_assert_eq!(decode_varlong(&buf[..len]), Ok((value, len)));
            for cut in 0..len {
                prop_assert_eq!(decode_varlong(&buf[..cut]), Err(VarIntError::Incomplete));
            }
        }

        #[test]
        fn varint_decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..12)) {
            match decode_varint(&bytes) {
                Ok((_, len)) => prop_assert!(len <= MAX_VARINT_LEN && len <= bytes.len()),
                Err(VarIntError::Incomplete) => prop_assert!(bytes.len() < MAX_VARINT_LEN),
                Err(VarIntError::TooLong { max }) => prop_assert_eq!(max, MAX_VARINT_LEN),
            }
        }
    }
}
