//! GGF, the Generic Game Format of the GGS game server, for 8 × 8 Othello:
//! `(;GM[Othello]PB[..]PW[..]DT[..]TY[8]BO[8 <64 cells> *]B[F5//0.01]W[D6]..;)`.
//!
//! Tags are an upper-case name and a value in brackets, where `\]` stands for `]` (and `\\`
//! for `\`). `BO` holds the size, the cells row by row (`*` black, `O` white, `-` empty, rows
//! optionally separated by spaces) and the side to move; `B` and `W` hold moves, a square or
//! `PA` (a pass), optionally followed by `/evaluation/time`.

use std::fmt::Write as _;

use thiserror::Error;

use super::{Ending, ParseRecordError, Record, excerpt};
use crate::{
    Board, Color, Full, Game, MoveError, ReplayError, Setup, Shape, Square, Variant, WinRule,
};

/// A record that GGF cannot hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum GgfExportError {
    /// GGF Othello is played on 8 × 8 boards only.
    #[error("ggf holds only 8x8 games, not {0}")]
    Shape(Shape),
    /// GGF Othello is played under full rules only.
    #[error("ggf holds only games under full rules, not {0}")]
    Variant(Variant),
    /// A move is not legal, so the passes cannot be placed.
    #[error("cannot write the game as ggf: {0}")]
    Replay(#[from] ReplayError),
}

/// Reads one GGF game; `text` is trimmed and starts with `(;`.
pub(super) fn parse(text: &str) -> Result<Record, ParseRecordError> {
    let mut rest = text.strip_prefix("(;").unwrap_or(text);
    let mut record = Record::new(Variant::Full, Setup::standard(Shape::STANDARD));
    let mut board: Option<(Board, Color)> = None;
    let mut win_rule = WinRule::MostDiscs;
    let mut move_tags = 0;
    // Each move tag: its number, colour, square (`None` for a pass) and text.
    let mut tags: Vec<(usize, Color, Option<Square>, String)> = Vec::new();
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix(";)") {
            let after = after.trim();
            if !after.is_empty() {
                return Err(ParseRecordError::GgfTrailingText {
                    found: excerpt(after),
                });
            }
            break;
        }
        if rest.is_empty() {
            return Err(ParseRecordError::GgfUnterminated);
        }
        let name_len = rest.bytes().take_while(u8::is_ascii_alphanumeric).count();
        let (name, after) = rest.split_at(name_len);
        let after = after
            .strip_prefix('[')
            .filter(|_| !name.is_empty())
            .ok_or_else(|| ParseRecordError::GgfSyntax {
                found: excerpt(rest),
            })?;
        let (value, after) = tag_value(after)
            .ok_or_else(|| ParseRecordError::GgfUnclosedTag { tag: excerpt(name) })?;
        rest = after;
        match name {
            "GM" => {
                let game = value.trim();
                if !["othello", "reversi"]
                    .iter()
                    .any(|name| game.eq_ignore_ascii_case(name))
                {
                    return Err(ParseRecordError::GgfGame {
                        found: excerpt(&value),
                    });
                }
            }
            "PB" => record.players[0] = value,
            "PW" => record.players[1] = value,
            "DT" => record.date = Some(value),
            // A rating that does not read as a number is left out, as other unknown text.
            "RB" => record.ratings[0] = rating_of(&value),
            "RW" => record.ratings[1] = rating_of(&value),
            "TY" => win_rule = game_type(&value)?,
            "BO" => board = Some(parse_board(&value)?),
            "B" | "W" => {
                move_tags += 1;
                let colour = if name == "B" {
                    Color::Black
                } else {
                    Color::White
                };
                let written = value.split('/').next().unwrap_or_default().trim();
                let square = if written.eq_ignore_ascii_case("PA") {
                    None
                } else {
                    Some(
                        written
                            .parse::<Square>()
                            .ok()
                            .filter(|&square| Shape::STANDARD.contains(square))
                            .ok_or_else(|| ParseRecordError::GgfMove {
                                number: move_tags,
                                found: excerpt(&value),
                            })?,
                    )
                };
                tags.push((
                    move_tags,
                    colour,
                    square,
                    format!("{name}[{}]", excerpt(written)),
                ));
                record.moves.extend(square);
            }
            _ => {}
        }
    }
    if let Some((board, side)) = board {
        record.setup.board = board;
        record.setup.first_mover = side;
    }
    record.setup.win_rule = win_rule;
    check_turns(&record.setup, &tags)?;
    Ok(record)
}

