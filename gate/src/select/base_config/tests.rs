use super::*;
use crate::git::for_tests as git;

const BASE: &str = "[budgets]\nIr = { relative_pct = 0.0, absolute = 1 }\n\n\
                    [change]\ninert = [\"docs/**\"]\n";

/// A repository at `dir` whose first commit holds gate.toml `text` (none when `None`); the
/// resolved paths and that commit.
fn repository(dir: &Path, text: Option<&str>) -> (Resolved, String) {
    git(dir, &["init", "--quiet"]);
    std::fs::write(dir.join("README"), "r\n").unwrap();
    if let Some(text) = text {
        std::fs::write(dir.join("gate.toml"), text).unwrap();
    }
    git(dir, &["add", "."]);
    git(dir, &["commit", "--quiet", "-m", "base"]);
    let paths = Resolved {
        root: dir.to_owned(),
        config: dir.join("gate.toml"),
        config_named: false,
        baselines: dir.join("baselines"),
        results: dir.join("target/irgate/results.json"),
    };
    (paths, crate::git::resolve(dir, "HEAD").unwrap())
}

#[test]
fn a_pull_requests_inert_entry_is_judged_by_the_bases_list() {
    let dir = tempfile::tempdir().unwrap();
    let (paths, base) = repository(dir.path(), Some(BASE));
    // The pull request changes a data file and names it inert in the same commit, and accepts a
    // regression.
    let tree = "[budgets]\nIr = { relative_pct = 50.0, absolute = 1000 }\n\n\
                [change]\ninert = [\"docs/**\", \"benches/data/**\"]\n\n\
                [[accept]]\nbenchmarks = [\"g::*\"]\nreason = \"on purpose\"\n\
                until = \"2099-01-01\"\n";
    std::fs::write(dir.path().join("gate.toml"), tree).unwrap();
    git(dir.path(), &["commit", "--quiet", "-am", "loosen"]);
    let judged = load(&paths, Some(&base)).unwrap();
    assert!(!judged.config.is_inert("benches/data/input.bin"));
    assert!(judged.config.is_inert("docs/a.md"));
    // Its [[accept]] entry applies now; the report lists it for the reviewer.
    assert_eq!(judged.config.accepts.len(), 1);
    let changed = judged.changed.unwrap();
    assert!(
        changed.starts_with(&format!("gate.toml changed since {}", short_commit(&base)))
            && changed.contains("[[accept]], which applies now")
            && changed.contains("[budgets]")
            && changed.contains("[change]")
            && changed.ends_with("the base's rules apply until merged"),
        "{changed}"
    );
    // Without --record-from, the tree's rules.
    let tree = load(&paths, None).unwrap();
    assert!(tree.config.is_inert("benches/data/input.bin"));
    assert_eq!(tree.changed, None);
}

#[test]
fn an_unchanged_gate_toml_says_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (paths, base) = repository(dir.path(), Some(BASE));
    let judged = load(&paths, Some(&base)).unwrap();
    assert_eq!(judged.changed, None);
    assert!(judged.config.is_inert("docs/x"));
}

#[test]
fn a_base_without_gate_toml_gives_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let (paths, base) = repository(dir.path(), None);
    std::fs::write(dir.path().join("gate.toml"), BASE).unwrap();
    let judged = load(&paths, Some(&base)).unwrap();
    assert!(!judged.config.is_inert("docs/x"));
    let changed = judged.changed.unwrap();
    assert!(
        changed.contains("(added)") && changed.contains("built-in default"),
        "{changed}"
    );
}

#[test]
fn a_revision_the_checkout_lacks_or_an_unreadable_base_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (paths, _) = repository(dir.path(), Some("[change\n"));
    std::fs::write(dir.path().join("gate.toml"), BASE).unwrap();
    let error = load(&paths, Some("0123456789abcdef0123456789abcdef01234567"))
        .unwrap_err()
        .to_string();
    assert!(error.contains("names no commit"), "{error}");
    let error = load(&paths, Some("HEAD")).unwrap_err().to_string();
    assert!(error.contains(":gate.toml"), "{error}");
}

#[test]
fn changes_name_the_sections_that_differ() {
    assert_eq!(changes(Some(BASE), Some(BASE)), None);
    assert_eq!(
        changes(Some(BASE), Some(&format!("# a comment\n{BASE}"))),
        None
    );
    assert_eq!(changes(None, None), None);
    assert_eq!(changes(Some(BASE), None).as_deref(), Some("removed"));
    let suite = format!("{BASE}\n[[suite]]\npackage = \"p\"\nbench = \"b\"\n");
    assert_eq!(
        changes(Some(BASE), Some(&suite)).as_deref(),
        Some("[[suite]]")
    );
    assert_eq!(
        changes(Some(BASE), Some("[budgets\n")).as_deref(),
        Some("its text; one side does not parse")
    );
}
