//! Midgame search: iterative deepening over negamax alpha-beta with principal variation
//! search, the transposition table, move ordering and, at a selectivity below 100 %,
//! Multi-ProbCut, within limits given as data. It never prints: each finished iteration is
//! reported through a callback.

use std::time::{Duration, Instant};

use super::{
    super::{
        Index, Node, Selectivity, SquareSet,
        eval::{DISC, Evaluator},
        limits::{Limits, Signal, Stopper},
        tt::{Bound, Entry, TranspositionTable},
    },
    parallel::{self, Helpers},
    probcut::{self, CutModel},
    pvs::{self, Recurse, Strategy},
};
use crate::{Square, WinRule};

/// From this many plies left, threads of a parallel search tell each other which children
/// they are searching.
const SHARED_DEPTH: u32 = 4;

/// Larger than any score: bounds the search window.
const INFINITY: i32 = 1_000_000;

/// What one search is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// How the game is won.
    pub(crate) rule: WinRule,
    /// When to stop.
    pub(crate) limits: Limits,
    /// How many root moves get an exact score (the others only a bound): 1 to play, more
    /// to list the best moves.
    pub(crate) ranked_moves: usize,
    /// What scores the leaves.
    pub(crate) eval: Evaluator,
    /// How sure a selective cut must be ([`Selectivity::NONE`]: full width). Selective cuts
    /// are made only where a model was fitted for the evaluation (see
    /// [`probcut::model_for`]).
    pub(crate) selectivity: Selectivity,
    /// Threads to search with (Lazy SMP: helpers beside the calling thread, sharing the
    /// table); 1 searches on the calling thread alone.
    pub(crate) threads: usize,
}

impl SearchOptions {
    /// A full-width search for one best move with `eval`, within `limits`.
    pub fn new(rule: WinRule, limits: Limits, eval: Evaluator) -> SearchOptions {
        SearchOptions {
            rule,
            limits,
            ranked_moves: 1,
            eval,
            selectivity: Selectivity::NONE,
            threads: 1,
        }
    }
}

/// A root move and its score.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankedMove {
    /// The move.
    pub(crate) square: Square,
    /// Its score for the side to move, in evaluation units ([`DISC`] per disc).
    pub(crate) score: i32,
    /// The line expected after it, starting with the move itself.
    pub(crate) pv: Vec<Square>,
}

/// The state of a search after an iteration: also the final result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchReport {
    /// Depth of the last finished iteration, in plies.
    pub depth: u32,
    /// How selective it was: [`Selectivity::NONE`] where the search was full width (always
    /// where no cut model applies).
    pub selectivity: Selectivity,
    /// The best move, or `None` when the side to move must pass or the game is over.
    pub best: Option<Square>,
    /// Its score for the side to move, in evaluation units ([`DISC`] per disc).
    pub score: i32,
    /// Whether the score is exact: the iteration saw every line to the end of the game, at
    /// full width.
    pub exact: bool,
    /// The expected line, starting with the best move.
    pub pv: Vec<Square>,
    /// The best root moves, best first, as many as asked for (fewer if fewer are legal).
    pub ranked: Vec<RankedMove>,
    /// Positions visited so far.
    pub nodes: u64,
    /// Time taken so far.
    pub elapsed: Duration,
}

/// Searches `node` deeper and deeper until `options.limits` (or `signal`) ends it, reporting
/// each finished iteration to `progress`; returns the last finished one. At least the
/// first iteration always finishes, so a legal move is always found when there is one.
///
/// With `options.threads` above one, helper threads search beside this one (Lazy
/// SMP); limits apply to this thread, whose iterations are reported, and the
/// node counts include the helpers'.
pub(crate) fn search<N: Node>(
    node: &N,
    options: &SearchOptions,
    tt: &mut TranspositionTable,
    signal: Option<&Signal>,
    progress: &mut dyn FnMut(&SearchReport),
) -> SearchReport {
    tt.new_search();
    let tt = &*tt;
    let (mut report, helper_nodes) = parallel::lazy_smp(
        options.threads,
        |helper, stop| {
            // Half the helpers a ply ahead of the main thread: their deeper results are
            // in the table when it gets there.
            let helper_options = SearchOptions {
                limits: Limits {
                    depth: options.limits.depth,
                    ..Limits::NONE
                },
                ranked_moves: 1,
                ..*options
            };
            let lead = (helper % 2) as u32;
            iterate(
                node,
                &helper_options,
                tt,
                Some(stop),
                None,
                lead,
                &mut |_| {},
            )
            .nodes
        },
        |helpers| iterate(node, options, tt, signal, Some(helpers), 0, progress),
    );
    report.nodes += helper_nodes;
    report
}

