//! The exact endgame solver: the final disc difference under perfect play.
//!
//! The exact score is found by a series of null-window searches (MTD(f)), starting from a
//! guess made by a short midgame search. Each is negamax alpha-beta with principal variation
//! search, and:
//! - a transposition table, with enhanced transposition cutoffs (children looked up before
//!   any is searched) from ten empties up;
//! - a stability cutoff in null-window nodes: discs that can never flip bound the score;
//! - fastest-first move ordering: moves leaving the opponent the fewest replies first,
//!   refined by potential mobility, corners, X-squares and region parity, from 12 to 17
//!   empties by the evaluation of the position after the move, and from 18 empties up by a
//!   depth-3 search on the evaluation;
//! - for the last seven empties, no move generation, table or sorting: each empty
//!   square is tried by computing its flips, in regions of odd parity first.
//!
//! Its recursion is compiled twice, portable and for `popcnt`/`lzcnt`/BMI/AVX2, and the
//! second runs where the processor has those (FFO #40–#49 in about 135 s here; see
//! BENCHMARKS.md for how each part was measured).

use super::{
    super::{
        Index, Layout, Node, Selectivity, SquareSet,
        eval::{DISC, Evaluator},
        limits::{Limits, Signal, SolveStep, Stopper},
        node::final_score,
        symmetry::mirrored_moves,
        tt::{Bound, Entry, TranspositionTable},
    },
    midgame::{self, SearchOptions, Searcher},
    parallel,
    probcut::{self, CutModel},
    pvs::{self, Recurse, Strategy},
};
use crate::{Square, WinRule};

/// From this many empties down the solver neither sorts moves nor uses the table.
const PLAIN_EMPTIES: u32 = 7;

/// From this many empties up, children are looked up in the table before any is searched:
/// one that is already known to refute the window cuts the node off at once.
const ETC_EMPTIES: u32 = 10;

/// From this many empties up, threads of a parallel solve tell each other which children
/// they are solving.
const SHARED_EMPTIES: u32 = 13;

/// From this many empties up, null-window nodes try the stability cutoff.
const STABILITY_EMPTIES: u32 = 8;

/// The result of a solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The best move, or `None` when the side to move must pass (or the game is over).
    pub best: Option<Square>,
    /// The final disc difference for the side to move under perfect play (see `solve`).
    pub score: i32,
    /// Positions visited.
    pub nodes: u64,
}

/// What to prove.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// The exact final disc difference.
    Exact,
    /// Only win, draw or loss: the score's sign is exact, its size is not (faster).
    WinLossDraw,
}

/// A solve that was stopped (by its limits or its signal) before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unfinished {
    /// Positions visited before it stopped.
    pub nodes: u64,
    /// The move its latest finished step proved best so far, with the score that step
    /// proved it reaches at least (final disc difference), if a step proved one before the
    /// stop (an exact solve's steps; `None` from `rank` and a win-loss-draw solve). Each
    /// step tries the table's move first (the search before it left it there), so another
    /// move here beat that one at the solve's selectivity.
    pub best_so_far: Option<(Square, i32)>,
    /// The bounds an exact solve had proved on the score (`lower..=upper`, final disc
    /// difference) when it stopped, if its first step had finished.
    pub proved: Option<(i32, i32)>,
}

/// How to solve: the rules, the evaluation that orders moves far from the end (and, for a
/// selective solve, predicts scores), and how selective the solve is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveOptions {
    /// How the game is won.
    pub rule: WinRule,
    /// Orders moves far from the end, and makes a selective solve's predictions.
    pub eval: Evaluator,
    /// [`Selectivity::NONE`] for the exact score; below, a score that is the exact one with
    /// that confidence, found sooner (cuts only where a model applies, see
    /// `probcut::model_for`).
    pub selectivity: Selectivity,
    /// Threads to solve with (Lazy SMP): the score is the same with any number.
    pub threads: usize,
}

impl SolveOptions {
    /// An exact solve under `rule`, ordered by the engine's own evaluation, on one thread.
    pub fn exact(rule: WinRule) -> SolveOptions {
        SolveOptions {
            rule,
            eval: Evaluator::default(),
            selectivity: Selectivity::NONE,
            threads: 1,
        }
    }
}

/// Solves `node` to the end of the game.
///
/// The score is the side to move's final disc difference with perfect play by both sides.
/// Under [`WinRule::MostDiscs`] the empty squares left at the end go to the winner (the usual
/// Othello scoring, as in the FFO test suite); under [`WinRule::FewestDiscs`] the score is the
/// opponent's discs minus the side to move's, so positive still means winning.
///
/// # Errors
/// [`Unfinished`] if `limits` (or `signal`) ended the search first.
pub(crate) fn solve<N: Node>(
    node: &N,
    rule: WinRule,
    goal: Goal,
    tt: &mut TranspositionTable,
    limits: &Limits,
    signal: Option<&Signal>,
) -> Result<Solution, Unfinished> {
    solve_with(node, goal, &SolveOptions::exact(rule), tt, limits, signal)
}

/// The exact final disc difference of `node` for the side to move, most discs winning,
/// with no limit: what checks need.
#[cfg(test)]
pub(crate) fn exact_score<N: Node>(node: &N, tt: &mut TranspositionTable) -> i32 {
    exact_score_under(node, WinRule::MostDiscs, tt)
}

/// [`exact_score`] under `rule`.
pub(crate) fn exact_score_under<N: Node>(
    node: &N,
    rule: WinRule,
    tt: &mut TranspositionTable,
) -> i32 {
    solve(node, rule, Goal::Exact, tt, &Limits::NONE, None)
        .expect("a solve without limits finishes")
        .score
}

/// `solve` with `options`: another evaluation to order moves, or a selective solve.
///
/// # Errors
/// [`Unfinished`] if `limits` (or `signal`) ended the search first.
pub fn solve_with<N: Node>(
    node: &N,
    goal: Goal,
    options: &SolveOptions,
    tt: &mut TranspositionTable,
    limits: &Limits,
    signal: Option<&Signal>,
) -> Result<Solution, Unfinished> {
    solve_guessed(node, goal, options, None, tt, limits, signal)
}

/// The exact score (at `options`' selectivity) of `node` by [`solve_with`], starting from
/// `guess` (in evaluation units, as searches score): a score known to be near, such as a
/// midgame search's or a more selective solve's, saves the short search that otherwise
/// makes the first guess (1 to 6 ms at 20 to 24 empties, much of a 100 ms move).
///
/// # Errors
/// [`Unfinished`] if `limits` (or `signal`) ended the search first.
pub(crate) fn solve_from<N: Node>(
    node: &N,
    guess: i32,
    options: &SolveOptions,
    tt: &mut TranspositionTable,
    limits: &Limits,
    signal: Option<&Signal>,
) -> Result<Solution, Unfinished> {
    solve_guessed(node, Goal::Exact, options, Some(guess), tt, limits, signal)
}

