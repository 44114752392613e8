//! `irgate history`: the counts of every run of the default branch over time, and the static
//! dashboard drawn from them.
//!
//! [`store`] is the file format (one JSON file per run, so appending never rewrites an entry),
//! [`render()`] the HTML site and `chart` its SVG charts. The drift budget of `irgate check`
//! ([`crate::judge::drift`]) reads its anchor's counts from here.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::error::{Error, Result};
use crate::formats::history as store;
use crate::paths::Paths;
use crate::render::dashboard as render;

/// What `irgate history add` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct AddOptions {
    /// The history directory.
    pub history: PathBuf,
    /// Results files, one run each (oldest first); empty: the latest results.
    pub results: Vec<PathBuf>,
    /// The commit the counts were taken at, when not the results' own (one results file only).
    pub commit: Option<String>,
    /// Whether the run accepted new baselines.
    pub refreshed: bool,
    /// `irgate bisect --format json` of the commits since the previous recorded run (one
    /// results file only).
    pub bisect: Option<PathBuf>,
    /// The run's `irgate check --format json` report, whose `unexplained` benchmarks are kept
    /// (one results file only).
    pub report: Option<PathBuf>,
    /// Where the default results file is.
    pub paths: Paths,
}

/// Runs `irgate history add`: each results file becomes one run of the history.
pub fn add(options: &AddOptions) -> Result<ExitCode> {
    let files = if options.results.is_empty() {
        let latest = options.paths.resolve()?.results;
        if !latest.exists() {
            return Err(Error::invalid(
                latest.display(),
                "no results: run `irgate run` first, or name the results files to record",
            ));
        }
        vec![latest]
    } else {
        options.results.clone()
    };
    for (given, option) in [
        (options.commit.is_some(), "--commit"),
        (options.bisect.is_some(), "--bisect"),
        (options.report.is_some(), "--report"),
    ] {
        if given && files.len() > 1 {
            return Err(Error::Tool(format!(
                "{option} belongs to one run: give one results file with it"
            )));
        }
    }
    for file in &files {
        let results = crate::formats::results::read(file)?;
        let origin = file.display().to_string();
        results.require_measured(&origin, "the history")?;
        let mut run = store::Run::from_results(
            results,
            options.commit.as_deref(),
            options.refreshed,
            &origin,
        )?;
        if let Some(path) = &options.report {
            run.unexplained = store::unexplained(path, &run)?;
        }
        if let Some(path) = &options.bisect {
            let bisection = crate::bisect::format::read(path, &run.commit)?;
            if !store::recorded(&options.history, &bisection.good)? {
                return Err(Error::invalid(
                    path.display(),
                    format!(
                        "its good end {} is no run recorded in {}: a bisection kept in the \
                         history starts at the previous recorded run",
                        bisection.good,
                        options.history.display()
                    ),
                ));
            }
            run.bisection = Some(bisection);
        }
        match store::append(&options.history, &run)? {
            store::Appended::Added(path) => println!("added {}", path.display()),
            store::Appended::AlreadyThere(path) => {
                println!("already recorded: {}", path.display())
            }
        }
        for u in &run.unexplained {
            println!(
                "unexplained: {} moved beyond the address budget although the code identity said \
                 untouched: a possible selection bug",
                crate::text::terminal(&u.benchmark)
            );
        }
        for m in run.bisection.iter().flat_map(|b| &b.moves) {
            println!(
                "moved: {} at {} {}",
                crate::text::terminal(&m.benchmark),
                crate::text::short_commit(&m.commit),
                crate::text::terminal(&m.subject)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// What `irgate history render` was asked to do.
#[derive(Debug, Clone)]
pub struct RenderOptions {
    /// The history directory.
    pub history: PathBuf,
    /// Where the site is written.
    pub out: PathBuf,
    /// How the site is drawn.
    pub site: render::Site,
}

/// Runs `irgate history render`: the dashboard of the history, written into `out`.
pub fn render(options: &RenderOptions) -> Result<ExitCode> {
    if options.site.window == 0 {
        return Err(Error::Tool("--window must be at least 1 run".to_owned()));
    }
    let mut runs = render::Runs::default();
    store::load_each(&options.history, |run| {
        runs.push(run);
        Ok(())
    })?;
    if runs.is_empty() {
        return Err(Error::invalid(
            options.history.display(),
            "the history holds no runs: `irgate history add` records one",
        ));
    }
    let pages = render::write(&runs, &options.site, &options.out)?;
    println!(
        "wrote {pages} pages ({} runs) to {}",
        runs.len(),
        options.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
