//! Boards up to 8 × 8 other than the standard FULL one (4 × 4 to 8 × 6, and 8 × 8 under SIMPLE
//! rules) as two `u64`, in the top left corner of the 8 × 8 grid: what the exact solver of
//! the small boards runs on (several times faster than the 256-bit [`GridNode`]).
//!
//! The squares off the board are always empty, so a run of discs never crosses them: FULL
//! moves and flips are [`Node8`]'s, masked to the board; SIMPLE ones are its neighbours.
//!
//! [`GridNode`]: super::GridNode
//! [`Node8`]: super::Node8

use std::{fmt, marker::PhantomData};

use super::node::{Corner, Layout, Node, SquareSet, hash_words};
use super::node8::{self, AROUND, grid_bits, square_of};
use crate::{Board, Color, RuleSet, Shape, Square, Variant};

/// A position on a board of at most 8 rows and 8 columns under rule set `R`, as the discs of
/// the side to move and of its opponent (bit `row * 8 + column`).
pub struct SmallNode<R> {
    player: u64,
    opponent: u64,
    layout: &'static Layout<u64>,
    rules: PhantomData<R>,
}

impl<R: RuleSet> SmallNode<R> {
    /// `board` with `side` to move, if the board has at most 8 rows and 8 columns.
    pub fn from_board(board: &Board, side: Color) -> Option<SmallNode<R>> {
        let shape = board.shape();
        if shape.rows() > 8 || shape.columns() > 8 {
            return None;
        }
        Some(SmallNode {
            player: grid_bits(board, side),
            opponent: grid_bits(board, side.opponent()),
            layout: &LAYOUTS[usize::from(shape.rows())][usize::from(shape.columns())],
            rules: PhantomData,
        })
    }

    /// The same board with `player` to move against `opponent`.
    #[inline(always)]
    fn with(&self, player: u64, opponent: u64) -> SmallNode<R> {
        SmallNode {
            player,
            opponent,
            layout: self.layout,
            rules: PhantomData,
        }
    }
}

impl<R: RuleSet> Node for SmallNode<R> {
    type Set = u64;
    const VARIANT: Variant = R::VARIANT;

    #[inline(always)]
    fn moves(&self) -> u64 {
        let (p, o, cells) = (self.player, self.opponent, self.layout.cells);
        match R::VARIANT {
            Variant::Full => node8::moves(p, o) & cells,
            Variant::Simple => o.neighbours() & cells & !(p | o),
        }
    }

    /// The discs `index` turns over (`index` must be empty).
    #[inline(always)]
    fn flips(&self, index: u32) -> u64 {
        match R::VARIANT {
            Variant::Full => node8::Node8::new(self.player, self.opponent).flips(index),
            Variant::Simple => AROUND[index as usize] & self.opponent,
        }
    }

    #[inline(always)]
    fn last_flips(&self, index: u32) -> u32 {
        match R::VARIANT {
            // The squares off the board lie past the ends of the board's lines through
            // `index`, where no run can end on a disc of the player: counting them as the
            // opponent's, as `last_flips` does, changes nothing.
            Variant::Full => node8::last_flips(self.player, index),
            Variant::Simple => (AROUND[index as usize] & self.layout.cells & !self.player).len(),
        }
    }

    #[inline(always)]
    fn around(&self, index: u32) -> u64 {
        AROUND[index as usize]
    }

    #[inline(always)]
    fn make(&self, index: u32, flips: u64) -> SmallNode<R> {
        self.with(self.opponent ^ flips, self.player | flips | 1 << index)
    }

    #[inline(always)]
    fn pass(&self) -> SmallNode<R> {
        self.with(self.opponent, self.player)
    }

    #[inline(always)]
    fn player(&self) -> u64 {
        self.player
    }

    #[inline(always)]
    fn opponent(&self) -> u64 {
        self.opponent
    }

