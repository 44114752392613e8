//! `irgate comment`: the stored report of `irgate check --format json` as the pull request's one
//! irgate comment, the job's step summary and `::error` annotations.
//!
//! The exit code is always the gate's own (0/1/2 from the report): a GitHub failure is reported
//! and never turns a failing gate green or a passing gate red.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use irgate_github::{Client, Posted, PullRequest, Repo};

use crate::error::Error;
use crate::formats::load::LoadComparison;
use crate::formats::report;
use crate::model::Report;
use crate::render::github::{annotations, escape_data, with_load};
use crate::render::markdown::Limit;
use crate::text::terminal;

/// What `irgate comment` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The report of `irgate check --format json` (`-` is standard input).
    pub report: PathBuf,
    /// `OWNER/NAME` of the repository.
    pub repo: Option<String>,
    /// The pull-request number.
    pub pr: Option<u64>,
    /// Post only while the pull request's head is still this commit.
    pub head_sha: Option<String>,
    /// Only a comment by this login counts as irgate's.
    pub author: Option<String>,
    /// Post the comment (else only the step summary and annotations).
    pub post: bool,
    /// A load-test comparison to show under its own heading (`irload compare --format json`).
    pub load: Option<PathBuf>,
    /// The published dashboard: failing benchmarks link to their charts there.
    pub dashboard_url: Option<String>,
}

// The comment's limit leaves room for the client's marker line: checked when compiling.
const _: () = assert!(Limit::COMMENT.max <= irgate_github::MAX_BODY_CHARS);

/// Runs `irgate comment`. Its own errors are printed here (and as a workflow annotation in
/// GitHub Actions), so it returns the exit code rather than an error.
pub fn execute(args: &Options) -> Result<ExitCode, Error> {
    Ok(ExitCode::from(run(args)))
}

/// `irgate comment`'s work; returns the exit code.
fn run(args: &Options) -> u8 {
    let in_actions = crate::env::github_actions();
    let report = match report::read(&args.report) {
        Ok(mut report) => {
            report.attribution.artifacts_url = artifacts_url_from_env();
            report.attribution.dashboard_url = args.dashboard_url.clone();
            report.attribution.diff_url = diff_url(args);
            report
        }
        Err(error) => {
            crate::note!("error: {}", terminal(&error.to_string()));
            if in_actions {
                let message = escape_data(&error.to_string());
                println!("::error title=irgate comment::{message}");
            }
            return 2;
        }
    };

    // Informational, never gated: a bad file is reported and left out, the verdict stands.
    let load = match args.load.as_deref().map(crate::formats::load::read) {
        None => None,
        Some(Ok(comparison)) => Some(comparison),
        Some(Err(error)) => {
            crate::warning!(
                "comment: the load comparison is left out: {}",
                terminal(&error.to_string())
            );
            if in_actions {
                println!(
                    "::warning title=irgate comment::{}",
                    escape_data(&error.to_string())
                );
            }
            None
        }
    };
    let load = load.as_ref();
    if let Some(path) = crate::env::github_step_summary()
        && let Err(error) = append_step_summary(&path, &report, load)
    {
        crate::warning!("comment: {}", terminal(&error.to_string()));
    }
    if in_actions {
        let mut stdout = std::io::stdout().lock();
        for line in annotations(&report) {
            let _ = writeln!(stdout, "{line}");
        }
    }
    if args.post {
        match post(args, &report, load) {
            Ok(Some(Posted::Created { url })) => {
                println!(
                    "irgate: created the pull-request comment: {}",
                    terminal(&url)
                )
            }
            Ok(Some(Posted::Updated { url })) => {
                println!(
                    "irgate: updated the pull-request comment: {}",
                    terminal(&url)
                )
            }
            Ok(None) => {}
            Err(message) => {
                crate::warning!("comment: could not post the report: {}", terminal(&message));
                if in_actions {
                    println!("::warning title=irgate comment::{}", escape_data(&message));
                }
            }
        }
    }
    let code = report.outcome.exit_code();
    println!("irgate: the gate's verdict stands: exit {code}");
    code
}

/// Posts the comment; `Ok(None)` when the pull request moved on and nothing was posted.
fn post(
    args: &Options,
    report: &Report,
    load: Option<&LoadComparison>,
) -> Result<Option<Posted>, String> {
    let repo: Repo = args
        .repo
        .as_deref()
        .ok_or("no repository: give --repo OWNER/NAME or set GITHUB_REPOSITORY")?
        .parse()
        .map_err(|e: irgate_github::Error| e.to_string())?;
    let number = args.pr.ok_or("no pull request: give --pr NUMBER")?;
    let pr = PullRequest { repo, number };
    let body = with_load(report, load, Limit::COMMENT);
    println!("irgate: posting the report to {pr}");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(async {
        let mut client = Client::from_env().map_err(|e| e.to_string())?;
        if let Some(author) = &args.author {
            client = client.with_comment_author(author);
        }
        if let Some(sha) = &args.head_sha {
            match client.verify_head(&pr, sha).await {
                Ok(()) => {}
                Err(moved @ irgate_github::Error::HeadMoved { .. }) => {
                    println!("irgate: {}", terminal(&moved.to_string()));
                    return Ok(None);
                }
                Err(error) => return Err(error.to_string()),
            }
        }
        client
            .upsert_comment(&pr, &body)
            .await
            .map(Some)
            .map_err(|e| e.to_string())
    })
}

/// Appends the markdown report (and the load section) to the step summary file.
pub fn append_step_summary(
    path: &Path,
    report: &Report,
    load: Option<&LoadComparison>,
) -> Result<(), Error> {
    let write_error = |source| Error::write(path, source);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(write_error)?;
    file.write_all(with_load(report, load, Limit::STEP_SUMMARY).as_bytes())
        .map_err(write_error)
}

/// The flame graph link from `IRGATE_ARTIFACTS_URL`, when it is a plain `https://` URL.
/// The pull request's changed files page, from the repository (`--repo`, else
/// `GITHUB_REPOSITORY`) and `--pr`; `None` when either is missing or the repository is not
/// `OWNER/NAME` of the characters GitHub allows.
fn diff_url(args: &Options) -> Option<String> {
    let repo = args.repo.clone().or_else(crate::env::github_repository)?;
    let plain = |part: &str| {
        !part.is_empty()
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    let (owner, name) = repo.split_once('/')?;
    let pr = args.pr?;
    (plain(owner) && plain(name))
        .then(|| format!("https://github.com/{owner}/{name}/pull/{pr}/files"))
}

fn artifacts_url_from_env() -> Option<String> {
    let url = crate::env::artifacts_url()?;
    crate::text::is_plain_https(&url).then_some(url)
}
