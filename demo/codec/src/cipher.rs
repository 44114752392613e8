//! AES-128-CFB8, the stream cipher of an encrypted Minecraft connection (which uses its shared
//! secret as both key and IV), built on RustCrypto's `aes`.
//!
//! CFB8 runs one AES block per byte: the keystream byte is the first byte of the encrypted
//! 16-byte shift register, and each ciphertext byte is shifted into the register. Encryption is
//! therefore serial. Decryption knows every ciphertext byte up front, so it builds the registers of
//! a batch of bytes and encrypts them in parallel. Both touch only the state in this struct.

use aes::Aes128;
use aes::cipher::array::Array;
use aes::cipher::consts::U16;
use aes::cipher::typenum::Unsigned;
use aes::cipher::{
    BlockCipherEncBackend, BlockCipherEncClosure, BlockCipherEncrypt, BlockSizeUser, KeyInit,
    ParBlocks,
};

/// Encrypts a stream with AES-128-CFB8.
#[derive(Clone)]
pub struct Encryptor {
    aes: Aes128,
    register: u128,
}

impl Encryptor {
    /// An encryptor at the start of a stream. Minecraft passes its shared secret as both.
    pub fn new(key: &[u8; 16], iv: &[u8; 16]) -> Self {
        Encryptor {
            aes: Aes128::new(&Array::from(*key)),
            register: u128::from_le_bytes(*iv),
        }
    }

    /// Encrypts the next bytes of the stream in place.
    pub fn encrypt(&mut self, buf: &mut [u8]) {
        self.aes.encrypt_with_backend(EncryptBytes {
            register: &mut self.register,
            buf,
        });
    }
}

/// Decrypts a stream with AES-128-CFB8.
#[derive(Clone)]
pub struct Decryptor {
    aes: Aes128,
    register: u128,
}

impl Decryptor {
    /// A decryptor at the start of a stream. Minecraft passes its shared secret as both.
    pub fn new(key: &[u8; 16], iv: &[u8; 16]) -> Self {
        Decryptor {
            aes: Aes128::new(&Array::from(*key)),
            register: u128::from_le_bytes(*iv),
        }
    }

    /// Decrypts the next bytes of the stream in place.
    pub fn decrypt(&mut self, buf: &mut [u8]) {
        self.aes.encrypt_with_backend(DecryptBytes {
            register: &mut self.register,
            buf,
        });
    }
}

/// Shifts `byte` into the register. Byte 0 of the register (its first AES input byte) is the
/// least significant byte of the `u128`.
#[inline(always)]
fn shift_in(register: u128, byte: u8) -> u128 {
    (register >> 8) | (u128::from(byte) << 120)
}

/// The first keystream byte for `register`.
#[inline(always)]
fn keystream<B: BlockCipherEncBackend<BlockSize = U16>>(backend: &B, register: u128) -> u8 {
    let mut block = Array::from(register.to_le_bytes());
    backend.encrypt_block_inplace(&mut block);
    block[0]
}

/// The encryption loop, run with the AES backend the CPU supports.
struct EncryptBytes<'a> {
    register: &'a mut u128,
    buf: &'a mut [u8],
}

impl BlockSizeUser for EncryptBytes<'_> {
    type BlockSize = U16;
}

impl BlockCipherEncClosure for EncryptBytes<'_> {
    #[inline(always)]
    fn call<B: BlockCipherEncBackend<BlockSize = U16>>(self, backend: &B) {
        let mut register = *self.register;
        for byte in self.buf.iter_mut() {
            *byte ^= keystream(backend, register);
            register = shift_in(register, *byte);
        }
        *self.register = register;
    }
}

/// The decryption loop: registers for a batch of bytes, one parallel AES call, then the XORs.
struct DecryptBytes<'a> {
    register: &'a mut u128,
    buf: &'a mut [u8],
}

impl BlockSizeUser for DecryptBytes<'_> {
    type BlockSize = U16;
}

