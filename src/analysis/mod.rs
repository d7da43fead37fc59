//! Analysis of a position for people and front ends: its best moves ranked with scores
//! ([`rank`]: exact where the solver reaches, else by the search) and its exact solution
//! ([`solve_setup`]). Nothing here prints: callers render the results.

pub mod explorer;
pub mod puzzle;

use std::time::{Duration, Instant};

use crate::engine::{
    Goal, Limits, Node, SearchOptions, Selectivity, Signal, SquareSet, TranspositionTable, endgame,
    endgame::SolveOptions,
    equivalent_squares,
    eval::{Evaluator, Score},
    final_score, mirrored_moves, on_node, search,
    search::plan::{ExactFirst, plan},
    search_time_estimate, solve_time_estimate,
};
use crate::{ByColor, Color, Setup, Square, Variant, WinRule};

/// Time given to a ranking when neither a depth nor a time is asked for.
pub const DEFAULT_TIME: Duration = Duration::from_secs(1);

/// What to rank, and how long it may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankOptions {
    /// The rule set.
    pub variant: Variant,
    /// A depth or a time.
    pub limits: Limits,
    /// How many moves to rank.
    pub count: usize,
    /// The transposition table's size in MiB; `None` sizes it to the work.
    pub hash: Option<usize>,
    /// What scores the search's leaves.
    pub eval: Evaluator,
    /// How selective the search is ([`Selectivity::NONE`]: full width, and exact solves).
    pub selectivity: Selectivity,
    /// Threads to search with.
    pub threads: usize,
}

impl RankOptions {
    /// The best `count` moves under `variant` in [`DEFAULT_TIME`].
    pub fn new(variant: Variant, count: usize) -> RankOptions {
        RankOptions {
            variant,
            limits: Limits::time(DEFAULT_TIME),
            count,
            hash: None,
            eval: Evaluator::default(),
            selectivity: Selectivity::DEFAULT,
            threads: 1,
        }
    }
}

/// One ranked move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HintLine {
    /// The move; `None` for a pass.
    pub square: Option<Square>,
    /// Its score for the side to move.
    pub score: Score,
    /// Whether the score is exact (whole discs).
    pub exact: bool,
    /// The line expected, starting with the move (`None` for passes).
    pub pv: Vec<Option<Square>>,
}

/// The best moves of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    /// Whose move it is; `None` when the game is over.
    pub to_move: Option<Color>,
    /// The ranked moves, best first (a single pass when the side to move must pass; none
    /// when the game is over).
    pub lines: Vec<HintLine>,
    /// The final score when the game is over, for the side due to move.
    pub final_score: Option<i32>,
    /// Depth of the search, in plies (the empty squares for exact solves).
    pub depth: u32,
    /// How selective it was ([`Selectivity::NONE`] for a full-width search or an exact
    /// solve).
    pub selectivity: Selectivity,
    /// Positions visited.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
    /// The evaluation that scored the search's positions, for people
    /// ([`Evaluator::describe`]).
    pub evaluation: String,
}

impl Hint {
    /// Whether every line is exact.
    pub fn exact(&self) -> bool {
        self.lines.iter().all(|line| line.exact)
    }
}

/// Ranks the best `options.count` moves of `setup` (its first mover to move), within
/// `options.limits`: exactly where the solver should finish in the time given (or the
/// depth asked for reaches the end of the game, or a search that deep would take longer
/// than a solve), else by the search. `signal` can stop it
/// and hears its node count; `depth` hears each depth reached.
pub fn rank(
    setup: &Setup,
    options: &RankOptions,
    signal: Option<&Signal>,
    depth: &mut dyn FnMut(u32),
) -> Hint {
    let mut tt = TranspositionTable::new(table_megabytes(setup, options));
    rank_in(setup, options, &mut tt, signal, depth)
}

