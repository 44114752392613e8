//! The change map on real git repositories.

use std::path::{Path, PathBuf};

use super::*;
use crate::git::for_tests;

const LIB: &str = "//! The library.
use std::fmt::Debug;

const SIZE: usize = 4;

static NAME: &str = \"n\";

pub struct S {
    pub x: u32,
}

macro_rules! twice {
    ($e:expr) => {
        $e * 2
    };
}

pub fn a(x: u32) -> u32 {
    x + 1
}

pub fn b(x: u32) -> u32 {
    twice!(x) + SIZE as u32
}

pub fn g<T: Debug>(t: T) -> T {
    t
}

pub static TABLE: &[u8] = include_bytes!(\"../data/table.bin\");

// A comment.

#[cfg(test)]
mod tests {
    #[test]
    fn a() {
        assert_eq!(super::a(1), 2);
    }
}
";

/// A repository with a workspace at `root` (its top, or a directory in it).
struct Repo {
    _dir: tempfile::TempDir,
    top: PathBuf,
    root: PathBuf,
}

impl Repo {
    fn new() -> Repo {
        Repo::in_dir("")
    }

    /// The workspace in `sub` of the repository (`""`: at its top).
    fn in_dir(sub: &str) -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().to_owned();
        let root = top.join(sub);
        for_tests(&top, &["init", "--quiet"]);
        let repo = Repo {
            _dir: dir,
            top,
            root,
        };
        repo.write("Cargo.toml", "[package]\nname = \"x\"\n");
        repo.write("Cargo.lock", "version = 4\n");
        repo.write("src/lib.rs", LIB);
        repo.write("data/table.bin", "\u{0}\u{1}\u{2}");
        repo.write("README.md", "# x\n");
        repo.write("docs/guide.md", "a guide\n");
        repo.write("logo.png", "\u{89}PNG\u{0}\u{0}");
        repo.write("data/other.bin", "\u{0}\u{3}");
        repo.commit();
        repo
    }

    fn write(&self, path: &str, content: &str) {
        let path = self.root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    fn edit(&self, path: &str, from: &str, to: &str) {
        let text = std::fs::read_to_string(self.root.join(path)).unwrap();
        assert!(text.contains(from), "{from:?} is not in {path}");
        self.write(path, &text.replacen(from, to, 1));
    }

    fn git(&self, args: &[&str]) {
        for_tests(&self.top, args);
    }

    fn commit(&self) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "--quiet", "--allow-empty", "-m", "c"]);
        git::resolve(&self.top, "HEAD").unwrap()
    }

    /// The change from HEAD to the commit of what was written since.
    fn change(&self) -> Change {
        let base = git::resolve(&self.top, "HEAD").unwrap();
        let head = self.commit();
        between(&self.root, (&base, Some(&head)), &[], &|_| false).unwrap()
    }
}

fn reasons(change: &Change) -> Vec<String> {
    change.everything.iter().map(Reason::to_string).collect()
}

fn names(change: &Change) -> Vec<(String, String)> {
    change
        .functions
        .iter()
        .map(|f| (f.file.clone(), f.name.clone()))
        .collect()
}

fn coverage(records: &[(&str, &str, Lines)]) -> Coverage {
    let mut coverage = Coverage::default();
    for (id, file, lines) in records {
        coverage
            .benchmarks
            .entry(id.to_string())
            .or_default()
            .entry(file.to_string())
            .or_default()
            .push(*lines);
    }
    coverage
}

fn lines(first: u32, last: u32) -> Lines {
    Lines { first, last }
}

#[test]
fn a_body_change_maps_to_its_function_and_touches_only_the_benchmarks_that_run_it() {
    let repo = Repo::new();
    repo.edit("src/lib.rs", "    x + 1\n", "    x + 2\n");
    let change = repo.change();
    assert_eq!(reasons(&change), Vec::<String>::new());
    assert!(change.inert.is_empty(), "{:?}", change.inert);
    assert_eq!(
        change.functions,
        vec![ChangedFunction {
            file: "src/lib.rs".into(),
            name: "a".into(),
            base: lines(18, 20),
            changed: vec![lines(19, 19)],
            generic: false,
        }]
    );
    let coverage = coverage(&[
        ("runs_a", "src/lib.rs", lines(19, 19)),
        ("runs_b", "src/lib.rs", lines(23, 23)),
        ("runs_b", "src/other.rs", lines(19, 19)),
    ]);
    let ids = ["runs_a", "runs_b", "unrecorded"].map(String::from);
    let touch = touched(&change, &coverage, &ids);
    assert_eq!(touch["runs_a"], Touch::Runs { functions: vec![0] });
    assert_eq!(touch["runs_b"], Touch::Untouched);
    assert!(!touch["runs_b"].is_touched());
    assert!(matches!(touch["unrecorded"], Touch::Unrecorded { .. }));
}

