//! Standard Othello.

use crate::{Bitboard, Board, Color, Direction, RuleSet, Square, Variant};

/// Standard Othello (the grader's FULL): a move must flank, in at least one of the eight
/// directions, a contiguous run of opponent discs ending in a disc of the mover; every such
/// run turns over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Full;

impl RuleSet for Full {
    const VARIANT: Variant = Variant::Full;

    fn legal_moves(board: &Board, side: Color) -> Bitboard {
        let own = board.discs(side);
        let opponent = board.discs(side.opponent());
        let empty = board.empty_squares();
        let mut moves = Bitboard::EMPTY;
        for direction in Direction::ALL {
            // Opponent discs that continue an unbroken run from one of our discs.
            let mut run = own.shift(direction) & opponent;
            while !run.is_empty() {
                let beyond = run.shift(direction);
                moves |= beyond & empty;
                run = beyond & opponent;
            }
        }
        moves
    }

    fn flips(board: &Board, side: Color, square: Square) -> Bitboard {
        if !board.empty_squares().contains(square) {
            return Bitboard::EMPTY;
        }
        let own = board.discs(side);
        let opponent = board.discs(side.opponent());
        let mut flips = Bitboard::EMPTY;
        for direction in Direction::ALL {
            let mut run = Bitboard::EMPTY;
            let mut cursor = square.step(direction);
            while let Some(s) = cursor {
                if opponent.contains(s) {
                    run.insert(s);
                    cursor = s.step(direction);
                } else {
                    if own.contains(s) {
                        flips |= run;
                    }
                    break;
                }
            }
        }
        flips
    }
}
