//! The escaper for HTML and SVG (XML): the history's dashboard and its charts.

use super::is_deceptive;

/// Text escaped for HTML or XML content and quoted attributes: markup characters as entities,
/// control characters as spaces, characters that reorder or hide text as U+FFFD, and the first `#`
/// of a `##[` as `&#35;` (no legacy workflow command forms, should the file be printed to a CI
/// log).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        match c {
            '#' if text[at..].starts_with(super::LEGACY_COMMAND) => out.push_str("&#35;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push(' '),
            c if is_deceptive(c) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_text_and_deceptive_characters_are_replaced() {
        assert_eq!(
            escape("<a href=\"x\">'&"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;"
        );
        assert_eq!(escape("a\u{1b}b\u{202E}c"), "a b\u{FFFD}c");
        assert_eq!(escape("x ##[error]y"), "x &#35;#[error]y");
    }
}
