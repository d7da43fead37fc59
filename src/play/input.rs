//! What a person types at the play prompt: a move or a command, parsed without looking at
//! the game (whether a move is legal is decided later).

use std::{path::PathBuf, time::Duration};

use othello::{Color, MoveList, Shape, Square};

/// One line of input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A blank line: ask again.
    Nothing,
    /// A move, as `d3` or as `3 4` (row then column, 1-based, like the grader).
    Move(Square),
    /// `hint [K]`: the engine's best K moves.
    Hint(usize),
    /// `undo [N]`: back to the previous human turn, N times.
    Undo(usize),
    /// `redo [N]`: forward again after an undo, N times.
    Redo(usize),
    /// `play f5d6c3`: moves in a row, passes implicit.
    PlayMoves(Vec<Square>),
    /// `setboard CELLS SIDE`: a new start position (and a new game from it).
    SetBoard {
        /// One character a cell, row by row: `X`, `B` or `*` Black, `O` or `W` White, `-`
        /// or `.` empty.
        cells: String,
        /// Who moves first.
        side: Color,
    },
    /// `go`: the computer plays the side to move now.
    Go,
    /// `mode N`: who the computer plays, as in Edax: 0 White, 1 Black, 2 both, 3 neither.
    Mode(u8),
    /// `level N`: the engine's level (1 to 10) for the computer's seats.
    Level(u8),
    /// `time T`: the computer's time per move.
    Time(Duration),
    /// `init`: a new game from the standard start of this board.
    Init,
    /// `analyze`: every move so far against the engine's best.
    Analyze,
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
    /// `help [COMMAND]`.
    Help(Option<String>),
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
            ("undo" | "u", []) => Input::Undo(1),
            ("redo" | "r", []) => Input::Redo(1),
            ("undo" | "u" | "redo" | "r", [count]) => match count.parse::<usize>() {
                Ok(count @ 1..=MAX_STEPS) if command.starts_with('u') => Input::Undo(count),
                Ok(count @ 1..=MAX_STEPS) => Input::Redo(count),
                _ => unknown(format!(
                    "{command} takes a number of turns from 1 to {MAX_STEPS}, not {count:?}"
                )),
            },
            ("play", []) => unknown("play takes moves: play f5d6c3".into()),
            ("play", moves) => match moves.concat().parse::<MoveList>() {
                Ok(list) => Input::PlayMoves(list.0),
                Err(error) => unknown(format!("play: {error}")),
            },
            ("setboard", cells) => parse_setboard(cells, shape),
            ("go", []) => Input::Go,
            ("mode" | "m", [mode]) => match mode.parse::<u8>() {
                Ok(mode @ 0..=3) => Input::Mode(mode),
                _ => unknown(format!(
                    "mode is 0 (the computer plays White), 1 (Black), 2 (both) or 3 (neither), not {mode:?}"
                )),
            },
            ("level" | "l", [level]) => match level.parse::<u8>() {
                Ok(level @ 1..=10) => Input::Level(level),
                _ => unknown(format!("level is from 1 to 10, not {level:?}")),
            },
            ("time", [time]) => match parse_time(time) {
                Some(time) => Input::Time(time),
                None => unknown(format!(
                    "time is the computer's time per move: 2s, 500ms, 1m30s, 0:30 or a number of seconds (at most an hour), not {time:?}"
                )),
            },
            ("init" | "i", []) => Input::Init,
            ("analyze" | "analyse" | "a", []) => Input::Analyze,
            ("help" | "?", [topic]) => Input::Help(Some(topic.to_ascii_lowercase())),
            ("history", []) => Input::History,
            ("save" | "save!", ["--grader"]) => {
                unknown("save --grader takes a file name: save --grader FILE.in".into())
            }
            ("save" | "save!", [option, ..])
                if option.starts_with("--") && *option != "--grader" =>
            {
                unknown(format!(
                    "save: unknown option {option:?} (save FILE, or save --grader FILE.in; a file whose name starts with -- is ./--name)"
                ))
            }
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
            ("help" | "?", []) => Input::Help(None),
            ("quit" | "exit" | "q", []) => Input::Quit,
            ("pass", []) => Input::Pass,
            ("yes" | "y", []) => Input::Yes,
            ("no" | "n", []) => Input::No,
            (
                "hint" | "hints" | "history" | "new" | "quit" | "exit" | "go" | "init" | "analyze",
                _,
            ) => unknown(format!(
                "{command} takes no arguments here: type help {command}"
            )),
            ("mode" | "m" | "level" | "l" | "time", _) => {
                unknown(format!("{command} takes one value: type help {command}"))
            }
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

