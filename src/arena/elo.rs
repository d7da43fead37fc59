//! Elo ratings for any number of players from the games they played against each other:
//! the Bradley-Terry model fitted by maximum likelihood, with confidence intervals from the
//! observed information. Pure computation: no games are played here (see
//! [`play_match`](super::play_match) for two players, and `othello tournament` for many).
//!
//! **The model.** Player `i` beats player `j` with probability
//! `1 / (1 + 10^((r_j - r_i) / 400))`, the usual Elo curve; a draw counts as half a win and
//! half a loss. The ratings `r` that make the observed points most likely are found by
//! Newton's method (with a backtracking line search, so it never overshoots).
//!
//! **The anchor.** Only differences are determined, so one player, the anchor, is fixed at 0
//! and every other rating is relative to it.
//!
//! **The prior.** A player who won (or lost) every game would have an infinite maximum
//! likelihood rating, and so would a group that never lost to the rest. To keep every rating
//! finite, each player other than the anchor is given [`PRIOR_DRAWS`] virtual draws against
//! the anchor (set [`EloOptions::prior_draws`] to 0 for the plain maximum likelihood).
//! That is a weak pull towards the anchor: one game's worth of evidence, so after 100 games
//! between two players it moves the estimate by about 1 %.
//!
//! **The intervals.** The standard error of each rating is the square root of the diagonal
//! of the inverse of the observed information (the negative Hessian of the log-likelihood,
//! the prior included) with the anchor's row and column removed; the 95 % interval is the
//! rating ± 1.96 standard errors. The intervals are relative to the anchor, whose own rating
//! is exact by definition (its interval is 0 to 0).
//!
//! ```
//! use othello::arena::elo::{EloOptions, Results, EloScore, rate};
//!
//! // Three players: 0 beats 1 three games in four, 1 beats 2 just as often.
//! let mut results = Results::new(3);
//! for _ in 0..3 {
//!     results.add(0, 1, EloScore::Win);
//!     results.add(1, 2, EloScore::Win);
//! }
//! results.add(0, 1, EloScore::Loss);
//! results.add(1, 2, EloScore::Loss);
//! let ratings = rate(&results, &EloOptions::anchored(0))?;
//! assert_eq!(ratings[0].elo, 0.0);
//! assert!(ratings[2].elo < ratings[1].elo && ratings[1].elo < 0.0);
//! assert!(ratings[1].low < ratings[1].elo && ratings[1].elo < ratings[1].high);
//! # Ok::<_, othello::arena::elo::EloError>(())
//! ```

use thiserror::Error;

/// Virtual draws of each player (other than the anchor) against the anchor: see the module
/// documentation. One is the weakest prior that keeps every rating finite whatever the
/// results, while moving well-measured ratings very little.
pub const PRIOR_DRAWS: f64 = 1.0;

/// The normal quantile of a two-sided 95 % interval.
const Z_95: f64 = 1.96;

/// Elo points per unit of the model's natural (log-odds) scale: `400 / ln 10`.
const ELO_PER_NATURAL: f64 = 400.0 / std::f64::consts::LN_10;

/// Newton's method stops when no rating moves by more than this (natural units; about
/// 1e-7 Elo).
const CONVERGED: f64 = 1e-9;

/// Newton steps at most (it converges in a handful; this only bounds a pathological case).
const MAX_ITERATIONS: usize = 200;

/// A rating beyond this many natural units (about 8,700 Elo) from the anchor means the
/// likelihood has no maximum: a sweep without a prior.
const DIVERGED: f64 = 50.0;

/// How one game ended for the first player named.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EloScore {
    /// The first player won.
    Win,
    /// A draw: half a point each.
    Draw,
    /// The first player lost.
    Loss,
}

impl EloScore {
    /// The same game seen from the other player.
    #[must_use]
    pub const fn reversed(self) -> EloScore {
        match self {
            EloScore::Win => EloScore::Loss,
            EloScore::Draw => EloScore::Draw,
            EloScore::Loss => EloScore::Win,
        }
    }

