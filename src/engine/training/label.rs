//! Step 2: a score for each position: the exact final disc difference where the solver
//! reaches (few empty squares), else the score of a deeper search with the evaluation of
//! the generation before. Each position is scored from an empty table, so its label does not
//! depend on which positions came before it or on the thread that scored it.

use super::{
    super::{
        Goal, Limits, Node, SearchOptions, TranspositionTable, endgame,
        eval::{DISC, Evaluator},
        on_node,
        search::search,
    },
    Label, Sample,
};
use crate::WinRule;

/// How positions are scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LabelOptions {
    /// Positions with at most this many empty squares are solved exactly.
    pub exact_empties: u32,
    /// The others get the score of a search this deep.
    pub depth: u32,
    /// What that search evaluates with.
    pub eval: Evaluator,
}

impl LabelOptions {
    /// Defaults: exact up to 18 empties, depth 8 above, the engine's own evaluation.
    pub fn new() -> LabelOptions {
        LabelOptions {
            exact_empties: 18,
            depth: 8,
            eval: Evaluator::default(),
        }
    }
}

impl Default for LabelOptions {
    fn default() -> LabelOptions {
        LabelOptions::new()
    }
}

/// A table big enough for the solves of positions up to `options.exact_empties`.
pub fn label_table(options: &LabelOptions) -> TranspositionTable {
    TranspositionTable::new(TranspositionTable::megabytes_for_solve(
        options.exact_empties,
    ))
}

/// `sample` with its score (an already labelled sample is scored again).
pub fn label(sample: Sample, options: &LabelOptions, tt: &mut TranspositionTable) -> Sample {
    tt.clear();
    let (score, label) = on_node!(bits = sample.player, sample.opponent, |node| {
        score(&node, options, tt)
    });
    Sample {
        score: score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
        label,
        ..sample
    }
}

fn score<N: Node>(node: &N, options: &LabelOptions, tt: &mut TranspositionTable) -> (i32, Label) {
    let empties = crate::engine::SquareSet::len(node.empties());
    if empties <= options.exact_empties {
        let solution = endgame::solve(
            node,
            WinRule::MostDiscs,
            Goal::Exact,
            tt,
            &Limits::NONE,
            None,
        )
        .expect("a solve without limits finishes");
        return (solution.score * DISC, Label::Exact);
    }
    let search_options = SearchOptions::new(
        WinRule::MostDiscs,
        Limits::depth(options.depth),
        options.eval,
    );
    let report = search(node, &search_options, tt, None, &mut |_| {});
    let label = if report.exact {
        Label::Exact
    } else {
        Label::Searched(report.depth.min(u32::from(u8::MAX)) as u8)
    };
    (report.score, label)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::training::selfplay::{SelfPlayOptions, game_table, self_play_game};

    #[test]
    fn endgames_are_solved_and_the_rest_searched_the_same_on_any_table() {
        let options = SelfPlayOptions {
            depth: 1,
            eval: Evaluator::Classic,
            ..SelfPlayOptions::new(3)
        };
        let game = self_play_game(2, &options, &mut game_table());
        let label_options = LabelOptions {
            exact_empties: 10,
            depth: 3,
            eval: Evaluator::Classic,
        };
        let mut tt = label_table(&label_options);
        let labelled: Vec<Sample> = game
            .iter()
            .map(|&s| label(s, &label_options, &mut tt))
            .collect();
        for (sample, was) in labelled.iter().zip(&game) {
            assert_eq!((sample.player, sample.opponent), (was.player, was.opponent));
            if sample.empties() <= 10 {
                assert_eq!(sample.label, Label::Exact);
                assert_eq!(sample.score % DISC as i16, 0, "whole discs");
            } else {
                assert_eq!(sample.label, Label::Searched(3));
            }
        }
        // The same labels in the opposite order, on a fresh table.
        let mut other = label_table(&label_options);
        for (sample, was) in labelled.iter().zip(&game).rev() {
            assert_eq!(label(*was, &label_options, &mut other), *sample);
        }
        assert!(labelled.iter().filter(|s| s.label == Label::Exact).count() >= 5);
    }
}
