//! What `irgate init --ci` sets up beside gate.toml: the toolchain the pinned image installs, the
//! branch the history records, the image pins and the GitHub workflows, with irgate's action
//! pinned by commit.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};
use crate::measure::library::Library;

/// The commit of this irgate's release tag, when the build was told it: the release workflow
/// builds the release binary at the tag with `IRGATE_RELEASE_SHA` set to `github.sha`. Any
/// other build (from crates.io, a checkout) cannot know it.
const RELEASE_SHA: Option<&str> = option_env!("IRGATE_RELEASE_SHA");

/// What the workflows name in place of the action's commit when irgate does not know it: not a
/// ref GitHub can resolve, so a workflow that still holds it fails at its start ("Unable to resolve
/// action") until the user writes the commit in.
pub const ACTION_PLACEHOLDER: &str = "PIN-TO-THE-COMMIT-OF-";

/// The action the workflows use, pinned by a full commit SHA like every other action they use,
/// with the release tag as a trailing comment: irgate's repository (the package's `repository`,
/// one place to change it) at the commit of the tag of this irgate's version, whose release holds
/// the binary the action downloads. When this build does not know that commit (`RELEASE_SHA`),
/// [`ACTION_PLACEHOLDER`] and the tag stand in its place, with how to find it in the comment.
pub fn action() -> String {
    action_at(RELEASE_SHA)
}

/// [`action`] with the release commit `sha`, if known (40 hex digits).
fn action_at(sha: Option<&str>) -> String {
    let repository = env!("CARGO_PKG_REPOSITORY");
    let name = repository
        .strip_prefix("https://github.com/")
        .unwrap_or(repository);
    let tag = concat!("v", env!("CARGO_PKG_VERSION"));
    match sha.filter(|sha| sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit())) {
        Some(sha) => format!("{name}@{} # {tag}", sha.to_ascii_lowercase()),
        None => format!(
            "{name}@{ACTION_PLACEHOLDER}{tag} # {tag}: write in the commit of irgate's tag {tag} \
             (git ls-remote https://github.com/{name} '{tag}*': the `^{{}}` line's hash if there \
             is one, else the tag's)"
        ),
    }
}

/// What the user must do about [`action`] before the workflows run, if anything.
fn action_note() -> Option<String> {
    let action = action();
    action.contains(ACTION_PLACEHOLDER).then(|| {
        let tag = concat!("v", env!("CARGO_PKG_VERSION"));
        format!(
            "this irgate was not built by irgate's release, so it cannot know the commit of its \
             tag {tag}: the workflows name irgate's action as `{ACTION_PLACEHOLDER}{tag}`, which \
             fails every run until you replace it with that commit's full SHA (every other \
             action is pinned by SHA too; the comment on each such line says how to find it)"
        )
    })
}

/// Where `--ci` writes the image pins, relative to the workspace root.
pub const IMAGE_PINS: &str = ".irgate/image.env";

const PR_WORKFLOW: &str = include_str!("../../templates/irgate.yml");
const COMMENT_WORKFLOW: &str = include_str!("../../templates/irgate-comment.yml");
const REFRESH_WORKFLOW: &str = include_str!("../../templates/irgate-refresh.yml");
const HISTORY_WORKFLOW: &str = include_str!("../../templates/irgate-history.yml");

/// What `--ci` writes, and what the user should know about it.
pub struct CiFiles {
    /// The image pins and the workflows, by path.
    pub files: Vec<(PathBuf, String)>,
    /// Choices made for the user (the toolchain, the branch).
    pub notes: Vec<String>,
    /// The branch the history workflow records.
    pub branch: String,
}

/// The image pins and the workflows for the workspace at `root`, checked before anything runs.
pub fn ci_files(root: &Path, libraries: &[Library], branch: Option<&str>) -> Result<CiFiles> {
    let toolchain = toolchain(root)?;
    let (branch, branch_source) = default_branch(root, branch)?;
    let mut files = vec![(
        root.join(IMAGE_PINS),
        image_pins(&toolchain.channel, libraries)?,
    )];
    for (name, template) in crate::paths::WORKFLOWS.into_iter().zip([
        PR_WORKFLOW,
        COMMENT_WORKFLOW,
        REFRESH_WORKFLOW,
        HISTORY_WORKFLOW,
    ]) {
        let path = root.join(crate::paths::WORKFLOW_DIR).join(name);
        let text = template
            .replace("{{ACTION}}", &action())
            .replace("{{BRANCH}}", &branch);
        files.push((path, text));
    }
    let mut notes: Vec<String> = toolchain.note.into_iter().collect();
    notes.extend(action_note());
    notes.push(format!(
        "the history workflow records pushes to `{branch}` ({branch_source}; --default-branch \
         names another)"
    ));
    Ok(CiFiles {
        files,
        notes,
        branch,
    })
}

