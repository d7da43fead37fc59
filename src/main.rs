//! The `othello` program: argument parsing and exit statuses; the work is in the library.

use std::{
    io::{self, Write},
    process::ExitCode,
};

use clap::{Parser, ValueEnum};
use othello::{Variant, protocol};

/// Othello (Reversi) speaking the course's grader protocol on stdin and stdout.
///
/// Prints FULL (or SIMPLE), reads rows, columns, first mover (B or W), win rule (> or <) and
/// the board, then plays the game one move line ("row column") at a time.
///
/// Exit status: 0 the game was played to its end; 1 bad arguments or an I/O error;
/// 2 malformed header or board; 3 input ended before the game was over.
#[derive(Debug, Parser)]
#[command(version, about, long_about)]
struct Args {
    /// Rule set: full (standard Othello) or simple (flip adjacent opponent discs only).
    #[arg(long, value_enum, default_value_t = Rules::Full)]
    rules: Rules,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Rules {
    Full,
    Simple,
}

impl From<Rules> for Variant {
    fn from(rules: Rules) -> Variant {
        match rules {
            Rules::Full => Variant::Full,
            Rules::Simple => Variant::Simple,
        }
    }
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(error) => {
            // --help and --version print to stdout and succeed; usage errors exit with 1.
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 1 } else { 0 });
        }
    };
    match protocol::run(io::stdin().lock(), io::stdout().lock(), args.rules.into()) {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) if error.is_broken_pipe() => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(io::stderr(), "othello: {error}");
            ExitCode::from(error.exit_status())
        }
    }
}