/// Iterative deepening on one thread: [`search`] without the helpers; each iteration
/// `lead` plies deeper than its number. The reports count `helpers`' nodes too.
fn iterate<N: Node>(
    node: &N,
    options: &SearchOptions,
    tt: &TranspositionTable,
    signal: Option<&Signal>,
    helpers: Option<&Helpers>,
    lead: u32,
    progress: &mut dyn FnMut(&SearchReport),
) -> SearchReport {
    let start = Instant::now();
    let empties = node.empties().len();
    let max_depth = options
        .limits
        .depth
        .unwrap_or(u32::MAX)
        .clamp(1, empties.max(1));
    let helper_nodes = || helpers.map_or(0, Helpers::nodes);
    let mut stopper = Stopper::new(&options.limits, signal);
    let mut moves = Vec::with_capacity(512);
    let mut searcher = Searcher::new(options, node, tt, &mut stopper, &mut moves);
    let selectivity = searcher.selectivity();
    let mut report = SearchReport {
        depth: 0,
        selectivity,
        best: None,
        score: 0,
        exact: false,
        pv: Vec::new(),
        ranked: Vec::new(),
        nodes: 0,
        elapsed: Duration::ZERO,
    };
    for depth in (1..=max_depth).map(|depth| (depth + lead).min(max_depth)) {
        if depth == report.depth {
            break; // a helper ahead of the main thread reached the last depth
        }
        let Some(ranked) = searcher.root(node, depth) else {
            break; // stopped: keep the last finished iteration
        };
        report.depth = depth;
        // The root's children are searched a ply less deep: only from there can a cut be made.
        report.selectivity = if depth > probcut::MIDGAME_MIN_DEPTH {
            selectivity
        } else {
            Selectivity::NONE
        };
        report.exact = depth >= empties && report.selectivity.is_none();
        report.nodes = searcher.stopper.nodes() + helper_nodes();
        report.elapsed = start.elapsed();
        match ranked.first() {
            Some(first) => {
                report.best = Some(first.square);
                report.score = first.score;
                report.pv.clone_from(&first.pv);
            }
            None => {
                report.score = searcher.pass_score(node, depth);
            }
        }
        report.ranked = ranked;
        progress(&report);
        if report.exact || report.best.is_none() {
            break;
        }
    }
    report.nodes = stopper.nodes();
    report.elapsed = start.elapsed();
    report
}

/// A midgame search in progress; also what the solver uses for its selective cuts'
/// predictions (on its own table, stopper and move stack).
pub(super) struct Searcher<'a, 's, N: Node> {
    options: SearchOptions,
    /// The cut model, for a selective search where one applies.
    cuts: Option<&'static CutModel>,
    tt: &'a TranspositionTable,
    stopper: &'a mut Stopper<'s>,
    /// Move lists of the nodes on the current path, one after the other.
    moves: &'a mut Vec<(i32, Index<N>)>,
}

impl<'a, 's, N: Node> Searcher<'a, 's, N> {
    /// A search with `options` on positions like `node`.
    pub(super) fn new(
        options: &SearchOptions,
        node: &N,
        tt: &'a TranspositionTable,
        stopper: &'a mut Stopper<'s>,
        moves: &'a mut Vec<(i32, Index<N>)>,
    ) -> Searcher<'a, 's, N> {
        let mut options = *options;
        let cuts = if options.selectivity.is_none() {
            None
        } else {
            probcut::model_for(options.eval, node, options.rule)
        };
        if cuts.is_none() {
            options.selectivity = Selectivity::NONE;
        }
        Searcher {
            options,
            cuts,
            tt,
            stopper,
            moves,
        }
    }

    /// How selective the search really is: full width where no model applies.
    pub(super) fn selectivity(&self) -> Selectivity {
        self.options.selectivity
    }
}

