//! The `othello` program: argument parsing and exit statuses; the work is in the library.

use std::{
    io::{self, Write},
    path::PathBuf,
    process::ExitCode,
};

use clap::{Parser, Subcommand, ValueEnum};
use othello::{
    Setup, Shape, Variant,
    commands::{self, CommandError},
    protocol,
};

/// Othello (Reversi) speaking the course's grader protocol on stdin and stdout.
///
/// Without a command: prints FULL (or SIMPLE), reads rows, columns, first mover (B or W), win
/// rule (> or <) and the board, then plays the game one move line ("row column") at a time.
///
/// Exit status: 0 the game was played to its end; 1 bad arguments or an I/O error;
/// 2 malformed header or board; 3 input ended before the game was over.
#[derive(Debug, Parser)]
#[command(version, about, long_about, args_conflicts_with_subcommands = true)]
struct Cli {
    /// Rule set: full (standard Othello) or simple (flip adjacent opponent discs only).
    #[arg(long, value_enum, default_value_t = Rules::Full)]
    rules: Rules,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Count the leaves of the game tree at each depth from 1 to DEPTH.
    ///
    /// A pass counts as one ply; a finished game counts as one leaf at every deeper depth.
    /// Each line: depth, leaves, seconds, rate.
    Perft {
        /// The deepest depth, in plies.
        #[arg(value_parser = clap::value_parser!(u32).range(1..=64))]
        depth: u32,
        /// Rule set.
        #[arg(long, value_enum, default_value_t = Rules::Full)]
        rules: Rules,
        /// A grader-format input: its header and board, with its first mover to move
        /// (default: the standard 8x8 start, Black to move).
        #[arg(long, value_name = "FILE")]
        position: Option<PathBuf>,
        /// One JSON object per line: {"depth":d,"leaves":n,"seconds":s}.
        #[arg(long)]
        json: bool,
    },
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
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // --help and --version print to stdout and succeed; usage errors exit with 1.
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 1 } else { 0 });
        }
    };
    match cli.command {
        None => grader(cli.rules.into()),
        Some(Command::Perft {
            depth,
            rules,
            position,
            json,
        }) => command(|out| {
            let setup = match position {
                Some(path) => commands::read_position(&path)?,
                None => Setup::standard(Shape::STANDARD),
            };
            commands::perft::run(rules.into(), &setup, depth, json, out).map(drop)
        }),
    }
}

fn grader(variant: Variant) -> ExitCode {
    match protocol::run(io::stdin().lock(), io::stdout().lock(), variant) {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) if error.is_broken_pipe() => ExitCode::SUCCESS,
        Err(error) => fail(&error, error.exit_status()),
    }
}

fn command(run: impl FnOnce(&mut io::StdoutLock<'static>) -> Result<(), CommandError>) -> ExitCode {
    match run(&mut io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.is_broken_pipe() => ExitCode::SUCCESS,
        Err(error) => fail(&error, error.exit_status()),
    }
}

fn fail(error: &dyn std::error::Error, status: u8) -> ExitCode {
    let _ = writeln!(io::stderr(), "othello: {error}");
    ExitCode::from(status)
}
