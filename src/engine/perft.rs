//! Perft: the leaves of the game tree to a depth, the check on move generation.

#[cfg(target_arch = "x86_64")]
use super::fast_cpu;
use super::{Node, SquareSet, on_node};
use crate::{Board, Color, RuleSet};

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

/// [`perft`] for any [`Node`].
///
/// On x86-64 processors with `popcnt`, `lzcnt`, BMI and AVX2 the whole recursion runs in a
/// copy compiled for them (chosen once per call by feature detection): counting moves is most
/// of perft's work, the portable bit count is several instructions where `popcnt` needs one,
/// and AVX2 lets [`Node8`](super::Node8)'s fast path inline its vector move generator.
pub fn perft_nodes<N: Node>(node: &N, depth: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if fast_cpu() {
        // SAFETY: the processor has every feature `perft_x86` is compiled for.
        return unsafe { perft_x86(node, depth) };
    }
    perft_portable(node, depth)
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