fn solve_guessed<N: Node>(
    node: &N,
    goal: Goal,
    options: &SolveOptions,
    known_guess: Option<i32>,
    tt: &mut TranspositionTable,
    limits: &Limits,
    signal: Option<&Signal>,
) -> Result<Solution, Unfinished> {
    let tt = &*tt;
    let bound = node.layout().cells.len() as i32;
    let guess = |stopper: &Stopper<'_>, signal: Option<&Signal>| {
        let score = known_guess.unwrap_or_else(|| {
            // Within the solve's own time and stop signal.
            let limits = Limits {
                time: stopper.remaining(),
                ..Limits::NONE
            };
            first_guess(node, options.rule, options.eval, &limits, signal)
        });
        // To the nearest even number of discs: final scores on even boards are even.
        2 * (score as f64 / f64::from(DISC) / 2.0).round() as i32
    };
    let ((result, nodes, best_so_far, proved), helper_nodes) = parallel::lazy_smp(
        options.threads,
        |helper, stop| {
            // Helpers prove other bounds than the main thread's next one: the table then
            // holds both sides of the score.
            let mut solver =
                Solver::new(options, node, tt, Stopper::new(&Limits::NONE, Some(stop)));
            match goal {
                Goal::Exact => {
                    let offset = if helper % 2 == 1 { 2 } else { -2 } * helper.div_ceil(2) as i32;
                    let guess = guess(&solver.stopper, Some(stop)) + offset;
                    solver.converge(node, guess, -bound, bound);
                }
                Goal::WinLossDraw if helper % 2 == 1 => {
                    solver.root(node, 0, 1);
                }
                Goal::WinLossDraw => {
                    solver.root(node, -1, 0);
                }
            }
            solver.stopper.nodes()
        },
        |_| {
            let mut solver = Solver::new(options, node, tt, Stopper::new(limits, signal));
            let result = match goal {
                Goal::Exact => {
                    let guess = guess(&solver.stopper, signal);
                    solver.converge_in_steps(node, guess, bound)
                }
                Goal::WinLossDraw => solver.root(node, -1, 1),
            };
            let finished = !solver.stopper.stopped();
            (
                finished.then_some(result),
                solver.stopper.nodes(),
                solver.best_so_far,
                solver.proved,
            )
        },
    );
    let nodes = nodes + helper_nodes;
    let (score, best) = result.ok_or(Unfinished {
        nodes,
        best_so_far,
        proved,
    })?;
    Ok(Solution { best, score, nodes })
}

/// Whether the exact score of `node` (at `options`' selectivity) is at least `target`, and
/// the positions visited: one null-window solve, cheaper than the score itself.
///
/// # Errors
/// [`Unfinished`] if `limits` (or `signal`) ended the search first.
pub(crate) fn reaches<N: Node>(
    node: &N,
    target: i32,
    options: &SolveOptions,
    tt: &TranspositionTable,
    limits: &Limits,
    signal: Option<&Signal>,
) -> Result<(bool, u64), Unfinished> {
    let mut solver = Solver::new(options, node, tt, Stopper::new(limits, signal));
    let (score, _) = solver.root(node, target - 1, target);
    if solver.stopper.stopped() {
        return Err(Unfinished {
            nodes: solver.stopper.nodes(),
            best_so_far: None,
            proved: None,
        });
    }
    Ok((score >= target, solver.stopper.nodes()))
}

/// A move of [`rank`] and its exact score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SolvedMove {
    /// The move.
    pub(crate) square: Square,
    /// The final disc difference after it with perfect play, for the side that plays it.
    pub(crate) score: i32,
    /// A line of best play after it, starting with the move (from the table: it may stop
    /// short of the end).
    pub(crate) pv: Vec<Square>,
}

/// The exact scores (or, for a selective `options`, the scores at its confidence) of the
/// best `count` moves of `node`, best first (fewer if it has fewer moves; none if it must
/// pass), and the positions visited.
///
/// Each move's position is solved exactly while fewer than `count` are ranked; after that a
/// null-window solve first tells whether it beats the last one ranked, and only then is it
/// solved exactly. Moves are tried in the order of a short midgame search on `eval`.
///
/// # Errors
/// [`Unfinished`] if `limits` (or `signal`) ended the search first.
pub(crate) fn rank<N: Node>(
    node: &N,
    options: &SolveOptions,
    count: usize,
    tt: &mut TranspositionTable,
    limits: &Limits,
    signal: Option<&Signal>,
) -> Result<(Vec<SolvedMove>, u64), Unfinished> {
    let moves = node.moves();
    let rule = options.rule;
    let order_options = SearchOptions {
        ranked_moves: moves.len() as usize,
        ..SearchOptions::new(rule, Limits::depth(ORDER_DEPTH), options.eval)
    };
    let order = midgame::search(node, &order_options, tt, None, &mut |_| {}).ranked;
    let tt = &*tt;
    let bound = node.layout().cells.len() as i32;
    let ((ranked, stopped, nodes), helper_nodes) = parallel::lazy_smp(
        options.threads,
        |helper, stop| {
            // Each helper solves the moves exactly, starting at a different one: the main
            // thread finds their scores in the table.
            let mut solver =
                Solver::new(options, node, tt, Stopper::new(&Limits::NONE, Some(stop)));
            for guess in order.iter().cycle().skip(helper).take(order.len()) {
                let Some(mv) = node.index(guess.square) else {
                    continue;
                };
                solver.converge(&node.play(mv), -(guess.score / DISC), -bound, bound);
            }
            solver.stopper.nodes()
        },
        |_| {
            let mut solver = Solver::new(options, node, tt, Stopper::new(limits, signal));
            let bound = node.layout().cells.len() as i32;
            let mut ranked: Vec<SolvedMove> = Vec::new();
            for guess in order.iter().cloned() {
                let Some(mv) = node.index(guess.square) else {
                    continue;
                };
                let child = node.play(mv);
                let exact = |solver: &mut Solver<'_, '_, N>| {
                    let guess = -(guess.score / DISC);
                    -solver.converge(&child, guess, -bound, bound).0
                };
                let score = if ranked.len() < count.max(1) {
                    exact(&mut solver)
                } else {
                    let floor = ranked[ranked.len() - 1].score;
                    // Does the move beat the floor? Only then is its exact score needed.
                    let (probe, _) = solver.root(&child, -floor - 1, -floor);
                    // A stopped search may return before any move is scored (i32::MIN): it means
                    // nothing, and negating it would overflow.
                    if solver.stopper.stopped() {
                        break;
                    }
                    if -probe <= floor {
                        continue;
                    }
                    exact(&mut solver)
                };
                if solver.stopper.stopped() {
                    break;
                }
                let mut pv = vec![guess.square];
                follow_table(solver.tt, &child, rule, &mut pv);
                ranked.push(SolvedMove {
                    square: guess.square,
                    score,
                    pv,
                });
                ranked.sort_by_key(|solved| -solved.score);
                ranked.truncate(count.max(1));
            }
            (ranked, solver.stopper.stopped(), solver.stopper.nodes())
        },
    );
    let nodes = nodes + helper_nodes;
    if stopped {
        return Err(Unfinished {
            nodes,
            best_so_far: None,
            proved: None,
        });
    }
    Ok((ranked, nodes))
}

