//! Shards: the K-th of N disjoint parts of the selected benchmarks, for N CI jobs that each run
//! one (`irgate run --shard K/N`) and a job that merges their results (`irgate run --from`).
//!
//! The unit is a bench function, `group::function` with all its ids: gungraun runs one filter
//! pattern per invocation, so a shard runs one `cargo bench` per function (per group when it
//! holds a whole group), and a function's ids share their code and cost.
//!
//! Every job must compute the same partition, so it depends on nothing a job measures: only on
//! the ids, the filter and the committed baselines' Ir counts. A function with a baseline costs
//! what its benchmarks are estimated to take under callgrind ([`estimated_ms`], from their Ir);
//! the functions are dealt out heaviest first, each to the shard with the least cost so far
//! (ties: the function's name, the lower shard). A function without a baseline (never run, or
//! refreshed since) goes to the shard its name hashes to and counts [`DEFAULT_MS`] per benchmark
//! in the plan. So adding a benchmark moves nothing else: it joins its function's shard, or a new
//! function's hashed one. A refresh that changes Ir counts may deal the functions out anew.

use std::collections::BTreeMap;

use crate::error::{Error, Result};
use crate::filter::{self, Filter};
pub use crate::model::shard::{MAX_SHARDS, Part};

/// What a benchmark takes under callgrind, in milliseconds, before its instructions: starting
/// valgrind and the bench binary, and the runner's work around it. Read off the `durations_ms` of
/// one run of this repository's suite (scripts/shard-merge.sh, 2 cores at load 7): 0.5 to 1.2 s
/// for benchmarks of under 100 Ir, 1.1 to 3.9 s for those of 1.2 million (docs/gate.md#shards).
pub const STARTUP_MS: u64 = 900;

/// How many of a benchmark's instructions callgrind runs per millisecond (with the cache
/// simulation irgate turns on), read off with [`STARTUP_MS`].
pub const IR_PER_MS: u64 = 750;

/// The cost counted in the plan for a benchmark without a baseline.
pub const DEFAULT_MS: u64 = STARTUP_MS;

/// The estimated milliseconds a benchmark of `ir` instructions takes under callgrind.
pub fn estimated_ms(ir: u64) -> u64 {
    STARTUP_MS + ir / IR_PER_MS
}

/// The unit a shard is made of: a bench function, `group::function` (an id without its `/id`).
pub fn unit_of(id: &str) -> &str {
    id.split_once('/').map_or(id, |(function, _)| function)
}

/// One shard of a partition: which functions it runs.
#[derive(Debug, Clone)]
pub struct Shard {
    /// Which shard.
    pub part: Part,
    /// The shard (0-based) of each function that has a baseline.
    dealt: BTreeMap<String, usize>,
    /// The estimated milliseconds of each shard's functions with a baseline.
    loads: Vec<u64>,
}

impl Shard {
    /// The partition into `part.count` shards of the benchmarks with a baseline in `irs` (Ir by
    /// id) that `filter` selects, and `part`'s shard of it.
    pub fn plan(part: Part, irs: &BTreeMap<String, u64>, filter: Option<&Filter>) -> Shard {
        let mut costs: BTreeMap<&str, u64> = BTreeMap::new();
        for (id, ir) in irs.iter().filter(|(id, _)| filter::in_scope(filter, id)) {
            *costs.entry(unit_of(id)).or_default() += estimated_ms(*ir);
        }
        let mut heaviest_first: Vec<(&str, u64)> = costs.into_iter().collect();
        heaviest_first.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let mut loads = vec![0u64; part.count.get()];
        let mut dealt = BTreeMap::new();
        for (unit, cost) in heaviest_first {
            let lightest = (0..loads.len())
                .min_by_key(|&shard| (loads[shard], shard))
                .expect("at least one shard");
            loads[lightest] += cost;
            dealt.insert(unit.to_owned(), lightest);
        }
        Shard { part, dealt, loads }
    }

    /// The shard (0-based) benchmark `id` belongs to.
    fn of(&self, id: &str) -> usize {
        let unit = unit_of(id);
        self.dealt
            .get(unit)
            .copied()
            .unwrap_or_else(|| (fnv1a(unit) % self.part.count.get() as u64) as usize)
    }

