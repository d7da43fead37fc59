//! Board geometry: shapes, squares, the eight directions and standard notation.
//!
//! Every board lives in the same 16 × 16 grid of 256 cells: a square's index is
//! `row * 16 + column`, whatever the board's shape. A [`Shape`] says which part of the grid a
//! board uses. Keeping one layout for all shapes lets a [`Bitboard`](crate::Bitboard) shift in the eight
//! directions with the same few instructions on every board.

use std::{fmt, str::FromStr};

use thiserror::Error;

/// Number of columns (and rows) in the grid every board lives in.
pub(crate) const GRID: u8 = 16;

/// The dimensions of a rectangular board: 4 to 16 rows and 4 to 16 columns.
///
/// Odd sizes are accepted (the library has no reason to refuse a 5 × 7 board); the grader
/// protocol is stricter and accepts only even sizes.
///
/// ```
/// use othello::Shape;
///
/// let shape = Shape::new(6, 10)?;
/// assert_eq!((shape.rows(), shape.columns(), shape.cells()), (6, 10, 60));
/// assert!(Shape::new(3, 8).is_err());
/// # Ok::<_, othello::ShapeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    rows: u8,
    columns: u8,
}

impl Shape {
    /// The smallest number of rows or columns a board may have.
    pub const MIN_SIDE: u8 = 4;
    /// The largest number of rows or columns a board may have.
    pub const MAX_SIDE: u8 = GRID;
    /// The standard 8 × 8 board.
    pub const STANDARD: Shape = Shape {
        rows: 8,
        columns: 8,
    };

    /// A board of `rows` × `columns` cells.
    ///
    /// # Errors
    /// [`ShapeError`] unless both sides are between [`Shape::MIN_SIDE`] and
    /// [`Shape::MAX_SIDE`].
    pub const fn new(rows: u8, columns: u8) -> Result<Shape, ShapeError> {
        if rows < Self::MIN_SIDE
            || rows > Self::MAX_SIDE
            || columns < Self::MIN_SIDE
            || columns > Self::MAX_SIDE
        {
            return Err(ShapeError { rows, columns });
        }
        Ok(Shape { rows, columns })
    }

    /// Number of rows.
    pub const fn rows(self) -> u8 {
        self.rows
    }

    /// Number of columns.
    pub const fn columns(self) -> u8 {
        self.columns
    }

    /// Number of cells on the board.
    pub const fn cells(self) -> usize {
        self.rows as usize * self.columns as usize
    }

    /// Whether `square` lies on a board of this shape.
    pub const fn contains(self, square: Square) -> bool {
        square.row() < self.rows && square.column() < self.columns
    }

    /// The square at `row` and `column` (both 0-based) if it lies on the board.
    #[inline]
    pub const fn square(self, row: usize, column: usize) -> Option<Square> {
        if row < self.rows as usize && column < self.columns as usize {
            Some(Square::new(row as u8, column as u8))
        } else {
            None
        }
    }

    /// The squares of the board in reading order: row by row, left to right.
    pub fn squares(self) -> impl Iterator<Item = Square> {
        (0..self.rows).flat_map(move |row| (0..self.columns).map(move |col| Square::new(row, col)))
    }
}

impl fmt::Display for Shape {
    /// Rows, then columns: `8x8`, `6x10`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.columns)
    }
}

impl FromStr for Shape {
    type Err = ParseShapeError;

    /// Rows, `x`, columns: `8x8`, `6x10` (an `X` or `×` also separates them).
    ///
    /// ```
    /// use othello::Shape;
    ///
    /// assert_eq!("16x12".parse::<Shape>()?, Shape::new(16, 12)?);
    /// assert!("8".parse::<Shape>().is_err());
    /// assert!("3x8".parse::<Shape>().is_err());
    /// # Ok::<_, Box<dyn std::error::Error>>(())
    /// ```
    fn from_str(text: &str) -> Result<Shape, ParseShapeError> {
        let syntax = || ParseShapeError::Syntax(text.to_owned());
        let (rows, columns) = text.split_once(['x', 'X', '×']).ok_or_else(syntax)?;
        let side = |side: &str| side.trim().parse::<u8>().map_err(|_| syntax());
        Ok(Shape::new(side(rows)?, side(columns)?)?)
    }
}

/// Text that does not name a board shape.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseShapeError {
    /// Not `ROWSxCOLUMNS`.
    #[error("expected a board size such as 8x8 or 6x10, found {0:?}")]
    Syntax(String),
    /// A size outside the supported range.
    #[error(transparent)]
    Size(#[from] ShapeError),
}

/// A board shape outside 4–16 rows by 4–16 columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("a board needs 4 to 16 rows and 4 to 16 columns, not {rows}x{columns}")]
pub struct ShapeError {
    /// The rows asked for.
    pub rows: u8,
    /// The columns asked for.
    pub columns: u8,
}

