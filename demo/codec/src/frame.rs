//! Length-prefixed frames. Without compression a frame is `VarInt length | packet`; with it,
//! `VarInt length | VarInt data length | body`, where the body is the zlib-compressed packet when
//! `data length` (the packet's size) is non-zero and the packet as it is when it is zero. A packet
//! is `VarInt id | payload`.

use crate::compression::{Compression, Compressor, Decompressor};
use crate::error::{DecodeError, EncodeError, Field, VarIntError};
use crate::varint::{MAX_VARINT_LEN, decode_varint, put_varint, varint_len};

/// The largest frame, length prefix excluded: 2 MiB - 1, the most a 3-byte VarInt holds, as in
/// the vanilla protocol.
pub const MAX_FRAME_LEN: usize = (1 << 21) - 1;
/// The largest packet a compressed frame may inflate to: 8 MiB, as in the vanilla protocol.
pub const MAX_DATA_LEN: usize = 8 << 20;

/// One decoded frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    /// The frame as it arrived, length prefix included: what a proxy forwards when it leaves the
    /// packet alone. Its length is the number of input bytes the frame took.
    pub raw: &'a [u8],
    /// The packet, decompressed: VarInt id followed by the payload.
    pub packet: &'a [u8],
}

impl<'a> Frame<'a> {
    /// Splits the packet into its id and payload.
    #[inline]
    pub fn id_and_payload(&self) -> Result<(i32, &'a [u8]), DecodeError> {
        let (id, len) = decode_varint(self.packet).map_err(|e| field_error(Field::PacketId, e))?;
        Ok((id, &self.packet[len..]))
    }
}

/// Maps a VarInt error inside a complete frame: running out of bytes there is a truncation, not
/// a reason to wait for more input.
fn field_error(field: Field, error: VarIntError) -> DecodeError {
    match error {
        VarIntError::Incomplete => DecodeError::Truncated { field },
        source => DecodeError::VarInt { field, source },
    }
}

/// Splits a byte stream into frames, inflating compressed ones. The decompressor and its output
/// buffer are reused from frame to frame.
pub struct FrameDecoder {
    inflate: Option<(usize, Decompressor)>,
    inflated: Vec<u8>,
}

impl FrameDecoder {
    /// A decoder for a connection with the given compression (`None`: uncompressed).
    pub fn new(compression: Option<Compression>) -> Self {
        let mut decoder = FrameDecoder {
            inflate: None,
            inflated: Vec::new(),
        };
        decoder.set_compression(compression);
        decoder
    }

    /// Switches compression on, off or to a new threshold, as the protocol's Set Compression
    /// packet does.
    pub fn set_compression(&mut self, compression: Option<Compression>) {
        self.inflate = compression.map(|c| (c.threshold, Decompressor::new(c.backend)));
    }

    /// The compression threshold, `None` when compression is off.
    pub fn threshold(&self) -> Option<usize> {
        self.inflate.as_ref().map(|(threshold, _)| *threshold)
    }

    /// Decodes the frame at the start of `src`. `Ok(None)` means `src` holds only part of a
    /// frame: call again with more bytes.
    #[inline]
    pub fn decode<'a>(&'a mut self, src: &'a [u8]) -> Result<Option<Frame<'a>>, DecodeError> {
        let (len, prefix) = match decode_varint(src) {
            Ok(length) => length,
            Err(VarIntError::Incomplete) => return Ok(None),
            Err(source) => {
                return Err(DecodeError::VarInt {
                    field: Field::FrameLength,
                    source,
                });
            }
        };
        let len = checked_len(Field::FrameLength, len, MAX_FRAME_LEN)?;
        let Some(raw) = src.get(..prefix + len) else {
            return Ok(None);
        };
        let body = &raw[prefix..];
        let packet = match &mut self.inflate {
            None => body,
            Some((threshold, decompressor)) => {
                inflate(*threshold, decompressor, &mut self.inflated, body)?
            }
        };
        Ok(Some(Frame { raw, packet }))
    }

    /// Checks that `rest`, the input left over at the end of a stream, holds no partial frame.
    pub fn finish(&self, rest: &[u8]) -> Result<(), DecodeError> {
        if rest.is_empty() {
            return Ok(());
        }
        let expected = match decode_varint(rest) {
            Ok((len, prefix)) => {
                Some(prefix + checked_len(Field::FrameLength, len, MAX_FRAME_LEN)?)
            }
            Err(VarIntError::Incomplete) => None,
            Err(source) => {
                return Err(DecodeError::VarInt {
                    field: Field::FrameLength,
                    source,
                });
            }
        };
        Err(DecodeError::TruncatedFrame {
            expected,
            available: rest.len(),
        })
    }
}

