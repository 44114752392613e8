//! zlib compression behind one small interface, with two backends: libdeflate (C, the default,
//! feature `libdeflate`) and flate2 with miniz_oxide (pure Rust, feature `flate2`). Both write
//! standard zlib streams, so either side of a connection may use either backend. State is kept
//! and reused from packet to packet.

use crate::error::{DecodeError, EncodeError, InvalidLevel};

#[cfg(not(any(feature = "libdeflate", feature = "flate2")))]
compile_error!("codec needs a zlib backend: enable feature `libdeflate` or `flate2`");

/// A zlib compression level, 0 (store) to 9 (smallest), on the scale both backends share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Level(u8);

impl Level {
    /// Level 4, what Infrarust and many proxies ship: a good speed/size trade-off.
    pub const DEFAULT: Level = Level(4);

    /// A level from 0 to 9.
    pub const fn new(level: u8) -> Result<Level, InvalidLevel> {
        if level <= 9 {
            Ok(Level(level))
        } else {
            Err(InvalidLevel(level))
        }
    }

    /// The level as a number.
    pub const fn get(self) -> u8 {
        self.0
    }
}

impl Default for Level {
    fn default() -> Self {
        Level::DEFAULT
    }
}

/// Which zlib implementation compresses and decompresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// libdeflate via `libdeflater`: whole-buffer, several times faster than flate2.
    #[cfg(feature = "libdeflate")]
    Libdeflate,
    /// flate2 with the pure-Rust miniz_oxide.
    #[cfg(feature = "flate2")]
    Flate2,
}

impl Backend {
    /// Every backend compiled in, the default first.
    pub const ALL: &[Backend] = &[
        #[cfg(feature = "libdeflate")]
        Backend::Libdeflate,
        #[cfg(feature = "flate2")]
        Backend::Flate2,
    ];
}

impl Default for Backend {
    /// libdeflate when it is compiled in, else flate2.
    fn default() -> Self {
        #[cfg(feature = "libdeflate")]
        return Backend::Libdeflate;
        #[cfg(not(feature = "libdeflate"))]
        return Backend::Flate2;
    }
}

/// The compression settings of one side of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compression {
    /// Packets of at least this many bytes (id included) are compressed, smaller ones are sent
    /// as they are.
    pub threshold: usize,
    /// The level packets are compressed at.
    pub level: Level,
    /// The zlib implementation.
    pub backend: Backend,
}

impl Compression {
    /// Compression above `threshold` at [`Level::DEFAULT`] with the default backend.
    pub fn new(threshold: usize) -> Self {
        Compression {
            threshold,
            level: Level::DEFAULT,
            backend: Backend::default(),
        }
    }
}

/// A reusable zlib compressor.
pub(crate) enum Compressor {
    #[cfg(feature = "libdeflate")]
    Libdeflate(libdeflater::Compressor),
    #[cfg(feature = "flate2")]
    Flate2(flate2::Compress),
}

impl Compressor {
    pub(crate) fn new(backend: Backend, level: Level) -> Self {
        match backend {
            #[cfg(feature = "libdeflate")]
            Backend::Libdeflate => {
                let level = libdeflater::CompressionLvl::new(i32::from(level.get()))
                    .expect("libdeflate accepts every level from 0 to 12");
                Compressor::Libdeflate(libdeflater::Compressor::new(level))
            }
            #[cfg(feature = "flate2")]
            Backend::Flate2 => Compressor::Flate2(flate2::Compress::new(
                flate2::Compression::new(u32::from(level.get())),
                true,
            )),
        }
    }

    /// Compresses `input` as one zlib stream into the front of `buf` and returns its length.
    ///
    /// `buf` grows as needed and never shrinks, so in steady state nothing is re-zeroed.
    pub(crate) fn compress(
        &mut self,
        input: &[u8],
        buf: &mut Vec<u8>,
    ) -> Result<usize, EncodeError> {
        match self {
            #[cfg(feature = "libdeflate")]
            Compressor::Libdeflate(compressor) => {
                let bound = compressor.zlib_compress_bound(input.len());
                grow(buf, bound);
                compressor
                    .zlib_compress(input, &mut buf[..bound])
                    .map_err(|_| EncodeError::Compression)
            }
            #[cfg(feature = "flate2")]
            Compressor::Flate2(compressor) => {
                // Stored blocks cost 5 bytes per 64 KiB; the zlib wrapper 6 bytes.
                let bound = input.len() + input.len() / 8192 * 5 + 64;
                grow(buf, bound);
                compressor.reset();
                match compressor.compress(input, &mut buf[..bound], flate2::FlushCompress::Finish) {
                    Ok(flate2::Status::StreamEnd) => Ok(compressor.total_out() as usize),
                    _ => Err(EncodeError::Compression),
                }
            }
        }
    }
}

/// A reusable zlib decompressor.
pub(crate) enum Decompressor {
    #[cfg(feature = "libdeflate")]
    Libdeflate(libdeflater::Decompressor),
    #[cfg(feature = "flate2")]
    Flate2(flate2::Decompress),
}

impl Decompressor {
    pub(crate) fn new(backend: Backend) -> Self {
        match backend {
            #[cfg(feature = "libdeflate")]
            Backend::Libdeflate => Decompressor::Libdeflate(libdeflater::Decompressor::new()),
            #[cfg(feature = "flate2")]
            Backend::Flate2 => Decompressor::Flate2(flate2::Decompress::new(true)),
        }
    }

