//! Two small text functions, benchmarked by two bench targets.

/// Counts the words of `text` (runs of non-space bytes).
#[inline(never)]
pub fn count_words(text: &str) -> usize {
    let mut words = 0;
    let mut in_word = false;
    for byte in text.bytes() {
        let space = byte == b' ' || byte == b'\n';
        if !space && !in_word {
            words += 1;
        }
        in_word = !space;
    }
    words
}

/// A 32-bit FNV-1a digest of `bytes`.
#[inline(never)]
pub fn fnv1a(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for &byte in bytes {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}
