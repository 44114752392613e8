//! The callgrind profile format (valgrind's "Callgrind Format Specification"), read into a
//! [`CallGraph`]: every function's self cost per event and its calls with their inclusive cost.
//!
//! Handled: the header (`version:`, `creator:`, `positions:`, `events:`, `summary:`, `totals:`,
//! other `key: value` lines ignored), name compression (`fn=(3) name` defines id 3, `fn=(3)` uses
//! it; files share one id space across `fl= fi= fe= cfi= cfl=`, objects across `ob= cob=`,
//! functions across `fn= cfn=`), position compression (`+N`, `-N`, `*`, hexadecimal `0x..`),
//! inlined code (`fi=`/`fe=`), calls (`calls=` and the cost line after it, the call's inclusive
//! cost), jumps (`jump=`/`jcnd=` and the position line after them), several parts in one file.
//! Anything else is an error naming the line, never a panic: a file is untrusted input.
//!
//! **What the costs add up to.** The format says `totals:` "must give the total of all cost
//! lines, to allow for a consistency check", and `summary:` "should be equal or larger than a
//! total over all self costs", larger when "the cost lines may not represent all cost of the
//! program run". Callgrind ends every part with `totals:`, and in a whole-program run (a binary
//! benchmark) its `summary:` is 2 Ir above the cost lines: instructions counted before the first
//! function is entered. So each part's self costs must equal its `totals:` exactly (a part
//! without one is cut off), must not exceed its `summary:`, and what the summary holds beyond
//! them is [`CallGraph::unattributed`]. gungraun counts a benchmark's Ir from `totals:` too.
//!
//! **Bounded memory.** The file is read line by line, names are held once ([`Arc<str>`](std::sync::Arc)), costs
//! are summed per function, call and instruction address as they are read, [`Options::event`]
//! keeps one event's costs only, and the reader refuses a file whose graph would hold more than
//! [`Options::max_bytes`] (1 GiB by default).
//!
//! The file is read line by line here; `reader` holds the state between lines. The graph's
//! types live in `crate::graph`.

use std::io::{BufRead, Read};

use thiserror::Error;

use crate::graph::CallGraph;
use reader::{Parser, size};

mod reader;
#[cfg(test)]
mod tests;

/// Why a callgrind file cannot be read.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ParseError {
    /// The file could not be read (I/O error or not UTF-8).
    #[error("cannot read: {0}")]
    Io(String),
    /// A line breaks the format.
    #[error("line {line}: {message}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The file as a whole is inconsistent (empty, cut off, costs that do not add up, too large).
    #[error("{0}")]
    File(String),
}

/// The demangled form of a symbol: Rust's legacy and v0 manglings are decoded without the hash
/// suffix; anything else (already demangled by valgrind, C symbols) is kept as it is.
pub fn demangle(symbol: &str) -> String {
    // A recursion level is kept, after the demangled name.
    let (name, level) = recursion_level(symbol);
    match (rustc_demangle::try_demangle(name), level) {
        (Ok(demangled), None) => format!("{demangled:#}"),
        (Ok(demangled), Some(level)) => format!("{demangled:#}'{level}"),
        (Err(_), _) => symbol.to_owned(),
    }
}

/// `name` split from the recursion level callgrind appends to a recursive call's function
/// (`f'2`, under its default `--separate-recs=2`): the same function at another depth.
pub fn recursion_level(name: &str) -> (&str, Option<&str>) {
    match name.rsplit_once('\'') {
        Some((base, level))
            if !base.is_empty()
                && !level.is_empty()
                && level.bytes().all(|b| b.is_ascii_digit()) =>
        {
            (base, Some(level))
        }
        _ => (name, None),
    }
}

/// The longest line read; callgrind writes lines of a few hundred bytes.
const MAX_LINE: usize = 64 * 1024;

/// The most memory the reader holds by default: 1 GiB, a seventh of a hosted CI runner's 7 GB.
const MAX_BYTES: usize = 1 << 30;

/// What the reader keeps, and how much memory it may hold: [`Options::default`] with the fields
/// to change set.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Keep only this event's costs (a file that does not record it is refused); every event's
    /// when `None`.
    pub event: Option<String>,
    /// The most bytes the graph (with the reader's tables) may hold; a file that needs more is
    /// refused, naming the limit. Counted conservatively (every allocation the graph makes, with
    /// the slack of growing collections), so the process's peak stays below it plus one line.
    pub max_bytes: usize,
    /// Record which source lines had a cost ([`CallGraph::lines`]); needs `line` positions.
    pub lines: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            event: None,
            max_bytes: MAX_BYTES,
            lines: false,
        }
    }
}

/// Parses a callgrind file, every event, within 1 GiB.
pub fn parse(reader: impl BufRead) -> Result<CallGraph, ParseError> {
    parse_with(reader, &Options::default())
}

/// Parses a callgrind file as `options` say.
pub fn parse_with(mut reader: impl BufRead, options: &Options) -> Result<CallGraph, ParseError> {
    let mut parser = Parser::new(options.clone());
    let mut buffer = Vec::new();
    for number in 1.. {
        buffer.clear();
        // Never more than one line's worth in memory, however long a hostile line is.
        let read = (&mut reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buffer)
            .map_err(|e| ParseError::Io(format!("line {number}: {e}")))?;
        if read == 0 {
            break;
        }
        if buffer.last() == Some(&b'\n') {
            buffer.pop();
        } else if buffer.len() > MAX_LINE {
            return Err(ParseError::Line {
                line: number,
                message: format!("longer than the {MAX_LINE} bytes of a callgrind line"),
            });
        }
        let line = std::str::from_utf8(&buffer)
            .map_err(|e| ParseError::Io(format!("line {number}: not UTF-8: {e}")))?;
        parser.line(line).map_err(|message| ParseError::Line {
            line: number,
            message,
        })?;
        if parser.held > options.max_bytes {
            return Err(ParseError::File(format!(
                "too large: at line {number} the call graph already needs more than the {} \
                 this reader may hold ({} functions); a benchmark's file is a few MB",
                size(options.max_bytes),
                parser.graph.nodes.len()
            )));
        }
    }
    parser.finish()
}
