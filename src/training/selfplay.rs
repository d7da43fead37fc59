//! Step 1: positions from games the engine plays against itself, from random openings and
//! with random moves mixed in so that the positions are varied, plus games played at
//! random throughout. Every game is played from its own seed, so any game can be played
//! again alone and the result does not depend on how many threads play them.
//!
//! Or, with [`SelfPlayOptions::result_labels`], games played as the strong engines make
//! their data: a random opening, then every move the engine's at a fixed level (solving
//! exactly near the end), and each position after the opening labelled by how its game
//! ended. The labels cost nothing beyond the game, so far more positions can be had than a
//! deep search of each would allow.

use rand::{RngExt, SeedableRng, rngs::StdRng};

use super::{Label, Sample};
use crate::GameKind;
use crate::engine::{
    Goal, LEVELS, Limits, Node, SearchOptions, Selectivity, SquareSet, TranspositionTable,
    endgame::{self, SolveOptions},
    eval::{DISC, Evaluator},
    mix, on_node,
    search::search,
};

/// How the games are played.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfPlayOptions {
    /// The rule set, board and win rule played (from the usual start, Black first).
    pub kind: GameKind,
    /// Makes every game reproducible.
    pub seed: u64,
    /// Random moves at the start of a game: from the first number to the second.
    pub opening: (u32, u32),
    /// Depth of the engine's search for each of its moves.
    pub depth: u32,
    /// The chance that a move after the opening is a random legal one instead of the
    /// engine's.
    pub randomness: f64,
    /// The share of games played at random from start to end.
    pub random_games: f64,
    /// What the engine evaluates with.
    pub eval: Evaluator,
    /// How selective the engine's searches are.
    pub selectivity: Selectivity,
    /// From this many empty squares on, the engine solves the game exactly and plays a
    /// best move (0: never; its search alone plays).
    pub solve_empties: u32,
    /// Label positions by their game's result: those with at most this many empty squares
    /// get the final disc difference the game reached from them ([`Label::Result`]; the
    /// exact score from `solve_empties` on), those with more are left unlabelled for a deeper label
    /// (`train label`). Games then have no random moves after the opening and none is
    /// random throughout (`randomness` and `random_games` do not apply), and the opening's
    /// positions are not kept: every label is the outcome of the engine's own play.
    pub result_labels: Option<u32>,
}

impl SelfPlayOptions {
    /// Defaults: standard Othello, openings of 4 to 20 random moves, depth 6, one move in
    /// ten random, one game in ten random throughout, the engine's own evaluation.
    pub fn new(seed: u64) -> SelfPlayOptions {
        SelfPlayOptions {
            kind: GameKind::STANDARD,
            seed,
            opening: (4, 20),
            depth: 6,
            randomness: 0.1,
            random_games: 0.1,
            eval: Evaluator::default(),
            selectivity: Selectivity::NONE,
            solve_empties: 0,
            result_labels: None,
        }
    }

    /// Plays as the engine's level `level` (1 to 9) does, its slips and book aside: its
    /// depth, its exact solve near the end and its selectivity.
    ///
    /// # Panics
    /// If `level` is not from 1 to 9 (level 10 has no depth, only time, to bound it).
    #[must_use]
    pub fn at_level(self, level: u8) -> SelfPlayOptions {
        assert!((1..=9).contains(&level), "a level from 1 to 9");
        let level = LEVELS[usize::from(level) - 1];
        SelfPlayOptions {
            depth: level.depth,
            solve_empties: level.solve_empties,
            selectivity: level.selectivity,
            ..self
        }
    }
}

/// Table for the engine's searches in a game, in MiB.
const GAME_HASH: usize = 2;

/// Plays game `number` and returns every position in it where the side to move had a move
/// (unlabelled), in order.
pub fn self_play_game(
    number: u32,
    options: &SelfPlayOptions,
    tt: &mut TranspositionTable,
) -> Vec<Sample> {
    let start = crate::Board::standard(options.kind.shape);
    on_node!(
        variant = options.kind.variant,
        &start,
        crate::Color::Black,
        |node| play_from(node, number, options, tt)
    )
}

