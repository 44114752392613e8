//! The client: one sticky comment per pull request, found by a hidden marker.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use octocrab::Octocrab;
use serde::Deserialize;

use crate::retry::{Failed, Judgement};
use crate::{Error, RetryPolicy, Sleeper, Token, TokioSleeper};

/// The API GitHub Actions uses unless `GITHUB_API_URL` says otherwise.
pub const DEFAULT_API_URL: &str = "https://api.github.com";

/// The hidden marker that makes a comment irgate's: the first line of every body irgate posts.
pub const MARKER: &str = "<!-- irgate:report -->";

/// GitHub's limit on a comment body, in characters.
pub const MAX_COMMENT_CHARS: usize = 65_536;

/// The longest body [`Client::upsert_comment`] takes: GitHub's limit less the marker line.
pub const MAX_BODY_CHARS: usize = MAX_COMMENT_CHARS - MARKER.len() - 1;

/// Comments asked for per page: GitHub's maximum.
const PER_PAGE: u32 = 100;

/// A bound on paging, against a `Link` header that never ends (100,000 comments).
const MAX_PAGES: u32 = 1_000;

/// A repository, `owner/name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repo {
    /// The owner (user or organisation).
    pub owner: String,
    /// The repository name.
    pub name: String,
}

impl FromStr for Repo {
    type Err = Error;

    /// Parses `owner/name`, allowing only the characters GitHub allows (so the parts are safe in a URL).
    fn from_str(text: &str) -> Result<Repo, Error> {
        let invalid = || Error::InvalidRepository(text.to_owned());
        let (owner, name) = text.split_once('/').ok_or_else(invalid)?;
        let owner_ok = !owner.is_empty()
            && owner.len() <= 39
            && owner
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-');
        let name_ok = !name.is_empty()
            && name.len() <= 100
            && name != "."
            && name != ".."
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if owner_ok && name_ok {
            Ok(Repo {
                owner: owner.to_owned(),
                name: name.to_owned(),
            })
        } else {
            Err(invalid())
        }
    }
}

impl fmt::Display for Repo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

/// A pull request: repository and number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullRequest {
    /// The base repository.
    pub repo: Repo,
    /// The pull-request number.
    pub number: u64,
}

impl fmt::Display for PullRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.repo, self.number)
    }
}

/// What [`Client::upsert_comment`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Posted {
    /// No irgate comment existed: one was created.
    Created {
        /// The comment's page.
        url: String,
    },
    /// The existing irgate comment was updated in place.
    Updated {
        /// The comment's page.
        url: String,
    },
}

/// The fields of an issue comment irgate reads.
#[derive(Debug, Deserialize)]
struct IssueComment {
    id: u64,
    #[serde(default)]
    body: Option<String>,
    html_url: String,
    #[serde(default)]
    user: Option<Login>,
}

/// A user, by login.
#[derive(Debug, Deserialize)]
struct Login {
    login: String,
}

/// The part of a pull request irgate reads.
#[derive(Debug, Deserialize)]
struct PullHead {
    head: Commit,
}

/// A commit, by hash.
#[derive(Debug, Deserialize)]
struct Commit {
    sha: String,
}

/// The GitHub client. Build it inside a tokio runtime.
pub struct Client {
    crab: Octocrab,
    token: Token,
    api_url: String,
    retry: RetryPolicy,
    sleeper: Arc<dyn Sleeper>,
    author: Option<String>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("api_url", &self.api_url)
            .field("token", &self.token)
            .field("retry", &self.retry)
            .field("author", &self.author)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client for `GITHUB_API_URL` (default `https://api.github.com`) with the token in `GITHUB_TOKEN`.
    pub fn from_env() -> Result<Client, Error> {
        let token = Token::from_env()?;
        let api_url = std::env::var("GITHUB_API_URL")
            .ok()
            .filter(|url| !url.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_API_URL.to_owned());
        Client::new(&api_url, token)
    }