    /// Half-points for the first player: 2, 1 or 0 (halves keep sums exact).
    const fn half_points(self) -> u32 {
        match self {
            EloScore::Win => 2,
            EloScore::Draw => 1,
            EloScore::Loss => 0,
        }
    }
}

/// Games and points between every two of a fixed number of players.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Results {
    players: usize,
    /// `games[i * players + j]`: games between `i` and `j` (symmetric).
    games: Vec<u32>,
    /// `half_points[i * players + j]`: `i`'s points against `j`, in halves.
    half_points: Vec<u32>,
}

impl Results {
    /// No games yet between `players` players, numbered from 0.
    pub fn new(players: usize) -> Results {
        Results {
            players,
            games: vec![0; players * players],
            half_points: vec![0; players * players],
        }
    }

    /// Counts a game between `first` and `second` that ended in `score` for `first`.
    ///
    /// # Panics
    /// If either player is not one of those [`Results::new`] was given, or they are the same.
    pub fn add(&mut self, first: usize, second: usize, score: EloScore) {
        assert!(
            first < self.players && second < self.players && first != second,
            "a game between players {first} and {second} of {}",
            self.players
        );
        let (ab, ba) = (self.at(first, second), self.at(second, first));
        self.games[ab] += 1;
        self.games[ba] += 1;
        self.half_points[ab] += score.half_points();
        self.half_points[ba] += score.reversed().half_points();
    }

    /// Games played between `first` and `second` (0 if either is out of range).
    pub fn games(&self, first: usize, second: usize) -> u32 {
        self.get(&self.games, first, second)
    }

    /// `first`'s points against `second`: a win 1, a draw 1/2.
    pub fn points(&self, first: usize, second: usize) -> f64 {
        f64::from(self.get(&self.half_points, first, second)) / 2.0
    }

    /// Games `player` played in all.
    #[cfg(test)]
    pub(crate) fn total_games(&self, player: usize) -> u32 {
        (0..self.players)
            .map(|other| self.games(player, other))
            .sum()
    }

    /// Points `player` won in all.
    pub fn total_points(&self, player: usize) -> f64 {
        (0..self.players)
            .map(|other| self.points(player, other))
            .sum()
    }

    fn at(&self, first: usize, second: usize) -> usize {
        first * self.players + second
    }

    fn get(&self, table: &[u32], first: usize, second: usize) -> u32 {
        if first < self.players && second < self.players {
            table[self.at(first, second)]
        } else {
            0
        }
    }
}

/// How to rate: who is fixed at 0, and how strong the prior is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloOptions {
    /// The player rated 0, whom every other rating is relative to.
    pub anchor: usize,
    /// Virtual draws of every other player against the anchor (0 for none): see the module
    /// documentation.
    pub prior_draws: f64,
}

impl EloOptions {
    /// Anchored on `anchor`, with the default prior ([`PRIOR_DRAWS`]).
    pub const fn anchored(anchor: usize) -> EloOptions {
        EloOptions {
            anchor,
            prior_draws: PRIOR_DRAWS,
        }
    }
}

/// One player's rating, in Elo relative to the anchor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloRating {
    /// The maximum likelihood rating (the anchor's is 0).
    pub elo: f64,
    /// The standard error of `elo` (0 for the anchor).
    pub error: f64,
    /// The lower end of the 95 % interval.
    pub low: f64,
    /// The upper end of the 95 % interval.
    pub high: f64,
}

/// Why ratings cannot be computed.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum EloError {
    /// The anchor is not one of the players.
    #[error("the anchor, player {anchor}, is not one of the {players} players")]
    Anchor {
        /// The anchor asked for.
        anchor: usize,
        /// The number of players.
        players: usize,
    },
    /// The prior is negative or not a number.
    #[error("the prior must be a finite number of draws, 0 or more, not {0}")]
    Prior(f64),
    /// Without a prior, the results leave some rating undetermined or infinite: a player
    /// (or a group of players) with no games against the others, or who won or lost all of
    /// them.
    #[error(
        "the results do not determine the ratings: some player has no games, or won or lost \
         every game against the others"
    )]
    Undetermined,
}

