//! A small GitHub on wiremock: the issue-comment endpoints with GitHub's paging (`Link` headers
//! pointing at `/repositories/{id}/...`, as github.com sends them), backed by an in-memory list.
//! Failures are injected by mounting higher-priority mocks in front of it.
//!
//! Dev-only: the tests of `irgate-github` (the client) and of `irgate` (the `comment` command)
//! run against it.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The repository's owner.
pub const OWNER: &str = "acme";
/// The repository's name.
pub const REPO: &str = "proxy";
/// The pull request's number.
pub const PR: u64 = 7;
/// The repository's numeric id, which GitHub's paging links use.
pub const REPO_ID: u64 = 4242;
/// The login that comments created through the fake are stored under.
pub const BOT: &str = "github-actions[bot]";

/// One stored comment.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredComment {
    /// The comment's id.
    pub id: u64,
    /// Its markdown body.
    pub body: String,
    /// Its author's login.
    pub login: String,
}

/// The fake's state: the pull request's comments, oldest first.
#[derive(Clone, Default)]
pub struct Comments(Arc<Mutex<Vec<StoredComment>>>);

impl Comments {
    /// Every comment, oldest first.
    pub fn all(&self) -> Vec<StoredComment> {
        self.0.lock().unwrap().clone()
    }

    /// Stores a comment by `login`; returns its id.
    pub fn push(&self, login: &str, body: &str) -> u64 {
        let mut comments = self.0.lock().unwrap();
        let id = 1000 + comments.len() as u64;
        comments.push(StoredComment {
            id,
            body: body.to_owned(),
            login: login.to_owned(),
        });
        id
    }
}

fn comment_json(base: &str, c: &StoredComment) -> Value {
    json!({
        "id": c.id,
        "node_id": format!("IC_{}", c.id),
        "url": format!("{base}/repos/{OWNER}/{REPO}/issues/comments/{}", c.id),
        "html_url": format!("https://github.com/{OWNER}/{REPO}/pull/{PR}#issuecomment-{}", c.id),
        "body": c.body,
        "user": { "login": c.login, "id": 1, "type": if c.login.ends_with("[bot]") { "Bot" } else { "User" } },
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "author_association": "NONE"
    })
}

struct List {
    base: String,
    comments: Comments,
}

impl Respond for List {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let query = |key: &str| {
            req.url
                .query_pairs()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.parse::<usize>().unwrap())
        };
        let per_page = query("per_page").unwrap_or(30).min(100);
        let page = query("page").unwrap_or(1).max(1);
        let all = self.comments.all();
        let items: Vec<Value> = all
            .iter()
            .skip((page - 1) * per_page)
            .take(per_page)
            .map(|c| comment_json(&self.base, c))
            .collect();
        let last = all.len().div_ceil(per_page).max(1);
        let link = |p: usize, rel: &str| {
            format!(
                "<{}/repositories/{REPO_ID}/issues/{PR}/comments?per_page={per_page}&page={p}>; rel=\"{rel}\"",
                self.base
            )
        };
        let mut links = Vec::new();
        if page > 1 {
            links.push(link(page - 1, "prev"));
        }
        if page < last {
            links.push(link(page + 1, "next"));
            links.push(link(last, "last"));
        }
        if page > 1 {
            links.push(link(1, "first"));
        }
        let mut response = ResponseTemplate::new(200).set_body_json(items);
        if !links.is_empty() {
            response = response.insert_header("link", links.join(", "));
        }
        response
    }
}

/// Creates a comment; with `fail_after_store` set, answers 502 after storing it the first
/// `fail_after_store` times (GitHub stored it, the client never heard).
struct Create {
    base: String,
    comments: Comments,
    fail_after_store: Arc<Mutex<u32>>,
}

impl Respond for Create {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body: Value = req.body_json().unwrap();
        let id = self.comments.push(BOT, body["body"].as_str().unwrap());
        let mut fail = self.fail_after_store.lock().unwrap();
        if *fail > 0 {
            *fail -= 1;
            return ResponseTemplate::new(502).set_body_string("<html>Bad Gateway</html>");
        }
        let stored = self
            .comments
            .all()
            .into_iter()
            .find(|c| c.id == id)
            .unwrap();
        ResponseTemplate::new(201).set_body_json(comment_json(&self.base, &stored))
    }
}

