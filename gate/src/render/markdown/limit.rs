//! How long a rendered report may be: GitHub's limits on a comment and a step summary, and
//! [`Limit`], which counts a text as GitHub does.

use crate::text::thousands;

/// GitHub's limit on a pull-request comment: 65,536 characters (ANCHORS.md, "GitHub").
pub const GITHUB_COMMENT_CHARS: usize = 65_536;

/// GitHub's limit on a job's step summary (`$GITHUB_STEP_SUMMARY`): 1 MiB per step (ANCHORS.md,
/// "Peers today").
pub const GITHUB_STEP_SUMMARY_BYTES: usize = 1024 * 1024;

/// What a [`Limit`] keeps below GitHub's: room for the hidden marker line the comment client puts
/// first (`irgate_github::MARKER`, 23 characters) or for what else the step writes to its summary,
/// and for a count of GitHub's that differs from ours.
pub const MARGIN: usize = 1_024;

/// How a [`Limit`] counts a text's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Characters, as GitHub limits a comment. GitHub does not say whether it counts code points
    /// or UTF-16 code units; this counts UTF-16 code units, never fewer than code points, so the
    /// limit holds either way.
    Chars,
    /// Bytes of UTF-8, as a step summary file is measured.
    Bytes,
}

/// The most a rendered report may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// The largest length, in `unit`s.
    pub max: usize,
    /// How the length is counted.
    pub unit: Unit,
}

impl Limit {
    /// The pull-request comment's body: GitHub's 65,536 characters less [`MARGIN`].
    pub const COMMENT: Limit = Limit::chars(GITHUB_COMMENT_CHARS - MARGIN);

    /// The step summary: GitHub's 1 MiB less [`MARGIN`].
    pub const STEP_SUMMARY: Limit = Limit::bytes(GITHUB_STEP_SUMMARY_BYTES - MARGIN);

    /// At most `max` characters.
    pub const fn chars(max: usize) -> Limit {
        Limit {
            max,
            unit: Unit::Chars,
        }
    }

    /// At most `max` bytes.
    pub const fn bytes(max: usize) -> Limit {
        Limit {
            max,
            unit: Unit::Bytes,
        }
    }

    /// The length of `text` as this limit counts it.
    pub fn len(self, text: &str) -> usize {
        match self.unit {
            Unit::Chars => text.encode_utf16().count(),
            Unit::Bytes => text.len(),
        }
    }

    /// This limit with `used` of it taken.
    pub fn less(self, used: usize) -> Limit {
        Limit {
            max: self.max.saturating_sub(used),
            ..self
        }
    }

    /// Cuts `text` to this limit, at a character boundary.
    pub(super) fn cut(self, text: &mut String) {
        let mut used = 0;
        for (at, c) in text.char_indices() {
            used += match self.unit {
                Unit::Chars => c.len_utf16(),
                Unit::Bytes => c.len_utf8(),
            };
            if used > self.max {
                text.truncate(at);
                return;
            }
        }
    }

    /// The limit in words: "64,512 characters".
    pub(super) fn describe(self) -> String {
        let unit = match self.unit {
            Unit::Chars => "character",
            Unit::Bytes => "byte",
        };
        format!("{} {unit}s", thousands(self.max as u64))
    }
}
