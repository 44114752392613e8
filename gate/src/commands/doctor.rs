//! `irgate doctor`: the environment here, field by field against the baselines' environment.

use std::collections::BTreeMap;
use std::process::ExitCode;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::formats::baseline::{Baselines, Group};
use crate::measure::fingerprint;
use crate::measure::library::Library;
use crate::measure::paths::Paths;
use crate::measure::runner::glibc_tunables;
use crate::measure::suite;
use crate::measure::workspace::Workspace;
use crate::model::Fingerprint;
use crate::text::print;

/// One fingerprint field: its value here and the values the baseline files hold.
#[derive(Debug, PartialEq)]
struct Field {
    name: &'static str,
    here: String,
    /// Each distinct baseline value with the groups (files) holding it.
    baselines: BTreeMap<String, Vec<String>>,
}

impl Field {
    fn matches(&self) -> bool {
        self.baselines.keys().all(|value| *value == self.here)
    }
}

/// What `irgate doctor` was asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Where the files are.
    pub paths: Paths,
}

/// Runs `irgate doctor`.
pub fn execute(options: &Options) -> Result<ExitCode> {
    let paths = &options.paths;
    let paths = paths.resolve()?;
    let config = Config::load_or_default(&paths.config, paths.config_named)?;
    let libraries = libraries(&config, &paths.root);
    let here = fingerprint::collect(
        &glibc_tunables(),
        &paths.root,
        &libraries,
        crate::measure::runner::Build::new(config.measurement_build, &paths.root)?.describe(),
    )?;
    let groups = match Baselines::load(&paths.baselines) {
        Ok(baselines) => baselines.groups,
        Err(Error::MissingBaselineDir { .. }) => BTreeMap::new(),
        Err(error) => return Err(error),
    };
    let fields = compare(&here, &groups);
    let differing: Vec<&str> = fields
        .iter()
        .filter(|field| crate::model::fingerprint::must_match(field.name) && !field.matches())
        .map(|field| field.name)
        .collect();

    let source = if groups.is_empty() {
        format!("no baselines in {} yet", paths.baselines.display())
    } else {
        format!(
            "against the baselines in {} ({} files)",
            paths.baselines.display(),
            groups.len()
        )
    };
    print(&format!(
        "irgate doctor: the environment here, {source}\n\n"
    ));
    print(&render(&fields));
    let (runners, runners_ok) = runners(&libraries);
    print(&runners);
    print("\n");
    let code = |matches: bool| {
        if matches && runners_ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(2)
        }
    };
    if !runners_ok {
        print(
            "A suite's runner is missing or of another version: `irgate run` stops before \
             building (`irgate runner install` installs the right one beside any other).\n",
        );
    }
    if groups.is_empty() {
        print(
            "Nothing to compare with: take baselines with `irgate run && irgate refresh`, in the \
             environment the gate will run in (the pinned image, in CI).\n",
        );
        Ok(code(true))
    } else if differing.is_empty() {
        print(
            "Every field that changes counts matches the baselines': counts taken here compare.\n",
        );
        Ok(code(true))
    } else {
        print(&format!(
            "{} field(s) that change counts differ: {}. Counts taken here do not compare with the \
             baselines' (`irgate check` exits 2): run the gate where the baselines were taken, or \
             take new ones here on purpose (`irgate run && irgate refresh`).\n",
            differing.len(),
            differing.join(", ")
        ));
        if differing.contains(&"aslr") && here.aslr == "on" {
            print(
                "ASLR is on here because `setarch -R` was refused. In Docker, allow that one \
                 `personality` call with a seccomp profile (irgate's pinned image documents one).\n",
            );
        }
        Ok(ExitCode::from(2))
    }
}

