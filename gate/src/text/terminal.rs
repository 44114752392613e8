//! The escaper for a terminal or a CI log (standard output and error, which a CI runner also
//! reads): [`terminal()`], the one function for every such print.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::is_deceptive;

/// Untrusted `text` made inert for a terminal or a CI log, to print as one value inside a line
/// irgate writes. Control characters (ESC, BEL, CR, LF, NUL, C1 codes) and [`is_deceptive`]
/// characters become visible escapes (`\u{1b}`, `\n`), so nothing moves the cursor, starts a line
/// or reorders what follows. A value that would start a workflow command where it begins a line
/// (`::error ...`, `::add-mask::`, `##[error]`, after any whitespace) has its first `:` or `#` escaped
/// (`\u{3a}:error ...`), so the runner reads it as text; so has every `##[` elsewhere in it, since
/// the runner reads the legacy form (`##[error]...`) anywhere in a line. Everything else is kept;
/// text that needs none of this is borrowed, and escaping twice changes nothing more.
pub fn terminal(text: &str) -> Cow<'_, str> {
    let body = text.trim_start_matches(char::is_whitespace);
    let command = body.starts_with(':') || body.starts_with("##");
    if !command
        && !text.contains(LEGACY_COMMAND)
        && !text.chars().any(|c| c.is_control() || is_deceptive(c))
    {
        return Cow::Borrowed(text);
    }
    let first = text.len() - body.len();
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in text.char_indices() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control()
                || is_deceptive(c)
                || (command && i == first)
                || text[i..].starts_with(LEGACY_COMMAND) =>
            {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// What starts a legacy workflow command (`##[error]...`), which the Actions runner reads anywhere
/// in a line, not only at its start.
pub const LEGACY_COMMAND: &str = "##[";

/// `text` with every `##[` made `\u{23}#[` (as [`terminal()`] writes it), for an output with its
/// own escaping that is printed to a log too (a markdown code span): no legacy workflow command
/// can start inside it.
pub fn no_legacy_command(text: &str) -> Cow<'_, str> {
    if text.contains(LEGACY_COMMAND) {
        Cow::Owned(text.replace(LEGACY_COMMAND, "\\u{23}#["))
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_text_is_inert() {
        for (hostile, inert) in [
            ("a\u{1b}[2Jb", "a\\u{1b}[2Jb"),
            ("bell\u{7}\0", "bell\\u{7}\\u{0}"),
            ("x\r::error::forged", "x\\r::error::forged"),
            ("reason\n::error title=x::y", "reason\\n::error title=x::y"),
            ("::error title=forged::", "\\u{3a}:error title=forged::"),
            ("   ::add-mask::secret", "   \\u{3a}:add-mask::secret"),
            ("::stop-commands::tok", "\\u{3a}:stop-commands::tok"),
            ("\u{a0}\t::warning::x", "\u{a0}\\t\\u{3a}:warning::x"),
            ("##[error]forged", "\\u{23}#[error]forged"),
            ("fn ##[error]mid-line", "fn \\u{23}#[error]mid-line"),
            ("a ###[warning]b ##[x", "a #\\u{23}#[warning]b \\u{23}#[x"),
            ("evil\u{202E}txt.rs", "evil\\u{202e}txt.rs"),
            ("zero\u{200B}width\u{2066}", "zero\\u{200b}width\\u{2066}"),
            ("csi\u{9b}31m", "csi\\u{9b}31m"),
        ] {
            assert_eq!(terminal(hostile), inert, "{hostile:?}");
            assert_eq!(terminal(inert), inert, "escaping twice: {inert:?}");
        }
        for plain in [
            "codec::varint::encode",
            "<T as Foo>::bar",
            "src/lib.rs",
            "a::b",
        ] {
            assert!(matches!(terminal(plain), Cow::Borrowed(_)), "{plain}");
        }
    }
}
