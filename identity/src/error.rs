//! Why an object's identity cannot be read.

use std::path::PathBuf;

/// Why an object's identity (or its source lines) cannot be read. Each names the file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The object or its link map could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The object is not one whose identity can be taken (not ELF, not x86-64, stripped, linked
    /// without `--emit-relocs`, out of bounds...). `origin` is the file; `message`, which may
    /// quote the object's own symbol names, says what is wrong. Neither is escaped: a caller that
    /// prints them to a terminal escapes their control characters.
    #[error("{origin}: {message}")]
    Invalid {
        /// The file.
        origin: String,
        /// What is wrong.
        message: String,
    },
}

/// Shorthand for results whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn invalid(origin: impl std::fmt::Display, message: impl Into<String>) -> Self {
        Error::Invalid {
            origin: origin.to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn read(path: &std::path::Path, source: std::io::Error) -> Self {
        Error::Read {
            path: path.to_owned(),
            source,
        }
    }
}
