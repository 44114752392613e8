//! `irgate init`: find a workspace's callgrind suites, write gate.toml with budgets chosen for the
//! sizes measured, and on request the GitHub workflows and the pinned image's pins.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::config::{Config, DEFAULT_BUDGET};
use crate::error::{Error, Result};
use crate::files;
use crate::library::Library;
use crate::model::{Budget, Results};
use crate::paths::{CONFIG_FILE, Paths};
use crate::report::{print, thousands};
use crate::suite::{self, Suite};
use crate::workspace::Workspace;
use crate::{results, run};

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
}

/// The action the workflows use, at the version of this irgate.
pub const ACTION: &str = concat!("irgate/irgate@v", env!("CARGO_PKG_VERSION"));

/// Where `--ci` writes the image pins, relative to the workspace root.
pub const IMAGE_PINS: &str = ".irgate/image.env";

const PR_WORKFLOW: &str = include_str!("../templates/irgate.yml");
const COMMENT_WORKFLOW: &str = include_str!("../templates/irgate-comment.yml");
const REFRESH_WORKFLOW: &str = include_str!("../templates/irgate-refresh.yml");
const HISTORY_WORKFLOW: &str = include_str!("../templates/irgate-history.yml");

/// Runs `irgate init` in the workspace of the current directory.
pub fn execute(options: &Options) -> Result<ExitCode> {
    let cwd = std::env::current_dir()
        .map_err(|e| Error::Tool(format!("cannot read the current directory: {e}")))?;
    let workspace = Workspace::load(&cwd)?;
    let root = workspace.root.clone();
    let mut files: Vec<(PathBuf, String)> = Vec::new();

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

    let (limit, why) = if options.run {
        let mut config = Config::default();
        config.suites = suites.clone();
        let paths = Paths::default().resolve()?;
        let results = run::run_suites(&config, &run::Selection::default(), &paths, None, None)?;
        results::write(&paths.results, &results)?;
        // The per-function profiles, so the first baselines can explain a change.
        run::write_profiles(&run::runner_output(&results, &paths.root), &paths, &results);
        print(&format!(
            "irgate init: wrote {} ({} benchmarks): `irgate refresh` turns it into baselines\n",
            paths.results.display(),
            results.benchmarks.len()
        ));
        chosen_budget(&results)
    } else {
        (
            DEFAULT_BUDGET,
            "the default (the suites were not run: --no-run)".to_owned(),
        )
    };
    let mut config_text = gate_toml(&suites, &limit, &why);
    // --- Calibration (#26): the first budgets already hold what code layout moves. ---
    if options.run && options.calibrate {
        config_text = calibrated(&suites, &root.join(CONFIG_FILE), &config_text)?;
    }
    // --- End of calibration. ---
    files.push((root.join(CONFIG_FILE), config_text));
    if options.ci {
        let pins = image_pins(&root, &libraries)?;
        files.push((root.join(IMAGE_PINS), pins));
        for (name, template) in [
            ("irgate.yml", PR_WORKFLOW),
            ("irgate-comment.yml", COMMENT_WORKFLOW),
            ("irgate-refresh.yml", REFRESH_WORKFLOW),
            ("irgate-history.yml", HISTORY_WORKFLOW),
        ] {
            let path = root.join(".github/workflows").join(name);
            files.push((path, template.replace("{{ACTION}}", ACTION)));
        }
    }
    if !options.force
        && let Some((existing, _)) = files.iter().find(|(path, _)| path.exists())
    {
        return Err(Error::Tool(format!(
            "{} exists: irgate init does not overwrite it (--force does)",
            existing.display()
        )));
    }
    for (path, text) in &files {
        files::write_atomic(path, text.as_bytes())?;
        print(&format!("irgate init: wrote {}\n", relative(path, &root)));
    }
    print(&next_steps(options));
    Ok(ExitCode::SUCCESS)
}

