//! The intercepted pipeline of one direction of a proxied connection: bytes in, decrypted, split
//! into frames, inflated, each packet through the filter chain, then framed, compressed and
//! encrypted for the other side.
//!
//! Fast path: a packet the chain leaves unchanged is forwarded as the frame that arrived, without
//! re-encoding or recompressing, whenever both sides frame packets the same way (same compression
//! threshold). [`Pipeline::set_reencode_unchanged`] turns that off, so every packet is framed
//! anew by this side's encoder.

use crate::cipher::{Decryptor, Encryptor};
use crate::compression::Compression;
use crate::error::PipelineError;
use crate::filter::{Action, Chain, Packet};
use crate::frame::{Frame, FrameDecoder, FrameEncoder};

/// One direction of a proxied connection.
pub struct Pipeline {
    decryptor: Option<Decryptor>,
    decoder: FrameDecoder,
    /// Inbound bytes (decrypted) that do not yet make a whole frame.
    pending: Vec<u8>,
    chain: Chain,
    /// Where filters' changes to a packet go; reused from packet to packet.
    edited: Vec<u8>,
    encoder: FrameEncoder,
    encryptor: Option<Encryptor>,
    reencode_unchanged: bool,
}

impl Pipeline {
    /// A pipeline through `chain`, uncompressed and unencrypted on both sides (the state of a
    /// connection before login).
    pub fn new(chain: Chain) -> Self {
        Pipeline {
            decryptor: None,
            decoder: FrameDecoder::new(None),
            pending: Vec::new(),
            chain,
            edited: Vec::new(),
            encoder: FrameEncoder::new(None),
            encryptor: None,
            reencode_unchanged: false,
        }
    }

    /// Sets the compression of the incoming side.
    pub fn set_inbound_compression(&mut self, compression: Option<Compression>) {
        self.decoder.set_compression(compression);
    }

    /// Sets the compression of the outgoing side.
    pub fn set_outbound_compression(&mut self, compression: Option<Compression>) {
        self.encoder.set_compression(compression);
    }

    /// Decrypts all further input with AES-128-CFB8 under `secret` (key and IV).
    pub fn enable_inbound_encryption(&mut self, secret: &[u8; 16]) {
        self.decryptor = Some(Decryptor::new(secret, secret));
    }

    /// Encrypts all further output with AES-128-CFB8 under `secret` (key and IV).
    pub fn enable_outbound_encryption(&mut self, secret: &[u8; 16]) {
        self.encryptor = Some(Encryptor::new(secret, secret));
    }

    /// Re-encodes packets the chain left unchanged instead of forwarding their frames as they
    /// arrived: for example to normalise non-minimal VarInts or the compression level.
    pub fn set_reencode_unchanged(&mut self, reencode: bool) {
        self.reencode_unchanged = reencode;
    }

    /// The filter chain.
    pub fn chain_mut(&mut self) -> &mut Chain {
        &mut self.chain
    }

    /// Takes the next bytes from the incoming side and appends what goes to the outgoing side to
    /// `out`. A frame split across calls is kept until its last byte arrives.
    ///
    /// On error, the frames before the bad one have been written to `out` (encrypted if
    /// encryption is on); the connection should then be closed.
    pub fn process(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), PipelineError> {
        let start = out.len();
        let result = if self.pending.is_empty() && self.decryptor.is_none() {
            let (used, result) = self.forward_frames(input, out);
            self.pending.extend_from_slice(&input[used..]);
            result
        } else {
            let old = self.pending.len();
            self.pending.extend_from_slice(input);
            if let Some(decryptor) = &mut self.decryptor {
                decryptor.decrypt(&mut self.pending[old..]);
            }
            let pending = std::mem::take(&mut self.pending);
            let (used, result) = self.forward_frames(&pending, out);
            self.pending = pending;
            self.pending.drain(..used);
            result
        };
        if let Some(encryptor) = &mut self.encryptor {
            encryptor.encrypt(&mut out[start..]);
        }
        result
    }

    /// Code no benchmark runs, for calibration (feature `layout-perturbation`): forwards `input`
    /// twice, so the inner function has one more caller and another inlining context.
    #[cfg(feature = "layout-perturbation")]
    #[doc(hidden)]
    pub fn forward_twice(&mut self, input: &[u8], out: &mut Vec<u8>) -> usize {
        let (first, _) = self.forward_frames(input, out);
        let (second, _) = self.forward_frames(&input[first..], out);
        first + second
    }

    /// Ends the stream: an error if the input stopped in the middle of a frame.
    pub fn finish(&self) -> Result<(), PipelineError> {
        Ok(self.decoder.finish(&self.pending)?)
    }

    /// Forwards every whole frame at the start of `src`; returns the bytes used.
    fn forward_frames(
        &mut self,
        src: &[u8],
        out: &mut Vec<u8>,
    ) -> (usize, Result<(), PipelineError>) {
        let fast_path =
            !self.reencode_unchanged && self.decoder.threshold() == self.encoder.threshold();
        let mut used = 0;
        loop {
            let frame = match self.decoder.decode(&src[used..]) {
                Ok(Some(frame)) => frame,
                Ok(None) => return (used, Ok(())),
                Err(error) => return (used, Err(error.into())),
            };
            used += frame.raw.len();
            let forwarded = forward(
                frame,
                &mut self.chain,
                &mut self.edited,
                &mut self.encoder,
                fast_path,
                out,
            );
            if let Err(error) = forwarded {
                return (used, Err(error));
            }
        }
    }
}

/// Runs one frame's packet through the chain and writes what should go out.
#[inline]
fn forward(
    frame: Frame<'_>,
    chain: &mut Chain,
    edited: &mut Vec<u8>,
    encoder: &mut FrameEncoder,
    fast_path: bool,
    out: &mut Vec<u8>,
) -> Result<(), PipelineError> {
    let (id, payload) = frame.id_and_payload()?;
    let mut packet = Packet::new(id, payload, edited);
    match chain.apply(&mut packet) {
        Action::Drop => {}
        Action::Pass if fast_path && !packet.is_modified() => out.extend_from_slice(frame.raw),
        Action::Pass => encoder.encode(packet.id(), packet.payload(), out)?,
    }
    Ok(())
}
