//! `irgate run`: run the callgrind suite with the determinism settings (or read summaries taken
//! elsewhere) and write the results.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use crate::cli::{Resolved, RunArgs};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::filter::{self, Filter};
use crate::fingerprint;
use crate::model::{Counts, Results};
use crate::report::thousands;
use crate::{results, summary};

/// The `GLIBC_TUNABLES` used when the environment sets none: glibc then never switches memcpy and
/// memset to `rep movsb`/`rep stosb`, whose count is one instruction for any length, so counts
/// track the work done and do not depend on the CPU's thresholds.
pub const DEFAULT_GLIBC_TUNABLES: &str =
    "glibc.cpu.x86_rep_movsb_threshold=4294967295:glibc.cpu.x86_rep_stosb_threshold=4294967295";

/// The cache model given to callgrind, so cache metrics and EstimatedCycles do not depend on what
/// valgrind detects on the host.
pub const CACHE_MODEL: &str = "--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64";

/// Runs `irgate run`.
pub fn execute(args: &RunArgs) -> Result<ExitCode> {
    let paths = args.paths.resolve();
    let config = Config::load_or_default(&paths.config.0, paths.config.1)?;
    let filter = args.filter.as_deref().map(Filter::new).transpose()?;
    let results = if args.from.is_empty() {
        run_suite(args, &paths, &config, filter.as_ref())?
    } else {
        read_from(&args.from, &paths.root, filter.as_ref())?
    };
    results::write(&paths.results, &results)?;
    eprintln!(
        "irgate: wrote {} ({} benchmarks)",
        paths.results.display(),
        results.benchmarks.len()
    );
    let sources = if args.from.is_empty() {
        vec![gungraun_output(args, &paths.root)]
    } else {
        args.from.clone()
    };
    write_profiles(&sources, &paths, &results);
    Ok(ExitCode::SUCCESS)
}

/// Where gungraun writes the suite's files: `$GUNGRAUN_HOME` or `<target>/gungraun`, then
/// `<package>/<bench>`.
fn gungraun_output(args: &RunArgs, root: &Path) -> PathBuf {
    let home = args
        .gungraun_home
        .clone()
        .or_else(|| std::env::var_os("GUNGRAUN_HOME").map(PathBuf::from))
        .unwrap_or_else(|| {
            let target =
                std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| "target".into(), PathBuf::from);
            root.join(target).join("gungraun")
        });
    home.join(&args.package).join(&args.bench)
}

/// Writes the per-function profiles of `results` beside them, read from the callgrind files in
/// `sources` (gungraun output directories) or from the profiles beside results files there. A
/// failure is a warning: profiles explain a verdict, they never decide one.
fn write_profiles(sources: &[PathBuf], paths: &Resolved, results: &Results) {
    let path = crate::profiles::run_path(&paths.results);
    let mut all = crate::profiles::Profiles::default();
    for source in sources {
        let found = if source.is_dir() && !source.join(results::FILE_NAME).is_file() {
            crate::profiles::collect(source, &paths.root, results)
        } else {
            let file = if source.is_dir() {
                source.join(results::FILE_NAME)
            } else {
                source.clone()
            };
            crate::profiles::read_run(&crate::profiles::run_path(&file))
                .map(Option::unwrap_or_default)
        };
        match found {
            Ok(found) => {
                all.benchmarks.extend(found.benchmarks);
                all.stacks.extend(found.stacks);
            }
            Err(error) => eprintln!("irgate: warning: no per-function profiles: {error}"),
        }
    }
    all.benchmarks
        .retain(|id, _| results.benchmarks.contains_key(id));
    all.stacks.retain(|id, _| all.benchmarks.contains_key(id));
    let written = if all.benchmarks.is_empty() {
        std::fs::remove_file(&path)
            .or_else(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    Ok(())
                } else {
                    Err(e)
                }
            })
            .map_err(|source| Error::Write {
                path: path.clone(),
                source,
            })
    } else {
        crate::profiles::write_run(&path, &all)
    };
    match written {
        Ok(()) if !all.benchmarks.is_empty() => eprintln!(
            "irgate: wrote {} (per-function profiles of {} benchmarks)",
            path.display(),
            all.benchmarks.len()
        ),
        Ok(()) => {}
        Err(error) => eprintln!("irgate: warning: {error}"),
    }
}