impl<N: Node> Searcher<'_, '_, N> {
    /// One iteration at the root: the ranked moves, or `None` if it was stopped. Depth 1
    /// ignores the limits, so that a move is always found.
    fn root(&mut self, node: &N, depth: u32) -> Option<Vec<RankedMove>> {
        let moves = node.moves();
        if moves.is_empty() {
            return Some(Vec::new());
        }
        if depth == 1 {
            return Some(self.rank_statically(node, moves));
        }
        let hint = self.tt.probe(node.hash()).and_then(|entry| entry.best);
        let start = self.order(node, moves, hint, depth);
        let wanted = self.options.ranked_moves.max(1);
        let mut ranked: Vec<RankedMove> = Vec::new();
        for i in start..self.moves.len() {
            let mv = self.moves[i].1;
            let child = node.play(mv);
            // The moves ranked so far must be beaten to enter the list.
            let floor = if ranked.len() < wanted {
                -INFINITY
            } else {
                ranked[wanted - 1].score
            };
            let first = ranked.len() < wanted;
            let score = pvs::child_score(
                self,
                &child,
                floor,
                INFINITY,
                depth - 1,
                first,
                Self::search,
            );
            if self.stopper.stopped() {
                self.moves.truncate(start);
                return None;
            }
            if ranked.len() < wanted || score > floor {
                let square = node.square(mv);
                let mut pv = vec![square];
                pvs::follow_table(self.tt, &child, &mut pv, depth as usize, |_| None);
                ranked.push(RankedMove { square, score, pv });
                ranked.sort_by_key(|m| -m.score);
                ranked.truncate(wanted);
            }
        }
        self.moves.truncate(start);
        if let Some(best) = ranked.first() {
            self.tt.store(
                node.hash(),
                best.score,
                self.stored(depth),
                Bound::Exact,
                Some(best.square),
            );
        }
        Some(ranked)
    }

    /// Depth 1: every move scored by the evaluation of the position it leads to.
    fn rank_statically(&mut self, node: &N, mut moves: N::Set) -> Vec<RankedMove> {
        let mut ranked = Vec::new();
        while let Some(mv) = moves.pop() {
            let child = node.play(mv);
            let square = node.square(mv);
            ranked.push(RankedMove {
                square,
                score: -self.static_score(&child),
                pv: vec![square],
            });
        }
        ranked.sort_by_key(|m| -m.score);
        ranked.truncate(self.options.ranked_moves.max(1));
        ranked
    }

    /// The evaluation, or the final score if the game is over (passing if need be).
    fn static_score(&self, node: &N) -> i32 {
        if node.moves().is_empty() {
            return match node.after_pass() {
                Some(passed) => -self.options.eval.evaluate(&passed, self.options.rule),
                None => self.game_over(node),
            };
        }
        self.options.eval.evaluate(node, self.options.rule)
    }

    /// The score of a root position whose side to move must pass.
    fn pass_score(&mut self, node: &N, depth: u32) -> i32 {
        -self.search(&node.pass(), -INFINITY, INFINITY, depth)
    }

    /// The recursion, in the copy compiled for this processor (see [`crate::engine::perft_nodes`]:
    /// the evaluations count discs and moves on every leaf, one instruction with `popcnt`,
    /// a dozen without).
    pub(super) fn search(&mut self, node: &N, alpha: i32, beta: i32, depth: u32) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if super::super::fast_cpu() {
            // SAFETY: the processor has every feature `search_fast` is compiled for.
            return unsafe { self.search_fast(node, alpha, beta, depth) };
        }
        self.search_portable(node, alpha, beta, depth)
    }

    fn search_portable(&mut self, node: &N, alpha: i32, beta: i32, depth: u32) -> i32 {
        self.search_with(node, alpha, beta, depth, Self::search_portable)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    fn search_fast(&mut self, node: &N, alpha: i32, beta: i32, depth: u32) -> i32 {
        self.search_with(node, alpha, beta, depth, |s: &mut Self, n: &N, a, b, d| {
            s.search_fast(n, a, b, d)
        })
    }

    #[inline(always)]
    fn search_with(
        &mut self,
        node: &N,
        alpha: i32,
        beta: i32,
        depth: u32,
        recurse: impl pvs::Recurse<Self, N>,
    ) -> i32 {
        if self.stopper.tick() {
            return 0; // discarded by the caller
        }
        pvs::search_node(self, node, alpha, beta, depth, recurse)
    }
}

