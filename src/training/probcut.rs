//! Fitting Multi-ProbCut's model ([`CutModel`]) on the project's own positions: how well a
//! shallow search predicts a deep one in the midgame, and the exact score in the endgame.
//!
//! For each midgame position the search deepens one ply at a time, full width, and every
//! depth `d` from `MIDGAME_MIN_DEPTH` up is paired with `shallow_depth``(d)`; for each
//! endgame position the exact score (by the solver) is paired with a search
//! `shallow_depth``(empties)` deep. The error (deep minus shallow, in evaluation units)
//! gets a mean and a standard deviation, each a linear function fitted by least squares:
//! of the depth and the empties in the midgame, of the empties in the endgame (the
//! deviation shaped by the absolute errors and scaled to their root mean square).

use super::{Sample, sample::on_sample};
use crate::engine::{
    Limits, Node, SearchOptions, SquareSet, TranspositionTable,
    eval::{DISC, Evaluator},
    search::{
        endgame::exact_score_under,
        probcut::{
            CutModel, ENDGAME_MIN_EMPTIES, ErrorFit, Linear, MIDGAME_MIN_DEPTH, shallow_depth,
        },
        search,
    },
};
use crate::{GameKind, WinRule};

/// One prediction measured: the deep (or exact) score minus the shallow one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    /// The deep search's depth (in the endgame, the empties).
    pub depth: u32,
    /// Empty squares of the position.
    pub empties: u32,
    /// Deep minus shallow, in evaluation units.
    pub error: i32,
}

/// The midgame pairs of `sample`'s position: a full-width search deepening to `max_depth`
/// (short of the end of the game) with `eval`, each depth against its shallow one.
pub fn midgame_pairs(sample: &Sample, eval: Evaluator, max_depth: u32) -> Vec<Pair> {
    on_sample!(sample, |node| {
        node_midgame_pairs(&node, sample.kind.rule, eval, max_depth)
    })
}

fn node_midgame_pairs<N: Node>(
    node: &N,
    rule: WinRule,
    eval: Evaluator,
    max_depth: u32,
) -> Vec<Pair> {
    let empties = node.empties().len();
    let deepest = max_depth.min(empties.saturating_sub(1));
    if node.moves().is_empty() || deepest < MIDGAME_MIN_DEPTH {
        return Vec::new();
    }
    let options = SearchOptions::new(rule, Limits::depth(deepest), eval);
    let mut scores = vec![eval.evaluate(node, rule)];
    let mut tt = TranspositionTable::new(16);
    search(node, &options, &mut tt, None, &mut |report| {
        scores.push(report.score)
    });
    (MIDGAME_MIN_DEPTH..=deepest)
        .filter(|&depth| (depth as usize) < scores.len())
        .map(|depth| Pair {
            depth,
            empties,
            error: scores[depth as usize] - scores[shallow_depth(depth) as usize],
        })
        .collect()
}

/// The endgame pair of `sample`'s position: its exact score against a full-width search
/// `shallow_depth``(empties)` deep with `eval`; `None` below [`ENDGAME_MIN_EMPTIES`].
pub fn endgame_pair(sample: &Sample, eval: Evaluator) -> Option<Pair> {
    on_sample!(sample, |node| node_endgame_pair(
        &node,
        sample.kind.rule,
        eval
    ))
}

fn node_endgame_pair<N: Node>(node: &N, rule: WinRule, eval: Evaluator) -> Option<Pair> {
    let empties = node.empties().len();
    if empties < ENDGAME_MIN_EMPTIES || node.moves().is_empty() {
        return None;
    }
    let mut tt = TranspositionTable::new(TranspositionTable::megabytes_for_solve(empties));
    let exact = exact_score_under(node, rule, &mut tt);
    let options = SearchOptions::new(rule, Limits::depth(shallow_depth(empties)), eval);
    let shallow = search(node, &options, &mut tt, None, &mut |_| {}).score;
    Some(Pair {
        depth: empties,
        empties,
        error: exact * DISC - shallow,
    })
}

/// The midgame model's features: the deep depth, the shallow one, the empties.
pub(crate) fn midgame_features(depth: u32, empties: u32) -> Vec<f64> {
    vec![
        f64::from(depth),
        f64::from(shallow_depth(depth)),
        f64::from(empties),
    ]
}

