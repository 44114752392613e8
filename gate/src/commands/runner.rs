//! `irgate runner`: the callgrind runners irgate keeps for the suites of this workspace, one
//! directory per runner version in a cache of its own ([`crate::measure::library::runners_dir`]), side by
//! side, so two repositories on one machine each get the exact runner their library needs and
//! neither replaces the other's.

use std::process::{Command, ExitCode, Stdio};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::measure::library::{Library, Source};
use crate::measure::paths::Paths;
use crate::measure::suite;
use crate::measure::workspace::Workspace;
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
            eprintln!(
                "irgate: {runner} {} is there: {} ({})",
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
        eprintln!(
            "irgate: installing {runner} {}: {}",
            library.version,
            command.join(" ")
        );
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .args(&command[1..])
            .stdout(Stdio::null())
            .status()
            .map_err(|e| Error::Tool(format!("cannot start cargo: {e}")))?;
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
        eprintln!(
            "irgate: installed {}; irgate points `cargo bench` at it, so the PATH needs no change",
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
