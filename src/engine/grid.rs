//! Positions on any shape, under any rule set, over the 256-bit grid.

use std::{fmt, marker::PhantomData};

use super::node::{Corner, Layout, Node, hash_words};
use crate::{Bitboard, Board, Color, RuleSet, Shape, Square, Variant};

/// A position on any board under rule set `R`: a [`Board`] on which Black is always the side
/// to move (a pass swaps the colours).
pub struct GridNode<R> {
    board: Board,
    rules: PhantomData<R>,
}

impl<R: RuleSet> GridNode<R> {
    /// `board` with `side` to move.
    pub fn from_board(board: &Board, side: Color) -> GridNode<R> {
        let mut board = *board;
        if side == Color::White {
            board.swap_colors();
        }
        GridNode {
            board,
            rules: PhantomData,
        }
    }
}

impl<R: RuleSet> Node for GridNode<R> {
    type Set = Bitboard;
    const VARIANT: Variant = R::VARIANT;

    #[inline]
    fn moves(&self) -> Bitboard {
        R::legal_moves(&self.board, Color::Black)
    }

    #[inline]
    fn flips(&self, square: Square) -> Bitboard {
        R::flips(&self.board, Color::Black, square)
    }

    #[inline]
    fn make(&self, square: Square, flips: Bitboard) -> GridNode<R> {
        let mut board = self.board;
        board.place(Color::Black, square, flips);
        board.swap_colors();
        GridNode {
            board,
            rules: PhantomData,
        }
    }

    #[inline]
    fn pass(&self) -> GridNode<R> {
        let mut board = self.board;
        board.swap_colors();
        GridNode {
            board,
            rules: PhantomData,
        }
    }

    #[inline]
    fn player(&self) -> Bitboard {
        self.board.discs(Color::Black)
    }

    #[inline]
    fn opponent(&self) -> Bitboard {
        self.board.discs(Color::White)
    }

    #[inline]
    fn layout(&self) -> &'static Layout<Bitboard> {
        let shape = self.board.shape();
        &LAYOUTS[usize::from(shape.rows())][usize::from(shape.columns())]
    }

    #[inline]
    fn stable(&self) -> Bitboard {
        R::stable(&self.board, Color::Black)
    }

    #[inline]
    fn hash(&self) -> u64 {
        let (p, o) = (self.player().words(), self.opponent().words());
        hash_words(&[p[0], p[1], p[2], p[3], o[0], o[1], o[2], o[3]])
    }

    #[inline]
    fn square(&self, square: Square) -> Square {
        square
    }

    #[inline]
    fn index(&self, square: Square) -> Option<Square> {
        self.board.shape().contains(square).then_some(square)
    }
}

/// `LAYOUTS[rows][columns]` for every shape (entries below 4 rows or columns are unused).
static LAYOUTS: [[Layout<Bitboard>; Shape::MAX_SIDE as usize + 1]; Shape::MAX_SIDE as usize + 1] = {
    let mut table = [[layout(4, 4); Shape::MAX_SIDE as usize + 1]; Shape::MAX_SIDE as usize + 1];
    let mut rows = Shape::MIN_SIDE;
    while rows <= Shape::MAX_SIDE {
        let mut columns = Shape::MIN_SIDE;
        while columns <= Shape::MAX_SIDE {
            table[rows as usize][columns as usize] = layout(rows, columns);
            columns += 1;
        }
        rows += 1;
    }
    table
};

/// The layout of a `rows` × `columns` board.
const fn layout(rows: u8, columns: u8) -> Layout<Bitboard> {
    let (last_row, last_column) = (rows - 1, columns - 1);
    let mut cells = Bitboard::EMPTY;
    let mut edges = Bitboard::EMPTY;
    let mut quadrants = [Bitboard::EMPTY; 4];
    let (middle_row, middle_column) = (rows.div_ceil(2), columns.div_ceil(2));
    let mut row = 0;
    while row < rows {
        let mut column = 0;
        while column < columns {
            cells = cells.union(at(row, column));
            if row == 0 || column == 0 || row == last_row || column == last_column {
                edges = edges.union(at(row, column));
            }
            let quadrant = (row >= middle_row) as usize * 2 + (column >= middle_column) as usize;
            quadrants[quadrant] = quadrants[quadrant].union(at(row, column));
            column += 1;
        }
        row += 1;
    }
    Layout {
        shape: match Shape::new(rows, columns) {
            Ok(shape) => shape,
            Err(_) => panic!("a shape of 4 to 16 rows and columns"),
        },
        cells,
        edges,
        corners: [
            corner(0, 0, 1, 1),
            corner(0, last_column, 1, last_column - 1),
            corner(last_row, 0, last_row - 1, 1),
            corner(last_row, last_column, last_row - 1, last_column - 1),
        ],
        quadrants,
    }
}

/// The square at `row`, `column` as a set.
const fn at(row: u8, column: u8) -> Bitboard {
    Bitboard::from_square(Square::new(row, column))
}

/// A corner, given with the row and column one step towards the board's inside.
const fn corner(row: u8, column: u8, inward_row: u8, inward_column: u8) -> Corner<Bitboard> {
    Corner {
        corner: at(row, column),
        x_square: at(inward_row, inward_column),
        c_squares: at(row, inward_column).union(at(inward_row, column)),
    }
}

// Written out: derives would require `R` itself to be `Clone`, `Debug`, ...
impl<R> Clone for GridNode<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for GridNode<R> {}

impl<R> fmt::Debug for GridNode<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GridNode (B to move) {:?}", self.board)
    }
}