/// `text` (gate.toml as init wrote it) with the budgets `irgate calibrate` measures for `suites`:
/// builds the working tree three ways that differ only in code no benchmark runs, runs each, and
/// writes a budget per benchmark from how far its count moved. Says how long it took.
fn calibrated(suites: &[Suite], path: &Path, text: &str) -> Result<String> {
    use crate::calibrate;
    let started = std::time::Instant::now();
    print(
        "irgate init: calibrating: the suites built and run 3 more ways (skip: --no-calibrate, \
         then `irgate calibrate --write` any time)\n",
    );
    let mut config = Config::default();
    config.suites = suites.to_vec();
    let paths = Paths::default().resolve()?;
    let runs = calibrate::measure(
        &config,
        &paths,
        &run::Selection::default(),
        calibrate::Variant::DEFAULT,
    )?;
    let builds: Vec<String> = runs.iter().map(|(name, _)| name.clone()).collect();
    let spreads = calibrate::spreads(&runs)?;
    print(&calibrate::render(&spreads, &builds));
    let text = calibrate::write_budgets(text, path, &spreads, &builds)?;
    print(&format!(
        "irgate init: calibrated in {:.0} s\n",
        started.elapsed().as_secs_f64()
    ));
    Ok(text)
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
        "# irgate's configuration, written by `irgate init` (`irgate --help`, and irgate's README,\n\
         # \"Budgets\").\n\
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

/// The pins of the pinned image for this repository: its toolchain (from rust-toolchain.toml)
/// and the runner of its suites' library.
fn image_pins(root: &Path, libraries: &[Library]) -> Result<String> {
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
    let toolchain = rust_toolchain(root)?;
    Ok(format!(
        "# The pinned image's build arguments for this repository (irgate's Dockerfile), written\n\
         # by `irgate init --ci`. The toolchain follows rust-toolchain.toml; the runner is the exact\n\
         # version of the suites' library. Change them on purpose: counts change with them.\n\
         RUST_TOOLCHAIN={toolchain}\nRUNNER_CRATE={}\nRUNNER_VERSION={}\n",
        library.kind.runner(),
        library.version
    ))
}

/// The toolchain channel of `root/rust-toolchain.toml` (or `rust-toolchain`); an error when
/// there is none, since counts change with the compiler.
fn rust_toolchain(root: &Path) -> Result<String> {
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
                return Ok(channel.to_owned());
            }
        } else if !text.trim().is_empty() && !text.contains('[') {
            return Ok(text.trim().to_owned());
        }
        return Err(Error::invalid(
            path.display(),
            "no `[toolchain] channel`: the pinned image needs an exact toolchain",
        ));
    }
    Err(Error::Tool(format!(
        "{}: no rust-toolchain.toml: counts change with the compiler, so the pinned image needs \
         an exact one. Add rust-toolchain.toml with `[toolchain] channel = \"1.95.0\"` (your \
         version), then run `irgate init --ci` again",
        root.display()
    )))
}

fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn next_steps(options: &Options) -> String {
    let mut out = String::from("\nNext steps:\n");
    if options.run {
        out.push_str(
            "  irgate refresh                 take the baselines from the run above (baselines/)\n",
        );
    } else {
        out.push_str("  irgate run && irgate refresh   take the baselines (baselines/)\n");
    }
    out.push_str(
        "  git add gate.toml baselines/   commit them: that is how counts are accepted\n\
         \x20 irgate run && irgate check     the gate, after every change\n",
    );
    if options.ci {
        out.push_str(
            "  CI: commit .github/workflows/irgate*.yml and .irgate/image.env; take the baselines in\n\
             \x20   CI's pinned image (the 'irgate refresh' workflow), since counts compare only\n\
             \x20   within one environment; the 'irgate history' workflow records every push to\n\
             \x20   main and draws the dashboard (repository variable IRGATE_PAGES=true publishes it)\n",
        );
    } else {
        out.push_str("  irgate init --ci --force       also write the GitHub workflows\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert!(ACTION.starts_with("irgate/irgate@v"));
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
        assert!(crate::config::allowance(&limit, 20) < 2.0);
        assert!(crate::config::allowance(&limit, 20) >= 1.0);
        assert_eq!(chosen_budget(&results(&[300])).0.absolute, 15);
        assert_eq!(chosen_budget(&results(&[90_000])).0.absolute, 50);
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
}
