//! One benchmark's explanation in markdown: where its instructions went, as a collapsed table.

use std::fmt::Write as _;

use irgate_callgrind::Kind;

use crate::model::Explained;
use crate::text::markdown::{code, html_code, prose_spans};
use crate::text::{signed, signed_delta, thousands};

/// One benchmark's explanation as a collapsed section: "Where the +3,890 Ir went".
pub fn explanation(explained: &Explained, artifacts_url: Option<&str>) -> String {
    let e = &explained.explanation;
    let mut out = String::new();
    let _ = write!(
        out,
        "<details><summary>Where the {} Ir of {} went</summary>\n\n",
        signed(e.delta()),
        html_code(&explained.benchmark)
    );
    out.push_str(
        "| Function | Baseline | New | Change | Inclusive change | File |\n\
         |:--|--:|--:|--:|--:|:--|\n",
    );
    for m in &e.movers {
        let note = crate::render::explanation::kind_note(&m.kind);
        let function = crate::text::elide_generics(&m.function);
        let mut name = if note.is_empty() {
            code(&function)
        } else {
            format!(
                "{} ({})",
                code(&function),
                prose_spans(&crate::text::elide_generics(&note))
            )
        };
        if m.outside_main {
            let _ = write!(name, " ({})", crate::render::explanation::OUTSIDE_MAIN);
        }
        let count = |n: u64, present: bool| {
            if present {
                thousands(n)
            } else {
                "–".to_owned()
            }
        };
        let mut file = if m.file.is_empty() {
            String::new()
        } else {
            code(&m.file)
        };
        if let Some((from, delta)) = m.inlined_from.first() {
            let _ = write!(
                file,
                ", {} of it inlined from {}",
                signed(*delta),
                code(from)
            );
        }
        if let Kind::Added { called_from } = &m.kind {
            for caller in called_from.iter().take(3) {
                let _ = write!(file, ", called from {}", code(caller));
            }
        }
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {file} |",
            count(m.base_self, !matches!(m.kind, Kind::Added { .. })),
            count(m.new_self, !matches!(m.kind, Kind::Removed)),
            signed(m.delta()),
            signed(m.inclusive_delta()),
        );
    }
    let rest = e.rest;
    let _ = (rest.functions > 0 || rest.base > 0 || rest.new > 0).then(|| {
        writeln!(
            out,
            "| {} | {} | {} | {} | | |",
            crate::render::explanation::rest_label(&e.rest),
            thousands(e.rest.base),
            thousands(e.rest.new),
            signed(signed_delta(e.rest.new, e.rest.base)),
        )
    });
    if let Some(u) = e.unattributed {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | | |",
            crate::render::explanation::UNATTRIBUTED,
            thousands(u.base),
            thousands(u.new),
            signed(signed_delta(u.new, u.base)),
        );
    }
    out.push('\n');
    for i in &e.inclusive {
        let _ = writeln!(
            out,
            "**Inclusive:** {} {} → {} ({}, of which its own code {})\n",
            code(&crate::text::elide_generics(&i.function)),
            thousands(i.base),
            thousands(i.new),
            signed(signed_delta(i.new, i.base)),
            signed(i.self_delta)
        );
    }
    if let Some(name) = &explained.flamegraph {
        let artifact = match artifacts_url {
            Some(url) => format!("[`irgate-flamegraphs` artifact]({url})"),
            None => "`irgate-flamegraphs` artifact".to_owned(),
        };
        let _ = writeln!(
            out,
            "Differential flame graph: {} in the workflow run's {artifact}.\n",
            code(name)
        );
    }
    out.push_str("</details>\n\n");
    out
}
