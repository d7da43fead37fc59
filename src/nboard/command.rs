//! The GUI's lines, read one [`Command`] at a time. Syntax only: whether a move is legal or a
//! game replays is the session's business, so the input thread can parse every line (and so
//! recognise a `ping` while a search runs) without touching the game.

use std::str::FromStr;

use othello::{MAX_LINE_LEN, ParseRecordError, Record, RecordFormat, Shape, Square};
use thiserror::Error;

/// The deepest midgame search `set depth` accepts, in plies: a game has at most 60 moves, so
/// anything deeper is the same search.
pub const MAX_DEPTH: u32 = 60;

/// The most moves a `hint` ranks (an 8 × 8 position never has more legal moves).
pub const MAX_HINTS: usize = 64;

/// How much of a bad argument a refusal quotes, in characters.
const EXCERPT_CHARS: usize = 40;

/// One line from the GUI.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `nboard <version>`: the GUI's first line.
    Nboard(u32),
    /// `set depth <plies>`: the midgame depth, from 1 to [`MAX_DEPTH`].
    SetDepth(u32),
    /// `set game <GGF>`: the position is now the end of this game.
    SetGame(Box<Record>),
    /// `set contempt <discs>`: the value of a draw for Black.
    SetContempt(f64),
    /// `move <square>[/<eval>[/<time>]]`; `None` is `move PA`, a pass. The evaluation and time
    /// the GUI attaches are checked to be numbers, then dropped: nothing uses them.
    Move(Option<Square>),
    /// `hint <n>`: rank the best n moves (1 when n is left out; at most [`MAX_HINTS`]).
    Hint(usize),
    /// `go`: choose a move for the side to move, without playing it.
    Go,
    /// `ping <n>`: stop searching, then answer `pong <n>`.
    Ping(i64),
    /// `learn`: add the game to a book.
    Learn,
    /// `analyze`: evaluate every position of the game.
    Analyze,
    /// A command this engine does not know, `set` of a parameter it does not know, or a
    /// blank line: ignored, as the protocol asks (GUIs send commands that not every engine
    /// implements).
    Unknown,
}

/// A line that names a command but cannot be obeyed as written. The session answers it with
/// a `status` line and goes on.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CommandError {
    /// The line is not UTF-8 text.
    #[error("ignored a line that is not UTF-8 text")]
    NotText,
    /// The line is longer than any command.
    #[error("ignored a line longer than {MAX_LINE_LEN} bytes")]
    TooLong,
    /// A command's argument is missing or malformed.
    #[error("{command}: expected {expected}, found {found:?}")]
    Argument {
        /// The command, such as `set depth`.
        command: &'static str,
        /// What it takes.
        expected: &'static str,
        /// What came instead (cut to a few dozen characters).
        found: String,
    },
    /// `set game` with text that is not a GGF game.
    #[error("set game: expected a GGF game (;GM[Othello]...;), found {found:?}")]
    NotGgf {
        /// The start of the text.
        found: String,
    },
    /// `set game` with a GGF game that does not parse.
    #[error("set game: {0}")]
    Game(#[source] ParseRecordError),
}

impl Command {
    /// Reads one line (without its line ending).
    ///
    /// # Errors
    /// [`CommandError`] when the line names a command but its arguments are wrong.
    pub fn parse(line: &str) -> Result<Command, CommandError> {
        let (word, rest) = split_word(line);
        match word {
            "nboard" => Ok(Command::Nboard(number(
                "nboard",
                "a protocol version",
                rest,
            )?)),
            "set" => Command::parse_set(rest),
            "move" => Ok(Command::Move(parse_move(rest)?)),
            "hint" => {
                let count: usize = if rest.is_empty() {
                    1
                } else {
                    number("hint", "a number of moves from 1", rest)?
                };
                if count == 0 {
                    return Err(argument("hint", "a number of moves from 1", rest));
                }
                Ok(Command::Hint(count.min(MAX_HINTS)))
            }
            "go" => Ok(Command::Go),
            "ping" => Ok(Command::Ping(number("ping", "an integer", rest)?)),
            "learn" => Ok(Command::Learn),
            "analyze" => Ok(Command::Analyze),
            _ => Ok(Command::Unknown),
        }
    }