/// A cell of the 16 × 16 grid, row 0 at the top and column 0 at the left.
///
/// Standard notation names the column with a letter and the row with a number from 1:
/// `a1` is the top-left corner, `h8` the bottom-right corner of an 8 × 8 board and `p16` that
/// of a 16 × 16 board.
///
/// ```
/// use othello::Square;
///
/// let d3: Square = "d3".parse()?;
/// assert_eq!((d3.row(), d3.column()), (2, 3));
/// assert_eq!(d3, Square::new(2, 3));
/// assert_eq!(Square::new(15, 15).to_string(), "p16");
/// # Ok::<_, othello::ParseSquareError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square at `row` and `column`, both 0-based.
    ///
    /// # Panics
    /// If `row` or `column` is 16 or more.
    #[track_caller]
    pub const fn new(row: u8, column: u8) -> Square {
        assert!(row < GRID && column < GRID, "square outside the 16x16 grid");
        Square(row * GRID + column)
    }

    /// The square with grid index `index` (`row * 16 + column`).
    pub const fn from_index(index: u8) -> Square {
        Square(index)
    }

    /// The grid index, `row * 16 + column`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Row, 0-based from the top.
    pub const fn row(self) -> u8 {
        self.0 / GRID
    }

    /// Column, 0-based from the left.
    pub const fn column(self) -> u8 {
        self.0 % GRID
    }

    /// The neighbouring square in `direction`, if it is still inside the 16 × 16 grid.
    pub const fn step(self, direction: Direction) -> Option<Square> {
        let (dr, dc) = direction.offset();
        let row = self.row() as i8 + dr;
        let col = self.column() as i8 + dc;
        if row < 0 || col < 0 || row >= GRID as i8 || col >= GRID as i8 {
            None
        } else {
            Some(Square::new(row as u8, col as u8))
        }
    }

    /// Parses standard notation from bytes: a column letter `a`–`p` (either case) and a row
    /// number `1`–`16`.
    ///
    /// # Errors
    /// [`ParseSquareError`] for anything else.
    pub fn from_ascii(text: &[u8]) -> Result<Square, ParseSquareError> {
        let error = || ParseSquareError {
            found: String::from_utf8_lossy(text).into_owned(),
        };
        let (&letter, digits) = text.split_first().ok_or_else(error)?;
        let column = letter.to_ascii_lowercase().wrapping_sub(b'a');
        let row = match digits {
            [d] if d.is_ascii_digit() => d - b'0',
            [b'1', d] if d.is_ascii_digit() => 10 + (d - b'0'),
            _ => return Err(error()),
        };
        if column >= GRID || row == 0 || row > GRID {
            return Err(error());
        }
        Ok(Square::new(row - 1, column))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", char::from(b'a' + self.column()), self.row() + 1)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        Square::from_ascii(s.as_bytes())
    }
}

/// Text that is not a square in standard notation (`a1` to `p16`).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("expected a square from a1 to p16, found {found:?}")]
pub struct ParseSquareError {
    /// The text that was rejected.
    pub found: String,
}

/// One of the eight compass directions; north is up (towards row 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Up.
    North,
    /// Up and right.
    NorthEast,
    /// Right.
    East,
    /// Down and right.
    SouthEast,
    /// Down.
    South,
    /// Down and left.
    SouthWest,
    /// Left.
    West,
    /// Up and left.
    NorthWest,
}

impl Direction {
    /// All eight directions, clockwise from north.
    pub const ALL: [Direction; 8] = [
        Direction::North,
        Direction::NorthEast,
        Direction::East,
        Direction::SouthEast,
        Direction::South,
        Direction::SouthWest,
        Direction::West,
        Direction::NorthWest,
    ];

    /// The step in rows and columns.
    pub const fn offset(self) -> (i8, i8) {
        match self {
            Direction::North => (-1, 0),
            Direction::NorthEast => (-1, 1),
            Direction::East => (0, 1),
            Direction::SouthEast => (1, 1),
            Direction::South => (1, 0),
            Direction::SouthWest => (1, -1),
            Direction::West => (0, -1),
            Direction::NorthWest => (-1, -1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips_on_the_whole_grid() {
        for index in 0..=255u8 {
            let square = Square::from_index(index);
            let text = square.to_string();
            assert_eq!(text.parse::<Square>(), Ok(square), "{text}");
        }
    }

    #[test]
    fn notation_rejects_what_is_not_a_square() {
        for bad in [
            "", "a", "a0", "q1", "a17", "a01", "1a", "aa1", "a1 ", "a100", "é1",
        ] {
            assert!(bad.parse::<Square>().is_err(), "{bad:?} parsed");
        }
        assert_eq!("D3".parse::<Square>(), Ok(Square::new(2, 3)));
    }

    #[test]
    fn shape_limits() {
        assert!(Shape::new(4, 16).is_ok());
        assert!(Shape::new(16, 4).is_ok());
        assert!(Shape::new(5, 7).is_ok());
        assert_eq!(
            Shape::new(17, 8).unwrap_err().to_string(),
            "a board needs 4 to 16 rows and 4 to 16 columns, not 17x8"
        );
        assert!(Shape::new(8, 3).is_err());
    }

    #[test]
    fn step_stays_inside_the_grid() {
        assert_eq!(Square::new(0, 0).step(Direction::North), None);
        assert_eq!(Square::new(0, 0).step(Direction::West), None);
        assert_eq!(Square::new(15, 15).step(Direction::SouthEast), None);
        assert_eq!(
            Square::new(3, 4).step(Direction::NorthEast),
            Some(Square::new(2, 5))
        );
    }

    #[test]
    fn squares_are_in_reading_order() {
        let shape = Shape::new(4, 5).unwrap();
        let squares: Vec<_> = shape.squares().collect();
        assert_eq!(squares.len(), 20);
        assert_eq!(squares[0], Square::new(0, 0));
        assert_eq!(squares[5], Square::new(1, 0));
        assert!(squares.iter().all(|&s| shape.contains(s)));
    }
}
