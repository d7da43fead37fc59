//! The engine: positions as it sees them ([`Node`], the side to move against its opponent
//! with fast move generation: [`GridNode`] for every shape and rule set, [`Node8`] a `u64`
//! fast path for the standard 8 × 8 board under FULL rules, [`SmallNode`] one for the other
//! boards up to 8 × 8), [`perft`], the evaluation
//! ([`eval`], with the learned patterns of [`pattern`]), the [`TranspositionTable`], the
//! searches ([`search`](mod@search): the midgame search, the exact solver of [`endgame`] and
//! the one decision between them), the opening [`book`], MCTS, and the players ([`Player`],
//! named by a [`PlayerSpec`]). Nothing here prints: searches report through callbacks and a
//! [`Signal`].
//!
//! Built on it, beside it: matches and Elo ratings ([`crate::arena`]), analysis for people
//! ([`crate::analysis`]) and the training pipeline ([`crate::training`]).
//!
//! This file is the engine's face: its modules, what the rest of the library and the program
//! use of them (everything else is the engine's own, `pub(crate)` at most), and the
//! `on_node!` macro that runs generic code on the fastest representation of a position.

pub mod book;
mod budget;
#[cfg(target_arch = "x86_64")]
mod cpu;
pub mod eval;
mod grid;
mod limits;
mod mcts;
mod node;
mod node8;
pub mod pattern;
mod perft;
mod player;
pub(crate) use player::LEVELS;
mod score;
pub mod search;
mod seed;
mod selectivity;
mod small;
pub(crate) mod symmetry;
mod tt;
pub mod zero;

pub use search::endgame::{self, Goal};

pub use budget::{TimeBudget, moves_left};
#[cfg(target_arch = "x86_64")]
pub(crate) use cpu::{fast_cpu, fast_pext};
pub use grid::GridNode;
pub(crate) use limits::Stopper;
pub use limits::{Limits, Signal, SolveStep};
pub(crate) use node::Index;
pub use node::{Corner, Layout, Node, SquareSet, final_score};
#[cfg(target_arch = "x86_64")]
pub(crate) use node8::Avx2Node8;
pub use node8::Node8;
pub use perft::{perft, perft_nodes};
pub use player::{
    EngineSettings, Occupant, PLAYER_KINDS, ParsePlayerError, Player, PlayerKind, PlayerSpec,
    SpecArgument, new_player, new_player_with,
};
pub(crate) use search::plan::{search_time_estimate, solve_time_estimate};
pub use search::{SearchOptions, SearchReport, all_cores, search};
pub use seed::{mix, seat_seed};
pub use selectivity::{ParseSelectivityError, Selectivity};
pub use small::SmallNode;
pub(crate) use symmetry::{equivalent_squares, mirrored_moves};
pub use tt::TranspositionTable;

/// Runs `$body` with `$node` bound to a position in the fastest representation there is
/// for it; the body is compiled once per representation, so it may call generic code
/// (`fn f<N: Node>(node: &N)`) and borrow from its surroundings like a closure.
///
/// - `on_node!(rules = R, board, side, |node| body)`: `board` with `side` to move under
///   the rule set `R`: on the standard 8 × 8 board under [`Full`](crate::Full) rules a [`Node8`],
///   on other boards of at most 8 rows and 8 columns a [`SmallNode<R>`](SmallNode), else a
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
        } else if let Some($node) = $crate::engine::SmallNode::<$rules>::from_board(board, side) {
            $body
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