    /// Whether benchmark `id` is in this shard.
    pub fn contains(&self, id: &str) -> bool {
        self.of(id) == self.part.index.get() - 1
    }

    /// The plan as one line: this shard's functions with a baseline and their estimated time
    /// under callgrind, against every shard's.
    pub fn describe(&self) -> String {
        let index = self.part.index.get() - 1;
        let mine = self.dealt.values().filter(|&&shard| shard == index).count();
        let seconds = |ms: &u64| format!("{:.1} s", *ms as f64 / 1000.0);
        let loads: Vec<String> = self.loads.iter().map(seconds).collect();
        format!(
            "shard {}: {mine} of the {} functions with a baseline, estimated {} under callgrind \
             (every shard: {}); a function without a baseline goes to the shard its name hashes to",
            self.part,
            self.dealt.len(),
            seconds(&self.loads[index]),
            loads.join(", ")
        )
    }
}

/// Refuses `part` when its N exceeds the `in_scope` benchmarks it would split (known before
/// anything runs when the baselines hold them): some shard would hold none, and a CI job of its
/// own would measure nothing.
pub fn check_split(part: Part, in_scope: usize) -> Result<()> {
    if part.count.get() <= in_scope || in_scope == 0 {
        return Ok(());
    }
    Err(Error::Tool(format!(
        "--shard {part}: {} shards for the {} in scope: at most {in_scope} shards, or some \
         shard holds none",
        part.count,
        crate::text::plural(in_scope, "benchmark")
    )))
}

