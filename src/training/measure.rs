//! How good an evaluation is, measured against the exact solver:
//!
//! - move quality: the move a shallow search with the evaluation chooses, scored by the
//!   solver against the best move (the loss in discs);
//! - prediction: the static evaluation against the exact score (or a deep search where the
//!   game is too far from its end to solve).
//!
//! The positions come from games of their own (a seed of their own), so they are not
//! positions the weights were fitted to.

use std::{collections::HashMap, sync::Mutex};

use rand::{RngExt, SeedableRng, rngs::StdRng};

use super::{
    Label, Sample,
    sample::on_sample,
    selfplay::{SelfPlayOptions, game_table, self_play_game},
};
use crate::WinRule;
use crate::engine::{
    Limits, Node, SearchOptions, Selectivity, SquareSet, TranspositionTable, endgame,
    eval::{DISC, Evaluator},
    mix,
    search::search,
};

/// Positions of game `number` of a measuring set (`seed`) with between `empties.0` and
/// `empties.1` empty squares: one picked at random, if the game has any.
pub fn pick_position(
    kind: crate::GameKind,
    seed: u64,
    number: u32,
    empties: (u32, u32),
) -> Option<Sample> {
    let options = SelfPlayOptions {
        kind,
        seed,
        depth: 4,
        eval: Evaluator::Classic,
        ..SelfPlayOptions::new(seed)
    };
    let game = self_play_game(number, &options, &mut game_table());
    let fitting: Vec<Sample> = game
        .into_iter()
        .filter(|sample| (empties.0..=empties.1).contains(&sample.empties()))
        .collect();
    if fitting.is_empty() {
        return None;
    }
    let mut rng = StdRng::seed_from_u64(mix(seed, u64::from(number), 17));
    Some(fitting[rng.random_range(0..fitting.len())])
}

/// Exact scores (final disc differences for the side to move) of the positions solved so
/// far, by the discs of the side to move and of the other: a measure run again (another
/// build, another time limit) solves only the positions it has not met. Shared by the
/// measure's threads.
#[derive(Debug, Default)]
pub struct KnownScores(Mutex<HashMap<(u64, u64), i32>>);

impl KnownScores {
    /// Scores known from before: `(player, opponent, score)`.
    pub fn new(scores: impl IntoIterator<Item = (u64, u64, i32)>) -> Self {
        let map = scores
            .into_iter()
            .map(|(player, opponent, score)| ((player, opponent), score))
            .collect();
        Self(Mutex::new(map))
    }

    /// Every score known, in the order of the positions' discs.
    pub fn scores(&self) -> Vec<(u64, u64, i32)> {
        let mut scores: Vec<_> = self
            .map()
            .iter()
            .map(|(&(player, opponent), &score)| (player, opponent, score))
            .collect();
        scores.sort_unstable();
        scores
    }

    fn get(&self, position: (u64, u64)) -> Option<i32> {
        self.map().get(&position).copied()
    }

