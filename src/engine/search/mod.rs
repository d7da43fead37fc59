//! The searches: the midgame search (iterative deepening on the evaluation) and the exact
//! endgame solver. Both are negamax alpha-beta with principal variation search on one
//! skeleton (`pvs.rs`); each brings its own horizon, table use and move ordering as a
//! strategy. The solver uses the midgame search (to order moves and guess its first
//! window); the midgame search never calls the solver. The search the engine's users run
//! (`deepening.rs`) is the midgame search's iterations, then, near the end, solves; when to
//! solve instead of searching is decided in one place for every caller (`plan.rs`).

mod deepening;
pub mod endgame;
mod midgame;
mod parallel;
pub(crate) mod plan;
pub mod probcut;
mod pvs;

pub use deepening::search;
pub use midgame::{RankedMove, SearchOptions, SearchReport};
pub use parallel::all_cores;
