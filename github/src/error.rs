//! Every way talking to GitHub can fail, in words a CI log reader can act on.
//!
//! No variant ever holds the token: texts from GitHub pass through [`crate::Token::redact`] first.

use std::time::Duration;

/// A failure of the GitHub client.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `GITHUB_TOKEN` is unset or empty.
    #[error(
        "GITHUB_TOKEN is not set: irgate needs a token that may write pull-request comments \
         (in GitHub Actions: `env: GITHUB_TOKEN: ${{{{ github.token }}}}` with `permissions: pull-requests: write`)"
    )]
    MissingToken,

    /// `GITHUB_TOKEN` holds characters no token has.
    #[error(
        "GITHUB_TOKEN holds characters no GitHub token has (spaces, control or non-ASCII characters)"
    )]
    InvalidToken,

    /// The repository is not `owner/name`.
    #[error("invalid repository {0:?}: expected `owner/name`, e.g. `rust-lang/rust`")]
    InvalidRepository(String),

    /// The API base URL cannot be used.
    #[error("invalid GitHub API URL {url:?} (from GITHUB_API_URL): {reason}")]
    InvalidApiUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },

    /// The HTTPS client could not be set up (e.g. no CA certificates on the machine).
    #[error("cannot set up the HTTPS client for GitHub: {0}")]
    Setup(String),

    /// The comment body is over GitHub's limit; the caller must shorten it first.
    #[error("the comment body has {len} characters, more than GitHub's limit of {max}")]
    BodyTooLong {
        /// The body's length, marker included.
        len: usize,
        /// GitHub's limit.
        max: usize,
    },

    /// 401: the token is wrong or expired.
    #[error(
        "GitHub refused to {action} (401 Unauthorized: {message}): the token is invalid or has expired"
    )]
    Unauthorized {
        /// What irgate was doing.
        action: String,
        /// GitHub's message.
        message: String,
    },

    /// 403 that is not a rate limit: the token may not do this.
    #[error(
        "GitHub refused to {action} (403 Forbidden: {message}). The token may not write to this \
         pull request: runs on pull requests from forks get a read-only token, so the comment is \
         posted by the separate `workflow_run` workflow (see irgate's docs/github.md)"
    )]
    Forbidden {
        /// What irgate was doing.
        action: String,
        /// GitHub's message.
        message: String,
    },

    /// 404: wrong repository or number, or a token that cannot see the repository.
    #[error(
        "GitHub found nothing to {action} (404 Not Found: {message}): check the repository and \
         pull-request number, and that the token can see the repository"
    )]
    NotFound {
        /// What irgate was doing.
        action: String,
        /// GitHub's message.
        message: String,
    },

    /// 422: GitHub understood the request and refused its content.
    #[error("GitHub rejected the request to {action} (422 Unprocessable Entity: {message})")]
    Rejected {
        /// What irgate was doing.
        action: String,
        /// GitHub's message.
        message: String,
    },

    /// GitHub's rate limit did not clear within the retries, or asked for a longer wait than irgate makes.
    #[error(
        "GitHub's rate limit stopped the request to {action}: {}; try again later",
        rate_limit_stop(*wait, *max_wait, *attempts)
    )]
    RateLimited {
        /// What irgate was doing.
        action: String,
        /// The wait GitHub asked for last.
        wait: Duration,
        /// The longest single wait irgate makes.
        max_wait: Duration,
        /// Attempts made.
        attempts: u32,
    },

    /// 5xx on every attempt.
    #[error("GitHub answered {status} to all {attempts} attempt(s) to {action}: {message}")]
    Server {
        /// What irgate was doing.
        action: String,
        /// The last HTTP status.
        status: u16,
        /// GitHub's last message.
        message: String,
        /// Attempts made.
        attempts: u32,
    },

    /// No answer at all (connection refused, timeout) on every attempt.
    #[error("could not reach GitHub to {action} ({attempts} attempt(s)): {message}")]
    Transport {
        /// What irgate was doing.
        action: String,
        /// The last transport error.
        message: String,
        /// Attempts made.
        attempts: u32,
    },

    /// Any other HTTP error status.
    #[error("GitHub answered {status} to the request to {action}: {message}")]
    Api {
        /// What irgate was doing.
        action: String,
        /// The HTTP status.
        status: u16,
        /// GitHub's message.
        message: String,
    },

    /// A success status with a body irgate cannot read, or a malformed request.
    #[error("unexpected answer from GitHub to the request to {action}: {message}")]
    UnexpectedResponse {
        /// What irgate was doing.
        action: String,
        /// What did not parse.
        message: String,
    },

    /// The pull request's head moved on: the results are for an older commit.
    #[error(
        "pull request #{number} now points at {current}, not at {expected} that these results were \
         measured on; not posting stale results (the newer commit's run will post its own)"
    )]
    HeadMoved {
        /// The pull-request number.
        number: u64,
        /// The commit the results are for.
        expected: String,
        /// The pull request's head now.
        current: String,
    },

    /// The comment list kept paging without an end.
    #[error(
        "the pull request's comments did not end after {pages} pages of 100; refusing to page further"
    )]
    TooManyPages {
        /// Pages read.
        pages: u32,
    },
    /// A `Link` header pointed the next page at another host than the API's; the token is only
    /// ever sent to the API's host.
    #[error(
        "GitHub's `Link` header points the next page of comments at {origin}, not at the API \
         ({api}); refusing to send the token there"
    )]
    ForeignLink {
        /// Scheme and host of the link.
        origin: String,
        /// The API's URL.
        api: String,
    },
}

/// What ended the retries of a rate-limited request: a wait longer than irgate makes, or the
/// attempts spent while each wait was within the bound.
fn rate_limit_stop(wait: Duration, max_wait: Duration, attempts: u32) -> String {
    if wait > max_wait {
        format!(
            "it asks to wait {}s, longer than irgate waits (at most {}s)",
            wait.as_secs(),
            max_wait.as_secs()
        )
    } else {
        format!(
            "still limited after {attempts} attempt(s), the most irgate makes (each wait as long \
             as GitHub asked, {}s the last time)",
            wait.as_secs()
        )
    }
}
