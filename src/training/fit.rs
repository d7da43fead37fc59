//! Step 3: the weights that best predict the labels, phase by phase: least squares on the
//! positions' features (each weight of the folded layout is one sparse feature), with L2
//! regularisation, by full-batch gradient descent with Adam's step sizes. Weights seen in
//! fewer than a few positions stay at zero. Whole games are held out to measure how well
//! the weights predict positions they were not fitted to.
//!
//! With few positions per phase, a phase also learns from its neighbours' positions (at a
//! lower weight): evaluations change slowly from one phase to the next.

use rand::{SeedableRng, rngs::StdRng, seq::SliceRandom};
use rayon::prelude::*;

use super::{Label, Sample, sample::on_sample};
use crate::engine::{eval::DISC, mix, pattern};
use pattern::{ACTIVE, Features, PHASES, PatternWeights, ShapedWeights};

/// How the weights are fitted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FitOptions {
    /// Passes over the positions.
    pub epochs: u32,
    /// The step size at the start, in discs (it decays to a tenth by the end).
    pub learning_rate: f64,
    /// L2 regularisation: the cost of each weight's square (discs²), against the mean
    /// squared error per position.
    pub l2: f64,
    /// The share of games held out.
    pub holdout: f64,
    /// Which games are held out.
    pub seed: u64,
    /// Weights seen in fewer positions than this stay at zero.
    pub min_count: u32,
    /// How much a neighbouring phase's position counts (a phase's own count 1).
    pub blend: f64,
    /// Positions in each step of Adam, in an order shuffled every epoch, each step
    /// updating the weights its positions use; 0 for one step an epoch over all of them
    /// (full batch). Mini-batches take far fewer epochs, which is what makes tens of
    /// millions of positions affordable.
    pub batch: usize,
}

impl FitOptions {
    /// Defaults: 300 epochs, steps of 0.05 discs, L2 1e-5, a tenth of the games held out,
    /// weights seen fewer than 3 times left at zero, neighbours at a half.
    #[cfg(test)]
    pub(crate) fn new(seed: u64) -> FitOptions {
        FitOptions {
            epochs: 300,
            learning_rate: 0.05,
            l2: 1e-5,
            holdout: 0.1,
            seed,
            min_count: 3,
            blend: 0.5,
            batch: 0,
        }
    }
}

/// How well one phase's weights predict.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhaseFit {
    /// The phase.
    pub phase: usize,
    /// Its own positions fitted to.
    pub train: usize,
    /// Its positions held out.
    pub held_out: usize,
    /// Mean absolute error in discs on the positions fitted to.
    pub train_error: f64,
    /// Mean absolute error in discs on the positions held out (NaN without any).
    pub held_out_error: f64,
    /// Weights that were fitted (the others were seen too rarely and stay zero).
    pub weights_used: usize,
    /// The phase whose weights this one took, having no positions of its own to fit (None
    /// where it was fitted).
    pub copied_from: Option<usize>,
}

/// The fitted weights and how well each phase predicts.
#[derive(Clone, Debug)]
pub struct Fit {
    /// The weights.
    pub weights: PatternWeights,
    /// Per phase, in order.
    pub phases: Vec<PhaseFit>,
}

/// Whether the game `game` is held out.
pub(crate) fn held_out(game: u32, options: &FitOptions) -> bool {
    (mix(options.seed, u64::from(game), 13) % 1_000_000) as f64 / 1_000_000.0 < options.holdout
}

/// One position as the fit sees it: its features (folded layout), label and weight.
struct Row<'a> {
    features: &'a [u32],
    target: f32,
    weight: f32,
}

/// Fits weights to the labelled `samples` (unlabelled ones are skipped); `phase_done` hears
/// of each phase as it is finished (from any thread).
pub fn fit(
    samples: &[Sample],
    options: &FitOptions,
    phase_done: &(dyn Fn(&PhaseFit) + Sync),
) -> Fit {
    // Each phase's features are made for its own positions and its neighbours' only, as
    // it is fitted, and dropped after: the features of every position at once would take
    // about 200 bytes each (10 GB for 50 million positions).
    let results: Vec<(Vec<i16>, PhaseFit)> = (0..PHASES)
        .into_par_iter()
        .map(|phase| {
            let prepared: Vec<(usize, [u32; ACTIVE], f32, bool)> = samples
                .iter()
                .filter(|sample| {
                    sample.label != Label::None
                        && pattern::phase(sample.empties()).abs_diff(phase) <= 1
                })
                .map(|sample| {
                    let features = Features::of(sample.player.bits8(), sample.opponent.bits8());
                    (
                        features.phase,
                        features.folded(),
                        f32::from(sample.score) / DISC as f32,
                        held_out(sample.game, options),
                    )
                })
                .collect();
            let result = fit_phase(phase, &prepared, pattern::folded_len(), options);
            phase_done(&result.1);
            result
        })
        .collect();
    let mut results = results;
    fill_unfitted(&mut results);
    let (weights, phases): (Vec<Vec<i16>>, Vec<PhaseFit>) = results.into_iter().unzip();
    Fit {
        weights: PatternWeights::from_folded(&weights),
        phases,
    }
}