struct Update {
    base: String,
    comments: Comments,
}

impl Respond for Update {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let id: u64 = req.url.path().rsplit('/').next().unwrap().parse().unwrap();
        let body: Value = req.body_json().unwrap();
        let mut comments = self.comments.0.lock().unwrap();
        match comments.iter_mut().find(|c| c.id == id) {
            Some(c) => {
                c.body = body["body"].as_str().unwrap().to_owned();
                let updated = c.clone();
                drop(comments);
                ResponseTemplate::new(200).set_body_json(comment_json(&self.base, &updated))
            }
            None => ResponseTemplate::new(404).set_body_json(json!({"message": "Not Found"})),
        }
    }
}

/// The fake GitHub: a wiremock server serving one pull request's comments.
pub struct FakeGitHub {
    /// The wiremock server (mount more mocks on it).
    pub server: MockServer,
    /// The stored comments.
    pub comments: Comments,
    /// How many of the next creates answer 502 after storing the comment.
    pub fail_create_after_store: Arc<Mutex<u32>>,
    /// The API base URL (the server's address plus `prefix`).
    pub api_url: String,
}

impl FakeGitHub {
    /// A fake at the server's root, like api.github.com.
    pub async fn start() -> FakeGitHub {
        FakeGitHub::start_at("").await
    }

    /// A fake under `prefix`, like GitHub Enterprise's `/api/v3`.
    pub async fn start_at(prefix: &str) -> FakeGitHub {
        let server = MockServer::start().await;
        let api_url = format!("{}{prefix}", server.uri());
        let comments = Comments::default();
        let fail_create_after_store = Arc::new(Mutex::new(0));
        let list_path = format!(
            r"^{prefix}/(repos/{OWNER}/{REPO}|repositories/{REPO_ID})/issues/{PR}/comments$"
        );
        Mock::given(method("GET"))
            .and(path_regex(list_path.as_str()))
            .respond_with(List {
                base: api_url.clone(),
                comments: comments.clone(),
            })
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(path(format!(
                "{prefix}/repos/{OWNER}/{REPO}/issues/{PR}/comments"
            )))
            .respond_with(Create {
                base: api_url.clone(),
                comments: comments.clone(),
                fail_after_store: fail_create_after_store.clone(),
            })
            .mount(&server)
            .await;
        Mock::given(method("PATCH"))
            .and(path_regex(
                format!(r"^{prefix}/repos/{OWNER}/{REPO}/issues/comments/\d+$").as_str(),
            ))
            .respond_with(Update {
                base: api_url.clone(),
                comments: comments.clone(),
            })
            .mount(&server)
            .await;
        FakeGitHub {
            server,
            comments,
            fail_create_after_store,
            api_url,
        }
    }

    /// Answers the next `times` requests of `http_method` with `response`, before the fake sees them.
    pub async fn fail_next(&self, http_method: &str, times: u64, response: ResponseTemplate) {
        Mock::given(method(http_method))
            .respond_with(response)
            .up_to_n_times(times)
            .with_priority(1)
            .mount(&self.server)
            .await;
    }

    /// Every request received, as `METHOD path?query`.
    pub async fn requests(&self) -> Vec<String> {
        self.server
            .received_requests()
            .await
            .unwrap()
            .iter()
            .map(|r| match r.url.query() {
                Some(q) => format!("{} {}?{q}", r.method, r.url.path()),
                None => format!("{} {}", r.method, r.url.path()),
            })
            .collect()
    }

    /// Every request's headers and body, as text (to look for leaked secrets).
    pub async fn raw_requests(&self) -> Vec<wiremock::Request> {
        self.server.received_requests().await.unwrap()
    }
}

/// GitHub's error body.
pub fn github_error(status: u16, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({
        "message": message,
        "documentation_url": "https://docs.github.com/rest"
    }))
}

/// A rate-limit answer with `Retry-After: seconds`.
pub fn rate_limited(status: u16, seconds: u64) -> ResponseTemplate {
    github_error(
        status,
        "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
    )
    .insert_header("retry-after", seconds.to_string().as_str())
}
