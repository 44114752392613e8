//! irgate: a CI regression gate on callgrind instruction counts.
//!
//! The layers, each using only those below it (a test keeps it so):
//!
//! - [`cli`]: the command line, a dispatch table onto [`commands`];
//! - [`commands`]: one module per command, each `execute(&Options)`;
//! - the features a user asks for by name, each a folder with its engine and its text:
//!   [`calibrate`] (budgets from builds that differ only in code no benchmark runs), [`bisect`]
//!   (the commit that moved a count, with its file format) and [`init`] (setting up a workspace,
//!   its CI files included);
//! - [`render`]: the report as a terminal table, markdown, and the history's dashboard;
//! - [`explain`]: where a benchmark's instructions went, from its per-function profiles;
//! - [`judge`]: results against baselines and budgets, accepted changes, drift, `check`'s verdict;
//! - [`select`]: which benchmarks a change touches, from the compiled code, and what
//!   `--only-touched` leaves out;
//! - [`measure`]: the workspace's suites, their runners and builds, the fingerprint, A/B, shards;
//! - [`paths`]: where the gate's files are, each derived file one method of one home;
//! - [`formats`]: every file irgate reads or writes, each with a frozen, versioned schema (the code
//!   identity of a linked object, function by function, is the crate `irgate_identity`);
//! - [`git`]: the one way irgate runs git;
//! - [`config`]: the file gate.toml, one module per concept;
//! - [`model`], [`filter`], [`id`], [`error`]: the shared vocabulary;
//! - [`env`](mod@env): every environment variable irgate reads, read in this one module;
//! - [`text`]: numbers, signs, plurals, short commits and escaping, importing nothing of irgate.

pub mod bisect;
pub mod calibrate;
pub mod cleanup;
pub mod cli;
pub mod commands;
pub mod config;
pub mod env;
pub mod error;
pub mod explain;
pub mod filter;
pub mod formats;
pub mod git;
pub mod id;
pub mod init;
pub mod judge;
pub mod measure;
pub mod model;
pub mod paths;
pub mod render;
pub mod select;
pub mod text;

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::{Path, PathBuf};

    /// The top-level modules from the bottom layer up; a module may use its own layer and those
    /// below it, never one above.
    const LAYERS: &[&[&str]] = &[
        &["text", "env", "cleanup"],
        &["error"],
        &["id", "filter"],
        &["model"],
        &["config"],
        &["git"],
        &["formats"],
        &["paths"],
        &["measure"],
        &["select"],
        &["judge"],
        &["explain"],
        &["render"],
        &["calibrate", "bisect", "init"],
        &["commands"],
        &["cli"],
    ];

    fn layer(module: &str) -> usize {
        LAYERS
            .iter()
            .position(|layer| layer.contains(&module))
            .unwrap_or_else(|| panic!("module `{module}` is in no layer of LAYERS"))
    }

    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// The module a source file defines, as `a::b` (`a/mod.rs` and `a.rs` are `a`).
    fn module_of(src: &Path, file: &Path) -> String {
        let relative = file.strip_prefix(src).unwrap().with_extension("");
        let mut parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.last().is_some_and(|p| p == "mod") {
            parts.pop();
        }
        parts.join("::")
    }

    /// Every `crate::a::b` path in the code of `text` (comments left out), and every
    /// `super::a::b` path resolved from `module`, as the longest prefix that names a module of
    /// `modules`.
    fn uses(text: &str, module: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
        let longest = |base: &[&str], rest: &str| {
            let path: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let mut candidate = base.join("::");
            let mut best = modules.contains(&candidate).then(|| candidate.clone());
            for part in path.split("::").filter(|p| !p.is_empty()) {
                if !candidate.is_empty() {
                    candidate.push_str("::");
                }
                candidate.push_str(part);
                if modules.contains(&candidate) {
                    best = Some(candidate.clone());
                }
            }
            best
        };
        let mut found = BTreeSet::new();
        for line in text.lines().map(str::trim_start) {
            if line.starts_with("//") {
                continue;
            }
            for (at, _) in line.match_indices("crate::") {
                found.extend(longest(&[], &line[at + "crate::".len()..]));
            }
            for (at, _) in line.match_indices("super::") {
                if line[..at].ends_with("::") {
                    continue;
                }
                let mut base: Vec<&str> = module.split("::").collect();
                let mut rest = &line[at..];
                while let Some(after) = rest.strip_prefix("super::") {
                    base.pop();
                    rest = after;
                }
                found.extend(longest(&base, rest));
            }
        }
        found
    }

    #[test]
    fn layers_only_use_those_below_and_no_module_imports_in_a_circle() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut upward = Vec::new();
        for file in &files {
            let module = module_of(&src, file);
            // Tests may use any layer, in a file of their own (`a/tests.rs`) as after
            // `#[cfg(test)]` in the file they test.
            if module == "lib" || module == "main" || module.ends_with("::tests") {
                continue;
            }
            let top = module.split("::").next().unwrap().to_owned();
            let text = std::fs::read_to_string(file).unwrap();
            let code = text.split("\n#[cfg(test)]").next().unwrap();
            for used in uses(code, &module, &modules) {
                let used_top = used.split("::").next().unwrap();
                if layer(used_top) > layer(&top) {
                    upward.push(format!("{module} -> {used}"));
                }
                if used != module && !module.starts_with(&format!("{used}::")) {
                    graph.entry(module.clone()).or_default().insert(used);
                }
            }
        }
        assert!(
            upward.is_empty(),
            "imports that run upward:\n{}",
            upward.join("\n")
        );
        // A circle: a module that reaches itself through others.
        let mut circles = Vec::new();
        for start in graph.keys() {
            let mut seen = BTreeSet::new();
            let mut stack: Vec<&String> = graph[start].iter().collect();
            while let Some(next) = stack.pop() {
                if next == start {
                    circles.push(start.clone());
                    break;
                }
                if seen.insert(next) {
                    stack.extend(graph.get(next).into_iter().flatten());
                }
            }
        }
        assert!(
            circles.is_empty(),
            "modules in an import circle: {circles:?}"
        );
    }
}