/// [`rank`] in the table `tt`, kept between rankings by a front end that searches one
/// game move after move (what one search stored orders the next, as engines expect); clear
/// it for another game. A table of at least [`table_megabytes`] suits.
pub fn rank_in(
    setup: &Setup,
    options: &RankOptions,
    tt: &mut TranspositionTable,
    signal: Option<&Signal>,
    depth: &mut dyn FnMut(u32),
) -> Hint {
    let rule = setup.win_rule;
    tt.new_search();
    let mut hint = on_node!(
        variant = options.variant,
        &setup.board,
        setup.first_mover,
        |node| Ranking {
            options,
            rule,
            tt,
            signal,
            depth,
            start: Instant::now(),
            evaluation: options
                .eval
                .describe(options.variant, setup.board.shape(), rule),
        }
        .node(&node)
    );
    hint.to_move = hint.final_score.is_none().then_some(setup.first_mover);
    hint
}

/// The table size in MiB [`rank`] gives `setup` with `options`.
pub fn table_megabytes(setup: &Setup, options: &RankOptions) -> usize {
    on_node!(
        variant = options.variant,
        &setup.board,
        setup.first_mover,
        |node| megabytes(options, &node)
    )
}

/// The size in MiB of the table for a hint with `options` on `node`, sized to the work: to the time given; to
/// the search a depth implies (or the solve that replaces it, which is given a few times the
/// search's time), a small table for a shallow depth; to a solve when the depth reaches
/// the end of the game.
fn megabytes<N: Node>(options: &RankOptions, node: &N) -> usize {
    let empties = node.empties().len();
    options
        .hash
        .unwrap_or_else(|| match (options.limits.time, options.limits.depth) {
            (Some(time), _) => TranspositionTable::megabytes_for_time(time),
            (None, Some(depth)) if depth < empties => {
                let work = search_time_estimate(node, depth).saturating_mul(4);
                TranspositionTable::megabytes_for_time(work)
                    .min(TranspositionTable::megabytes_for_solve(empties))
            }
            (None, _) => TranspositionTable::megabytes_for_solve(empties),
        })
}

/// One ranking under way: what is asked, the rule, the table, the signal that stops it,
/// who hears of each depth finished, and when it began.
struct Ranking<'a> {
    options: &'a RankOptions,
    rule: WinRule,
    tt: &'a mut TranspositionTable,
    signal: Option<&'a Signal>,
    depth: &'a mut dyn FnMut(u32),
    start: Instant,
    /// What the hint says scored its positions.
    evaluation: String,
}