#[test]
fn items_that_change_code_elsewhere_touch_everything_with_file_and_lines() {
    let cases = [
        (
            "const SIZE: usize = 4;",
            "const SIZE: usize = 5;",
            "src/lib.rs:4: a constant",
        ),
        (
            "static NAME: &str = \"n\";",
            "static NAME: &str = \"m\";",
            "src/lib.rs:6: a static",
        ),
        (
            "    pub x: u32,\n",
            "    pub x: u64,\n",
            "src/lib.rs:9: a type",
        ),
        (
            "        $e * 2\n",
            "        $e * 3\n",
            "src/lib.rs:14: a macro",
        ),
        (
            "use std::fmt::Debug;",
            "use core::fmt::Debug;",
            "src/lib.rs:2: an import",
        ),
        (
            "pub fn g<T: Debug>(t: T) -> T {\n    t\n}\n",
            "",
            "src/lib.rs:26-28 (base): a function added, removed or renamed",
        ),
    ];
    for (from, to, reason) in cases {
        let repo = Repo::new();
        repo.edit("src/lib.rs", from, to);
        let change = repo.change();
        assert_eq!(reasons(&change), [reason], "{from:?}");
        assert!(change.functions.is_empty());
        let coverage = coverage(&[("any", "src/lib.rs", lines(19, 19))]);
        let touch = touched(&change, &coverage, &["any".into()]);
        assert_eq!(touch["any"], Touch::Everything);
    }
}

#[test]
fn comments_tests_documentation_and_images_are_inert() {
    let repo = Repo::new();
    repo.edit("src/lib.rs", "// A comment.\n", "// Another comment.\n\n");
    repo.edit("src/lib.rs", "super::a(1), 2", "super::a(2), 3");
    repo.write("README.md", "# y\n");
    repo.write("docs/guide.md", "b guide\n");
    repo.write("docs/new.txt", "notes\n");
    repo.write("logo.png", "\u{89}PNG\u{1}");
    repo.write(".github/workflows/ci.yml", "on: push\n");
    repo.write("LICENSE-MIT", "MIT\n");
    repo.write("baselines/a.json", "{}\n");
    repo.write("gate.toml", "[gate]\n");
    let change = repo.change();
    assert_eq!(reasons(&change), Vec::<String>::new());
    assert!(change.functions.is_empty());
    let mut inert = change.inert.clone();
    inert.sort();
    assert_eq!(
        inert,
        [
            ".github/workflows/ci.yml",
            "LICENSE-MIT",
            "README.md",
            "baselines/a.json",
            "docs/guide.md",
            "docs/new.txt",
            "gate.toml",
            "logo.png",
            "src/lib.rs",
        ]
    );
    let touch = touched(
        &change,
        &coverage(&[("b", "src/lib.rs", lines(1, 99))]),
        &["b".into()],
    );
    assert_eq!(touch["b"], Touch::Untouched);
}

#[test]
fn build_inputs_and_unknown_files_touch_everything() {
    let repo = Repo::new();
    repo.write("Cargo.lock", "version = 4\n# more\n");
    repo.write("Cargo.toml", "[package]\nname = \"y\"\n");
    repo.write("build.rs", "fn main() {}\n");
    repo.write("rust-toolchain.toml", "[toolchain]\n");
    repo.write(".cargo/config.toml", "[build]\n");
    repo.write("data/table.bin", "\u{0}\u{9}");
    repo.write("data/other.bin", "\u{0}\u{9}");
    repo.write("src/c/helper.c", "int x;\n");
    let change = repo.change();
    let mut found = reasons(&change);
    found.sort();
    assert_eq!(
        found,
        [
            ".cargo/config.toml: cargo's configuration (flags, profiles)",
            "Cargo.lock: dependencies",
            "Cargo.toml: a manifest (dependencies, features, profiles)",
            "build.rs: a source file added (modules, cargo's target discovery)",
            "data/other.bin: cannot classify",
            "data/table.bin: a file the code includes (include_str!, include_bytes!, include!)",
            "rust-toolchain.toml: the toolchain",
            "src/c/helper.c: cannot classify",
        ]
    );
    // A build script edited in place is still one.
    repo.write("build.rs", "fn main() { println!(\"x\"); }\n");
    assert_eq!(reasons(&repo.change()), ["build.rs: a build script"]);
}