/// The libraries of the suites `irgate run` would run here (none when the workspace cannot be
/// read: the field then says `unknown`).
fn libraries(config: &Config, root: &std::path::Path) -> Vec<Library> {
    let Ok(workspace) = Workspace::load(root) else {
        return Vec::new();
    };
    suite::resolve(&config.suites, &workspace)
        .map(|suites| {
            suites
                .iter()
                .filter_map(|s| s.library(&workspace).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// One line per library: the runner `irgate run` would use for it, or why there is none; and
/// whether every library has its runner.
fn runners(libraries: &[Library]) -> (String, bool) {
    let mut distinct = libraries.to_vec();
    distinct.sort();
    distinct.dedup();
    let mut out = String::new();
    let mut all = true;
    for library in &distinct {
        let name = format!("{} {}", library.kind.runner(), library.version);
        match library.runner() {
            Ok(runner) => {
                out += &format!(
                    "ok       runner          {name} at {} ({})\n",
                    runner.path.display(),
                    runner.source
                );
            }
            Err(error) => {
                all = false;
                out += &format!("MISSING  runner          {name}: {error}\n");
            }
        }
    }
    (out, all)
}

/// Every fingerprint field, with its value here and the distinct values of the baseline groups.
fn compare(here: &Fingerprint, groups: &BTreeMap<String, Group>) -> Vec<Field> {
    let mut fields: Vec<Field> = crate::model::fingerprint::fields(here)
        .into_iter()
        .map(|(name, here)| Field {
            name,
            here,
            baselines: BTreeMap::new(),
        })
        .collect();
    for (group, baseline) in groups {
        for (field, (_, value)) in fields
            .iter_mut()
            .zip(crate::model::fingerprint::fields(&baseline.fingerprint))
        {
            field
                .baselines
                .entry(value)
                .or_default()
                .push(group.clone());
        }
    }
    fields
}

/// One line per field (`ok`, `DIFFERS` or `info`), and the baselines' values where they differ.
fn render(fields: &[Field]) -> String {
    let width = fields.iter().map(|f| f.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for field in fields {
        let must_match = crate::model::fingerprint::must_match(field.name);
        let status = match (must_match, field.baselines.is_empty(), field.matches()) {
            (false, _, _) => "info",
            (true, true, _) => "",
            (true, false, true) => "ok",
            (true, false, false) => "DIFFERS",
        };
        let here = if field.here.is_empty() {
            "(none)"
        } else {
            &field.here
        };
        out += &format!("{status:<7}  {:<width$}  {here}\n", field.name);
        if field.matches() {
            continue;
        }
        let values: Vec<String> = field
            .baselines
            .iter()
            .map(|(value, groups)| {
                let value = if value.is_empty() { "(none)" } else { value };
                if field.baselines.len() == 1 {
                    value.to_owned()
                } else {
                    format!("{value} ({})", groups.join(", "))
                }
            })
            .collect();
        out += &format!(
            "{:<7}  {:<width$}  baselines: {}\n",
            "",
            "",
            crate::text::terminal(&values.join("; "))
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fingerprint(valgrind: &str, commit: &str) -> Fingerprint {
        Fingerprint {
            rustc: "1.95.0".into(),
            valgrind: valgrind.into(),
            cpu_flags: vec!["avx2".into(), "erms".into()],
            commit: commit.into(),
            ..Fingerprint::default()
        }
    }

    fn groups(entries: &[(&str, Fingerprint)]) -> BTreeMap<String, Group> {
        entries
            .iter()
            .map(|(name, fingerprint)| {
                let group = Group {
                    fingerprint: fingerprint.clone(),
                    benchmarks: BTreeMap::new(),
                };
                (name.to_string(), group)
            })
            .collect()
    }

    fn field<'a>(fields: &'a [Field], name: &str) -> &'a Field {
        fields.iter().find(|f| f.name == name).unwrap()
    }

    #[test]
    fn compares_every_field_and_groups_the_baselines_values() {
        let here = fingerprint("valgrind-3.24.0", "new");
        let groups = groups(&[
            ("frame", fingerprint("valgrind-3.24.0", "old")),
            ("varint", fingerprint("valgrind-3.19.0", "old")),
        ]);
        let fields = compare(&here, &groups);
        assert_eq!(fields.len(), crate::model::fingerprint::fields(&here).len());
        assert!(field(&fields, "rustc").matches());
        let valgrind = field(&fields, "valgrind");
        assert!(!valgrind.matches());
        assert_eq!(valgrind.baselines["valgrind-3.19.0"], ["varint"]);
        assert_eq!(valgrind.baselines["valgrind-3.24.0"], ["frame"]);
        assert_eq!(field(&fields, "cpu_flags").here, "avx2 erms");
    }

    #[test]
    fn renders_differences_with_the_groups_that_hold_them() {
        let here = fingerprint("valgrind-3.24.0", "new");
        let groups = groups(&[
            ("frame", fingerprint("valgrind-3.24.0", "old")),
            ("varint", fingerprint("valgrind-3.19.0", "old")),
        ]);
        let text = render(&compare(&here, &groups));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.contains(&"ok       rustc           1.95.0"), "{text}");
        assert!(
            lines.contains(&"DIFFERS  valgrind        valgrind-3.24.0"),
            "{text}"
        );
        assert!(
            text.contains("baselines: valgrind-3.19.0 (varint); valgrind-3.24.0 (frame)"),
            "{text}"
        );
        assert!(lines.contains(&"info     commit          new"), "{text}");
        assert!(text.contains("baselines: old\n"), "{text}");
    }

    #[test]
    fn without_baselines_only_this_environment_is_shown() {
        let text = render(&compare(
            &fingerprint("valgrind-3.24.0", "c"),
            &BTreeMap::new(),
        ));
        assert!(
            !text.contains("baselines:") && !text.contains("DIFFERS"),
            "{text}"
        );
        assert!(text.contains("valgrind        valgrind-3.24.0"), "{text}");
    }
}
