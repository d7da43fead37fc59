//! Move lists in standard notation, the usual way to write down a game: `f5d6c3d3c4`.

use std::{fmt, str::FromStr};

use thiserror::Error;

use crate::{ParseSquareError, Square};

/// The squares of a game's moves in order; passes are implicit.
///
/// [`Display`](fmt::Display) writes the squares with nothing between them (`f5d6c3`);
/// [`FromStr`] also accepts whitespace between moves and upper-case letters.
///
/// ```
/// use othello::{Full, Game, MoveList, Setup, Shape};
///
/// let moves: MoveList = "f5 D6 c3".parse()?;
/// assert_eq!(moves.to_string(), "f5d6c3");
/// let game = Game::<Full>::replay(Setup::standard(Shape::STANDARD), moves.0.iter().copied())?;
/// assert_eq!(MoveList::from_iter(game.moves()), moves);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct MoveList(pub Vec<Square>);

impl FromIterator<Square> for MoveList {
    fn from_iter<I: IntoIterator<Item = Square>>(squares: I) -> MoveList {
        MoveList(squares.into_iter().collect())
    }
}

impl fmt::Display for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|square| write!(f, "{square}"))
    }
}

impl FromStr for MoveList {
    type Err = ParseMoveListError;

    fn from_str(text: &str) -> Result<MoveList, ParseMoveListError> {
        let mut rest = text.as_bytes().trim_ascii_start();
        let mut squares = Vec::new();
        while !rest.is_empty() {
            // A letter, then the digits after it: at most two make a row number.
            let digits = rest[1..].iter().take_while(|b| b.is_ascii_digit()).count();
            let len = 1 + digits.min(2);
            let square = Square::from_ascii(&rest[..len]).map_err(|mut source| {
                source.found = word(rest).to_owned();
                ParseMoveListError {
                    number: squares.len() + 1,
                    source,
                }
            })?;
            squares.push(square);
            rest = rest[len..].trim_ascii_start();
        }
        Ok(MoveList(squares))
    }
}

/// The word `rest` starts with, as a person reads it: its letters, then its digits (`pass`
/// whole, not its `p`; `x3` of `x3c4`). `rest` starts at a character.
fn word(rest: &[u8]) -> &str {
    let text = std::str::from_utf8(rest).unwrap_or_else(|error| {
        // Cut before the first byte that is not UTF-8 (the text is, so it is a boundary).
        std::str::from_utf8(&rest[..error.valid_up_to()]).unwrap_or_default()
    });
    let letters = text
        .find(|c: char| c.is_ascii_digit() || c.is_whitespace())
        .unwrap_or(text.len())
        .max(text.chars().next().map_or(0, char::len_utf8));
    let digits = text[letters..]
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len() - letters);
    &text[..letters + digits]
}

/// A move list holding something other than squares.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("move {number}: {source}")]
pub struct ParseMoveListError {
    /// The 1-based number of the bad move.
    pub number: usize,
    /// What was wrong with it.
    #[source]
    pub source: ParseSquareError,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_digit_rows_and_whitespace() {
        let moves: MoveList = " a16p1\tc10 b2\n".parse().unwrap();
        assert_eq!(
            moves.0,
            [
                Square::new(15, 0),
                Square::new(0, 15),
                Square::new(9, 2),
                Square::new(1, 1)
            ]
        );
        assert_eq!(moves.to_string(), "a16p1c10b2");
        assert_eq!("".parse::<MoveList>(), Ok(MoveList::default()));
    }

    #[test]
    fn errors_name_the_move() {
        assert_eq!(
            "f5d6x3".parse::<MoveList>().unwrap_err().to_string(),
            "move 3: expected a square from a1 to p16, found \"x3\""
        );
        assert!("f5d".parse::<MoveList>().is_err());
        // Issue 44.15: the whole wrong word, not its first letter.
        assert_eq!(
            "f5 pass d6".parse::<MoveList>().unwrap_err().to_string(),
            "move 2: expected a square from a1 to p16, found \"pass\""
        );
        assert_eq!(
            "f5passd6".parse::<MoveList>().unwrap_err().to_string(),
            "move 2: expected a square from a1 to p16, found \"passd6\""
        );
        assert_eq!("f5 é1".parse::<MoveList>().unwrap_err().source.found, "é1");
        assert!("f55".parse::<MoveList>().is_err());
        assert!("é1".parse::<MoveList>().is_err());
    }
}
