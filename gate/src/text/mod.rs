//! Text as irgate writes it: numbers, signs, plurals, short commits, aligned tables, and the
//! escaping of untrusted text, one escaper per output kind. A leaf: it imports nothing of irgate.
//!
//! Untrusted text (benchmark, function and file names read from a pull request's code, `[[accept]]`
//! reasons, fingerprint values, paths) is made inert once per output format:
//! - a terminal or a log (standard output and error, which a CI runner also reads):
//!   [`terminal()`], the one function for every such print;
//! - markdown (the pull-request comment, the step summary): [`markdown::code`],
//!   [`markdown::prose`] and [`markdown::html_code`];
//! - HTML and SVG (the dashboard, its charts): [`html::escape`]; the flame graphs' SVG is
//!   escaped by `irgate-callgrind`;
//! - workflow command values (annotations): `render::github::escape_data` and `escape_property`,
//!   on top of [`terminal()`];
//! - JSON: serde's string escaping, then `formats::report::inert`.
//!
//! They share [`is_deceptive`], the characters that reorder or hide text.

pub mod html;
pub mod markdown;
mod ranges;
pub mod status;
mod terminal;

pub use ranges::ranges;
pub use terminal::{LEGACY_COMMAND, no_legacy_command, terminal};

use std::borrow::Cow;

/// How many characters of a commit people read: `ab3f09c12d45`.
pub const SHORT_COMMIT: usize = 12;

/// `1234567` -> `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count change with its sign: `+1,234`, `-5`, `±0`.
pub fn signed(n: i64) -> String {
    match n {
        0 => "±0".to_owned(),
        n if n < 0 => format!("-{}", thousands(n.unsigned_abs())),
        n => format!("+{}", thousands(n.unsigned_abs())),
    }
}

/// `new - old` as a signed count (clamped to `i64`).
pub fn signed_delta(new: u64, old: u64) -> i64 {
    (i128::from(new) - i128::from(old)).clamp(i64::MIN.into(), i64::MAX.into()) as i64
}

/// A change in percent with its sign: two decimals (`+1.25%`, `-0.10%`), or two significant
/// digits when two decimals would round a change to zero (`+0.0024%`).
pub fn signed_pct(pct: f64) -> String {
    // Two decimals, or two significant digits (up to 6 decimals) for a change that two decimals
    // would show as `+0.00%`: a failing row never reads as no change.
    let decimals = if pct != 0.0 && pct.abs() < 0.005 {
        ((-pct.abs().log10()).ceil() as usize + 1).min(6)
    } else {
        2
    };
    format!("{pct:+.decimals$}%")
}

/// A symbol with its generic arguments elided, `retain<…>` for `retain<K, V, 16, A, F>`, so a
/// table of monomorphized functions stays readable; a qualified path's leading `<T as Trait>`
/// is kept. Names without generic arguments come back as they are.
pub fn elide_generics(name: &str) -> Cow<'_, str> {
    if !name.contains('<') {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len());
    let mut depth = 0usize;
    let mut previous = ' ';
    for c in name.chars() {
        if depth > 0 {
            match c {
                '<' => depth += 1,
                '>' if previous != '-' => {
                    depth -= 1;
                    if depth == 0 {
                        out.push_str("<…>");
                    }
                }
                _ => {}
            }
        } else if c == '<' && (previous.is_alphanumeric() || previous == '_' || previous == '}') {
            depth = 1;
        } else {
            out.push(c);
        }
        previous = c;
    }
    if depth > 0 {
        // Unbalanced: show what there is.
        return Cow::Borrowed(name);
    }
    Cow::Owned(out)
}

/// `1 run`, `2 runs`: `n` and `noun`, plural unless `n` is 1.
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `12` or `12-14`: a range of lines or positions (one of [`ranges()`]) as the reports and the
/// code record write it.
pub fn range<T: std::fmt::Display + PartialEq>(range: &std::ops::RangeInclusive<T>) -> String {
    if range.start() == range.end() {
        range.start().to_string()
    } else {
        format!("{}-{}", range.start(), range.end())
    }
}

/// `seconds` as people read a wait: `40 s`, `4 min 47 s`, `1 h 5 min`.
pub fn duration(seconds: f64) -> String {
    let total = seconds.max(0.0).round() as u64;
    match (total / 3600, total % 3600 / 60, total % 60) {
        (0, 0, s) => format!("{s} s"),
        (0, m, s) => format!("{m} min {s} s"),
        (h, m, _) => format!("{h} h {m} min"),
    }
}

/// The first [`SHORT_COMMIT`] characters of a commit id, as people read it.
pub fn short_commit(commit: &str) -> &str {
    match commit.char_indices().nth(SHORT_COMMIT) {
        Some((end, _)) => &commit[..end],
        None => commit,
    }
}

