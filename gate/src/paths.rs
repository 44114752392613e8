//! Where the gate's files are: gate.toml, the baselines, the results and the files kept beside
//! them, found from the current directory unless given. One home for every path irgate derives:
//! it sits just above [`crate::formats`] (it names their files, they read and write them) and
//! below every layer that opens them (measure, judge, explain, the commands).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};

/// Paths given on the command line; each missing one gets its default.
#[derive(Debug, Clone, Default)]
pub struct Paths {
    /// gate.toml (default: `<root>/gate.toml`).
    pub config: Option<PathBuf>,
    /// The baseline directory (default: `<root>/baselines`).
    pub baselines: Option<PathBuf>,
    /// The results file (default: `<target>/irgate/results.json`).
    pub results: Option<PathBuf>,
}

/// The gate's files, resolved.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The repository root: the nearest directory holding gate.toml, else the Cargo workspace's
    /// root.
    pub root: PathBuf,
    /// gate.toml.
    pub config: PathBuf,
    /// Whether gate.toml was named on the command line (then it must exist).
    pub config_named: bool,
    /// The baseline directory.
    pub baselines: PathBuf,
    /// The results file.
    pub results: PathBuf,
}

impl Paths {
    /// Resolves the defaults against the root found from the current directory.
    pub fn resolve(&self) -> Result<Resolved> {
        self.resolve_with(true)
    }

    /// [`Paths::resolve`] for a command that reads no baselines (`irgate run --from`): outside a
    /// repository, a named results file is enough.
    pub fn resolve_without_baselines(&self) -> Result<Resolved> {
        self.resolve_with(false)
    }

    fn resolve_with(&self, baselines: bool) -> Result<Resolved> {
        let cwd = std::env::current_dir()
            .map_err(|e| Error::Tool(format!("cannot read the current directory: {e}")))?;
        let root = match find_root(&cwd) {
            Ok(root) => root,
            // Named baselines and results need no root (gate.toml then defaults, or is named).
            Err(_) if (self.baselines.is_some() || !baselines) && self.results.is_some() => {
                cwd.clone()
            }
            Err(_) if !baselines => {
                return Err(Error::Tool(format!(
                    "{}: neither in a Cargo workspace nor below a gate.toml: run irgate in your \
                     repository, or name the results file to write (--results)",
                    cwd.display()
                )));
            }
            Err(error) => return Err(error),
        };
        let target = target_dir(&root);
        Ok(Resolved {
            config_named: self.config.is_some(),
            config: self
                .config
                .clone()
                .unwrap_or_else(|| root.join(CONFIG_FILE)),
            baselines: self
                .baselines
                .clone()
                .unwrap_or_else(|| root.join("baselines")),
            results: self.results.clone().unwrap_or_else(|| {
                target
                    .join("irgate")
                    .join(crate::formats::results::FILE_NAME)
            }),
            root,
        })
    }
}

impl Resolved {
    /// The run's per-function profiles, beside its results: `<stem>.profiles.json`.
    pub fn profiles(&self) -> PathBuf {
        self.beside("profiles.json")
    }

    /// The run's code record and code identity, beside its results: `<stem>.code.json`.
    pub fn code_record(&self) -> PathBuf {
        code_record_of(&self.results)
    }

    /// The directory, beside the results, that flame graphs are drawn into.
    pub fn flamegraphs(&self) -> PathBuf {
        self.results.with_file_name(FLAMEGRAPH_DIR)
    }

    /// The base side of `irgate run --base` (A/B): these paths with the results beside the head
    /// side's, `results.json` -> `results.base.json`.
    pub fn base_side(&self) -> Resolved {
        Resolved {
            results: self.beside("base.json"),
            ..self.clone()
        }
    }

    /// `<stem>.<suffix>` beside the results file.
    fn beside(&self, suffix: &str) -> PathBuf {
        beside(&self.results, suffix)
    }

    /// irgate's and the build's own files, relative to the root: the target directory, the
    /// baselines, gate.toml, `.irgate/` and the workflows `irgate init --ci` writes. No benchmark
    /// reads them, so a change to them never counts (`crate::select::rule::between`'s `own`).
    pub fn own(&self) -> Vec<String> {
        let root = &self.root;
        let workflows = WORKFLOWS
            .iter()
            .map(|name| root.join(WORKFLOW_DIR).join(name));
        [
            target_dir(root),
            self.baselines.clone(),
            self.config.clone(),
            root.join(".irgate"),
        ]
        .into_iter()
        .chain(workflows)
        .collect::<Vec<_>>()
        .iter()
        .filter_map(|p| p.strip_prefix(root).ok())
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| !p.is_empty())
        .collect()
    }
}

/// The code record beside any results file (a calibration build's, say): `<stem>.code.json`.
pub fn code_record_of(results: &Path) -> PathBuf {
    beside(results, "code.json")
}

/// `<stem>.<suffix>` beside the results file `results`.
fn beside(results: &Path, suffix: &str) -> PathBuf {
    let stem = results
        .file_stem()
        .map_or_else(|| "results".into(), |s| s.to_string_lossy().into_owned());
    results.with_file_name(format!("{stem}.{suffix}"))
}

/// Cargo's target directory for the workspace at `root` when irgate runs cargo there:
/// `$CARGO_TARGET_DIR` (a relative one taken from `root`, where irgate starts cargo), else
/// `<root>/target`.
pub fn target_dir(root: &Path) -> PathBuf {
    crate::env::cargo_target_dir().map_or_else(|| root.join("target"), |dir| root.join(dir))
}

