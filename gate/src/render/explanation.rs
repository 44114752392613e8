//! A benchmark's explanation as indented text: the terminal's form of where its instructions
//! went.

use std::fmt::Write as _;

use irgate_callgrind::Kind;

use crate::model::Explained;
use crate::text::{elide_generics, plural, signed, signed_delta, terminal, thousands};

/// What a mover's kind adds to its name, e.g. `renamed from old` (empty for a plain change).
pub fn kind_note(kind: &Kind) -> String {
    match kind {
        Kind::Changed => String::new(),
        Kind::Added { .. } => "new".to_owned(),
        Kind::Removed => "gone".to_owned(),
        Kind::Renamed { from } => format!("renamed from {from}"),
        Kind::Inlined { inlined } => format!("now inlines {}", inlined.join(", ")),
        Kind::Outlined { outlined } => format!("no longer inlines {}", outlined.join(", ")),
        Kind::InlinedInto { host } => format!("inlined into {host}"),
    }
}

/// The explanation as indented text, each line prefixed by `indent`.
pub fn text(explained: &Explained, indent: &str) -> String {
    let e = &explained.explanation;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{indent}where the {} Ir of {} went (self Ir by function):",
        signed(e.delta()),
        terminal(&explained.benchmark)
    );
    let show_inclusive = e.movers.iter().any(|m| m.inclusive_delta() != m.delta());
    let mut lines = vec![
        [
            "function",
            "baseline",
            "new",
            "change",
            "incl. change",
            "file",
        ]
        .map(str::to_owned)
        .to_vec(),
    ];
    for m in &e.movers {
        let mut name = terminal(&elide_generics(&m.function)).into_owned();
        let note = kind_note(&m.kind);
        if !note.is_empty() {
            let _ = write!(name, " ({})", terminal(&elide_generics(&note)));
        }
        if m.outside_main {
            let _ = write!(name, " ({OUTSIDE_MAIN})");
        }
        let mut file = terminal(&m.file).into_owned();
        if let Some((from, delta)) = m.inlined_from.first() {
            let _ = write!(
                file,
                "; {} of it inlined from {}",
                signed(*delta),
                terminal(from)
            );
        }
        if let Kind::Added { called_from } = &m.kind
            && !called_from.is_empty()
        {
            let _ = write!(file, "; called from {}", terminal(&called_from.join(", ")));
        }
        let count = |n: u64, present: bool| {
            if present {
                thousands(n)
            } else {
                "-".to_owned()
            }
        };
        lines.push(vec![
            name,
            count(m.base_self, !matches!(m.kind, Kind::Added { .. })),
            count(m.new_self, !matches!(m.kind, Kind::Removed)),
            signed(m.delta()),
            signed(m.inclusive_delta()),
            file,
        ]);
    }
    let rest = e.rest;
    lines.extend(
        (rest.functions > 0 || rest.base > 0 || rest.new > 0).then(|| {
            vec![
                rest_label(&e.rest),
                thousands(e.rest.base),
                thousands(e.rest.new),
                signed(signed_delta(e.rest.new, e.rest.base)),
                String::new(),
                String::new(),
            ]
        }),
    );
    lines.extend(e.unattributed.map(|u| {
        vec![
            UNATTRIBUTED.to_owned(),
            thousands(u.base),
            thousands(u.new),
            signed(signed_delta(u.new, u.base)),
            String::new(),
            String::new(),
        ]
    }));
    if !show_inclusive {
        for line in &mut lines {
            line.remove(4);
        }
    }
    let last_number = if show_inclusive { 4 } else { 3 };
    for line in crate::text::align(&lines, |i| (1..=last_number).contains(&i)).lines() {
        let _ = writeln!(out, "{indent}  {line}");
    }
    for i in &e.inclusive {
        let _ = writeln!(
            out,
            "{indent}  inclusive: {} {} -> {} ({}, of which self {})",
            terminal(&elide_generics(&i.function)),
            thousands(i.base),
            thousands(i.new),
            signed(signed_delta(i.new, i.base)),
            signed(i.self_delta)
        );
    }
    out
}

/// What a function outside the program's `main` is, in a whole-program run.
pub const OUTSIDE_MAIN: &str = "outside main: process start-up or exit";

/// The line of an explanation that sums what it does not list, in the terminal and in markdown.
/// Its function count leaves out the functions below a profile's floor, so a change spread over
/// many small functions has a rest of 0 functions that still moved: then it says so, rather than
/// "0 functions".
pub fn rest_label(rest: &irgate_callgrind::Rest) -> String {
    if rest.functions == 0 {
        "everything else (small functions, each below the profile's floor)".to_owned()
    } else {
        format!("everything else ({})", plural(rest.functions, "function"))
    }
}

/// The label of the line of cost outside any function.
pub const UNATTRIBUTED: &str = "no function (callgrind's count before the program's first function, \
     outside the total)";
