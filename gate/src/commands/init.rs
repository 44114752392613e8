//! `irgate init`: find a workspace's callgrind suites, write gate.toml with budgets chosen for the
//! sizes measured, and on request the GitHub workflows and the pinned image's pins.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::config::Config;
use crate::config::budgets::DEFAULT_BUDGET;
use crate::config::suite::Suite;
use crate::error::{Error, Result};
use crate::formats;
use crate::measure::calibrate::Spread;
use crate::measure::collect;
use crate::measure::library::Library;
use crate::measure::paths::{CONFIG_FILE, Paths};
use crate::measure::suite;
use crate::measure::workspace::Workspace;
use crate::model::{Budget, Results};
use crate::text::{print, thousands};

/// What `irgate init` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Also write the GitHub workflows and the image pins.
    pub ci: bool,
    /// Run the suites once to choose the budget from their sizes.
    pub run: bool,
    /// Also calibrate (with `run`): the budgets of what code layout moves, per benchmark.
    pub calibrate: bool,
    /// Overwrite files that exist.
    pub force: bool,
    /// The branch the history workflow records (default: the repository's default branch).
    pub default_branch: Option<String>,
}

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

/// Runs `irgate init` in the workspace of the current directory.
pub fn execute(options: &Options) -> Result<ExitCode> {
    let cwd = std::env::current_dir()
        .map_err(|e| Error::Tool(format!("cannot read the current directory: {e}")))?;
    let workspace = Workspace::load(&cwd)?;
    let root = workspace.root.clone();

    let suites = suite::resolve(&[], &workspace)?;
    let libraries = suites
        .iter()
        .map(|s| s.library(&workspace))
        .collect::<Result<Vec<Library>>>()?;
    let mut found = format!(
        "irgate init: {} callgrind suite(s) in {}:\n",
        suites.len(),
        root.display()
    );
    for (suite, library) in suites.iter().zip(&libraries) {
        let features = if suite.features.is_empty() {
            String::new()
        } else {
            format!(", features {}", suite.features.join(","))
        };
        let _ = writeln!(found, "  {} ({library}{features})", suite.name());
    }
    print(&found);

    // Everything that can be checked is checked before the suites are built and run.
    let ci = if options.ci {
        Some(ci_files(
            &root,
            &libraries,
            options.default_branch.as_deref(),
        )?)
    } else {
        None
    };
    let mut planned = vec![root.join(CONFIG_FILE)];
    planned.extend(
        ci.iter()
            .flat_map(|c| c.files.iter().map(|(path, _)| path.clone())),
    );
    if !options.force
        && let Some(existing) = planned.iter().find(|path| path.exists())
    {
        return Err(Error::Tool(format!(
            "{} exists: irgate is set up here already, and init does not overwrite it (--force \
             does); nothing was run or written",
            existing.display()
        )));
    }

    let mut checkout = None;
    let (limit, why) = if options.run {
        let mut config = Config::default();
        config.suites = suites.clone();
        let paths = Paths::default().resolve()?;
        let results =
            collect::run_suites(&config, &collect::Selection::default(), &paths, None, None)?;
        collect::save(&paths, &results)?;
        print(&format!(
            "irgate init: ran {} benchmarks: `irgate refresh` turns them into baselines\n",
            results.benchmarks.len()
        ));
        let chosen = chosen_budget(&results);
        checkout = Some(results);
        chosen
    } else {
        (
            DEFAULT_BUDGET,
            "the default (the suites were not run: --no-run)".to_owned(),
        )
    };
    // The first budgets already hold what code layout moves (#26): the default becomes the
    // calibrated floor, and every benchmark measured gets its own budget.
    let calibration = if options.run && options.calibrate {
        Some(calibrate_suites(&suites, checkout.as_ref())?)
    } else {
        None
    };
    let (limit, why) = match &calibration {
        Some(calibration) => calibrated_budget(&calibration.spreads),
        None => (limit, why),
    };
    let mut config_text = gate_toml(&suites, &limit, &why);
    if let Some(calibration) = &calibration {
        // Benchmarks whose build is not reproducible are written as `info`, with why: the first
        // gate passes on them, and the comment says what to fix.
        config_text = crate::commands::calibrate::write_budgets(
            &config_text,
            &root.join(CONFIG_FILE),
            calibration,
            true,
        )?;
    }
    let mut files = vec![(root.join(CONFIG_FILE), config_text)];
    let mut notes = Vec::new();
    let mut branch = None;
    if let Some(ci) = ci {
        files.extend(ci.files);
        notes.extend(ci.notes);
        branch = Some(ci.branch);
    }
    for (path, text) in &files {
        formats::write_atomic(path, text.as_bytes())?;
        print(&format!("irgate init: wrote {}\n", relative(path, &root)));
    }
    // Files git ignores would be left out of `git add` without a word.
    let written: Vec<PathBuf> = files.iter().map(|(path, _)| path.clone()).collect();
    let ignored = crate::commands::warn_ignored(&root, &written);
    for note in &notes {
        print(&format!("\nNote: {note}\n"));
    }
    print(&next_steps(options.run, branch.as_deref()));
    for warning in &ignored {
        print(&format!("  Careful: {warning}\n"));
    }
    Ok(ExitCode::SUCCESS)
}

