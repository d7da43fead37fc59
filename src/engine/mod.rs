//! The engine's view of a position: the side to move against its opponent, with fast move
//! generation. Perft (and later search) is generic over [`Node`], with two implementations:
//! [`GridNode`] for every shape and rule set, and [`Node8`], a `u64` fast path for the
//! standard 8 × 8 board under FULL rules.

use crate::{Board, Color, RuleSet};

pub mod book;
pub mod eval;
mod grid;
mod limits;
pub mod mcts;
mod node;
mod node8;
pub mod pattern;
pub mod player;
mod score;
pub mod search;
mod seed;
mod selectivity;
mod tt;

// TEMP issue 45: used by server/hub.rs and server/api.rs (`othello::engine::analysis::..`).
#[doc(hidden)]
pub use crate::analysis;
pub use search::endgame::{self, Goal, Solution, Unfinished, solve};

pub use grid::GridNode;
pub use limits::{Limits, Signal, Stopper};
pub use node::{Corner, Index, Layout, Node, SquareSet, final_score};
#[cfg(target_arch = "x86_64")]
pub(crate) use node8::Avx2Node8;
pub use node8::Node8;
pub use player::{
    EnginePlayer, EngineSettings, LEVELS, Level, Occupant, PLAYER_KINDS, ParsePlayerError, Player,
    PlayerKind, PlayerSpec, SpecArgument, new_player, new_player_with,
};
pub use search::{
    RankedMove, SearchOptions, SearchReport, all_cores,
    plan::{search_time_estimate, solve_time_estimate},
    search,
};
pub use seed::{mix, seat_seed};
pub use selectivity::{ParseSelectivityError, Selectivity};
pub use tt::{Bound, Entry, TranspositionTable};

/// Counts the leaves of the game tree `depth` plies below `board` with `side` to move.
///
/// Convention: a pass counts as one ply, and a finished game counts as one leaf at every
/// deeper depth. From the standard 8 × 8 start with Black to move this gives OEIS A124004
/// (4, 12, 56, 244, 1396, ...). The standard 8 × 8 board under [`Full`](crate::Full) rules uses a `u64`
/// fast path; every other shape and rule set uses the general 256-bit boards.
///
/// ```
/// use othello::{Board, Color, Full, Shape, Simple, engine::perft};
///
/// let start = Board::standard(Shape::STANDARD);
/// let leaves: Vec<u64> = (1..=5).map(|d| perft::<Full>(&start, Color::Black, d)).collect();
/// assert_eq!(leaves, [4, 12, 56, 244, 1396]);
/// assert_eq!(perft::<Simple>(&start, Color::Black, 1), 10);
/// # Ok::<_, othello::ShapeError>(())
/// ```
pub fn perft<R: RuleSet>(board: &Board, side: Color, depth: u32) -> u64 {
    on_node!(rules = R, board, side, |node| perft_nodes(&node, depth))
}

/// Runs `$body` with `$node` bound to a position in the fastest representation there is
/// for it; the body is compiled once per representation, so it may call generic code
/// (`fn f<N: Node>(node: &N)`) and borrow from its surroundings like a closure.
///
/// - `on_node!(rules = R, board, side, |node| body)`: `board` with `side` to move under
///   the rule set `R`: on the standard 8 × 8 board under [`Full`](crate::Full) rules a [`Node8`], else a
///   [`GridNode<R>`](GridNode);
/// - `on_node!(variant = v, board, side, |node| body)`: the same, with the rules as a
///   [`Variant`](crate::Variant) known only at run time;
/// - `on_node!(bits = player, opponent, |node| body)`: the 8 × 8 FULL position with the
///   `u64` discs `player` to move against `opponent`'s, as a [`Node8`].
///
/// A [`Node8`] is one with AVX2 move generation where the processor has it.
macro_rules! on_node {
    (rules = $rules:ty, $board:expr, $side:expr, |$node:ident| $body:expr) => {{
        let (board, side): (&$crate::Board, $crate::Color) = ($board, $side);
        if ::std::any::TypeId::of::<$rules>() == ::std::any::TypeId::of::<$crate::Full>()
            && board.shape() == $crate::Shape::STANDARD
        {
            let fast = $crate::engine::Node8::from_board(board, side);
            $crate::engine::on_node!(
                bits = $crate::engine::Node::player(&fast),
                $crate::engine::Node::opponent(&fast),
                |$node| $body
            )
        } else {
            let $node = $crate::engine::GridNode::<$rules>::from_board(board, side);
            $body
        }
    }};
    (variant = $variant:expr, $board:expr, $side:expr, |$node:ident| $body:expr) => {
        $crate::on_rules!($variant, |OnNodeRules| {
            $crate::engine::on_node!(rules = OnNodeRules, $board, $side, |$node| $body)
        })
    };
    (bits = $player:expr, $opponent:expr, |$node:ident| $body:expr) => {{
        let plain = $crate::engine::Node8::new($player, $opponent);
        #[cfg(target_arch = "x86_64")]
        let result = match $crate::engine::Avx2Node8::new(plain) {
            Some($node) => $body,
            None => {
                let $node = plain;
                $body
            }
        };
        #[cfg(not(target_arch = "x86_64"))]
        let result = {
            let $node = plain;
            $body
        };
        result
    }};
}
pub(crate) use on_node;