/// The line `best` begins in `node` after a solve: the move, then the best moves the table
/// holds (see [`follow_table`]).
pub(super) fn line<N: Node>(
    tt: &TranspositionTable,
    node: &N,
    rule: WinRule,
    best: Square,
) -> Vec<Square> {
    let mut pv = vec![best];
    if let Some(mv) = node.index(best) {
        follow_table(tt, &node.play(mv), rule, &mut pv);
    }
    pv
}

/// The line of best play in `node` that starts with `first`, a move worth `score` (the final
/// disc difference for the side to move in `node`): each next move is one the solver proves
/// keeps that score (the table's move tried first), and `None` stands where a side must
/// pass. It ends at the end of the game, or earlier where `limits` (or `signal`) stop the
/// proof: never longer than what is proven. A walk of the table alone can go wrong: an
/// entry's move may be a bound's, or the entry another position's.
pub(crate) fn proven_line<N: Node>(
    node: &N,
    first: Square,
    score: i32,
    rule: WinRule,
    tt: &TranspositionTable,
    limits: &Limits,
    signal: Option<&Signal>,
) -> Vec<Option<Square>> {
    let mut line = vec![Some(first)];
    let Some(mv) = node.index(first).filter(|&mv| node.moves().contains(mv)) else {
        return line;
    };
    let options = SolveOptions::exact(rule);
    let mut solver = Solver::new(&options, node, tt, Stopper::new(limits, signal));
    // The score still to reach, for the side to move in `node`.
    let (mut node, mut want) = (node.play(mv), -score);
    loop {
        let mut moves = node.moves();
        if moves.is_empty() {
            let Some(passed) = node.after_pass() else {
                break;
            };
            line.push(None);
            (node, want) = (passed, -want);
            continue;
        }
        let stored = tt
            .probe(node.hash())
            .and_then(|entry| entry.best)
            .and_then(|square| node.index(square))
            .filter(|&mv| moves.contains(mv));
        let others = std::iter::from_fn(|| moves.pop()).filter(|&mv| Some(mv) != stored);
        let mut candidates = stored.into_iter().chain(others);
        // A window of one score around the child's: a result inside it is exact.
        let proven = candidates.find(|&mv| {
            let reached = solver.root(&node.play(mv), -want - 1, -want + 1).0;
            solver.stopper.stopped() || reached == -want
        });
        match proven {
            Some(mv) if !solver.stopper.stopped() => {
                line.push(Some(node.square(mv)));
                (node, want) = (node.play(mv), -want);
            }
            _ => break,
        }
    }
    line
}

/// Extends `pv` from `node` on by the best moves the table holds, to the end of the game;
/// the last few empties, which the solver does not store, are solved again (in
/// microseconds).
fn follow_table<N: Node>(tt: &TranspositionTable, node: &N, rule: WinRule, pv: &mut Vec<Square>) {
    let length = pv.len() + node.empties().len() as usize;
    pvs::follow_table(tt, node, pv, length, |node| {
        if node.empties().len() > PLAIN_EMPTIES {
            return None;
        }
        let mut small = TranspositionTable::new(1);
        let solved = solve(node, rule, Goal::Exact, &mut small, &Limits::NONE, None);
        solved.ok()?.best.and_then(|square| node.index(square))
    });
}

/// Depth of the midgame search that orders the moves [`rank`] solves.
const ORDER_DEPTH: u32 = 4;

/// A first estimate of the final score (in evaluation units), from a short midgame search
/// (within `limits`).
fn first_guess<N: Node>(
    node: &N,
    rule: WinRule,
    eval: Evaluator,
    limits: &Limits,
    signal: Option<&Signal>,
) -> i32 {
    let options = SearchOptions::new(
        rule,
        Limits {
            depth: Some(GUESS_DEPTH),
            ..*limits
        },
        eval,
    );
    let mut tt = TranspositionTable::new(1);
    midgame::search(node, &options, &mut tt, signal, &mut |_| {}).score
}

/// Depth of the search behind the first guess.
const GUESS_DEPTH: u32 = 6;

/// From this many empties up, [`solve_with`] first solves at the levels of [`PRESOLVE`].
const PRESOLVE_EMPTIES: u32 = 18;

/// The selective solves before the one asked for (where a cut model applies), most
/// selective first. One at 95 % saved the most time of the combinations measured on FFO
/// #40-#49 and on self-play positions (more levels save more nodes on FFO, but not time
/// elsewhere: BENCHMARKS.md).
const PRESOLVE: [Selectivity; 1] = [Selectivity::ALL[2]];

struct Solver<'t, 's, N: Node> {
    rule: WinRule,
    /// Orders moves far from the end (a shallow search on it).
    eval: Evaluator,
    /// How sure a cut must be ([`Selectivity::NONE`] where no model applies).
    selectivity: Selectivity,
    /// How sure the solve was asked to be (its steps before may be less sure).
    target: Selectivity,
    /// The cut model, for a selective solve where one applies.
    cuts: Option<&'static CutModel>,
    /// Threads solving together.
    threads: usize,
    tt: &'t TranspositionTable,
    stopper: Stopper<'s>,
    /// Move lists of the nodes on the current path, one after the other.
    moves: Vec<(i32, Index<N>)>,
    /// The move the latest finished step of [`Solver::converge`] proved to reach the score
    /// beside it, for a solve stopped before the end ([`Unfinished::best_so_far`]).
    best_so_far: Option<(Square, i32)>,
    /// The bounds the latest step of an exact [`Solver::converge`] left proved
    /// ([`Unfinished::proved`]).
    proved: Option<(i32, i32)>,
}

impl<'t, 's, N: Node> Solver<'t, 's, N> {
    fn new(
        options: &SolveOptions,
        node: &N,
        tt: &'t TranspositionTable,
        stopper: Stopper<'s>,
    ) -> Solver<'t, 's, N> {
        let mut solver = Solver {
            rule: options.rule,
            eval: options.eval,
            selectivity: Selectivity::NONE,
            target: options.selectivity,
            cuts: None,
            threads: options.threads,
            tt,
            stopper,
            moves: Vec::with_capacity(256),
            best_so_far: None,
            proved: None,
        };
        solver.set_selectivity(node, options.selectivity);
        solver
    }
}