/// Rates every player of `results` (see the module documentation for the model, the anchor,
/// the prior and the intervals), in the order of the players.
///
/// # Errors
/// [`EloError::Anchor`] or [`EloError::Prior`] for bad options;
/// [`EloError::Undetermined`] only with no prior (`prior_draws` 0), when the results do
/// not pin every rating down.
pub fn rate(results: &Results, options: &EloOptions) -> Result<Vec<EloRating>, EloError> {
    let n = results.players;
    let anchor = options.anchor;
    if anchor >= n {
        return Err(EloError::Anchor { anchor, players: n });
    }
    if !options.prior_draws.is_finite() || options.prior_draws < 0.0 {
        return Err(EloError::Prior(options.prior_draws));
    }
    let model = Model::new(results, options);
    let theta = model.fit()?;
    let information = model.information(&theta);
    let cholesky = Cholesky::new(information).ok_or(EloError::Undetermined)?;
    let variances = cholesky.inverse_diagonal();
    let mut ratings = Vec::with_capacity(n);
    let mut free = 0;
    for (player, &value) in theta.iter().enumerate() {
        let error = if player == anchor {
            0.0
        } else {
            free += 1;
            variances[free - 1].sqrt() * ELO_PER_NATURAL
        };
        // `+ 0.0` turns a -0.0 into 0.0.
        let elo = value * ELO_PER_NATURAL + 0.0;
        ratings.push(EloRating {
            elo,
            error,
            low: elo - Z_95 * error,
            high: elo + Z_95 * error,
        });
    }
    Ok(ratings)
}

/// The data as the likelihood sees it: games and points (the prior's virtual draws included)
/// as real numbers.
struct Model {
    players: usize,
    anchor: usize,
    /// `games[i * players + j]`.
    games: Vec<f64>,
    /// `points[i * players + j]`: `i`'s points against `j`.
    points: Vec<f64>,
}

impl Model {
    fn new(results: &Results, options: &EloOptions) -> Model {
        let n = results.players;
        let mut games: Vec<f64> = results.games.iter().map(|&g| f64::from(g)).collect();
        let mut points: Vec<f64> = results
            .half_points
            .iter()
            .map(|&h| f64::from(h) / 2.0)
            .collect();
        let anchor = options.anchor;
        for player in (0..n).filter(|&p| p != anchor) {
            for (a, b) in [(player, anchor), (anchor, player)] {
                games[a * n + b] += options.prior_draws;
                points[a * n + b] += options.prior_draws / 2.0;
            }
        }
        Model {
            players: n,
            anchor,
            games,
            points,
        }
    }