/// The directory, beside the results file, that flame graphs are drawn into.
const FLAMEGRAPH_DIR: &str = "flamegraphs";

/// Where `irgate init --ci` writes the workflows, relative to the workspace root.
pub const WORKFLOW_DIR: &str = ".github/workflows";

/// The workflows `irgate init --ci` writes, by file name in [`WORKFLOW_DIR`]: the pull request's,
/// the comment's, the refresh's and the history's.
pub const WORKFLOWS: [&str; 4] = [
    "irgate.yml",
    "irgate-comment.yml",
    "irgate-refresh.yml",
    "irgate-history.yml",
];

/// The name of irgate's configuration file.
pub const CONFIG_FILE: &str = "gate.toml";

/// The nearest ancestor of `start` holding gate.toml, searched no higher than the Cargo
/// workspace `start` is in (`cargo locate-project --workspace`) and the git repository's top (a
/// directory holding `.git`): a gate.toml above the project belongs to something else. Else the
/// workspace's root.
pub fn find_root(start: &Path) -> Result<PathBuf> {
    // The usual case, irgate run where gate.toml is, asks cargo nothing: a directory is never
    // above its own workspace or repository.
    if start.join(CONFIG_FILE).is_file() {
        return Ok(start.to_owned());
    }
    let workspace = workspace_root(start);
    for dir in start.ancestors() {
        if dir.join(CONFIG_FILE).is_file() {
            return Ok(dir.to_owned());
        }
        if Some(dir) == workspace.as_deref() || dir.join(".git").exists() {
            break;
        }
    }
    workspace.ok_or_else(|| {
        Error::Tool(format!(
            "{}: neither in a Cargo workspace nor below a {CONFIG_FILE}: run irgate in your \
             repository (or pass --config, --baselines and --results)",
            start.display()
        ))
    })
}

/// The root of the Cargo workspace `start` is in, when cargo finds one.
fn workspace_root(start: &Path) -> Option<PathBuf> {
    let output = Command::new(crate::env::cargo())
        .args(["locate-project", "--workspace", "--message-format", "plain"])
        .current_dir(start)
        .output()
        .ok()
        .filter(|out| out.status.success())?;
    let manifest = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    Some(
        manifest
            .parent()
            .map(Path::to_owned)
            .unwrap_or_else(|| start.to_owned()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(results: &str) -> Resolved {
        Resolved {
            root: "/r".into(),
            config: "/r/gate.toml".into(),
            config_named: false,
            baselines: "/r/baselines".into(),
            results: results.into(),
        }
    }

    #[test]
    fn the_derived_files_sit_beside_the_results() {
        let paths = at("t/irgate/results.json");
        assert_eq!(
            paths.profiles(),
            Path::new("t/irgate/results.profiles.json")
        );
        assert_eq!(paths.code_record(), Path::new("t/irgate/results.code.json"));
        assert_eq!(paths.flamegraphs(), Path::new("t/irgate/flamegraphs"));
        let base = paths.base_side();
        assert_eq!(base.results, Path::new("t/irgate/results.base.json"));
        assert_eq!(
            base.profiles(),
            Path::new("t/irgate/results.base.profiles.json")
        );
        assert_eq!(base.baselines, paths.baselines);
        assert_eq!(
            at("/w/slow.json").base_side().results,
            Path::new("/w/slow.base.json")
        );
    }

    #[test]
    fn a_gate_toml_above_the_repository_or_the_workspace_is_not_the_projects() {
        let dir = tempfile::tempdir().unwrap();
        let outer = dir.path();
        std::fs::write(outer.join(CONFIG_FILE), "").unwrap();
        // A workspace in a git checkout below it, with no gate.toml of its own.
        let repo = outer.join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src")).unwrap();
        std::fs::write(
            repo.join("Cargo.toml"),
            "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .unwrap();
        std::fs::write(repo.join("src/lib.rs"), "").unwrap();
        assert_eq!(find_root(&repo.join("src")).unwrap(), repo);
        // Outside git, the workspace's root bounds the search.
        std::fs::remove_dir(repo.join(".git")).unwrap();
        assert_eq!(find_root(&repo.join("src")).unwrap(), repo);
        // Its own gate.toml, in the workspace, is found from below.
        std::fs::write(repo.join(CONFIG_FILE), "").unwrap();
        assert_eq!(find_root(&repo.join("src")).unwrap(), repo);
        // A checkout that is no workspace (baselines and gate.toml only): its gate.toml.
        let plain = outer.join("plain");
        std::fs::create_dir_all(plain.join(".git")).unwrap();
        std::fs::create_dir_all(plain.join("sub")).unwrap();
        std::fs::write(plain.join(CONFIG_FILE), "").unwrap();
        assert_eq!(find_root(&plain.join("sub")).unwrap(), plain);
    }

    #[test]
    fn irgates_own_files_include_what_init_writes() {
        let own = at("/r/target/irgate/results.json").own();
        for path in [
            "baselines",
            "gate.toml",
            ".irgate",
            ".github/workflows/irgate.yml",
            ".github/workflows/irgate-comment.yml",
            ".github/workflows/irgate-refresh.yml",
            ".github/workflows/irgate-history.yml",
        ] {
            assert!(own.iter().any(|o| o == path), "{path} not in {own:?}");
        }
        // The user's own workflows are not irgate's.
        assert!(
            !own.iter()
                .any(|o| o == ".github/workflows" || o == ".github")
        );
    }
}