/// Gives each phase that had no positions of its own to fit (`results` in phase order) the
/// weights of the nearest phase that had some, the later one on a tie: such a phase would
/// otherwise score every position even. Self-play data has no positions in the first
/// plies, for one: a search from the start reaches them only at its shallowest.
fn fill_unfitted(results: &mut [(Vec<i16>, PhaseFit)]) {
    let fitted: Vec<usize> = (0..results.len())
        .filter(|&phase| results[phase].1.train > 0)
        .collect();
    for phase in 0..results.len() {
        if results[phase].1.train > 0 {
            continue;
        }
        let nearest = fitted
            .iter()
            .copied()
            .min_by_key(|&from| (from.abs_diff(phase), std::cmp::Reverse(from)));
        if let Some(from) = nearest {
            results[phase].0 = results[from].0.clone();
            results[phase].1.copied_from = Some(from);
            results[phase].1.weights_used = results[from].1.weights_used;
        }
    }
}

/// Fits one phase's `len` weights to the `prepared` positions (phase, features, label in
/// discs, held out) of that phase and, at [`FitOptions::blend`], of its neighbours.
fn fit_phase<F: AsRef<[u32]>>(
    phase: usize,
    prepared: &[(usize, F, f32, bool)],
    len: usize,
    options: &FitOptions,
) -> (Vec<i16>, PhaseFit) {
    let mut train = Vec::new();
    let mut test = Vec::new();
    for (of, features, target, out) in prepared {
        let (of, target, out) = (*of, *target, *out);
        let features = features.as_ref();
        let weight = match of.abs_diff(phase) {
            0 => 1.0,
            1 if options.blend > 0.0 => options.blend as f32,
            _ => continue,
        };
        let row = Row {
            features,
            target,
            weight,
        };
        match (out, of == phase) {
            (false, _) => train.push(row),
            (true, true) => test.push(row),
            (true, false) => {}
        }
    }
    let mut count = vec![0.0f64; len];
    for row in &train {
        for &f in row.features {
            count[f as usize] += f64::from(row.weight);
        }
    }
    let used: Vec<bool> = count
        .iter()
        .map(|&c| c >= f64::from(options.min_count))
        .collect();
    let total: f64 = train
        .iter()
        .map(|row| f64::from(row.weight))
        .sum::<f64>()
        .max(1.0);
    let mut adam = Adam::new(len, options);
    if options.batch == 0 {
        let mut gradient = vec![0.0f64; len];
        let every: Vec<u32> = (0..len as u32).filter(|&f| used[f as usize]).collect();
        for epoch in 0..options.epochs {
            gradient.fill(0.0);
            for row in &train {
                let residual = adam.residual(row);
                for &f in row.features {
                    gradient[f as usize] += residual;
                }
            }
            adam.step(&every, &mut gradient, total, epoch_progress(epoch, options));
        }
    } else {
        // Lazy Adam: a step moves only the weights its positions use.
        let mut rng = StdRng::seed_from_u64(mix(options.seed, phase as u64, 17));
        let mut order: Vec<u32> = (0..train.len() as u32).collect();
        let mut gradient = vec![0.0f64; len];
        let mut touched = Vec::new();
        let mut seen = vec![false; len];
        for epoch in 0..options.epochs {
            order.shuffle(&mut rng);
            let progress = epoch_progress(epoch, options);
            for batch in order.chunks(options.batch) {
                let mut weight = 0.0f64;
                for &k in batch {
                    let row = &train[k as usize];
                    let residual = adam.residual(row);
                    weight += f64::from(row.weight);
                    for &f in row.features {
                        if !seen[f as usize] && used[f as usize] {
                            seen[f as usize] = true;
                            touched.push(f);
                        }
                        gradient[f as usize] += residual;
                    }
                }
                adam.step(&touched, &mut gradient, weight.max(1.0), progress);
                for &f in &touched {
                    seen[f as usize] = false;
                }
                touched.clear();
            }
        }
    }
    let weights = adam.weights;
    let quantised: Vec<i16> = weights
        .iter()
        .map(|&w| (w * f64::from(DISC)).round().clamp(-32767.0, 32767.0) as i16)
        .collect();
    // Errors with the weights as they will be used (in whole evaluation units).
    let error = |rows: &[Row]| {
        let own: Vec<&Row> = rows.iter().filter(|row| row.weight == 1.0).collect();
        if own.is_empty() {
            return f64::NAN;
        }
        own.iter()
            .map(|row| {
                let predicted: i32 = row
                    .features
                    .iter()
                    .map(|&f| i32::from(quantised[f as usize]))
                    .sum();
                (f64::from(predicted) / f64::from(DISC) - f64::from(row.target)).abs()
            })
            .sum::<f64>()
            / own.len() as f64
    };
    let report = PhaseFit {
        phase,
        train: train.iter().filter(|row| row.weight == 1.0).count(),
        held_out: test.len(),
        train_error: error(&train),
        held_out_error: error(&test),
        weights_used: used.iter().filter(|&&u| u).count(),
        copied_from: None,
    };
    (quantised, report)
}