/// What `--ci` writes, and what the user should know about it.
struct CiFiles {
    /// The image pins and the workflows, by path.
    files: Vec<(PathBuf, String)>,
    /// Choices made for the user (the toolchain, the branch).
    notes: Vec<String>,
    /// The branch the history workflow records.
    branch: String,
}

/// The image pins and the workflows for the workspace at `root`, checked before anything runs.
fn ci_files(root: &Path, libraries: &[Library], branch: Option<&str>) -> Result<CiFiles> {
    let toolchain = toolchain(root)?;
    let (branch, branch_source) = default_branch(root, branch)?;
    let mut files = vec![(
        root.join(IMAGE_PINS),
        image_pins(&toolchain.channel, libraries)?,
    )];
    for (name, template) in [
        ("irgate.yml", PR_WORKFLOW),
        ("irgate-comment.yml", COMMENT_WORKFLOW),
        ("irgate-refresh.yml", REFRESH_WORKFLOW),
        ("irgate-history.yml", HISTORY_WORKFLOW),
    ] {
        let path = root.join(".github/workflows").join(name);
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

/// Calibration as `init` runs it: the reproducibility check alone, the working tree built twice
/// from nothing at one path of the checkout's length and run ([`Variant::REPRODUCIBILITY`]),
/// compared by count and by the code identity of the functions each benchmark executed. The
/// perturbed builds (`version`, `unrelated`) moved no count of the measurement build (0 of 132
/// here, 0 of 24 in the layout fixture: docs/calibration.md), and with exact selection a
/// benchmark that runs none of a change's code is held to the address budget (`[layout]`)
/// anyway, so `init` leaves them to `irgate calibrate`. Says how long it took.
///
/// [`Variant::REPRODUCIBILITY`]: crate::measure::calibrate::Variant::REPRODUCIBILITY
fn calibrate_suites(
    suites: &[Suite],
    checkout: Option<&Results>,
) -> Result<crate::commands::calibrate::Calibration> {
    use crate::measure::calibrate::Variant;
    let started = std::time::Instant::now();
    print(
        "irgate init: calibrating: is the build reproducible? The suites built twice more from \
         nothing, at a path as long as this checkout's, and run (skip: --no-calibrate, then \
         `irgate calibrate --write` any time)\n",
    );
    let mut config = Config::default();
    config.suites = suites.to_vec();
    let paths = Paths::default().resolve()?;
    let builds = crate::measure::calibrate::measure(
        &config,
        &paths,
        &collect::Selection::default(),
        Variant::REPRODUCIBILITY,
    )?;
    let calibration = crate::commands::calibrate::Calibration::of(&builds)?;
    print(&calibration.render());
    if let (Some(checkout), Some(base)) = (checkout, builds.first()) {
        print(&path_check(checkout, &base.results, &calibration));
    }
    print(&format!(
        "irgate init: calibrated in {}\n",
        crate::text::duration(started.elapsed().as_secs_f64())
    ));
    Ok(calibration)
}

/// A warning naming the reproducible benchmarks whose count differs between the checkout and the
/// first scratch build (same tree, a path of the same length): the path moved them after all,
/// and no budget is widened for it; empty when none did.
fn path_check(
    checkout: &Results,
    copy: &Results,
    calibration: &crate::commands::calibrate::Calibration,
) -> String {
    let unreproducible = calibration.unreproducible.ids();
    let moved: Vec<String> = checkout
        .benchmarks
        .iter()
        .filter(|(id, _)| !unreproducible.contains(*id))
        .filter_map(|(id, counts)| {
            let here = *counts.get(crate::config::metrics::IR)?;
            let there = *copy.benchmarks.get(id)?.get(crate::config::metrics::IR)?;
            (here != there).then(|| {
                format!(
                    "{} ({} Ir here, {} Ir in the copy)",
                    crate::text::terminal(id),
                    thousands(here),
                    thousands(there)
                )
            })
        })
        .collect();
    if moved.is_empty() {
        return String::new();
    }
    format!(
        "irgate init: warning: {} counted differently in this checkout and in a copy at a path of \
         the same length: {}. The calibrated budgets do not hold this; take the baselines in one \
         place (CI's checkout path) and tell irgate's maintainers.\n",
        crate::text::plural(moved.len(), "benchmark"),
        moved.join(", ")
    )
}

/// The default budget after calibration: the largest per-benchmark budget it suggests (1.5 times
/// the largest Ir shift seen, at least 1 Ir), with no relative part, which on large benchmarks
/// would only let regressions through that layout never produced (docs/reports/real-repos.md).
fn calibrated_budget(spreads: &[Spread]) -> (Budget, String) {
    let absolute = spreads.iter().map(Spread::suggested).max().unwrap_or(1);
    (
        Budget {
            relative_pct: 0.0,
            absolute,
        },
        format!(
            "calibrated: the largest budget calibration gave the {} (1.5 times the largest Ir \
             shift seen, at least 1 Ir), no relative part",
            crate::text::plural(spreads.len(), "benchmark")
        ),
    )
}

/// The budget for the sizes measured: +1%, and at least 5% of the smallest benchmark's Ir (from 1
/// to 50 Ir), so that +10% on the smallest fails and one instruction moved by layout passes.
fn chosen_budget(results: &Results) -> (Budget, String) {
    let smallest = results
        .benchmarks
        .iter()
        .filter_map(|(id, counts)| Some((id, *counts.get("Ir")?)))
        .min_by_key(|(_, ir)| *ir);
    match smallest {
        Some((id, ir)) => (
            Budget {
                relative_pct: 1.0,
                absolute: (ir / 20).clamp(1, 50),
            },
            format!(
                "5% of the smallest benchmark measured, {id} at {} Ir (at least 1, at most 50)",
                thousands(ir)
            ),
        ),
        None => (DEFAULT_BUDGET, "the default".to_owned()),
    }
}

/// The text of gate.toml.
fn gate_toml(suites: &[Suite], limit: &Budget, why: &str) -> String {
    let mut out = String::from(
        "# irgate's configuration, written by `irgate init` (`irgate --help`, and irgate's\n\
         # docs/gate.md, \"Budgets\").\n\
         #\n\
         # The callgrind suites `irgate run` runs: bench targets written with gungraun or\n\
         # iai-callgrind. `features` builds a suite with cargo features; `args` adds runner\n\
         # arguments after irgate's own.\n",
    );
    for suite in suites {
        let _ = write!(
            out,
            "\n[[suite]]\npackage = {}\nbench = {}\n",
            toml_string(&suite.package),
            toml_string(&suite.bench)
        );
        if !suite.features.is_empty() {
            let list: Vec<String> = suite.features.iter().map(|f| toml_string(f)).collect();
            let _ = writeln!(out, "features = [{}]", list.join(", "));
        }
    }
    let _ = write!(
        out,
        "\n# A gated metric of a benchmark fails the gate when it grows by more than the larger of\n\
         # `relative_pct` percent of its baseline and `absolute` counts. The absolute slack is\n\
         # {why}.\n\
         # A +10% change of that benchmark fails; one instruction moved by code layout passes.\n\
         # Per-benchmark budgets go in [[overrides]] (globs over benchmark ids).\n\
         [budgets]\nIr = {{ relative_pct = {:?}, absolute = {} }}\n",
        limit.relative_pct, limit.absolute
    );
    out
}

/// `"text"` as a TOML basic string.
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
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

fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// What to do after init: `ran` when the suites ran, `branch` the history's branch with --ci.
fn next_steps(ran: bool, branch: Option<&str>) -> String {
    let mut out = String::from("\nNext steps:\n");
    if ran {
        out.push_str(
            "  irgate refresh                 take the baselines from the run above (baselines/)\n",
        );
    } else {
        out.push_str("  irgate run --record && irgate refresh   take the baselines and the code record (baselines/)\n");
    }
    out.push_str(
        "  git add gate.toml baselines/   commit them: that is how counts are accepted\n\
         \x20 irgate run && irgate check     the gate, after every change\n",
    );
    match branch {
        Some(branch) => {
            let _ = write!(
                out,
                "  CI: commit .github/workflows/irgate*.yml and .irgate/image.env; take the baselines in\n\
                 \x20   CI's pinned image (the 'irgate refresh' workflow), since counts compare only\n\
                 \x20   within one environment; the 'irgate history' workflow records every push to\n\
                 \x20   {branch} and draws the dashboard (repository variable IRGATE_PAGES=true\n\
                 \x20   publishes it)\n"
            );
        }
        None => out.push_str("  irgate init --ci --force       also write the GitHub workflows\n"),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::for_tests as git;
    use crate::model::Counts;

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

    #[test]
    fn the_budget_follows_the_smallest_benchmark() {
        let results = |irs: &[u64]| Results {
            benchmarks: irs
                .iter()
                .enumerate()
                .map(|(i, ir)| (format!("g::f/{i}"), Counts::from([("Ir".to_owned(), *ir)])))
                .collect(),
            ..Results::default()
        };
        let (limit, why) = chosen_budget(&results(&[20, 5_000]));
        assert_eq!(limit.absolute, 1);
        assert!(why.contains("g::f/0 at 20 Ir"), "{why}");
        // +10% of 20 Ir fails, +1 Ir passes.
        assert!(crate::config::budgets::allowance(&limit, 20) < 2.0);
        assert!(crate::config::budgets::allowance(&limit, 20) >= 1.0);
        assert_eq!(chosen_budget(&results(&[300])).0.absolute, 15);
        assert_eq!(chosen_budget(&results(&[90_000])).0.absolute, 50);
    }

    #[test]
    fn a_count_the_copys_path_moved_is_named_not_budgeted() {
        let results = |counts: &[(&str, u64)]| Results {
            benchmarks: counts
                .iter()
                .map(|(id, ir)| (id.to_string(), Counts::from([("Ir".to_owned(), *ir)])))
                .collect(),
            ..Results::default()
        };
        let calibration = crate::commands::calibrate::Calibration {
            builds: vec!["base".into(), "rebuild".into()],
            spreads: Vec::new(),
            unreproducible: crate::measure::calibrate::Unreproducible {
                benchmarks: vec![("nd::x".into(), 5, 9)],
                ..Default::default()
            },
            layout: crate::measure::calibrate::Layout::default(),
        };
        let here = results(&[("bin::run", 297_472), ("a::y", 10), ("nd::x", 7)]);
        let same = results(&[("bin::run", 297_472), ("a::y", 10), ("nd::x", 5)]);
        assert_eq!(path_check(&here, &same, &calibration), "");
        let moved = results(&[("bin::run", 301_151), ("a::y", 10), ("nd::x", 5)]);
        let warning = path_check(&here, &moved, &calibration);
        assert!(
            warning.contains("1 benchmark counted differently in this checkout and in a copy")
                && warning.contains("bin::run (297,472 Ir here, 301,151 Ir in the copy)")
                && !warning.contains("nd::x"),
            "{warning}"
        );
    }

    #[test]
    fn after_calibration_the_default_is_its_largest_budget_with_no_relative_part() {
        let spread = |min, max| Spread {
            benchmark: "a::b".to_owned(),
            min,
            max,
            moved_in: Vec::new(),
        };
        let (limit, why) = calibrated_budget(&[spread(10, 10), spread(100, 102)]);
        assert_eq!((limit.relative_pct, limit.absolute), (0.0, 3));
        assert!(
            why.starts_with("calibrated:") && why.contains("2 benchmarks"),
            "{why}"
        );
        assert_eq!(calibrated_budget(&[spread(5, 5)]).0.absolute, 1);
    }

    #[test]
    fn the_written_gate_toml_parses_back() {
        let suites = vec![Suite {
            package: "core".into(),
            bench: "iai".into(),
            features: vec!["callgrind".into()],
            args: Vec::new(),
        }];
        let limit = Budget {
            relative_pct: 1.0,
            absolute: 3,
        };
        let text = gate_toml(&suites, &limit, "why");
        let config = Config::parse(&text, Path::new("gate.toml")).unwrap();
        assert_eq!(config.suites, suites);
        assert_eq!(config.budgets_for("a::b")["Ir"], limit);
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