/// The pins of the pinned image for this repository: its toolchain and the runner of its
/// suites' library.
fn image_pins(toolchain: &str, libraries: &[Library]) -> Result<String> {
    let mut distinct: Vec<&Library> = libraries.iter().collect();
    distinct.sort();
    distinct.dedup();
    let [library] = distinct.as_slice() else {
        return Err(Error::Tool(format!(
            "the suites use {} libraries ({}): the pinned image holds one runner; run those \
             suites separately",
            distinct.len(),
            distinct
                .iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    };
    Ok(format!(
        "# The pinned image's build arguments for this repository (irgate's Dockerfile), written\n\
         # by `irgate init --ci`. The toolchain is the image's own (rust-toolchain.toml's when it\n\
         # names an exact one); the runner is the exact version of the suites' library. Change\n\
         # them on purpose: counts change with them.\n\
         RUST_TOOLCHAIN={toolchain}\nRUNNER_CRATE={}\nRUNNER_VERSION={}\n",
        library.kind.runner(),
        library.version
    ))
}

/// The toolchain the pinned image installs, and a note when it is not the repository's own pin.
#[derive(Debug, PartialEq)]
struct Toolchain {
    /// An exact toolchain: `1.95.0`, `nightly-2026-11-01`.
    channel: String,
    /// What the choice means for the user, when the repository does not pin it exactly.
    note: Option<String>,
}

/// The image's toolchain: the channel of `root/rust-toolchain.toml` (or `rust-toolchain`) when
/// it is exact, else the toolchain in use in `root` (counts change with the compiler, so the
/// image needs an exact one; rust-toolchain.toml is left alone, since it would change every
/// contributor's toolchain).
fn toolchain(root: &Path) -> Result<Toolchain> {
    let local = "local runs use the toolchain rustup picks, and their counts compare only with \
                 baselines taken with the same rustc (`irgate doctor` shows it); the baselines \
                 CI gates with are taken in the image";
    match toolchain_file(root)? {
        Some((_, channel)) if is_exact(&channel) => Ok(Toolchain {
            channel,
            note: None,
        }),
        Some((file, channel)) => {
            let used = toolchain_in_use(root)?;
            Ok(Toolchain {
                note: Some(format!(
                    "{file} names `{channel}`, not an exact toolchain: the pinned image uses \
                     {used}, the one it selects here now ({IMAGE_PINS}, RUST_TOOLCHAIN); {local}",
                    file = file.display()
                )),
                channel: used,
            })
        }
        None => {
            let used = toolchain_in_use(root)?;
            Ok(Toolchain {
                note: Some(format!(
                    "no rust-toolchain.toml: the pinned image uses Rust {used}, the toolchain in \
                     use here, pinned in {IMAGE_PINS} (RUST_TOOLCHAIN) only, so contributors' \
                     toolchains are unchanged; {local}. Change it there on purpose: counts \
                     change with it"
                )),
                channel: used,
            })
        }
    }
}

/// Whether a toolchain channel names one exact toolchain: a full version, or a dated channel.
fn is_exact(channel: &str) -> bool {
    let dated = |rest: &str| {
        rest.len() == 10
            && rest.char_indices().all(|(i, c)| {
                if i == 4 || i == 7 {
                    c == '-'
                } else {
                    c.is_ascii_digit()
                }
            })
    };
    semver::Version::parse(channel).is_ok_and(|v| v.pre.is_empty())
        || ["nightly-", "beta-"]
            .iter()
            .any(|prefix| channel.strip_prefix(prefix).is_some_and(dated))
}

/// The file and channel of `root/rust-toolchain.toml` (or `rust-toolchain`), if there is one.
fn toolchain_file(root: &Path) -> Result<Option<(PathBuf, String)>> {
    for name in ["rust-toolchain.toml", "rust-toolchain"] {
        let path = root.join(name);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if let Ok(table) = toml::from_str::<toml::Table>(&text) {
            if let Some(channel) = table
                .get("toolchain")
                .and_then(|t| t.get("channel"))
                .and_then(|c| c.as_str())
            {
                return Ok(Some((path, channel.to_owned())));
            }
        } else if !text.trim().is_empty() && !text.contains('[') {
            return Ok(Some((path, text.trim().to_owned())));
        }
        return Err(Error::invalid(
            path.display(),
            "no `[toolchain] channel`: the pinned image needs an exact toolchain",
        ));
    }
    Ok(None)
}

/// The release of the toolchain `rustc` is in `root` (`1.95.0`); an error for a nightly or beta,
/// whose exact name rustc does not print.
fn toolchain_in_use(root: &Path) -> Result<String> {
    let output = Command::new("rustc")
        .arg("--version")
        .current_dir(root)
        .output()
        .map_err(|e| Error::Tool(format!("cannot run rustc --version: {e}")))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.trim();
    match line.split_whitespace().nth(1).map(semver::Version::parse) {
        Some(Ok(version)) if output.status.success() && version.pre.is_empty() => {
            Ok(version.to_string())
        }
        _ => Err(Error::Tool(format!(
            "the toolchain in use here is `{line}`, not a release the pinned image can install \
             by version: pin an exact one (rust-toolchain.toml with `channel = \"1.95.0\"` or \
             `\"nightly-2026-11-01\"`), then run `irgate init --ci` again"
        ))),
    }
}

/// The branch the history workflow records, and how it was chosen: the one given, else origin's
/// HEAD, else the one of `main` and `master` that exists, else the current branch.
fn default_branch(root: &Path, given: Option<&str>) -> Result<(String, String)> {
    let git = |args: &[&str]| crate::git::stdout(root, args);
    let (branch, source) = if let Some(branch) = given {
        (branch.to_owned(), "as given".to_owned())
    } else if let Some(remote) = git(&[
        "symbolic-ref",
        "--quiet",
        "--short",
        "refs/remotes/origin/HEAD",
    ]) && let Some(branch) = remote.strip_prefix("origin/")
    {
        (branch.to_owned(), "origin's default branch".to_owned())
    } else if let Some(local) = git(&[
        "for-each-ref",
        "--format=%(refname:short)",
        "refs/heads/main",
        "refs/heads/master",
    ])
    .filter(|names| names.lines().count() == 1)
    {
        (
            local,
            "the repository's branch of the two usual names".to_owned(),
        )
    } else if let Some(current) = git(&["symbolic-ref", "--quiet", "--short", "HEAD"]) {
        (current, "the current branch".to_owned())
    } else {
        return Err(Error::Tool(format!(
            "{}: cannot tell the repository's default branch (no origin HEAD, no `main` or \
             `master`, no current branch): name it with --default-branch",
            root.display()
        )));
    };
    let plain = |c: char| c.is_ascii_alphanumeric() || "._/-".contains(c);
    if branch.is_empty() || branch.starts_with('-') || !branch.chars().all(plain) {
        return Err(Error::Tool(format!(
            "default branch {branch:?}: irgate writes branch names of letters, digits and `._/-` \
             only into workflows"
        )));
    }
    Ok((branch, source))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::for_tests as git;

    #[test]
    fn the_workflows_use_the_action_at_this_version() {
        for template in [
            PR_WORKFLOW,
            COMMENT_WORKFLOW,
            REFRESH_WORKFLOW,
            HISTORY_WORKFLOW,
        ] {
            assert!(template.contains("uses: {{ACTION}}"), "{template}");
            assert!(
                !template.contains("uses: ./"),
                "a user's repository is not irgate"
            );
        }
        let tag = concat!("v", env!("CARGO_PKG_VERSION"));
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let pinned = action_at(Some(sha));
        let (name, rest) = pinned.split_once('@').unwrap();
        assert_eq!(name.split('/').count(), 2, "{pinned}");
        assert_eq!(rest, format!("{sha} # {tag}"));
        // Without the release's commit: a placeholder no ref resolves to, never the movable tag.
        for unknown in [None, Some("v0.1.0"), Some("0123abc")] {
            let placeholder = action_at(unknown);
            let (_, rest) = placeholder.split_once('@').unwrap();
            let (reference, comment) = rest.split_once(" # ").unwrap();
            assert_eq!(reference, format!("{ACTION_PLACEHOLDER}{tag}"));
            assert!(comment.starts_with(tag) && comment.contains("git ls-remote"));
        }
        // Every action the workflows use is pinned by a commit SHA (or holds the placeholder).
        for template in [
            PR_WORKFLOW,
            COMMENT_WORKFLOW,
            REFRESH_WORKFLOW,
            HISTORY_WORKFLOW,
        ] {
            let text = template.replace("{{ACTION}}", &action_at(None));
            for line in text.lines().filter(|l| l.trim_start().starts_with("uses:")) {
                let reference = line.split_once('@').unwrap().1;
                let reference = reference.split(' ').next().unwrap();
                assert!(
                    (reference.len() == 40 && reference.bytes().all(|b| b.is_ascii_hexdigit()))
                        || reference.starts_with(ACTION_PLACEHOLDER),
                    "not pinned by SHA: {line}"
                );
            }
        }
        assert!(action_note().is_some() == RELEASE_SHA.is_none());
    }

    /// The workflows as `init --ci` writes them (the action's pin, which depends on the build,
    /// replaced): selection on for pull requests, every benchmark measured on a push and in a
    /// refresh.
    #[test]
    fn the_workflows_select_on_pull_requests_and_measure_everything_on_pushes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("rust-toolchain.toml"),
            "[toolchain]\nchannel = \"1.95.0\"\n",
        )
        .unwrap();
        let library = Library {
            kind: crate::measure::library::Kind::Gungraun,
            version: semver::Version::new(0, 20, 0),
        };
        let ci = ci_files(dir.path(), &[library], Some("main")).unwrap();
        let written = |name: &str| -> String {
            let path = dir.path().join(".github/workflows").join(name);
            let (_, text) = ci.files.iter().find(|(p, _)| *p == path).unwrap();
            text.replace(&action(), "OWNER/irgate@SHA # vX.Y.Z")
        };
        let pr = written("irgate.yml");
        let history = written("irgate-history.yml");
        let refresh = written("irgate-refresh.yml");
        // Every use of the action says what it runs: the pull request's check selects, the
        // history's measures everything, a refresh runs everything whatever the input says.
        let inputs = |text: &str| -> Vec<String> {
            text.lines()
                .map(str::trim)
                .filter(|l| l.starts_with("mode:") || l.starts_with("only-touched:"))
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(inputs(&pr), ["mode: check", "only-touched: \"true\""]);
        assert_eq!(
            inputs(&history),
            ["mode: check", "only-touched: \"false\"", "mode: history"]
        );
        assert_eq!(inputs(&refresh), ["mode: refresh"]);
        insta::assert_snapshot!("init_ci_pull_request_workflow", pr);
        insta::assert_snapshot!("init_ci_history_workflow", history);
    }

    #[test]
    fn only_exact_toolchains_are_pinned_as_named() {
        for exact in ["1.95.0", "nightly-2026-11-01", "beta-2026-01-31"] {
            assert!(is_exact(exact), "{exact}");
        }
        for loose in [
            "stable",
            "1.95",
            "nightly",
            "1.95.0-beta.1",
            "nightly-2026-1-1",
        ] {
            assert!(!is_exact(loose), "{loose}");
        }
    }

    #[test]
    fn without_a_toolchain_file_the_image_pins_the_toolchain_in_use() {
        let dir = tempfile::tempdir().unwrap();
        let toolchain = toolchain(dir.path()).unwrap();
        let version = semver::Version::parse(&toolchain.channel).unwrap();
        assert!(version.pre.is_empty(), "{version}");
        let note = toolchain.note.unwrap();
        assert!(
            note.contains("no rust-toolchain.toml") && note.contains("contributors' toolchains"),
            "{note}"
        );

        std::fs::write(
            dir.path().join("rust-toolchain.toml"),
            "[toolchain]\nchannel = \"1.93.1\"\n",
        )
        .unwrap();
        let pinned = toolchain_file(dir.path()).unwrap().unwrap().1;
        assert_eq!(pinned, "1.93.1");
    }

    #[test]
    fn the_history_follows_the_repositorys_default_branch() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "--quiet"]);
        // Nothing committed: the current branch.
        assert_eq!(default_branch(dir.path(), None).unwrap().0, "trunk");
        git(dir.path(), &["checkout", "--quiet", "-b", "master"]);
        git(
            dir.path(),
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "--quiet",
                "--allow-empty",
                "-m",
                "c",
            ],
        );
        git(dir.path(), &["checkout", "--quiet", "-b", "feature"]);
        let (branch, why) = default_branch(dir.path(), None).unwrap();
        assert_eq!(branch, "master", "{why}");
        assert_eq!(
            default_branch(dir.path(), Some("develop")).unwrap().0,
            "develop"
        );
        let error = default_branch(dir.path(), Some("x]\n  evil: y"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("letters, digits"), "{error}");

        let text = HISTORY_WORKFLOW.replace("{{BRANCH}}", &branch);
        assert!(text.contains("branches: [\"master\"]"), "{text}");
        assert!(!text.contains("main"), "{text}");
    }
}