impl Ranking<'_> {
    /// The ranking of `node`: its moves, the pass and the reply after it when the pass is
    /// its only move, or the final score of a finished game.
    fn node<N: Node>(&mut self, node: &N) -> Hint {
        if !node.moves().is_empty() {
            return self.moves(node, self.options.count);
        }
        let Some(passed) = node.after_pass() else {
            return Hint {
                to_move: None,
                lines: Vec::new(),
                final_score: Some(node.final_score(self.rule)),
                depth: 0,
                selectivity: Selectivity::NONE,
                nodes: 0,
                elapsed: self.start.elapsed(),
                evaluation: self.evaluation.clone(),
            };
        };
        // The pass is the only move: rank the opponent's best reply after it.
        let mut after = self.moves(&passed, 1);
        let reply = after.lines.pop();
        let (score, exact, mut pv) = reply.map_or((Score(0), true, Vec::new()), |line| {
            (-line.score, line.exact, line.pv)
        });
        pv.insert(0, None);
        after.lines = vec![HintLine {
            square: None,
            score,
            exact,
            pv,
        }];
        after
    }

    /// Ranks the best `count` moves of `node`, which has some: exactly when the solver
    /// should finish in the time given (or the depth asked for reaches the end, or a search
    /// that deep would take longer than a solve: [`ExactFirst::WhenCheaper`]), else by the
    /// search.
    fn moves<N: Node>(&mut self, node: &N, count: usize) -> Hint {
        let (options, rule, signal, start) = (self.options, self.rule, self.signal, self.start);
        let (tt, depth) = (&mut *self.tt, &mut *self.depth);
        let empties = node.empties().len();
        let count = count.max(1);
        let mut search_options = SearchOptions {
            rule,
            limits: options.limits,
            ranked_moves: count,
            eval: options.eval,
            selectivity: options.selectivity,
            threads: options.threads,
        };
        let mut nodes = 0;
        if let Some(limits) = plan(node, ExactFirst::WhenCheaper, &search_options).exact {
            depth(empties);
            let solve_options = SolveOptions {
                eval: options.eval,
                threads: options.threads,
                ..SolveOptions::exact(rule)
            };
            match endgame::rank(node, &solve_options, count, tt, &limits, signal) {
                Ok((ranked, visited)) => {
                    let mut lines: Vec<HintLine> = ranked
                        .into_iter()
                        .map(|solved| HintLine {
                            square: Some(solved.square),
                            score: Score::from_discs(solved.score),
                            exact: true,
                            pv: Vec::new(),
                        })
                        .collect();
                    prove_lines(node, &mut lines, rule, tt, visited, signal);
                    return Hint {
                        to_move: None,
                        lines,
                        final_score: None,
                        depth: empties,
                        selectivity: Selectivity::NONE,
                        nodes: visited,
                        elapsed: start.elapsed(),
                        evaluation: self.evaluation.clone(),
                    };
                }
                Err(unfinished) => nodes = unfinished.nodes,
            }
        }
        if let Some(time) = options.limits.time {
            search_options.limits.time = Some(time.saturating_sub(start.elapsed()));
        }
        let report = search(node, &search_options, tt, signal, &mut |report| {
            depth(report.depth)
        });
        let mut lines: Vec<HintLine> = report
            .ranked
            .iter()
            .map(|ranked| HintLine {
                square: Some(ranked.square),
                score: Score(ranked.score),
                exact: report.exact,
                pv: ranked.pv.iter().copied().map(Some).collect(),
            })
            .collect();
        if report.exact {
            prove_lines(node, &mut lines, rule, tt, report.nodes, signal);
        }
        Hint {
            to_move: None,
            lines,
            final_score: None,
            depth: report.depth,
            selectivity: report.selectivity,
            nodes: nodes + report.nodes,
            elapsed: start.elapsed(),
            evaluation: self.evaluation.clone(),
        }
    }
}

/// Gives each of `lines` (exact ones, of `node`) the line of play the solver proves reaches
/// its score ([`endgame::proven_line`], passes included), with about the `work` (positions)
/// the ranking took: a line shown as exact must be playable to its score, which a walk of
/// the table does not promise. Proofs reuse the ranking's table, so most steps are cheap.
fn prove_lines<N: Node>(
    node: &N,
    lines: &mut [HintLine],
    rule: WinRule,
    tt: &TranspositionTable,
    work: u64,
    signal: Option<&Signal>,
) {
    let limits = Limits::nodes(work.max(PROOF_NODES));
    for line in lines {
        if let Some(square) = line.square {
            let score = line.score.whole_discs();
            line.pv = endgame::proven_line(node, square, score, rule, tt, &limits, signal);
        }
    }
}

/// The fewest positions each line's proof may visit, however fast the ranking was.
const PROOF_NODES: u64 = 1 << 20;

/// One solved position.
#[derive(Clone, Debug, PartialEq)]
pub struct Solved {
    /// Whether the solve finished within its time limit (if not, nothing else is known but
    /// the nodes and time spent).
    pub finished: bool,
    /// The best move; `None` when the side to move must pass or the game is over.
    pub best: Option<Square>,
    /// Whether the game is already over (no move for either side).
    pub game_over: bool,
    /// The exact final disc difference for the side to move (empties to the winner).
    pub score: i32,
    /// Positions searched.
    pub nodes: u64,
    /// Time taken, in seconds.
    pub seconds: f64,
    /// What the solve had proved: the score is in `lower..=upper` (both the score once it
    /// finished; `None` if a stopped solve proved nothing).
    pub proved: Option<(i32, i32)>,
    /// For a solve stopped after proving a lower bound: the move that reaches it.
    pub best_so_far: Option<(Square, i32)>,
}

