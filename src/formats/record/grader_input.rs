//! Grader inputs as saved games: the header and board, then the move lines as the grader
//! reads them.

use super::ParseRecordError;
use crate::{Record, Setup, Shape, Square, Variant};

/// Whether `text` starts like a grader input: its first line holds only a number.
pub(super) fn looks_like_grader_input(text: &str) -> bool {
    text.lines()
        .next()
        .map(str::trim)
        .is_some_and(|line| !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()))
}

/// Reads a grader input: the header and board, then the move lines as the grader reads
/// them (`row column`, from 1). Lines the grader refuses whatever the position (not two
/// numbers, or off the board) are dropped; see [`Record::keep_playable`] for the rest.
pub(super) fn parse_grader_input(text: &str) -> Result<Record, ParseRecordError> {
    let setup = Setup::from_grader_input(text.as_bytes())?;
    let shape = setup.board.shape();
    let header_and_board = 4 + usize::from(shape.rows());
    let moves = text
        .lines()
        .skip(header_and_board)
        .filter_map(|line| grader_move(line, shape))
        .collect();
    Ok(Record {
        moves,
        ..Record::new(Variant::Full, setup)
    })
}

/// A grader move line's square: two integers (an optional sign, then ASCII digits), row
/// and column from 1, on `shape`.
fn grader_move(line: &str, shape: Shape) -> Option<Square> {
    if line.len() > crate::MAX_LINE_LEN {
        return None;
    }
    let number = |token: &str| -> Option<i64> {
        let digits = token.strip_prefix(['+', '-']).unwrap_or(token);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        token.parse().ok()
    };
    let mut tokens = line.split([' ', '\t', '\r']).filter(|t| !t.is_empty());
    let (row, column) = (number(tokens.next()?)?, number(tokens.next()?)?);
    if tokens.next().is_some() {
        return None;
    }
    let row = usize::try_from(row.checked_sub(1)?).ok()?;
    let column = usize::try_from(column.checked_sub(1)?).ok()?;
    shape.square(row, column)
}
