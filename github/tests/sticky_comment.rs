//! The sticky comment against a local GitHub-like server: create, update, paging, errors, retries.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fake_github::{BOT, FakeGitHub, OWNER, PR, REPO, github_error, rate_limited};
use irgate_github::{
    Client, Error, MARKER, MAX_BODY_CHARS, Posted, PullRequest, RetryPolicy, Sleeper, Token,
};
use wiremock::ResponseTemplate;

const SECRET: &str = "ghs_TopSecretTokenValue123";

/// Records the waits it is asked for instead of sleeping.
#[derive(Default)]
struct RecordingSleeper(Mutex<Vec<(Duration, String)>>);

impl RecordingSleeper {
    fn waits(&self) -> Vec<Duration> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .map(|(wait, _)| *wait)
            .collect()
    }
    fn reasons(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .map(|(_, reason)| reason.clone())
            .collect()
    }
}

impl Sleeper for RecordingSleeper {
    fn sleep(&self, wait: Duration, reason: &str) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        self.0.lock().unwrap().push((wait, reason.to_owned()));
        Box::pin(std::future::ready(()))
    }
}

fn pr() -> PullRequest {
    PullRequest {
        repo: format!("{OWNER}/{REPO}").parse().unwrap(),
        number: PR,
    }
}

fn client(api_url: &str) -> (Client, Arc<RecordingSleeper>) {
    let sleeper = Arc::new(RecordingSleeper::default());
    let client = Client::new(api_url, Token::new(SECRET).unwrap())
        .unwrap()
        .with_retry(RetryPolicy {
            max_attempts: 4,
            base_backoff: Duration::from_secs(2),
            max_wait: Duration::from_secs(120),
        })
        .with_sleeper(sleeper.clone());
    (client, sleeper)
}

fn marked(body: &str) -> String {
    format!("{MARKER}\n{body}")
}

#[tokio::test]
async fn first_run_creates_second_run_updates_the_same_comment() {
    let github = FakeGitHub::start().await;
    github.comments.push("alice", "Looks good to me");
    let (client, sleeper) = client(&github.api_url);

    let first = client.upsert_comment(&pr(), "first report").await.unwrap();
    assert!(matches!(first, Posted::Created { .. }), "{first:?}");
    let second = client.upsert_comment(&pr(), "second report").await.unwrap();
    assert!(matches!(second, Posted::Updated { .. }), "{second:?}");

    let comments = github.comments.all();
    assert_eq!(
        comments.len(),
        2,
        "one human comment and exactly one irgate comment"
    );
    assert_eq!(comments[1].body, marked("second report"));
    assert_eq!(comments[0].body, "Looks good to me");
    assert_eq!(
        github.requests().await,
        [
            "GET /repos/acme/proxy/issues/7/comments?per_page=100&page=1",
            "POST /repos/acme/proxy/issues/7/comments",
            "GET /repos/acme/proxy/issues/7/comments?per_page=100&page=1",
            "PATCH /repos/acme/proxy/issues/comments/1001",
        ]
    );
    let auth = github.raw_requests().await[0].headers["authorization"]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        auth,
        format!("Bearer {SECRET}"),
        "the token is sent to GitHub, and only there"
    );
    assert!(sleeper.waits().is_empty());
}

