//! irgate's one retry policy for GitHub requests (octocrab's own retry layer is switched off).
//!
//! Worth retrying: 5xx answers and transport failures (with exponential backoff), and rate limits
//! (403/429 with `Retry-After`, `x-ratelimit-remaining: 0` + `x-ratelimit-reset`, or a "secondary
//! rate limit" message), waiting as long as GitHub asks, up to a bound. Not worth retrying: 401,
//! a plain 403 (a read-only fork token), 404, 422 and unreadable answers.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http::HeaderMap;

use crate::{Error, Token};

/// How often and how long to retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    /// The wait after the first failed attempt for 5xx and transport errors; doubles each time.
    pub base_backoff: Duration,
    /// The longest single wait. A rate limit asking for more is reported instead of waited out.
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    /// 4 attempts; 2 s, 4 s, 8 s backoff; rate-limit waits up to 2 minutes.
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            base_backoff: Duration::from_secs(2),
            max_wait: Duration::from_secs(120),
        }
    }
}

/// The wait GitHub recommends when a rate limit answer carries no header saying how long.
const UNSPECIFIED_RATE_LIMIT_WAIT: Duration = Duration::from_secs(60);

/// Waits between attempts. Injectable so tests record the waits instead of sleeping.
pub trait Sleeper: Send + Sync {
    /// Waits `wait` before the next attempt; `reason` says why, for a progress line.
    fn sleep(&self, wait: Duration, reason: &str) -> Pin<Box<dyn Future<Output = ()> + Send>>;
}

/// The real sleeper: prints one line to stderr saying why and how long, then sleeps.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioSleeper;

impl Sleeper for TokioSleeper {
    fn sleep(&self, wait: Duration, reason: &str) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        eprintln!("irgate: {reason}; retrying in {}s", wait.as_secs_f64());
        Box::pin(tokio::time::sleep(wait))
    }
}

/// One failed attempt.
pub(crate) enum Failed {
    /// A request failed: what irgate was doing, and octocrab's error.
    Request {
        action: String,
        source: octocrab::Error,
    },
    /// A failure that no retry can mend.
    Final(Error),
}

impl Failed {
    /// Wraps octocrab's error with what irgate was doing.
    pub(crate) fn new(action: impl Into<String>) -> impl FnOnce(octocrab::Error) -> Failed {
        let action = action.into();
        move |source| Failed::Request { action, source }
    }
}

/// What a failed attempt means: the error to report, and whether (and how long) to wait and retry.
pub(crate) struct Judgement {
    pub error: Error,
    pub retry: Option<(Duration, String)>,
}

impl RetryPolicy {
    /// Judges attempt number `attempt` (1-based) that failed.
    pub(crate) fn judge(&self, failed: Failed, attempt: u32, token: &Token) -> Judgement {
        let (action, source) = match failed {
            Failed::Request { action, source } => (action, source),
            Failed::Final(error) => return Judgement { error, retry: None },
        };
        let clean = |text: &str| clean_message(token, text);
        let backoff = self
            .base_backoff
            .saturating_mul(2u32.saturating_pow(attempt.saturating_sub(1)))
            .min(self.max_wait);
        let (error, retry) = match source {
            octocrab::Error::GitHub { source, .. } => {
                let status = source.status_code.as_u16();
                let message = clean(&source.message);
                let empty = HeaderMap::new();
                let headers = source.headers.as_ref().unwrap_or(&empty);
                if let Some(wait) = rate_limit_wait(status, headers, &source.message) {
                    let reason = format!("GitHub rate limit ({status}) while trying to {action}");
                    let error = Error::RateLimited {
                        action,
                        wait,
                        max_wait: self.max_wait,
                        attempts: attempt,
                    };
                    let retry = (wait <= self.max_wait).then_some((wait, reason));
                    (error, retry)
                } else {
                    match status {
                        401 => (Error::Unauthorized { action, message }, None),
                        403 => (Error::Forbidden { action, message }, None),
                        404 => (Error::NotFound { action, message }, None),
                        422 => (Error::Rejected { action, message }, None),
                        500..=599 => {
                            let reason =
                                format!("GitHub answered {status} while trying to {action}");
                            (
                                Error::Server {
                                    action,
                                    status,
                                    message,
                                    attempts: attempt,
                                },
                                Some((backoff, reason)),
                            )
                        }
                        _ => (
                            Error::Api {
                                action,
                                status,
                                message,
                            },
                            None,
                        ),
                    }
                }
            }
            octocrab::Error::Hyper { .. } | octocrab::Error::Service { .. } => {
                let message = clean(&error_chain(&source));
                let reason = format!("no answer from GitHub while trying to {action} ({message})");
                (
                    Error::Transport {
                        action,
                        message,
                        attempts: attempt,
                    },
                    Some((backoff, reason)),
                )
            }
            other => {
                let message = clean(&error_chain(&other));
                (Error::UnexpectedResponse { action, message }, None)
            }
        };
        let retry = retry.filter(|_| attempt < self.max_attempts);
        Judgement { error, retry }
    }
}

