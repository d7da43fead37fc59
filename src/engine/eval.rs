//! Static evaluation: how good a position looks for the side to move, in hundredths of a
//! disc, on any board shape, under either rule set and either win rule.
//!
//! A hand-weighted sum of the classic features: mobility and potential mobility (having
//! moves, and leaving the opponent few), corners and the squares next to empty corners,
//! discs that can never flip, parity (who is due the last move), and the disc difference,
//! which gains weight as the board fills. Weights are named constants below; the game phase
//! (how full the board is) scales those that change over a game.

use super::{Node, SquareSet};
use crate::{Variant, WinRule};

/// One disc, in evaluation units: final scores are disc differences times this.
pub const DISC: i32 = 100;

/// Mobility: the difference in legal moves, relative to their sum (so that 6 against 2
/// counts like 12 against 4), at full weight.
const MOBILITY: i32 = 1200;
/// Potential mobility: empty squares next to the opponent's discs, per square of difference.
const POTENTIAL_MOBILITY: i32 = 40;
/// A corner owned.
const CORNER: i32 = 900;
/// A disc on the square diagonally next to an empty corner (it tends to give the corner).
const X_SQUARE: i32 = 350;
/// A disc on an edge square next to an empty corner.
const C_SQUARE: i32 = 120;
/// A disc that can never be flipped.
const STABLE: i32 = 150;
/// The side to move is due the last move (an odd number of empty squares).
const PARITY: i32 = 100;
/// Disc difference per disc: from this at the start ...
const DISCS_EARLY: i32 = -10;
/// ... to this when the board is full (most discs wins only counts at the end).
const DISCS_LATE: i32 = 60;
/// Under SIMPLE rules a disc flips only when a neighbour is played, so a disc with no empty
/// neighbour is settled for good: worth this much.
const SETTLED_SIMPLE: i32 = 60;

/// The evaluation of `node` for the side to move under `rule`.
///
/// Under [`WinRule::FewestDiscs`] every term about owning discs (corners, stable discs, the
/// disc difference) changes sign; mobility keeps its meaning: having choices is good either
/// way.
pub fn evaluate<N: Node>(node: &N, rule: WinRule) -> i32 {
    let layout = node.layout();
    let (player, opponent, empty) = (node.player(), node.opponent(), node.empties());
    let cells = layout.cells.len() as i32;
    let empties = empty.len() as i32;
    // 0 at the empty board, 1000 when full.
    let phase = (cells - empties) * 1000 / cells;

    let my_moves = node.moves().len() as i32;
    let their_moves = node.pass().moves().len() as i32;
    let mobility = MOBILITY * (my_moves - their_moves) / (my_moves + their_moves + 2);
    let potential = POTENTIAL_MOBILITY
        * ((opponent.neighbours() & empty).len() as i32
            - (player.neighbours() & empty).len() as i32);

    let mut ownership = 0;
    for corner in &layout.corners {
        let count = |set: N::Set, discs: N::Set| (set & discs).len() as i32;
        if (corner.corner & empty).is_empty() {
            ownership += CORNER * (count(corner.corner, player) - count(corner.corner, opponent));
        } else {
            ownership -=
                X_SQUARE * (count(corner.x_square, player) - count(corner.x_square, opponent));
            ownership -=
                C_SQUARE * (count(corner.c_squares, player) - count(corner.c_squares, opponent));
        }
    }
    let stable = match N::VARIANT {
        Variant::Full => STABLE * (node.stable().len() as i32 - node.pass().stable().len() as i32),
        Variant::Simple => {
            let settled = !empty.neighbours();
            SETTLED_SIMPLE * ((player & settled).len() as i32 - (opponent & settled).len() as i32)
        }
    };
    let disc_weight = DISCS_EARLY + (DISCS_LATE - DISCS_EARLY) * phase / 1000;
    let discs = disc_weight * (player.len() as i32 - opponent.len() as i32);
    let parity = if empties % 2 == 1 { PARITY } else { -PARITY } * phase / 1000;

    let owning = ownership + stable + discs;
    match rule {
        WinRule::MostDiscs => mobility + potential + owning + parity,
        WinRule::FewestDiscs => mobility + potential - owning + parity,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Board, Color, Full, Shape, Square,
        engine::{GridNode, Node8},
    };

    fn node(cells: &[(&str, Color)]) -> Node8 {
        let mut board = Board::standard(Shape::STANDARD);
        for &(square, color) in cells {
            board.set(square.parse::<Square>().unwrap(), Some(color));
        }
        Node8::from_board(&board, Color::Black)
    }

    #[test]
    fn symmetric_start_is_balanced_but_for_parity() {
        let start = node(&[]);
        let score = evaluate(&start, WinRule::MostDiscs);
        assert!(score.abs() <= PARITY, "{score}");
        let grid = GridNode::<Full>::from_board(&Board::standard(Shape::STANDARD), Color::Black);
        assert_eq!(evaluate(&grid, WinRule::MostDiscs), score);
    }

    #[test]
    fn corners_are_good_and_x_squares_bad_under_most_discs() {
        let corner = node(&[("a1", Color::Black)]);
        let x_square = node(&[("b2", Color::Black)]);
        let base = evaluate(&node(&[]), WinRule::MostDiscs);
        assert!(evaluate(&corner, WinRule::MostDiscs) > base + CORNER / 2);
        assert!(evaluate(&x_square, WinRule::MostDiscs) < base);
        // Fewest discs: owning the corner is a liability.
        assert!(evaluate(&corner, WinRule::FewestDiscs) < evaluate(&corner, WinRule::MostDiscs));
    }

    #[test]
    fn works_on_every_shape() {
        for (rows, columns) in [(4, 4), (4, 16), (16, 16), (5, 7)] {
            let board = Board::standard(Shape::new(rows, columns).unwrap());
            let node = GridNode::<crate::Simple>::from_board(&board, Color::White);
            let score = evaluate(&node, WinRule::FewestDiscs);
            assert!(score.abs() < 10 * DISC, "{score}");
        }
    }
}
