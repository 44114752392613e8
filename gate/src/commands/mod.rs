//! The commands: each takes its plain options and does one job of the command line, on the
//! layers below (measuring, judging, formats, rendering).

pub mod bisect;
pub mod calibrate;
pub mod check;
#[cfg(feature = "github")]
pub mod comment;
pub mod doctor;
pub mod explain;
pub mod history;
pub mod init;
pub mod refresh;
pub mod run;
pub mod runner;

/// Warns on stderr about each file of `written` (in the repository at `root`) that git ignores and
/// does not track, naming the rule that hides it and the fix: `git add` would leave it out without
/// a word, and CI would not have it. Returns the warnings, one per rule, for a command's closing
/// instructions.
pub fn warn_ignored(root: &std::path::Path, written: &[std::path::PathBuf]) -> Vec<String> {
    use crate::text::{shell_word, terminal};
    let mut by_rule: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for ignored in crate::git::ignored(root, written) {
        let path = ignored.path.strip_prefix(root).unwrap_or(&ignored.path);
        by_rule
            .entry(ignored.rule)
            .or_default()
            .push(path.display().to_string());
    }
    let mut warnings = Vec::new();
    for (rule, paths) in by_rule {
        const SHOWN: usize = 5;
        let mut listed: Vec<String> = paths
            .iter()
            .take(SHOWN)
            .map(|p| terminal(p).into_owned())
            .collect();
        if paths.len() > SHOWN {
            listed.push(format!("and {} more", paths.len() - SHOWN));
        }
        let add: Vec<String> = paths
            .iter()
            .take(SHOWN)
            .map(|p| shell_word(p).into_owned())
            .collect();
        let warning = format!(
            "git ignores {} irgate wrote, by the rule {} ({}); `git add` leaves {} out without \
             a word and CI would not have {}: add {} with `git add -f {}{}`, or un-ignore {} \
             with a `!` rule after that line (e.g. `!{}`)",
            crate::text::plural(paths.len(), "file"),
            terminal(rule.splitn(3, ':').nth(2).unwrap_or(&rule)),
            terminal(&rule),
            if paths.len() == 1 { "it" } else { "them" },
            if paths.len() == 1 { "it" } else { "them" },
            if paths.len() == 1 { "it" } else { "them" },
            add.join(" "),
            if paths.len() > SHOWN { " ..." } else { "" },
            if paths.len() == 1 { "it" } else { "them" },
            terminal(&paths[0]),
        );
        crate::warning!("{}: {warning}", listed.join(", "));
        warnings.push(format!("{}: {warning}", listed.join(", ")));
    }
    warnings
}
