//! How often a player's moves keep the game's exact value: positions from games of their
//! own (not the net's), every move of each scored once by the exact solver (the scores
//! kept in [`KnownScores`], so a measure run again solves nothing new), after which any
//! player's choice is a look-up. Where the solver knows the truth this is the measure that
//! matters: a player beating random and greedy may still throw away won positions.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::engine::{
    Limits, Node, PlayerSpec, SquareSet, TranspositionTable, mix, new_player, seat_seed,
};
use crate::training::measure::{KnownScores, exact_score, pick_position};
use crate::training::{Sample, sample::on_sample};
use crate::{Color, Game, GameKind, Setup, Square};

/// A position with the moves that keep its exact value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactPosition {
    /// The position (the side to move is Black in its board).
    pub sample: Sample,
    /// Its exact value, the final disc difference for the side to move with perfect play.
    pub value: i32,
    /// Every move that keeps it.
    pub keeping: Vec<Square>,
    /// How many moves it has.
    pub moves: usize,
}

/// `count` positions of `kind` with `empties.0` to `empties.1` empty squares (one from
/// each of a set of games played by a shallow search, `seed`'s), each with the moves that
/// keep its value, solved on every core; `known` holds the scores already solved, and the
/// new ones are added to it.
pub fn exact_positions(
    kind: GameKind,
    count: usize,
    empties: (u32, u32),
    seed: u64,
    known: &KnownScores,
    progress: &(dyn Fn() + Sync),
) -> Vec<ExactPosition> {
    let samples: Vec<Sample> = (0u32..(count as u32).saturating_mul(1000))
        .step_by(64)
        .flat_map(|first| {
            (first..first + 64)
                .into_par_iter()
                .filter_map(|game| pick_position(kind, seed, game, empties))
                .collect::<Vec<_>>()
        })
        .take(count)
        .collect();
    samples
        .par_iter()
        .map(|sample| {
            let exact = solve_moves(sample, known);
            progress();
            exact
        })
        .collect()
}

/// `sample`'s value and the moves that keep it, each move solved (or known).
fn solve_moves(sample: &Sample, known: &KnownScores) -> ExactPosition {
    let rule = sample.kind.rule;
    on_sample!(sample, |node| {
        let mut tt = TranspositionTable::new(TranspositionTable::megabytes_for_solve(
            node.empties().len(),
        ));
        let mut scored: Vec<(Square, i32)> = Vec::new();
        let mut moves = node.moves();
        while let Some(mv) = moves.pop() {
            let after = node.play(mv);
            scored.push((
                node.square(mv),
                -exact_score(&after, rule, &mut tt, known, run_key),
            ));
        }
        let value = scored.iter().map(|&(_, score)| score).max().unwrap_or(0);
        ExactPosition {
            sample: *sample,
            value,
            keeping: scored
                .iter()
                .filter(|&&(_, score)| score == value)
                .map(|&(square, _)| square)
                .collect(),
            moves: scored.len(),
        }
    })
}

/// A position's key in a run's file of exact scores: its discs as `u64`s in its board's own
/// layout (standard Othello's and the small boards' nodes have them; a file is one run's,
/// so of one kind of game). Positions of larger boards are solved every time.
fn run_key<N: Node>(position: &N) -> Option<(u64, u64)> {
    position
        .bits8()
        .or_else(|| Some((position.player().bits8()?, position.opponent().bits8()?)))
}

/// How a player did on a set of [`ExactPosition`]s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactShare {
    /// Positions where its move kept the value.
    pub kept: usize,
    /// Positions measured.
    pub positions: usize,
    /// Its mean time a move.
    pub mean_time: Duration,
}

impl ExactShare {
    /// The share of its moves that kept the value, 0 to 1.
    pub fn share(&self) -> f64 {
        self.kept as f64 / self.positions.max(1) as f64
    }
}

/// The share of `positions` where `spec`, within `limits`, plays a move that keeps the
/// value. One position at a time (a player's time is the machine's); `seed` seeds its
/// random choices.
pub fn exact_share(
    positions: &[ExactPosition],
    spec: PlayerSpec,
    limits: &Limits,
    seed: u64,
) -> ExactShare {
    let mut kept = 0;
    let mut spent = Duration::ZERO;
    for (number, position) in positions.iter().enumerate() {
        let sample = &position.sample;
        let setup = Setup {
            board: sample.board(),
            first_mover: Color::Black,
            win_rule: sample.kind.rule,
        };
        let seed = seat_seed(mix(seed, number as u64, 48), 0, Color::Black);
        let start = Instant::now();
        let chosen = crate::on_rules!(sample.kind.variant, |R| {
            let game = Game::<R>::new(setup);
            new_player::<R>(spec, seed, None).choose(&game, limits, &mut |_| {})
        });
        spent += start.elapsed();
        if chosen.is_some_and(|square| position.keeping.contains(&square)) {
            kept += 1;
        }
    }
    ExactShare {
        kept,
        positions: positions.len(),
        mean_time: spent / positions.len().max(1) as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Shape, Variant, WinRule};

    /// The final disc difference for the side to move with perfect play, by plain negamax.
    fn negamax<N: Node>(node: &N, rule: WinRule) -> i32 {
        let mut moves = node.moves();
        if moves.is_empty() {
            let passed = node.pass();
            if passed.moves().is_empty() {
                return crate::engine::final_score(
                    rule,
                    node.player().len(),
                    node.opponent().len(),
                    node.empties().len(),
                );
            }
            return -negamax(&passed, rule);
        }
        let mut best = i32::MIN;
        while let Some(mv) = moves.pop() {
            best = best.max(-negamax(&node.play(mv), rule));
        }
        best
    }

    /// The moves said to keep the value are exactly those that do (checked by a plain
    /// negamax on 4 × 4), and the measure gives a perfect player every position and random
    /// fewer.
    #[test]
    fn the_moves_keeping_the_value_are_those_a_plain_negamax_finds() {
        let kind = GameKind::new(
            Variant::Full,
            Shape::new(4, 4).expect("a shape"),
            WinRule::MostDiscs,
        );
        let known = KnownScores::default();
        let positions = exact_positions(kind, 24, (4, 11), 3, &known, &|| {});
        assert_eq!(positions.len(), 24);
        for position in &positions {
            let sample = &position.sample;
            let (value, keeping) = on_sample!(sample, |node| {
                let mut scored = Vec::new();
                let mut moves = node.moves();
                while let Some(mv) = moves.pop() {
                    scored.push((node.square(mv), -negamax(&node.play(mv), kind.rule)));
                }
                let value = scored.iter().map(|&(_, score)| score).max().expect("moves");
                let mut keeping: Vec<Square> = scored
                    .into_iter()
                    .filter(|&(_, score)| score == value)
                    .map(|(square, _)| square)
                    .collect();
                keeping.sort_unstable();
                (value, keeping)
            });
            let mut found = position.keeping.clone();
            found.sort_unstable();
            assert_eq!((position.value, found), (value, keeping), "{sample:?}");
        }
        let perfect = exact_share(
            &positions,
            PlayerSpec::Engine(10),
            &Limits::time(Duration::from_secs(2)),
            1,
        );
        assert_eq!(
            perfect.kept,
            positions.len(),
            "the engine solves 4x4 exactly"
        );
        let random = exact_share(&positions, PlayerSpec::Random, &Limits::NONE, 1);
        assert!(random.kept < positions.len(), "{random:?}");
        assert!((0.0..1.0).contains(&random.share()));
    }
}
