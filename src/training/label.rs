//! Step 2: a score for each position: the exact final disc difference where the solver
//! reaches (few empty squares), else the score of a deeper search with the evaluation of
//! the generation before. Each position is scored from an empty table, so its label does not
//! depend on which positions came before it or on the thread that scored it.

use super::{Label, Sample, sample::on_sample};
use crate::engine::{
    Limits, Node, SearchOptions, Selectivity, TranspositionTable, endgame,
    eval::{DISC, Evaluator},
    search::search,
};
use std::collections::BTreeMap;

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
    /// How selective that search is: a selective search of the same depth costs a
    /// fraction of a full-width one, so labels can come from deeper searches.
    pub selectivity: Selectivity,
}

impl LabelOptions {
    /// Defaults: exact up to 18 empties, a full-width depth-8 search above, the engine's own
    /// evaluation.
    pub(crate) fn new() -> LabelOptions {
        LabelOptions {
            exact_empties: 18,
            depth: 8,
            eval: Evaluator::default(),
            selectivity: Selectivity::NONE,
        }
    }
}

impl Default for LabelOptions {
    fn default() -> LabelOptions {
        LabelOptions::new()
    }
}

/// The transposition tables labelling uses, one per size, each cleared before a position
/// is scored: a label does not depend on the positions scored before it, and a search does
/// not pay for clearing a table sized for an 18-empty solve (16 MiB, about a millisecond).
#[derive(Default)]
pub struct LabelTables(BTreeMap<usize, TranspositionTable>);

impl LabelTables {
    /// No tables yet: each is made the first time a position needs its size.
    pub fn new() -> LabelTables {
        LabelTables::default()
    }

    /// The table of `megabytes` MiB, empty.
    fn cleared(&mut self, megabytes: usize) -> &mut TranspositionTable {
        let tt = self
            .0
            .entry(megabytes)
            .or_insert_with(|| TranspositionTable::new(megabytes));
        tt.clear();
        tt
    }
}

impl std::fmt::Debug for LabelTables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LabelTables")
            .field("megabytes", &self.0.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// The table size for a search of `depth` plies from an empty table: 2 MiB at depth 8,
/// doubling with each ply (at most 256 MiB).
fn megabytes_for_depth(depth: u32) -> usize {
    1 << depth.saturating_sub(7).min(8)
}

/// `sample` with its score (an already labelled sample is scored again, but for one
/// labelled by its game's result, which self-play gave it on purpose: it is kept).
pub fn label(sample: Sample, options: &LabelOptions, tables: &mut LabelTables) -> Sample {
    if sample.label == Label::Result {
        return sample;
    }
    let (score, label) = on_sample!(&sample, |node| score(
        &node,
        sample.kind.rule,
        options,
        tables
    ));
    Sample {
        score: score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
        label,
        ..sample
    }
}

fn score<N: Node>(
    node: &N,
    rule: WinRule,
    options: &LabelOptions,
    tables: &mut LabelTables,
) -> (i32, Label) {
    let empties = crate::engine::SquareSet::len(node.empties());
    if empties <= options.exact_empties {
        let tt = tables.cleared(TranspositionTable::megabytes_for_solve(empties));
        return (
            endgame::exact_score_under(node, rule, tt) * DISC,
            Label::Exact,
        );
    }
    let search_options = SearchOptions {
        selectivity: options.selectivity,
        ..SearchOptions::new(rule, Limits::depth(options.depth), options.eval)
    };
    let tt = tables.cleared(megabytes_for_depth(options.depth));
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
    use crate::training::selfplay::{SelfPlayOptions, game_table, self_play_game};

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
            ..LabelOptions::new()
        };
        let mut tables = LabelTables::new();
        let labelled: Vec<Sample> = game
            .iter()
            .map(|&s| label(s, &label_options, &mut tables))
            .collect();
        for (sample, was) in labelled.iter().zip(&game) {
            assert_eq!(sample.bits8(), was.bits8());
            if sample.empties() <= 10 {
                assert_eq!(sample.label, Label::Exact);
                assert_eq!(sample.score % DISC as i16, 0, "whole discs");
            } else {
                assert_eq!(sample.label, Label::Searched(3));
            }
        }
        // The same labels in the opposite order, on fresh tables.
        let mut other = LabelTables::new();
        for (sample, was) in labelled.iter().zip(&game).rev() {
            assert_eq!(label(*was, &label_options, &mut other), *sample);
        }
        assert!(labelled.iter().filter(|s| s.label == Label::Exact).count() >= 5);
    }

    #[test]
    fn selective_labels_repeat_and_keep_their_depth() {
        let game = self_play_game(4, &SelfPlayOptions::new(5), &mut game_table());
        let label_options = LabelOptions {
            exact_empties: 0,
            depth: 7,
            selectivity: Selectivity::DEFAULT,
            ..LabelOptions::new()
        };
        let mut tables = LabelTables::new();
        let labelled: Vec<Sample> = game
            .iter()
            .filter(|s| s.empties() > 20)
            .map(|&s| label(s, &label_options, &mut tables))
            .collect();
        assert!(labelled.len() > 10);
        assert!(labelled.iter().all(|s| s.label == Label::Searched(7)));
        let mut other = LabelTables::new();
        for sample in labelled.iter().rev() {
            assert_eq!(label(*sample, &label_options, &mut other), *sample);
        }
    }
}
