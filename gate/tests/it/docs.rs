//! The docs' examples of irgate's files and output are the frozen ones: a fenced block after a
//! `<!-- frozen: PATH -->` line must equal that file (an insta snapshot's body, or the whole
//! file), so an example cannot drift from what irgate writes.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The content of a frozen file: an insta snapshot's body after its header, else the file.
fn frozen(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let body = if path.extension().is_some_and(|e| e == "snap") {
        text.splitn(3, "---\n")
            .nth(2)
            .unwrap_or_default()
            .to_owned()
    } else {
        text
    };
    body.trim_end_matches('\n').to_owned()
}

/// Every `(doc, line, frozen path, block)` of the markdown files in docs/ and the README.
fn examples() -> Vec<(PathBuf, usize, String, String)> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.push(root().join("README.md"));
    let mut found = Vec::new();
    for doc in docs {
        let text = std::fs::read_to_string(&doc).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(path) = line
                .strip_prefix("<!-- frozen: ")
                .and_then(|rest| rest.strip_suffix(" -->"))
            else {
                continue;
            };
            assert!(
                lines.get(i + 1).is_some_and(|l| l.starts_with("```")),
                "{}:{}: a frozen marker must be followed by a fenced block",
                doc.display(),
                i + 1
            );
            let block: Vec<&str> = lines[i + 2..]
                .iter()
                .take_while(|l| !l.starts_with("```"))
                .copied()
                .collect();
            found.push((doc.clone(), i + 1, path.to_owned(), block.join("\n")));
        }
    }
    found
}

#[test]
fn the_docs_examples_are_the_frozen_files() {
    let examples = examples();
    assert!(
        examples.len() >= 2,
        "the docs should hold the frozen examples: {examples:?}"
    );
    for (doc, line, path, block) in examples {
        assert_eq!(
            block,
            frozen(&root().join(&path)),
            "{}:{line}: the example differs from {path}: copy it from there",
            doc.display()
        );
    }
}
