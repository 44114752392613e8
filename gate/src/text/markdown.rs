//! The escapers for GitHub markdown (the pull-request comment, the step summary): run text as a
//! code span ([`code`]), as prose ([`prose`]) or as an HTML `<code>` element ([`html_code`]), so
//! no markdown, HTML, mention or issue link in it takes effect. All three first cut the text to
//! one line of a bounded length and replace what [`is_deceptive`] names (bidirectional overrides
//! and isolates, zero-width characters) with U+FFFD, so a reviewer never reads text reordered or
//! hidden; a `##[` never reaches the log (the markdown is printed there too).

use super::is_deceptive;

/// The longest a benchmark name, metric or fingerprint value is shown.
const MAX_VALUE_CHARS: usize = 200;

/// The longest a free-text reason is shown.
const MAX_PROSE_CHARS: usize = 2_000;

/// Run text as an HTML `<code>` element (for `<summary>`, where markdown does not apply).
pub fn html_code(text: &str) -> String {
    let mut out = String::from("<code>");
    for c in sanitized(text, MAX_VALUE_CHARS).chars() {
        if !push_entity(&mut out, c) {
            out.push(c);
        }
    }
    out.push_str("</code>");
    out
}

/// At most `max` characters of `text`, one line, without deceptive characters.
fn sanitized(text: &str, max: usize) -> String {
    let mut out: String = text
        .chars()
        .take(max)
        .map(|c| {
            if c.is_control() {
                ' '
            } else if is_deceptive(c) {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect();
    if text.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

/// Run text as an inline code span inside a table cell: no markdown, HTML or mention inside it
/// takes effect. `|` is escaped for the table, the fence is longer than any backtick run inside,
/// and a `##[` is written `\u{23}#[` (as the terminal's escaper does), since the markdown is
/// printed to the log too, where the runner reads `##[` anywhere as a workflow command.
pub fn code(text: &str) -> String {
    let text = sanitized(text, MAX_VALUE_CHARS);
    if text.trim().is_empty() {
        return "*(none)*".to_owned();
    }
    let longest_run = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest_run + 1);
    let pad = if text.starts_with(['`', ' ']) || text.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    let text = super::no_legacy_command(&text).replace('|', "\\|");
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// Pushes `c` as an HTML entity (`<`, `>`, `&`, `"`), or followed by a zero-width space (`@`,
/// `#`, so no mention or issue link forms); `false` for any other character.
fn push_entity(out: &mut String, c: char) -> bool {
    match c {
        '&' => out.push_str("&amp;"),
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '"' => out.push_str("&quot;"),
        '@' => out.push_str("@&#8203;"),
        '#' => out.push_str("#&#8203;"),
        _ => return false,
    }
    true
}

/// Run text as prose: HTML entities for `<`, `>`, `&`, `"`; backslash escapes for markdown
/// punctuation; a zero-width space after `@` and `#` so no mention or issue link forms.
pub fn prose(text: &str) -> String {
    let mut out = String::new();
    for c in sanitized(text, MAX_PROSE_CHARS).chars() {
        if push_entity(&mut out, c) {
            continue;
        }
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '!' | '|' | '~' | '{' | '}' | '$'
            | '=' | '+' | '-' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// irgate's own phrasing as markdown, where it puts names between backticks: each backticked
/// part as a code span ([`code`]), the rest as prose ([`prose`]). A name inside may itself hold a
/// backtick and shift the pairs; every part is still escaped, so nothing takes effect. With an
/// odd number of backticks, or too long, the whole is prose.
pub fn prose_spans(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len().is_multiple_of(2) || text.chars().nth(MAX_PROSE_CHARS).is_some() {
        return prose(text);
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| match (i % 2, part.is_empty()) {
            (1, _) => code(part),
            (_, true) => String::new(),
            _ => prose(part),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backticked_names_become_code_spans_and_the_rest_stays_escaped() {
        assert_eq!(
            prose_spans("run `irgate doctor` and *then* `a|b`"),
            "run `irgate doctor` and \\*then\\* `a\\|b`"
        );
        // An odd backtick: all prose, the backtick escaped.
        assert_eq!(prose_spans("a ` b"), "a \\` b");
        // A name holding a backtick shifts the pairs: every part is still escaped.
        assert_eq!(
            prose_spans("key `a`<b>`@you` then"),
            "key `a`&lt;b&gt;`@you` then"
        );
        assert_eq!(
            prose_spans("key `a`<b>@you` then"),
            prose("key `a`<b>@you` then")
        );
    }

    /// Every character the terminal's escaper makes visible inside a value (control characters,
    /// and those that reorder or hide text) is gone from every markdown form of it.
    #[test]
    fn markdown_neutralises_what_the_terminal_escapes() {
        let escaped: Vec<char> = (0..=u32::from(char::MAX))
            .filter_map(char::from_u32)
            .filter(|c| {
                let text = format!("a{c}b");
                super::super::terminal(&text) != text
            })
            .collect();
        for c in [
            '\u{1b}', '\u{202E}', '\u{2066}', '\u{200B}', '\u{FEFF}', '\u{2028}',
        ] {
            assert!(escaped.contains(&c), "{c:?}");
        }
        for c in escaped {
            let text = format!("name{c}.rs");
            for (how, out) in [
                ("code", code(&text)),
                ("prose", prose(&text)),
                ("html_code", html_code(&text)),
            ] {
                assert!(!out.contains(c), "{how} keeps {c:?}: {out:?}");
            }
        }
    }

    #[test]
    fn deceptive_characters_show_as_replacement_characters() {
        let spoofed = "evil\u{202E}txt.exe zero\u{200B}width \u{2066}isolate\u{2069}";
        assert_eq!(
            code(spoofed),
            "`evil\u{FFFD}txt.exe zero\u{FFFD}width \u{FFFD}isolate\u{FFFD}`"
        );
        assert_eq!(
            prose(spoofed),
            "evil\u{FFFD}txt.exe zero\u{FFFD}width \u{FFFD}isolate\u{FFFD}"
        );
        assert_eq!(
            html_code("a\u{61C}b\u{FEFF}c\u{2028}d"),
            "<code>a\u{FFFD}b\u{FFFD}c\u{FFFD}d</code>"
        );
    }

    #[test]
    fn markup_mentions_and_workflow_commands_are_text() {
        assert_eq!(code("a|b ##[error]x"), "`a\\|b \\u{23}#[error]x`");
        assert_eq!(code("``x``"), "``` ``x`` ```");
        assert_eq!(code(" "), "*(none)*");
        assert_eq!(
            prose("@admin #1 <img> [x](y)"),
            "@&#8203;admin #&#8203;1 &lt;img&gt; \\[x\\]\\(y\\)"
        );
        assert_eq!(
            html_code("</code>@x"),
            "<code>&lt;/code&gt;@&#8203;x</code>"
        );
        assert!(code(&"x".repeat(300)).ends_with("x…`"));
    }
}
