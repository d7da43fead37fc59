//! What a person types at the play prompt: a move or a command, parsed without looking at
//! the game (whether a move is legal is decided later).

use std::path::PathBuf;

use othello::{Shape, Square};

/// One line of input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A blank line: ask again.
    Nothing,
    /// A move, as `d3` or as `3 4` (row then column, 1-based, like the grader).
    Move(Square),
    /// `hint [K]`: the engine's best K moves.
    Hint(usize),
    /// `undo`: back to the previous human turn.
    Undo,
    /// `redo`: forward again after an undo.
    Redo,
    /// `history`: the moves so far.
    History,
    /// `save FILE`, or `save --grader FILE.in`; `save!` overwrites a file that is not a
    /// saved game.
    Save {
        /// Where.
        path: PathBuf,
        /// Write a grader-protocol input instead of a game record.
        grader: bool,
        /// Overwrite whatever is there.
        force: bool,
    },
    /// `load FILE`.
    Load(PathBuf),
    /// `new`: a new game with the same settings and colours.
    New,
    /// `help`.
    Help,
    /// `quit` (or `exit`).
    Quit,
    /// `pass`: passes are not typed; the game passes for a side with no legal move.
    Pass,
    /// `yes` / `y`: at the end of a game, play again with colours swapped.
    Yes,
    /// `no` / `n`: at the end of a game, stop.
    No,
    /// Anything else, with a one-line explanation.
    Unknown(String),
}

/// The hint count when `hint` is typed alone.
pub const DEFAULT_HINTS: usize = 3;

/// The most moves `hint K` lists.
pub const MAX_HINTS: usize = 64;

impl Input {
    /// Reads one line (without its line ending). Moves are checked against `shape` only for
    /// being on the board; command words are case-insensitive. Words are split as a shell
    /// splits them, so a file name with spaces is quoted: `save "my games/one.txt"`.
    pub fn parse(line: &str, shape: Shape) -> Input {
        let line = line.trim();
        let words = match shell_words::split(line) {
            Ok(words) => words,
            Err(_) => {
                return Input::Unknown(format!(
                    "unclosed quote in {line:?}: quote a file name as \"my file.txt\""
                ));
            }
        };
        let Some((first, rest)) = words.split_first() else {
            return Input::Nothing;
        };
        let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
        let first = first.as_str();
        let command = first.to_ascii_lowercase();
        let unknown = |why: String| Input::Unknown(why);
        match (command.as_str(), rest.as_slice()) {
            ("hint" | "hints", []) => Input::Hint(DEFAULT_HINTS),
            ("hint" | "hints", [count]) => match count.parse::<usize>() {
                Ok(count @ 1..=MAX_HINTS) => Input::Hint(count),
                _ => unknown(format!(
                    "hint takes a number of moves from 1 to {MAX_HINTS}, not {count:?}"
                )),
            },
            ("undo", []) => Input::Undo,
            ("redo", []) => Input::Redo,
            ("history", []) => Input::History,
            ("save" | "save!", [path]) => Input::Save {
                path: PathBuf::from(path),
                grader: false,
                force: command == "save!",
            },
            ("save" | "save!", ["--grader", path]) => Input::Save {
                path: PathBuf::from(path),
                grader: true,
                force: command == "save!",
            },
            ("save" | "save!", _) => unknown(
                "save takes a file name: save FILE, or save --grader FILE.in (quote a name \
                 with spaces)"
                    .into(),
            ),
            ("load", [path]) => Input::Load(PathBuf::from(path)),
            ("load", _) => unknown("load takes a file name: load FILE".into()),
            ("new", []) => Input::New,
            ("help" | "?", []) => Input::Help,
            ("quit" | "exit" | "q", []) => Input::Quit,
            ("pass", []) => Input::Pass,
            ("yes" | "y", []) => Input::Yes,
            ("no" | "n", []) => Input::No,
            (
                "hint" | "hints" | "undo" | "redo" | "history" | "new" | "help" | "quit" | "exit",
                _,
            ) => unknown(format!("{command} takes no arguments here: type help")),
            _ => parse_move(first, &rest, shape).unwrap_or_else(|| {
                unknown(format!(
                    "not a move or a command: {line:?} (moves look like d3 or \"3 4\"; type help)"
                ))
            }),
        }
    }
}

