//! Accepting a known regression on purpose: `[[accept]]` entries of gate.toml, end to end through
//! the binary on the real summaries of tests/fixtures (`slowdown` regresses `filter::scan/*` by
//! about 62%).

use serde_json::Value;

use crate::harness::{GATE_TOML, Run, Sandbox};

/// A sandbox with baselines from `base` and results `slow.json` from `slowdown`, gated by
/// [`GATE_TOML`] and the `[[accept]]` text given.
fn repo(accept: &str) -> Sandbox {
    let sandbox = Sandbox::empty();
    config(&sandbox, accept);
    sandbox.baselines();
    sandbox.results("slowdown", "slow.json", |_| {});
    sandbox
}

/// gate.toml: [`GATE_TOML`], a blank line, then `accept`.
fn config(sandbox: &Sandbox, accept: &str) {
    sandbox.write("gate.toml", &format!("{GATE_TOML}\n{accept}"));
}

fn check(sandbox: &Sandbox, format: &str) -> Run {
    sandbox.check("slow.json", &["--format", format])
}

/// Sets the commit the results say they were measured at.
fn measured_at(sandbox: &Sandbox, commit: &str) {
    sandbox.edit_json("slow.json", |r| r["fingerprint"]["commit"] = commit.into());
}

/// A new empty commit; its hash.
fn commit(sandbox: &Sandbox, message: &str) -> String {
    sandbox.git(&["commit", "--allow-empty", "-q", "-m", message]);
    sandbox.git(&["rev-parse", "HEAD"])
}

fn rows(run: &Run) -> Vec<Value> {
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    report["rows"].as_array().unwrap().clone()
}

fn row<'a>(rows: &'a [Value], id: &str) -> &'a Value {
    rows.iter().find(|r| r["benchmark"] == id).unwrap()
}

const ACTIVE: &str = "[[accept]]\nbenchmarks = [\"filter::scan/*\"]\nreason = \"checksums verified on purpose (#42)\"\nuntil = \"2999-12-31\"\n";

/// A reason with a line break and a terminal escape: the table prints it on its line, escaped,
/// so no line of the log starts a workflow command; an entry for years is warned about.
#[test]
fn a_hostile_reason_stays_on_its_line_and_a_far_end_is_warned_about() {
    let hostile = ACTIVE.replace(
        "checksums verified on purpose (#42)",
        "ok\\n::error title=forged::pwned \\u001b[2J\\u202Egnp.exe",
    );
    let repo = repo(&hostile);
    let table = check(&repo, "table");
    assert_eq!(table.code, 0, "{}{}", table.stdout, table.stderr);
    assert!(
        table
            .stdout
            .contains("): ok\\n::error title=forged::pwned \\u{1b}[2J\\u{202e}gnp.exe\n"),
        "{}",
        table.stdout
    );
    for line in table.stdout.lines().chain(table.stderr.lines()) {
        assert!(!line.trim_start().starts_with("::"), "{line}");
        assert!(!line.contains(['\u{1b}', '\u{202E}']), "{line}");
    }
    assert!(
        table.stderr.contains(&format!(
            "irgate: warning: {}:4: the [[accept]] entry holds until 2999-12-31, ",
            repo.dir.path().join("gate.toml").display()
        )),
        "{}",
        table.stderr
    );
}

#[test]
fn an_active_entry_lets_the_named_regression_pass_and_every_report_says_why() {
    let repo = repo(ACTIVE);
    let json = check(&repo, "json");
    assert_eq!(json.code, 0, "{}{}", json.stdout, json.stderr);
    let rows = rows(&json);
    // The entry is written once, and each accepted row names it by index.
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(
        report["accepts"],
        serde_json::json!([{
            "reason": "checksums verified on purpose (#42)",
            "until": "until 2999-12-31",
            "origin": format!("{}:4", repo.dir.path().join("gate.toml").display()),
        }])
    );
    assert_eq!(
        json.stdout.matches("checksums verified on purpose").count(),
        1
    );
    for id in ["filter::scan/s512", "filter::scan/s32"] {
        let row = row(&rows, id);
        assert_eq!(row["status"], "accepted", "{row}");
        assert_eq!(row["fails"], false);
        assert_eq!(row["accept"], 0, "{row}");
        assert!(row.get("accepted").is_none(), "{row}");
    }
    assert!(row(&rows, "filter::alloc").get("accept").is_none());

    let table = check(&repo, "table");
    assert_eq!(table.code, 0);
    assert!(
        table.stdout.contains("accepted: over budget on purpose"),
        "{}",
        table.stdout
    );
    assert!(
        table
            .stdout
            .contains("Accepted on purpose: filter::scan/s512 by ")
    );
    assert!(
        table
            .stdout
            .contains("(until 2999-12-31): checksums verified on purpose (#42)")
    );
    assert!(
        table.stdout.contains("(2 accepted on purpose)"),
        "{}",
        table.stdout
    );

    let markdown = check(&repo, "markdown");
    assert_eq!(markdown.code, 0);
    assert!(markdown.stdout.contains("## ✅ irgate: passed"));
    assert!(
        markdown
            .stdout
            .contains("2 benchmarks over budget on purpose")
    );
    assert!(markdown.stdout.contains("### Accepted on purpose"));
    assert!(
        markdown
            .stdout
            .contains("☑️ accepted: over budget on purpose")
    );
    // The reason is prose from gate.toml: escaped, no issue link forms.
    assert!(
        markdown
            .stdout
            .contains("checksums verified on purpose \\(#&#8203;42\\)"),
        "{}",
        markdown.stdout
    );
}