fn play_from<N: Node>(
    mut node: N,
    number: u32,
    options: &SelfPlayOptions,
    tt: &mut TranspositionTable,
) -> Vec<Sample> {
    let mut rng = StdRng::seed_from_u64(mix(options.seed, u64::from(number), 11));
    let at_random = rng.random_bool(options.random_games.clamp(0.0, 1.0));
    let opening = rng.random_range(options.opening.0..=options.opening.1.max(options.opening.0));
    let by_result = options.result_labels.is_some();
    let (at_random, randomness) = if by_result {
        (false, 0.0)
    } else {
        (at_random, options.randomness.clamp(0.0, 1.0))
    };
    // The table starts empty for every game: a game's moves depend on its seed only.
    tt.clear();
    let search_options = SearchOptions {
        selectivity: options.selectivity,
        ..SearchOptions::new(
            options.kind.rule,
            Limits::depth(options.depth.max(1)),
            options.eval,
        )
    };
    let solve_options = SolveOptions {
        eval: options.eval,
        ..SolveOptions::exact(options.kind.rule)
    };
    let mut samples = Vec::with_capacity(64);
    // Whether each sample's side to move is the side to move now (for the result's sign).
    let mut mover = Vec::with_capacity(64);
    let mut ply = 0;
    let mut side = true;
    loop {
        let moves = node.moves();
        if moves.is_empty() {
            match node.after_pass() {
                Some(passed) => {
                    node = passed;
                    side = !side;
                }
                None => break,
            }
            continue;
        }
        let random = at_random || ply < opening || rng.random_bool(randomness);
        if !(by_result && random) {
            samples.push(Sample::of_node(&node, options.kind, number));
            mover.push(side);
        }
        let mv = if random {
            let mut left = moves;
            for _ in 0..rng.random_range(0..moves.len()) {
                left.pop();
            }
            left.first().expect("a move")
        } else if moves.len() > 1 && node.empties().len() <= options.solve_empties {
            let solution =
                endgame::solve_with(&node, Goal::Exact, &solve_options, tt, &Limits::NONE, None)
                    .expect("a solve without limits finishes");
            solution
                .best
                .and_then(|square| node.index(square))
                .expect("the solver finds a move where there is one")
        } else {
            let report = search(&node, &search_options, tt, None, &mut |_| {});
            report
                .best
                .and_then(|square| node.index(square))
                .expect("the search finds a move where there is one")
        };
        node = node.play(mv);
        side = !side;
        ply += 1;
    }
    if let Some(result_empties) = options.result_labels {
        // The final disc difference for the side to move at the end, then for each sample's.
        let end = node.final_score(options.kind.rule) * DISC;
        for (sample, &mover) in samples.iter_mut().zip(&mover) {
            let empties = sample.empties();
            if empties > result_empties {
                continue;
            }
            sample.score = if mover == side { end } else { -end } as i16;
            sample.label = Label::Result;
        }
    }
    samples
}

/// A table for one thread's games.
pub fn game_table() -> TranspositionTable {
    TranspositionTable::new(GAME_HASH)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Full, Game, Setup, Shape, Status, Variant, WinRule, engine::Node8};

    #[test]
    fn games_are_legal_reproducible_and_varied() {
        let options = SelfPlayOptions {
            depth: 2,
            eval: Evaluator::Classic,
            ..SelfPlayOptions::new(5)
        };
        let mut tt = game_table();
        let first = self_play_game(0, &options, &mut tt);
        assert_eq!(self_play_game(0, &options, &mut game_table()), first);
        assert_ne!(self_play_game(1, &options, &mut tt), first);
        // The positions are those of a legal game, in order, each with a move.
        let mut game = Game::<Full>::new(Setup::standard(Shape::STANDARD));
        for (ply, sample) in first.iter().enumerate() {
            let Status::ToMove(side) = game.status() else {
                panic!("a sample after the end");
            };
            let node = Node8::from_board(game.board(), side);
            assert_eq!(sample.bits8(), (node.player(), node.opponent()));
            assert_eq!(sample.game, 0);
            // Find the move that leads to the next sample.
            let next = first.get(ply + 1);
            let square = game
                .legal_moves()
                .iter()
                .find(|&square| {
                    let mut after = game.clone();
                    after.play(square).unwrap();
                    match (after.status(), next) {
                        (Status::ToMove(side), Some(next)) => {
                            let node = Node8::from_board(after.board(), side);
                            (node.player(), node.opponent()) == next.bits8()
                        }
                        (Status::Over(_), None) => true,
                        _ => false,
                    }
                })
                .expect("consecutive samples are a move apart");
            game.play(square).unwrap();
        }
        assert!(game.is_over());
    }

    /// Result labels are the game's final disc difference for each position's side to
    /// move: exact (what the solver finds) once both sides solve, and the same size
    /// throughout a game; no position of the random opening is kept.
    #[test]
    fn result_labels_are_how_the_game_ended() {
        use crate::engine::{endgame, eval::DISC, on_node};
        for (rule, seed) in [(WinRule::MostDiscs, 9), (WinRule::FewestDiscs, 10)] {
            let options = SelfPlayOptions {
                kind: GameKind::new(Variant::Full, Shape::STANDARD, rule),
                eval: Evaluator::Classic,
                opening: (6, 6),
                result_labels: Some(40),
                ..SelfPlayOptions::new(seed).at_level(4)
            };
            assert_eq!((options.depth, options.solve_empties), (4, 8));
            let mut solved = 0;
            for number in 0..6 {
                let game = self_play_game(number, &options, &mut game_table());
                assert_eq!(
                    game[0].empties(),
                    54,
                    "the opening's six moves are not kept"
                );
                let size = game.last().unwrap().score.abs();
                for sample in &game {
                    if sample.empties() > 40 {
                        assert_eq!((sample.label, sample.score), (Label::None, 0));
                        continue;
                    }
                    assert_eq!(sample.label, Label::Result);
                    assert_eq!(sample.score.abs(), size, "one game, one result");
                    if sample.empties() <= 8 {
                        let board = sample.board();
                        let exact = on_node!(
                            variant = Variant::Full,
                            &board,
                            crate::Color::Black,
                            |node| endgame::exact_score_under(&node, rule, &mut game_table())
                        );
                        assert_eq!(i32::from(sample.score), exact * DISC, "{rule:?}");
                        solved += 1;
                    }
                }
            }
            // Some games end early (a side wiped out), most reach the solver.
            assert!(solved >= 20, "{solved}");
        }
    }
}
