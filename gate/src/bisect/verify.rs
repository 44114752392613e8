//! A found move's counts, measured: every count on either side of a move that was carried (not
//! measured at its own commit) is measured, and a benchmark whose carried count proves wrong is
//! bisected again, measured at every step (the module documentation of `bisect`).

use std::collections::{BTreeMap, BTreeSet};

use super::{Interval, Known, State};
use crate::error::Result;
use crate::text::{self, short_commit};

impl State<'_> {
    /// Measures every carried count on either side of a move found. Where one differs from what
    /// was carried, the benchmark's carried counts are dropped, it is measured at every step from
    /// now on, its moves and undecided intervals are forgotten, and the intervals between its
    /// measured counts that differ are returned, to bisect again.
    pub(super) fn verify_carried(&mut self) -> Result<Vec<Interval>> {
        let mut wanted: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
        for found in &self.out.moves {
            let Some(j) = self.points.iter().position(|p| p.hash == found.commit) else {
                continue;
            };
            for p in [j - 1, j] {
                if self.known[&found.benchmark][&p].from != p {
                    wanted.entry(p).or_default().insert(found.benchmark.clone());
                }
            }
        }
        let mut wrong = BTreeSet::new();
        for (p, ids) in wanted {
            crate::note!(
                "bisect: runs {} at {}: a move's count there was carried, not measured",
                ids.iter()
                    .map(|id| text::terminal(id))
                    .collect::<Vec<_>>()
                    .join(", "),
                short_commit(&self.points[p].hash)
            );
            match self.measure(p, Some(&ids), true) {
                Ok(counts) => {
                    for id in ids {
                        let count = counts.get(&id).copied();
                        let known = self.known.entry(id.clone()).or_default();
                        if known.get(&p).is_some_and(|k| k.count != count) {
                            wrong.insert(id);
                        }
                        known.insert(p, Known { count, from: p });
                    }
                }
                Err(error) => {
                    // Not measurable: what was carried there cannot stand.
                    self.skip(p, error.to_string());
                    wrong.extend(ids);
                }
            }
        }
        let mut open = Vec::new();
        for id in wrong {
            crate::note!(
                "bisect: {}: a carried count differs from the measured one (addresses \
                 moved it): bisected again, measured at every step",
                text::terminal(&id)
            );
            self.out.moves.retain(|m| m.benchmark != id);
            self.out.undecided.retain(|u| u.benchmark != id);
            let known = self.known.entry(id.clone()).or_default();
            open.extend(reopened(known).into_iter().map(|(i, j)| (id.clone(), i, j)));
            self.no_carry.insert(id);
        }
        Ok(open)
    }
}

/// Drops the carried counts of one benchmark (those not measured at their own point) and returns
/// the intervals between consecutive measured counts that differ: what is left to bisect once a
/// carried count proved wrong.
fn reopened(known: &mut BTreeMap<usize, Known>) -> Vec<(usize, usize)> {
    known.retain(|p, k| k.from == *p);
    let measured: Vec<(usize, Option<u64>)> = known.iter().map(|(p, k)| (*p, k.count)).collect();
    measured
        .windows(2)
        .filter(|pair| pair[0].1 != pair[1].1)
        .map(|pair| (pair[0].0, pair[1].0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The history of lofty-rs (docs/history.md): 99,661 at the good end (0), addresses moved it
    /// to 99,640 at commit 3 (no code it runs changed), a code change to 100,078 at commit 6.
    /// Carried from 0, the count at 5 read 99,661; measured there it is 99,640.
    #[test]
    fn a_carried_count_that_proves_wrong_reopens_every_interval_between_measured_counts() {
        let measured = |count| Known {
            count: Some(count),
            from: 0,
        };
        let mut known = BTreeMap::from([
            (0, measured(99_661)),
            // Carried from 0 (same code): dropped.
            (
                4,
                Known {
                    count: Some(99_661),
                    from: 0,
                },
            ),
            // Measured at 5 after the move at 6 was found.
            (
                5,
                Known {
                    count: Some(99_640),
                    from: 5,
                },
            ),
            (
                6,
                Known {
                    count: Some(100_078),
                    from: 6,
                },
            ),
            // Carried from 6: dropped.
            (
                7,
                Known {
                    count: Some(100_078),
                    from: 6,
                },
            ),
            (
                8,
                Known {
                    count: Some(100_078),
                    from: 8,
                },
            ),
        ]);
        assert_eq!(reopened(&mut known), vec![(0, 5), (5, 6)]);
        assert_eq!(known.keys().copied().collect::<Vec<_>>(), vec![0, 5, 6, 8]);
        // A benchmark that came at 2 (absent before): the absence is a count too.
        let mut came = BTreeMap::from([
            (
                0,
                Known {
                    count: None,
                    from: 0,
                },
            ),
            (
                2,
                Known {
                    count: Some(5),
                    from: 2,
                },
            ),
            (
                3,
                Known {
                    count: Some(5),
                    from: 3,
                },
            ),
        ]);
        assert_eq!(reopened(&mut came), vec![(0, 2)]);
    }
}
