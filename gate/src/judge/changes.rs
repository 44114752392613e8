//! The compared change, mapped onto the benchmarks through the code record of the side it starts
//! from ([`crate::change`] decides; this turns its answer into the report's terms).

use std::collections::BTreeMap;

use crate::change;
use crate::config::Config;
use crate::judge::compare::Mapped;
use crate::measure::paths::Resolved;
use crate::model::code::{CodeRecord, Object};
use crate::model::{ChangeMap, ChangedFunction};

/// Maps the change from the commit of `base` (the code record of the side the change starts
/// from: what each benchmark executed there, or why there is none) to `head` (a commit, or the
/// working tree when `None`, whose build's objects are `objects`) in the repository at `paths`'
/// root onto the benchmarks `ids`. irgate's own files (the target directory, the baselines,
/// gate.toml, `.irgate/`) never count as changed; `config`'s `[change] inert` names the files no
/// benchmark reads at run time. Never fails: a change that cannot be mapped says why in the map, and every
/// benchmark then counts as touched.
pub fn map(
    paths: &Resolved,
    (base, head): (std::result::Result<&CodeRecord, String>, Option<&str>),
    objects: std::result::Result<&BTreeMap<String, Object>, String>,
    config: &Config,
    ids: &[String],
) -> Mapped {
    let unmapped = |base_commit: &str, reason: String| Mapped {
        map: ChangeMap {
            base: base_commit.to_owned(),
            head: head.unwrap_or_default().to_owned(),
            unmapped: Some(reason),
            ..ChangeMap::default()
        },
        touch: BTreeMap::new(),
    };
    let base = match base {
        Ok(base) => base,
        Err(reason) => return unmapped("", reason),
    };
    if crate::git::Commit::parse(&base.commit).dirty {
        return unmapped(
            &base.commit,
            format!(
                "the code record was taken on uncommitted changes (`{}`): that code is in no \
                 commit to diff from",
                base.commit
            ),
        );
    }
    let objects = match objects {
        Ok(objects) => objects,
        Err(reason) => return unmapped(&base.commit, reason),
    };
    let root = &paths.root;
    let own = paths.own();
    let change = match change::between(root, (&base.commit, head), &own, &|path| {
        config.is_inert(path)
    }) {
        Ok(change) => change,
        Err(error) => return unmapped(&base.commit, error.to_string()),
    };
    let touches = change::touched(base, objects, &change, ids);
    let map = ChangeMap {
        base: change.base.clone(),
        head: change.head.clone().unwrap_or_default(),
        files: change.files.clone(),
        functions: touches
            .functions
            .iter()
            .map(|f| ChangedFunction {
                object: f.object.clone(),
                name: f.name.clone(),
                how: match f.how {
                    change::How::Changed => "changed",
                    change::How::Vanished => "vanished",
                    change::How::Whole => "whole",
                }
                .to_owned(),
                file: String::new(),
                lines: Vec::new(),
            })
            .collect(),
        unmapped: None,
    };
    Mapped {
        map,
        touch: touches.touch,
    }
}
