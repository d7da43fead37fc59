//! Discs on a board of some shape. No rules here: see [`RuleSet`](crate::RuleSet).

use std::fmt;

use crate::{Bitboard, Color, Shape, Square};

/// The character for an empty cell in board text.
pub const EMPTY_CELL: char = '.';

/// The largest number of bytes one row of board text takes: 16 cells, 15 spaces, a newline.
const MAX_ROW_TEXT: usize = 2 * Shape::MAX_SIDE as usize;

/// A board: its shape and the discs of each colour. Any arrangement is allowed.
///
/// Its [`Display`](fmt::Display) form is the grader's board text: one line per row, cells
/// `B`, `W` or `.` joined by single spaces.
///
/// ```
/// use othello::{Board, Color, Shape, Square};
///
/// let board = Board::standard(Shape::new(4, 6)?);
/// assert_eq!(board.count(Color::Black), 2);
/// assert_eq!(board.at(Square::new(1, 2)), Some(Color::White));
/// assert_eq!(board.to_string(), "\
/// . . . . . .
/// . . W B . .
/// . . B W . .
/// . . . . . .
/// ");
/// # Ok::<_, othello::ShapeError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    shape: Shape,
    discs: [Bitboard; 2],
}

impl Board {
    /// The standard 8 × 8 board with the squares `filled` names (by their index in reading
    /// order) covered, White's where `white` says, Black's elsewhere: fixed positions near
    /// the end, for tests.
    #[cfg(test)]
    pub(crate) fn patterned(
        filled: impl Fn(usize) -> bool,
        white: impl Fn(usize) -> bool,
    ) -> Board {
        let shape = crate::Shape::STANDARD;
        let mut board = Board::standard(shape);
        for (i, square) in shape.squares().enumerate().filter(|&(i, _)| filled(i)) {
            let color = if white(i) { Color::White } else { Color::Black };
            board.set(square, Some(color));
        }
        board
    }

    /// A board with no discs.
    pub const fn empty(shape: Shape) -> Board {
        Board {
            shape,
            discs: [Bitboard::EMPTY; 2],
        }
    }

    /// The usual start: four discs in the centre, White on the top-left one and its diagonal
    /// (`d4` and `e5` on 8 × 8), Black on the other two. On an odd side the centre is taken
    /// just above or left of the middle.
    pub fn standard(shape: Shape) -> Board {
        let (row, col) = ((shape.rows() - 1) / 2, (shape.columns() - 1) / 2);
        let mut board = Board::empty(shape);
        board.set(Square::new(row, col), Some(Color::White));
        board.set(Square::new(row + 1, col + 1), Some(Color::White));
        board.set(Square::new(row, col + 1), Some(Color::Black));
        board.set(Square::new(row + 1, col), Some(Color::Black));
        board
    }

    /// The board's shape.
    #[inline]
    pub const fn shape(&self) -> Shape {
        self.shape
    }

    /// The squares holding `color`'s discs.
    #[inline]
    pub const fn discs(&self, color: Color) -> Bitboard {
        self.discs[color.index()]
    }

