//! What `irgate doctor` says: each fingerprint field against the baselines', each runner, and what
//! to do about what differs.

use std::path::Path;

use crate::measure::doctor::{Examination, Field};

/// The whole report of `examination` (against the baselines in `baselines`).
pub fn render(examination: &Examination, baselines: &Path) -> String {
    let source = if examination.groups == 0 {
        format!("no baselines in {} yet", baselines.display())
    } else {
        format!(
            "against the baselines in {} ({} files)",
            baselines.display(),
            examination.groups
        )
    };
    let mut out = format!("irgate doctor: the environment here, {source}\n\n");
    out += &fields(&examination.fields);
    out += &runners(examination);
    out += "\n";
    if !examination.runners_ok() {
        out += "A suite's runner is missing or of another version: `irgate run` stops before \
             building (`irgate runner install` installs the right one beside any other).\n";
    }
    let differing = examination.differing();
    if examination.groups == 0 {
        out += "Nothing to compare with: take baselines with `irgate run && irgate refresh`, in the \
             environment the gate will run in (the pinned image, in CI).\n";
    } else if differing.is_empty() {
        out +=
            "Every field that changes counts matches the baselines': counts taken here compare.\n";
    } else {
        out += &format!(
            "{} field(s) that change counts differ: {}. Counts taken here do not compare with the \
             baselines' (`irgate check` exits 2): run the gate where the baselines were taken, or \
             take new ones here on purpose (`irgate run && irgate refresh`).\n",
            differing.len(),
            differing.join(", ")
        );
        if differing.contains(&"aslr") && examination.here.aslr == "on" {
            out += "ASLR is on here because `setarch -R` was refused. In Docker, allow that one \
                 `personality` call with a seccomp profile (irgate's pinned image documents one).\n";
        }
    }
    out
}

/// One line per library: the runner `irgate run` would use for it, or why there is none.
fn runners(examination: &Examination) -> String {
    let mut out = String::new();
    for (library, runner) in &examination.runners {
        let name = format!("{} {}", library.kind.runner(), library.version);
        match runner {
            Ok(runner) => {
                out += &format!(
                    "ok       runner          {name} at {} ({})\n",
                    runner.path.display(),
                    runner.source
                );
            }
            Err(error) => {
                out += &format!("MISSING  runner          {name}: {error}\n");
            }
        }
    }
    out
}

/// One line per field (`ok`, `DIFFERS` or `info`), and the baselines' values where they differ.
fn fields(fields: &[Field]) -> String {
    let width = fields.iter().map(|f| f.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for field in fields {
        let must_match = crate::model::fingerprint::must_match(field.name);
        let status = match (must_match, field.baselines.is_empty(), field.matches()) {
            (false, _, _) => "info",
            (true, true, _) => "",
            (true, false, true) => "ok",
            (true, false, false) => "DIFFERS",
        };
        let here = if field.here.is_empty() {
            "(none)"
        } else {
            &field.here
        };
        out += &format!("{status:<7}  {:<width$}  {here}\n", field.name);
        if field.matches() {
            continue;
        }
        let values: Vec<String> = field
            .baselines
            .iter()
            .map(|(value, groups)| {
                let value = if value.is_empty() { "(none)" } else { value };
                if field.baselines.len() == 1 {
                    value.to_owned()
                } else {
                    format!("{value} ({})", groups.join(", "))
                }
            })
            .collect();
        out += &format!(
            "{:<7}  {:<width$}  baselines: {}\n",
            "",
            "",
            crate::text::terminal(&values.join("; "))
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::measure::doctor::compare;
    use crate::measure::doctor::tests::{fingerprint, groups};

    #[test]
    fn renders_differences_with_the_groups_that_hold_them() {
        let here = fingerprint("valgrind-3.24.0", "new");
        let groups = groups(&[
            ("frame", fingerprint("valgrind-3.24.0", "old")),
            ("varint", fingerprint("valgrind-3.19.0", "old")),
        ]);
        let text = fields(&compare(&here, &groups));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.contains(&"ok       rustc           1.95.0"), "{text}");
        assert!(
            lines.contains(&"DIFFERS  valgrind        valgrind-3.24.0"),
            "{text}"
        );
        assert!(
            text.contains("baselines: valgrind-3.19.0 (varint); valgrind-3.24.0 (frame)"),
            "{text}"
        );
        assert!(lines.contains(&"info     commit          new"), "{text}");
        assert!(text.contains("baselines: old\n"), "{text}");
    }

    #[test]
    fn without_baselines_only_this_environment_is_shown() {
        let text = fields(&compare(
            &fingerprint("valgrind-3.24.0", "c"),
            &BTreeMap::new(),
        ));
        assert!(
            !text.contains("baselines:") && !text.contains("DIFFERS"),
            "{text}"
        );
        assert!(text.contains("valgrind        valgrind-3.24.0"), "{text}");
    }
}
