//! Two small checks, benchmarked with iai-callgrind behind the `callgrind` feature.

/// The Luhn check digit of the decimal digits in `digits` (other bytes are skipped).
#[inline(never)]
pub fn luhn(digits: &[u8]) -> u8 {
    let mut sum = 0u32;
    for (i, d) in digits.iter().rev().filter(|d| d.is_ascii_digit()).enumerate() {
        let mut v = u32::from(d - b'0');
        if i % 2 == 0 {
            v *= 2;
            if v > 9 {
                v -= 9;
            }
        }
        sum += v;
    }
    ((10 - sum % 10) % 10) as u8
}

/// Adler-32 of `bytes`.
#[inline(never)]
pub fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in bytes {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    (b << 16) | a
}