impl<N: Node> Solver<'_, '_, N> {
    /// Solves at `level` from now on (where a cut model applies); whether it does.
    fn set_selectivity(&mut self, node: &N, level: Selectivity) -> bool {
        let cuts = if level.is_none() {
            None
        } else {
            probcut::model_for(self.eval, node, self.rule)
        };
        self.cuts = cuts;
        self.selectivity = if cuts.is_some() {
            level
        } else {
            Selectivity::NONE
        };
        self.selectivity == level
    }

    /// The score at this solve's selectivity (between -`bound` and `bound`), by [`converge`]
    /// from `guess`; from [`PRESOLVE_EMPTIES`] up, first at the more selective levels of
    /// [`PRESOLVE`]: each one's score is the next one's guess, and the best moves it leaves in
    /// the table are tried first by the next (as the strong engines solve). Their entries
    /// are no proof for the later solves ([`Strategy::known`], [`Strategy::refuted_by_child`]).
    ///
    /// [`converge`]: Self::converge
    fn converge_in_steps(&mut self, node: &N, mut guess: i32, bound: i32) -> (i32, Option<Square>) {
        let target = self.selectivity;
        if node.empties().len() >= PRESOLVE_EMPTIES {
            for level in PRESOLVE {
                if level < target && self.set_selectivity(node, level) {
                    guess = self.converge(node, guess, -bound, bound).0;
                }
            }
            self.set_selectivity(node, target);
        }
        self.converge(node, guess, -bound, bound)
    }

    /// The exact score (between `lower` and `upper`) by a series of null-window searches,
    /// each one reusing the table the others filled (MTD(f)): the first tests `guess`, each
    /// next one the bound the last one returned.
    fn converge(
        &mut self,
        node: &N,
        guess: i32,
        mut lower: i32,
        mut upper: i32,
    ) -> (i32, Option<Square>) {
        let (mut best, mut guess) = (None, guess.clamp(lower, upper));
        while lower < upper && !self.stopper.stopped() {
            let test = if guess == lower { guess + 1 } else { guess };
            let (score, mv) = self.root(node, test - 1, test);
            // Only a step at least as sure as the solve asked for says what the solve
            // would: a more selective step before it (`converge_in_steps`) proves nothing.
            if score >= test
                && !self.stopper.stopped()
                && self.selectivity >= self.target
                && let Some(mv) = mv
            {
                self.best_so_far = Some((mv, score));
            }
            if self.stopper.stopped() {
                break;
            }
            if score >= test {
                lower = score;
                best = mv.or(best);
            } else {
                upper = score;
            }
            if self.selectivity.is_none() {
                self.proved = Some((lower, upper));
                self.stopper.prove(lower, upper);
            }
            guess = score;
        }
        if best.is_none() && !self.stopper.stopped() {
            // Every move reaches only the lowest score: any of them is best.
            best = self.root(node, lower - 1, lower + 1).1;
        }
        (lower, best)
    }

    /// The root, in the copy of the search this processor runs best.
    fn root(&mut self, node: &N, alpha: i32, beta: i32) -> (i32, Option<Square>) {
        #[cfg(target_arch = "x86_64")]
        if super::super::fast_cpu() {
            // SAFETY: the processor has every feature `root_fast` is compiled for.
            return unsafe { self.root_fast(node, alpha, beta) };
        }
        self.root_with(node, alpha, beta, Self::search_portable)
    }

    fn search_portable(&mut self, node: &N, alpha: i32, beta: i32, empties: u32) -> i32 {
        self.search_with(
            node,
            alpha,
            beta,
            empties,
            Self::search_portable,
            Self::plain_portable,
        )
    }

    fn plain_portable(&mut self, node: &N, alpha: i32, beta: i32, empties: u32) -> i32 {
        if self.stopper.tick() {
            return 0; // discarded by the caller
        }
        self.plain(node, alpha, beta, empties, Self::plain_portable)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    fn root_fast(&mut self, node: &N, alpha: i32, beta: i32) -> (i32, Option<Square>) {
        self.root_with(node, alpha, beta, |s: &mut Self, n: &N, a, b, e| {
            s.search_fast(n, a, b, e)
        })
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    fn search_fast(&mut self, node: &N, alpha: i32, beta: i32, empties: u32) -> i32 {
        self.search_with(
            node,
            alpha,
            beta,
            empties,
            |s: &mut Self, n: &N, a, b, e| s.search_fast(n, a, b, e),
            |s: &mut Self, n: &N, a, b, e| s.plain_fast(n, a, b, e),
        )
    }

    /// The last plies call themselves directly: a small function for the nodes that are
    /// most of the tree.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    fn plain_fast(&mut self, node: &N, alpha: i32, beta: i32, empties: u32) -> i32 {
        if self.stopper.tick() {
            return 0; // discarded by the caller
        }
        self.plain(
            node,
            alpha,
            beta,
            empties,
            |s: &mut Self, n: &N, a, b, e| s.plain_fast(n, a, b, e),
        )
    }

    /// Like [`Solver::search_with`], but also returns the best move.
    #[inline(always)]
    fn root_with(
        &mut self,
        node: &N,
        alpha: i32,
        beta: i32,
        recurse: impl Recurse<Self, N>,
    ) -> (i32, Option<Square>) {
        let moves = node.moves();
        let empties = node.empties().len();
        if moves.is_empty() {
            return (recurse(self, node, alpha, beta, empties), None);
        }
        let hint = self.tt.probe(node.hash()).and_then(|entry| entry.best);
        let start = self.order(node, moves, hint, empties);
        let (mut alpha, mut best_score, mut best) = (alpha, i32::MIN, None);
        // A move that a symmetry of the position maps onto another is worth the same.
        let mirrored = mirrored_moves(node);
        let count = self.moves.len() - start - mirrored.len() as usize;
        // What an exact solve's null-window steps tell its progress display.
        let publish = self.selectivity.is_none() && beta == alpha + 1;
        let mut number = 0;
        for i in start..self.moves.len() {
            let mv = self.moves[i].1;
            if mirrored.contains(mv) {
                continue;
            }
            number += 1;
            if publish {
                self.stopper.take_step(SolveStep {
                    testing: beta,
                    move_number: number,
                    moves: count as u32,
                });
            }
            let child = node.play(mv);
            let first = best.is_none();
            let score = pvs::child_score(self, &child, alpha, beta, empties - 1, first, recurse);
            if self.stopper.stopped() {
                break;
            }
            if score > best_score {
                (best_score, best) = (score, Some(node.square(mv)));
                alpha = alpha.max(score);
            }
            if alpha >= beta {
                break;
            }
        }
        self.moves.truncate(start);
        (best_score, best)
    }

    #[inline(always)]
    fn search_with(
        &mut self,
        node: &N,
        alpha: i32,
        beta: i32,
        empties: u32,
        recurse: impl Recurse<Self, N>,
        plain: impl Recurse<Self, N>,
    ) -> i32 {
        if self.stopper.tick() {
            return 0; // discarded by the caller
        }
        if empties <= PLAIN_EMPTIES {
            return self.plain(node, alpha, beta, empties, plain);
        }
        if beta == alpha + 1
            && empties >= STABILITY_EMPTIES
            && let Some(bound) = self.stability_bound(node, alpha)
        {
            return bound;
        }
        pvs::search_node(self, node, alpha, beta, empties, recurse)
    }

    /// An upper bound on the score that is at most `alpha`, from discs that can never flip:
    /// the opponent's under most-discs (it keeps them), our own under fewest-discs.
    #[inline(always)]
    fn stability_bound(&self, node: &N, alpha: i32) -> Option<i32> {
        let cells = node.layout().cells.len() as i32;
        let (keeper, discs) = match self.rule {
            WinRule::MostDiscs => (node.pass(), node.opponent().len()),
            WinRule::FewestDiscs => (*node, node.player().len()),
        };
        // Even if all those discs were stable the bound could not reach alpha: skip the work.
        if cells - 2 * discs as i32 > alpha {
            return None;
        }
        let bound = cells - 2 * keeper.stable().len() as i32;
        (bound <= alpha).then_some(bound)
    }

    /// Few empties: no move generation, table or sorting; each empty square is tried by
    /// computing what it would flip.
    #[inline(always)]
    fn plain(
        &mut self,
        node: &N,
        mut alpha: i32,
        beta: i32,
        empties: u32,
        recurse: impl Recurse<Self, N>,
    ) -> i32 {
        let free = node.empties();
        match empties {
            1 => return self.last_square(node, free),
            2 => return self.two_squares(node, alpha, beta, free, recurse),
            _ => {}
        }
        // From four empties up, squares in regions with an odd number of empties first.
        let mut odd = N::Set::EMPTY;
        if empties >= 4 {
            for &quadrant in &node.layout().quadrants {
                if (free & quadrant).len() % 2 == 1 {
                    odd = odd | quadrant;
                }
            }
        }
        let mut best_score = i32::MIN;
        'groups: for mut squares in [free & odd, free & !odd] {
            while let Some(square) = squares.pop() {
                // No opponent disc next to it: nothing to flip, no need to look further.
                if (node.around(square) & node.opponent()).is_empty() {
                    continue;
                }
                let flips = node.flips(square);
                if flips.is_empty() {
                    continue;
                }
                let score = -recurse(self, &node.make(square, flips), -beta, -alpha, empties - 1);
                if score > best_score {
                    best_score = score;
                    if score > alpha {
                        alpha = score;
                        if alpha >= beta {
                            break 'groups;
                        }
                    }
                }
            }
        }
        if best_score != i32::MIN {
            return best_score;
        }
        self.pass_or_end(node, alpha, beta, free, empties, recurse)
    }