/// FNV-1a, 64 bits: a hash that never changes between builds, platforms or Rust versions (the
/// standard library's may), so every job places a new function alike.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Refuses a shard of a suite's benchmarks (`what`: `--shard 2/3`) for a suite whose runner
/// cannot run benchmarks by id.
pub fn check_runner(
    what: &str,
    suite: &str,
    library: &crate::measure::library::Library,
) -> Result<()> {
    if library.lists() && library.filters_ids() {
        return Ok(());
    }
    Err(Error::Tool(format!(
        "{what}: suite `{suite}` uses {library}, whose runner cannot run benchmarks by id \
         (gungraun 0.17 and later can): run all of it"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(text: &str) -> Part {
        text.parse().unwrap()
    }

    /// A suite like this repository's: `functions` functions of `ids` benchmarks each, the
    /// function's Ir growing with its index and the id's.
    fn suite(functions: usize, ids: usize) -> BTreeMap<String, u64> {
        (0..functions)
            .flat_map(|f| {
                (0..ids).map(move |i| {
                    let ir = 50 + (f as u64 * 7_919 + i as u64 * 104_729) % 900_000;
                    (format!("g{}::f{f}/b{i}", f % 4), ir)
                })
            })
            .collect()
    }

    /// Each id's shard, from N plans.
    fn assignment(n: usize, irs: &BTreeMap<String, u64>, ids: &[String]) -> Vec<usize> {
        let shards: Vec<Shard> = (1..=n)
            .map(|k| Shard::plan(part(&format!("{k}/{n}")), irs, None))
            .collect();
        ids.iter()
            .map(|id| {
                let holding: Vec<usize> = (0..n).filter(|&k| shards[k].contains(id)).collect();
                assert_eq!(holding.len(), 1, "{id} is in shards {holding:?}");
                holding[0]
            })
            .collect()
    }

    #[test]
    fn every_benchmark_is_in_exactly_one_shard() {
        let irs = suite(22, 6);
        let mut ids: Vec<String> = irs.keys().cloned().collect();
        ids.extend(["new::a/x", "new::b", "g1::f1/new"].map(String::from));
        for n in 1..=7 {
            let shards = assignment(n, &irs, &ids);
            if n <= 22 {
                assert!((0..n).all(|k| shards.contains(&k)), "{n}: an empty shard");
            }
            // A function's benchmarks stay together.
            for (id, shard) in ids.iter().zip(&shards) {
                let first = ids.iter().position(|o| unit_of(o) == unit_of(id)).unwrap();
                assert_eq!(*shard, shards[first], "{id}");
            }
        }
    }

    #[test]
    fn adding_a_benchmark_moves_only_it() {
        let irs = suite(22, 6);
        let ids: Vec<String> = irs.keys().cloned().collect();
        let before = assignment(3, &irs, &ids);
        for added in ["new::fresh/b1", "g2::f2/b99", "g0::brand_new"] {
            let mut grown = ids.clone();
            grown.push(added.to_owned());
            let after = assignment(3, &irs, &grown);
            assert_eq!(
                before[..],
                after[..ids.len()],
                "adding {added} moved another"
            );
        }
        // Removing one (its baseline stays until a refresh) moves nothing either.
        let shrunk: Vec<String> = ids[1..].to_vec();
        assert_eq!(before[1..], assignment(3, &irs, &shrunk)[..]);
    }

    #[test]
    fn shards_are_balanced_by_estimated_time() {
        let irs = suite(22, 6);
        for n in 2..=4 {
            let shard = Shard::plan(part(&format!("1/{n}")), &irs, None);
            let heaviest_unit = irs
                .iter()
                .fold(BTreeMap::<&str, u64>::new(), |mut units, (id, ir)| {
                    *units.entry(unit_of(id)).or_default() += estimated_ms(*ir);
                    units
                })
                .into_values()
                .max()
                .unwrap();
            let (min, max) = (
                *shard.loads.iter().min().unwrap(),
                *shard.loads.iter().max().unwrap(),
            );
            // Dealing heaviest first leaves the shards within one function of each other.
            assert!(max - min <= heaviest_unit, "{n}: {:?}", shard.loads);
            assert_eq!(
                shard.loads.iter().sum::<u64>(),
                irs.values().map(|ir| estimated_ms(*ir)).sum::<u64>()
            );
        }
    }

    #[test]
    fn the_filter_selects_what_is_dealt_out() {
        let irs = suite(8, 6);
        let filter = Filter::new("g1::*").unwrap();
        let shards: Vec<Shard> = (1..=2)
            .map(|k| Shard::plan(part(&format!("{k}/2")), &irs, Some(&filter)))
            .collect();
        assert_eq!(shards[0].dealt.len() + shards[1].dealt.len(), 4);
        assert!(
            shards
                .iter()
                .all(|s| s.dealt.keys().all(|u| u.starts_with("g1::")))
        );
        // g1 holds f1 and f5: one each.
        assert_eq!(shards[0].loads.iter().filter(|&&l| l > 0).count(), 2);
    }

    #[test]
    fn parts_are_k_of_n() {
        assert_eq!(part("2/3").to_string(), "2/3");
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", ""] {
            assert!(bad.parse::<Part>().is_err(), "{bad}");
        }
        assert_eq!(
            "4/3".parse::<Part>().unwrap_err(),
            "shard 4/3: K must be from 1 to N (3 shards)"
        );
        assert!(format!("1/{MAX_SHARDS}").parse::<Part>().is_ok());
        for huge in [
            "1/1001",
            "1/100000000",
            "1/10000000000",
            "1/18446744073709551615",
            "1/99999999999999999999999999",
        ] {
            let error = huge.parse::<Part>().unwrap_err();
            assert!(error.contains("more than the 1000"), "{huge}: {error}");
        }
    }

    #[test]
    fn more_shards_than_benchmarks_in_scope_are_refused() {
        assert!(check_split(part("3/3"), 3).is_ok());
        assert!(
            check_split(part("1/2"), 0).is_ok(),
            "no baselines: not known yet"
        );
        assert_eq!(
            check_split(part("1/4"), 3).unwrap_err().to_string(),
            "--shard 1/4: 4 shards for the 3 benchmarks in scope: at most 3 shards, or some \
             shard holds none"
        );
    }

    #[test]
    fn the_hash_never_changes() {
        // Every job, build and platform must place a new function alike.
        assert_eq!(fnv1a(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a("frame::encode"), fnv1a("frame::encode"));
        assert_eq!(fnv1a("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