    /// The squares holding a disc of either colour.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.discs[0] | self.discs[1]
    }

    /// The empty squares of the board.
    #[inline]
    pub fn empty_squares(&self) -> Bitboard {
        self.shape.mask() & !self.occupied()
    }

    /// Number of `color`'s discs.
    #[inline]
    pub const fn count(&self, color: Color) -> u32 {
        self.discs[color.index()].count()
    }

    /// The disc on `square`, if any (squares off the board are empty).
    #[inline]
    pub const fn at(&self, square: Square) -> Option<Color> {
        if self.discs[0].contains(square) {
            Some(Color::Black)
        } else if self.discs[1].contains(square) {
            Some(Color::White)
        } else {
            None
        }
    }

    /// Puts a disc of `disc`'s colour on `square`, or empties it with `None`.
    ///
    /// # Panics
    /// If `square` is not on the board.
    #[track_caller]
    pub fn set(&mut self, square: Square, disc: Option<Color>) {
        assert!(
            self.shape.contains(square),
            "square {square} is not on a {} board",
            self.shape
        );
        for discs in &mut self.discs {
            discs.remove(square);
        }
        if let Some(color) = disc {
            self.discs[color.index()].insert(square);
        }
    }

    /// Places a disc of `side` on the empty `square` and turns `flips` (discs of the
    /// opponent) over. No rule is checked: rule sets decide what `flips` is.
    #[inline]
    pub fn place(&mut self, side: Color, square: Square, flips: Bitboard) {
        debug_assert!(self.at(square).is_none() && self.shape.contains(square));
        debug_assert_eq!(flips & self.discs[side.opponent().index()], flips);
        self.discs[side.index()] |= flips | Bitboard::from_square(square);
        self.discs[side.opponent().index()] ^= flips;
    }

    /// Undoes [`place`](Board::place) with the same arguments.
    #[inline]
    pub fn unplace(&mut self, side: Color, square: Square, flips: Bitboard) {
        self.discs[side.index()] ^= flips | Bitboard::from_square(square);
        self.discs[side.opponent().index()] |= flips;
    }

    /// Exchanges the colours of all discs.
    #[inline]
    pub fn swap_colors(&mut self) {
        self.discs.swap(0, 1);
    }

    /// Row `row` as board text into `buf`, with its final newline.
    #[inline]
    pub(crate) fn row_text<'b>(&self, row: u8, buf: &'b mut [u8; MAX_ROW_TEXT]) -> &'b [u8] {
        let black = self.discs[0].row_bits(row);
        let white = self.discs[1].row_bits(row);
        let columns = self.shape.columns() as usize;
        for col in 0..columns {
            buf[2 * col] = if black >> col & 1 == 1 {
                b'B'
            } else if white >> col & 1 == 1 {
                b'W'
            } else {
                EMPTY_CELL as u8
            };
            buf[2 * col + 1] = b' ';
        }
        buf[2 * columns - 1] = b'\n';
        &buf[..2 * columns]
    }

    /// Writes the board text (every row, each ending in a newline).
    pub fn write_text(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let mut buf = [0; MAX_ROW_TEXT];
        for row in 0..self.shape.rows() {
            out.write_all(self.row_text(row, &mut buf))?;
        }
        Ok(())
    }
}

impl fmt::Display for Board {
    /// The grader's board text; see [`Board`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0; MAX_ROW_TEXT];
        for row in 0..self.shape.rows() {
            let text = self.row_text(row, &mut buf);
            // Row text is ASCII by construction.
            f.write_str(std::str::from_utf8(text).map_err(|_| fmt::Error)?)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board {} [\n{self}]", self.shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_start_on_8x8() {
        let board = Board::standard(Shape::STANDARD);
        let at = |s: &str| board.at(s.parse().unwrap());
        assert_eq!(at("d4"), Some(Color::White));
        assert_eq!(at("e5"), Some(Color::White));
        assert_eq!(at("e4"), Some(Color::Black));
        assert_eq!(at("d5"), Some(Color::Black));
        assert_eq!(board.occupied().count(), 4);
        assert_eq!(board.empty_squares().count(), 60);
    }

    #[test]
    fn place_and_unplace_are_inverse() {
        let mut board = Board::standard(Shape::STANDARD);
        let before = board;
        let flips = Bitboard::from(Square::new(3, 3));
        board.place(Color::Black, Square::new(2, 3), flips);
        assert_eq!(board.count(Color::Black), 4);
        assert_eq!(board.count(Color::White), 1);
        board.unplace(Color::Black, Square::new(2, 3), flips);
        assert_eq!(board, before);
    }

    #[test]
    fn text_of_a_16_column_row() {
        let mut board = Board::empty(Shape::new(4, 16).unwrap());
        board.set(Square::new(0, 0), Some(Color::Black));
        board.set(Square::new(0, 15), Some(Color::White));
        let text = board.to_string();
        assert_eq!(text.lines().next(), Some("B . . . . . . . . . . . . . . W"));
        let mut bytes = Vec::new();
        board.write_text(&mut bytes).unwrap();
        assert_eq!(bytes, text.as_bytes());
    }

    #[test]
    #[should_panic(expected = "not on a 4x4 board")]
    fn set_off_the_board_panics() {
        Board::empty(Shape::new(4, 4).unwrap()).set(Square::new(4, 0), Some(Color::Black));
    }
}