    /// The side to move has no move: pass if the opponent has one, else the game is over.
    #[inline(always)]
    fn pass_or_end(
        &mut self,
        node: &N,
        alpha: i32,
        beta: i32,
        free: N::Set,
        empties: u32,
        recurse: impl Recurse<Self, N>,
    ) -> i32 {
        let passed = node.pass();
        let mut squares = free;
        while let Some(square) = squares.pop() {
            if !(passed.around(square) & passed.opponent()).is_empty()
                && !passed.flips(square).is_empty()
            {
                return -recurse(self, &passed, -beta, -alpha, empties);
            }
        }
        self.game_over(node)
    }

    /// Two empty squares: each move leads straight to the last square, solved here
    /// without a call through the search (each position still counts as a node).
    #[inline(always)]
    fn two_squares(
        &mut self,
        node: &N,
        mut alpha: i32,
        beta: i32,
        free: N::Set,
        recurse: impl Recurse<Self, N>,
    ) -> i32 {
        let first = free.first().expect("two empty squares");
        let second = (free ^ N::Set::single(first))
            .first()
            .expect("two empty squares");
        let mut best_score = i32::MIN;
        for (square, other) in [(first, second), (second, first)] {
            if (node.around(square) & node.opponent()).is_empty() {
                continue;
            }
            let flips = node.flips(square);
            if flips.is_empty() {
                continue;
            }
            self.stopper.tick();
            let child = node.make(square, flips);
            let score = -self.last_square(&child, N::Set::single(other));
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if best_score != i32::MIN {
            return best_score;
        }
        self.pass_or_end(node, alpha, beta, free, 2, recurse)
    }

    /// One empty square left: whoever can take it does; the game ends either way.
    #[inline(always)]
    fn last_square(&mut self, node: &N, free: N::Set) -> i32 {
        let square = free.first().expect("one empty square");
        let (player, opponent) = (node.player().len(), node.opponent().len());
        let flips = node.last_flips(square);
        if flips > 0 {
            return final_score(self.rule, player + flips + 1, opponent - flips, 0);
        }
        let flips = node.pass().last_flips(square);
        if flips > 0 {
            return final_score(self.rule, player - flips, opponent + flips + 1, 0);
        }
        final_score(self.rule, player, opponent, 1)
    }
}

impl<N: Node> Strategy<N> for Solver<'_, '_, N> {
    #[inline(always)]
    fn move_stack(&mut self) -> &mut Vec<(i32, Index<N>)> {
        &mut self.moves
    }

    #[inline(always)]
    fn table(&self) -> &TranspositionTable {
        self.tt
    }

    #[inline(always)]
    fn stopped(&self) -> bool {
        self.stopper.stopped()
    }

    #[inline(always)]
    fn game_over(&self, node: &N) -> i32 {
        node.final_score(self.rule)
    }

    #[inline(always)]
    fn horizon(&self, _: &N, _: N::Set, _: u32) -> Option<i32> {
        None
    }

    /// Only the solver's own entries, as sure as this solve: a midgame search's score is no
    /// proof.
    #[inline(always)]
    fn known(&self, entry: &Entry, _: u32) -> Option<i32> {
        (entry.depth == Entry::SOLVED && entry.selectivity >= self.selectivity)
            .then_some(i32::from(entry.score))
    }

    #[inline(always)]
    fn stored(&self, _: u32) -> (u8, Selectivity) {
        (Entry::SOLVED, self.selectivity)
    }

    /// A selective solve, from [`probcut::ENDGAME_MIN_EMPTIES`] up: a midgame search of
    /// [`probcut::shallow_depth`] plies predicts whether the exact score is outside the
    /// window with the selectivity's confidence.
    #[inline(always)]
    fn probable_cut(
        &mut self,
        node: &N,
        alpha: i32,
        beta: i32,
        empties: u32,
        _: impl Recurse<Self, N>,
    ) -> Option<i32> {
        let model = self.cuts?;
        if empties < probcut::ENDGAME_MIN_EMPTIES {
            return None;
        }
        let error = model.endgame(empties);
        let (high, low) = probcut::cut_bounds(self.selectivity, error, alpha * DISC, beta * DISC)?;
        let cells = node.layout().cells.len() as i32;
        let options = SearchOptions {
            selectivity: self.selectivity,
            ..SearchOptions::new(self.rule, Limits::NONE, self.eval)
        };
        let mut searcher =
            Searcher::new(&options, node, self.tt, &mut self.stopper, &mut self.moves);
        let shallow = probcut::shallow_depth(empties);
        if beta < cells {
            let score = searcher.search(node, high - 1, high, shallow);
            if score >= high && !searcher.stopped() {
                return Some(beta);
            }
        }
        if alpha > -cells {
            let score = searcher.search(node, low, low + 1, shallow);
            if score <= low && !searcher.stopped() {
                return Some(alpha);
            }
        }
        None
    }