/// Lays out `lines` of cells as an aligned text table, two spaces between columns; columns where
/// `numeric(i)` holds are right-aligned. Each line ends in a newline, without trailing spaces.
pub fn align(lines: &[Vec<String>], numeric: impl Fn(usize) -> bool) -> String {
    let columns = lines.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            lines
                .iter()
                .filter_map(|line| line.get(i))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for line in lines {
        let mut text = String::new();
        for (i, cell) in line.iter().enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            let pad = " ".repeat(widths[i] - cell.chars().count());
            if numeric(i) {
                text.push_str(&pad);
                text.push_str(cell);
            } else {
                text.push_str(cell);
                text.push_str(&pad);
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}

/// Writes `text` to standard output. A reader that went away (`irgate doctor | head`) is not an
/// error of the gate's: the rest is dropped, and the command's exit code stands.
pub fn print(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// `word` as one word of a POSIX shell command line a user may paste: as it is when it holds
/// only characters no shell reads specially (and does not start with `-` or `~`), else in
/// single quotes (a `'` inside as `'\''`).
pub fn shell_word(word: &str) -> Cow<'_, str> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./:@^+,=%-".contains(c);
    if !word.is_empty() && !word.starts_with(['-', '~']) && word.chars().all(plain) {
        return Cow::Borrowed(word);
    }
    Cow::Owned(format!("'{}'", word.replace('\'', "'\\''")))
}

/// Characters that reorder or hide text: bidirectional marks, embeddings, overrides and isolates,
/// zero-width characters, the byte-order mark, and the Unicode line and paragraph separators.
pub fn is_deceptive(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// Whether `url` is a plain `https://` address, safe to put in a link: a host (letters, digits,
/// `.` and `-`, with a port if any; no user before it), then printable ASCII without quotes,
/// brackets or parentheses, under 500 characters.
pub fn is_plain_https(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("https://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.split_once(':').map_or(authority, |(host, port)| {
        if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) {
            host
        } else {
            ""
        }
    });
    let plain_host = !host.is_empty()
        && !host.starts_with(['.', '-'])
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    plain_host
        && url.len() < 500
        && url
            .chars()
            .all(|c| c.is_ascii_graphic() && !"()<>[]\"'`\\".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tiny_change_keeps_two_significant_digits() {
        assert_eq!(signed_pct(2.0), "+2.00%");
        assert_eq!(signed_pct(0.0), "+0.00%");
        assert_eq!(signed_pct(4.0 / 164_003.0 * 100.0), "+0.0024%");
        assert_eq!(signed_pct(-4.0 / 27_196_921.0 * 100.0), "-0.000015%");
    }

    #[test]
    fn generic_arguments_are_elided_and_qualified_paths_kept() {
        assert_eq!(elide_generics("decode_varint"), "decode_varint");
        assert_eq!(
            elide_generics(
                "src/map.rs: retain<alloc::ffi::c_str::CString, usize, 16, F> (inlined into \
                 bench::{closure_env#1}<CString, usize, 16>)"
            ),
            "src/map.rs: retain<…> (inlined into bench::{closure_env#1}<…>)"
        );
        assert_eq!(
            elide_generics("<alloc::vec::Vec<u8> as core::ops::Drop>::drop"),
            "<alloc::vec::Vec<…> as core::ops::Drop>::drop"
        );
        assert_eq!(elide_generics("call<fn() -> u8>"), "call<…>");
        assert_eq!(elide_generics("broken<a"), "broken<a");
    }

    #[test]
    fn groups_thousands_and_signs_counts_and_percentages() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(4_037_660), "4,037,660");
        assert_eq!(signed(3_890), "+3,890");
        assert_eq!(signed(-5), "-5");
        assert_eq!(signed(0), "±0");
        assert_eq!(signed(i64::MIN), "-9,223,372,036,854,775,808");
        assert_eq!(signed_delta(0, u64::MAX), i64::MIN);
        assert_eq!(signed_delta(7, 5), 2);
        assert_eq!(signed_pct(1.254), "+1.25%");
        assert_eq!(signed_pct(-0.1), "-0.10%");
    }

    #[test]
    fn says_plurals_and_short_commits() {
        assert_eq!(plural(1, "run"), "1 run");
        assert_eq!(plural(0, "run"), "0 runs");
        assert_eq!(plural(2, "more row"), "2 more rows");
        assert_eq!(
            short_commit("e64354b8e2404feea80f83c6e625fecfac741fcf"),
            "e64354b8e240"
        );
        assert_eq!(short_commit("abc"), "abc");
        assert_eq!(short_commit("ééééééééééééé"), "éééééééééééé");
    }

    #[test]
    fn quotes_shell_words_only_where_needed() {
        for (word, quoted) in [
            ("origin/main", "origin/main"),
            ("v1.2.3", "v1.2.3"),
            ("HEAD^", "HEAD^"),
            ("main;curl x|sh", "'main;curl x|sh'"),
            ("$(id)", "'$(id)'"),
            ("a'b", "'a'\\''b'"),
            ("`x`", "'`x`'"),
            ("-x", "'-x'"),
            ("HEAD~2", "'HEAD~2'"),
            ("", "''"),
        ] {
            assert_eq!(shell_word(word), quoted, "{word}");
        }
    }

    #[test]
    fn aligns_text_left_and_numbers_right() {
        let lines = vec![
            vec!["name".to_owned(), "Ir".to_owned()],
            vec!["a".to_owned(), "1,234".to_owned()],
        ];
        assert_eq!(align(&lines, |i| i == 1), "name     Ir\na     1,234\n");
    }

    #[test]
    fn a_plain_https_address_has_a_host() {
        for good in [
            "https://github.com/o/r",
            "https://example.com:8443/x?y#z",
            "https://h",
        ] {
            assert!(is_plain_https(good), "{good}");
        }
        for bad in [
            "https://",
            "https:///path",
            "https://:443/",
            "https://user@evil.example/",
            "https://.example/",
            "https://a b/",
            "http://example.com",
            "https://example.com/\"x",
        ] {
            assert!(!is_plain_https(bad), "{bad}");
        }
    }
}