impl Solved {
    /// The move in standard notation: `pass` when the side to move must pass, `none` when
    /// the game is over.
    pub fn move_text(&self) -> String {
        match self.best {
            Some(square) => square.to_string(),
            None if self.game_over => "none".into(),
            None => "pass".into(),
        }
    }

    /// `a2 +38 (24978642 nodes, 0.742 s)`; for a solve stopped early, `timeout (...)` and
    /// what it proved: `timeout (... s): proved -6 <= score <= +36; c2 reaches -6 or more`.
    pub fn text(&self) -> String {
        self.text_stopped_by("timeout")
    }

    /// [`Solved::text`], with `why` in place of `timeout` for a stopped solve
    /// (`interrupted` after Ctrl-C).
    pub fn text_stopped_by(&self, why: &str) -> String {
        if !self.finished {
            return format!(
                "{why} ({} nodes, {:.3} s): {}",
                self.nodes,
                self.seconds,
                self.proof_text()
            );
        }
        format!(
            "{} {:+} ({} nodes, {:.3} s)",
            self.move_text(),
            self.score,
            self.nodes,
            self.seconds
        )
    }
}

impl Solved {
    /// What a stopped solve proved, for people: `proved -6 <= score <= +36; c2 reaches -6
    /// or more`, or `nothing proved yet`.
    pub fn proof_text(&self) -> String {
        let mut text = match self.proved {
            Some((lower, upper)) => format!("proved {lower:+} <= score <= {upper:+}"),
            None => "nothing proved yet".to_owned(),
        };
        if let Some((square, at_least)) = self.best_so_far {
            text.push_str(&format!("; {square} reaches {at_least:+} or more"));
        }
        text
    }
}

/// One move of a game, judged against the best one the engine finds in its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveReview {
    /// Its number in the game, from 0 (passes are not moves).
    pub ply: usize,
    /// Who played it.
    pub side: Color,
    /// The move played.
    pub played: Square,
    /// The best move found.
    pub best: Square,
    /// The best move's score for the side that moved.
    pub best_score: Score,
    /// The played move's score, the same way.
    pub played_score: Score,
    /// What the played move lost against the best (never below 0: two searches may not
    /// agree to the last hundredth).
    pub loss: Score,
    /// Whether both scores are exact (the solver reached the end of the game).
    pub exact: bool,
}

impl MoveReview {
    /// How bad the move is.
    pub fn verdict(&self) -> Verdict {
        match self.loss {
            loss if loss >= Score::from_discs(BLUNDER) => Verdict::Blunder,
            loss if loss >= Score::from_discs(MISTAKE) => Verdict::Mistake,
            _ => Verdict::Fine,
        }
    }
}

/// Losses from this many discs up are mistakes ...
pub const MISTAKE: i32 = 4;
/// ... and from this many up, blunders.
pub const BLUNDER: i32 = 10;

/// How bad a move is: [`MISTAKE`] and [`BLUNDER`] discs lost at least.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Within a few discs of the best.
    Fine,
    /// Lost [`MISTAKE`] discs or more.
    Mistake,
    /// Lost [`BLUNDER`] discs or more.
    Blunder,
}