/// Checks that each move tag is of the side to move and each `PA` a pass the game needs
/// (the side due has no move). A missing `PA` is fine (the game passes on its own); a move
/// that cannot be played is left to the replay to report.
fn check_turns(
    setup: &Setup,
    tags: &[(usize, Color, Option<Square>, String)],
) -> Result<(), ParseRecordError> {
    let mut game = Game::<Full>::new(*setup);
    let mut due = setup.first_mover;
    for (number, colour, square, tag) in tags {
        let Some(to_move) = game.side_to_move() else {
            // After the end: a replay says what is wrong with a move; a pass is harmless.
            return Ok(());
        };
        match square {
            None if *colour == due && to_move != due => {}
            None => {
                return Err(ParseRecordError::GgfNeedlessPass {
                    number: *number,
                    tag: tag.clone(),
                    to_move,
                });
            }
            Some(_) if *colour != to_move => {
                return Err(ParseRecordError::GgfTurn {
                    number: *number,
                    tag: tag.clone(),
                    to_move,
                });
            }
            Some(square) => {
                if game.play(*square).is_err() {
                    return Ok(());
                }
            }
        }
        due = colour.opponent();
    }
    Ok(())
}

/// The value of a tag whose `[` is just before `text`, unescaped, and the text after its
/// `]`; `None` if it is not closed.
fn tag_value(text: &str) -> Option<(String, &str)> {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => value.push(chars.next()?.1),
            ']' => return Some((value, &text[at + 1..])),
            c => value.push(c),
        }
    }
    None
}

/// The win rule of a game type such as `8`, `s8r20` or `8a`: the board size must be 8; an
/// `a` (anti game) means the fewest discs win.
fn game_type(value: &str) -> Result<WinRule, ParseRecordError> {
    let error = || ParseRecordError::GgfSize {
        tag: "TY",
        found: excerpt(value),
    };
    let start = value.find(|c: char| c.is_ascii_digit()).ok_or_else(error)?;
    let digits = &value[start..];
    let len = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    if digits[..len].trim_start_matches('0') != "8" {
        return Err(error());
    }
    let anti = value.contains(['a', 'A']);
    Ok(if anti {
        WinRule::FewestDiscs
    } else {
        WinRule::MostDiscs
    })
}

/// The board and side to move of a `BO` value.
fn parse_board(value: &str) -> Result<(Board, Color), ParseRecordError> {
    let malformed = || ParseRecordError::GgfBoard {
        found: excerpt(value),
    };
    let mut tokens: Vec<&str> = value.split_whitespace().collect();
    let size = tokens.first().copied().ok_or_else(malformed)?;
    if size != "8" {
        return Err(if size.bytes().all(|b| b.is_ascii_digit()) {
            ParseRecordError::GgfSize {
                tag: "BO",
                found: excerpt(value),
            }
        } else {
            malformed()
        });
    }
    let side = match tokens.pop() {
        Some("*") if tokens.len() > 1 => Color::Black,
        Some("O") if tokens.len() > 1 => Color::White,
        _ => return Err(malformed()),
    };
    let cells: Vec<char> = tokens[1..].iter().flat_map(|token| token.chars()).collect();
    if cells.len() != Shape::STANDARD.cells() {
        return Err(malformed());
    }
    let mut board = Board::empty(Shape::STANDARD);
    for (square, cell) in Shape::STANDARD.squares().zip(cells) {
        let disc = match cell {
            '*' => Some(Color::Black),
            'O' => Some(Color::White),
            '-' => None,
            _ => return Err(malformed()),
        };
        board.set(square, disc);
    }
    Ok((board, side))
}

/// A time as GGF's clocks write it: `mm:ss`, `h:mm:ss` from an hour.
/// A GGF rating (`1338`, `2009.64`), rounded; `None` when it is not a number in range.
fn rating_of(value: &str) -> Option<i32> {
    let rating: f64 = value.trim().parse().ok()?;
    (rating.is_finite() && rating.abs() < 1e6).then(|| rating.round() as i32)
}

