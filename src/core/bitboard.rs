//! A set of cells of the 16 × 16 grid, one bit per cell.

use std::{
    fmt,
    ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not},
};

use crate::{Direction, Shape, Square, core::geometry::GRID};

/// A set of squares: 256 bits, bit `row * 16 + column` for each square.
///
/// Shifting in a [`Direction`] moves every square one step and drops those that leave the
/// 16 × 16 grid; a shift never wraps from one row's end to the next row's start. Squares
/// beyond a smaller board's edge are ordinary bits: callers intersect with
/// [`Shape::mask`](crate::Shape::mask) (or with a board's discs) to stay on the board.
///
/// ```
/// use othello::{Bitboard, Direction, Square};
///
/// let corner = Bitboard::from(Square::new(0, 15));
/// assert!(corner.shift(Direction::East).is_empty());
/// assert_eq!(corner.shift(Direction::South), Bitboard::from(Square::new(1, 15)));
/// assert_eq!(corner.neighbours().count(), 3);
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Bitboard([u64; 4]);

/// Every cell except those in column 0: eastward shifts wrap into column 0.
const NOT_FIRST_COLUMN: Bitboard = Bitboard([!0x0001_0001_0001_0001; 4]);
/// Every cell except those in column 15: westward shifts wrap into column 15.
const NOT_LAST_COLUMN: Bitboard = Bitboard([!0x8000_8000_8000_8000; 4]);

/// `RECTANGLES[r][c]` holds the top-left `r` rows by `c` columns.
static RECTANGLES: [[Bitboard; GRID as usize + 1]; GRID as usize + 1] = {
    let mut table = [[Bitboard::EMPTY; GRID as usize + 1]; GRID as usize + 1];
    let mut rows = 0;
    while rows <= GRID as usize {
        let mut columns = 0;
        while columns <= GRID as usize {
            let row_bits = ((1u32 << columns) - 1) as u64;
            let mut row = 0;
            while row < rows {
                table[rows][columns].0[row / 4] |= row_bits << ((row % 4) * 16);
                row += 1;
            }
            columns += 1;
        }
        rows += 1;
    }
    table
};

