//! The commands: each takes its plain options and does one job of the command line, on the
//! layers below (measuring, judging, formats, rendering).

pub mod calibrate;
pub mod check;
#[cfg(feature = "github")]
pub mod comment;
pub mod doctor;
pub mod explain;
pub mod history;
pub mod init;
pub mod refresh;
pub mod run;
pub mod runner;
