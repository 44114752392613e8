use std::process::ExitCode;

use clap::Parser;
use irgate::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match &cli.command {
        Command::Run(args) => irgate::run::execute(args),
        Command::Check(args) => irgate::check::execute(args),
        Command::Refresh(args) => irgate::refresh::execute(args),
        Command::Comment(args) => Ok(ExitCode::from(irgate::comment::run(args))),
        Command::Noise(args) => irgate::noise::execute(args),
        Command::Doctor(args) => irgate::doctor::execute(args),
        Command::Explain(args) => {
            irgate::explain::execute(&args.benchmark, &args.paths.resolve(), args.format)
        }
    };
    outcome.unwrap_or_else(|error| {
        eprintln!("irgate: error: {error}");
        ExitCode::from(2)
    })
}
