//! irgate's integration tests, one binary: a module per command or concern, sharing one harness
//! (`harness`: the sandbox, running the binary, the one fingerprint fixture). `irgate` reads that
//! fixture (`IRGATE_FINGERPRINT`, in a build with the `test-hooks` feature, which this target
//! requires) instead of collecting this machine's fingerprint, so no test
//! spawns valgrind, rustc or git for it. The tests that need valgrind, a real build or Chromium
//! are in `slow`; the fast subset is
//! `cargo test -p irgate --all-features --test it -- --skip slow::` (`make test-fast`).

mod harness;

mod ab;
mod accept;
mod bisect;
mod calibrate;
mod calibrated;
mod check;
#[cfg(feature = "github")]
mod comment;
mod config;
mod docs;
mod doctor;
mod drift;
mod explain;
mod fuzz_seeds;
mod help;
mod history;
mod hostile;
mod markdown;
mod refresh;
mod run;
mod schemas;
mod slow;