impl Shape {
    /// Every cell of the board.
    pub fn mask(self) -> Bitboard {
        Bitboard::rectangle(self.rows(), self.columns())
    }
}

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard([0; 4]);

    /// The top-left `rows` × `columns` rectangle of the grid (both at most 16).
    ///
    /// # Panics
    /// If `rows` or `columns` exceeds 16.
    #[inline]
    pub fn rectangle(rows: u8, columns: u8) -> Bitboard {
        RECTANGLES[rows as usize][columns as usize]
    }

    /// The set holding just `square`.
    #[inline]
    pub const fn from_square(square: Square) -> Bitboard {
        let mut words = [0; 4];
        words[square.index() / 64] = 1 << (square.index() % 64);
        Bitboard(words)
    }

    /// The squares in either set (usable in constants).
    #[inline]
    pub const fn union(self, other: Bitboard) -> Bitboard {
        Bitboard([
            self.0[0] | other.0[0],
            self.0[1] | other.0[1],
            self.0[2] | other.0[2],
            self.0[3] | other.0[3],
        ])
    }

    /// The four 64-bit words, rows 0–3 in the first.
    #[inline]
    pub(crate) const fn words(self) -> [u64; 4] {
        self.0
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) == 0
    }

    /// Number of squares in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0[0].count_ones()
            + self.0[1].count_ones()
            + self.0[2].count_ones()
            + self.0[3].count_ones()
    }

    /// Whether `square` is in the set.
    #[inline]
    pub const fn contains(self, square: Square) -> bool {
        self.0[square.index() / 64] & (1 << (square.index() % 64)) != 0
    }

    /// Adds `square` to the set.
    #[inline]
    pub fn insert(&mut self, square: Square) {
        *self |= Bitboard::from_square(square);
    }

    /// Removes `square` from the set.
    #[inline]
    pub fn remove(&mut self, square: Square) {
        *self &= !Bitboard::from_square(square);
    }

    /// Whether the two sets share a square.
    #[inline]
    pub fn intersects(self, other: Bitboard) -> bool {
        !(self & other).is_empty()
    }

    /// The square with the lowest index (top-most, then left-most), if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        let mut word = 0;
        while word < 4 {
            if self.0[word] != 0 {
                let index = word * 64 + self.0[word].trailing_zeros() as usize;
                return Some(Square::from_index(index as u8));
            }
            word += 1;
        }
        None
    }

    /// The 16 bits of grid row `row` (bit `c` is column `c`).
    #[inline]
    pub(crate) const fn row_bits(self, row: u8) -> u16 {
        (self.0[row as usize / 4] >> ((row as usize % 4) * 16)) as u16
    }

    /// Every square moved one step in `direction`; squares leaving the grid are dropped.
    #[inline(always)]
    pub fn shift(self, direction: Direction) -> Bitboard {
        match direction {
            Direction::North => self.toward_lower::<16>(),
            Direction::South => self.toward_higher::<16>(),
            Direction::East => self.toward_higher::<1>() & NOT_FIRST_COLUMN,
            Direction::West => self.toward_lower::<1>() & NOT_LAST_COLUMN,
            Direction::NorthEast => self.toward_lower::<15>() & NOT_FIRST_COLUMN,
            Direction::NorthWest => self.toward_lower::<17>() & NOT_LAST_COLUMN,
            Direction::SouthEast => self.toward_higher::<17>() & NOT_FIRST_COLUMN,
            Direction::SouthWest => self.toward_higher::<15>() & NOT_LAST_COLUMN,
        }
    }

    /// Every square adjacent, in one of the eight directions, to a square of the set (within
    /// the grid). A member of the set is included only if it is adjacent to another member.
    #[inline]
    pub fn neighbours(self) -> Bitboard {
        let horizontal = self.shift(Direction::East) | self.shift(Direction::West);
        let row_band = self | horizontal;
        horizontal | row_band.shift(Direction::North) | row_band.shift(Direction::South)
    }

    /// An iterator over the squares, lowest index first.
    #[inline]
    pub fn iter(self) -> Squares {
        Squares(self)
    }

    /// All bits moved `K` places towards higher indices (0 < K < 64).
    #[inline]
    const fn toward_higher<const K: u32>(self) -> Bitboard {
        let w = self.0;
        Bitboard([
            w[0] << K,
            (w[1] << K) | (w[0] >> (64 - K)),
            (w[2] << K) | (w[1] >> (64 - K)),
            (w[3] << K) | (w[2] >> (64 - K)),
        ])
    }

    /// All bits moved `K` places towards lower indices (0 < K < 64).
    #[inline]
    const fn toward_lower<const K: u32>(self) -> Bitboard {
        let w = self.0;
        Bitboard([
            (w[0] >> K) | (w[1] << (64 - K)),
            (w[1] >> K) | (w[2] << (64 - K)),
            (w[2] >> K) | (w[3] << (64 - K)),
            w[3] >> K,
        ])
    }
}

impl From<Square> for Bitboard {
    #[inline]
    fn from(square: Square) -> Bitboard {
        Bitboard::from_square(square)
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(squares: I) -> Bitboard {
        let mut set = Bitboard::EMPTY;
        for square in squares {
            set.insert(square);
        }
        set
    }
}

macro_rules! bit_operator {
    ($trait:ident, $method:ident, $assign_trait:ident, $assign_method:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $method(self, rhs: Bitboard) -> Bitboard {
                Bitboard([
                    self.0[0] $op rhs.0[0],
                    self.0[1] $op rhs.0[1],
                    self.0[2] $op rhs.0[2],
                    self.0[3] $op rhs.0[3],
                ])
            }
        }
        impl $assign_trait for Bitboard {
            #[inline]
            fn $assign_method(&mut self, rhs: Bitboard) {
                *self = *self $op rhs;
            }
        }
    };
}

