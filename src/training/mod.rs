//! The pipeline that trains the learned evaluation ([`pattern`](crate::engine::pattern)) from
//! self-play, as `othello train` runs it:
//!
//! 1. [`selfplay`](mod@selfplay): positions from games the engine plays against itself (random openings,
//!    random moves mixed in, some games random throughout);
//! 2. [`label`](mod@label): each position scored, exactly by the solver where few squares are empty,
//!    else by a deeper search with the evaluation of the generation before;
//! 3. [`fit`](mod@fit): the weights that best predict those scores, phase by phase;
//!
//! and [`measure`] tells how good an evaluation is against the exact solver; [`probcut`]
//! fits the selective search's predictions; [`dedup`] keeps each position once; [`pack`]
//! keeps a positions file as its games, about a byte a position.
//!
//! Generation k + 1 is fitted to positions labelled by the engine of generation k. Every
//! step is reproducible from its seed and options, whatever the number of threads; the
//! steps stream positions to and from files of fixed-size records ([`sample`]), so a long
//! run can stop and resume. Nothing here prints: progress goes out through callbacks.
//!
//! The features are those of the standard 8 × 8 board under FULL rules (most discs wins):
//! other shapes and SIMPLE would need pattern families of their own, and keep the
//! hand-written evaluation.

pub mod dedup;
pub mod fit;
pub mod label;
pub mod measure;
pub mod pack;
pub mod probcut;
pub mod sample;
pub mod selfplay;
pub mod zero;

pub use fit::{Fit, FitOptions, PhaseFit, fit, fit_kind, phases_for};
pub use label::{LabelOptions, LabelTables, label};
pub use sample::{Discs, Label, Sample, SampleHeader, SampleReader, SampleWriter, Shard};
pub use selfplay::{SelfPlayOptions, game_table, self_play_game};
