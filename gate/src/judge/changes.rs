//! The compared change, mapped onto the benchmarks through the coverage record of the side it
//! starts from ([`crate::change`] decides; this turns its answer into the report's terms).

use std::collections::BTreeMap;
use std::path::Path;

use crate::change;
use crate::config::Config;
use crate::judge::compare::Mapped;
use crate::model::coverage::Coverage;
use crate::model::{ChangeMap, ChangedFunction};

/// Maps the change from commit `base` to `head` (a commit, or the working tree when `None`) in
/// the repository at `root` onto the benchmarks `ids`, through `coverage` (what each benchmark
/// ran at `base`, or why there is no record); `members` are the workspace's packages and whether
/// a suite depends on each, `config`'s `[change] inert` the files that cannot change what runs
/// ([`change::between`]). Never fails: a change that cannot be mapped says why in the map, and
/// every benchmark then counts as touched.
pub fn map(
    root: &Path,
    (base, head): (&str, Option<&str>),
    (members, config): (&[(String, bool)], &Config),
    coverage: std::result::Result<Coverage, String>,
    ids: &[String],
) -> Mapped {
    let mut map = ChangeMap {
        base: base.to_owned(),
        head: head.unwrap_or_default().to_owned(),
        ..ChangeMap::default()
    };
    let found = coverage.and_then(|coverage| {
        let change = change::between(root, (base, head), members, &|path| config.is_inert(path))
            .map_err(|e| e.to_string())?;
        Ok((change, coverage))
    });
    let (change, coverage) = match found {
        Ok(found) => found,
        Err(reason) => {
            map.unmapped = Some(reason);
            return Mapped {
                map,
                touch: BTreeMap::new(),
            };
        }
    };
    map.everything = change.everything.iter().map(ToString::to_string).collect();
    map.functions = change
        .functions
        .iter()
        .map(|f| ChangedFunction {
            file: f.file.clone(),
            name: f.name.clone(),
            lines: f.changed.clone(),
        })
        .collect();
    let touch = change::touched(&change, &coverage, ids);
    Mapped { map, touch }
}
