//! Benchmark ids, `group::function` or `group::function/id`, as every reader checks them where
//! they enter (summaries, results, baselines): two or more segments of ASCII letters, digits and
//! `_` separated by `::`, then an optional `/` and one more such segment. The group (the first
//! segment) names the baseline file (`encode/v0`, without `::`, has no group and is refused:
//! its baseline could not be read back), so an id can never make a path leave the baseline directory,
//! and no id carries a control character into a terminal or a workflow log.

use std::collections::BTreeMap;

use crate::error::{Error, Result};

/// Why `id` is not a benchmark id, or `Ok`.
pub fn check(id: &str) -> Result<(), String> {
    let (path, bench_id) = match id.split_once('/') {
        Some((path, bench_id)) => (path, Some(bench_id)),
        None => (id, None),
    };
    if path.contains("::") && path.split("::").all(is_word) && bench_id.is_none_or(is_word) {
        Ok(())
    } else {
        Err(format!(
            "invalid benchmark id {}: an id is `group::function` or `group::function/id` (a \
             bench's `module_path` holds `::`), each part of ASCII letters, digits and `_`",
            escaped(id)
        ))
    }
}

/// Why `name` is not a group (the first segment of an id, a baseline file's name), or `Ok`.
pub fn check_group(name: &str) -> Result<(), String> {
    if is_word(name) {
        Ok(())
    } else {
        Err(format!(
            "invalid group {}: a group is made of ASCII letters, digits and `_`",
            escaped(name)
        ))
    }
}

/// Whether `part` is one segment of an id: ASCII letters, digits and `_`, at least one.
fn is_word(part: &str) -> bool {
    !part.is_empty() && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The group of a benchmark id: what comes before the first `::` (`frame` for
/// `frame::encode/512`).
pub fn group_of(id: &str) -> &str {
    id.split("::").next().unwrap_or(id)
}

/// `text` quoted, with control and non-ASCII characters escaped, safe to print anywhere.
pub fn escaped(text: &str) -> String {
    format!("{:?}", text.chars().take(200).collect::<String>())
}

/// The benchmark ids seen so far, each with where it came from: the one check that an id comes
/// from one input only (a suite, a summary file, a results shard).
#[derive(Debug, Default)]
pub struct Origins(BTreeMap<String, String>);

impl Origins {
    /// Records that `id` comes from `origin`, or names both places when it was seen before.
    pub fn insert(&mut self, id: &str, origin: impl Into<String>) -> Result<()> {
        let origin = origin.into();
        match self.0.get(id) {
            Some(first) => Err(Error::DuplicateId {
                id: id.to_owned(),
                first: first.clone(),
                second: origin,
            }),
            None => {
                self.0.insert(id.to_owned(), origin);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_origin_of_an_id_is_refused_naming_both() {
        let mut origins = Origins::default();
        origins.insert("g::f", "one.json").unwrap();
        origins.insert("g::h", "two.json").unwrap();
        let error = origins.insert("g::f", "two.json").unwrap_err().to_string();
        assert_eq!(
            error,
            "duplicate benchmark id `g::f`: in one.json and in two.json"
        );
        let error = origins.insert("g::f", "one.json").unwrap_err().to_string();
        assert_eq!(
            error,
            "duplicate benchmark id `g::f`: one.json is read twice (two of the sources include it)"
        );
    }

    #[test]
    fn accepts_the_ids_suites_produce() {
        for id in [
            "frame::encode_compressed/b512",
            "filter::alloc",
            "g::f/0",
            "a::b::c/d",
        ] {
            assert_eq!(check(id), Ok(()), "{id}");
        }
    }

    #[test]
    fn refuses_paths_control_characters_and_empty_parts() {
        for id in [
            "",
            "alone",
            "encode/v0",
            "../../escape::f",
            "a/b/c",
            "::f",
            "g::",
            "g::f/",
            "a b::f",
            "g::f\n::error title=x::y",
            "g::f\u{1b}[31m",
            "grüße::f",
        ] {
            let error = check(id).unwrap_err();
            assert!(error.starts_with("invalid benchmark id \""), "{error}");
            assert!(
                !error.contains('\n') && !error.contains('\u{1b}'),
                "{error}"
            );
        }
    }
}