/// [`perft`] for any [`Node`].
///
/// On x86-64 processors with `popcnt`, `lzcnt`, BMI and AVX2 the whole recursion runs in a
/// copy compiled for them (chosen once per call by feature detection): counting moves is most
/// of perft's work, the portable bit count is several instructions where `popcnt` needs one,
/// and AVX2 lets [`Node8`]'s fast path inline its vector move generator.
pub fn perft_nodes<N: Node>(node: &N, depth: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if fast_cpu() {
        // SAFETY: the processor has every feature `perft_x86` is compiled for.
        return unsafe { perft_x86(node, depth) };
    }
    perft_portable(node, depth)
}

/// Whether this processor has what the engine's fast copies are compiled for: `popcnt`,
/// `lzcnt`, BMI1, BMI2 and AVX2 (checked once, then cached by the standard library).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn fast_cpu() -> bool {
    std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("avx2")
}

/// Whether to use `pext`: BMI2, on a processor that runs it in hardware (AMD's before Zen 3
/// microcode it, tens to hundreds of cycles).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn fast_pext() -> bool {
    static FAST: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FAST.get_or_init(|| {
        if !std::arch::is_x86_feature_detected!("bmi2") {
            return false;
        }
        let vendor = std::arch::x86_64::__cpuid(0);
        let signature = std::arch::x86_64::__cpuid(1).eax;
        let amd = vendor.ebx == 0x6874_7541 && vendor.edx == 0x6974_6e65; // "Auth" "enti"
        let family = ((signature >> 8) & 0xf) + ((signature >> 20) & 0xff);
        !amd || family >= 0x19
    })
}

fn perft_portable<N: Node>(node: &N, depth: u32) -> u64 {
    perft_step(node, depth, perft_portable)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
fn perft_x86<N: Node>(node: &N, depth: u32) -> u64 {
    perft_step(node, depth, |node, depth| perft_x86(node, depth))
}

/// One level of perft; `recurse` is the same function for the level below.
#[inline(always)]
fn perft_step<N: Node>(node: &N, depth: u32, recurse: impl Fn(&N, u32) -> u64) -> u64 {
    // One ply left: each move is a leaf, and so is a pass or the end of the game.
    let leaves_below = |node: &N| u64::from(node.moves().len().max(1));
    let mut moves = node.moves();
    match depth {
        0 => 1,
        1 => u64::from(moves.len().max(1)),
        _ if moves.is_empty() => match node.after_pass() {
            Some(passed) => recurse(&passed, depth - 1),
            None => 1, // the game is over: one leaf at every depth below
        },
        2 => {
            let mut leaves = 0;
            while let Some(mv) = moves.pop() {
                leaves += leaves_below(&node.play(mv));
            }
            leaves
        }
        _ => {
            let mut leaves = 0;
            while let Some(mv) = moves.pop() {
                leaves += recurse(&node.play(mv), depth - 1);
            }
            leaves
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Bitboard, Full, Shape};

    /// The 8 × 8 part of a grid set, as a `u64`.
    fn to_u64(set: Bitboard) -> u64 {
        set.iter()
            .filter(|&s| Shape::STANDARD.contains(s))
            .fold(0, |bits, s| {
                bits | 1u64 << (u32::from(s.row()) * 8 + u32::from(s.column()))
            })
    }

    #[test]
    fn both_representations_agree_on_8x8() {
        let board = Board::standard(Shape::STANDARD);
        let fast = Node8::from_board(&board, Color::Black);
        let grid = GridNode::<Full>::from_board(&board, Color::Black);
        let (a, b) = (fast.layout(), grid.layout());
        assert_eq!(a.cells, to_u64(b.cells));
        assert_eq!(a.edges, to_u64(b.edges));
        for (x, y) in a.quadrants.iter().zip(&b.quadrants) {
            assert_eq!(*x, to_u64(*y));
        }
        for (x, y) in a.corners.iter().zip(&b.corners) {
            assert_eq!(x.corner, to_u64(y.corner));
            assert_eq!(x.x_square, to_u64(y.x_square));
            assert_eq!(x.c_squares, to_u64(y.c_squares));
        }
        assert_eq!(b.edges.count(), 28);
        let mut bits = 0x8100_2400_0018_0081u64;
        let set: Bitboard = std::iter::from_fn(|| bits.pop())
            .map(|i| fast.square(i))
            .collect();
        assert_eq!(
            SquareSet::neighbours(0x8100_2400_0018_0081u64),
            to_u64(set.neighbours())
        );
        for square in Shape::STANDARD.squares() {
            assert_eq!(fast.square(fast.index(square).unwrap()), square);
        }
        assert_ne!(fast.hash(), fast.pass().hash());
    }

    #[test]
    fn layouts_of_small_and_odd_boards() {
        let board = Board::standard(Shape::new(4, 5).unwrap());
        let node = GridNode::<Full>::from_board(&board, Color::Black);
        let layout = node.layout();
        assert_eq!(layout.cells.count(), 20);
        assert_eq!(layout.edges.count(), 14);
        let top_right = layout.corners[1];
        assert_eq!(top_right.corner.first(), Some(crate::Square::new(0, 4)));
        assert_eq!(top_right.x_square.first(), Some(crate::Square::new(1, 3)));
        assert_eq!(top_right.c_squares.count(), 2);
    }
}