fn clock_time(time: std::time::Duration) -> String {
    let seconds = time.as_secs();
    match seconds / 3600 {
        0 => format!("{:02}:{:02}", seconds / 60, seconds % 60),
        hours => format!("{hours}:{:02}:{:02}", seconds / 60 % 60, seconds % 60),
    }
}

/// The GGF text of `record`; see [`Record::to_ggf`].
pub(super) fn write(record: &Record) -> Result<String, GgfExportError> {
    let board = &record.setup.board;
    if !Record::ggf_fits(record.variant, board.shape()) {
        return Err(if record.variant == Variant::Full {
            GgfExportError::Shape(board.shape())
        } else {
            GgfExportError::Variant(record.variant)
        });
    }
    let mut out = String::from("(;GM[Othello]");
    tag(&mut out, "PB", &record.players[0]);
    tag(&mut out, "PW", &record.players[1]);
    if let Some(date) = &record.date {
        tag(&mut out, "DT", date);
    }
    for (name, rating) in [("RB", record.ratings[0]), ("RW", record.ratings[1])] {
        if let Some(rating) = rating {
            let _ = write!(out, "{name}[{rating}]");
        }
    }
    // GGF's TI is a bank of time with an increment: days a move have no way to be written.
    if let Some(clock) = record.clock.filter(|clock| !clock.per_move) {
        let _ = write!(
            out,
            "TI[{}/{}/00:00]",
            clock_time(clock.base()),
            clock_time(clock.increment())
        );
    }
    out.push_str(match record.setup.win_rule {
        WinRule::MostDiscs => "TY[8]",
        WinRule::FewestDiscs => "TY[8a]",
    });
    out.push_str("BO[8 ");
    out.extend(
        Shape::STANDARD
            .squares()
            .map(|square| match board.at(square) {
                Some(Color::Black) => '*',
                Some(Color::White) => 'O',
                None => '-',
            }),
    );
    out.push_str(match record.setup.first_mover {
        Color::Black => " *]",
        Color::White => " O]",
    });

    // Passes are where the side to move is not the one whose turn it would be. (Writing to a
    // `String` cannot fail.)
    let mut game = Game::<Full>::new(record.setup);
    let mut expected = record.setup.first_mover;
    for (index, &square) in record.moves.iter().enumerate() {
        let fail = |error| ReplayError {
            number: index + 1,
            error,
        };
        let side = game.side_to_move().ok_or(fail(MoveError::GameOver))?;
        if side != expected {
            let _ = write!(out, "{expected}[PA]");
        }
        game.play(square).map_err(fail)?;
        let _ = write!(out, "{side}[{}", square.to_string().to_ascii_uppercase());
        // The time the move took, in seconds, after an empty evaluation.
        if let Some(time) = record.times.get(index) {
            let _ = write!(out, "//{:.2}", time.as_secs_f64());
        }
        out.push(']');
        expected = side.opponent();
    }
    if game.side_to_move().is_some_and(|side| side != expected) {
        let _ = write!(out, "{expected}[PA]");
    }
    match record.ending {
        Some(ending) => {
            let sign = if ending.loser() == Color::Black {
                '-'
            } else {
                '+'
            };
            let how = match ending {
                Ending::Resigned(_) => 'r',
                Ending::LostOnTime(_) => 't',
            };
            let _ = write!(out, "RE[{sign}64:{how}]");
        }
        None if game.is_over() => {
            let board = game.board();
            match i64::from(board.count(Color::Black)) - i64::from(board.count(Color::White)) {
                0 => out.push_str("RE[0]"),
                lead => {
                    let _ = write!(out, "RE[{lead:+}]");
                }
            }
        }
        None => {}
    }
    out.push_str(";)");
    Ok(out)
}

/// Appends `name[value]` with `\` and `]` escaped.
fn tag(out: &mut String, name: &str, value: &str) {
    out.push_str(name);
    out.push('[');
    for c in value.chars() {
        if matches!(c, '\\' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push(']');
}