/// The packet in the body of a frame on a compressed connection: the body after its data length
/// when that is zero, else the body inflated into `inflated`.
fn inflate<'a>(
    threshold: usize,
    decompressor: &mut Decompressor,
    inflated: &'a mut Vec<u8>,
    body: &'a [u8],
) -> Result<&'a [u8], DecodeError> {
    let (data_len, n) = decode_varint(body).map_err(|e| field_error(Field::DataLength, e))?;
    let compressed = &body[n..];
    if data_len == 0 {
        return Ok(compressed);
    }
    let data_len = checked_len(Field::DataLength, data_len, MAX_DATA_LEN)?;
    if data_len < threshold {
        return Err(DecodeError::BelowThreshold {
            data_len,
            threshold,
        });
    }
    if inflated.len() < data_len {
        inflated.resize(data_len, 0);
    }
    let out = &mut inflated[..data_len];
    decompressor.decompress(compressed, out)?;
    Ok(out)
}

/// Checks a length field: not negative, not above `max`.
#[inline]
fn checked_len(field: Field, value: i32, max: usize) -> Result<usize, DecodeError> {
    let len = usize::try_from(value).map_err(|_| DecodeError::NegativeLength { field, value })?;
    if len > max {
        return Err(DecodeError::TooLarge { field, len, max });
    }
    Ok(len)
}

/// Writes packets as frames, compressing those at or above the threshold. The compressor and its
/// buffers are reused from packet to packet.
pub struct FrameEncoder {
    deflate: Option<(usize, Compressor)>,
    /// The packet (id and payload) gathered for the compressor.
    staged: Vec<u8>,
    /// The compressor's output.
    deflated: Vec<u8>,
}

impl FrameEncoder {
    /// An encoder for a connection with the given compression (`None`: uncompressed).
    pub fn new(compression: Option<Compression>) -> Self {
        let mut encoder = FrameEncoder {
            deflate: None,
            staged: Vec::new(),
            deflated: Vec::new(),
        };
        encoder.set_compression(compression);
        encoder
    }

    /// Switches compression on, off or to new settings.
    pub fn set_compression(&mut self, compression: Option<Compression>) {
        self.deflate = compression.map(|c| (c.threshold, Compressor::new(c.backend, c.level)));
    }

    /// The compression threshold, `None` when compression is off.
    pub fn threshold(&self) -> Option<usize> {
        self.deflate.as_ref().map(|(threshold, _)| *threshold)
    }

    /// Code no benchmark runs, for calibration (feature `layout-perturbation`): encodes `payload`
    /// under each of `ids`, so the encoder has one more (non-inlined) caller.
    #[cfg(feature = "layout-perturbation")]
    #[doc(hidden)]
    #[inline(never)]
    pub fn encode_each(
        &mut self,
        ids: &[i32],
        payload: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        for &id in ids {
            self.encode(id, payload, out)?;
        }
        Ok(())
    }

    /// Appends one frame holding packet `id` with `payload` to `out`.
    #[inline]
    pub fn encode(
        &mut self,
        id: i32,
        payload: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        let packet_len = varint_len(id) + payload.len();
        let data_len_field = match &mut self.deflate {
            None => false,
            Some((threshold, _)) if packet_len < *threshold => true,
            Some((_, compressor)) => {
                let buffers = (&mut self.staged, &mut self.deflated);
                return encode_compressed(compressor, buffers, id, payload, out);
            }
        };
        let frame_len = packet_len + usize::from(data_len_field);
        check_len(frame_len, MAX_FRAME_LEN)?;
        out.reserve(MAX_VARINT_LEN + frame_len);
        put_varint(out, frame_len as i32);
        if data_len_field {
            out.push(0);
        }
        put_varint(out, id);
        out.extend_from_slice(payload);
        Ok(())
    }
}

/// The compressed case of [`FrameEncoder::encode`]: the packet is gathered into `staged`,
/// compressed into `deflated`, then framed into `out`.
fn encode_compressed(
    compressor: &mut Compressor,
    (staged, deflated): (&mut Vec<u8>, &mut Vec<u8>),
    id: i32,
    payload: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    let packet_len = varint_len(id) + payload.len();
    check_len(packet_len, MAX_DATA_LEN)?;
    staged.clear();
    put_varint(staged, id);
    staged.extend_from_slice(payload);
    let deflated_len = compressor.compress(staged, deflated)?;
    let frame_len = varint_len(packet_len as i32) + deflated_len;
    check_len(frame_len, MAX_FRAME_LEN)?;
    out.reserve(MAX_VARINT_LEN + frame_len);
    put_varint(out, frame_len as i32);
    put_varint(out, packet_len as i32);
    out.extend_from_slice(&deflated[..deflated_len]);
    Ok(())
}

#[inline]
fn check_len(len: usize, max: usize) -> Result<(), EncodeError> {
    if len > max {
        Err(EncodeError::PacketTooLarge { len, max })
    } else {
        Ok(())
    }
}
