use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = irgate::cli::parse();
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
