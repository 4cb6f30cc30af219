use std::process::ExitCode;

use clap::Parser;
use tband_query::cli::{self, Cli};

fn main() -> ExitCode {
    tband_cli::exit("tband-query", cli::main(Cli::parse()))
}
