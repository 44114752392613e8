//! `irgate runner`: the callgrind runners irgate keeps for the suites of this workspace, one
//! directory per runner version in a cache of its own ([`crate::measure::library::runners_dir`]), side by
//! side, so two repositories on one machine each get the exact runner their library needs and
//! neither replaces the other's.

use std::process::{Command, ExitCode, Stdio};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::measure::library::{Library, Source};
use crate::measure::suite;
use crate::measure::workspace::Workspace;
use crate::paths::Paths;
use crate::text::print;

/// What `irgate runner install` or `irgate runner path` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Where gate.toml is.
    pub paths: Paths,
}

/// `irgate runner install`: installs every runner the suites need that is not found yet (on the
/// runner variable, in the cache or on the PATH at the exact version) into the cache.
pub fn install(options: &Options) -> Result<ExitCode> {
    for library in libraries(&options.paths)? {
        let runner = library.kind.runner();
        if let Ok(found) = library.runner() {
            crate::note!(
                "{runner} {} is there: {} ({})",
                library.version,
                found.path.display(),
                found.source
            );
            continue;
        }
        let command = library.install_command();
        if library.cache_root().is_none() {
            return Err(Error::Tool(
                "irgate has no runner cache: set IRGATE_RUNNERS (or HOME) to a directory".into(),
            ));
        }
        crate::note!(
            "installing {runner} {}: {}",
            library.version,
            command.join(" ")
        );
        let status = install_with_progress(&library, &command)?;
        if !status.success() {
            return Err(Error::Tool(format!(
                "installing {runner} {} failed ({status}): {}",
                library.version,
                command.join(" ")
            )));
        }
        let found = library.runner()?;
        if found.source != Source::Cache {
            return Err(Error::Tool(format!(
                "{runner} {} was installed into irgate's cache, yet {} is used ({})",
                library.version,
                found.path.display(),
                found.source
            )));
        }
        crate::note!(
            "installed {}; irgate points `cargo bench` at it, so the PATH needs no change",
            found.path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `irgate runner path`: prints the runner each library of the suites will use, one path a
/// line; an error when one is missing or of another version.
pub fn path(options: &Options) -> Result<ExitCode> {
    for library in libraries(&options.paths)? {
        print(&format!("{}\n", library.runner()?.path.display()));
    }
    Ok(ExitCode::SUCCESS)
}

/// The distinct libraries of the suites `irgate run` would run here.
fn libraries(paths: &Paths) -> Result<Vec<Library>> {
    let paths = paths.resolve()?;
    // Before `irgate init` there is no gate.toml: the suites found, without a word about budgets.
    let config = if paths.config_named || paths.config.is_file() {
        Config::load_or_default(&paths.config, paths.config_named)?
    } else {
        Config::default()
    };
    let workspace = Workspace::load(&paths.root)?;
    suite::libraries(&suite::resolve(&config.suites, &workspace)?, &workspace)
}

/// What a runner's install takes, as measured here (host, 2 cores shared with other builds,
/// 2026-11-26): gungraun-runner 0.20.0 compiled 172 crates in 3 min 15 s of CPU time (12 min 45 s
/// of wall time at a load average of 10 to 11); iai-callgrind-runner 0.16.1 took 4 min 47 s at a
/// load of about 7. Said before an install starts, so nobody takes the silence for a hang.
pub const INSTALL_TAKES: &str = "cargo builds the runner: about 3 minutes of CPU time (here \
     gungraun-runner 0.20.0 took 3 min 15 s of CPU, 12 min 45 s beside other builds on 2 cores); \
     a line every 20 s says how far it is";

/// Runs `command` (`cargo install ...`) with a progress line every [`PROGRESS_EVERY`]: the
/// crates compiled so far, of about how many (the runner's `Cargo.lock` in cargo's registry, an
/// upper bound: it lists other platforms' crates too), and the time left at the pace so far.
/// Cargo's own output is kept back, and its last lines shown when the install fails.
fn install_with_progress(
    library: &Library,
    command: &[String],
) -> Result<std::process::ExitStatus> {
    use std::io::BufRead as _;
    crate::note!("{INSTALL_TAKES}");
    let mut child = Command::new(crate::env::cargo())
        .args(&command[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Tool(format!("cannot start cargo: {e}")))?;
    let stderr = child.stderr.take().expect("piped");
    // Cargo's lines come through a channel, so that a progress line is due every
    // PROGRESS_EVERY even while cargo says nothing (the runner's own link, at the end).
    let (lines, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let started = std::time::Instant::now();
    let mut total = None;
    let mut compiled = 0usize;
    let mut last = std::collections::VecDeque::new();
    let mut due = started + PROGRESS_EVERY;
    loop {
        let wait = due.saturating_duration_since(std::time::Instant::now());
        match received.recv_timeout(wait) {
            Ok(line) => {
                if line.trim_start().starts_with("Compiling ") {
                    compiled += 1;
                }
                if total.is_none() && line.trim_start().starts_with("Installing ") {
                    total = lock_packages(library);
                }
                if last.len() == 40 {
                    last.pop_front();
                }
                last.push_back(line);
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if std::time::Instant::now() >= due {
            due += PROGRESS_EVERY;
            crate::note!(
                "{}",
                progress(compiled, total, started.elapsed().as_secs_f64())
            );
        }
    }
    let status = child
        .wait()
        .map_err(|e| Error::Tool(format!("cargo install: {e}")))?;
    if status.success() {
        crate::note!(
            "{} crates compiled in {}",
            compiled,
            crate::text::duration(started.elapsed().as_secs_f64())
        );
    } else {
        for line in &last {
            eprintln!("  {}", crate::text::terminal(line));
        }
    }
    Ok(status)
}

/// How often the install says how far it is.
const PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_secs(20);

/// The progress line: `compiled` crates after `elapsed` seconds, of at most `total`.
fn progress(compiled: usize, total: Option<usize>, elapsed: f64) -> String {
    let so_far = crate::text::duration(elapsed);
    match total {
        // Before a tenth of the crates, the pace says little (the first are the smallest).
        Some(total) if compiled * 10 >= total && compiled < total => {
            let left = elapsed / compiled as f64 * (total - compiled) as f64;
            format!(
                "runner install: {compiled} of at most {total} crates compiled in {so_far}; at \
                 most about {} left",
                crate::text::duration(left)
            )
        }
        _ => format!("runner install: {compiled} crates compiled in {so_far}"),
    }
}

/// The packages of the runner's `Cargo.lock` in cargo's registry sources, once `cargo install`
/// has unpacked it; `None` when it cannot be found.
fn lock_packages(library: &Library) -> Option<usize> {
    let home = crate::env::cargo_home()?;
    let name = format!("{}-{}", library.kind.runner(), library.version);
    std::fs::read_dir(home.join("registry").join("src"))
        .ok()?
        .filter_map(|index| {
            let lock = index.ok()?.path().join(&name).join("Cargo.lock");
            let text = std::fs::read_to_string(lock).ok()?;
            Some(text.lines().filter(|l| l.trim() == "[[package]]").count())
        })
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_line_says_how_far_and_about_how_long() {
        assert_eq!(
            progress(50, Some(200), 60.0),
            "runner install: 50 of at most 200 crates compiled in 1 min 0 s; at most about 3 min 0 \
             s left"
        );
        assert_eq!(
            progress(0, Some(200), 20.0),
            "runner install: 0 crates compiled in 20 s"
        );
        assert_eq!(
            progress(12, Some(200), 20.0),
            "runner install: 12 crates compiled in 20 s"
        );
        assert_eq!(
            progress(210, Some(200), 300.0),
            "runner install: 210 crates compiled in 5 min 0 s"
        );
        assert!(INSTALL_TAKES.contains("min"));
    }
}