/// `d3` (one word) or `3 4` (row and column, 1-based), on `shape`.
fn parse_move(first: &str, rest: &[&str], shape: Shape) -> Option<Input> {
    let square = match rest {
        [] => first.parse::<Square>().ok()?,
        [column] => {
            let row: u8 = first.parse().ok()?;
            let column: u8 = column.parse().ok()?;
            if row == 0 || column == 0 || row > shape.rows() || column > shape.columns() {
                return Some(Input::Unknown(format!(
                    "{row} {column} is off the {shape} board (rows 1-{}, columns 1-{})",
                    shape.rows(),
                    shape.columns()
                )));
            }
            Square::new(row - 1, column - 1)
        }
        _ => return None,
    };
    Some(if shape.contains(square) {
        Input::Move(square)
    } else {
        Input::Unknown(format!(
            "{square} is off the {shape} board (columns a-{}, rows 1-{})",
            char::from(b'a' + shape.columns() - 1),
            shape.rows()
        ))
    })
}

/// The help text, one command a line.
pub const HELP: &str = "\
moves:   d3 (column letter, row number; a1 is the top-left corner) or 3 4 (row column)
hint [K]         the engine's best K moves (default 3) with scores
undo / redo      take back / replay moves (back to your previous turn against an AI)
history          the moves so far, numbered, and as one transcript string
save FILE        save the game as a record; save --grader FILE.in writes a grader input
                 (quote a name with spaces; save! FILE replaces a file that is not a game)
load FILE        load a game record, transcript (f5d6...), OBF board or GGF game
new              start again with the same settings
help             this list
quit             leave (so does the end of the input)
";

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Input {
        Input::parse(line, Shape::STANDARD)
    }

    #[test]
    fn moves_in_both_notations() {
        let d3 = Input::Move("d3".parse().unwrap());
        assert_eq!(parse("d3"), d3);
        assert_eq!(parse("  D3\r"), d3);
        assert_eq!(parse("3 4"), d3);
        assert_eq!(parse("03\t4"), d3);
        assert!(matches!(parse("i1"), Input::Unknown(why) if why.contains("off the 8x8 board")));
        assert!(
            matches!(parse("9 1"), Input::Unknown(why) if why == "9 1 is off the 8x8 board (rows 1-8, columns 1-8)")
        );
        assert!(matches!(parse("0 4"), Input::Unknown(why) if why.contains("off the 8x8 board")));
        assert!(matches!(parse("3 4 5"), Input::Unknown(_)));
        assert_eq!(
            Input::parse("p16", Shape::new(16, 16).unwrap()),
            Input::Move(Square::new(15, 15))
        );
    }

    #[test]
    fn commands() {
        assert_eq!(parse(""), Input::Nothing);
        assert_eq!(parse("   "), Input::Nothing);
        assert_eq!(parse("hint"), Input::Hint(DEFAULT_HINTS));
        assert_eq!(parse("HINT 5"), Input::Hint(5));
        assert!(matches!(parse("hint 0"), Input::Unknown(_)));
        assert!(matches!(parse("hint x"), Input::Unknown(_)));
        assert_eq!(parse("undo"), Input::Undo);
        assert_eq!(parse("redo"), Input::Redo);
        assert_eq!(parse("history"), Input::History);
        assert_eq!(
            parse("save game.txt"),
            Input::Save {
                path: "game.txt".into(),
                grader: false,
                force: false,
            }
        );
        assert_eq!(
            parse("save --grader case.in"),
            Input::Save {
                path: "case.in".into(),
                grader: true,
                force: false,
            }
        );
        assert_eq!(
            parse("save \"dir with space/g.txt\""),
            Input::Save {
                path: "dir with space/g.txt".into(),
                grader: false,
                force: false,
            }
        );
        assert_eq!(
            parse("save! 'notes.txt'"),
            Input::Save {
                path: "notes.txt".into(),
                grader: false,
                force: true,
            }
        );
        assert!(
            matches!(parse("save \"open"), Input::Unknown(why) if why.contains("unclosed quote"))
        );
        assert_eq!(parse("pass"), Input::Pass);
        assert!(matches!(parse("save"), Input::Unknown(_)));
        assert_eq!(parse("load game.txt"), Input::Load("game.txt".into()));
        assert_eq!(parse("new"), Input::New);
        assert_eq!(parse("help"), Input::Help);
        assert_eq!(parse("quit"), Input::Quit);
        assert_eq!(parse("exit"), Input::Quit);
        assert_eq!(parse("y"), Input::Yes);
        assert_eq!(parse("no"), Input::No);
        assert!(matches!(parse("undo 2"), Input::Unknown(why) if why.contains("no arguments")));
        assert!(matches!(parse("dance"), Input::Unknown(why) if why.contains("type help")));
    }
}