/// The most turns `undo N` or `redo N` takes at once.
pub const MAX_STEPS: usize = 999;

/// The longest time per move `time` accepts.
const MAX_TIME: Duration = Duration::from_secs(3600);

/// `time`'s value: `2s`, `500ms`, `1m30s` (humantime), `0:30` (minutes and seconds) or a
/// plain number of seconds; more than nothing and at most an hour.
pub fn parse_time(text: &str) -> Option<Duration> {
    parse_duration(text, MAX_TIME)
}

/// A duration as people write one (see [`parse_time`]), more than nothing and at most
/// `max`.
pub fn parse_duration(text: &str, max: Duration) -> Option<Duration> {
    if !units_in_range(text) {
        return None;
    }
    let time = if let Some((minutes, seconds)) = text.split_once(':') {
        let minutes: u64 = minutes.parse().ok()?;
        let seconds: f64 = seconds.parse().ok()?;
        if !(0.0..60.0).contains(&seconds) {
            return None;
        }
        Duration::from_secs(minutes * 60) + Duration::try_from_secs_f64(seconds).ok()?
    } else if let Ok(seconds) = text.parse::<f64>() {
        Duration::try_from_secs_f64(seconds).ok()?
    } else {
        humantime::parse_duration(text).ok()?
    };
    (!time.is_zero() && time <= max).then_some(time)
}

/// Whether each part of a duration such as `1m30s` after the first is within its unit
/// (`1m99s` is a typo, not 159 seconds): seconds and minutes under 60, hours under 24,
/// milliseconds under 1000.
fn units_in_range(text: &str) -> bool {
    let mut parts = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let after = &rest[digits..];
        let unit_len = after.len()
            - after
                .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                .len();
        if digits == 0 || unit_len == 0 {
            return true; // not this shape: the parser decides
        }
        parts.push((&rest[..digits], &after[..unit_len]));
        rest = after[unit_len..].trim_start();
    }
    parts.iter().skip(1).all(|(number, unit)| {
        let limit = match *unit {
            "s" | "sec" | "secs" | "second" | "seconds" | "m" | "min" | "mins" | "minute"
            | "minutes" => 60,
            "h" | "hr" | "hrs" | "hour" | "hours" => 24,
            "ms" | "msec" | "millis" => 1000,
            _ => u64::MAX,
        };
        number.parse::<u64>().is_ok_and(|n| n < limit)
    })
}

/// `setboard CELLS SIDE`, or `setboard CELLSSIDE` in one word as Edax writes it (65
/// characters on 8x8).
fn parse_setboard(words: &[&str], shape: Shape) -> Input {
    let cells_wanted = shape.cells();
    let text: String = words.concat();
    let usage = || {
        Input::Unknown(format!(
            "setboard takes {cells_wanted} cells (row by row: X, B or * Black; O or W White; - or . empty) and the side to move (B or W), such as setboard {} B",
            "-".repeat(cells_wanted.min(8)) + "..."
        ))
    };
    if words.is_empty() {
        return usage();
    }
    let found = text.chars().count();
    if found != cells_wanted + 1 {
        return Input::Unknown(format!(
            "setboard: {found} characters, but the {shape} board takes {cells_wanted} cells and \
             the side to move ({} in all)",
            cells_wanted + 1
        ));
    }
    let (cells, side) = text.split_at(text.len() - 1);
    let side = match side {
        "b" | "B" | "x" | "X" | "*" => Color::Black,
        "w" | "W" | "o" | "O" => Color::White,
        other => {
            return Input::Unknown(format!(
                "setboard: the side to move is B or W (X or O), not {other:?}"
            ));
        }
    };
    if let Some((index, bad)) = cells
        .chars()
        .enumerate()
        .find(|(_, c)| !"xXbB*oOwW-.".contains(*c))
    {
        let square = shape.squares().nth(index).expect("within the board");
        return Input::Unknown(format!(
            "setboard: cell {} ({square}) is {bad:?}: cells are X, B or * (Black), O or W \
             (White), - or . (empty)",
            index + 1
        ));
    }
    Input::SetBoard {
        cells: cells.to_owned(),
        side,
    }
}

/// One command's help: its names, its usage and what it does.
struct CommandHelp {
    names: &'static [&'static str],
    usage: &'static str,
    summary: &'static str,
    details: &'static str,
}