    /// A client for the API at `api_url` (e.g. `https://api.github.com`, or a GitHub Enterprise
    /// `https://host/api/v3`), with irgate's retry policy (octocrab is built without its
    /// `retry` feature, so that policy is the only one).
    pub fn new(api_url: &str, token: Token) -> Result<Client, Error> {
        let api_url = api_url.trim().trim_end_matches('/').to_owned();
        let invalid = |reason: &str| Error::InvalidApiUrl {
            url: api_url.clone(),
            reason: reason.to_owned(),
        };
        if !(api_url.starts_with("https://") || api_url.starts_with("http://")) {
            return Err(invalid(
                "it must start with https:// (or http:// for a local server)",
            ));
        }
        let crab = Octocrab::builder()
            .base_uri(api_url.as_str())
            .map_err(|_| invalid("not a valid URL"))?
            .personal_token(token.expose().to_owned())
            .set_connect_timeout(Some(Duration::from_secs(10)))
            .set_read_timeout(Some(Duration::from_secs(30)))
            .set_write_timeout(Some(Duration::from_secs(30)))
            .build()
            .map_err(|e| Error::Setup(token.redact(&e.to_string())))?;
        Ok(Client {
            crab,
            token,
            api_url,
            retry: RetryPolicy::default(),
            sleeper: Arc::new(TokioSleeper),
            author: None,
        })
    }

