//! The runner's names for benchmarks: the module paths it lists (`file::group::function[::id]`),
//! and the patterns it filters them by, from irgate's filter or covering a shard exactly.

use std::collections::BTreeSet;

use crate::filter::Filter;
use crate::formats::summary;
use crate::measure::shard;

/// The fewest runner patterns, over the module paths of `listed` (id, `file::group::function
/// [::id]`), that run exactly the `wanted` ids: a group's pattern when it is wanted whole, else a
/// function's, else each benchmark's own path.
pub(super) fn covering_patterns(
    listed: &[(String, String)],
    wanted: &BTreeSet<String>,
) -> Vec<String> {
    let whole = |same: &dyn Fn(&String) -> bool| {
        listed
            .iter()
            .filter(|(id, _)| same(id))
            .all(|(id, _)| wanted.contains(id))
    };
    let mut patterns = Vec::new();
    for (id, path) in listed.iter().filter(|(id, _)| wanted.contains(id)) {
        let segments: Vec<&str> = path.split("::").collect();
        let group = crate::id::group_of(id);
        let function = shard::unit_of(id);
        let pattern = if segments.len() >= 3 && whole(&|other| crate::id::group_of(other) == group)
        {
            format!("{}::{}::*", segments[0], segments[1])
        } else if segments.len() == 4 && whole(&|other| shard::unit_of(other) == function) {
            format!("{}::*", segments[..3].join("::"))
        } else {
            path.clone()
        };
        if !patterns.contains(&pattern) {
            patterns.push(pattern);
        }
    }
    patterns
}

/// gungraun's filter for one of ours: a glob over `group::function/id` becomes a pattern over
/// `file::group::function::id`; `None` for brace alternatives, which gungraun has no equivalent
/// for (everything runs then, and irgate filters afterwards).
pub(super) fn runner_pattern(filter: &Filter) -> Option<String> {
    (!filter.text.contains(['{', '}'])).then(|| format!("*::{}", filter.text.replace('/', "::")))
}

/// `file::group::function[::id]` as the runner lists it -> `group::function[/id]`.
pub(super) fn listed_id(module_path: &str) -> String {
    let segments: Vec<&str> = module_path.split("::").collect();
    match segments.as_slice() {
        [_, group, function, id] => format!("{group}::{function}/{id}"),
        _ => summary::benchmark_id(module_path, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_globs_become_gungraun_patterns() {
        let pattern = |glob: &str| runner_pattern(&Filter::new(glob).unwrap());
        assert_eq!(pattern("frame::*").as_deref(), Some("*::frame::*"));
        assert_eq!(
            pattern("pipeline::*/b512").as_deref(),
            Some("*::pipeline::*::b512")
        );
        assert_eq!(
            pattern("varint::decode/v0").as_deref(),
            Some("*::varint::decode::v0")
        );
        assert_eq!(pattern("{frame,varint}::*"), None);
    }

    #[test]
    fn a_shard_runs_the_fewest_patterns_that_cover_exactly_its_benchmarks() {
        let listed: Vec<(String, String)> = [
            "cg::varint::encode::v0",
            "cg::varint::encode::v1",
            "cg::varint::decode::v0",
            "cg::frame::encode::b1",
            "cg::frame::encode::b2",
            "cg::frame::decode::b1",
            "cg::filter::alloc",
            "cg::filter::chain::n1",
        ]
        .iter()
        .map(|path| (listed_id(path), path.to_string()))
        .collect();
        let wanted = |ids: &[&str]| ids.iter().map(|id| id.to_string()).collect();
        assert_eq!(
            covering_patterns(
                &listed,
                &wanted(&[
                    "varint::encode/v0",
                    "varint::encode/v1",
                    "varint::decode/v0"
                ])
            ),
            ["cg::varint::*"]
        );
        assert_eq!(
            covering_patterns(
                &listed,
                &wanted(&["frame::encode/b1", "frame::encode/b2", "filter::alloc"])
            ),
            ["cg::frame::encode::*", "cg::filter::alloc"]
        );
        assert_eq!(
            covering_patterns(&listed, &wanted(&["frame::encode/b2", "filter::chain/n1"])),
            ["cg::frame::encode::b2", "cg::filter::chain::*"]
        );
    }

    #[test]
    fn listed_module_paths_become_ids() {
        assert_eq!(
            listed_id("callgrind::varint::encode::v0"),
            "varint::encode/v0"
        );
        assert_eq!(listed_id("callgrind::filter::alloc"), "filter::alloc");
    }
}