    /// `set <parameter> <value>`, `rest` being what follows `set`.
    fn parse_set(rest: &str) -> Result<Command, CommandError> {
        let (parameter, value) = split_word(rest);
        match parameter {
            "depth" => {
                const EXPECTED: &str = "a depth from 1 to 60";
                let depth: u32 = number("set depth", EXPECTED, value)?;
                if !(1..=MAX_DEPTH).contains(&depth) {
                    return Err(argument("set depth", EXPECTED, value));
                }
                Ok(Command::SetDepth(depth))
            }
            "game" => {
                let (record, stated) = Record::parse_stated(value).map_err(|error| {
                    if value.starts_with("(;") {
                        CommandError::Game(error)
                    } else {
                        CommandError::NotGgf {
                            found: excerpt(value),
                        }
                    }
                })?;
                if stated.format != RecordFormat::Ggf {
                    return Err(CommandError::NotGgf {
                        found: excerpt(value),
                    });
                }
                Ok(Command::SetGame(Box::new(record)))
            }
            "contempt" => {
                let contempt: f64 = number("set contempt", "a number of discs", value)?;
                if !contempt.is_finite() {
                    return Err(argument("set contempt", "a number of discs", value));
                }
                Ok(Command::SetContempt(contempt))
            }
            _ => Ok(Command::Unknown),
        }
    }
}

/// The square of `move <square>[/<eval>[/<time>]]` (`None` for `PA`), `rest` being what
/// follows `move`.
fn parse_move(rest: &str) -> Result<Option<Square>, CommandError> {
    const EXPECTED: &str = "a square from A1 to H8 or PA, then optionally /eval/time";
    let error = || argument("move", EXPECTED, rest);
    let mut parts = rest.split('/');
    let square = parts.next().unwrap_or_default();
    // The evaluation and the time: numbers, or left empty (`F5//1.5`).
    let extras: Vec<&str> = parts.collect();
    let numbers = extras
        .iter()
        .all(|part| part.is_empty() || part.parse::<f64>().is_ok_and(f64::is_finite));
    if extras.len() > 2 || !numbers || rest.contains(char::is_whitespace) {
        return Err(error());
    }
    if square.eq_ignore_ascii_case("PA") {
        return Ok(None);
    }
    square
        .parse::<Square>()
        .ok()
        .filter(|&square| Shape::STANDARD.contains(square))
        .map(Some)
        .ok_or_else(error)
}

/// The first word of `line` and the rest, both trimmed.
fn split_word(line: &str) -> (&str, &str) {
    let line = line.trim();
    match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    }
}

/// `text` as one number (a single word).
fn number<T: FromStr>(
    command: &'static str,
    expected: &'static str,
    text: &str,
) -> Result<T, CommandError> {
    text.parse().map_err(|_| argument(command, expected, text))
}

fn argument(command: &'static str, expected: &'static str, found: &str) -> CommandError {
    CommandError::Argument {
        command,
        expected,
        found: excerpt(found),
    }
}

