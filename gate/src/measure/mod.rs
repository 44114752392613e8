//! Measuring: finding the workspace's suites and their libraries, building and running them under
//! callgrind, the environment's fingerprint, and A/B builds of two revisions.

pub mod ab;
mod build;
mod cargo;
pub mod collect;
pub mod cpu;
pub mod doctor;
pub mod fingerprint;
pub mod library;
pub mod link;
pub mod observe;
pub mod outside;
mod patterns;
pub mod record;
mod record_pass;
pub mod refresh;
pub mod settings_guard;
pub mod shard;
pub mod suite;
pub mod suite_run;
pub mod take;
pub mod workspace;

/// Running scripts a test has just written, while other tests' threads start processes.
#[cfg(test)]
pub(crate) mod fresh_script {
    use std::path::Path;
    use std::process::{Command, Output};

    /// Runs `command` to its end. A process forked meanwhile by another thread holds a copy of
    /// the script's write handle until it execs, and Linux refuses to run a file open for writing
    /// ("Text file busy"), so that one error is retried.
    pub(crate) fn output(command: &mut Command) -> Output {
        for _ in 0..100 {
            match command.output() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                result => return result.unwrap(),
            }
        }
        panic!("{command:?} stayed busy for a second");
    }

    /// Writes an executable script from a child process, so that no thread of this process ever
    /// holds it open for writing and whoever runs it later never finds it busy.
    pub(crate) fn write(path: &Path, text: &str) {
        use std::io::Write;
        let mut child = Command::new("sh")
            .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
            .arg(path)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success());
    }
}