    /// The pairs that played (or have a virtual game), each once: `(i, j, games, i's
    /// points, j's points)`.
    fn pairs(&self) -> impl Iterator<Item = (usize, usize, f64, f64, f64)> + '_ {
        let n = self.players;
        (0..n).flat_map(move |i| {
            (i + 1..n).filter_map(move |j| {
                let games = self.games[i * n + j];
                (games > 0.0).then(|| (i, j, games, self.points[i * n + j], self.points[j * n + i]))
            })
        })
    }

    /// The log-likelihood of ratings `theta` (natural units).
    fn log_likelihood(&self, theta: &[f64]) -> f64 {
        self.pairs()
            .map(|(i, j, _, wins, losses)| {
                let d = theta[i] - theta[j];
                -wins * softplus(-d) - losses * softplus(d)
            })
            .sum()
    }

    /// The gradient of the log-likelihood, for the players other than the anchor.
    fn gradient(&self, theta: &[f64]) -> Vec<f64> {
        let mut gradient = vec![0.0; self.players];
        for (i, j, games, wins, _) in self.pairs() {
            let surplus = wins - games * logistic(theta[i] - theta[j]);
            gradient[i] += surplus;
            gradient[j] -= surplus;
        }
        self.without_anchor(gradient)
    }

    /// The observed information (the negative Hessian of the log-likelihood), for the
    /// players other than the anchor: an (n - 1) × (n - 1) matrix, row by row.
    fn information(&self, theta: &[f64]) -> Vec<Vec<f64>> {
        let n = self.players;
        let mut full = vec![vec![0.0; n]; n];
        for (i, j, games, _, _) in self.pairs() {
            let p = logistic(theta[i] - theta[j]);
            let weight = games * p * (1.0 - p);
            full[i][i] += weight;
            full[j][j] += weight;
            full[i][j] -= weight;
            full[j][i] -= weight;
        }
        self.without_anchor(full)
            .into_iter()
            .map(|row| self.without_anchor(row))
            .collect()
    }

    fn without_anchor<T>(&self, mut values: Vec<T>) -> Vec<T> {
        values.remove(self.anchor);
        values
    }

    /// The ratings that maximise the likelihood (natural units, the anchor's 0), by Newton's
    /// method with a backtracking line search (the log-likelihood is concave, so each step
    /// goes uphill).
    fn fit(&self) -> Result<Vec<f64>, EloError> {
        let mut theta = vec![0.0; self.players];
        let mut value = self.log_likelihood(&theta);
        for _ in 0..MAX_ITERATIONS {
            let gradient = self.gradient(&theta);
            let cholesky = Cholesky::new(self.information(&theta)).ok_or(EloError::Undetermined)?;
            let step = cholesky.solve(&gradient);
            let slope: f64 = gradient.iter().zip(&step).map(|(g, s)| g * s).sum();
            let mut scale = 1.0;
            let mut moved = false;
            for _ in 0..60 {
                let candidate = self.step(&theta, &step, scale);
                let candidate_value = self.log_likelihood(&candidate);
                if candidate_value >= value + 1e-4 * scale * slope {
                    theta = candidate;
                    value = candidate_value;
                    moved = true;
                    break;
                }
                scale /= 2.0;
            }
            let largest = step.iter().fold(0.0f64, |m, s| m.max((s * scale).abs()));
            if theta.iter().any(|t| t.abs() > DIVERGED) {
                return Err(EloError::Undetermined);
            }
            // No step uphill is left: the maximum, to rounding.
            if !moved || largest < CONVERGED {
                return Ok(theta);
            }
        }
        Ok(theta)
    }

    /// `theta` moved by `scale` times `step` (which leaves out the anchor).
    fn step(&self, theta: &[f64], step: &[f64], scale: f64) -> Vec<f64> {
        let mut free = step.iter();
        theta
            .iter()
            .enumerate()
            .map(|(player, &t)| {
                if player == self.anchor {
                    t
                } else {
                    t + scale * free.next().copied().unwrap_or(0.0)
                }
            })
            .collect()
    }
}