#[tokio::test]
async fn marker_on_page_three_is_found_by_following_link_headers() {
    let github = FakeGitHub::start().await;
    for i in 0..230 {
        // A quoted marker that is not at the start does not make a comment irgate's.
        github
            .comments
            .push("bob", &format!("comment {i}: see > {MARKER}"));
    }
    let ours = github.comments.push(BOT, &marked("old report"));
    for i in 0..20 {
        github.comments.push("carol", &format!("later comment {i}"));
    }
    let (client, _) = client(&github.api_url);

    let posted = client.upsert_comment(&pr(), "new report").await.unwrap();

    assert!(
        matches!(posted, Posted::Updated { ref url } if url.ends_with(&format!("#issuecomment-{ours}"))),
        "{posted:?}"
    );
    assert_eq!(github.comments.all().len(), 251, "nothing created");
    assert_eq!(github.comments.all()[230].body, marked("new report"));
    assert_eq!(
        github.requests().await,
        [
            "GET /repos/acme/proxy/issues/7/comments?per_page=100&page=1".to_owned(),
            "GET /repositories/4242/issues/7/comments?per_page=100&page=2".to_owned(),
            "GET /repositories/4242/issues/7/comments?per_page=100&page=3".to_owned(),
            format!("PATCH /repos/acme/proxy/issues/comments/{ours}"),
        ]
    );
}

#[tokio::test]
async fn all_pages_are_read_before_creating() {
    let github = FakeGitHub::start().await;
    for i in 0..250 {
        github.comments.push("bob", &format!("comment {i}"));
    }
    let (client, _) = client(&github.api_url);

    let posted = client.upsert_comment(&pr(), "report").await.unwrap();

    assert!(matches!(posted, Posted::Created { .. }));
    let requests = github.requests().await;
    assert_eq!(requests.len(), 4, "{requests:?}");
    assert!(requests[2].ends_with("page=3"), "{requests:?}");
    assert_eq!(requests[3], "POST /repos/acme/proxy/issues/7/comments");
}

#[tokio::test]
async fn marker_in_someone_elses_comment_is_ignored_when_the_author_is_set() {
    let github = FakeGitHub::start().await;
    github.comments.push("mallory", &marked("fake report"));
    let (client, _) = client(&github.api_url);
    let client = client.with_comment_author(BOT);

    let posted = client.upsert_comment(&pr(), "real report").await.unwrap();

    assert!(matches!(posted, Posted::Created { .. }));
    let comments = github.comments.all();
    assert_eq!(
        comments[0].body,
        marked("fake report"),
        "mallory's comment untouched"
    );
    assert_eq!(comments[1].login, BOT);
}

#[tokio::test]
async fn fork_token_403_is_a_clear_error_without_retry() {
    let github = FakeGitHub::start().await;
    github
        .fail_next(
            "POST",
            1,
            github_error(403, "Resource not accessible by integration"),
        )
        .await;
    let (client, sleeper) = client(&github.api_url);

    let error = client.upsert_comment(&pr(), "report").await.unwrap_err();

    assert!(matches!(error, Error::Forbidden { .. }), "{error:?}");
    let text = error.to_string();
    assert!(
        text.contains("403 Forbidden: Resource not accessible by integration"),
        "{text}"
    );
    assert!(
        text.contains("forks get a read-only token") && text.contains("workflow_run"),
        "{text}"
    );
    assert!(sleeper.waits().is_empty(), "a plain 403 is not retried");
    assert!(github.comments.all().is_empty());
}

