//! The one way irgate speaks on stderr: every line starts `irgate: ` (and a warning's
//! `irgate: warning: `), so a log can be searched for what irgate said. The message is
//! formatted as `format!` formats it; untrusted parts are escaped by the caller
//! ([`crate::text::terminal`]), as everywhere.

/// Prints `irgate: <message>` to stderr: progress, notes and what irgate decided.
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {
        eprintln!("irgate: {}", format_args!($($arg)*))
    };
}

/// Prints `irgate: warning: <message>` to stderr: something the user should look at, which does
/// not stop the command.
#[macro_export]
macro_rules! warning {
    ($($arg:tt)*) => {
        eprintln!("irgate: warning: {}", format_args!($($arg)*))
    };
}
