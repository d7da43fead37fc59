//! Positions on any shape, under any rule set, over the 256-bit grid.

use std::{fmt, marker::PhantomData};

use super::Node;
use crate::{Bitboard, Board, Color, RuleSet, Square};

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

    /// The board, with the side to move given as `side`.
    pub fn to_board(&self, side: Color) -> Board {
        let mut board = self.board;
        if side == Color::White {
            board.swap_colors();
        }
        board
    }
}

impl<R: RuleSet> Node for GridNode<R> {
    type Moves = Bitboard;

    #[inline]
    fn moves(&self) -> Bitboard {
        R::legal_moves(&self.board, Color::Black)
    }

    #[inline]
    fn play(&self, square: Square) -> GridNode<R> {
        let mut board = self.board;
        board.place(Color::Black, square, R::flips(&board, Color::Black, square));
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