/// Every command, in the order `help` lists them.
const COMMANDS: &[CommandHelp] = &[
    CommandHelp {
        names: &["hint", "hints"],
        usage: "hint [K]",
        summary: "the engine's best K moves (default 3) with scores",
        details: "Scores are final disc differences for the side to move: exact (whole \
                  discs, marked exact) where the solver reaches, else the search's estimate. \
                  The search takes the time per move (see time).",
    },
    CommandHelp {
        names: &["play"],
        usage: "play MOVES",
        summary: "play moves in a row: play f5d6c3 (passes are implicit)",
        details: "The moves are played from the position now, one after the other; a side \
                  with no legal move passes by itself. If one of them is not legal, none is \
                  played and the reply says which.",
    },
    CommandHelp {
        names: &["go"],
        usage: "go",
        summary: "the computer plays the side to move now",
        details: "One move, at the engine's level and time per move, whoever's seat it is.",
    },
    CommandHelp {
        names: &["mode", "m"],
        usage: "mode N",
        summary: "who the computer plays: 0 White, 1 Black, 2 both, 3 neither",
        details: "As in Edax. The computer plays at the engine's level (see level); in mode 2 \
                  it plays both sides to the end of the game.",
    },
    CommandHelp {
        names: &["level", "l"],
        usage: "level N",
        summary: "the engine's level, 1 (weakest) to 10",
        details: "Applies to the computer's seats now and to go, mode and hint. Levels 1 to 5 \
                  make mistakes now and then, as people do; 10 searches as deep as the time \
                  allows.",
    },
    CommandHelp {
        names: &["time"],
        usage: "time T",
        summary: "the computer's time per move: 2s, 500ms, 1m30s, 0:30 or seconds",
        details: "Also the time a hint and each move of analyze search. With a game clock \
                  (--game-time), the computer also keeps within its clock.",
    },
    CommandHelp {
        names: &["undo", "u"],
        usage: "undo [N]",
        summary: "take back moves: to your previous turn (N times)",
        details: "Against the computer, back to the previous turn of a person; between \
                  people, one move. redo plays them again.",
    },
    CommandHelp {
        names: &["redo", "r"],
        usage: "redo [N]",
        summary: "replay moves taken back (N times)",
        details: "Up to the next turn of a person each time.",
    },
    CommandHelp {
        names: &["history"],
        usage: "history",
        summary: "the moves so far, numbered, and as one transcript string",
        details: "Black's moves on the left, White's on the right; -- marks a pass.",
    },
    CommandHelp {
        names: &["analyze", "analyse", "a"],
        usage: "analyze",
        summary: "every move so far against the engine's best, with the discs it lost",
        details: "Each position is searched for the time per move (exactly where the solver \
                  reaches: marked exact). Moves that lose 4 discs or more are flagged as \
                  mistakes, 10 or more as blunders; then each side's total loss and worst \
                  move. othello analyze FILE does the same for a saved game.",
    },
    CommandHelp {
        names: &["save", "save!"],
        usage: "save FILE",
        summary: "save the game; the extension picks the format (.ggf, .txt, .in, else a record)",
        details: "FILE.ggf: GGF (8x8 FULL only); FILE.txt: a transcript such as f5d6c3 (games \
                  from the standard start only); FILE.in: a grader input (also save --grader \
                  FILE); any other name (FILE.rec, say): this program's game record, which \
                  keeps everything. Quote a name with spaces. A file that is not a saved game \
                  is not replaced unless you type save! FILE.",
    },
    CommandHelp {
        names: &["load", "open", "o"],
        usage: "load FILE",
        summary: "load a saved game: record, GGF, transcript, grader input or OBF board",
        details: "The format is read from the file. A file that does not state its rules or \
                  start (a bare transcript) is loaded under this game's.",
    },
    CommandHelp {
        names: &["setboard"],
        usage: "setboard CELLS SIDE",
        summary: "start from a position: setboard <cells row by row> <B|W>",
        details: "One character a cell from a1 along each row: X, B or * for Black, O or W for \
                  White, - or . for empty; then who moves (B or W). As Edax also writes it, \
                  the side may follow the cells without a space. new starts again from it.",
    },
    CommandHelp {
        names: &["new", "n"],
        usage: "new",
        summary: "start again from the start of this game (the setboard position, if any)",
        details: "The same players and settings.",
    },
    CommandHelp {
        names: &["init", "i"],
        usage: "init",
        summary: "start again from the standard start of this board",
        details: "The same players and settings.",
    },
    CommandHelp {
        names: &["help", "?"],
        usage: "help [COMMAND]",
        summary: "this list, or more about one command",
        details: "",
    },
    CommandHelp {
        names: &["quit", "exit", "q"],
        usage: "quit",
        summary: "leave (so does the end of the input)",
        details: "",
    },
];