#[test]
fn renamed_deleted_added_and_binary_files() {
    let repo = Repo::new();
    repo.write("src/more.rs", "pub fn m() {}\n");
    repo.write("docs/old.md", &"text\n".repeat(20));
    repo.commit();
    repo.git(&["mv", "src/more.rs", "src/moved.rs"]);
    repo.git(&["mv", "docs/old.md", "docs/new.md"]);
    repo.git(&["rm", "--quiet", "README.md"]);
    repo.write("src/added.rs", "pub fn n() {}\n");
    repo.write("docs/shot.png", "\u{0}\u{ff}\u{0}");
    let change = repo.change();
    let mut found = reasons(&change);
    found.sort();
    assert_eq!(
        found,
        [
            "src/added.rs: a source file added (modules, cargo's target discovery)",
            "src/moved.rs: a source file renamed",
        ]
    );
    let mut inert = change.inert.clone();
    inert.sort();
    assert_eq!(inert, ["README.md", "docs/new.md", "docs/shot.png"]);

    // A renamed source with edits, and a deleted one.
    repo.git(&["mv", "src/moved.rs", "src/again.rs"]);
    repo.write("src/again.rs", "pub fn m() { let _ = 1; }\n");
    repo.git(&["rm", "--quiet", "src/added.rs"]);
    let mut found = reasons(&repo.change());
    found.sort();
    assert_eq!(
        found,
        [
            "src/added.rs: a source file deleted",
            "src/again.rs: a source file added (modules, cargo's target discovery)",
            "src/moved.rs: a source file deleted",
        ],
        "a one-line file changed in full is no rename to git: a deletion and an addition"
    );
    repo.write(
        "src/long.rs",
        &format!("{}pub fn m() {{}}\n", "// pad\n".repeat(30)),
    );
    repo.commit();
    repo.git(&["mv", "src/long.rs", "src/longer.rs"]);
    repo.edit(
        "src/longer.rs",
        "pub fn m() {}",
        "pub fn m() { let _ = 2; }",
    );
    assert_eq!(
        reasons(&repo.change()),
        ["src/longer.rs: a source file renamed"]
    );
}

#[test]
fn a_huge_hunk_is_read_from_its_header() {
    let repo = Repo::new();
    let big = |word: &str| {
        let mut text: String = (0..200_000).map(|i| format!("// {word} {i}\n")).collect();
        text.push_str("pub fn last() -> u32 {\n    1\n}\n");
        text
    };
    repo.write("src/big.rs", &big("old"));
    repo.commit();
    repo.write("src/big.rs", &big("new"));
    let change = repo.change();
    assert_eq!(reasons(&change), Vec::<String>::new());
    assert_eq!(change.inert, ["src/big.rs"]);
    repo.edit("src/big.rs", "    1\n", "    2\n");
    let change = repo.change();
    assert_eq!(names(&change), [("src/big.rs".into(), "last".into())]);
    assert_eq!(change.functions[0].base, lines(200_001, 200_003));
}

#[test]
fn hostile_file_names_are_kept_exactly() {
    let repo = Repo::new();
    let source = "src/we ird\n*name* [x](y) <b>|\u{202e}é.rs";
    repo.write(source, "pub fn f() -> u32 {\n    1\n}\n");
    repo.write("docs/a b\n[x](javascript:y).md", "x\n");
    repo.write("data/`|` <script>.csv", "1,2\n");
    repo.write("-n", "x\n");
    repo.commit();
    repo.edit(source, "    1\n", "    2\n");
    repo.write("docs/a b\n[x](javascript:y).md", "y\n");
    repo.write("data/`|` <script>.csv", "1,3\n");
    repo.write("-n", "y\n");
    let change = repo.change();
    assert_eq!(names(&change), [(source.to_owned(), "f".to_owned())]);
    let mut found = reasons(&change);
    found.sort();
    assert_eq!(
        found,
        [
            "-n: cannot classify",
            "data/`|` <script>.csv: cannot classify"
        ]
    );
    assert_eq!(change.inert, ["docs/a b\n[x](javascript:y).md"]);
}

