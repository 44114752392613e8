//! What a selected run carries: the benchmarks it leaves out and their baseline counts.

use std::collections::{BTreeMap, BTreeSet};

use super::{ChangeMap, Counts, Processes, Results, Touch};

/// The benchmarks a selected run leaves out, with the counts it carries for them.
#[derive(Debug, Clone)]
pub struct Carry {
    /// Ids of benchmarks that run none of the changed code.
    pub ids: BTreeSet<String>,
    /// Their baseline counts.
    pub counts: BTreeMap<String, Counts>,
    /// What those counts are, for binary benchmarks.
    pub process: Processes,
    /// The commit of the baselines' code record, where the change starts.
    pub since: String,
    /// The change since then.
    pub map: ChangeMap,
    /// The benchmarks that run, each with why it counts as touched.
    pub touched: Vec<(String, Touch)>,
    /// How many benchmarks of the baselines are in the filter and shard.
    pub in_scope: usize,
    /// The suites whose runner runs all of their benchmarks or none (iai-callgrind).
    pub whole_suites: Vec<WholeSuite>,
}

/// A suite that a selected run runs whole or not at all, since its runner cannot run benchmarks
/// by id (iai-callgrind).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WholeSuite {
    /// The suite's name.
    pub name: String,
    /// Its library, e.g. `iai-callgrind 0.16.1`.
    pub library: String,
    /// Its benchmarks in the filter.
    pub in_scope: usize,
    /// How many of them must run (touched, or without a baseline): the suite runs when any does.
    pub to_run: usize,
}

impl Carry {
    /// Adds the carried counts to `results` and names them there.
    pub fn add_to(&self, results: &mut Results) {
        for (id, counts) in &self.counts {
            results.benchmarks.insert(id.clone(), counts.clone());
        }
        results.process.retain(|id| !self.counts.contains_key(id));
        results.process.extend(self.process.clone());
        results.carried = self.ids.iter().cloned().collect();
    }
}