    #[inline(always)]
    fn layout(&self) -> &'static Layout<u64> {
        self.layout
    }

    #[inline]
    fn stable(&self) -> u64 {
        let cells = self.layout.cells;
        match R::VARIANT {
            Variant::Full => node8::stable(self.player, self.opponent, !cells),
            // Exactly the discs with no empty neighbour (see `Simple::stable`).
            Variant::Simple => {
                let empty = cells & !(self.player | self.opponent);
                self.player & !empty.neighbours()
            }
        }
    }

    #[inline]
    fn hash(&self) -> u64 {
        hash_words(&[self.player, self.opponent])
    }

    #[inline]
    fn square(&self, index: u32) -> Square {
        square_of(index)
    }

    #[inline]
    fn index(&self, square: Square) -> Option<u32> {
        let (row, column) = (u32::from(square.row()), u32::from(square.column()));
        let index = row * 8 + column;
        (row < 8 && column < 8 && self.layout.cells.contains(index)).then_some(index)
    }
}

/// `LAYOUTS[rows][columns]` for every shape up to 8 × 8 (entries below 4 are unused).
static LAYOUTS: [[Layout<u64>; 9]; 9] = {
    let mut table = [[layout(4, 4); 9]; 9];
    let mut rows = Shape::MIN_SIDE as u32;
    while rows <= 8 {
        let mut columns = Shape::MIN_SIDE as u32;
        while columns <= 8 {
            table[rows as usize][columns as usize] = layout(rows, columns);
            columns += 1;
        }
        rows += 1;
    }
    table
};