/// The help text: how moves are typed, then one command a line.
pub fn help_text() -> String {
    let mut text = String::from(
        "moves:   d3 (column letter, row number; a1 is the top-left corner) or 3 4 (row column)\n",
    );
    for command in COMMANDS {
        text.push_str(&format!("{:<20} {}\n", command.usage, command.summary));
    }
    text.push_str("help COMMAND tells more about one command.\n");
    text
}

/// More about one command, or `None` if there is no such command.
pub fn command_help(topic: &str) -> Option<String> {
    let command = COMMANDS.iter().find(|c| c.names.contains(&topic))?;
    let mut text = format!("{}: {}", command.usage, command.summary);
    if !command.details.is_empty() {
        text.push_str(&format!("\n{}", command.details));
    }
    if command.names.len() > 1 {
        text.push_str(&format!("\n(also: {})", command.names[1..].join(", ")));
    }
    Some(text)
}

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
        assert_eq!(parse("undo"), Input::Undo(1));
        assert_eq!(parse("redo"), Input::Redo(1));
        assert_eq!(parse("undo 3"), Input::Undo(3));
        assert_eq!(parse("r 2"), Input::Redo(2));
        assert!(matches!(parse("undo 0"), Input::Unknown(_)));
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
        assert_eq!(parse("help"), Input::Help(None));
        assert_eq!(parse("help Mode"), Input::Help(Some("mode".into())));
        assert_eq!(parse("quit"), Input::Quit);
        assert_eq!(parse("exit"), Input::Quit);
        assert_eq!(parse("y"), Input::Yes);
        assert_eq!(parse("no"), Input::No);
        assert!(matches!(parse("go 2"), Input::Unknown(why) if why.contains("no arguments")));
        assert!(matches!(parse("dance"), Input::Unknown(why) if why.contains("type help")));
    }

    #[test]
    fn edax_commands() {
        let squares = |text: &str| text.parse::<MoveList>().unwrap().0;
        assert_eq!(parse("play f5d6c3"), Input::PlayMoves(squares("f5d6c3")));
        assert_eq!(parse("play F5 d6 C3"), Input::PlayMoves(squares("f5d6c3")));
        assert!(matches!(parse("play f5z9"), Input::Unknown(why) if why.starts_with("play: ")));
        assert!(matches!(parse("play"), Input::Unknown(_)));
        assert_eq!(parse("go"), Input::Go);
        assert_eq!(parse("mode 2"), Input::Mode(2));
        assert!(matches!(parse("mode 4"), Input::Unknown(_)));
        assert!(matches!(parse("mode"), Input::Unknown(_)));
        assert_eq!(parse("level 5"), Input::Level(5));
        assert!(matches!(parse("level 11"), Input::Unknown(_)));
        assert_eq!(parse("time 2s"), Input::Time(Duration::from_secs(2)));
        assert_eq!(parse("time 500ms"), Input::Time(Duration::from_millis(500)));
        assert_eq!(parse("time 1:30"), Input::Time(Duration::from_secs(90)));
        assert_eq!(parse("time 0.25"), Input::Time(Duration::from_millis(250)));
        for bad in [
            "time 0",
            "time -1",
            "time nan",
            "time 2h",
            "time 1:75",
            "time soon",
        ] {
            assert!(matches!(parse(bad), Input::Unknown(_)), "{bad}");
        }
        assert_eq!(parse("init"), Input::Init);
        assert_eq!(parse("analyze"), Input::Analyze);
        let start = "---------------------------OX------XO---------------------------";
        let expected = Input::SetBoard {
            cells: start.into(),
            side: Color::Black,
        };
        assert_eq!(parse(&format!("setboard {start} B")), expected);
        assert_eq!(parse(&format!("setboard {start}*")), expected);
        assert!(matches!(
            parse(&format!("setboard {start}")),
            Input::Unknown(_)
        ));
        assert!(matches!(
            parse(&format!("setboard {start} Z")),
            Input::Unknown(_)
        ));
        assert!(matches!(parse("setboard ---- B"), Input::Unknown(_)));
        // Other sizes: as many cells as the board has.
        assert!(matches!(
            Input::parse("setboard ................ W", Shape::new(4, 4).unwrap()),
            Input::SetBoard {
                side: Color::White,
                ..
            }
        ));
    }

    #[test]
    fn help_for_each_command() {
        let text = help_text();
        for command in COMMANDS {
            assert!(text.contains(command.usage), "{}", command.usage);
            for name in command.names {
                let help = command_help(name).unwrap();
                assert!(help.starts_with(command.usage), "{name}: {help}");
            }
        }
        assert_eq!(command_help("dance"), None);
    }
}
