//! The course's simplified rules.

use crate::{Bitboard, Board, Color, RuleSet, Square, Variant};

/// The grader's SIMPLE rules: a move is legal on any empty square with at least one opponent
/// disc among its eight neighbours, and turns over exactly those neighbouring opponent discs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Simple;

impl RuleSet for Simple {
    const VARIANT: Variant = Variant::Simple;

    fn legal_moves(board: &Board, side: Color) -> Bitboard {
        board.discs(side.opponent()).neighbours() & board.empty_squares()
    }

    fn flips(board: &Board, side: Color, square: Square) -> Bitboard {
        if !board.empty_squares().contains(square) {
            return Bitboard::EMPTY;
        }
        Bitboard::from_square(square).neighbours() & board.discs(side.opponent())
    }

    /// Exactly the discs with no empty neighbour: a disc flips only when a neighbouring empty
    /// square is played, and any empty square next to a disc is a legal move for its
    /// opponent.
    fn stable(board: &Board, side: Color) -> Bitboard {
        board.discs(side) & !board.empty_squares().neighbours()
    }
}
