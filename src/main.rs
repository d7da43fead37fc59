//! The `othello` program: parses the arguments, runs one command (the grader protocol when
//! none is given) and turns its result into an exit status. The commands are in `cli/`,
//! the console game in `play/`, the web server in `server/`, the NBoard engine
//! protocol in `nboard/`, tournaments in `tournament/`; the work is in the `othello`
//! library.
//!
//! Exit statuses: 0 success; 1 bad arguments, an I/O error or a failed check; 2 malformed
//! input; 3 the grader's input ended before the game was over. A closed stdout ends the
//! program quietly, with status 0.

mod bot;
mod cli;
mod files;
mod nboard;
mod play;
mod server;
mod tournament;
mod words;

use std::{
    io::{self, Write},
    process::ExitCode,
};

use clap::Parser;
use cli::{Cli, CliError, Command};

fn main() -> ExitCode {
    // Harnesses start the grader once per case: skip building the parser when they can.
    if let Some(variant) = cli::grader::plain_arguments() {
        return exit_status(cli::grader::run(variant));
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) if error.use_stderr() && cli::grader::is_grader_mode() => {
            // One line, as every other error of the grader mode.
            let _ = writeln!(io::stderr(), "othello: {}", cli::grader::one_line(&error));
            return ExitCode::from(1);
        }
        Err(error) => {
            // --help and --version print to stdout and succeed; usage errors exit with 1.
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 1 } else { 0 });
        }
    };
    let out = &mut io::stdout().lock();
    exit_status(match cli.command {
        None => cli::grader::run(cli.rules.into()),
        Some(Command::Perft(args)) => args.run(out),
        Some(Command::Solve(args)) => args.run(out),
        Some(Command::Hint(args)) => args.run(out),
        Some(Command::Play(args)) => args.run(out),
        Some(Command::Check(args)) => args.run(out),
        Some(Command::Grade(args)) => args.run(out),
        Some(Command::Gen(args)) => args.run(out),
        Some(Command::Transcript(args)) => args.run(out),
        Some(Command::Match(args)) => args.run(out),
        Some(Command::Serve(args)) => args.run(out),
        Some(Command::Db(args)) => args.run(out),
        Some(Command::Train(args)) => args.run(out),
        Some(Command::Book(args)) => args.run(out),
        Some(Command::Analyze(args)) => args.run(out),
        Some(Command::Nboard(args)) => args.run(out),
        Some(Command::Tournament(args)) => args.run(out),
        Some(Command::Bot(args)) => args.run(out),
        Some(Command::Puzzles(args)) => args.run(out),
        Some(Command::Explore(args)) => args.run(out),
        Some(Command::Zero(args)) => args.run(out),
    })
}

/// 0 for success or a closed stdout; else the error on stderr and its status.
fn exit_status(result: Result<(), CliError>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.is_broken_pipe() => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(io::stderr(), "othello: {error}");
            ExitCode::from(error.exit_status())
        }
    }
}