/// `1 / (1 + e^-x)`.
fn logistic(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// `ln(1 + e^x)` without overflow: `-ln logistic(-x)`.
fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

/// The Cholesky factor `L` of a symmetric positive definite matrix `A = L Lᵀ`.
struct Cholesky {
    lower: Vec<Vec<f64>>,
}

impl Cholesky {
    /// `None` unless `matrix` is positive definite (to rounding).
    fn new(matrix: Vec<Vec<f64>>) -> Option<Cholesky> {
        let n = matrix.len();
        let mut lower = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..=i {
                let sum: f64 = (0..j).map(|k| lower[i][k] * lower[j][k]).sum();
                if i == j {
                    let pivot = matrix[i][i] - sum;
                    // Relative to the diagonal, so that a player with no games is caught.
                    if pivot.is_nan() || pivot <= 1e-12 * matrix[i][i].abs().max(1e-300) {
                        return None;
                    }
                    lower[i][i] = pivot.sqrt();
                } else {
                    lower[i][j] = (matrix[i][j] - sum) / lower[j][j];
                }
            }
        }
        Some(Cholesky { lower })
    }

    /// `x` with `A x = b`.
    fn solve(&self, b: &[f64]) -> Vec<f64> {
        let n = b.len();
        let l = &self.lower;
        let mut y = vec![0.0; n];
        for i in 0..n {
            let sum: f64 = (0..i).map(|k| l[i][k] * y[k]).sum();
            y[i] = (b[i] - sum) / l[i][i];
        }
        let mut x = vec![0.0; n];
        for i in (0..n).rev() {
            let sum: f64 = (i + 1..n).map(|k| l[k][i] * x[k]).sum();
            x[i] = (y[i] - sum) / l[i][i];
        }
        x
    }

    /// The diagonal of `A⁻¹`.
    fn inverse_diagonal(&self) -> Vec<f64> {
        let n = self.lower.len();
        (0..n)
            .map(|i| {
                let mut unit = vec![0.0; n];
                unit[i] = 1.0;
                self.solve(&unit)[i]
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::EloEstimate;

    /// Two players: `wins`, `draws` and `losses` of player 0.
    fn two(wins: u32, draws: u32, losses: u32) -> Results {
        let mut results = Results::new(2);
        for (count, score) in [
            (wins, EloScore::Win),
            (draws, EloScore::Draw),
            (losses, EloScore::Loss),
        ] {
            for _ in 0..count {
                results.add(0, 1, score);
            }
        }
        results
    }

    fn plain(anchor: usize) -> EloOptions {
        EloOptions {
            anchor,
            prior_draws: 0.0,
        }
    }

    #[test]
    fn two_players_agree_with_the_match_estimate() {
        for (w, d, l) in [(75, 0, 25), (10, 5, 3), (3, 2, 5), (1, 0, 1), (40, 20, 40)] {
            let expected = EloEstimate::from_results(w, d, l).difference;
            let anchored_on_loser = rate(&two(w, d, l), &plain(1)).unwrap();
            assert!(
                (anchored_on_loser[0].elo - expected).abs() < 1e-6,
                "{w}-{d}-{l}: {} against {expected}",
                anchored_on_loser[0].elo
            );
            assert_eq!(anchored_on_loser[1].elo, 0.0);
            let anchored_on_winner = rate(&two(w, d, l), &plain(0)).unwrap();
            assert!((anchored_on_winner[1].elo + expected).abs() < 1e-6);
        }
        // The prior moves a well-measured difference very little.
        let expected = EloEstimate::from_results(60, 10, 30).difference;
        let with_prior = rate(&two(60, 10, 30), &EloOptions::anchored(1)).unwrap();
        assert!((with_prior[0].elo - expected).abs() < 3.0, "{with_prior:?}");
    }

    #[test]
    fn two_player_intervals_are_close_to_wilson() {
        for (w, d, l) in [(50, 0, 50), (60, 0, 40), (30, 40, 30)] {
            let wilson = EloEstimate::from_results(w, d, l);
            let ours = rate(&two(w, d, l), &plain(1)).unwrap()[0];
            assert!(ours.low < ours.elo && ours.elo < ours.high);
            assert!((ours.low - wilson.low).abs() < 5.0, "{ours:?} {wilson:?}");
            assert!((ours.high - wilson.high).abs() < 5.0, "{ours:?} {wilson:?}");
        }
        // 50 % of 100 games: the information is 25, so ± 1.96 / 5 natural units.
        let even = rate(&two(50, 0, 50), &plain(1)).unwrap()[0];
        assert!((even.high - 1.96 / 5.0 * ELO_PER_NATURAL).abs() < 1e-6);
        assert!((even.low + even.high).abs() < 1e-9);
    }

    #[test]
    fn transitive_results_order_the_players() {
        // a beats b 70 %, b beats c 70 %, a beats c 85 %; d only drew with c.
        let mut results = Results::new(4);
        let mut play = |a, b, wins, losses| {
            for _ in 0..wins {
                results.add(a, b, EloScore::Win);
            }
            for _ in 0..losses {
                results.add(a, b, EloScore::Loss);
            }
        };
        play(0, 1, 14, 6);
        play(1, 2, 14, 6);
        play(0, 2, 17, 3);
        results.add(3, 2, EloScore::Draw);
        results.add(2, 3, EloScore::Draw);
        for anchor in 0..4 {
            let r = rate(&results, &EloOptions::anchored(anchor)).unwrap();
            assert_eq!(r[anchor].elo, 0.0);
            assert_eq!((r[anchor].low, r[anchor].high), (0.0, 0.0));
            assert!(r[0].elo > r[1].elo && r[1].elo > r[2].elo, "{r:?}");
            for rating in &r {
                assert!(rating.low <= rating.elo && rating.elo <= rating.high);
                assert!(rating.low.is_finite() && rating.high.is_finite());
            }
        }
        // Without a prior, moving the anchor shifts every rating by the same amount.
        let mut connected = results.clone();
        connected.add(3, 0, EloScore::Loss);
        connected.add(3, 1, EloScore::Win);
        let on_a = rate(&connected, &plain(0)).unwrap();
        let on_c = rate(&connected, &plain(2)).unwrap();
        for (a, c) in on_a.iter().zip(&on_c) {
            assert!(
                (a.elo - on_a[2].elo - c.elo).abs() < 1e-6,
                "{on_a:?} {on_c:?}"
            );
        }
        // Points and games add up.
        assert_eq!(results.total_games(0), 40);
        assert_eq!(results.points(0, 1) + results.points(1, 0), 20.0);
        assert_eq!(results.points(3, 2), 1.0);
        assert_eq!(results.games(7, 0), 0);
    }

    #[test]
    fn a_sweep_stays_finite_with_the_prior() {
        let ratings = rate(&two(10, 0, 0), &EloOptions::anchored(1)).unwrap();
        let sweep = ratings[0];
        assert!(sweep.elo.is_finite() && sweep.low.is_finite() && sweep.high.is_finite());
        // 10 wins and one virtual draw: 10.5 points of 11.
        assert!(
            (sweep.elo - 400.0 * 21f64.log10()).abs() < 1e-6,
            "{sweep:?}"
        );
        assert!(sweep.low > 0.0 && sweep.high > sweep.elo);
        // A round robin where one player wins everything and another loses everything.
        let mut results = Results::new(3);
        for _ in 0..4 {
            results.add(0, 1, EloScore::Win);
            results.add(0, 2, EloScore::Win);
            results.add(1, 2, EloScore::Win);
        }
        for anchor in 0..3 {
            let r = rate(&results, &EloOptions::anchored(anchor)).unwrap();
            assert!(r.iter().all(|r| r.elo.is_finite() && r.error.is_finite()));
            assert!(r[0].elo > r[1].elo && r[1].elo > r[2].elo, "{r:?}");
        }
        // Without a prior there is no finite answer.
        assert_eq!(rate(&two(10, 0, 0), &plain(1)), Err(EloError::Undetermined));
    }

    #[test]
    fn no_games_and_bad_options() {
        let nothing = rate(&Results::new(3), &EloOptions::anchored(2)).unwrap();
        assert!(nothing.iter().all(|r| r.elo == 0.0));
        assert!(nothing[0].high > 0.0 && nothing[2].high == 0.0);
        assert_eq!(
            rate(&Results::new(3), &plain(0)),
            Err(EloError::Undetermined)
        );
        assert_eq!(
            rate(&Results::new(2), &EloOptions::anchored(2)),
            Err(EloError::Anchor {
                anchor: 2,
                players: 2
            })
        );
        let negative = EloOptions {
            anchor: 0,
            prior_draws: -1.0,
        };
        assert_eq!(
            rate(&Results::new(2), &negative),
            Err(EloError::Prior(-1.0))
        );
        assert_eq!(rate(&Results::new(1), &plain(0)).unwrap()[0].elo, 0.0);
    }

    #[test]
    fn a_gauntlet_rates_each_opponent_as_its_own_match() {
        // Every game involves the anchor: each rating is that pair's two-player estimate.
        let mut results = Results::new(3);
        for (opponent, wins, losses) in [(1, 7, 3), (2, 2, 8)] {
            for _ in 0..wins {
                results.add(0, opponent, EloScore::Win);
            }
            for _ in 0..losses {
                results.add(0, opponent, EloScore::Loss);
            }
        }
        let r = rate(&results, &plain(0)).unwrap();
        assert!((r[1].elo + EloEstimate::from_results(7, 0, 3).difference).abs() < 1e-6);
        assert!((r[2].elo + EloEstimate::from_results(2, 0, 8).difference).abs() < 1e-6);
    }
}
