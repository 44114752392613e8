//! The tests that take more than a moment: they collect this machine's real fingerprint (valgrind
//! runs) or load pages in a real headless Chromium. `--skip slow::` leaves them out.

mod builds;
mod dashboard;
mod doctor;
mod from_base;
mod measurement;
