//! The process environment: every environment variable irgate reads, read here and nowhere
//! else, each by one function named for what it means. An empty value counts as unset
//! throughout, except where a function says otherwise.

use std::ffi::OsString;
use std::path::PathBuf;

/// A variable's value; `None` when unset or empty.
pub fn var_os(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|value| !value.is_empty())
}

/// A variable's value as text; `None` when unset, empty or not UTF-8.
fn var(name: &str) -> Option<String> {
    var_os(name).and_then(|value| value.into_string().ok())
}

/// The cargo to run: `$CARGO` (set when irgate runs under cargo), else `cargo` from the PATH.
pub fn cargo() -> OsString {
    var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// The whole environment, for the settings that decide what is counted
/// (`measure::settings_guard`): each variable irgate takes out of a suite's run.
pub fn vars() -> Vec<(OsString, OsString)> {
    std::env::vars_os().collect()
}

/// cargo's home: `$CARGO_HOME`, else `$HOME/.cargo`.
pub fn cargo_home() -> Option<PathBuf> {
    var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
}

/// rustup's home, which holds the toolchains: `$RUSTUP_HOME`, else `$HOME/.rustup`.
pub fn rustup_home() -> Option<PathBuf> {
    var_os("RUSTUP_HOME")
        .map(PathBuf::from)
        .or_else(|| var_os("HOME").map(|home| PathBuf::from(home).join(".rustup")))
}

/// `$CARGO_TARGET_DIR`, as given (relative to the workspace when relative).
pub fn cargo_target_dir() -> Option<OsString> {
    var_os("CARGO_TARGET_DIR")
}

/// The user's rustflags from the environment: `$CARGO_ENCODED_RUSTFLAGS` (its `\x1f`
/// separators as spaces), else `$RUSTFLAGS`; `None` when blank.
pub fn rustflags() -> Option<String> {
    std::env::var("CARGO_ENCODED_RUSTFLAGS")
        .map(|flags| flags.replace('\x1f', " "))
        .or_else(|_| std::env::var("RUSTFLAGS"))
        .ok()
        .filter(|flags| !flags.trim().is_empty())
}

/// `$RUSTC_WORKSPACE_WRAPPER`, a wrapper the user's build already runs rustc through.
pub fn rustc_workspace_wrapper() -> Option<String> {
    var("RUSTC_WORKSPACE_WRAPPER").filter(|wrapper| !wrapper.trim().is_empty())
}

/// The directories of `$PATH`.
pub fn path_dirs() -> Vec<PathBuf> {
    var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect())
        .unwrap_or_default()
}

/// irgate's runner cache, as the environment names it: `$IRGATE_RUNNERS`, else
/// `$XDG_CACHE_HOME/irgate/runners`, else `$HOME/.cache/irgate/runners`.
pub fn runners_dir() -> Option<PathBuf> {
    var_os("IRGATE_RUNNERS")
        .map(PathBuf::from)
        .or_else(|| var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("irgate/runners")))
        .or_else(|| var_os("HOME").map(|d| PathBuf::from(d).join(".cache/irgate/runners")))
}

/// `$GLIBC_TUNABLES`, set (even empty) or not: the user's choice overrides irgate's default.
pub fn glibc_tunables() -> Option<String> {
    std::env::var("GLIBC_TUNABLES").ok()
}

/// `$IRGATE_ENVIRONMENT`: where irgate runs (the pinned image sets `container:<image>`).
pub fn environment() -> Option<String> {
    var("IRGATE_ENVIRONMENT")
}

/// Whether `$IRGATE_BLESS` asks the tests to rewrite committed schema files.
pub fn bless() -> bool {
    std::env::var_os("IRGATE_BLESS").is_some()
}

/// Whether irgate runs in a GitHub Actions job (`$GITHUB_ACTIONS` is `true`).
pub fn github_actions() -> bool {
    var("GITHUB_ACTIONS").is_some_and(|value| value == "true")
}

/// `$GITHUB_STEP_SUMMARY`: the file a job's step summary is appended to.
pub fn github_step_summary() -> Option<PathBuf> {
    var_os("GITHUB_STEP_SUMMARY").map(PathBuf::from)
}

/// `$GITHUB_REPOSITORY`: `OWNER/NAME` of the repository a job runs for.
pub fn github_repository() -> Option<String> {
    var("GITHUB_REPOSITORY")
}

/// `$IRGATE_ARTIFACTS_URL`: the page of the run whose artifacts the comment links to.
pub fn artifacts_url() -> Option<String> {
    var("IRGATE_ARTIFACTS_URL")
}

/// `$IRGATE_FINGERPRINT`: a fingerprint file the tests inject instead of this machine's (the
/// `test-hooks` feature only; the release binary does not read it).
#[cfg(feature = "test-hooks")]
pub fn injected_fingerprint() -> Option<OsString> {
    std::env::var_os("IRGATE_FINGERPRINT")
}