#[test]
fn a_syntax_error_on_either_side_touches_everything() {
    let repo = Repo::new();
    repo.edit("src/lib.rs", "    x + 1\n", "    x + (1\n");
    let change = repo.change();
    assert_eq!(change.everything.len(), 1, "{:?}", reasons(&change));
    let reason = &change.everything[0];
    assert_eq!(reason.file, "src/lib.rs");
    assert_eq!(reason.lines.map(|(side, _)| side), Some(Side::Head));
    assert!(
        reason.why.starts_with("not Rust that irgate can read"),
        "{reason}"
    );
    // Fixed again: the broken side is now the base.
    repo.edit("src/lib.rs", "    x + (1\n", "    x + 1\n");
    let reason = &repo.change().everything[0];
    assert_eq!(reason.lines.map(|(side, _)| side), Some(Side::Base));
}

#[test]
fn the_working_tree_with_untracked_files() {
    let repo = Repo::new();
    let base = git::resolve(&repo.top, "HEAD").unwrap();
    repo.edit("src/lib.rs", "twice!(x)", "twice!(x + 1)");
    repo.write("docs/draft.md", "draft\n");
    let change = between(&repo.root, (&base, None), &[], &|_| false).unwrap();
    assert_eq!(change.head, None);
    assert_eq!(names(&change), [("src/lib.rs".into(), "b".into())]);
    assert_eq!(change.inert, ["docs/draft.md"]);
    assert!(change.everything.is_empty());
    repo.write("notes.txt", "todo\n");
    repo.write("target/ignored.txt", "x\n");
    repo.write(".gitignore", "target/\n");
    let change = between(&repo.root, (&base, None), &[], &|_| false).unwrap();
    assert_eq!(reasons(&change), ["notes.txt: cannot classify"]);
}

#[test]
fn a_generic_function_no_benchmark_runs_touches_every_benchmark() {
    let repo = Repo::new();
    repo.edit(
        "src/lib.rs",
        "    t\n}",
        "    println!(\"{t:?}\");\n    t\n}",
    );
    let change = repo.change();
    assert_eq!(names(&change), [("src/lib.rs".into(), "g".into())]);
    assert!(change.functions[0].generic);
    let ids = ["x".to_owned()];
    let unseen = coverage(&[("x", "src/lib.rs", lines(19, 19))]);
    assert_eq!(
        touched(&change, &unseen, &ids)["x"],
        Touch::Unseen { functions: vec![0] }
    );
    let seen = coverage(&[
        ("x", "src/lib.rs", lines(19, 19)),
        ("y", "src/lib.rs", lines(27, 27)),
    ]);
    assert_eq!(touched(&change, &seen, &ids)["x"], Touch::Untouched);
    assert_eq!(
        touched(&change, &seen, &["y".into()])["y"],
        Touch::Runs { functions: vec![0] }
    );
}

#[test]
fn a_workspace_below_the_top_of_its_repository() {
    let repo = Repo::in_dir("ws");
    std::fs::create_dir_all(repo.top.join(".github")).unwrap();
    std::fs::write(repo.top.join(".github/ci.yml"), "x\n").unwrap();
    std::fs::write(repo.top.join("tool.rs"), "fn t() {}\n").unwrap();
    repo.commit();
    repo.edit("src/lib.rs", "    x + 1\n", "    x + 2\n");
    std::fs::write(repo.top.join(".github/ci.yml"), "y\n").unwrap();
    let change = repo.change();
    assert_eq!(names(&change), [("src/lib.rs".into(), "a".into())]);
    assert_eq!(change.inert, ["../.github/ci.yml"]);
    std::fs::write(repo.top.join("tool.rs"), "fn t() { let _ = 1; }\n").unwrap();
    assert_eq!(
        reasons(&repo.change()),
        ["../tool.rs: a source file outside the workspace"]
    );
}