impl BlockCipherEncClosure for DecryptBytes<'_> {
    #[inline(always)]
    fn call<B: BlockCipherEncBackend<BlockSize = U16>>(self, backend: &B) {
        let mut register = *self.register;
        let mut blocks = ParBlocks::<B>::default();
        let mut chunks = self.buf.chunks_exact_mut(B::ParBlocksSize::USIZE);
        for chunk in &mut chunks {
            for (block, &byte) in blocks.iter_mut().zip(chunk.iter()) {
                *block = Array::from(register.to_le_bytes());
                register = shift_in(register, byte);
            }
            backend.encrypt_par_blocks_inplace(&mut blocks);
            for (byte, block) in chunk.iter_mut().zip(blocks.iter()) {
                *byte ^= block[0];
            }
        }
        for byte in chunks.into_remainder() {
            let cipher = *byte;
            *byte ^= keystream(backend, register);
            register = shift_in(register, cipher);
        }
        *self.register = register;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::cipher::KeyIvInit;
    use proptest::prelude::*;

    // NIST SP 800-38A, F.3.7 and F.3.8: CFB8-AES128.
    const NIST_KEY: [u8; 16] = [
        0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f,
        0x3c,
    ];
    const NIST_IV: [u8; 16] = [
        0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
        0x0f,
    ];
    const NIST_PLAINTEXT: [u8; 18] = [
        0x6b, 0xc1, 0xbe, 0xe2, 0x2e, 0x40, 0x9f, 0x96, 0xe9, 0x3d, 0x7e, 0x11, 0x73, 0x93, 0x17,
        0x2a, 0xae, 0x2d,
    ];
    const NIST_CIPHERTEXT: [u8; 18] = [
        0x3b, 0x79, 0x42, 0x4c, 0x9c, 0x0d, 0xd4, 0x36, 0xba, 0xce, 0x9e, 0x0e, 0xd4, 0x58, 0x6a,
        0x4f, 0x32, 0xb9,
    ];

    #[test]
    fn nist_sp800_38a_cfb8_aes128_encrypt() {
        let mut buf = NIST_PLAINTEXT;
        Encryptor::new(&NIST_KEY, &NIST_IV).encrypt(&mut buf);
        assert_eq!(buf, NIST_CIPHERTEXT);
    }

    #[test]
    fn nist_sp800_38a_cfb8_aes128_decrypt() {
        let mut buf = NIST_CIPHERTEXT;
        Decryptor::new(&NIST_KEY, &NIST_IV).decrypt(&mut buf);
        assert_eq!(buf, NIST_PLAINTEXT);
    }

    #[test]
    fn nist_vectors_byte_by_byte() {
        let mut encryptor = Encryptor::new(&NIST_KEY, &NIST_IV);
        let mut decryptor = Decryptor::new(&NIST_KEY, &NIST_IV);
        for i in 0..NIST_PLAINTEXT.len() {
            let mut byte = [NIST_PLAINTEXT[i]];
            encryptor.encrypt(&mut byte);
            assert_eq!(byte[0], NIST_CIPHERTEXT[i], "encrypt byte {i}");
            decryptor.decrypt(&mut byte);
            assert_eq!(byte[0], NIST_PLAINTEXT[i], "decrypt byte {i}");
        }
    }

    proptest! {
        /// Any split of a stream into calls gives the same bytes as RustCrypto's `cfb8` in one go.
        #[test]
        fn matches_rustcrypto_cfb8(
            key: [u8; 16],
            data in proptest::collection::vec(any::<u8>(), 0..600),
            cuts in proptest::collection::vec(0usize..600, 0..4),
        ) {
            let mut expected = data.clone();
            cfb8::Encryptor::<Aes128>::new(&key.into(), &key.into()).encrypt(&mut expected);

            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(data.len())).collect();
            cuts.push(0);
            cuts.push(data.len());
            cuts.sort_unstable();

            let mut encrypted = data.clone();
            let mut encryptor = Encryptor::new(&key, &key);
            for pair in cuts.windows(2) {
                encryptor.encrypt(&mut encrypted[pair[0]..pair[1]]);
            }
            prop_assert_eq!(&encrypted, &expected);

            let mut reference = expected.clone();
            cfb8::Decryptor::<Aes128>::new(&key.into(), &key.into()).decrypt(&mut reference);
            prop_assert_eq!(&reference, &data);

            let mut decrypted = expected;
            let mut decryptor = Decryptor::new(&key, &key);
            for pair in cuts.windows(2) {
                decryptor.decrypt(&mut decrypted[pair[0]..pair[1]]);
            }
            prop_assert_eq!(&decrypted, &data);
        }
    }
}