#[test]
fn an_expired_date_fails_closed_naming_the_entry() {
    let repo = repo(&ACTIVE.replace("2999-12-31", "2001-02-03"));
    let run = check(&repo, "table");
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("gate.toml:4 (until 2001-02-03, reason: \"checksums verified on purpose (#42)\"): [[accept]] entry expired"), "{}", run.stderr);
    // Machine-read formats carry the reason too.
    let json = check(&repo, "json");
    assert_eq!(json.code, 2);
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(report["outcome"]["kind"], "undecided");
    assert!(
        report["outcome"]["reason"]
            .as_str()
            .unwrap()
            .contains("expired")
    );
}

#[test]
fn a_benchmark_the_entry_does_not_name_still_fails() {
    let repo = repo(&ACTIVE.replace("filter::scan/*", "filter::scan/s32"));
    let json = check(&repo, "json");
    assert_eq!(json.code, 1, "{}", json.stdout);
    let rows = rows(&json);
    assert_eq!(row(&rows, "filter::scan/s32")["status"], "accepted");
    let s512 = row(&rows, "filter::scan/s512");
    assert_eq!(
        (s512["status"].as_str(), s512["fails"].as_bool()),
        (Some("over_budget"), Some(true))
    );
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(
        report["outcome"],
        serde_json::json!({"kind": "failed", "count": 1})
    );
}

#[test]
fn a_commit_ends_the_entry_once_it_is_in_the_measured_history() {
    let repo = repo("");
    repo.git(&["init", "-q"]);
    let first = commit(&repo, "first");
    let measured = commit(&repo, "measured");
    let later = commit(&repo, "later");
    measured_at(&repo, &measured);

    // The fix lands later than the measured commit: still accepted.
    config(
        &repo,
        &ACTIVE.replace(
            "until = \"2999-12-31\"",
            &format!("until_commit = \"{}\"", &later[..12]),
        ),
    );
    let run = check(&repo, "json");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let index = row(&rows(&run), "filter::scan/s512")["accept"]
        .as_u64()
        .unwrap();
    assert_eq!(
        report["accepts"][index as usize]["until"],
        format!("until commit {}", &later[..12])
    );

    // An ancestor of the measured commit, or the commit itself: expired.
    for ended in [&first, &measured] {
        config(
            &repo,
            &ACTIVE.replace(
                "until = \"2999-12-31\"",
                &format!("until_commit = \"{ended}\""),
            ),
        );
        let run = check(&repo, "table");
        assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
        assert!(
            run.stderr
                .contains(&format!("(until commit {ended}, reason:")),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains("[[accept]] entry expired"));
    }

    // A commit git does not know: the gate cannot tell, and says so.
    config(
        &repo,
        &ACTIVE.replace("until = \"2999-12-31\"", "until_commit = \"abcdef0\""),
    );
    let run = check(&repo, "table");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains(
            "cannot tell whether the [[accept]] entry (until commit abcdef0) has expired"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn malformed_entries_are_refused_with_file_and_line() {
    let repo = repo("");
    let base = "[[accept]]\nbenchmarks = [\"filter::scan/*\"]\n";
    for (entry, message) in [
        (
            format!("{base}reason = \"x\"\n"),
            "needs exactly one of `until = \"YYYY-MM-DD\"` and `until_commit",
        ),
        (
            format!("{base}reason = \"x\"\nuntil = \"2026-1-1x\"\n"),
            "until = \"2026-1-1x\" is not a date YYYY-MM-DD",
        ),
        (
            format!("{base}reason = \"x\"\nuntil = 2999-01-01T10:00:00\n"),
            "until = 2999-01-01T10:00:00 holds a time: write the day alone",
        ),
        (
            format!("{base}reason = \"x\"\nuntil = 5\n"),
            "until = 5 is not a date: write until = \"YYYY-MM-DD\"",
        ),
        (
            format!("{base}reason = \"x\"\nuntil = \"2999-01-01\"\nuntil_commit = \"abcdef0\"\n"),
            "needs exactly one of",
        ),
        (
            format!("{base}reason = \"x\"\nuntil_commit = \"main\"\n"),
            "until_commit = \"main\" is not a commit hash",
        ),
        (
            format!("{base}reason = \"  \"\nuntil = \"2999-01-01\"\n"),
            "the reason of an [[accept]] entry is empty",
        ),
        (
            format!("{base}until = \"2999-01-01\"\n"),
            "missing field `reason`",
        ),
        (
            "[[accept]]\nbenchmarks = []\nreason = \"x\"\nuntil = \"2999-01-01\"\n".to_owned(),
            "accepts nothing",
        ),
    ] {
        config(&repo, &entry);
        let run = check(&repo, "table");
        assert_eq!(run.code, 2, "{entry}");
        assert!(run.stderr.contains("gate.toml:"), "{entry}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{entry}: {}", run.stderr);
    }
    // A TOML date, unquoted, is the day it names.
    config(&repo, &ACTIVE.replace("\"2999-12-31\"", "2999-12-31"));
    let run = check(&repo, "table");
    assert_eq!(run.code, 0, "{}", run.stderr);
    // A glob that matches no benchmark is a typo, as for overrides.
    config(&repo, &ACTIVE.replace("filter::scan/*", "filter::sacn/*"));
    let run = check(&repo, "table");
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("gate.toml:5: `filter::sacn/*`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("override or accept pattern matches no benchmark")
    );
}
