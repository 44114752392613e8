//! What each benchmark executed, line by line: the complete record the change map needs (the
//! stored profiles are compacted and cannot serve), kept apart from them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// An inclusive range of 1-based source lines.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub struct Lines {
    /// The first line.
    pub first: u32,
    /// The last line (at least `first`).
    pub last: u32,
}

impl Lines {
    /// Whether the two ranges share a line.
    pub fn overlaps(&self, other: &Lines) -> bool {
        self.first <= other.last && other.first <= self.last
    }
}

/// One benchmark's executed lines: for each source file of the workspace (a path relative to
/// its root, `/`-separated), the lines that had a cost, as sorted, disjoint, non-adjacent ranges.
/// Lines of inlined code count for the file they were inlined from.
pub type Executed = BTreeMap<String, Vec<Lines>>;

/// The executed lines of every benchmark of a run whose record is complete. A benchmark missing
/// here has no record (its callgrind file was unreadable or had no line tables): a change map
/// must count it as touched.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Coverage {
    /// The commit whose code ran (the run's, `<hash>-dirty` for a working tree with changes):
    /// the lines are that commit's, so a change is mapped from it.
    pub commit: String,
    /// By benchmark id.
    pub benchmarks: BTreeMap<String, Executed>,
    /// Why a benchmark of the run has no record, by benchmark id.
    pub unrecorded: BTreeMap<String, String>,
}

impl Coverage {
    /// Whether `id` executed any line of `lines` in `file`; `None` when `id` has no record.
    pub fn runs(&self, id: &str, file: &str, lines: &Lines) -> Option<bool> {
        let executed = self.benchmarks.get(id)?;
        Some(executed.get(file).is_some_and(|ranges| {
            let at = ranges.partition_point(|r| r.last < lines.first);
            ranges.get(at).is_some_and(|r| r.overlaps(lines))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_runs_when_any_of_its_lines_was_executed() {
        let mut coverage = Coverage::default();
        coverage.benchmarks.insert(
            "g::a".into(),
            BTreeMap::from([(
                "src/lib.rs".to_owned(),
                vec![
                    Lines { first: 3, last: 5 },
                    Lines {
                        first: 10,
                        last: 10,
                    },
                ],
            )]),
        );
        let runs = |first, last| coverage.runs("g::a", "src/lib.rs", &Lines { first, last });
        assert_eq!(runs(1, 2), Some(false));
        assert_eq!(runs(5, 9), Some(true));
        assert_eq!(runs(6, 9), Some(false));
        assert_eq!(runs(9, 12), Some(true));
        assert_eq!(runs(11, 40), Some(false));
        assert_eq!(
            coverage.runs("g::a", "src/other.rs", &Lines { first: 1, last: 99 }),
            Some(false)
        );
        assert_eq!(
            coverage.runs("g::b", "src/lib.rs", &Lines { first: 1, last: 99 }),
            None
        );
    }
}