/// How far into the fit an epoch is, from 0 to below 1: the step size decays with it.
fn epoch_progress(epoch: u32, options: &FitOptions) -> f64 {
    f64::from(epoch) / f64::from(options.epochs.max(1))
}

/// Adam's state for one phase's weights (in discs).
struct Adam {
    weights: Vec<f64>,
    m: Vec<f64>,
    v: Vec<f64>,
    steps: i32,
    learning_rate: f64,
    l2: f64,
}

impl Adam {
    const BETA1: f64 = 0.9;
    const BETA2: f64 = 0.999;
    const EPSILON: f64 = 1e-8;

    fn new(len: usize, options: &FitOptions) -> Adam {
        Adam {
            weights: vec![0.0; len],
            m: vec![0.0; len],
            v: vec![0.0; len],
            steps: 0,
            learning_rate: options.learning_rate,
            l2: options.l2,
        }
    }

    /// The row's weighted error: its share of each of its features' gradients.
    fn residual(&self, row: &Row) -> f64 {
        let predicted: f64 = row.features.iter().map(|&f| self.weights[f as usize]).sum();
        f64::from(row.weight) * (predicted - f64::from(row.target))
    }

    /// One step on the weights `which`, from the summed residuals in `gradient` over
    /// positions weighing `total` (cleared for the next step), at `progress` through the fit
    /// (the step size decays to a tenth).
    fn step(&mut self, which: &[u32], gradient: &mut [f64], total: f64, progress: f64) {
        self.steps += 1;
        let rate = self.learning_rate * (1.0 - 0.9 * progress);
        let correct1 = 1.0 - Self::BETA1.powf(f64::from(self.steps));
        let correct2 = 1.0 - Self::BETA2.powf(f64::from(self.steps));
        for &f in which {
            let f = f as usize;
            let g = 2.0 * gradient[f] / total + 2.0 * self.l2 * self.weights[f];
            gradient[f] = 0.0;
            self.m[f] = Self::BETA1 * self.m[f] + (1.0 - Self::BETA1) * g;
            self.v[f] = Self::BETA2 * self.v[f] + (1.0 - Self::BETA2) * g * g;
            let (m_hat, v_hat) = (self.m[f] / correct1, self.v[f] / correct2);
            self.weights[f] -= rate * m_hat / (v_hat.sqrt() + Self::EPSILON);
        }
    }
}

/// A position of any shape as [`fit_shaped`] takes it: its phase and features
/// ([`ShapedWeights::features`]), its label in discs, and the game it comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapedPosition {
    /// Its phase.
    pub phase: usize,
    /// Its active weights (folded layout).
    pub features: Vec<u32>,
    /// Its label, in discs, for the side to move.
    pub target: f32,
    /// The game it comes from (whole games are held out).
    pub game: u32,
}

