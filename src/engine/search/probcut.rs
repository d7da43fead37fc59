//! Multi-ProbCut (Buro): a shallow search predicts a deep one well enough that, where the
//! prediction is far outside the window, the deep search need not be made. The prediction's
//! error is fitted on the project's own positions (`othello train probcut`): its mean and
//! standard deviation as linear functions of the depth and the empty squares. A node cuts
//! when the shallow search clears the window by the level's number of standard deviations
//! (`Selectivity::deviations`).

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::super::{
    Node, Selectivity,
    eval::{DISC, Evaluator},
};
use crate::{GameKind, Shape, Variant, WinRule};

/// The depth of the shallow search that predicts a search `depth` deep (or, in the
/// endgame, the exact score with `depth` empties): about half, of the same parity (so that
/// both end on the same side to move, where evaluations agree best).
pub(crate) const fn shallow_depth(depth: u32) -> u32 {
    ((depth >> 2) << 1) | (depth & 1)
}

/// The shallowest midgame search that cuts.
pub(crate) const MIDGAME_MIN_DEPTH: u32 = 3;

/// The fewest empties at which the solver cuts.
pub const ENDGAME_MIN_EMPTIES: u32 = 12;

/// A linear function of a few features, fitted by least squares.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Linear {
    /// The constant, then one coefficient per feature.
    pub(crate) coefficients: Vec<f64>,
}

impl Linear {
    /// Its value at `features` (missing coefficients count as zero).
    pub(crate) fn at(&self, features: &[f64]) -> f64 {
        let mut coefficients = self.coefficients.iter();
        let constant = coefficients.next().copied().unwrap_or(0.0);
        constant + coefficients.zip(features).map(|(c, x)| c * x).sum::<f64>()
    }
}

/// How a prediction errs: the deep (or exact) score minus the shallow one, in evaluation
/// units.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ErrorFit {
    /// Its mean.
    pub(crate) mean: Linear,
    /// Its standard deviation.
    pub(crate) deviation: Linear,
    /// Pairs it was fitted on.
    pub(crate) samples: usize,
}

impl ErrorFit {
    /// The mean and standard deviation at `features`, in evaluation units (the deviation at
    /// least half a disc: a fit is never trusted to be sharper than that).
    pub(crate) fn at(&self, features: &[f64]) -> (i32, i32) {
        let mean = self.mean.at(features);
        let deviation = self.deviation.at(features).max(f64::from(DISC) / 2.0);
        (mean.round() as i32, deviation.round() as i32)
    }
}

/// The fitted predictions for one evaluation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CutModel {
    /// The format; this program reads version 1.
    pub version: u32,
    /// The evaluation it was fitted with (`classic`, or a weights file's name).
    pub(crate) evaluation: String,
    /// The kind of game it was fitted on (as `GameKind` writes it).
    #[serde(default)]
    pub(crate) kind: String,
    /// Midgame: a search `depth` deep predicted by one [`shallow_depth`]`(depth)` deep;
    /// features (depth, shallow depth, empties).
    pub(crate) midgame: ErrorFit,
    /// Endgame: the exact score with `empties` empty squares predicted by a search
    /// [`shallow_depth`]`(empties)` deep; feature (empties).
    pub(crate) endgame: ErrorFit,
    /// How it was fitted (positions, seed, depths), for the record.
    pub(crate) fitted_on: String,
}

impl CutModel {
    /// The version this program reads and writes.
    pub const VERSION: u32 = 1;

    /// The kind of game it was fitted on, as [`crate::GameKind`] writes it (empty for a
    /// model that does not say).
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The midgame prediction's error at `depth` with `empties` empty squares.
    pub fn midgame(&self, depth: u32, empties: u32) -> (i32, i32) {
        self.midgame.at(&[
            f64::from(depth),
            f64::from(shallow_depth(depth)),
            f64::from(empties),
        ])
    }

    /// The endgame prediction's error with `empties` empty squares.
    pub fn endgame(&self, empties: u32) -> (i32, i32) {
        self.endgame.at(&[f64::from(empties)])
    }
}

