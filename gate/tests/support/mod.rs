//! What the binary's tests share: running `irgate` and reading what it did.

use std::path::Path;
use std::process::{Command, Output};

/// An irgate run: exit code and output.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Run {
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }
}

/// `irgate` run from `dir`, with none of this environment's settings that would change where it
/// looks or what it records.
pub fn irgate(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_irgate"));
    command
        .current_dir(dir)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("GUNGRAUN_HOME")
        .env_remove("IAI_CALLGRIND_HOME")
        .env_remove("IRGATE_ENVIRONMENT");
    command
}