#[test]
fn procedural_macro_crates_and_named_build_scripts_run_while_building() {
    let repo = Repo::new();
    repo.write("macros/Cargo.toml", "[lib]\nproc-macro = true\n");
    repo.write("macros/src/lib.rs", "pub fn expand() -> u32 {\n    1\n}\n");
    repo.write("tool/Cargo.toml", "[package]\nbuild = \"gen/make.rs\"\n");
    repo.write("tool/gen/make.rs", "fn main() {\n}\n");
    repo.commit();
    repo.edit("macros/src/lib.rs", "    1\n", "    2\n");
    repo.edit(
        "tool/gen/make.rs",
        "fn main() {\n",
        "fn main() {\n    let _ = 1;\n",
    );
    let mut found = reasons(&repo.change());
    found.sort();
    assert_eq!(
        found,
        [
            "macros/src/lib.rs: a procedural macro crate (it runs while building)",
            "tool/gen/make.rs: a build script",
        ]
    );
}

#[test]
fn an_include_irgate_cannot_read_makes_known_inert_files_count() {
    let repo = Repo::new();
    repo.write(
        "src/gen.rs",
        "pub const DOC: &str = include_str!(concat!(env!(\"OUT_DIR\"), some_name!()));\n",
    );
    repo.write("docs/x.md", "a\n");
    repo.commit();
    repo.write("docs/x.md", "b\n");
    assert_eq!(
        reasons(&repo.change()),
        [
            "docs/x.md: the include macro at src/gen.rs:1 names a file irgate cannot tell, maybe this one"
        ]
    );
}

#[test]
fn a_base_that_is_not_in_the_checkout_is_a_clear_error() {
    let repo = Repo::new();
    let error = between(
        &repo.root,
        ("0123456789abcdef0123456789abcdef01234567", None),
        &[],
        &|_| false,
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("names no commit in this checkout") && error.contains("fetch"),
        "{error}"
    );
    let error = between(&repo.root, ("--output=x\u{1b}[2J", None), &[], &|_| false)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("\\u{1b}") && !error.contains('\u{1b}'),
        "{error}"
    );
    let elsewhere = tempfile::tempdir().unwrap();
    assert!(between(elsewhere.path(), ("HEAD", None), &[], &|_| false).is_err());
    assert!(!Path::new(&repo.root).join("x").exists());
}

#[test]
fn a_source_that_is_not_utf8_touches_everything() {
    let repo = Repo::new();
    let mut bytes = LIB.as_bytes().to_vec();
    bytes.extend_from_slice(b"// \xff\xfe\n");
    std::fs::write(repo.root.join("src/lib.rs"), bytes).unwrap();
    assert_eq!(
        reasons(&repo.change()),
        ["src/lib.rs: not UTF-8 on the head side"]
    );
}

#[test]
fn files_of_a_package_no_suite_depends_on_are_inert() {
    let repo = Repo::in_dir("");
    repo.write("tools/gen/src/main.rs", "fn main() {}\n");
    repo.write("tools/gen/Cargo.toml", "[package]\nname = \"gen\"\n");
    repo.write("tools/gen/tools/used/src/lib.rs", "pub const A: u8 = 1;\n");
    repo.write("tests/it.rs", "const B: u8 = 1;\n");
    repo.write("tools/gen/tools/used/examples/e.rs", "const C: u8 = 1;\n");
    repo.commit();
    let base = git::resolve(&repo.top, "HEAD").unwrap();
    repo.edit(
        "tools/gen/src/main.rs",
        "fn main() {}",
        "fn main() { let _ = 1; }",
    );
    repo.write("tools/gen/README.txt", "notes\n");
    repo.edit("tools/gen/tools/used/src/lib.rs", "A: u8 = 1", "A: u8 = 2");
    // Integration tests and examples: `cargo bench --bench NAME` builds neither.
    repo.edit("tests/it.rs", "B: u8 = 1", "B: u8 = 2");
    repo.edit(
        "tools/gen/tools/used/examples/e.rs",
        "C: u8 = 1",
        "C: u8 = 2",
    );
    let head = repo.commit();
    // The root package is used; `tools/gen` is not; `tools/gen/tools/used`, inside it, is.
    let members = [
        (String::new(), true),
        ("tools/gen".to_owned(), false),
        ("tools/gen/tools/used".to_owned(), true),
    ];
    let change = between(&repo.root, (&base, Some(&head)), &members, &|_| false).unwrap();
    assert_eq!(
        change.inert,
        [
            "tests/it.rs",
            "tools/gen/README.txt",
            "tools/gen/src/main.rs",
            "tools/gen/tools/used/examples/e.rs"
        ],
        "{change:?}"
    );
    assert_eq!(
        reasons(&change),
        ["tools/gen/tools/used/src/lib.rs:1: a constant"],
        "the longest member directory decides"
    );
    // Without the members, the unused package's files count like any other.
    let all = between(&repo.root, (&base, Some(&head)), &[], &|_| false).unwrap();
    // Files gate.toml's `[change] inert` names are inert too.
    let said = between(&repo.root, (&base, Some(&head)), &[], &|p| {
        p.starts_with("tools/gen/") && !p.starts_with("tools/gen/tools/")
    })
    .unwrap();
    assert_eq!(
        said.inert,
        ["tools/gen/README.txt", "tools/gen/src/main.rs"],
        "{said:?}"
    );
    assert!(
        reasons(&all)
            .iter()
            .any(|r| r.starts_with("tools/gen/README.txt")),
        "{all:?}"
    );
}