#[tokio::test]
async fn not_found_and_unprocessable_are_not_retried() {
    let github = FakeGitHub::start().await;
    github
        .fail_next("GET", 1, github_error(404, "Not Found"))
        .await;
    let (client, sleeper) = client(&github.api_url);
    let error = client.upsert_comment(&pr(), "report").await.unwrap_err();
    assert!(matches!(error, Error::NotFound { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .contains("check the repository and pull-request number"),
        "{error}"
    );

    github
        .fail_next("POST", 1, github_error(422, "Validation Failed"))
        .await;
    let error = client.upsert_comment(&pr(), "report").await.unwrap_err();
    assert!(matches!(error, Error::Rejected { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .contains("422 Unprocessable Entity: Validation Failed"),
        "{error}"
    );
    assert!(sleeper.waits().is_empty());
}

#[tokio::test]
async fn server_errors_are_retried_with_backoff_then_succeed() {
    let github = FakeGitHub::start().await;
    github
        .fail_next(
            "GET",
            2,
            ResponseTemplate::new(502).set_body_string("<html>Bad Gateway</html>"),
        )
        .await;
    let (client, sleeper) = client(&github.api_url);

    let posted = client.upsert_comment(&pr(), "report").await.unwrap();

    assert!(matches!(posted, Posted::Created { .. }));
    assert_eq!(
        sleeper.waits(),
        [Duration::from_secs(2), Duration::from_secs(4)]
    );
    assert!(
        sleeper.reasons()[0].contains("GitHub answered 502"),
        "{:?}",
        sleeper.reasons()
    );
    assert_eq!(github.comments.all().len(), 1);
}

#[tokio::test]
async fn server_errors_on_every_attempt_give_up_with_a_typed_error() {
    let github = FakeGitHub::start().await;
    github
        .fail_next("GET", 100, github_error(503, "Service Unavailable"))
        .await;
    let (client, sleeper) = client(&github.api_url);

    let error = client.upsert_comment(&pr(), "report").await.unwrap_err();

    match &error {
        Error::Server {
            status: 503,
            attempts: 4,
            ..
        } => {}
        other => panic!("expected Server 503 after 4 attempts, got {other:?}"),
    }
    assert_eq!(sleeper.waits(), [2, 4, 8].map(Duration::from_secs));
    assert_eq!(github.requests().await.len(), 4, "bounded attempts");
}

#[tokio::test]
async fn rate_limit_429_waits_as_long_as_retry_after_says() {
    let github = FakeGitHub::start().await;
    github.fail_next("GET", 1, rate_limited(429, 7)).await;
    let (client, sleeper) = client(&github.api_url);

    let posted = client.upsert_comment(&pr(), "report").await.unwrap();

    assert!(matches!(posted, Posted::Created { .. }));
    assert_eq!(sleeper.waits(), [Duration::from_secs(7)]);
    assert!(
        sleeper.reasons()[0].contains("rate limit (429)"),
        "{:?}",
        sleeper.reasons()
    );
}

#[tokio::test]
async fn secondary_rate_limit_403_with_retry_after_is_retried_not_forbidden() {
    let github = FakeGitHub::start().await;
    github.fail_next("POST", 1, rate_limited(403, 3)).await;
    let (client, sleeper) = client(&github.api_url);

    client.upsert_comment(&pr(), "report").await.unwrap();

    assert_eq!(sleeper.waits(), [Duration::from_secs(3)]);
    assert_eq!(github.comments.all().len(), 1);
}

#[tokio::test]
async fn primary_rate_limit_waits_until_the_reset_header() {
    let github = FakeGitHub::start().await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let limited = github_error(403, "API rate limit exceeded for installation ID 1.")
        .insert_header("x-ratelimit-remaining", "0")
        .insert_header("x-ratelimit-reset", (now + 40).to_string().as_str());
    github.fail_next("GET", 1, limited).await;
    let (client, sleeper) = client(&github.api_url);

    client.upsert_comment(&pr(), "report").await.unwrap();

    let waits = sleeper.waits();
    assert_eq!(waits.len(), 1);
    assert!(
        (Duration::from_secs(30)..=Duration::from_secs(40)).contains(&waits[0]),
        "{waits:?}"
    );
}

#[tokio::test]
async fn a_rate_limit_longer_than_the_bound_is_reported_not_waited() {
    let github = FakeGitHub::start().await;
    github.fail_next("GET", 1, rate_limited(429, 3600)).await;
    let (client, sleeper) = client(&github.api_url);

    let error = client.upsert_comment(&pr(), "report").await.unwrap_err();

    assert!(
        matches!(error, Error::RateLimited { attempts: 1, .. }),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .contains("wait 3600s, longer than irgate waits (at most 120s)"),
        "{error}"
    );
    assert!(sleeper.waits().is_empty());
}

#[tokio::test]
async fn a_rate_limit_that_outlasts_the_attempts_names_the_attempt_cap_not_the_wait_cap() {
    let github = FakeGitHub::start().await;
    github.fail_next("GET", 4, rate_limited(429, 3)).await;
    let (client, sleeper) = client(&github.api_url);

    let error = client.upsert_comment(&pr(), "report").await.unwrap_err();

    assert!(
        matches!(error, Error::RateLimited { attempts: 4, .. }),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(
        text.contains("still limited after 4 attempt(s), the most irgate makes"),
        "{text}"
    );
    assert!(
        !text.contains("120s"),
        "the wait cap did not stop it: {text}"
    );
    assert_eq!(sleeper.waits(), [Duration::from_secs(3); 3]);
}

#[tokio::test]
async fn a_create_that_failed_after_github_stored_it_is_not_duplicated() {
    let github = FakeGitHub::start().await;
    *github.fail_create_after_store.lock().unwrap() = 1;
    let (client, sleeper) = client(&github.api_url);

    let posted = client.upsert_comment(&pr(), "report").await.unwrap();

    assert!(
        matches!(posted, Posted::Updated { .. }),
        "the retry found the stored comment: {posted:?}"
    );
    assert_eq!(github.comments.all().len(), 1, "no duplicate");
    assert_eq!(sleeper.waits(), [Duration::from_secs(2)]);
    let requests = github.requests().await;
    assert_eq!(
        requests
            .iter()
            .map(|r| r.split(' ').next().unwrap())
            .collect::<Vec<_>>(),
        ["GET", "POST", "GET", "PATCH"],
        "{requests:?}"
    );
}

#[tokio::test]
async fn unreachable_server_is_a_transport_error_after_bounded_retries() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let (client, sleeper) = client(&format!("http://127.0.0.1:{port}"));

    let error = client.upsert_comment(&pr(), "report").await.unwrap_err();

    assert!(
        matches!(error, Error::Transport { attempts: 4, .. }),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .starts_with("could not reach GitHub to list the comments of acme/proxy#7"),
        "{error}"
    );
    assert_eq!(sleeper.waits().len(), 3);
}

#[tokio::test]
async fn enterprise_api_url_with_a_path_prefix_works() {
    let github = FakeGitHub::start_at("/api/v3").await;
    let (client, _) = client(&format!("{}/", github.api_url));

    client.upsert_comment(&pr(), "report").await.unwrap();
    client.upsert_comment(&pr(), "report 2").await.unwrap();

    assert_eq!(github.comments.all().len(), 1);
    assert!(
        github
            .requests()
            .await
            .iter()
            .all(|r| r.contains(" /api/v3/"))
    );
}

#[tokio::test]
async fn an_oversized_body_is_refused_before_any_request() {
    let github = FakeGitHub::start().await;
    let (client, _) = client(&github.api_url);

    client
        .upsert_comment(&pr(), &"x".repeat(MAX_BODY_CHARS))
        .await
        .unwrap();
    let error = client
        .upsert_comment(&pr(), &"x".repeat(MAX_BODY_CHARS + 1))
        .await
        .unwrap_err();

    assert!(
        matches!(
            error,
            Error::BodyTooLong {
                len: 65_537,
                max: 65_536
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        github.requests().await.len(),
        2,
        "GET + POST for the first; nothing for the refused body"
    );
}

#[tokio::test]
async fn head_sha_is_verified_before_trusting_downloaded_results() {
    let github = FakeGitHub::start().await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path("/repos/acme/proxy/pulls/7"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "number": 7, "head": { "sha": "0123abcd0123abcd0123abcd0123abcd0123abcd", "ref": "feature" }
        })))
        .mount(&github.server)
        .await;
    let (client, _) = client(&github.api_url);

    client
        .verify_head(&pr(), "0123ABCD0123abcd0123abcd0123abcd0123abcd\n")
        .await
        .unwrap();
    let error = client
        .verify_head(&pr(), "ffffffffffffffffffffffffffffffffffffffff")
        .await
        .unwrap_err();

    assert!(
        matches!(error, Error::HeadMoved { number: 7, .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("not posting stale results"),
        "{error}"
    );
}

#[tokio::test]
async fn the_token_never_appears_in_errors_debug_output_or_retry_notices() {
    let github = FakeGitHub::start().await;
    // A hostile or buggy server that echoes the Authorization header into its messages.
    let echo = format!("bad credentials: Bearer {SECRET}");
    github
        .fail_next(
            "GET",
            1,
            ResponseTemplate::new(500).set_body_string(echo.as_str()),
        )
        .await;
    github.fail_next("GET", 1, github_error(401, &echo)).await;
    let (client, sleeper) = client(&github.api_url);

    let unauthorized = client.upsert_comment(&pr(), "report").await.unwrap_err();
    github.fail_next("POST", 1, github_error(403, &echo)).await;
    let forbidden = client.upsert_comment(&pr(), "report").await.unwrap_err();

    assert!(
        matches!(unauthorized, Error::Unauthorized { .. }),
        "{unauthorized:?}"
    );
    assert!(
        matches!(forbidden, Error::Forbidden { .. }),
        "{forbidden:?}"
    );
    let mut outputs = vec![
        unauthorized.to_string(),
        format!("{unauthorized:?}"),
        forbidden.to_string(),
        format!("{forbidden:?}"),
        format!("{client:?}"),
        format!("{:?}", Token::new(SECRET).unwrap()),
    ];
    outputs.extend(sleeper.reasons());
    for output in &outputs {
        assert!(!output.contains(SECRET), "token leaked: {output}");
        assert!(
            !output.contains("TopSecret"),
            "part of the token leaked: {output}"
        );
    }
    assert!(
        unauthorized.to_string().contains("Bearer ***"),
        "{unauthorized}"
    );
}

#[tokio::test]
async fn bad_configuration_is_refused_clearly() {
    assert!(matches!(
        Client::new("ftp://example.com", Token::new("t").unwrap()),
        Err(Error::InvalidApiUrl { .. })
    ));
    for bad in [
        "acme",
        "acme/",
        "/proxy",
        "acme/pro/xy",
        "ac me/proxy",
        "acme/..",
        "acme/p?x=1",
    ] {
        let error = bad.parse::<irgate_github::Repo>().unwrap_err();
        assert!(
            error.to_string().contains("expected `owner/name`"),
            "{bad}: {error}"
        );
    }
    assert_eq!(
        "rust-lang/rust.vim"
            .parse::<irgate_github::Repo>()
            .unwrap()
            .name,
        "rust.vim"
    );
}

#[tokio::test]
async fn a_link_to_another_host_is_refused_and_gets_no_token() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer};
    // A second server on another loopback address stands for a foreign host.
    let elsewhere = MockServer::builder()
        .listener(std::net::TcpListener::bind("127.0.0.2:0").unwrap())
        .start()
        .await;
    let github = MockServer::start().await;
    let link = format!("<{}/stolen?page=2>; rel=\"next\"", elsewhere.uri());
    Mock::given(method("GET"))
        .and(path(format!("/repos/{OWNER}/{REPO}/issues/{PR}/comments")))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_string("[]")
                .insert_header("content-type", "application/json")
                .insert_header("link", link.as_str()),
        )
        .mount(&github)
        .await;
    let (client, _) = client(&github.uri());

    let error = client.upsert_comment(&pr(), "report").await.unwrap_err();

    assert!(matches!(error, Error::ForeignLink { .. }), "{error:?}");
    assert!(error.to_string().contains(&elsewhere.uri()), "{error}");
    assert!(!error.to_string().contains(SECRET));
    assert_eq!(elsewhere.received_requests().await.unwrap().len(), 0);
}