    /// Uses `retry` instead of the default policy.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Client {
        self.retry = retry;
        self
    }

    /// Waits between attempts with `sleeper` (tests record the waits instead of sleeping).
    pub fn with_sleeper(mut self, sleeper: Arc<dyn Sleeper>) -> Client {
        self.sleeper = sleeper;
        self
    }

    /// Only comments by `login` (e.g. `github-actions[bot]`) count as irgate's, so a marker
    /// pasted into someone else's comment is ignored.
    pub fn with_comment_author(mut self, login: impl Into<String>) -> Client {
        self.author = Some(login.into());
        self
    }

    /// Posts `body` as the pull request's one irgate comment: updates the comment carrying
    /// [`MARKER`] if there is one (looking through every page of comments), else creates it.
    ///
    /// Retries follow the [`RetryPolicy`]; every retry lists the comments again before it
    /// creates anything, so a create that failed after GitHub stored it is not duplicated.
    pub async fn upsert_comment(&self, pr: &PullRequest, body: &str) -> Result<Posted, Error> {
        let full = format!("{MARKER}\n{body}");
        let len = full.chars().count();
        if len > MAX_COMMENT_CHARS {
            return Err(Error::BodyTooLong {
                len,
                max: MAX_COMMENT_CHARS,
            });
        }
        self.retrying(|| self.try_upsert(pr, &full)).await
    }

    /// Fails with [`Error::HeadMoved`] unless the pull request's head commit is `sha`: the
    /// check that results downloaded from another workflow run belong to this pull request now.
    pub async fn verify_head(&self, pr: &PullRequest, sha: &str) -> Result<(), Error> {
        let route = format!(
            "/repos/{}/{}/pulls/{}",
            pr.repo.owner, pr.repo.name, pr.number
        );
        let action = format!("read pull request {pr}");
        let pull: PullHead = self
            .retrying(|| async {
                self.crab
                    .get(&route, None::<&()>)
                    .await
                    .map_err(Failed::new(&action))
            })
            .await?;
        if pull.head.sha.eq_ignore_ascii_case(sha.trim()) {
            Ok(())
        } else {
            Err(Error::HeadMoved {
                number: pr.number,
                expected: sha.trim().to_owned(),
                current: pull.head.sha,
            })
        }
    }

    /// One attempt: find the marked comment, then update or create.
    async fn try_upsert(&self, pr: &PullRequest, body: &str) -> Result<Posted, Failed> {
        let payload = serde_json::json!({ "body": body });
        let repo = format!("/repos/{}/{}", pr.repo.owner, pr.repo.name);
        match self.find_marked(pr).await? {
            Some(existing) => {
                let route = format!("{repo}/issues/comments/{}", existing.id);
                let action = format!("update comment {} on {pr}", existing.id);
                let updated: IssueComment = self
                    .crab
                    .patch(route, Some(&payload))
                    .await
                    .map_err(Failed::new(action))?;
                Ok(Posted::Updated {
                    url: updated.html_url,
                })
            }
            None => {
                let route = format!("{repo}/issues/{}/comments", pr.number);
                let action = format!("create a comment on {pr}");
                let created: IssueComment = self
                    .crab
                    .post(route, Some(&payload))
                    .await
                    .map_err(Failed::new(action))?;
                Ok(Posted::Created {
                    url: created.html_url,
                })
            }
        }
    }

    /// The first comment that starts with [`MARKER`] (and is by the configured author), reading
    /// every page.
    async fn find_marked(&self, pr: &PullRequest) -> Result<Option<IssueComment>, Failed> {
        let route = format!(
            "/repos/{}/{}/issues/{}/comments",
            pr.repo.owner, pr.repo.name, pr.number
        );
        let query = [("per_page", PER_PAGE), ("page", 1)];
        let mut page: octocrab::Page<IssueComment> = self
            .crab
            .get(&route, Some(&query))
            .await
            .map_err(Failed::new(format!("list the comments of {pr}")))?;
        for number in 1..=MAX_PAGES {
            if let Some(found) = page.items.into_iter().find(|c| self.is_marked(c)) {
                return Ok(Some(found));
            }
            if let Some(next) = &page.next {
                self.check_same_origin(next)?;
            }
            let action = format!("list the comments of {pr} (page {})", number + 1);
            match self
                .crab
                .get_page(&page.next)
                .await
                .map_err(Failed::new(action))?
            {
                Some(next) => page = next,
                None => return Ok(None),
            }
        }
        Err(Failed::Final(Error::TooManyPages { pages: MAX_PAGES }))
    }

    /// Refuses a page link whose scheme, host or port differ from the API's.
    fn check_same_origin(&self, link: &http::Uri) -> Result<(), Failed> {
        let origin = |scheme: Option<&str>, authority: Option<&str>| {
            format!("{}://{}", scheme.unwrap_or(""), authority.unwrap_or(""))
        };
        let api: http::Uri = self.api_url.parse().map_err(|_| {
            Failed::Final(Error::ForeignLink {
                origin: link.to_string(),
                api: self.api_url.clone(),
            })
        })?;
        let link_origin = origin(link.scheme_str(), link.authority().map(|a| a.as_str()));
        if link_origin == origin(api.scheme_str(), api.authority().map(|a| a.as_str())) {
            Ok(())
        } else {
            Err(Failed::Final(Error::ForeignLink {
                origin: link_origin,
                api: self.api_url.clone(),
            }))
        }
    }

    fn is_marked(&self, comment: &IssueComment) -> bool {
        let marked = comment
            .body
            .as_deref()
            .is_some_and(|body| body.starts_with(MARKER));
        let by_author = match (&self.author, &comment.user) {
            (None, _) => true,
            (Some(author), Some(user)) => user.login == *author,
            (Some(_), None) => false,
        };
        marked && by_author
    }

    /// Runs `attempt` until it succeeds, fails for good, or the policy's attempts are spent.
    async fn retrying<T, F, Fut>(&self, mut attempt: F) -> Result<T, Error>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, Failed>>,
    {
        let mut number = 1;
        loop {
            let failed = match attempt().await {
                Ok(value) => return Ok(value),
                Err(failed) => failed,
            };
            match self.retry.judge(failed, number, &self.token) {
                Judgement {
                    retry: Some((wait, reason)),
                    ..
                } => {
                    self.sleeper.sleep(wait, &reason).await;
                    number += 1;
                }
                Judgement { error, retry: None } => return Err(error),
            }
        }
    }
}
