//! The grader protocol: the default mode of the `othello` program.
//!
//! The contract is the course's grader protocol: print the rules line, read the header and
//! board, then print the state and read moves until the game is over. Output is buffered and
//! flushed only before a read that might block, so a harness driving the program line by
//! line always gets its answer, while a scripted file is answered at full speed.

use std::io::{self, Read, Write};

use thiserror::Error;

use crate::{
    Game, Outcome, RuleSet, Setup, SetupError, Status, Variant,
    formats::grader::SetupParser,
    formats::lines::{LineReader, ReadError},
};

mod move_line;
mod output;

use move_line::parse_move;
use output::Printer;

/// Why a grader session did not end with a finished game.
#[derive(Debug, Error)]
pub enum ProtocolError {
    /// The header or the board is malformed.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The input ended while a move was awaited.
    #[error("input ended before the game was over")]
    InputEnded,
    /// Reading the input failed.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// Writing the output failed (for instance because the reader went away).
    #[error("cannot write output: {0}")]
    Write(#[source] io::Error),
}

impl ProtocolError {
    /// The exit status the protocol gives this error: 2 for a malformed header or board, 3 for
    /// input that ended before the game was over, 1 for an I/O failure.
    pub fn exit_status(&self) -> u8 {
        match self {
            ProtocolError::Setup(_) => 2,
            ProtocolError::InputEnded => 3,
            ProtocolError::Read(_) | ProtocolError::Write(_) => 1,
        }
    }

    /// Whether the output was closed by its reader: the program should end quietly.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, ProtocolError::Write(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// Plays one grader session under `variant`'s rules, reading `input` and writing the
/// transcript to `output`. Returns the outcome of the finished game.
///
/// ```
/// use othello::{Outcome, Variant, protocol};
///
/// let input = "4\n4\nW\n>\nB . . .\n. W . .\n. . . .\n. . . .\n3 3\n";
/// let mut output = Vec::new();
/// let outcome = protocol::run(input.as_bytes(), &mut output, Variant::Full)?;
/// assert_eq!(outcome, Outcome::Win(othello::Color::Black));
/// assert!(String::from_utf8(output)?.ends_with("VALID\nB: 3  W: 0\nB . . .\n. B . .\n. . B .\n. . . .\nWINNER: B\n"));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`ProtocolError`]; everything printed before the error has been flushed.
pub fn run(
    input: impl Read,
    output: impl Write,
    variant: Variant,
) -> Result<Outcome, ProtocolError> {
    crate::on_rules!(variant, |R| run_rules::<R>(input, output))
}

fn run_rules<R: RuleSet>(input: impl Read, output: impl Write) -> Result<Outcome, ProtocolError> {
    let mut printer = Printer::new(output);
    let result = session::<R>(&mut LineReader::new(input), &mut printer);
    printer.flush()?;
    result
}

fn session<R: RuleSet>(
    lines: &mut LineReader<impl Read>,
    printer: &mut Printer<impl Write>,
) -> Result<Outcome, ProtocolError> {
    printer.rules(R::VARIANT)?;
    let setup = read_setup(lines, printer)?;
    let shape = setup.board.shape();
    let mut game = Game::<R>::new(setup);
    loop {
        printer.state(game.board())?;
        match game.status() {
            Status::Over(outcome) => {
                printer.winner(outcome)?;
                return Ok(outcome);
            }
            Status::ToMove(side) => printer.turn(side)?,
        }
        loop {
            let line = lines
                .next_line(|| printer.flush())?
                .ok_or(ProtocolError::InputEnded)?;
            // The legality test is one bit of the cached legal-move set.
            let square = parse_move(line, shape).filter(|&square| game.is_legal(square));
            if let Some(square) = square
                && game.play(square).is_ok()
            {
                printer.valid()?;
                break;
            }
            printer.invalid()?;
        }
    }
}

fn read_setup(
    lines: &mut LineReader<impl Read>,
    printer: &mut Printer<impl Write>,
) -> Result<Setup, ProtocolError> {
    let mut parser = SetupParser::new();
    // A header or board line too long ends the session: said at once, so a first line
    // that never ends (`/dev/zero`) is refused rather than read for ever.
    lines.early(true);
    loop {
        match lines.next_line(|| printer.flush())? {
            None => return Err(parser.end_of_input().into()),
            Some(line) => {
                if let Some(setup) = parser.feed(line)? {
                    lines.early(false);
                    return Ok(setup);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_statuses() {
        let setup = "x".parse::<Setup>().unwrap_err();
        assert_eq!(ProtocolError::from(setup).exit_status(), 2);
        assert_eq!(ProtocolError::InputEnded.exit_status(), 3);
        let pipe = ProtocolError::Write(io::ErrorKind::BrokenPipe.into());
        assert!(pipe.is_broken_pipe());
        assert_eq!(pipe.exit_status(), 1);
    }
}