/// The least-squares fit of the errors of `pairs` (mean and deviation) on `features`;
/// `None` where the pairs cannot tell the features' effects apart (too few of them, or
/// features that move together).
pub(crate) fn fit_errors(pairs: &[Pair], features: impl Fn(&Pair) -> Vec<f64>) -> Option<ErrorFit> {
    let rows: Vec<Vec<f64>> = pairs.iter().map(&features).collect();
    let errors: Vec<f64> = pairs.iter().map(|pair| f64::from(pair.error)).collect();
    let mean = least_squares(&rows, &errors)?;
    let residuals: Vec<f64> = rows
        .iter()
        .zip(&errors)
        .map(|(row, error)| error - mean.at(row))
        .collect();
    // The shape from the absolute residuals, the size from their squares: errors have
    // heavier tails than a normal one, and the root mean square keeps cuts honest there.
    let spreads: Vec<f64> = residuals.iter().map(|r| r.abs()).collect();
    let mut deviation = least_squares(&rows, &spreads)?;
    let fitted: f64 = rows.iter().map(|row| deviation.at(row).powi(2)).sum();
    let squares: f64 = residuals.iter().map(|r| r * r).sum();
    if fitted > 0.0 {
        let scale = (squares / fitted).sqrt();
        for coefficient in &mut deviation.coefficients {
            *coefficient *= scale;
        }
    }
    Some(ErrorFit {
        deviation,
        mean,
        samples: pairs.len(),
    })
}

/// Why a model could not be fitted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FitError {
    /// The midgame pairs do not tell depth, shallow depth and empties apart.
    #[error(
        "the midgame pairs cannot be fitted: they need searches to depth 6 or more on \
         positions at several numbers of empty squares"
    )]
    Midgame,
    /// The endgame pairs do not tell the empties apart.
    #[error(
        "the endgame pairs cannot be fitted: they need solved positions at two numbers of \
         empty squares or more"
    )]
    Endgame,
}

/// The model of `midgame` and `endgame` pairs, measured with the evaluation named
/// `evaluation`; `fitted_on` says how.
pub fn fit_model(
    kind: GameKind,
    midgame: &[Pair],
    endgame: &[Pair],
    evaluation: &str,
    fitted_on: &str,
) -> Result<CutModel, FitError> {
    Ok(CutModel {
        version: CutModel::VERSION,
        evaluation: evaluation.to_owned(),
        kind: kind.to_string(),
        midgame: fit_errors(midgame, |pair| midgame_features(pair.depth, pair.empties))
            .ok_or(FitError::Midgame)?,
        endgame: fit_errors(endgame, |pair| vec![f64::from(pair.empties)])
            .ok_or(FitError::Endgame)?,
        fitted_on: fitted_on.to_owned(),
    })
}

