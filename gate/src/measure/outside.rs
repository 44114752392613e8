//! Relative paths that lead outside the repository (`foo = { path = "../sibling" }`), and where
//! the scratch trees of A/B and bisection go so that those paths resolve as in the checkout.
//!
//! A scratch tree (the base side of `run --base`, the mirror of the working tree, a bisection's
//! checkout) normally lies under the target directory, where `../sibling` names nothing. When a
//! manifest (`Cargo.toml`, or `.cargo/config.toml`) of the repository holds a relative path that
//! leaves it, the scratch tree is placed beside the repository instead (`<parent>/.<name>.irgate-
//! <label>`): a directory with the same parent has the same ancestors, so every relative path that
//! leaves it names the same place. What lies outside the repository is not versioned with the
//! commit: every side and every commit builds the one tree on disk.

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};
use crate::git;

/// A relative path in a manifest of the repository that leads outside it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Outside {
    /// The manifest, relative to the repository root.
    pub manifest: String,
    /// The key that holds the path (`dependencies.sibling.path`).
    pub key: String,
    /// The path as written.
    pub path: String,
}

impl Outside {
    /// `` `../sibling` (dependencies.sibling.path in Cargo.toml) ``, escaped for a terminal.
    pub fn describe(&self) -> String {
        format!(
            "`{}` ({} in {})",
            crate::text::terminal(&self.path),
            crate::text::terminal(&self.key),
            crate::text::terminal(&self.manifest)
        )
    }
}