impl<N: Node> Strategy<N> for Searcher<'_, '_, N> {
    #[inline(always)]
    fn move_stack(&mut self) -> &mut Vec<(i32, Index<N>)> {
        self.moves
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
        DISC * node.final_score(self.options.rule)
    }

    /// Not `bool::then` with a closure: the closure is compiled apart, without the
    /// processor features of [`Self::search_fast`], and the evaluation counted its discs
    /// and moves with a dozen instructions each instead of `popcnt` (15 % of a 100 ms
    /// search's time on a Zen 4).
    #[inline(always)]
    fn horizon(&self, node: &N, moves: N::Set, depth: u32) -> Option<i32> {
        if depth == 0 {
            Some(
                self.options
                    .eval
                    .evaluate_knowing(node, moves, self.options.rule),
            )
        } else {
            None
        }
    }

    /// Entries as deep and as sure as the search, and the solver's (in discs) at any depth.
    #[inline(always)]
    fn known(&self, entry: &Entry, depth: u32) -> Option<i32> {
        if entry.selectivity < self.options.selectivity {
            None
        } else if entry.depth == Entry::SOLVED {
            Some(i32::from(entry.score) * DISC)
        } else {
            (u32::from(entry.depth) >= depth).then_some(i32::from(entry.score))
        }
    }

    #[inline(always)]
    fn stored(&self, depth: u32) -> (u8, Selectivity) {
        (depth.min(254) as u8, self.options.selectivity)
    }

    /// Multi-ProbCut: from [`probcut::MIDGAME_MIN_DEPTH`] up, a null-window search half as
    /// deep tells whether the deep one would fail high (or low) with the selectivity's
    /// confidence.
    #[inline(always)]
    fn probable_cut(
        &mut self,
        node: &N,
        alpha: i32,
        beta: i32,
        depth: u32,
        recurse: impl Recurse<Self, N>,
    ) -> Option<i32> {
        let model = self.cuts?;
        if depth < probcut::MIDGAME_MIN_DEPTH {
            return None;
        }
        let error = model.midgame(depth, node.empties().len());
        let (high, low) = probcut::cut_bounds(self.options.selectivity, error, alpha, beta)?;
        let shallow = probcut::shallow_depth(depth);
        if beta < INFINITY / 2 && high < INFINITY / 2 {
            let score = recurse(self, node, high - 1, high, shallow);
            if score >= high && !self.stopper.stopped() {
                return Some(beta);
            }
        }
        if alpha > -INFINITY / 2 && low > -INFINITY / 2 {
            let score = recurse(self, node, low, low + 1, shallow);
            if score <= low && !self.stopper.stopped() {
                return Some(alpha);
            }
        }
        None
    }

    #[inline(always)]
    fn refuted_by_child(&mut self, _: &N, _: N::Set, _: i32, _: u32) -> Option<i32> {
        None
    }

    /// Nodes four plies or more from the horizon, when threads share the search.
    #[inline(always)]
    fn shares_work(&self, depth: u32) -> bool {
        self.options.threads > 1 && depth >= SHARED_DEPTH
    }

    /// Pushes `moves` sorted best first; returns where they start. The table's move first;
    /// then, away from the leaves, moves leaving the opponent the fewest replies, corners
    /// early and squares next to empty corners late.
    #[inline(always)]
    fn order(&mut self, node: &N, mut moves: N::Set, hint: Option<Square>, depth: u32) -> usize {
        let start = self.moves.len();
        let layout = node.layout();
        let empty = node.empties();
        let (mut corners, mut risky) = (N::Set::EMPTY, N::Set::EMPTY);
        for corner in &layout.corners {
            corners = corners | corner.corner;
            if !(corner.corner & empty).is_empty() {
                risky = risky | corner.x_square | corner.c_squares;
            }
        }
        let hint = hint.and_then(|square| node.index(square));
        while let Some(mv) = moves.pop() {
            // The table's move goes first whatever its replies.
            let first = Some(mv) == hint;
            let mut key = if first { i32::MIN } else { 0 };
            if depth >= 2 {
                let child = node.play(mv);
                // Its table bucket, fetched while the other moves are ordered.
                self.tt.prefetch(child.hash());
                if !first {
                    let replies = child.moves();
                    let weighted = (replies.len() + (replies & corners).len()) as i32;
                    key = weighted * 16 - if corners.contains(mv) { 40 } else { 0 }
                        + if risky.contains(mv) { 24 } else { 0 };
                }
            }
            self.moves.push((key, mv));
        }
        if depth >= 2 {
            self.moves[start..].sort_unstable_by_key(|&(key, _)| key);
        }
        start
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Board, Color, Full, Shape, Simple,
        engine::{GridNode, Node8},
    };

