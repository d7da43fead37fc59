//! Step 1: positions from games the engine plays against itself, from random openings and
//! with random moves mixed in so that the positions are varied, plus games played at
//! random throughout. Every game is played from its own seed, so any game can be played
//! again alone and the result does not depend on how many threads play them.

use rand::{RngExt, SeedableRng, rngs::StdRng};

use super::Sample;
use crate::GameKind;
use crate::engine::{
    Limits, Node, SearchOptions, SquareSet, TranspositionTable, eval::Evaluator, mix, on_node,
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
    // The table starts empty for every game: a game's moves depend on its seed only.
    tt.clear();
    let search_options = SearchOptions::new(
        options.kind.rule,
        Limits::depth(options.depth.max(1)),
        options.eval,
    );
    let mut samples = Vec::with_capacity(64);
    let mut ply = 0;
    loop {
        let moves = node.moves();
        if moves.is_empty() {
            match node.after_pass() {
                Some(passed) => node = passed,
                None => return samples,
            }
            continue;
        }
        samples.push(Sample::of_node(&node, options.kind, number));
        let random =
            at_random || ply < opening || rng.random_bool(options.randomness.clamp(0.0, 1.0));
        let mv = if random {
            let mut left = moves;
            for _ in 0..rng.random_range(0..moves.len()) {
                left.pop();
            }
            left.first().expect("a move")
        } else {
            let report = search(&node, &search_options, tt, None, &mut |_| {});
            report
                .best
                .and_then(|square| node.index(square))
                .expect("the search finds a move where there is one")
        };
        node = node.play(mv);
        ply += 1;
    }
}

/// A table for one thread's games.
pub fn game_table() -> TranspositionTable {
    TranspositionTable::new(GAME_HASH)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Full, Game, Setup, Shape, Status, engine::Node8};

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
}