bit_operator!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_operator!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_operator!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard([!self.0[0], !self.0[1], !self.0[2], !self.0[3]])
    }
}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;
    #[inline]
    fn into_iter(self) -> Squares {
        Squares(self)
    }
}

/// The squares of a [`Bitboard`], lowest index first.
#[derive(Clone, Debug)]
pub struct Squares(Bitboard);

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        let square = self.0.first()?;
        self.0.remove(square);
        Some(square)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

impl fmt::Debug for Bitboard {
    /// The grid's rows from the top, `1` for a member and `.` otherwise, trimmed to the
    /// smallest rectangle holding every member (at least 1 × 1).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (mut rows, mut columns) = (1, 1);
        for square in *self {
            rows = rows.max(square.row() + 1);
            columns = columns.max(square.column() + 1);
        }
        writeln!(f, "Bitboard {rows}x{columns} [")?;
        for row in 0..rows {
            let bits = self.row_bits(row);
            let line: String = (0..columns)
                .map(|c| if bits >> c & 1 == 1 { '1' } else { '.' })
                .collect();
            writeln!(f, "  {line}")?;
        }
        write!(f, "]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The neighbour of `square` in `direction` computed cell by cell.
    fn naive_shift(set: Bitboard, direction: Direction) -> Bitboard {
        set.iter().filter_map(|s| s.step(direction)).collect()
    }

    #[test]
    fn shifts_match_stepping_cell_by_cell() {
        let patterns = [
            Bitboard::rectangle(16, 16),
            Bitboard::rectangle(5, 9),
            (0..=255u8)
                .filter(|i| i % 7 == 0 || i % 11 == 3)
                .map(Square::from_index)
                .collect(),
        ];
        for set in patterns {
            for direction in Direction::ALL {
                assert_eq!(
                    set.shift(direction),
                    naive_shift(set, direction),
                    "{direction:?}"
                );
            }
        }
    }

    #[test]
    fn neighbours_of_a_single_square() {
        let centre = Bitboard::from(Square::new(5, 5));
        let expected: Bitboard = Direction::ALL
            .iter()
            .filter_map(|&d| Square::new(5, 5).step(d))
            .collect();
        assert_eq!(centre.neighbours(), expected);
        assert_eq!(Bitboard::from(Square::new(0, 0)).neighbours().count(), 3);
        assert_eq!(Bitboard::from(Square::new(0, 7)).neighbours().count(), 5);
    }

    #[test]
    fn rectangle_counts_and_bounds() {
        assert_eq!(Bitboard::rectangle(16, 16).count(), 256);
        assert_eq!(Bitboard::rectangle(4, 6).count(), 24);
        assert!(Bitboard::rectangle(4, 6).contains(Square::new(3, 5)));
        assert!(!Bitboard::rectangle(4, 6).contains(Square::new(3, 6)));
        assert!(!Bitboard::rectangle(4, 6).contains(Square::new(4, 0)));
        assert!(Bitboard::rectangle(0, 16).is_empty());
    }

    #[test]
    fn iteration_is_in_index_order() {
        let squares = [Square::new(0, 3), Square::new(4, 0), Square::new(15, 15)];
        let set: Bitboard = squares.into_iter().rev().collect();
        assert_eq!(set.iter().collect::<Vec<_>>(), squares);
        assert_eq!(set.iter().len(), 3);
    }

    #[test]
    fn debug_draws_the_occupied_rectangle() {
        let set: Bitboard = [Square::new(0, 0), Square::new(1, 2)].into_iter().collect();
        assert_eq!(format!("{set:?}"), "Bitboard 2x3 [\n  1..\n  ..1\n]");
    }
}