/// The window a shallow search must clear for a cut, in its own units: the deep score is
/// likely (to `selectivity`) at least `beta` when the shallow one is at least the first
/// bound, and at most `alpha` when the shallow one is at most the second. `None` when the
/// search is full width.
pub(crate) fn cut_bounds(
    selectivity: Selectivity,
    (mean, deviation): (i32, i32),
    alpha: i32,
    beta: i32,
) -> Option<(i32, i32)> {
    let margin = (selectivity.deviations()? * f64::from(deviation)).ceil() as i32;
    Some((beta - mean + margin, alpha - mean - margin))
}

/// The model for searches with `eval` on `node`'s kind of game under `rule`, where one was
/// fitted for that kind and that evaluation (see [`COMPILED`]). Elsewhere searches stay full
/// width: a model fitted for another evaluation or another game would cut wrongly.
pub(crate) fn model_for<N: Node>(
    eval: Evaluator,
    node: &N,
    rule: WinRule,
) -> Option<&'static CutModel> {
    let kind = GameKind::new(N::VARIANT, node.layout().shape, rule);
    let learned = if kind == GameKind::STANDARD {
        match eval {
            Evaluator::Patterns(_) => true,
            Evaluator::Classic => false,
            Evaluator::Shaped(_) => return None,
        }
    } else {
        match eval.shaped(node, rule) {
            // Fitted with the shipped weights: a weights file of its own has no model.
            Some(weights) => {
                let shipped = super::super::pattern::shipped(kind)?;
                if !std::ptr::eq(weights, shipped) {
                    return None;
                }
                true
            }
            None => false,
        }
    };
    compiled(kind, learned)
}

/// One model compiled into the program: the kind of game and the evaluation (learned or
/// `classic`) it was fitted for, its JSON, decoded at its first use.
struct Compiled {
    kind: GameKind,
    learned: bool,
    text: &'static str,
    model: OnceLock<Option<CutModel>>,
}

impl Compiled {
    const fn new(kind: GameKind, learned: bool, text: &'static str) -> Compiled {
        Compiled {
            kind,
            learned,
            text,
            model: OnceLock::new(),
        }
    }

    fn model(&self) -> Option<&CutModel> {
        self.model
            .get_or_init(|| {
                let model: CutModel = serde_json::from_str(self.text).ok()?;
                (model.version == CutModel::VERSION).then_some(model)
            })
            .as_ref()
    }
}

const fn kind(variant: Variant, rows: u8, columns: u8, rule: WinRule) -> GameKind {
    match Shape::new(rows, columns) {
        Ok(shape) => GameKind::new(variant, shape, rule),
        Err(_) => panic!("a compiled model's shape is a shape"),
    }
}

/// The models compiled in, each made by `othello train probcut` on its kind's self-play
/// (`docs/training.md` says how; `othello train run` makes one with each generation). The
/// learned ones were fitted with the weights compiled in for their kind.
static COMPILED: [Compiled; 4] = [
    Compiled::new(
        GameKind::STANDARD,
        true,
        include_str!("../../../data/probcut-patterns.json"),
    ),
    Compiled::new(
        GameKind::STANDARD,
        false,
        include_str!("../../../data/probcut-classic.json"),
    ),
    Compiled::new(
        kind(Variant::Full, 8, 8, WinRule::FewestDiscs),
        true,
        include_str!("../../../data/probcut-full-8x8-fewest.json"),
    ),
    Compiled::new(
        kind(Variant::Full, 10, 10, WinRule::MostDiscs),
        true,
        include_str!("../../../data/probcut-full-10x10-most.json"),
    ),
];

/// The model compiled in for `kind` and the learned evaluation (or `classic`), if any.
fn compiled(kind: GameKind, learned: bool) -> Option<&'static CutModel> {
    COMPILED
        .iter()
        .find(|entry| entry.kind == kind && entry.learned == learned)?
        .model()
}