/// Reviews every move of the game `moves` played from `setup` under `variant`: each
/// position before a move is ranked (exactly where the solver reaches), and a move other
/// than the best gets its own score from the position after it. A time in `options` is
/// each move's: the two searches have half of it each, so a review takes at most the time
/// times the moves. `progress` hears how many moves are done. The moves must be legal (see
/// [`crate::Record::load`]); an illegal one ends the review there.
pub fn review_game(
    variant: Variant,
    setup: &Setup,
    moves: &[Square],
    options: &RankOptions,
    progress: &mut dyn FnMut(usize),
) -> Vec<MoveReview> {
    let mut game = crate::AnyGame::new(variant, *setup);
    let mut reviews = Vec::new();
    for (ply, &played) in moves.iter().enumerate() {
        let Some(side) = game.side_to_move() else {
            break;
        };
        let before = Setup {
            board: *game.board(),
            first_mover: side,
            win_rule: setup.win_rule,
        };
        let options = RankOptions {
            count: 1,
            variant,
            limits: Limits {
                time: options.limits.time.map(|time| time / 2),
                ..options.limits
            },
            ..*options
        };
        let hint = rank(&before, &options, None, &mut |_| {});
        let Some(line) = hint.lines.first() else {
            break;
        };
        let best = line
            .square
            .expect("a side that can move is not told to pass");
        if game.play(played).is_err() {
            break;
        }
        let (played_score, exact) = if played == best {
            (line.score, line.exact)
        } else {
            let (score, exact) = score_after(&game, variant, &options, side);
            (score, exact && line.exact)
        };
        reviews.push(MoveReview {
            ply,
            side,
            played,
            best,
            best_score: line.score,
            played_score,
            loss: (line.score - played_score).max(Score(0)),
            exact,
        });
        progress(ply + 1);
    }
    reviews
}

/// The score of the position `game` is in for `mover`, who just moved: the final score if
/// the game is over, else the ranking's best score for the side to move (negated when that
/// is the other side).
fn score_after(
    game: &crate::AnyGame,
    variant: Variant,
    options: &RankOptions,
    mover: Color,
) -> (Score, bool) {
    let board = game.board();
    let Some(side) = game.side_to_move() else {
        let (mine, theirs) = (board.count(mover), board.count(mover.opponent()));
        let empties = board.empty_squares().count();
        return (
            Score::from_discs(final_score(game.setup().win_rule, mine, theirs, empties)),
            true,
        );
    };
    let after = Setup {
        board: *board,
        first_mover: side,
        win_rule: game.setup().win_rule,
    };
    let hint = rank(
        &after,
        &RankOptions {
            variant,
            ..*options
        },
        None,
        &mut |_| {},
    );
    let line = hint
        .lines
        .first()
        .expect("a side that can move has a best move");
    let score = if side == mover {
        line.score
    } else {
        -line.score
    };
    (score, line.exact)
}

/// Each side's total loss, mistakes and worst move in `reviews`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SideSummary {
    /// Moves reviewed.
    pub moves: usize,
    /// Their losses added up.
    pub total_loss: Score,
    /// Moves that lost [`MISTAKE`] discs or more (blunders included).
    pub mistakes: usize,
    /// Moves that lost [`BLUNDER`] discs or more.
    pub blunders: usize,
    /// The move that lost the most, if any lost anything.
    pub worst: Option<MoveReview>,
}

/// Each side's summary.
pub fn summarize(reviews: &[MoveReview]) -> ByColor<SideSummary> {
    let mut sides = ByColor::<SideSummary>::default();
    for review in reviews {
        let summary = &mut sides[review.side];
        summary.moves += 1;
        summary.total_loss = Score(summary.total_loss.0 + review.loss.0);
        match review.verdict() {
            Verdict::Blunder => {
                summary.mistakes += 1;
                summary.blunders += 1;
            }
            Verdict::Mistake => summary.mistakes += 1,
            Verdict::Fine => {}
        }
        if review.loss > Score(0)
            && summary
                .worst
                .as_ref()
                .is_none_or(|worst| review.loss > worst.loss)
        {
            summary.worst = Some(review.clone());
        }
    }
    sides
}

/// Solves `setup` (its first mover to move, its win rule) under `variant`, within `limits`,
/// as `how` says (the evaluation ordering moves far from the end, the threads; its rule is
/// replaced by the setup's); `signal` can stop it and hears its node count.
pub fn solve_setup(
    variant: Variant,
    setup: &Setup,
    limits: &Limits,
    tt: &mut TranspositionTable,
    signal: Option<&Signal>,
    how: &SolveOptions,
) -> Solved {
    let options = SolveOptions {
        rule: setup.win_rule,
        ..*how
    };
    tt.clear();
    on_node!(variant = variant, &setup.board, setup.first_mover, |node| {
        solve_node(&node, &options, limits, tt, signal)
    })
}

