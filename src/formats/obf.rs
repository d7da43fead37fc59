//! OBF, the one-line board format of Othello test suites such as FFO:
//! `<64 cells> <side>[; move:score; ...] [% comment]`.

use std::{fmt, str::FromStr};

use thiserror::Error;

use crate::{Board, Color, Setup, Shape, Square, WinRule};

/// An 8 × 8 position in OBF, with the scored moves a test suite may list after it.
///
/// Cells run row by row from `a1` (the top-left corner) to `h8`: `X` (or `*`, `B`) black,
/// `O` (or `W`) white, `-` (or `.`) empty. The side to move follows after a space.
///
/// ```
/// use othello::{Color, Obf};
///
/// let start = "---------------------------OX------XO--------------------------- X";
/// let obf: Obf = start.parse()?;
/// assert_eq!(obf.setup.first_mover, Color::Black);
/// assert_eq!(obf.setup.board.count(Color::White), 2);
/// assert_eq!(obf.to_string(), start);
/// let suite: Obf = format!("{start}; d3:+0; c4:+0; % the start").parse()?;
/// assert_eq!(suite.scored_moves.len(), 2);
/// assert_eq!(suite.comment, "the start");
/// # Ok::<_, othello::ParseObfError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Obf {
    /// The position; the side to move is the first mover, most discs wins.
    pub setup: Setup,
    /// Moves with their exact scores, as a test suite lists them (best first).
    pub scored_moves: Vec<(Square, i32)>,
    /// The text after `%`, trimmed.
    pub comment: String,
}

impl Obf {
    /// The position alone, with the given side to move.
    pub fn new(board: Board, side: Color) -> Obf {
        Obf {
            setup: Setup {
                board,
                first_mover: side,
                win_rule: WinRule::MostDiscs,
            },
            scored_moves: Vec::new(),
            comment: String::new(),
        }
    }

    /// The best score the suite gives (the first scored move's).
    pub fn best_score(&self) -> Option<i32> {
        self.scored_moves.first().map(|&(_, score)| score)
    }
}

impl fmt::Display for Obf {
    /// The 64 cells and the side to move (scored moves and comment are not written).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for square in Shape::STANDARD.squares() {
            let cell = match self.setup.board.at(square) {
                Some(Color::Black) => 'X',
                Some(Color::White) => 'O',
                None => '-',
            };
            write!(f, "{cell}")?;
        }
        let side = if self.setup.first_mover == Color::Black {
            'X'
        } else {
            'O'
        };
        write!(f, " {side}")
    }
}

impl FromStr for Obf {
    type Err = ParseObfError;

    fn from_str(line: &str) -> Result<Obf, ParseObfError> {
        let (body, comment) = line.split_once('%').unwrap_or((line, ""));
        let mut fields = body.split(';');
        let position = fields.next().unwrap_or_default().trim();
        let (cells, side) = position
            .split_once(char::is_whitespace)
            .unwrap_or((position, ""));
        let cells: Vec<char> = cells.chars().collect();
        if cells.len() != 64 {
            return Err(ParseObfError::CellCount(cells.len()));
        }
        if side.trim().is_empty() {
            return Err(ParseObfError::MissingSide);
        }
        let mut board = Board::empty(Shape::STANDARD);
        for (square, &cell) in Shape::STANDARD.squares().zip(&cells) {
            let disc = match cell {
                'X' | 'x' | '*' | 'B' | 'b' => Some(Color::Black),
                'O' | 'o' | 'W' | 'w' => Some(Color::White),
                '-' | '.' => None,
                other => return Err(ParseObfError::Cell(other)),
            };
            board.set(square, disc);
        }
        let side = match side.trim() {
            "X" | "x" | "*" | "B" | "b" => Color::Black,
            "O" | "o" | "W" | "w" => Color::White,
            other => return Err(ParseObfError::Side(other.to_owned())),
        };
        let mut obf = Obf::new(board, side);
        for field in fields.map(str::trim).filter(|f| !f.is_empty()) {
            let bad = || ParseObfError::ScoredMove(field.to_owned());
            let (square, score) = field.split_once(':').ok_or_else(bad)?;
            let square = square
                .trim()
                .parse::<Square>()
                .ok()
                .filter(|&square| Shape::STANDARD.contains(square))
                .ok_or_else(bad)?;
            let score = score.trim().parse().map_err(|_| bad())?;
            obf.scored_moves.push((square, score));
        }
        obf.comment = comment.trim().to_owned();
        Ok(obf)
    }
}

/// A line that is not OBF.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseObfError {
    /// The board part has the wrong length.
    #[error(
        "expected 64 board cells (a1 to h8, each X, O or -) before the side to move, found {0}"
    )]
    CellCount(usize),
    /// A board cell other than X, O or -.
    #[error("board cells must be X, O or -, found {0:?}")]
    Cell(char),
    /// No side to move after the cells.
    #[error("expected the side to move (X or O) after the 64 cells")]
    MissingSide,
    /// The side to move is not X or O.
    #[error("the side to move must be X or O, found {0:?}")]
    Side(String),
    /// A scored move is not `square:score`.
    #[error("expected a scored move like a2:+38, found {0:?}")]
    ScoredMove(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ffo_line() {
        let line = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X; a2:+38; c7:+36; % ffo#40, 20 empties";
        let obf: Obf = line.parse().unwrap();
        assert_eq!(obf.setup.board.empty_squares().count(), 20);
        assert_eq!(
            obf.setup.board.at("a1".parse().unwrap()),
            Some(Color::White)
        );
        assert_eq!(
            obf.setup.board.at("h1".parse().unwrap()),
            Some(Color::Black)
        );
        assert_eq!(obf.best_score(), Some(38));
        assert_eq!(obf.scored_moves[1], ("c7".parse().unwrap(), 36));
        assert_eq!(obf.comment, "ffo#40, 20 empties");
        assert_eq!(obf.to_string(), line[..66]);
    }

    #[test]
    fn errors() {
        assert_eq!("X".parse::<Obf>(), Err(ParseObfError::CellCount(1)));
        assert_eq!("xyz".parse::<Obf>(), Err(ParseObfError::CellCount(3)));
        assert_eq!(
            "-".repeat(64).parse::<Obf>(),
            Err(ParseObfError::MissingSide)
        );
        assert_eq!("XO X".parse::<Obf>(), Err(ParseObfError::CellCount(2)));
        let cells = "-".repeat(64);
        assert_eq!(
            format!("{cells} Z").parse::<Obf>(),
            Err(ParseObfError::Side("Z".into()))
        );
        assert!(format!("{cells} X; a9:+1").parse::<Obf>().is_err());
        assert!(format!("{}Q X", "-".repeat(63)).parse::<Obf>().is_err());
    }
}
