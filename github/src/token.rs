//! The GitHub token: read from the environment, never printed.

use std::fmt;

use crate::Error;

/// A GitHub token. Its `Debug` and `Display` never show the secret, and [`Token::redact`] scrubs it
/// from any text before that text reaches a log or an error.
#[derive(Clone)]
pub struct Token(String);

/// What a redacted token is replaced with.
pub const REDACTED: &str = "***";

impl Token {
    /// Wraps a token (surrounding whitespace trimmed). Empty is [`Error::MissingToken`]; a
    /// character no token has (a space, a control or non-ASCII character) is
    /// [`Error::InvalidToken`].
    pub fn new(secret: impl Into<String>) -> Result<Token, Error> {
        let secret = secret.into().trim().to_owned();
        if secret.is_empty() {
            Err(Error::MissingToken)
        } else if !secret.bytes().all(|b| b.is_ascii_graphic()) {
            Err(Error::InvalidToken)
        } else {
            Ok(Token(secret))
        }
    }

    /// The token in `GITHUB_TOKEN`.
    pub fn from_env() -> Result<Token, Error> {
        Token::new(std::env::var("GITHUB_TOKEN").unwrap_or_default())
    }

    /// The secret itself, for the `Authorization` header only.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the token replaced by `***`.
    pub fn redact(&self, text: &str) -> String {
        text.replace(&self.0, REDACTED)
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token({REDACTED})")
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_display_and_redact_hide_the_secret() {
        let token = Token::new("ghs_secret123").unwrap();
        assert_eq!(format!("{token:?}"), "Token(***)");
        assert_eq!(token.to_string(), "***");
        assert_eq!(
            token.redact("bearer ghs_secret123 and ghs_secret123"),
            "bearer *** and ***"
        );
    }

    #[test]
    fn empty_or_malformed_token_is_refused() {
        assert!(matches!(Token::new("  \n"), Err(Error::MissingToken)));
        assert!(matches!(Token::new(""), Err(Error::MissingToken)));
        assert!(matches!(Token::new("abc\ndef"), Err(Error::InvalidToken)));
        assert!(matches!(Token::new("abc déf"), Err(Error::InvalidToken)));
    }
}