/// The `GLIBC_TUNABLES` the benchmarks run with: the environment's, else the default.
pub fn glibc_tunables() -> String {
    std::env::var("GLIBC_TUNABLES").unwrap_or_else(|_| DEFAULT_GLIBC_TUNABLES.to_owned())
}

/// Runs the callgrind suite once as `irgate run` does and returns its counts (`irgate noise` runs
/// it repeatedly).
pub fn run_suite(
    args: &RunArgs,
    paths: &Resolved,
    config: &Config,
    filter: Option<&Filter>,
) -> Result<Results> {
    preflight(&paths.root)?;
    let tunables = glibc_tunables();
    let fingerprint = fingerprint::collect(&tunables, &paths.root);
    if fingerprint.aslr != "off" {
        eprintln!(
            "irgate: warning: ASLR could not be disabled (setarch -R failed); recorded as aslr={}",
            fingerprint.aslr
        );
    }

    let listed = list(args, &paths.root)?;
    let expected: BTreeSet<String> = listed
        .iter()
        .filter(|id| filter::in_scope(filter, id))
        .cloned()
        .collect();
    if let Some(filter) = filter.filter(|_| expected.is_empty()) {
        return Err(filter.matched_nothing(listed.iter().map(String::as_str)));
    }
    // gungraun filters on `file::group::function::id`; ours is a glob over `group::function/id`.
    // Brace alternatives have no gungraun equivalent: then everything runs and we filter after.
    let pattern = filter
        .filter(|f| expected.len() < listed.len() && !f.text.contains(['{', '}']))
        .map(|f| format!("*::{}", f.text.replace('/', "::")));

    let mut command = cargo_bench(args, &paths.root);
    command
        .arg("--save-summary=json")
        .arg("--output-format=json")
        .arg("--allow-aslr=no")
        .arg("--envs=GLIBC_TUNABLES")
        // Instruction addresses let `profiles` charge inlined code to its own function.
        .arg(format!("--callgrind-args={CACHE_MODEL} --dump-instr=yes"))
        .args(config.needs_dhat().then_some("--tools=dhat"))
        .args(&pattern)
        .env("GLIBC_TUNABLES", &tunables);
    eprintln!("irgate: running {}", describe(&command));
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Tool(format!("cannot start cargo: {e}")))?;
    let stdout = child.stdout.take().expect("stdout is piped");

    let total = expected.len();
    let width = total.to_string().len();
    let mut benchmarks: BTreeMap<String, Counts> = BTreeMap::new();
    let mut failure = None;
    for (number, line) in BufReader::new(stdout).lines().enumerate() {
        let line = line.map_err(|e| Error::Tool(format!("cannot read cargo bench output: {e}")))?;
        if !line.starts_with('{') {
            eprintln!("{line}");
            continue;
        }
        let origin = format!("cargo bench output, line {}", number + 1);
        let measurement = match summary::parse(line.as_bytes(), &origin) {
            Ok(m) => m,
            Err(e) => {
                failure.get_or_insert(e);
                continue;
            }
        };
        if !filter::in_scope(filter, &measurement.id) {
            continue;
        }
        if benchmarks.contains_key(&measurement.id) {
            failure.get_or_insert(Error::DuplicateId {
                id: measurement.id.clone(),
                first: "cargo bench output".to_owned(),
                second: origin,
            });
            continue;
        }
        eprintln!(
            "[{:>width$}/{total}] {:<48} {:>13} Ir",
            benchmarks.len() + 1,
            measurement.id,
            thousands(measurement.counts["Ir"]),
        );
        benchmarks.insert(measurement.id, measurement.counts);
    }
    let status = child
        .wait()
        .map_err(|e| Error::Tool(format!("cargo bench: {e}")))?;
    if !status.success() {
        return Err(Error::Tool(format!(
            "cargo bench failed ({status}); its output is above"
        )));
    }
    if let Some(error) = failure {
        return Err(error);
    }
    let missing: Vec<&String> = expected
        .iter()
        .filter(|id| !benchmarks.contains_key(*id))
        .collect();
    if !missing.is_empty() {
        return Err(Error::Tool(format!(
            "the suite listed benchmarks that produced no summary: {}",
            missing
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(Results {
        fingerprint,
        filters: filter.map(|f| vec![f.text.clone()]).unwrap_or_default(),
        benchmarks,
    })
}

/// Stops early, with what to do, when valgrind or the right gungraun runner is missing.
fn preflight(root: &Path) -> Result<()> {
    let valgrind = Command::new("valgrind").arg("--version").output();
    if !valgrind.is_ok_and(|out| out.status.success()) {
        return Err(Error::Tool(
            "valgrind is not installed: install the Debian package `valgrind` \
             (apt-get install valgrind), or run the gate in the pinned container \
             (make gate-container)"
                .to_owned(),
        ));
    }
    let Some(library) = locked_version(&root.join("Cargo.lock"), "gungraun")? else {
        return Ok(());
    };
    let install = format!("cargo install gungraun-runner --version {library} --locked");
    match fingerprint::runner_version() {
        None => Err(Error::Tool(format!(
            "gungraun-runner is not installed; it must be the version of the gungraun library in \
             Cargo.lock: {install} (`make gate` does this)"
        ))),
        Some(runner) if runner != library => Err(Error::Tool(format!(
            "gungraun-runner {runner} does not match the gungraun library {library} in \
             Cargo.lock: {install} --force"
        ))),
        Some(_) => Ok(()),
    }
}

/// The version of `package` in a Cargo.lock, if it is there.
pub fn locked_version(lockfile: &Path, package: &str) -> Result<Option<String>> {
    let Ok(text) = std::fs::read_to_string(lockfile) else {
        return Ok(None);
    };
    let lock: toml::Table = toml::from_str(&text)
        .map_err(|e| Error::invalid(lockfile.display(), e.message().to_owned()))?;
    let packages = lock.get("package").and_then(|p| p.as_array());
    Ok(packages.into_iter().flatten().find_map(|p| {
        (p.get("name")?.as_str()? == package)
            .then(|| p.get("version")?.as_str().map(str::to_owned))?
    }))
}

/// `cargo bench -p <package> --bench <bench> [--features F] --`, run from `root`.
fn cargo_bench(args: &RunArgs, root: &Path) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(root)
        .args(["bench", "-p", &args.package, "--bench", &args.bench]);
    if let Some(features) = &args.features {
        command.args(["--features", features]);
    }
    if let Some(home) = &args.gungraun_home {
        command.env("GUNGRAUN_HOME", home);
    }
    command.arg("--");
    command
}

/// The ids of every benchmark in the suite (`cargo bench ... -- --list`), which also builds it.
fn list(args: &RunArgs, root: &Path) -> Result<Vec<String>> {
    let mut command = cargo_bench(args, root);
    command.arg("--list").stderr(Stdio::inherit());
    let output = command
        .output()
        .map_err(|e| Error::Tool(format!("cannot start cargo: {e}")))?;
    if !output.status.success() {
        return Err(Error::Tool(format!(
            "building the suite failed: {} ({})",
            describe(&command),
            output.status
        )));
    }
    let ids: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.strip_suffix(": benchmark"))
        .map(listed_id)
        .collect();
    if ids.is_empty() {
        return Err(Error::Tool(format!(
            "{} lists no benchmark: is `{}` a gungraun suite?",
            describe(&command),
            args.bench
        )));
    }
    Ok(ids)
}

/// `file::group::function[::id]` as gungraun lists it -> `group::function[/id]`.
fn listed_id(module_path: &str) -> String {
    let segments: Vec<&str> = module_path.split("::").collect();
    match segments.as_slice() {
        [_, group, function, id] => format!("{group}::{function}/{id}"),
        _ => summary::benchmark_id(module_path, None),
    }
}

/// Reads results (files, or directories holding results.json) and gungraun summary directories,
/// and merges them.
fn read_from(sources: &[PathBuf], root: &Path, filter: Option<&Filter>) -> Result<Results> {
    let mut parts = Vec::new();
    let mut summaries = Vec::new();
    for source in sources {
        let results_file = source.join(results::FILE_NAME);
        if source.is_file() && source.file_name() == Some(summary::FILE_NAME.as_ref()) {
            summaries.push(source.clone());
        } else if source.is_file() {
            parts.push((source.display().to_string(), results::read(source)?));
        } else if results_file.is_file() {
            parts.push((
                results_file.display().to_string(),
                results::read(&results_file)?,
            ));
        } else if source.is_dir() {
            let found = summary::find(source)?;
            if found.is_empty() {
                return Err(Error::invalid(
                    source.display(),
                    "holds no summary.json and no results.json",
                ));
            }
            summaries.extend(found);
        } else {
            return Err(Error::Read {
                path: source.clone(),
                source: std::io::Error::from(std::io::ErrorKind::NotFound),
            });
        }
    }
    if !summaries.is_empty() {
        eprintln!(
            "irgate: read {} gungraun summaries; they record no environment, so this machine's is \
             recorded with them",
            summaries.len()
        );
        let mut benchmarks = BTreeMap::new();
        let mut origin: BTreeMap<String, PathBuf> = BTreeMap::new();
        for path in summaries {
            let measurement = summary::read(&path)?;
            if let Some(first) = origin.get(&measurement.id) {
                return Err(Error::DuplicateId {
                    id: measurement.id,
                    first: first.display().to_string(),
                    second: path.display().to_string(),
                });
            }
            origin.insert(measurement.id.clone(), path);
            benchmarks.insert(measurement.id, measurement.counts);
        }
        let fingerprint = fingerprint::collect(&glibc_tunables(), root);
        let origins = sources
            .iter()
            .map(|s| s.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        parts.push((
            origins,
            Results {
                fingerprint,
                filters: Vec::new(),
                benchmarks,
            },
        ));
    }
    let mut merged = results::merge(parts)?;
    if let Some(filter) = filter {
        let all: Vec<String> = merged.benchmarks.keys().cloned().collect();
        merged.benchmarks.retain(|id, _| filter.matches(id));
        if merged.benchmarks.is_empty() {
            return Err(filter.matched_nothing(all.iter().map(String::as_str)));
        }
        if merged.filters.is_empty() {
            merged.filters = vec![filter.text.clone()];
        }
    }
    Ok(merged)
}

/// A command as a shell line, for messages.
fn describe(command: &Command) -> String {
    let quote = |s: &std::ffi::OsStr| {
        let s = s.to_string_lossy();
        if s.contains([' ', '*', '\'']) {
            format!("'{s}'")
        } else {
            s.into_owned()
        }
    };
    let envs = command
        .get_envs()
        .filter_map(|(k, v)| Some(format!("{}={}", k.to_string_lossy(), quote(v?))));
    let words = std::iter::once(quote(command.get_program())).chain(command.get_args().map(quote));
    envs.chain(words).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_module_paths_become_ids() {
        assert_eq!(
            listed_id("callgrind::varint::encode::v0"),
            "varint::encode/v0"
        );
        assert_eq!(listed_id("callgrind::filter::alloc"), "filter::alloc");
    }

    #[test]
    fn reads_the_locked_library_version() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("Cargo.lock");
        std::fs::write(
            &lock,
            "version = 4\n\n[[package]]\nname = \"gungraun-runner\"\nversion = \"0.20.0\"\n\n\
             [[package]]\nname = \"gungraun\"\nversion = \"0.20.0\"\n",
        )
        .unwrap();
        assert_eq!(
            locked_version(&lock, "gungraun").unwrap().as_deref(),
            Some("0.20.0")
        );
        assert_eq!(locked_version(&lock, "nothing").unwrap(), None);
        assert_eq!(
            locked_version(&dir.path().join("none"), "gungraun").unwrap(),
            None
        );
    }
}
