//! `K/N`: which of N shards a run measured (`irgate run --shard K/N`), recorded in its results
//! so that the merge can tell a missing or duplicated shard. The partition itself is
//! `measure::shard`.

use std::fmt;
use std::num::NonZeroUsize;
use std::str::FromStr;

/// `K/N`: the K-th of N shards, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// K, from 1 to N.
    pub index: NonZeroUsize,
    /// N.
    pub count: NonZeroUsize,
}

/// The most shards a run may be split into: each runs at least one bench function in a CI job of
/// its own, and no suite irgate has met comes near. Checked where `K/N` is read, before anything
/// is planned or built, so that a mistyped N (`1/18446744073709551615`) is refused at once.
pub const MAX_SHARDS: usize = 1_000;

impl FromStr for Part {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<Part, String> {
        let bad = || {
            format!(
                "`{}` is not a shard: write K/N, e.g. 2/3 (the 2nd of 3)",
                crate::text::terminal(text)
            )
        };
        let (index, count) = text.split_once('/').ok_or_else(bad)?;
        // Any N of digits alone over the cap, however many digits (no number is made of it).
        let digits = !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit());
        if digits && count.parse::<usize>().ok().is_none_or(|n| n > MAX_SHARDS) {
            return Err(format!(
                "shard {}: N is more than the {MAX_SHARDS} shards irgate splits a run into (each \
                 shard is a CI job running at least one bench function)",
                crate::text::terminal(text)
            ));
        }
        let index: NonZeroUsize = index.parse().map_err(|_| bad())?;
        let count: NonZeroUsize = count.parse().map_err(|_| bad())?;
        if index > count {
            return Err(format!(
                "shard {text}: K must be from 1 to N ({count} shards)"
            ));
        }
        Ok(Part { index, count })
    }
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}
