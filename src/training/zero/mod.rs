//! AlphaZero-style training of [`crate::engine::zero`]'s net from self-play: games played
//! many at once with their leaves batched ([`games`]), positions with the search's visit
//! shares and the games' results ([`replay`]), the fit ([`fit`]) and the resumable loop with
//! its gate ([`run`]); what a run reached, against the solver ([`exact`]) and the engine's
//! levels ([`levels`]), and its curve ([`curve`], [`record`]).

pub mod curve;
pub mod exact;
pub mod fit;
pub mod games;
pub mod levels;
pub mod record;
pub mod replay;
pub mod run;

pub use curve::{CURVE_MARK, ExactRow, curve_svg, parse_exact};
pub use exact::{ExactPosition, ExactShare, exact_positions, exact_share};
pub use fit::{FitSettings, Losses};
pub use games::{MatchSettings, Seat, SelfPlaySettings, Tally, play_match, self_play};
pub use levels::{
    LEVELS, LevelRow, bests, levels_csv, parse_levels, shown_levels, tenths_of_percent,
};
pub use record::RunRecord;
pub use replay::{ZeroSample, read_samples, write_samples};
pub use run::{
    Iteration, Run, ZeroError, ZeroSettings, parse_iterations, parse_state, read_iterations,
};
