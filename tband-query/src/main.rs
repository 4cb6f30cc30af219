use std::process::ExitCode;

use clap::Parser;
use tband_query::cli::{self, Cli};

fn main() -> ExitCode {
    match cli::main(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tband-query: {e}");
            ExitCode::FAILURE
        }
    }
}
