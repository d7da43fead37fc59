//! Multi-ProbCut (Buro): a shallow search predicts a deep one well enough that, where the
//! prediction is far outside the window, the deep search need not be made. The prediction's
//! error is fitted on the project's own positions (`othello train probcut`): its mean and
//! standard deviation as linear functions of the depth and the empty squares. A node cuts
//! when the shallow search clears the window by the level's number of standard deviations
//! (`Selectivity::deviations`).

use serde::{Deserialize, Serialize};

use super::super::{
    Node, Selectivity,
    eval::{DISC, Evaluator},
};
use crate::WinRule;

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

/// The model for searches with `eval` on `node`'s kind of position under `rule`, where one
/// was fitted: the standard 8 × 8 board under FULL rules when most discs win. Elsewhere
/// searches stay full width.
pub(crate) fn model_for<N: Node>(
    eval: Evaluator,
    node: &N,
    rule: WinRule,
) -> Option<&'static CutModel> {
    if rule != WinRule::MostDiscs || node.bits8().is_none() {
        return None;
    }
    builtin(eval)
}

/// The models compiled into the program, for the learned evaluation and for the
/// hand-written one; `None` if none was fitted for `eval`'s kind.
fn builtin(eval: Evaluator) -> Option<&'static CutModel> {
    use std::sync::OnceLock;
    static MODELS: OnceLock<[Option<CutModel>; 2]> = OnceLock::new();
    let models = MODELS.get_or_init(|| {
        [BUILTIN_PATTERNS, BUILTIN_CLASSIC].map(|text| {
            let model: CutModel = serde_json::from_str(text).ok()?;
            (model.version == CutModel::VERSION).then_some(model)
        })
    });
    match eval {
        Evaluator::Patterns(_) => models[0].as_ref(),
        Evaluator::Classic => models[1].as_ref(),
        Evaluator::Shaped(_) => None,
    }
}

/// `othello train probcut` on positions of generation 3's self-play with the learned
/// evaluation compiled in.
const BUILTIN_PATTERNS: &str = include_str!("../../../data/probcut-patterns.json");

/// The same with the hand-written evaluation.
const BUILTIN_CLASSIC: &str = include_str!("../../../data/probcut-classic.json");

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
    fn the_compiled_models_read_and_apply_where_fitted() {
        let node = Node8::from_board(&Board::standard(Shape::STANDARD), Color::Black);
        for eval in [Evaluator::default(), Evaluator::Classic] {
            let model = model_for(eval, &node, WinRule::MostDiscs).expect("a model");
            assert_eq!(model.version, CutModel::VERSION);
            let (_, deviation) = model.midgame(10, 40);
            assert!((DISC / 2..20 * DISC).contains(&deviation), "{deviation}");
            let (_, deviation) = model.endgame(20);
            assert!((DISC / 2..20 * DISC).contains(&deviation), "{deviation}");
        }
        assert!(model_for(Evaluator::default(), &node, WinRule::FewestDiscs).is_none());
        let grid = crate::engine::GridNode::<crate::Full>::from_board(
            &Board::standard(Shape::new(6, 6).unwrap()),
            Color::Black,
        );
        assert!(model_for(Evaluator::Classic, &grid, WinRule::MostDiscs).is_none());
    }
}