/// The kinds of game and evaluations (learned or not) with a model compiled in.
pub fn compiled_models() -> impl Iterator<Item = (GameKind, bool)> {
    COMPILED.iter().map(|entry| (entry.kind, entry.learned))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Board, Color, Shape, engine::Node8};

    #[test]
    fn shallow_depths_are_about_half_with_the_same_parity() {
        for depth in 3..=60 {
            let shallow = shallow_depth(depth);
            assert_eq!(shallow % 2, depth % 2, "{depth}");
            assert!(
                shallow < depth && shallow + 2 >= depth / 2,
                "{depth}: {shallow}"
            );
        }
    }

    #[test]
    fn bounds_widen_with_confidence_and_vanish_at_full_width() {
        let error = (20, 300);
        let mut last = (i32::MIN, i32::MAX);
        for level in Selectivity::ALL {
            match cut_bounds(level, error, -100, 100) {
                Some((high, low)) => {
                    assert!(high > last.0 && low < last.1, "{level}");
                    assert!(high > 100 - 20 && low < -100 - 20);
                    last = (high, low);
                }
                None => assert_eq!(level, Selectivity::NONE),
            }
        }
    }

    #[test]
    fn every_compiled_model_reads_and_is_for_its_kind() {
        for (kind, learned) in compiled_models() {
            let model = compiled(kind, learned).expect("a compiled model reads");
            assert_eq!(model.version, CutModel::VERSION);
            assert_eq!(model.kind, kind.to_string());
            assert_eq!(model.evaluation == "classic", !learned, "{kind}");
            let empties = kind.shape.cells() as u32 / 2;
            let (_, deviation) = model.midgame(8, empties);
            assert!(
                (DISC / 2..20 * DISC).contains(&deviation),
                "{kind}: {deviation}"
            );
            let (_, deviation) = model.endgame(16);
            assert!(
                (DISC / 2..20 * DISC).contains(&deviation),
                "{kind}: {deviation}"
            );
        }
    }

    #[test]
    fn searches_use_the_model_of_their_kind_and_evaluation_only() {
        let standard = Board::standard(Shape::STANDARD);
        let node = Node8::from_board(&standard, Color::Black);
        let learned = model_for(Evaluator::default(), &node, WinRule::MostDiscs).expect("a model");
        let classic = model_for(Evaluator::Classic, &node, WinRule::MostDiscs).expect("a model");
        assert_eq!(learned.evaluation, "built-in");
        assert_eq!(classic.evaluation, "classic");
        let model = model_for(Evaluator::default(), &node, WinRule::FewestDiscs).expect("fitted");
        assert_eq!(model.kind, "8x8 FULL fewest");
        // No model for classic under fewest discs, nor on SIMPLE boards (no weights there).
        assert!(model_for(Evaluator::Classic, &node, WinRule::FewestDiscs).is_none());
        let simple = crate::engine::GridNode::<crate::Simple>::from_board(&standard, Color::Black);
        assert!(model_for(Evaluator::default(), &simple, WinRule::MostDiscs).is_none());
        // Fitted on 6 x 6 and 12 x 12 for their shipped weights, but not compiled in: it did
        // not help (docs/training.md).
        for size in [6, 12] {
            let shape = Shape::new(size, size).unwrap();
            let grid = crate::engine::GridNode::<crate::Full>::from_board(
                &Board::standard(shape),
                Color::Black,
            );
            let kind = GameKind::new(Variant::Full, shape, WinRule::MostDiscs);
            assert!(crate::engine::pattern::shipped(kind).is_some(), "{kind}");
            assert!(model_for(Evaluator::default(), &grid, WinRule::MostDiscs).is_none());
            assert!(model_for(Evaluator::Classic, &grid, WinRule::MostDiscs).is_none());
        }
        // Fitted and compiled in for 10 x 10's shipped weights; `classic` stays full width.
        let ten = Shape::new(10, 10).unwrap();
        let grid =
            crate::engine::GridNode::<crate::Full>::from_board(&Board::standard(ten), Color::Black);
        let model = model_for(Evaluator::default(), &grid, WinRule::MostDiscs).expect("fitted");
        assert_eq!(model.kind, "10x10 FULL most");
        assert!(model_for(Evaluator::Classic, &grid, WinRule::MostDiscs).is_none());
        // A weights file is not the shipped weights, even with the same numbers.
        let fewest = GameKind::new(Variant::Full, Shape::STANDARD, WinRule::FewestDiscs);
        let copy = crate::engine::pattern::shipped(fewest).unwrap().clone();
        let file = Evaluator::Shaped(Box::leak(Box::new(copy)));
        assert!(model_for(file, &node, WinRule::FewestDiscs).is_none());
        let shipped = Evaluator::Shaped(crate::engine::pattern::shipped(fewest).unwrap());
        assert!(model_for(shipped, &node, WinRule::FewestDiscs).is_some());
    }
}
