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
        // Written out direction by direction (not a loop over them), so that each shift is
        // inlined as its own: a loop dispatched every shift through a jump table.
        let toward = |direction| moves_toward(own, opponent, empty, direction);
        toward(Direction::North)
            | toward(Direction::NorthEast)
            | toward(Direction::East)
            | toward(Direction::SouthEast)
            | toward(Direction::South)
            | toward(Direction::SouthWest)
            | toward(Direction::West)
            | toward(Direction::NorthWest)
    }

    /// Walks out from `square` in each direction. Legal-move generation works on whole sets,
    /// but for one move the walk is the fastest way found on the 256-bit grid: runs are short,
    /// and set-wide shifts (15 % slower) or ray tables with a bit scan (40 % slower) cost more
    /// per step than they save (perft on 16x16 and 10x6, BENCHMARKS.md). 8x8 FULL has its own
    /// bitboard fast path.
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

    /// A disc is stable when, along each of the four axes, its line is full, or it touches
    /// the edge, or it touches a stable disc of its colour: then no move can flank it along
    /// that axis. Found by growing the set from nothing until it stops changing. Discs that
    /// are stable only because of the opponent's stable discs are not found (a subset, as
    /// in most engines), nor, to save time, any while all four corners are empty (a disc can
    /// then be stable only on four full lines, which is rare).
    fn stable(board: &Board, side: Color) -> Bitboard {
        let shape = board.shape();
        let (last_row, last_column) = (shape.rows() - 1, shape.columns() - 1);
        let corners = [
            (0, 0),
            (0, last_column),
            (last_row, 0),
            (last_row, last_column),
        ];
        if corners
            .iter()
            .all(|&(row, column)| board.at(Square::new(row, column)).is_none())
        {
            return Bitboard::EMPTY;
        }
        let cells = shape.mask();
        let empty = board.empty_squares();
        let protected = AXES.map(|(forward, backward)| {
            // Every square sharing a line along this axis with an empty square.
            let mut open = empty;
            loop {
                let spread = open | ((open.shift(forward) | open.shift(backward)) & cells);
                if spread == open {
                    break;
                }
                open = spread;
            }
            let inner = cells.shift(forward) & cells.shift(backward);
            cells & !(open & inner)
        });
        let own = board.discs(side);
        let mut stable = Bitboard::EMPTY;
        loop {
            let mut grown = own;
            for (&(forward, backward), &protected) in AXES.iter().zip(&protected) {
                grown &= protected | stable.shift(forward) | stable.shift(backward);
            }
            if grown == stable {
                return stable;
            }
            stable = grown;
        }
    }
}

/// The empty squares where `own` flanks a run of `opponent` discs in `direction`.
#[inline(always)]
fn moves_toward(
    own: Bitboard,
    opponent: Bitboard,
    empty: Bitboard,
    direction: Direction,
) -> Bitboard {
    let mut moves = Bitboard::EMPTY;
    // Opponent discs that continue an unbroken run from one of our discs.
    let mut run = own.shift(direction) & opponent;
    while !run.is_empty() {
        let beyond = run.shift(direction);
        moves |= beyond & empty;
        run = beyond & opponent;
    }
    moves
}

/// The four lines through a square, each as its two directions.
const AXES: [(Direction, Direction); 4] = [
    (Direction::East, Direction::West),
    (Direction::South, Direction::North),
    (Direction::SouthEast, Direction::NorthWest),
    (Direction::SouthWest, Direction::NorthEast),
];
