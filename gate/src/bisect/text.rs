//! The report of `irgate bisect` as a short text table (its JSON is [`crate::bisect::format`]).

use crate::bisect::{Bisection, count_text};
use crate::text::{self, plural, short_commit, terminal};

/// At most this many characters of a commit's subject in the table.
const SUBJECT: usize = 40;

/// The bisection as a short text table: a line per move, then what stayed open or was left out,
/// and the cost against a linear replay. Every id, function name and subject is escaped.
pub fn table(b: &Bisection) -> String {
    let mut out = format!(
        "irgate bisect: {} from {} to {}; {} measured at both ends, {} unchanged\n",
        plural(b.commits, "commit"),
        short_commit(&b.good),
        short_commit(&b.bad),
        plural(b.benchmarks, "benchmark"),
        b.unchanged
    );
    if b.moves.is_empty() {
        out.push_str("no benchmark moved at a commit of the range\n");
    } else {
        let mut lines = vec![
            [
                "benchmark",
                "commit",
                "before",
                "after",
                "change",
                "functions",
            ]
            .map(str::to_owned)
            .to_vec(),
        ];
        for m in &b.moves {
            let change = match (m.before, m.after) {
                (Some(a), Some(b)) => text::signed(text::signed_delta(b, a)),
                (None, _) => "added".to_owned(),
                (_, None) => "removed".to_owned(),
            };
            let subject: String = m.subject.chars().take(SUBJECT).collect();
            let mut why: Vec<String> = m
                .functions
                .iter()
                .map(|f| terminal(f).into_owned())
                .collect();
            why.extend(m.files.iter().map(|f| format!("file {}", terminal(f))));
            lines.push(vec![
                terminal(&m.benchmark).into_owned(),
                format!("{} {}", short_commit(&m.commit), terminal(&subject)),
                count_text(m.before),
                count_text(m.after),
                change,
                why.join(", "),
            ]);
        }
        out.push_str(&text::align(&lines, |i| (2..=4).contains(&i)));
    }
    for u in &b.undecided {
        out.push_str(&format!(
            "undecided: {} moved ({} -> {}) in {}..{} ({}): {}\n",
            terminal(&u.benchmark),
            count_text(u.before),
            count_text(u.count),
            short_commit(&u.after),
            short_commit(&u.through),
            plural(u.commits, "commit"),
            terminal(&u.why)
        ));
    }
    for u in &b.unreproducible {
        out.push_str(&format!(
            "left out: {}: its count at the bad end did not repeat ({} then {})\n",
            terminal(&u.benchmark),
            count_text(u.counts[0]),
            count_text(u.counts[1])
        ));
    }
    for u in &b.unexplained {
        out.push_str(&format!(
            "left out: {}: moved ({} -> {}) with no change to the code it executes or the files it \
             may read\n",
            terminal(&u.benchmark),
            text::thousands(u.good),
            text::thousands(u.bad)
        ));
    }
    for s in &b.skipped {
        out.push_str(&format!(
            "skipped: {}: {}\n",
            short_commit(&s.commit),
            terminal(&s.why)
        ));
    }
    out.push_str(&format!(
        "cost: {} and {} ({} measured) in {:.0} s; a linear replay: {} and {} ({} measured)\n",
        plural(b.builds, "build"),
        plural(b.runs, "run"),
        plural(b.benchmark_runs, "benchmark"),
        b.seconds,
        plural(b.linear.builds, "build"),
        plural(b.linear.runs, "run"),
        plural(b.linear.benchmark_runs, "benchmark"),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bisect::Move;

    #[test]
    fn the_table_escapes_what_the_repository_wrote() {
        let b = Bisection {
            good: "a".repeat(40),
            bad: "b".repeat(40),
            commits: 3,
            benchmarks: 1,
            moves: vec![Move {
                benchmark: "g::f/\u{1b}[31mred".to_owned(),
                commit: "c".repeat(40),
                subject: "subject\nwith a line".to_owned(),
                before: Some(100),
                after: Some(120),
                functions: vec!["evil\u{7}".to_owned()],
                files: Vec::new(),
            }],
            ..Bisection::default()
        };
        let table = table(&b);
        assert!(
            !table.contains('\u{1b}') && !table.contains('\u{7}'),
            "{table}"
        );
        assert!(table.contains("+20"), "{table}");
    }
}