    /// Nodes of [`SHARED_EMPTIES`] or more, when threads share the solve.
    #[inline(always)]
    fn shares_work(&self, empties: u32) -> bool {
        self.threads > 1 && empties >= SHARED_EMPTIES
    }

    /// From [`ETC_EMPTIES`] up: a child already known to score at most `-beta` for the
    /// opponent cuts the node off at once.
    #[inline(always)]
    fn refuted_by_child(
        &mut self,
        node: &N,
        mut moves: N::Set,
        beta: i32,
        empties: u32,
    ) -> Option<i32> {
        if empties < ETC_EMPTIES {
            return None;
        }
        let refutes = |key: u64| {
            self.tt
                .probe(key)
                .filter(|entry| {
                    entry.depth == Entry::SOLVED
                        && entry.selectivity >= self.selectivity
                        && entry.bound != Bound::Lower
                        && -i32::from(entry.score) >= beta
                })
                .map(|entry| -i32::from(entry.score))
        };
        // The children's buckets are all fetched before the first is read, so that their
        // cache misses overlap (an 8 x 8 position never has more moves than this; on big
        // boards the rest are read as they come).
        let mut keys = [0u64; 40];
        let mut fetched = 0;
        while fetched < keys.len()
            && let Some(mv) = moves.pop()
        {
            keys[fetched] = node.play(mv).hash();
            self.tt.prefetch(keys[fetched]);
            fetched += 1;
        }
        let unfetched = std::iter::from_fn(|| moves.pop()).map(|mv| node.play(mv).hash());
        keys[..fetched]
            .iter()
            .copied()
            .chain(unfetched)
            .find_map(refutes)
    }

