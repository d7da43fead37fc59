//! The searches: the midgame search (iterative deepening on the evaluation) and the exact
//! endgame solver. Both are negamax alpha-beta with principal variation search on one
//! skeleton (`pvs.rs`); each brings its own horizon, table use and move ordering as a
//! strategy. The solver uses the midgame search (to order moves and guess its first
//! window); the midgame search never calls the solver.

pub mod endgame;
mod midgame;
mod parallel;
pub mod probcut;
mod pvs;

pub use midgame::{RankedMove, SearchOptions, SearchReport, search};
pub use parallel::all_cores;