/// The relative paths that leave the repository at `root`, in its manifests at `commit` (read
/// with git), or in its working tree when `commit` is `None` (the files git lists, as on disk).
pub fn find(root: &Path, commit: Option<&str>) -> Result<Vec<Outside>> {
    let listed: Vec<String> = match commit {
        Some(commit) => git::run(root, &["ls-tree", "-r", "-z", "--name-only", commit])?
            .ok_or_else(|| {
                Error::Tool(format!(
                    "cannot list the files of {} at {commit} (git failed; its message is above)",
                    root.display()
                ))
            })?
            .split('\0')
            .map(str::to_owned)
            .collect(),
        None => git::working_tree_files(root)?,
    };
    let mut found = Vec::new();
    for name in listed.iter().filter(|n| is_manifest(n)) {
        let text = match commit {
            Some(commit) => git::run(root, &["cat-file", "blob", &format!("{commit}:{name}")])?,
            None => std::fs::read_to_string(root.join(name)).ok(),
        };
        // A manifest that cannot be read or parsed is cargo's to report when it builds.
        if let Some(text) = text {
            found.extend(in_manifest(name, &text));
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

/// [`find`] in the working tree and at each of `commits`, each path once.
pub fn find_all(root: &Path, working_tree: bool, commits: &[&str]) -> Result<Vec<Outside>> {
    let mut found = if working_tree {
        find(root, None)?
    } else {
        Vec::new()
    };
    for commit in commits {
        found.extend(find(root, Some(commit))?);
    }
    found.sort();
    found.dedup();
    Ok(found)
}

/// Whether `name` (relative to the root) is a file whose relative paths cargo resolves: a
/// `Cargo.toml`, or a `.cargo/config[.toml]`.
fn is_manifest(name: &str) -> bool {
    let path = Path::new(name);
    let file = path.file_name().and_then(|f| f.to_str());
    let in_cargo_dir = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == ".cargo");
    file == Some("Cargo.toml") || (in_cargo_dir && matches!(file, Some("config" | "config.toml")))
}

/// The relative paths of the manifest `name` (relative to the root), whose text is `text`, that
/// leave the root: every string under a `path` key, the strings of a config's `paths`, and
/// `package.workspace` and `package.build`.
fn in_manifest(name: &str, text: &str) -> Vec<Outside> {
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return Vec::new();
    };
    let path = Path::new(name);
    // A config's paths are relative to the directory holding `.cargo`.
    let base = if path.parent().and_then(Path::file_name) == Some(".cargo".as_ref()) {
        path.parent().and_then(Path::parent)
    } else {
        path.parent()
    }
    .unwrap_or(Path::new(""));
    let mut strings = Vec::new();
    collect(&toml::Value::Table(table), "", &mut strings);
    strings.sort();
    strings
        .into_iter()
        .filter(|(_, value)| leaves(base, value))
        .map(|(key, value)| Outside {
            manifest: name.to_owned(),
            key,
            path: value,
        })
        .collect()
}

/// Every string `value` holds that cargo reads as a path, with its dotted key.
fn collect(value: &toml::Value, key: &str, out: &mut Vec<(String, String)>) {
    let last = key.rsplit('.').next().unwrap_or(key);
    match value {
        toml::Value::String(s)
            if last == "path"
                || key == "paths"
                || key == "package.workspace"
                || key == "package.build" =>
        {
            out.push((key.to_owned(), s.clone()));
        }
        toml::Value::Array(items) if key == "paths" || last == "path" => {
            for item in items {
                collect(item, key, out);
            }
        }
        toml::Value::Array(items) => {
            for item in items {
                collect(item, &format!("{key}[]"), out);
            }
        }
        toml::Value::Table(table) => {
            for (k, v) in table {
                let key = if key.is_empty() {
                    k.clone()
                } else {
                    format!("{key}.{k}")
                };
                collect(v, &key, out);
            }
        }
        _ => {}
    }
}

/// Whether the relative path `value`, written in the directory `base` (relative to the root),
/// leaves the root at some point. An absolute path resolves the same from anywhere.
fn leaves(base: &Path, value: &str) -> bool {
    let path = Path::new(value);
    if path.is_absolute() {
        return false;
    }
    let mut depth = base.components().count() as i64;
    for component in path.components() {
        match component {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            _ => {}
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

/// Where a scratch tree of the repository at `root` goes: `default` when nothing leaves the
/// repository, else beside it (`<parent>/.<name>.irgate-<label>`), so that every relative path
/// that leaves it names the same place. Scratch trees of one label length have paths of one
/// length.
pub fn place(root: &Path, label: &str, outside: &[Outside], default: PathBuf) -> Result<PathBuf> {
    if outside.is_empty() {
        return Ok(default);
    }
    let (Some(parent), Some(name)) = (root.parent(), root.file_name()) else {
        return Err(Error::Tool(format!(
            "{} leads outside the repository at {}, which has no parent directory to build a \
             scratch tree beside it in",
            outside[0].describe(),
            root.display()
        )));
    };
    Ok(parent.join(format!(".{}.irgate-{label}", name.to_string_lossy())))
}

/// What the output says when scratch trees are placed beside the repository for `outside`.
pub fn note(outside: &[Outside], placed: &[&Path]) -> String {
    let named: Vec<String> = outside.iter().take(3).map(Outside::describe).collect();
    let more = outside.len().saturating_sub(3);
    let places: Vec<String> = placed.iter().map(|p| p.display().to_string()).collect();
    format!(
        "{}{} lead{} outside the repository: built beside it ({}) so that relative paths \
         resolve as in the checkout. What lies outside the repository is not versioned with the \
         commit: every build uses it as it is on disk now",
        named.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        },
        if outside.len() == 1 { "s" } else { "" },
        places.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(name: &str, text: &str) -> Vec<(String, String)> {
        in_manifest(name, text)
            .into_iter()
            .map(|o| (o.key, o.path))
            .collect()
    }

    #[test]
    fn relative_paths_that_leave_the_repository_are_found_and_no_other() {
        let manifest = r#"
[package]
name = "a"
workspace = "../.."
build = "../../../gen/build.rs"
[dependencies]
sibling = { path = "../../../sibling" }
inside-root = { path = "../../sibling" }
inside = { path = "../b" }
absolute = { path = "/opt/lib" }
there-and-back = { path = "../../../repo/c" }
registry = "1"
[target.'cfg(unix)'.dev-dependencies]
far = { path = "../../../far", version = "1" }
[patch.crates-io]
p = { path = "../../../patched" }
[[bench]]
name = "x"
path = "benches/x.rs"
"#;
        assert_eq!(
            keys("crates/a/Cargo.toml", manifest),
            [
                ("dependencies.sibling.path", "../../../sibling"),
                ("dependencies.there-and-back.path", "../../../repo/c"),
                ("package.build", "../../../gen/build.rs"),
                ("patch.crates-io.p.path", "../../../patched"),
                ("target.cfg(unix).dev-dependencies.far.path", "../../../far"),
            ]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
        );
        let root = "[workspace.dependencies]\ns = { path = \"../s\" }\n[workspace]\nmembers = [\"../m\"]\n";
        assert_eq!(keys("Cargo.toml", root).len(), 1);
        let config =
            "paths = [\"../override\", \"vendored\"]\n[patch.crates-io]\nq = { path = \"../q\" }\n";
        assert_eq!(
            keys(".cargo/config.toml", config),
            [("patch.crates-io.q.path", "../q"), ("paths", "../override")]
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
        );
        assert!(keys("Cargo.toml", "not toml [").is_empty());
        assert!(
            is_manifest("a/.cargo/config")
                && !is_manifest("cargo/config")
                && !is_manifest("x.toml")
        );
    }

    #[test]
    fn the_scratch_tree_goes_beside_the_repository_only_when_a_path_leaves_it() {
        let root = Path::new("/work/repo");
        let default = PathBuf::from("/work/repo/target/irgate/ab/base/src");
        assert_eq!(
            place(root, "ab-base", &[], default.clone()).unwrap(),
            default
        );
        let outside = in_manifest("Cargo.toml", "[dependencies]\ns = { path = \"../s\" }\n");
        let base = place(root, "ab-base", &outside, default.clone()).unwrap();
        let head = place(root, "ab-head", &outside, default).unwrap();
        assert_eq!(base, Path::new("/work/.repo.irgate-ab-base"));
        assert_eq!(base.as_os_str().len(), head.as_os_str().len());
        assert!(place(Path::new("/"), "bisect", &outside, PathBuf::new()).is_err());
        let note = note(&outside, &[&base]);
        assert!(
            note.starts_with("`../s` (dependencies.s.path in Cargo.toml) leads outside"),
            "{note}"
        );
        assert!(note.contains("not versioned with the commit"), "{note}");
    }
}