/// The coefficients (constant first) minimising the squared error of `rows · c` against
/// `targets`, by the normal equations; `None` where they are singular (or there are no
/// more rows than coefficients).
fn least_squares(rows: &[Vec<f64>], targets: &[f64]) -> Option<Linear> {
    let width = rows.first().map_or(0, Vec::len) + 1;
    let mut matrix = vec![vec![0.0; width + 1]; width];
    for (row, &target) in rows.iter().zip(targets) {
        let x: Vec<f64> = std::iter::once(1.0).chain(row.iter().copied()).collect();
        for i in 0..width {
            for j in 0..width {
                matrix[i][j] += x[i] * x[j];
            }
            matrix[i][width] += x[i] * target;
        }
    }
    // Gaussian elimination with partial pivoting.
    for column in 0..width {
        let pivot = (column..width)
            .max_by(|&a, &b| matrix[a][column].abs().total_cmp(&matrix[b][column].abs()))
            .unwrap_or(column);
        matrix.swap(column, pivot);
        // Relative to the column's scale: features that move together leave a pivot that
        // is only rounding error.
        let scale = (0..width)
            .map(|row| matrix[row][column].abs())
            .fold(0.0, f64::max);
        if matrix[column][column].abs() <= 1e-9 * scale.max(1e-300) {
            return None;
        }
        for row in 0..width {
            if row != column {
                let factor = matrix[row][column] / matrix[column][column];
                let pivot_row = matrix[column].clone();
                for (cell, pivot_cell) in matrix[row].iter_mut().zip(&pivot_row).skip(column) {
                    *cell -= factor * pivot_cell;
                }
            }
        }
    }
    Some(Linear {
        coefficients: (0..width)
            .map(|i| matrix[i][width] / matrix[i][i])
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        engine::endgame::{Goal, solve},
        training::measure::pick_position,
    };

    #[test]
    fn least_squares_recovers_a_line_and_a_normal_spread() {
        // error = 50 + 10·depth - 2·empties, ± 100: a spread whose root mean square is 100.
        let mut pairs = Vec::new();
        for depth in 3..12 {
            for empties in 20..50 {
                for sign in [-1, 1] {
                    let centre = 50 + 10 * depth as i32 - 2 * empties as i32;
                    pairs.push(Pair {
                        depth,
                        empties,
                        error: centre + sign * 100,
                    });
                }
            }
        }
        let fit = fit_errors(&pairs, |p| vec![f64::from(p.depth), f64::from(p.empties)]).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
        let mean = &fit.mean.coefficients;
        assert!(close(mean[0], 50.0) && close(mean[1], 10.0) && close(mean[2], -2.0));
        let sigma = fit.deviation.at(&[5.0, 30.0]);
        assert!(close(sigma, 100.0), "{sigma}");
        assert_eq!(fit.samples, pairs.len());
        // Nothing to fit, or features that move together: no fit, rather than a model of
        // zeros that would claim half a disc of spread.
        assert!(fit_errors(&[], |p| vec![f64::from(p.depth)]).is_none());
        let together = |p: &Pair| vec![f64::from(p.depth), f64::from(p.depth) - 2.0];
        assert!(fit_errors(&pairs, together).is_none());
        let one_empties: Vec<Pair> = pairs.iter().filter(|p| p.empties == 30).copied().collect();
        assert!(fit_errors(&one_empties, |p| vec![f64::from(p.empties)]).is_none());
        let midgame = |p: &Pair| midgame_features(p.depth, p.empties);
        let shallow: Vec<Pair> = pairs.iter().filter(|p| p.depth <= 5).copied().collect();
        assert_eq!(
            fit_model(crate::GameKind::STANDARD, &shallow, &pairs, "e", "f"),
            Err(FitError::Midgame),
            "depths 3 to 5 have shallow depths 1 to 3: depth minus two"
        );
        assert!(fit_errors(&pairs, midgame).is_some());
        assert_eq!(
            fit_model(crate::GameKind::STANDARD, &pairs, &one_empties, "e", "f"),
            Err(FitError::Endgame)
        );
    }

    /// The pairs are what they say: searches of the same position, deep minus shallow; a
    /// deeper search predicts the exact score better than a shallow one on the whole.
    #[test]
    fn pairs_of_real_positions() {
        let midgame = (0..40)
            .find_map(|game| pick_position(crate::GameKind::STANDARD, 9, game, (30, 34)))
            .unwrap();
        let pairs = midgame_pairs(&midgame, Evaluator::Classic, 6);
        assert_eq!(
            pairs.iter().map(|p| p.depth).collect::<Vec<_>>(),
            [3, 4, 5, 6]
        );
        assert!(pairs.iter().all(|p| p.empties == midgame.empties()));
        let endgame = (0..40)
            .find_map(|game| pick_position(crate::GameKind::STANDARD, 9, game, (14, 14)))
            .unwrap();
        let pair = endgame_pair(&endgame, Evaluator::Classic).unwrap();
        assert_eq!((pair.depth, pair.empties), (14, 14));
        let node = crate::engine::Node8::new(endgame.player.bits8(), endgame.opponent.bits8());
        let mut tt = TranspositionTable::new(4);
        let rule = WinRule::MostDiscs;
        let exact = solve(&node, rule, Goal::Exact, &mut tt, &Limits::NONE, None).unwrap();
        let options = SearchOptions::new(rule, Limits::depth(6), Evaluator::Classic);
        let shallow = search(&node, &options, &mut tt, None, &mut |_| {}).score;
        assert_eq!(pair.error, exact.score * DISC - shallow);
        let too_few = (0..40)
            .find_map(|game| pick_position(crate::GameKind::STANDARD, 9, game, (8, 8)))
            .unwrap();
        assert_eq!(endgame_pair(&too_few, Evaluator::Classic), None);
    }
}