/// How long a rate-limit answer asks to wait, or `None` when the answer is not a rate limit.
fn rate_limit_wait(status: u16, headers: &HeaderMap, message: &str) -> Option<Duration> {
    if status != 403 && status != 429 {
        return None;
    }
    let header = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<u64>().ok();
    if let Some(seconds) = header("retry-after") {
        return Some(Duration::from_secs(seconds));
    }
    if header("x-ratelimit-remaining") == Some(0)
        && let Some(reset) = header("x-ratelimit-reset")
    {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        return Some(Duration::from_secs(reset.saturating_sub(now).max(1)));
    }
    if status == 429 || message.to_ascii_lowercase().contains("rate limit") {
        return Some(UNSPECIFIED_RATE_LIMIT_WAIT);
    }
    None
}

/// An error and its sources, one line.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        let inner_text = inner.to_string();
        if !text.contains(&inner_text) {
            text = format!("{text}: {inner_text}");
        }
        source = inner.source();
    }
    text
}

/// Text from GitHub or the network made safe for a log line: the token redacted, control
/// characters replaced, at most 300 characters.
fn clean_message(token: &Token, text: &str) -> String {
    const MAX: usize = 300;
    let one_line: String = token
        .redact(text)
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let one_line = one_line.trim();
    if one_line.chars().count() > MAX {
        format!("{}…", one_line.chars().take(MAX).collect::<String>())
    } else {
        one_line.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(k, v)| (http::HeaderName::from_static(k), v.parse().unwrap()))
            .collect()
    }

    #[test]
    fn retry_after_wins() {
        let h = headers(&[
            ("retry-after", "7"),
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", "1"),
        ]);
        assert_eq!(rate_limit_wait(429, &h, ""), Some(Duration::from_secs(7)));
        assert_eq!(rate_limit_wait(403, &h, ""), Some(Duration::from_secs(7)));
    }

    #[test]
    fn reset_header_waits_until_reset() {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let reset = (now + 30).to_string();
        let h = headers(&[
            ("x-ratelimit-remaining", "0"),
            ("x-ratelimit-reset", &reset),
        ]);
        let wait = rate_limit_wait(403, &h, "API rate limit exceeded").unwrap();
        assert!(
            wait <= Duration::from_secs(30) && wait >= Duration::from_secs(20),
            "{wait:?}"
        );
    }

    #[test]
    fn plain_403_is_not_a_rate_limit() {
        let h = headers(&[("x-ratelimit-remaining", "4999")]);
        assert_eq!(
            rate_limit_wait(403, &h, "Resource not accessible by integration"),
            None
        );
        assert_eq!(
            rate_limit_wait(403, &h, "You have exceeded a secondary rate limit"),
            Some(UNSPECIFIED_RATE_LIMIT_WAIT)
        );
        assert_eq!(
            rate_limit_wait(429, &HeaderMap::new(), ""),
            Some(UNSPECIFIED_RATE_LIMIT_WAIT)
        );
        assert_eq!(rate_limit_wait(500, &h, "rate limit"), None);
    }

    #[test]
    fn clean_message_redacts_and_flattens() {
        let token = Token::new("tok_abc").unwrap();
        let long = "x".repeat(400);
        assert_eq!(
            clean_message(&token, "bad tok_abc\r\nline"),
            "bad ***  line"
        );
        assert_eq!(clean_message(&token, &long).chars().count(), 301);
    }
}
