//! How one side of a connection frames Play-state packets: compression above a threshold or none,
//! AES-128-CFB8 or plaintext. There is no login handshake on these connections, so both ends of a
//! side agree on its settings in advance and an encrypted side uses [`LOAD_KEY`].

use codec::cipher::{Decryptor, Encryptor};
use codec::compression::Compression;
use codec::error::{DecodeError, EncodeError};
use codec::filter::Chain;
use codec::frame::{FrameDecoder, FrameEncoder};
use codec::pipeline::Pipeline;
use serde::{Deserialize, Serialize};

/// The shared secret (AES key and IV) of every encrypted side: a load-testing key, not a secret.
pub const LOAD_KEY: [u8; 16] = *b"irgate-load-key!";

/// The framing of one side of a connection.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wire {
    /// Packets of at least this many bytes are zlib-compressed; `None`: compression off.
    pub threshold: Option<usize>,
    /// Whether the side is encrypted with AES-128-CFB8 under [`LOAD_KEY`].
    pub encrypt: bool,
}

impl Wire {
    fn compression(self) -> Option<Compression> {
        self.threshold.map(Compression::new)
    }
}

/// A pipeline that reads frames framed as `inbound` and writes them framed as `outbound`.
pub fn pipeline(inbound: Wire, outbound: Wire, chain: Chain) -> Pipeline {
    let mut pipeline = Pipeline::new(chain);
    pipeline.set_inbound_compression(inbound.compression());
    pipeline.set_outbound_compression(outbound.compression());
    if inbound.encrypt {
        pipeline.enable_inbound_encryption(&LOAD_KEY);
    }
    if outbound.encrypt {
        pipeline.enable_outbound_encryption(&LOAD_KEY);
    }
    pipeline
}

/// The sending half of a client: packets to wire bytes.
pub struct Sender {
    encoder: FrameEncoder,
    encryptor: Option<Encryptor>,
}

impl Sender {
    /// A sender framing as `wire`.
    pub fn new(wire: Wire) -> Self {
        Sender {
            encoder: FrameEncoder::new(wire.compression()),
            encryptor: wire.encrypt.then(|| Encryptor::new(&LOAD_KEY, &LOAD_KEY)),
        }
    }

    /// Appends packet `id` with `payload`, framed and encrypted, to `out`.
    pub fn send(&mut self, id: i32, payload: &[u8], out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let start = out.len();
        self.encoder.encode(id, payload, out)?;
        if let Some(encryptor) = &mut self.encryptor {
            encryptor.encrypt(&mut out[start..]);
        }
        Ok(())
    }

    /// Encrypts raw bytes, as if they had been framed: how a hostile client sends malformed
    /// frames on an encrypted side.
    pub fn send_raw(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(bytes);
        if let Some(encryptor) = &mut self.encryptor {
            encryptor.encrypt(&mut out[start..]);
        }
    }
}

/// The receiving half of a client: wire bytes to packets.
pub struct Receiver {
    decryptor: Option<Decryptor>,
    decoder: FrameDecoder,
    /// Decrypted bytes that do not yet make a whole frame.
    pending: Vec<u8>,
}

impl Receiver {
    /// A receiver of frames framed as `wire`.
    pub fn new(wire: Wire) -> Self {
        Receiver {
            decryptor: wire.encrypt.then(|| Decryptor::new(&LOAD_KEY, &LOAD_KEY)),
            decoder: FrameDecoder::new(wire.compression()),
            pending: Vec::new(),
        }
    }

    /// Takes the next bytes and calls `packet(id, payload)` for every frame they complete.
    pub fn receive(
        &mut self,
        bytes: &[u8],
        mut packet: impl FnMut(i32, &[u8]),
    ) -> Result<(), DecodeError> {
        let old = self.pending.len();
        self.pending.extend_from_slice(bytes);
        if let Some(decryptor) = &mut self.decryptor {
            decryptor.decrypt(&mut self.pending[old..]);
        }
        let mut used = 0;
        let result = loop {
            match self.decoder.decode(&self.pending[used..]) {
                Ok(Some(frame)) => {
                    used += frame.raw.len();
                    match frame.id_and_payload() {
                        Ok((id, payload)) => packet(id, payload),
                        Err(error) => break Err(error),
                    }
                }
                Ok(None) => break Ok(()),
                Err(error) => break Err(error),
            }
        };
        self.pending.drain(..used);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sender_and_receiver_agree_on_every_wire() {
        for threshold in [None, Some(64)] {
            for encrypt in [false, true] {
                let wire = Wire { threshold, encrypt };
                let mut sender = Sender::new(wire);
                let mut bytes = Vec::new();
                let big = vec![7u8; 300];
                sender.send(1, b"small", &mut bytes).unwrap();
                sender.send(2, &big, &mut bytes).unwrap();
                let mut receiver = Receiver::new(wire);
                let mut seen = Vec::new();
                // Byte by byte: frames split anywhere are reassembled.
                for byte in &bytes {
                    receiver
                        .receive(std::slice::from_ref(byte), |id, p| {
                            seen.push((id, p.to_vec()))
                        })
                        .unwrap();
                }
                assert_eq!(
                    seen,
                    vec![(1, b"small".to_vec()), (2, big.clone())],
                    "{wire:?}"
                );
            }
        }
    }

    #[test]
    fn pipeline_translates_between_wires() {
        let client = Wire {
            threshold: Some(32),
            encrypt: true,
        };
        let backend = Wire::default();
        let mut bytes = Vec::new();
        Sender::new(client)
            .send(5, &[1u8; 100], &mut bytes)
            .unwrap();
        let mut out = Vec::new();
        pipeline(client, backend, Chain::new())
            .process(&bytes, &mut out)
            .unwrap();
        let mut seen = Vec::new();
        Receiver::new(backend)
            .receive(&out, |id, p| seen.push((id, p.len())))
            .unwrap();
        assert_eq!(seen, vec![(5, 100)]);
    }
}