    fn insert(&self, position: (u64, u64), score: i32) {
        self.map().insert(position, score);
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<(u64, u64), i32>> {
        // A panic elsewhere cannot leave a half-made entry: take the map as it is.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// For each player (an evaluation and a selectivity): the loss in discs of the move a
/// search with it chooses within `limits` (a depth, or a time) in `sample`'s position,
/// against the best move, both scored by the exact solver, or taken from `known` (and
/// added to it when solved).
///
/// Only the position and the chosen moves are solved (one table for all of them): ranking
/// every move exactly costs several times more at 20 to 24 empties and tells no more.
pub fn move_losses(
    sample: &Sample,
    players: &[(Evaluator, Selectivity)],
    limits: &Limits,
    known: &KnownScores,
) -> Vec<i32> {
    on_sample!(sample, |node| {
        node_losses(&node, sample.kind.rule, players, limits, known)
    })
}

fn node_losses<N: Node>(
    node: &N,
    rule: WinRule,
    players: &[(Evaluator, Selectivity)],
    limits: &Limits,
    known: &KnownScores,
) -> Vec<i32> {
    let mut tt = TranspositionTable::new(TranspositionTable::megabytes_for_solve(
        node.empties().len(),
    ));
    let mut exact = |position: &N| exact_score(position, rule, &mut tt, known, N::bits8);
    let best = exact(node);
    let megabytes = limits
        .time
        .map_or(4, TranspositionTable::megabytes_for_time);
    players
        .iter()
        .map(|&(eval, selectivity)| {
            let options = SearchOptions {
                selectivity,
                ..SearchOptions::new(rule, *limits, eval)
            };
            let chosen = search(
                node,
                &options,
                &mut TranspositionTable::new(megabytes),
                None,
                &mut |_| {},
            )
            .best;
            match chosen.and_then(|square| node.index(square)) {
                Some(mv) => best + exact(&node.play(mv)),
                None => 0,
            }
        })
        .collect()
}

/// The exact score of `position` (the final disc difference for the side to move with
/// perfect play), from `known` or solved with `tt` (and then added to `known`, with the
/// score of the position after its best move, which solving it told).
///
/// `key` names a position in `known`: [`Node::bits8`] for files of standard-board scores; a
/// file of one other kind of game may key by that board's own layout.
pub fn exact_score<N: Node>(
    position: &N,
    rule: WinRule,
    tt: &mut TranspositionTable,
    known: &KnownScores,
    key: impl Fn(&N) -> Option<(u64, u64)>,
) -> i32 {
    let bits = key(position);
    if let Some(score) = bits.and_then(|bits| known.get(bits)) {
        return score;
    }
    let solution = endgame::solve(
        position,
        rule,
        endgame::Goal::Exact,
        tt,
        &Limits::NONE,
        None,
    )
    .expect("a solve without limits finishes");
    if let Some(bits) = bits {
        known.insert(bits, solution.score);
        let best = solution.best.and_then(|square| position.index(square));
        if let Some(after) = best.and_then(|mv| key(&position.play(mv))) {
            known.insert(after, -solution.score);
        }
    }
    solution.score
}

/// `sample` with its exact score (the final disc difference with perfect play).
pub fn solved(sample: &Sample) -> Sample {
    super::label(
        *sample,
        &super::LabelOptions {
            exact_empties: 64,
            depth: 1,
            eval: Evaluator::Classic,
            ..super::LabelOptions::new()
        },
        &mut super::LabelTables::new(),
    )
}

/// `sample` with the score of a `depth`-ply search with `eval`.
pub fn searched(sample: &Sample, eval: Evaluator, depth: u32) -> Sample {
    let options = super::LabelOptions {
        exact_empties: 0,
        depth,
        eval,
        ..super::LabelOptions::new()
    };
    let labelled = super::label(*sample, &options, &mut super::LabelTables::new());
    debug_assert_ne!(labelled.label, Label::None);
    labelled
}

/// The static evaluation of `sample`'s position with `eval`, in discs.
pub fn static_score(sample: &Sample, eval: Evaluator) -> f64 {
    let score = on_sample!(sample, |node| eval.evaluate(&node, sample.kind.rule));
    f64::from(score) / f64::from(DISC)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The move a `depth`-ply search with the classic evaluation chooses.
    fn chosen_by<N: Node>(node: &N, depth: u32, tt: &mut TranspositionTable) -> crate::Square {
        let options =
            SearchOptions::new(WinRule::MostDiscs, Limits::depth(depth), Evaluator::Classic);
        search(node, &options, tt, None, &mut |_| {}).best.unwrap()
    }

    /// Every move of `node` with its exact score, best first.
    fn reference<N: Node>(node: &N) -> Vec<(crate::Square, i32)> {
        let (scores, _) = endgame::rank(
            node,
            &endgame::SolveOptions::exact(WinRule::MostDiscs),
            node.moves().len() as usize,
            &mut TranspositionTable::new(16),
            &Limits::NONE,
            None,
        )
        .unwrap();
        scores.iter().map(|s| (s.square, s.score)).collect()
    }

    #[test]
    fn losses_are_never_negative_and_the_best_search_loses_nothing() {
        let sample = (0..20)
            .find_map(|game| pick_position(crate::GameKind::STANDARD, 3, game, (10, 12)))
            .expect("a position with 10 to 12 empties");
        assert!((10..=12).contains(&sample.empties()));
        // A search to the end of the game chooses a best move.
        let full = (Evaluator::Classic, Selectivity::NONE);
        let known = KnownScores::default();
        let losses = move_losses(&sample, &[full, full], &Limits::depth(64), &known);
        assert_eq!(losses, [0, 0]);
        // A selective search to the end, and a short timed one, lose nothing or something.
        let selective = (Evaluator::Classic, Selectivity::MOST);
        let timed = Limits::time(std::time::Duration::from_millis(5));
        assert!(move_losses(&sample, &[selective], &timed, &known)[0] >= 0);
        let shallow = move_losses(&sample, &[full], &Limits::depth(1), &known);
        assert!(shallow[0] >= 0);
        let exact = solved(&sample);
        assert_eq!(exact.label, Label::Exact);
        assert!(static_score(&sample, Evaluator::Classic).abs() < 64.0);
    }

    #[test]
    fn losses_are_those_of_every_move_ranked_exactly() {
        let mut losing = 0;
        for sample in (0..40)
            .filter_map(|game| pick_position(crate::GameKind::STANDARD, 5, game, (10, 12)))
            .take(8)
        {
            let ranked = on_sample!(&sample, |node| reference(&node));
            for depth in 1..=3 {
                let mut tt = TranspositionTable::new(4);
                let chosen = on_sample!(&sample, |node| chosen_by(&node, depth, &mut tt));
                let score = ranked
                    .iter()
                    .find(|(square, _)| *square == chosen)
                    .unwrap()
                    .1;
                let loss = ranked[0].1 - score;
                losing += usize::from(loss > 0);
                let classic = (Evaluator::Classic, Selectivity::NONE);
                let known = KnownScores::default();
                let limits = Limits::depth(depth);
                assert_eq!(move_losses(&sample, &[classic], &limits, &known), [loss]);
                // Measured again from the scores found: the same loss, nothing solved.
                let found = known.scores();
                assert_eq!(move_losses(&sample, &[classic], &limits, &known), [loss]);
                assert_eq!(known.scores(), found);
            }
        }
        assert!(losing > 0, "some shallow searches chose a worse move");
    }

    #[test]
    fn known_scores_are_taken_not_solved_again() {
        let sample = (0..20)
            .find_map(|game| pick_position(crate::GameKind::STANDARD, 4, game, (10, 12)))
            .expect("a position with 10 to 12 empties");
        let full = (Evaluator::Classic, Selectivity::NONE);
        let known = KnownScores::default();
        assert_eq!(
            move_losses(&sample, &[full], &Limits::depth(64), &known),
            [0]
        );
        let exact = i32::from(solved(&sample).score) / DISC;
        let root = sample.bits8();
        assert_eq!(known.get(root), Some(exact));
        assert_eq!(known.scores().len(), 2, "the position and its best move's");
        // A score said to be 5 discs better than it is: the best move now seems to lose 5.
        let told = KnownScores::new([(root.0, root.1, exact + 5)]);
        assert_eq!(
            move_losses(&sample, &[full], &Limits::depth(64), &told),
            [5]
        );
        // Only the move's position solved: added with its own best reply's.
        assert_eq!(told.scores().len(), 3);
    }
}
