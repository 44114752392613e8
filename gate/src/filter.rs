//! A benchmark filter: a glob over benchmark ids (`frame::*`, `filter::chain/4`). `*` matches
//! across `::` and `/`.

use globset::{Glob, GlobMatcher};

use crate::error::{Error, Result};

/// A compiled filter.
#[derive(Debug, Clone)]
pub struct Filter {
    /// The glob as given.
    pub text: String,
    matcher: GlobMatcher,
}

impl Filter {
    /// Compiles `text`.
    pub fn new(text: &str) -> Result<Filter> {
        let glob = Glob::new(text).map_err(|e| Error::BadFilter {
            filter: text.to_owned(),
            message: e.kind().to_string(),
        })?;
        Ok(Filter {
            text: text.to_owned(),
            matcher: glob.compile_matcher(),
        })
    }

    /// Whether benchmark `id` matches.
    pub fn matches(&self, id: &str) -> bool {
        self.matcher.is_match(id)
    }

    /// The error for a filter that matched none of `ids`, listing a few of them.
    pub fn matched_nothing<'a>(&self, ids: impl Iterator<Item = &'a str>) -> Error {
        let ids: Vec<&str> = ids.collect();
        let mut known = ids.iter().take(8).copied().collect::<Vec<_>>().join(", ");
        if ids.len() > 8 {
            known.push_str(&format!(", ... ({} in all)", ids.len()));
        }
        if ids.is_empty() {
            known = "none".to_owned();
        }
        Error::UnknownBenchmark {
            filter: self.text.clone(),
            known,
        }
    }
}

/// Runs `Option<&Filter>` against an id: no filter matches everything.
pub fn in_scope(filter: Option<&Filter>, id: &str) -> bool {
    filter.is_none_or(|f| f.matches(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_cross_separators() {
        let filter = Filter::new("frame::*").unwrap();
        assert!(filter.matches("frame::encode_compressed/512"));
        assert!(!filter.matches("varint::decode/1"));
        assert!(Filter::new("*/512").unwrap().matches("frame::encode/512"));
    }

    #[test]
    fn bad_and_empty_filters_say_so() {
        let error = Filter::new("frame[").unwrap_err().to_string();
        assert!(error.starts_with("invalid filter `frame[`"), "{error}");
        let filter = Filter::new("nothing::*").unwrap();
        let error = filter
            .matched_nothing(["a::b", "c::d"].into_iter())
            .to_string();
        assert_eq!(
            error,
            "no benchmark matches `nothing::*`; known benchmarks: a::b, c::d"
        );
    }
}