fn solve_node<N: Node>(
    node: &N,
    options: &SolveOptions,
    limits: &Limits,
    tt: &mut TranspositionTable,
    signal: Option<&Signal>,
) -> Solved {
    let start = Instant::now();
    let solution = endgame::solve_with(node, Goal::Exact, options, tt, limits, signal);
    let game_over = node.is_game_over();
    let seconds = start.elapsed().as_secs_f64();
    match solution {
        Ok(solution) => Solved {
            finished: true,
            best: solution.best,
            game_over,
            score: solution.score,
            nodes: solution.nodes,
            seconds,
            proved: Some((solution.score, solution.score)),
            best_so_far: None,
        },
        Err(unfinished) => Solved {
            finished: false,
            best: None,
            game_over,
            score: 0,
            nodes: unfinished.nodes,
            seconds,
            proved: unfinished.proved,
            best_so_far: unfinished.best_so_far,
        },
    }
}

/// Every best move of a position, exactly: what the table of solved boards lists.
#[derive(Clone, Debug, PartialEq)]
pub struct AllBest {
    /// The exact final disc difference for the side to move.
    pub score: i32,
    /// Every move that keeps it, in order (empty when the side to move must pass or the
    /// game is over).
    pub moves: Vec<Square>,
    /// Positions searched.
    pub nodes: u64,
    /// Time taken, in seconds.
    pub seconds: f64,
}

/// Solves `setup` and finds every move that keeps its exact score: one solve, then one
/// null-window solve for each move not yet known to be best or worse. Moves a symmetry of
/// the position makes equivalent are solved once.
///
/// # Errors
/// The [`Unfinished`](endgame::Unfinished) of the step that `limits` (or `signal`)
/// stopped, with the nodes of all the steps.
pub fn solve_all_best(
    variant: Variant,
    setup: &Setup,
    limits: &Limits,
    tt: &mut TranspositionTable,
    signal: Option<&Signal>,
    how: &SolveOptions,
) -> Result<AllBest, endgame::Unfinished> {
    let options = SolveOptions {
        rule: setup.win_rule,
        ..*how
    };
    tt.clear();
    let start = Instant::now();
    on_node!(variant = variant, &setup.board, setup.first_mover, |node| {
        let solution = endgame::solve_with(&node, Goal::Exact, &options, tt, limits, signal)?;
        let mut nodes = solution.nodes;
        let mut best = Vec::new();
        if let Some(first) = solution.best {
            best = equivalent_squares(&node, first);
            let mut moves = node.moves() & !mirrored_moves(&node);
            while let Some(mv) = moves.pop() {
                let square = node.square(mv);
                if best.contains(&square) {
                    continue;
                }
                // The move keeps the score when the reply cannot beat -score.
                let child = node.play(mv);
                let (beaten, searched) =
                    endgame::reaches(&child, 1 - solution.score, &options, tt, limits, signal)
                        .map_err(|unfinished| endgame::Unfinished {
                            nodes: nodes + unfinished.nodes,
                            ..unfinished
                        })?;
                nodes += searched;
                if !beaten {
                    best.extend(equivalent_squares(&node, square));
                }
            }
            best.sort();
            best.dedup();
        }
        Ok(AllBest {
            score: solution.score,
            moves: best,
            nodes,
            seconds: start.elapsed().as_secs_f64(),
        })
    })
}

/// A rough estimate of how long an exact solve of `setup` takes here (see
/// `solve_time_estimate`), for warning people before one that may never end.
pub fn solve_time(variant: Variant, setup: &Setup) -> Duration {
    on_node!(variant = variant, &setup.board, setup.first_mover, |node| {
        solve_time_estimate(&node)
    })
}

#[cfg(test)]
mod tests;