    fn options(depth: u32) -> SearchOptions {
        SearchOptions::new(WinRule::MostDiscs, Limits::depth(depth), Evaluator::Classic)
    }

    /// With helpers, the main thread still reports each of its iterations, finds a legal
    /// move, counts the helpers' nodes, and an exact search is as exact.
    #[test]
    fn helper_threads_leave_the_reports_whole() {
        let node = Node8::from_board(&Board::standard(Shape::STANDARD), Color::Black);
        let mut tt = TranspositionTable::new(4);
        let mut depths = Vec::new();
        let two = SearchOptions {
            threads: 2,
            ..options(7)
        };
        let report = search(&node, &two, &mut tt, None, &mut |r| depths.push(r.depth));
        assert_eq!(depths, [1, 2, 3, 4, 5, 6, 7]);
        assert!(
            node.moves()
                .contains(node.index(report.best.unwrap()).unwrap())
        );
        let alone = search(
            &node,
            &options(7),
            &mut TranspositionTable::new(4),
            None,
            &mut |_| {},
        );
        assert!(report.nodes > 0 && alone.nodes > 0);

        // Ten empty squares in a fixed pattern.
        let mut board = Board::standard(Shape::STANDARD);
        for (i, square) in Shape::STANDARD.squares().enumerate() {
            if i % 7 != 3 && i > 10 {
                let color = if i % 3 == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                board.set(square, Some(color));
            }
        }
        let node = Node8::from_board(&board, Color::Black);
        let exact = [1, 3].map(|threads| {
            let deep = SearchOptions {
                threads,
                ..options(64)
            };
            search(
                &node,
                &deep,
                &mut TranspositionTable::new(4),
                None,
                &mut |_| {},
            )
        });
        assert!(exact[0].exact && exact[1].exact);
        assert_eq!(exact[0].score, exact[1].score);
    }

    #[test]
    fn reports_every_iteration_and_a_legal_move() {
        let node = Node8::from_board(&Board::standard(Shape::STANDARD), Color::Black);
        let mut tt = TranspositionTable::new(4);
        let mut depths = Vec::new();
        let report = search(&node, &options(5), &mut tt, None, &mut |r| {
            depths.push(r.depth)
        });
        assert_eq!(depths, [1, 2, 3, 4, 5]);
        let best = report.best.unwrap();
        assert!(node.moves().contains(node.index(best).unwrap()));
        assert_eq!(report.pv.first(), Some(&best));
        assert!(!report.exact);
    }

    #[test]
    fn ranks_as_many_moves_as_asked() {
        let node = GridNode::<Simple>::from_board(
            &Board::standard(Shape::new(6, 6).unwrap()),
            Color::White,
        );
        let mut tt = TranspositionTable::new(4);
        let options = SearchOptions {
            ranked_moves: 3,
            ..options(3)
        };
        let report = search(&node, &options, &mut tt, None, &mut |_| {});
        assert_eq!(report.ranked.len(), 3);
        assert!(report.ranked.windows(2).all(|w| w[0].score >= w[1].score));
        assert_eq!(report.ranked[0].square, report.best.unwrap());
    }

    #[test]
    fn always_finishes_the_first_iteration() {
        let node = GridNode::<Full>::from_board(
            &Board::standard(Shape::new(16, 16).unwrap()),
            Color::Black,
        );
        let mut tt = TranspositionTable::new(4);
        let one_node = SearchOptions {
            limits: Limits::nodes(1),
            ..options(10)
        };
        let report = search(&node, &one_node, &mut tt, None, &mut |_| {});
        assert_eq!(report.depth, 1);
        assert!(report.best.is_some());
        let signal = Signal::new();
        signal.stop();
        let report = search(&node, &options(10), &mut tt, Some(&signal), &mut |_| {});
        assert_eq!(
            report.depth, 1,
            "a search stopped before it starts still has a move"
        );
        assert!(report.best.is_some());
    }
}