    /// Inflates the zlib stream `input` into exactly `out.len()` bytes.
    ///
    /// Output never grows past `out`: a stream that inflates further is
    /// [`DecodeError::DecompressedOverrun`], one that inflates to less is
    /// [`DecodeError::DataLengthMismatch`].
    pub(crate) fn decompress(&mut self, input: &[u8], out: &mut [u8]) -> Result<(), DecodeError> {
        let declared = out.len();
        let actual = match self {
            #[cfg(feature = "libdeflate")]
            Decompressor::Libdeflate(decompressor) => {
                use libdeflater::DecompressionError;
                match decompressor.zlib_decompress(input, out) {
                    Ok(actual) => actual,
                    Err(DecompressionError::BadData) => return Err(DecodeError::CorruptZlib),
                    Err(DecompressionError::InsufficientSpace) => {
                        return Err(DecodeError::DecompressedOverrun { declared });
                    }
                }
            }
            #[cfg(feature = "flate2")]
            Decompressor::Flate2(decompressor) => inflate_flate2(decompressor, input, out)?,
        };
        if actual == declared {
            Ok(())
        } else {
            Err(DecodeError::DataLengthMismatch { declared, actual })
        }
    }
}

/// Inflates with flate2, returning the bytes written to `out`.
#[cfg(feature = "flate2")]
fn inflate_flate2(
    decompressor: &mut flate2::Decompress,
    input: &[u8],
    out: &mut [u8],
) -> Result<usize, DecodeError> {
    use flate2::{FlushDecompress, Status};
    decompressor.reset(true);
    let status = decompressor
        .decompress(input, out, FlushDecompress::None)
        .map_err(|_| DecodeError::CorruptZlib)?;
    let written = decompressor.total_out() as usize;
    if status == Status::StreamEnd {
        return Ok(written);
    }
    if written < out.len() {
        // The input ran out before the end of the stream.
        return Err(DecodeError::CorruptZlib);
    }
    // The output is full but the stream has not ended: it is well-formed only if nothing but its
    // end is left. One byte of room tells.
    let rest = &input[decompressor.total_in() as usize..];
    let status = decompressor
        .decompress(rest, &mut [0u8; 1], FlushDecompress::None)
        .map_err(|_| DecodeError::CorruptZlib)?;
    if decompressor.total_out() as usize > written {
        Err(DecodeError::DecompressedOverrun {
            declared: out.len(),
        })
    } else if status == Status::StreamEnd {
        Ok(written)
    } else {
        Err(DecodeError::CorruptZlib)
    }
}

/// Makes `buf` at least `len` bytes long.
fn grow(buf: &mut Vec<u8>, len: usize) {
    if buf.len() < len {
        buf.resize(len, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| (i * 7 % 251) as u8 ^ (i / 300) as u8)
            .collect()
    }

    #[test]
    fn every_backend_reads_every_backends_stream() {
        let input = sample(5000);
        for writer in Backend::ALL.iter().copied() {
            let mut compressor = Compressor::new(writer, Level::DEFAULT);
            let mut buf = Vec::new();
            let len = compressor.compress(&input, &mut buf).unwrap();
            assert!(
                len < input.len(),
                "{writer:?} should shrink a repetitive input"
            );
            for reader in Backend::ALL.iter().copied() {
                let mut out = vec![0; input.len()];
                Decompressor::new(reader)
                    .decompress(&buf[..len], &mut out)
                    .unwrap_or_else(|e| panic!("{writer:?} -> {reader:?}: {e}"));
                assert_eq!(out, input, "{writer:?} -> {reader:?}");
            }
        }
    }

    #[test]
    fn state_is_reused_across_streams() {
        for backend in Backend::ALL.iter().copied() {
            let mut compressor = Compressor::new(backend, Level::DEFAULT);
            let mut decompressor = Decompressor::new(backend);
            let mut buf = Vec::new();
            for len in [3000, 10, 700, 0, 4096] {
                let input = sample(len);
                let n = compressor.compress(&input, &mut buf).unwrap();
                let mut out = vec![0; len];
                decompressor.decompress(&buf[..n], &mut out).unwrap();
                assert_eq!(out, input, "{backend:?} len {len}");
            }
        }
    }

    #[test]
    fn size_mismatches_are_errors() {
        let input = sample(1000);
        for backend in Backend::ALL.iter().copied() {
            let mut buf = Vec::new();
            let n = Compressor::new(backend, Level::DEFAULT)
                .compress(&input, &mut buf)
                .unwrap();
            let mut decompressor = Decompressor::new(backend);
            assert_eq!(
                decompressor.decompress(&buf[..n], &mut vec![0; 1200]),
                Err(DecodeError::DataLengthMismatch {
                    declared: 1200,
                    actual: 1000
                }),
                "{backend:?}"
            );
            assert_eq!(
                decompressor.decompress(&buf[..n], &mut vec![0; 999]),
                Err(DecodeError::DecompressedOverrun { declared: 999 }),
                "{backend:?}"
            );
            assert_eq!(
                decompressor.decompress(&buf[..n / 2], &mut vec![0; 1000]),
                Err(DecodeError::CorruptZlib),
                "{backend:?} truncated stream"
            );
            assert_eq!(
                decompressor.decompress(b"not zlib at all", &mut vec![0; 1000]),
                Err(DecodeError::CorruptZlib),
                "{backend:?} garbage"
            );
            // Still usable after errors.
            let mut out = vec![0; 1000];
            decompressor.decompress(&buf[..n], &mut out).unwrap();
            assert_eq!(out, input);
        }
    }

    #[test]
    fn levels_outside_zero_to_nine_are_refused() {
        assert_eq!(Level::new(9).map(Level::get), Ok(9));
        assert_eq!(Level::new(10), Err(InvalidLevel(10)));
        assert_eq!(Level::default(), Level::new(4).unwrap());
    }
}
