//! Typed errors of the codec. Decoding never panics on bad input: it returns one of these.

use thiserror::Error;

/// Why a VarInt or VarLong could not be read from a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum VarIntError {
    /// The buffer ends before the last byte of the number: read more input and retry.
    #[error("VarInt is incomplete: more bytes are needed")]
    Incomplete,
    /// The number has more 7-bit groups than its type allows (5 for VarInt, 10 for VarLong).
    #[error("VarInt is longer than {max} bytes")]
    TooLong {
        /// The most bytes this kind of number may take.
        max: usize,
    },
}

/// Why a frame could not be decoded. Every variant except [`DecodeError::TruncatedFrame`] means the
/// stream is malformed and the connection should be closed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    /// A VarInt in the frame (length, data length or packet id) has too many bytes.
    #[error("malformed {field}: {source}")]
    VarInt {
        /// Which field held the bad VarInt.
        field: Field,
        /// What was wrong with it.
        source: VarIntError,
    },
    /// A field inside a frame runs past the end of the frame.
    #[error("{field} runs past the end of its frame")]
    Truncated {
        /// The field that was cut off.
        field: Field,
    },
    /// The input ended in the middle of a frame.
    #[error(
        "truncated frame: the stream ended after {available} bytes of a frame{}",
        expected.map(|n| format!(" of {n}")).unwrap_or_default()
    )]
    TruncatedFrame {
        /// The frame's size (length prefix included), when its length prefix was complete.
        expected: Option<usize>,
        /// Bytes of it that were present.
        available: usize,
    },
    /// A length field is negative.
    #[error("negative {field}: {value}")]
    NegativeLength {
        /// The field (frame length or data length).
        field: Field,
        /// The value read.
        value: i32,
    },
    /// A length field is above the protocol's cap.
    #[error("{field} {len} exceeds the maximum of {max} bytes")]
    TooLarge {
        /// The field (frame length or data length).
        field: Field,
        /// The value read.
        len: usize,
        /// The cap it exceeds.
        max: usize,
    },
    /// A compressed packet declares a size below the compression threshold.
    #[error("compressed packet of {data_len} bytes is below the threshold of {threshold}")]
    BelowThreshold {
        /// The declared uncompressed size.
        data_len: usize,
        /// The connection's compression threshold.
        threshold: usize,
    },
    /// The zlib stream is not valid.
    #[error("corrupt zlib stream")]
    CorruptZlib,
    /// The zlib stream inflates to fewer bytes than the frame declares.
    #[error("data length mismatch: declared {declared} bytes, decompressed {actual}")]
    DataLengthMismatch {
        /// The declared uncompressed size.
        declared: usize,
        /// The size the stream actually inflated to.
        actual: usize,
    },
    /// The zlib stream inflates to more bytes than the frame declares (a decompression bomb is
    /// stopped here: output never grows past the declared, capped size).
    #[error("decompressed data overruns the declared {declared} bytes")]
    DecompressedOverrun {
        /// The declared uncompressed size.
        declared: usize,
    },
}

/// Why a packet could not be encoded into a frame.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EncodeError {
    /// The packet (or its compressed form) does not fit in one frame.
    #[error("packet of {len} bytes exceeds the maximum of {max} bytes")]
    PacketTooLarge {
        /// The size that was too large.
        len: usize,
        /// The cap it exceeds.
        max: usize,
    },
    /// The compressor reported a failure.
    #[error("compression failed")]
    Compression,
}

/// The wire field an error refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The VarInt length prefix of a frame.
    FrameLength,
    /// The uncompressed-size VarInt of a frame on a compressed connection.
    DataLength,
    /// The VarInt packet id at the start of a packet.
    PacketId,
}

impl std::fmt::Display for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Field::FrameLength => "frame length",
            Field::DataLength => "data length",
            Field::PacketId => "packet id",
        })
    }
}

/// A compression level outside the range both backends understand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("compression level {0} is outside 0..=9")]
pub struct InvalidLevel(pub u8);

/// Why the pipeline stopped. The connection's state is then undefined: close it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PipelineError {
    /// An inbound frame was malformed (or cut off at [`crate::pipeline::Pipeline::finish`]).
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// An outbound packet could not be framed.
    #[error(transparent)]
    Encode(#[from] EncodeError),
}