/// The start of `text`, at most [`EXCERPT_CHARS`] characters, `...` marking a cut.
fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(text: &str) -> Square {
        text.parse().unwrap()
    }

    #[test]
    fn every_command_reads() {
        assert_eq!(Command::parse("nboard 2"), Ok(Command::Nboard(2)));
        assert_eq!(Command::parse("set depth 12"), Ok(Command::SetDepth(12)));
        assert_eq!(
            Command::parse("set contempt -1.5"),
            Ok(Command::SetContempt(-1.5))
        );
        assert_eq!(
            Command::parse("move F5"),
            Ok(Command::Move(Some(square("f5"))))
        );
        assert_eq!(
            Command::parse("move d3/-1.25/0.8"),
            Ok(Command::Move(Some(square("d3"))))
        );
        assert_eq!(
            Command::parse("move c4//2"),
            Ok(Command::Move(Some(square("c4"))))
        );
        assert_eq!(Command::parse("move PA"), Ok(Command::Move(None)));
        assert_eq!(Command::parse("move pa/0.00/0"), Ok(Command::Move(None)));
        assert_eq!(Command::parse("hint 3"), Ok(Command::Hint(3)));
        assert_eq!(Command::parse("hint"), Ok(Command::Hint(1)));
        assert_eq!(Command::parse("hint 1000"), Ok(Command::Hint(MAX_HINTS)));
        assert_eq!(Command::parse("go"), Ok(Command::Go));
        assert_eq!(Command::parse("  ping 17 \r"), Ok(Command::Ping(17)));
        assert_eq!(Command::parse("learn"), Ok(Command::Learn));
        assert_eq!(Command::parse("analyze"), Ok(Command::Analyze));
    }

    #[test]
    fn set_game_reads_ggf_with_evaluations_and_passes() {
        let ggf = "(;GM[Othello]PC[NBoard]PB[me]PW[you]RE[?]TI[5:00]TY[8]\
                   BO[8 ---------------------------O*------*O--------------------------- *]\
                   B[F5//1.2]W[F6/-0.5/3];)";
        let Ok(Command::SetGame(record)) = Command::parse(&format!("set game {ggf}")) else {
            panic!("not a game");
        };
        assert_eq!(record.moves, [square("f5"), square("f6")]);
        // Issue 22.10: a pass by a side that has a move is refused, naming it.
        let needless = ggf.replace(";)", "B[PA];)");
        let refused = Command::parse(&format!("set game {needless}"));
        assert!(
            refused
                .unwrap_err()
                .to_string()
                .contains("move 3: B[PA], but Black has a move to play"),
        );
    }

    #[test]
    fn unknown_commands_and_parameters_are_ignored() {
        for line in [
            "",
            "   ",
            "quit",
            "F5",
            "set myname x",
            "set",
            "xyzzy 1 2 3",
            "\u{1}",
        ] {
            assert_eq!(Command::parse(line), Ok(Command::Unknown), "{line:?}");
        }
    }

    #[test]
    fn bad_arguments_say_what_is_wrong() {
        let message = |line: &str| Command::parse(line).unwrap_err().to_string();
        assert_eq!(
            message("set depth 0"),
            "set depth: expected a depth from 1 to 60, found \"0\""
        );
        assert_eq!(
            message("set depth deep"),
            "set depth: expected a depth from 1 to 60, found \"deep\""
        );
        assert_eq!(
            message("move Z9"),
            "move: expected a square from A1 to H8 or PA, then optionally /eval/time, found \"Z9\""
        );
        for line in [
            "move",
            "move I1",
            "move A9",
            "move f5/x",
            "move f5/1/2/3",
            "move f5 d6",
            "move p16",
            "nboard",
            "nboard two",
            "ping",
            "ping one",
            "hint 0",
            "hint -2",
            "set contempt lots",
            "set contempt inf",
        ] {
            assert!(
                matches!(Command::parse(line), Err(CommandError::Argument { .. })),
                "{line:?}"
            );
        }
        assert!(matches!(
            Command::parse("set game f5d6"),
            Err(CommandError::NotGgf { .. })
        ));
        assert!(matches!(
            Command::parse("set game (;GM[Othello]BO[8 ***];)"),
            Err(CommandError::Game(_))
        ));
        assert!(matches!(
            Command::parse("set game (;GM[Othello]"),
            Err(CommandError::Game(_))
        ));
    }

    #[test]
    fn long_arguments_are_cut_when_quoted() {
        let line = format!("set depth {}", "9".repeat(100));
        let message = Command::parse(&line).unwrap_err().to_string();
        assert!(
            message.ends_with(&format!("\"{}...\"", "9".repeat(40))),
            "{message}"
        );
    }
}