/// The layout of a `rows` × `columns` board in the top left corner of the 8 × 8 grid.
const fn layout(rows: u32, columns: u32) -> Layout<u64> {
    let (last_row, last_column) = (rows - 1, columns - 1);
    let (middle_row, middle_column) = (rows.div_ceil(2), columns.div_ceil(2));
    let (mut cells, mut edges, mut quadrants) = (0u64, 0u64, [0u64; 4]);
    let mut row = 0;
    while row < rows {
        let mut column = 0;
        while column < columns {
            let bit = 1u64 << (row * 8 + column);
            cells |= bit;
            if row == 0 || column == 0 || row == last_row || column == last_column {
                edges |= bit;
            }
            let quadrant = (row >= middle_row) as usize * 2 + (column >= middle_column) as usize;
            quadrants[quadrant] |= bit;
            column += 1;
        }
        row += 1;
    }
    Layout {
        shape: match crate::Shape::new(rows as u8, columns as u8) {
            Ok(shape) => shape,
            Err(_) => panic!("a shape of 4 to 8 rows and columns"),
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

/// A corner, given with the row and column one step towards the board's inside.
const fn corner(row: u32, column: u32, inward_row: u32, inward_column: u32) -> Corner<u64> {
    Corner {
        corner: at(row, column),
        x_square: at(inward_row, inward_column),
        c_squares: at(row, inward_column) | at(inward_row, column),
    }
}

/// The square at `row`, `column` as a set.
const fn at(row: u32, column: u32) -> u64 {
    1 << (row * 8 + column)
}

// Written out: derives would require `R` itself to be `Clone`, `Debug`, ...
impl<R> Clone for SmallNode<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for SmallNode<R> {}

impl<R> fmt::Debug for SmallNode<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SmallNode {{ player: {:#018x}, opponent: {:#018x}, cells: {:#018x} }}",
            self.player, self.opponent, self.layout.cells
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Full, Simple,
        engine::{GridNode, perft_nodes},
    };

    /// The grid set as bits of the 8 × 8 grid.
    fn bits(set: crate::Bitboard) -> u64 {
        set.iter().fold(0, |bits, s| {
            bits | 1u64 << (u32::from(s.row()) * 8 + u32::from(s.column()))
        })
    }

    /// Plays pseudo-random games on `shape` under `R`, checking at every position that the
    /// small node sees what the grid node sees: moves, flips, last flips, stable discs and
    /// layout.
    fn agrees_with_grid<R: RuleSet>(shape: Shape, games: u32) {
        let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ u64::from(shape.rows()) << 8;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..games {
            let board = Board::standard(shape);
            let mut grid = GridNode::<R>::from_board(&board, Color::Black);
            let mut small = SmallNode::<R>::from_board(&board, Color::Black).unwrap();
            let (gl, sl) = (grid.layout(), small.layout());
            assert_eq!(bits(gl.cells), sl.cells);
            assert_eq!(bits(gl.edges), sl.edges);
            for (g, s) in gl.quadrants.iter().zip(&sl.quadrants) {
                assert_eq!(bits(*g), *s);
            }
            for (g, s) in gl.corners.iter().zip(&sl.corners) {
                assert_eq!(bits(g.corner), s.corner);
                assert_eq!(bits(g.x_square), s.x_square);
                assert_eq!(bits(g.c_squares), s.c_squares);
            }
            loop {
                assert_eq!(bits(grid.player()), small.player());
                assert_eq!(bits(grid.opponent()), small.opponent());
                assert_eq!(bits(grid.moves()), small.moves(), "{small:?}");
                // The rules' own set skips the search while the corners are all empty.
                let (stable, found) = (bits(grid.stable()), small.stable());
                let corners = sl.corners.iter().fold(0, |all, c| all | c.corner);
                if (small.player() | small.opponent()) & corners != 0
                    || R::VARIANT == Variant::Simple
                {
                    assert_eq!(stable, found, "{small:?}");
                } else {
                    assert_eq!(stable & !found, 0, "{small:?}");
                }
                for square in shape.squares() {
                    let index = small.index(square).unwrap();
                    assert_eq!(small.square(index), square);
                    if small.empties().contains(index) {
                        assert_eq!(bits(grid.flips(square)), small.flips(index));
                    }
                }
                let empties = small.empties();
                if empties.len() == 1 {
                    let last = empties.trailing_zeros();
                    let others = small.layout.cells & !small.player() & !(1 << last);
                    let filled = small.with(small.player(), others);
                    assert_eq!(filled.last_flips(last), filled.flips(last).len());
                }
                let moves = small.moves();
                if moves == 0 {
                    if small.pass().moves() == 0 {
                        break;
                    }
                    grid = grid.pass();
                    small = small.pass();
                    continue;
                }
                let mut all = moves;
                for _ in 0..next() % u64::from(moves.len()) {
                    all &= all - 1;
                }
                let index = all.trailing_zeros();
                grid = grid.play(small.square(index));
                small = small.play(index);
            }
        }
    }

    #[test]
    fn small_boards_agree_with_the_grid_under_both_rules() {
        for (rows, columns) in [
            (4, 4),
            (4, 6),
            (6, 4),
            (4, 8),
            (8, 4),
            (6, 6),
            (6, 8),
            (8, 6),
        ] {
            let shape = Shape::new(rows, columns).unwrap();
            agrees_with_grid::<Full>(shape, 30);
            agrees_with_grid::<Simple>(shape, 30);
        }
        let odd = Shape::new(5, 7).unwrap();
        agrees_with_grid::<Full>(odd, 20);
        agrees_with_grid::<Simple>(odd, 20);
        agrees_with_grid::<Simple>(Shape::STANDARD, 20);
    }

    #[test]
    fn perft_matches_the_grid() {
        for (rows, columns, depth) in [(4, 4, 9), (6, 6, 6), (4, 8, 7), (8, 6, 6)] {
            let board = Board::standard(Shape::new(rows, columns).unwrap());
            for (grid, small) in [
                (
                    perft_nodes(&GridNode::<Full>::from_board(&board, Color::Black), depth),
                    perft_nodes(
                        &SmallNode::<Full>::from_board(&board, Color::Black).unwrap(),
                        depth,
                    ),
                ),
                (
                    perft_nodes(&GridNode::<Simple>::from_board(&board, Color::Black), depth),
                    perft_nodes(
                        &SmallNode::<Simple>::from_board(&board, Color::Black).unwrap(),
                        depth,
                    ),
                ),
            ] {
                assert_eq!(grid, small, "{rows}x{columns} depth {depth}");
            }
        }
    }
}