/// Fits `weights` (a layout, its weights replaced) to `positions` as [`fit`] fits the
/// 8 × 8 weights, phase by phase; returns how well each phase predicts.
pub fn fit_shaped(
    positions: &[ShapedPosition],
    weights: &mut ShapedWeights,
    options: &FitOptions,
    phase_done: &(dyn Fn(&PhaseFit) + Sync),
) -> Vec<PhaseFit> {
    let prepared: Vec<(usize, &[u32], f32, bool)> = positions
        .iter()
        .map(|p| {
            (
                p.phase,
                &p.features[..],
                p.target,
                held_out(p.game, options),
            )
        })
        .collect();
    let len = weights.per_phase();
    let mut results: Vec<(Vec<i16>, PhaseFit)> = (0..weights.phases())
        .into_par_iter()
        .map(|phase| {
            let result = fit_phase(phase, &prepared, len, options);
            phase_done(&result.1);
            result
        })
        .collect();
    fill_unfitted(&mut results);
    results
        .into_iter()
        .map(|(fitted, report)| {
            weights
                .phase_weights_mut(report.phase)
                .copy_from_slice(&fitted);
            report
        })
        .collect()
}

/// Game phases for the weights of a board of `cells` squares: one every four plies, as on
/// 8 × 8 (15 there, 8 on 6 × 6, 24 on 10 × 10).
pub fn phases_for(cells: usize) -> usize {
    cells.saturating_sub(4).div_ceil(4).max(1)
}

