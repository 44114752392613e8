//! Rule 4 for a benchmark whose record observed what its processes read (docs/selection.md,
//! "Observed inputs"): it is touched when a path it read holds something else now.

use std::collections::BTreeMap;
use std::path::Path;

use crate::measure::observe;
use crate::model::code::{ABSENT, Observed};
use crate::text;

/// Why the benchmark whose record `observed` its inputs is touched, when one of them holds
/// something else now in the workspace at `root`: the changed paths, named. `now` keeps what each
/// path holds now, for the next benchmark.
pub fn changed(
    observed: &Observed,
    root: &Path,
    now: &mut BTreeMap<String, String>,
) -> Option<String> {
    let mut changed: Vec<String> = Vec::new();
    for (key, recorded) in &observed.inputs {
        let held = now
            .entry(format!(
                "{key}\0{}",
                observe::KINDS.contains(&recorded.as_str())
            ))
            .or_insert_with(|| observe::now(root, key, recorded));
        if held != recorded {
            let how = match (recorded.as_str(), held.as_str()) {
                (ABSENT, _) => "now exists",
                (_, ABSENT) => "is now absent",
                _ if observe::is_listing(key) => "lists other entries",
                _ if observe::KINDS.contains(&recorded.as_str()) => "is of another kind",
                _ => "holds other content",
            };
            changed.push(format!("`{}` {how}", text::terminal(key)));
        }
    }
    let shown = changed.len().min(3);
    let more = match changed.len() - shown {
        0 => String::new(),
        n => format!(" and {} more", text::plural(n, "path")),
    };
    (!changed.is_empty()).then(|| {
        format!(
            "a path it was seen to read at run time changed: {}{more}",
            changed[..shown].join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_that_holds_something_else_now_touches_and_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("data.txt"), b"one").unwrap();
        std::fs::write(root.join("looked.rs"), b"fn a() {}").unwrap();
        let recorded = |key: &str| observe::now(root, key, "");
        let observed = Observed {
            inputs: BTreeMap::from([
                ("data.txt".to_owned(), recorded("data.txt")),
                ("looked.rs".to_owned(), "file".to_owned()),
                ("later.txt".to_owned(), ABSENT.to_owned()),
            ]),
            environment: 3,
        };
        assert_eq!(changed(&observed, root, &mut BTreeMap::new()), None);
        // Only looked at: its content may change.
        std::fs::write(root.join("looked.rs"), b"/// A doc comment.\nfn a() {}").unwrap();
        assert_eq!(changed(&observed, root, &mut BTreeMap::new()), None);
        std::fs::write(root.join("data.txt"), b"two").unwrap();
        let why = changed(&observed, root, &mut BTreeMap::new()).unwrap();
        assert!(why.contains("`data.txt` holds other content"), "{why}");
        std::fs::write(root.join("later.txt"), b"").unwrap();
        std::fs::remove_file(root.join("looked.rs")).unwrap();
        let why = changed(&observed, root, &mut BTreeMap::new()).unwrap();
        assert!(why.contains("`later.txt` now exists"), "{why}");
        assert!(why.contains("`looked.rs` is now absent"), "{why}");
    }
}
