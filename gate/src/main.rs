use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use irgate::cli::Cli;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = cli.command.execute().unwrap_or_else(|error| {
        eprintln!(
            "irgate: error: {}",
            irgate::text::terminal(&error.to_string())
        );
        ExitCode::from(2)
    });
    // A closed pipe (`irgate doctor | head`) is not an error of the gate's: the output was
    // written as far as anyone reads it.
    let _ = std::io::stdout().flush();
    code
}