/// Fits weights for the labelled `samples` (unlabelled ones are skipped), all of one kind
/// of game other than standard Othello, with [`phases_for`] its board's phases; returns
/// them with how well each phase predicts.
///
/// # Panics
/// If `samples` are of several kinds of game.
pub fn fit_kind(
    samples: &[Sample],
    options: &FitOptions,
    phase_done: &(dyn Fn(&PhaseFit) + Sync),
) -> (ShapedWeights, Vec<PhaseFit>) {
    let kind = samples
        .first()
        .map_or(crate::GameKind::STANDARD, |s| s.kind);
    assert!(
        samples.iter().all(|sample| sample.kind == kind),
        "samples of one kind of game"
    );
    let mut weights = ShapedWeights::zero(
        kind.variant,
        kind.shape,
        kind.rule,
        phases_for(kind.shape.cells()),
    );
    let positions: Vec<ShapedPosition> = samples
        .par_iter()
        .filter(|sample| sample.label != Label::None)
        .map(|sample| {
            let (phase, features) = on_sample!(sample, |node| weights.features(&node));
            ShapedPosition {
                phase,
                features,
                target: f32::from(sample.score) / DISC as f32,
                game: sample.game,
            }
        })
        .collect();
    let phases = fit_shaped(&positions, &mut weights, options, phase_done);
    (weights, phases)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        engine::eval::Evaluator,
        training::{
            label::{LabelOptions, LabelTables, label},
            selfplay::{SelfPlayOptions, game_table, self_play_game},
        },
    };

    /// The pipeline on a small shape, end to end: positions of random games on 4 x 6,
    /// labelled by the exact solver, fitted; the weights predict better than nothing and
    /// the same again.
    #[test]
    fn shaped_weights_fit_exact_labels_of_a_small_board() {
        use crate::engine::{Node, SmallNode, SquareSet, TranspositionTable, endgame};
        use crate::{Board, Color, Full, Shape, Variant, WinRule};
        let shape = Shape::new(4, 6).unwrap();
        let layout = ShapedWeights::zero(Variant::Full, shape, WinRule::MostDiscs, 4);
        let mut tt = TranspositionTable::new(8);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut positions = Vec::new();
        for game in 0..150u32 {
            let mut node =
                SmallNode::<Full>::from_board(&Board::standard(shape), Color::Black).unwrap();
            loop {
                let mut moves = node.moves();
                if moves.is_empty() {
                    match node.after_pass() {
                        Some(passed) => node = passed,
                        None => break,
                    }
                    continue;
                }
                let target = endgame::exact_score(&node, &mut tt);
                let (phase, features) = layout.features(&node);
                positions.push(ShapedPosition {
                    phase,
                    features,
                    target: target as f32,
                    game,
                });
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                for _ in 0..state % u64::from(moves.len()) {
                    moves.pop();
                }
                node = node.play(moves.first().unwrap());
            }
        }
        let options = FitOptions {
            epochs: 80,
            min_count: 1,
            holdout: 0.0,
            ..FitOptions::new(1)
        };
        let fit_once = || {
            let mut weights = layout.clone();
            let phases = fit_shaped(&positions, &mut weights, &options, &|_| {});
            (weights, phases)
        };
        let (weights, phases) = fit_once();
        assert_eq!(phases.len(), 4);
        let zero: f32 = positions.iter().map(|p| p.target.abs()).sum();
        let fitted: f32 = positions
            .iter()
            .map(|p| {
                let row = &weights.phase_weights(p.phase);
                let sum: i32 = p.features.iter().map(|&f| i32::from(row[f as usize])).sum();
                (sum as f32 / DISC as f32 - p.target).abs()
            })
            .sum();
        assert!(fitted < zero / 2.0, "{fitted} against {zero}");
        assert_eq!(fit_once().0, weights, "the same weights again");
    }

    /// The positions of `games` depth-1 self-play games of `seed` that `keep` keeps,
    /// labelled by depth-2 searches (exact from 8 empties).
    fn labelled_games(seed: u64, games: u32, keep: impl Fn(&Sample) -> bool) -> Vec<Sample> {
        let play = SelfPlayOptions {
            depth: 1,
            eval: Evaluator::Classic,
            ..SelfPlayOptions::new(seed)
        };
        let label_options = LabelOptions {
            exact_empties: 8,
            depth: 2,
            eval: Evaluator::Classic,
            ..LabelOptions::new()
        };
        let (mut table, mut tables) = (game_table(), LabelTables::new());
        (0..games)
            .flat_map(|game| self_play_game(game, &play, &mut table))
            .filter(|sample| keep(sample))
            .map(|sample| label(sample, &label_options, &mut tables))
            .collect()
    }

    #[test]
    fn fitted_weights_predict_the_labels_and_repeat() {
        let samples = labelled_games(9, 60, |_| true);
        // Full batch, and mini-batches of 32 in fewer epochs: both fit and repeat.
        for options in [
            FitOptions {
                epochs: 60,
                min_count: 1,
                ..FitOptions::new(1)
            },
            FitOptions {
                epochs: 8,
                min_count: 1,
                batch: 32,
                learning_rate: 0.02,
                ..FitOptions::new(1)
            },
        ] {
            fits_and_repeats(&samples, &options);
        }
    }

    #[test]
    fn a_phase_without_positions_takes_its_nearest_fitted_neighbours_weights() {
        // Positions from 20 to 40 empties only: the phases before and after have none.
        let samples = labelled_games(4, 40, |sample| (20..=40).contains(&sample.empties()));
        let options = FitOptions {
            epochs: 20,
            min_count: 1,
            holdout: 0.0,
            ..FitOptions::new(1)
        };
        let fit = fit(&samples, &options, &|_| {});
        let folded = fit.weights.to_folded();
        let (first, last) = (pattern::phase(40), pattern::phase(20));
        for report in &fit.phases {
            let phase = report.phase;
            if (first..=last).contains(&phase) {
                assert!(report.train > 0, "phase {phase} has positions");
                assert_eq!(report.copied_from, None);
            } else {
                let from = if phase < first { first } else { last };
                assert_eq!(report.train, 0);
                assert_eq!(report.copied_from, Some(from), "phase {phase}");
                assert_eq!(folded[phase], folded[from], "phase {phase}");
            }
        }
        assert!(folded[first].iter().any(|&w| w != 0), "fitted, not empty");
        // The start is scored by the first fitted phase's weights, not as even.
        let start = (0x0000_0008_1000_0000, 0x0000_0010_0800_0000);
        let mut moved = fit.weights.clone();
        let mut phases = moved.to_folded();
        phases[pattern::phase(60)] = vec![0; phases[0].len()];
        moved = PatternWeights::from_folded(&phases);
        assert_ne!(
            fit.weights.evaluate(start.0, start.1),
            moved.evaluate(start.0, start.1),
            "the start's phase has weights"
        );
    }

    fn fits_and_repeats(samples: &[Sample], options: &FitOptions) {
        let options = *options;
        let fit_once = || fit(samples, &options, &|_| {});
        let first = fit_once();
        assert_eq!(first.phases.len(), PHASES);
        // On the positions it was fitted to it predicts better than saying 0 always.
        let zero_error: f64 = samples
            .iter()
            .filter(|sample| !held_out(sample.game, &options))
            .map(|sample| f64::from(sample.score.unsigned_abs()) / f64::from(DISC))
            .sum::<f64>();
        let fitted_error: f64 = samples
            .iter()
            .filter(|sample| !held_out(sample.game, &options))
            .map(|sample| {
                let predicted = first
                    .weights
                    .evaluate(sample.player.bits8(), sample.opponent.bits8());
                f64::from((predicted - i32::from(sample.score)).unsigned_abs()) / f64::from(DISC)
            })
            .sum::<f64>();
        assert!(
            fitted_error < zero_error / 2.0,
            "{fitted_error} against {zero_error}"
        );
        // The same weights again, whatever the threads did.
        assert_eq!(fit_once().weights, first.weights);
    }
}