    /// Pushes `moves` sorted best first onto the move stack; returns where they start.
    ///
    /// The table's move first; then fastest first: the fewer replies left to the opponent
    /// the better (corners count twice), then the fewer empty squares next to our discs
    /// (the opponent's future replies), corners early, squares next to empty corners late,
    /// squares in regions with an odd number of empties early; far enough from the end, the
    /// evaluation (or a shallow search on it) of the position after the move too.
    #[inline(always)]
    fn order(&mut self, node: &N, mut moves: N::Set, hint: Option<Square>, _: u32) -> usize {
        let start = self.moves.len();
        let layout: &Layout<N::Set> = node.layout();
        let empty = node.empties();
        let (mut corners, mut risky) = (N::Set::EMPTY, N::Set::EMPTY);
        for corner in &layout.corners {
            corners = corners | corner.corner;
            if !(corner.corner & empty).is_empty() {
                risky = risky | corner.x_square;
            }
        }
        let mut odd = N::Set::EMPTY;
        for &quadrant in &layout.quadrants {
            if (empty & quadrant).len() % 2 == 1 {
                odd = odd | quadrant;
            }
        }
        let hint = hint.and_then(|square| node.index(square));
        // Corners keep their discs for good: a gain where most discs win, a burden where
        // fewest do (and an X-square that gives one away is no risk there).
        let fewest = self.rule == WinRule::FewestDiscs;
        let (corner_key, x_square_key, corner_replies) = if fewest {
            (ORDER_CORNER, 0, N::Set::EMPTY)
        } else {
            (-ORDER_CORNER, ORDER_X_SQUARE, corners)
        };
        while let Some(mv) = moves.pop() {
            let key = if Some(mv) == hint {
                i32::MIN
            } else {
                let child = node.play(mv);
                let replies = child.moves();
                let weighted = (replies.len() + (replies & corner_replies).len()) as i32;
                let potential = (child.opponent().neighbours() & child.empties()).len() as i32;
                let foreseen = if empty.len() >= SHALLOW_EMPTIES {
                    // The opponent's outlook after the move.
                    let score = shallow_search(
                        &child,
                        self.rule,
                        self.eval,
                        SHALLOW_DEPTH,
                        -i32::MAX,
                        i32::MAX,
                        &mut self.stopper,
                    );
                    score * ORDER_SHALLOW / DISC
                } else if empty.len() >= EVALUATED_EMPTIES {
                    self.eval.evaluate_knowing(&child, replies, self.rule) * ORDER_SHALLOW / DISC
                } else {
                    0
                };
                foreseen
                    + weighted * ORDER_MOBILITY
                    + potential * ORDER_POTENTIAL
                    + if corners.contains(mv) { corner_key } else { 0 }
                    + if risky.contains(mv) { x_square_key } else { 0 }
                    - if odd.contains(mv) { ORDER_PARITY } else { 0 }
            };
            self.moves.push((key, mv));
        }
        self.moves[start..].sort_unstable_by_key(|&(key, _)| key);
        start
    }
}

/// A plain alpha-beta search on the evaluation to `depth`, for ordering moves far from the
/// end, where the fastest-first keys alone guess the best move less often. Not shared with
/// the `minimax:D` player's search: that one must tell finished games at its leaves, which
/// costs a move generation per leaf (measured 4 % slower on FFO #48 when merged). Each
/// position is work for `stopper` (not a node): once it says stop, the score means nothing
/// and the solver unwinds.
#[allow(clippy::too_many_arguments)]
fn shallow_search<N: Node>(
    node: &N,
    rule: WinRule,
    eval: Evaluator,
    depth: u32,
    mut alpha: i32,
    beta: i32,
    stopper: &mut Stopper<'_>,
) -> i32 {
    if stopper.work() {
        return 0;
    }
    if depth == 0 {
        return eval.evaluate(node, rule);
    }
    let mut moves = node.moves();
    if moves.is_empty() {
        return match node.after_pass() {
            Some(passed) => -shallow_search(&passed, rule, eval, depth - 1, -beta, -alpha, stopper),
            None => eval.evaluate(node, rule),
        };
    }
    let mut best = -i32::MAX;
    while let Some(mv) = moves.pop() {
        best = best.max(-shallow_search(
            &node.play(mv),
            rule,
            eval,
            depth - 1,
            -beta,
            -alpha,
            stopper,
        ));
        alpha = alpha.max(best);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// From this many empties up, moves are also ordered by a shallow search of the position
/// after each ...
const SHALLOW_EMPTIES: u32 = 18;
/// ... this deep ...
const SHALLOW_DEPTH: u32 = 3;
/// ... weighted this much per disc of its score (FFO #40-#49: 179.8 s without, 135.2 s
/// with; depth 2 from 17 empties 147.1 s; see BENCHMARKS.md).
const ORDER_SHALLOW: i32 = 4;
/// Below [`SHALLOW_EMPTIES`], down to this many empties, the evaluation of the position
/// after each move orders them (no search), weighted as [`ORDER_SHALLOW`]: FFO #40-#49 on
/// generation 6 in 17 % fewer nodes and 5 % less time than without; from 10 empties fewer
/// nodes still, but more time (BENCHMARKS.md).
const EVALUATED_EMPTIES: u32 = 12;

/// Move ordering weights (lower keys first): per reply left to the opponent ...
const ORDER_MOBILITY: i32 = 16;
/// ... per empty square next to our discs after the move ...
const ORDER_POTENTIAL: i32 = 2;
/// ... for taking a corner ...
const ORDER_CORNER: i32 = 24;
/// ... for the square diagonally next to an empty corner ...
const ORDER_X_SQUARE: i32 = 16;
/// ... for a square in a region with an odd number of empties.
const ORDER_PARITY: i32 = 12;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Board, Color, Full, Shape, Simple,
        engine::{GridNode, Node8},
    };

    /// Plain minimax to the end, no pruning.
    fn minimax<N: Node>(node: &N, rule: WinRule) -> i32 {
        let mut moves = node.moves();
        if moves.is_empty() {
            return match node.after_pass() {
                Some(passed) => -minimax(&passed, rule),
                None => node.final_score(rule),
            };
        }
        let mut best = i32::MIN;
        while let Some(mv) = moves.pop() {
            best = best.max(-minimax(&node.play(mv), rule));
        }
        best
    }

    fn random_board(shape: Shape, empties: usize, seed: u64) -> Board {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut board = Board::empty(shape);
        for square in shape.squares() {
            let color = if next() % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            board.set(square, Some(color));
        }
        let mut left = shape.cells();
        while left > shape.cells() - empties {
            let square = shape
                .squares()
                .nth((next() % shape.cells() as u64) as usize)
                .unwrap();
            if board.at(square).is_some() {
                board.set(square, None);
                left -= 1;
            }
        }
        board
    }

    /// The solver's scores, ranking and best move against minimax, with one thread and
    /// with three (two helpers of different kinds): the same exact scores.
    fn check<N: Node>(node: &N, rule: WinRule) {
        let expected = minimax(node, rule);
        let mut children: Vec<i32> = Vec::new();
        let mut moves = node.moves();
        while let Some(mv) = moves.pop() {
            children.push(-minimax(&node.play(mv), rule));
        }
        children.sort_by_key(|&score| -score);
        children.truncate(3);
        for threads in [1, 3] {
            let options = SolveOptions {
                threads,
                ..SolveOptions::exact(rule)
            };
            let mut tt = TranspositionTable::new(1);
            let exact =
                solve_with(node, Goal::Exact, &options, &mut tt, &Limits::NONE, None).unwrap();
            assert_eq!(exact.score, expected, "{threads} threads: {node:?}");
            for guess in [-40, 0, 40] {
                let mut fresh = TranspositionTable::new(1);
                let from = solve_from(
                    node,
                    guess * DISC,
                    &options,
                    &mut fresh,
                    &Limits::NONE,
                    None,
                );
                assert_eq!(
                    from.unwrap().score,
                    expected,
                    "{threads} threads, first guess {guess}: {node:?}"
                );
            }
            let (ranked, _) = rank(node, &options, 3, &mut tt, &Limits::NONE, None).unwrap();
            let scores: Vec<i32> = ranked.iter().map(|solved| solved.score).collect();
            assert_eq!(
                scores, children,
                "{threads} threads: ranked moves of {node:?}"
            );
            for solved in ranked {
                let mv = node.index(solved.square).unwrap();
                assert_eq!(
                    -minimax(&node.play(mv), rule),
                    solved.score,
                    "{solved:?} of {node:?}"
                );
                assert_eq!(solved.pv[0], solved.square);
            }
            if let Some(best) = exact.best {
                let mv = node.index(best).unwrap();
                assert!(node.moves().contains(mv));
                assert_eq!(
                    -minimax(&node.play(mv), rule),
                    expected,
                    "{threads} threads: best move {best} of {node:?}"
                );
            }
            let wld = solve_with(
                node,
                Goal::WinLossDraw,
                &options,
                &mut tt,
                &Limits::NONE,
                None,
            )
            .unwrap();
            assert_eq!(wld.score.signum(), expected.signum(), "{node:?}");
        }
    }

    /// Deeper than minimax can check: two threads find one thread's exact scores, and
    /// count the helper's nodes.
    #[test]
    fn two_threads_solve_to_the_same_scores() {
        for seed in 0..6 {
            let board = random_board(Shape::STANDARD, 16, 100 + seed);
            let node = Node8::from_board(&board, Color::Black);
            let solved = [1, 2].map(|threads| {
                let options = SolveOptions {
                    threads,
                    ..SolveOptions::exact(WinRule::MostDiscs)
                };
                let mut tt = TranspositionTable::new(8);
                solve_with(&node, Goal::Exact, &options, &mut tt, &Limits::NONE, None).unwrap()
            });
            assert_eq!(solved[0].score, solved[1].score, "{node:?}");
            assert!(solved[1].nodes > 0);
        }
    }

    /// A selective solve's entries are no proof for an exact one sharing its table: neither
    /// as the node's own entry nor as a child's (enhanced transposition cutoffs).
    #[test]
    fn an_exact_solve_after_a_selective_one_in_the_same_table_is_exact() {
        let (mut differed, mut positions) = (0, 0);
        for seed in 0..40 {
            let board = random_board(Shape::STANDARD, 16, 300 + seed);
            let node = Node8::from_board(&board, Color::Black);
            if node.moves().is_empty() {
                continue;
            }
            positions += 1;
            let exact = SolveOptions::exact(WinRule::MostDiscs);
            let selective = SolveOptions {
                selectivity: Selectivity::MOST,
                ..exact
            };
            let mut fresh = TranspositionTable::new(8);
            let expected = solve_with(&node, Goal::Exact, &exact, &mut fresh, &Limits::NONE, None)
                .unwrap()
                .score;
            let mut shared = TranspositionTable::new(8);
            let guessed = solve_with(
                &node,
                Goal::Exact,
                &selective,
                &mut shared,
                &Limits::NONE,
                None,
            );
            differed += usize::from(guessed.unwrap().score != expected);
            let solved = solve_with(&node, Goal::Exact, &exact, &mut shared, &Limits::NONE, None);
            assert_eq!(solved.unwrap().score, expected, "{node:?}");
        }
        // The selective solves must have been wrong somewhere for the test to mean anything.
        assert!(
            positions >= 30 && differed > 0,
            "{positions} positions, {differed} differed"
        );
    }

    /// From [`PRESOLVE_EMPTIES`] up the solve goes through selective solves first: the
    /// score is still the best of the moves' exact scores (each solved below it).
    #[test]
    fn solving_selectively_first_keeps_the_score_exact() {
        let options = SolveOptions::exact(WinRule::MostDiscs);
        for seed in 0..4 {
            let board = random_board(Shape::STANDARD, PRESOLVE_EMPTIES as usize, 500 + seed);
            let node = Node8::from_board(&board, Color::Black);
            assert!(probcut::model_for(options.eval, &node, options.rule).is_some());
            if node.moves().is_empty() {
                continue;
            }
            let mut tt = TranspositionTable::new(8);
            let solved = solve_with(&node, Goal::Exact, &options, &mut tt, &Limits::NONE, None);
            let solved = solved.unwrap();
            // The last solve was exact: the best move's entry says so.
            let best = node.play(node.index(solved.best.unwrap()).unwrap());
            let entry = tt.probe(best.hash()).unwrap();
            assert_eq!(
                (entry.depth, entry.selectivity),
                (Entry::SOLVED, Selectivity::NONE)
            );
            let mut tt = TranspositionTable::new(8);
            let all = node.moves().len() as usize;
            let (ranked, _) = rank(&node, &options, all, &mut tt, &Limits::NONE, None).unwrap();
            let best = ranked.first().map(|solved| solved.score);
            assert_eq!(Some(solved.score), best, "{node:?}");
        }
    }

    #[test]
    fn agrees_with_plain_minimax_on_small_endgames() {
        for seed in 0..40 {
            // Up to 10 empties on 8x8, 8 elsewhere (SIMPLE's wide trees make minimax slow).
            let empties = 4 + (seed % 7) as usize;
            for rule in [WinRule::MostDiscs, WinRule::FewestDiscs] {
                let board = random_board(Shape::STANDARD, empties, seed);
                check(&Node8::from_board(&board, Color::Black), rule);
                let shape = Shape::new(4 + (seed % 5) as u8 * 2, 6 + (seed % 3) as u8).unwrap();
                let board = random_board(shape, empties.min(8), seed + 1000);
                check(&GridNode::<Full>::from_board(&board, Color::White), rule);
                check(&GridNode::<Simple>::from_board(&board, Color::Black), rule);
            }
        }
    }

    #[test]
    fn a_search_deep_enough_is_exact_and_agrees_with_the_solver() {
        // A position near the end: fill all but ten squares in a fixed pattern.
        let board = Board::patterned(|i| i % 7 != 3 && i > 10, |i| i % 3 == 0);
        let node = Node8::from_board(&board, Color::Black);
        let mut tt = TranspositionTable::new(4);
        let options = SearchOptions::new(WinRule::MostDiscs, Limits::depth(64), Evaluator::Classic);
        let report = midgame::search(&node, &options, &mut tt, None, &mut |_| {});
        assert!(report.exact);
        let mut tt = TranspositionTable::new(4);
        assert_eq!(report.score, exact_score(&node, &mut tt) * DISC);
    }

    #[test]
    fn a_stopped_search_returns_nothing() {
        let board = random_board(Shape::STANDARD, 14, 3);
        let node = Node8::from_board(&board, Color::Black);
        let mut tt = TranspositionTable::new(1);
        let result = solve(
            &node,
            WinRule::MostDiscs,
            Goal::Exact,
            &mut tt,
            &Limits::nodes(100),
            None,
        );
        assert!(
            matches!(result, Err(Unfinished { nodes, .. }) if nodes >= 100),
            "{result:?}"
        );
    }

    /// Stopped part way, a solve keeps the move its steps had proved best so far: solved
    /// exactly, that move reaches at least the score given with it.
    #[test]
    fn a_stopped_solve_keeps_the_move_it_had_proved() {
        let exact = |node: &Node8| {
            let limits = Limits::NONE;
            let mut tt = TranspositionTable::new(1);
            solve(
                node,
                WinRule::MostDiscs,
                Goal::Exact,
                &mut tt,
                &limits,
                None,
            )
            .unwrap()
            .score
        };
        let (mut proved, mut stops) = (0, 0);
        for seed in 0..6 {
            let node = Node8::from_board(&random_board(Shape::STANDARD, 14, seed), Color::Black);
            let options = SolveOptions::exact(WinRule::MostDiscs);
            let mut tt = TranspositionTable::new(1);
            let all = solve_from(&node, 0, &options, &mut tt, &Limits::NONE, None).unwrap();
            for nodes in (1..all.nodes).step_by((all.nodes / 40).max(1) as usize) {
                tt.clear();
                let limits = Limits::nodes(nodes);
                let Err(Unfinished { best_so_far, .. }) =
                    solve_from(&node, 0, &options, &mut tt, &limits, None)
                else {
                    panic!("seed {seed}: {nodes} nodes of {} finished", all.nodes);
                };
                stops += 1;
                if let Some((square, at_least)) = best_so_far {
                    let child = node.play(node.index(square).unwrap());
                    assert!(-exact(&child) >= at_least, "seed {seed}, {nodes} nodes");
                    proved += 1;
                }
            }
        }
        assert!(proved > 0 && proved < stops, "{proved} of {stops} stops");
    }

    /// Stopped anywhere (here at 1,500 points spread over its whole search), a
    /// ranking ends cleanly: a search stopped before it scored a move must not be used.
    #[test]
    fn a_stopped_ranking_ends_cleanly_wherever_it_stops() {
        let board = random_board(Shape::STANDARD, 12, 5);
        let node = Node8::from_board(&board, Color::Black);
        let mut tt = TranspositionTable::new(1);
        let eval = Evaluator::default();
        let (_, all) = rank(
            &node,
            &SolveOptions {
                eval,
                ..SolveOptions::exact(WinRule::MostDiscs)
            },
            1,
            &mut tt,
            &Limits::NONE,
            None,
        )
        .unwrap();
        for nodes in (1..all).step_by((all / 1500).max(1) as usize) {
            tt.clear();
            let result = rank(
                &node,
                &SolveOptions {
                    eval,
                    ..SolveOptions::exact(WinRule::MostDiscs)
                },
                1,
                &mut tt,
                &Limits::nodes(nodes),
                None,
            );
            assert!(
                matches!(result, Err(Unfinished { .. })),
                "{nodes}: {result:?}"
            );
        }
    }

    #[test]
    fn final_scores() {
        assert_eq!(final_score(WinRule::MostDiscs, 30, 20, 14), 24);
        assert_eq!(final_score(WinRule::MostDiscs, 20, 30, 14), -24);
        assert_eq!(final_score(WinRule::MostDiscs, 25, 25, 14), 0);
        assert_eq!(final_score(WinRule::FewestDiscs, 20, 30, 14), 10);
    }
}