#[test]
fn doc_comments_and_lint_attributes_of_items_no_macro_reads_are_inert() {
    // The shapes of either-or-both's `#[must_use]`, crate documentation and trait-impl
    // documentation commits, and of glam's crate documentation beside a `cfg_attr`.
    let repo = Repo::new();
    repo.edit(
        "src/lib.rs",
        "//! The library.\n",
        "//! The library.\n#![cfg_attr(docsrs, feature(doc_cfg))]\n",
    );
    repo.commit();
    repo.edit(
        "src/lib.rs",
        "//! The library.\n",
        "//! The library.\n//!\n//! # Trait implementations\n",
    );
    repo.edit(
        "src/lib.rs",
        "pub fn a(x: u32)",
        "/// Adds one.\n#[must_use]\n#[allow(clippy::missing_panics_doc)]\npub fn a(x: u32)",
    );
    repo.edit(
        "src/lib.rs",
        "    pub x: u32,",
        "    /// The x.\n    pub x: u32,",
    );
    let change = repo.change();
    assert_eq!(reasons(&change), Vec::<String>::new());
    assert!(change.functions.is_empty(), "{:?}", names(&change));
    assert_eq!(change.inert, ["src/lib.rs"]);

    // A derive reads the documentation of its type and fields.
    let repo = Repo::new();
    repo.edit(
        "src/lib.rs",
        "pub struct S {",
        "#[derive(Clone)]\npub struct S {",
    );
    repo.commit();
    repo.edit(
        "src/lib.rs",
        "    pub x: u32,",
        "    /// The x.\n    pub x: u32,",
    );
    assert_eq!(reasons(&repo.change()), ["src/lib.rs:10: a type"]);
}

#[test]
fn a_manifest_whose_change_is_only_metadata_no_code_reads_is_inert() {
    let manifest = "[package]\nname = \"x\"\nversion = \"0.1.0\"\nkeywords = [\"a\"]\n";
    let repo = Repo::new();
    repo.write("Cargo.toml", manifest);
    repo.commit();
    repo.write(
        "Cargo.toml",
        "# The package.\n[package]\nname = \"x\"\nversion = \"0.1.0\"\nkeywords = [\"a\", \"b\"]\n\
         categories = [\"parsing\"]\ndocumentation = \"https://docs.rs/x\"\npublish = false\n\n\
         [package.metadata.docs.rs]\nall-features = true\n\n[badges]\nmaintenance = { status = \"passively-maintained\" }\n\n\
         [lints.clippy]\nimplicit_clone = \"warn\"\n",
    );
    let change = repo.change();
    assert_eq!(reasons(&change), Vec::<String>::new());
    assert_eq!(change.inert, ["Cargo.toml"]);
    // The version reaches code through `env!("CARGO_PKG_VERSION")`, also from a dependency's
    // macro: it still touches everything, as does any other key.
    for (from, to) in [
        ("version = \"0.1.0\"", "version = \"0.1.1\""),
        ("publish = false", "publish = false\ndescription = \"x\""),
        ("[badges]", "[features]\nx = []\n\n[badges]"),
    ] {
        repo.edit("Cargo.toml", from, to);
        assert_eq!(
            reasons(&repo.change()),
            ["Cargo.toml: a manifest (dependencies, features, profiles)"],
            "{to}"
        );
    }
}
