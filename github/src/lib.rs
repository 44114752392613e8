//! irgate's GitHub client: one sticky pull-request comment, retried with one policy, with the
//! token kept out of every message.
//!
//! ```no_run
//! # async fn run() -> Result<(), irgate_github::Error> {
//! use irgate_github::{Client, PullRequest};
//! let client = Client::from_env()?; // GITHUB_TOKEN, GITHUB_API_URL
//! let pr = PullRequest { repo: "owner/name".parse()?, number: 42 };
//! client.upsert_comment(&pr, "**irgate: passed**").await?;
//! # Ok(()) }
//! ```

mod client;
mod error;
mod retry;
mod token;

pub use client::{
    Client, DEFAULT_API_URL, MARKER, MAX_BODY_CHARS, MAX_COMMENT_CHARS, Posted, PullRequest, Repo,
};
pub use error::Error;
pub use retry::{RetryPolicy, Sleeper, TokioSleeper};
pub use token::{REDACTED, Token};
