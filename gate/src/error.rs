//! Everything that stops the gate from deciding. Each error names the file (or command) and what is
//! wrong; the binary prints it and exits 2.

use std::path::PathBuf;

use thiserror::Error;

/// Why irgate cannot go on.
#[derive(Debug, Error)]
pub enum Error {
    /// A file or directory could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error("{}: cannot write: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A file's content is wrong: malformed JSON or TOML, a bad count, an unknown key, a wrong
    /// schema version. `origin` is a path, optionally with `:line:column`.
    #[error("{origin}: {message}")]
    Invalid {
        /// Where: a path, or a path with a line.
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// Two inputs hold the same benchmark id.
    #[error(
        "duplicate benchmark id `{id}`: {}",
        if first == second { format!("{first} is read twice (two of the sources include it)") } else { format!("in {first} and in {second}") }
    )]
    DuplicateId {
        /// The benchmark id.
        id: String,
        /// Where it was seen first.
        first: String,
        /// Where it was seen again.
        second: String,
    },
    /// The baseline directory does not exist.
    #[error(
        "{}: no such baseline directory. Take baselines with `irgate run && irgate refresh`, or \
         point --baselines at the right directory",
        dir.display()
    )]
    MissingBaselineDir {
        /// The directory.
        dir: PathBuf,
    },
    /// The baseline directory holds no baseline file.
    #[error(
        "{}: no baselines yet, so there is nothing to compare with. Take them with `irgate run && \
         irgate refresh` and commit the files",
        dir.display()
    )]
    NoBaselines {
        /// The directory.
        dir: PathBuf,
    },
    /// The results file does not exist.
    #[error("{}: no results: run `irgate run` first (or pass --results)", path.display())]
    MissingResults {
        /// The expected results file.
        path: PathBuf,
    },
    /// A filter matched no benchmark.
    #[error("no benchmark matches `{filter}`; known benchmarks: {known}")]
    UnknownBenchmark {
        /// The filter as given.
        filter: String,
        /// A short list of the benchmarks there are.
        known: String,
    },
    /// A filter is not a valid glob.
    #[error("invalid filter `{filter}`: {message}")]
    BadFilter {
        /// The filter as given.
        filter: String,
        /// What is wrong with it.
        message: String,
    },
    /// A tool the gate needs is missing, the wrong version, or failed.
    #[error("{0}")]
    Tool(String),
}

/// Shorthand for results whose error is [`enum@Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An [`Error::Invalid`] for `origin`. Both are made printable: a control character (from a
    /// file name, or a key a parser quotes back) is escaped, so no error can move a terminal's
    /// cursor or start a line of its own in a workflow log.
    pub fn invalid(origin: impl std::fmt::Display, message: impl Into<String>) -> Self {
        Error::Invalid {
            origin: printable(&origin.to_string()),
            message: printable(&message.into()),
        }
    }

    /// An [`Error::Read`] of `path`.
    pub fn read(path: &std::path::Path, source: std::io::Error) -> Self {
        Error::Read {
            path: path.to_owned(),
            source,
        }
    }

    /// An [`Error::Write`] of `path`.
    pub fn write(path: &std::path::Path, source: std::io::Error) -> Self {
        Error::Write {
            path: path.to_owned(),
            source,
        }
    }
}

/// `text` made inert for a terminal or log ([`crate::text::terminal`]).
/// The identity's errors, made printable as [`Error::invalid`] makes them (a message may quote an
/// object's symbol names).
impl From<irgate_identity::Error> for Error {
    fn from(error: irgate_identity::Error) -> Self {
        match error {
            irgate_identity::Error::Read { path, source } => Error::Read { path, source },
            irgate_identity::Error::Invalid { origin, message } => Error::invalid(origin, message),
        }
    }
}

fn printable(text: &str) -> String {
    crate::text::terminal(text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_escapes_control_characters_in_origin_and_message() {
        let error = Error::invalid("dir/a\u{1b}[2J.json", "unknown field `x\ny`");
        assert_eq!(
            error.to_string(),
            "dir/a\\u{1b}[2J.json: unknown field `x\\ny`"
        );
    }
}
