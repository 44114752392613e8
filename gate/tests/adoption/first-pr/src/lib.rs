//! `key=value` lines: split, checked and counted.

/// A 31-multiplier hash of `data`.
#[inline]
pub fn checksum(data: &[u8]) -> u32 {
    data.iter()
        .fold(7u32, |acc, b| acc.wrapping_mul(31).wrapping_add(u32::from(*b)))
}

/// The key and the value of a `key=value` line.
pub fn parse_line(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once('=')?;
    Some((key.trim(), value.trim()))
}

/// How many words `text` holds.
pub fn count_words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// The kernel's name, as Linux tells it in `/proc`.
pub fn os_type() -> usize {
    std::fs::read_to_string("/proc/sys/kernel/ostype").map_or(0, |name| name.trim().len())
}

/// What the benchmarks call: the library's functions behind one door.
#[cfg(feature = "bench")]
pub mod bench_api {
    /// [`super::checksum`], inlined into the benchmark.
    #[inline]
    pub fn checksum(data: &[u8]) -> u32 {
        super::checksum(data)
    }

    /// [`super::parse_line`], the key's length.
    pub fn parse(line: &str) -> usize {
        super::parse_line(line).map_or(0, |(key, _)| key.len())
    }

    /// [`super::count_words`].
    pub fn words(text: &str) -> usize {
        super::count_words(text)
    }

    /// [`super::os_type`].
    pub fn os_type() -> usize {
        super::os_type()
    }
}
