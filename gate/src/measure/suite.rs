//! A callgrind suite: one bench target, run by `cargo bench` under gungraun or iai-callgrind.

use crate::config::suite::Suite;
use crate::error::{Error, Result};
use crate::measure::library::Library;
use crate::measure::workspace::Workspace;

impl Suite {
    /// The library the suite is written with, from the workspace's resolved dependencies; an
    /// error when the target does not exist or its package uses neither library.
    pub fn library(&self, workspace: &Workspace) -> Result<Library> {
        let target = workspace.bench(&self.package, &self.bench).ok_or_else(|| {
            let known: Vec<String> = workspace
                .benches
                .iter()
                .map(|b| format!("{}/{}", b.package, b.bench))
                .collect();
            Error::Tool(format!(
                "suite `{}`: the workspace at {} has no bench target `{}` in a package `{}` \
                 (bench targets: {})",
                self.name(),
                workspace.root.display(),
                self.bench,
                self.package,
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ))
        })?;
        let library = target.library.clone().ok_or_else(|| {
            Error::Tool(format!(
                "suite `{}`: package `{}` depends on neither gungraun nor iai-callgrind",
                self.name(),
                self.package
            ))
        })?;
        library.check_supported()?;
        Ok(library)
    }
}

/// The suites to run: the declared ones, else every callgrind suite found in the workspace
/// (with the features each requires). An error when there are none.
pub fn resolve(declared: &[Suite], workspace: &Workspace) -> Result<Vec<Suite>> {
    if !declared.is_empty() {
        return Ok(declared.to_vec());
    }
    let found = discovered(workspace);
    if found.is_empty() {
        let nested = workspace.nested_suites();
        let hint = if nested.is_empty() {
            String::new()
        } else {
            format!(
                "; a package outside this workspace names one ({}): run irgate in its directory",
                nested
                    .iter()
                    .map(|d| format!("`{}`", crate::text::terminal(d)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        return Err(Error::Tool(format!(
            "no callgrind suite in the workspace at {}: irgate runs bench targets written with \
             gungraun or iai-callgrind (`harness = false`, calling `main!`), and found none{hint}",
            workspace.root.display()
        )));
    }
    Ok(found)
}

/// Every callgrind suite of `workspace`, as discovery runs it: with the features it requires and
/// no runner arguments.
pub fn discovered(workspace: &Workspace) -> Vec<Suite> {
    workspace
        .callgrind_suites()
        .map(|target| Suite {
            package: target.package.clone(),
            bench: target.bench.clone(),
            features: target.required_features.clone(),
            args: Vec::new(),
        })
        .collect()
}

/// The distinct libraries of `suites`, sorted; an error for a suite whose library cannot be told
/// or is not supported.
pub fn libraries(suites: &[Suite], workspace: &Workspace) -> Result<Vec<Library>> {
    let mut libraries = suites
        .iter()
        .map(|s| s.library(workspace))
        .collect::<Result<Vec<Library>>>()?;
    libraries.sort();
    libraries.dedup();
    Ok(libraries)
}

/// The names of the `declared` suites that did not run, by the `ran` names a results file lists.
pub fn missing(declared: &[Suite], ran: &[String]) -> Vec<String> {
    declared
        .iter()
        .map(Suite::name)
        .filter(|name| !ran.contains(name))
        .collect()
}

/// Keeps the suites named in `only` (by `package/bench` or by bench name); an error for a name
/// that matches no suite.
pub fn select(suites: Vec<Suite>, only: &[String]) -> Result<Vec<Suite>> {
    if only.is_empty() {
        return Ok(suites);
    }
    let matches = |suite: &Suite, name: &str| suite.name() == name || suite.bench == name;
    if let Some(unknown) = only
        .iter()
        .find(|name| !suites.iter().any(|s| matches(s, name)))
    {
        let names: Vec<String> = suites.iter().map(Suite::name).collect();
        return Err(Error::Tool(format!(
            "no suite `{unknown}`; the suites are: {}",
            names.join(", ")
        )));
    }
    Ok(suites
        .into_iter()
        .filter(|s| only.iter().any(|name| matches(s, name)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite(package: &str, bench: &str) -> Suite {
        Suite {
            package: package.into(),
            bench: bench.into(),
            features: Vec::new(),
            args: Vec::new(),
        }
    }

    #[test]
    fn selects_by_full_name_or_bench() {
        let all = vec![suite("a", "parse"), suite("a", "render")];
        let picked = select(all.clone(), &["a/render".to_owned()]).unwrap();
        assert_eq!(picked, vec![suite("a", "render")]);
        let picked = select(all.clone(), &["parse".to_owned()]).unwrap();
        assert_eq!(picked, vec![suite("a", "parse")]);
        let error = select(all, &["nope".to_owned()]).unwrap_err().to_string();
        assert_eq!(error, "no suite `nope`; the suites are: a/parse, a/render");
    }
}
