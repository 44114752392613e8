//! What the repository's own sources say about its files, read on both sides of the change: the
//! files an `include_str!`, `include_bytes!` or `include!` pulls into the code, the build
//! scripts the manifests name, and the procedural-macro crates (code that runs while building).

use std::collections::BTreeSet;
use std::path::Path;

use super::diff;
use crate::error::Result;

/// The names found, on both sides together.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Names {
    /// The base names (after the last `/`) of the files the include macros name.
    pub included: BTreeSet<String>,
    /// An include macro whose file irgate cannot tell (its argument is more than string
    /// literals in `concat!` and `env!`), as `path:line`.
    pub unreadable_include: Option<String>,
    /// The base names of the build scripts the manifests name (`build = "..."`), and `build.rs`.
    pub build_scripts: BTreeSet<String>,
    /// The directories (relative to the top of the repository, ending in `/`, empty for the top)
    /// of procedural-macro crates.
    pub proc_macro_dirs: BTreeSet<String>,
}

/// Reads the names on each side: a commit, or the working tree (with its untracked files) for
/// `None`; include macros only in the sources `scanned` accepts (paths relative to the top).
pub(super) fn read(
    top: &Path,
    sides: &[Option<&str>],
    scanned: &dyn Fn(&str) -> bool,
) -> Result<Names> {
    let mut names = Names {
        build_scripts: BTreeSet::from(["build.rs".to_owned()]),
        ..Names::default()
    };
    for &rev in sides {
        for path in diff::grep(top, rev, r"include(_str|_bytes)?[[:space:]]*!", "*.rs")? {
            if !scanned(&path) {
                continue;
            }
            let text = content(top, rev, &path)?;
            for include in includes(&text) {
                if !include.readable {
                    names
                        .unreadable_include
                        .get_or_insert_with(|| format!("{path}:{}", include.line));
                }
                names.included.extend(include.names);
            }
        }
        let manifest =
            r"^[[:space:]]*(proc[-_]macro[[:space:]]*=[[:space:]]*true|build[[:space:]]*=)";
        for path in diff::grep(top, rev, manifest, "*Cargo.toml")? {
            let text = content(top, rev, &path)?;
            let dir = &path[..path.rfind('/').map_or(0, |at| at + 1)];
            for line in text.lines() {
                let Some((key, value)) = line.split_once('=') else {
                    continue;
                };
                let (key, value) = (key.trim(), value.trim());
                if (key == "proc-macro" || key == "proc_macro") && value.starts_with("true") {
                    names.proc_macro_dirs.insert(dir.to_owned());
                } else if key == "build" {
                    let script = value.trim_matches(|c| c == '"' || c == '\'');
                    names.build_scripts.insert(base_name(script).to_owned());
                }
            }
        }
    }
    Ok(names)
}

/// A file's text on a side, lossily decoded (the scan only looks for ASCII).
fn content(top: &Path, rev: Option<&str>, path: &str) -> Result<String> {
    let bytes = match rev {
        Some(rev) => diff::blob(top, &format!("{rev}:{path}"))?,
        None => std::fs::read(top.join(path))
            .map_err(|e| crate::error::Error::read(&top.join(path), e))?,
    };
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The part of a path after its last `/` or `\`.
pub(super) fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// One include macro in a source.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Include {
    /// Its 1-based line.
    pub line: usize,
    /// The base names of the string literals in its argument.
    pub names: Vec<String>,
    /// Whether the argument is only string literals, `concat!` and `env!`: the file is then
    /// named by its last literal.
    pub readable: bool,
}

/// Every `include!`, `include_str!` and `include_bytes!` in `text`, comments included (a match
/// too many only makes more files count), but for `doc = include_str!(...)`: documentation,
/// which no code runs.
pub(super) fn includes(text: &str) -> Vec<Include> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("include").map(|at| at + from) {
        from = at + "include".len();
        let before = &text[..at];
        if before
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let mut rest = &text[from..];
        for suffix in ["_str", "_bytes"] {
            if let Some(r) = rest.strip_prefix(suffix) {
                rest = r;
                break;
            }
        }
        let Some(rest) = rest.trim_start().strip_prefix('!') else {
            continue;
        };
        let args = rest.trim_start();
        if !args.starts_with(['(', '[', '{']) {
            continue;
        }
        let documentation = before
            .trim_end()
            .strip_suffix('=')
            .is_some_and(|b| b.trim_end().ends_with("doc"));
        if documentation {
            continue;
        }
        let start = bytes.len() - args.len();
        let (literals, rest) = literals(&text[start..]);
        let readable = rest
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .all(|word| matches!(word, "" | "concat" | "env" | "std" | "core"))
            && rest.chars().all(|c| {
                c.is_alphanumeric() || c == '_' || c.is_whitespace() || "!(),:[]{}".contains(c)
            });
        found.push(Include {
            line: text[..at].matches('\n').count() + 1,
            names: literals
                .iter()
                .map(|l| base_name(l).to_owned())
                .filter(|n| !n.is_empty())
                .collect(),
            readable,
        });
    }
    found
}

/// The contents of the string literals (plain and raw) in the balanced group `text` starts with,
/// and the rest of the group's text.
fn literals(text: &str) -> (Vec<String>, String) {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut rest = String::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            '"' => {
                let mut literal = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    literal.extend(chars.get(i));
                    i += 1;
                }
                out.push(literal);
            }
            'r' if matches!(chars.get(i + 1), Some('"' | '#'))
                && !chars[..i]
                    .last()
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_') =>
            {
                let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
                let open = i + 1 + hashes;
                if chars.get(open) == Some(&'"') {
                    let close: String = std::iter::once('"')
                        .chain(std::iter::repeat_n('#', hashes))
                        .collect();
                    let body: String = chars[open + 1..].iter().collect();
                    let end = body.find(&close).unwrap_or(body.len());
                    out.push(body[..end].to_owned());
                    i = open + 1 + body[..end].chars().count() + hashes;
                }
            }
            c => rest.push(c),
        }
        i += 1;
    }
    (out, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_macros_give_the_base_names_of_their_literals() {
        let text = "const A: &str = include_str!(\"../data/a.txt\");\n\
                    static B: &[u8] = std::include_bytes!(concat!(env!(\"CARGO_MANIFEST_DIR\"),\n\
                    \"/assets/b.bin\"));\n\
                    include!(r#\"gen/c.rs\"#);\n\
                    #[doc = include_str!(\"../README.md\")]\n\
                    fn my_include!(\"nope\") {}\n\
                    let d = include_bytes! [ \"d\\\\e.dat\" ];\n\
                    let e = include_str!(some_macro!());\n\
                    include!(concat!(env!(\"OUT_DIR\"), NAME));\n";
        let includes = includes(text);
        let found: Vec<(usize, Vec<&str>, bool)> = includes
            .iter()
            .map(|i| {
                (
                    i.line,
                    i.names.iter().map(String::as_str).collect(),
                    i.readable,
                )
            })
            .collect();
        assert_eq!(
            found,
            vec![
                (1, vec!["a.txt"], true),
                (2, vec!["CARGO_MANIFEST_DIR", "b.bin"], true),
                (4, vec!["c.rs"], true),
                (7, vec!["e.dat"], true),
                (8, vec![], false),
                (9, vec!["OUT_DIR"], false),
            ]
        );
    }
}
