//! The search the engine's users run: the midgame search's iterations and, once they come
//! within [`SOLVE_AHEAD`] plies of the end of a selective search (where [`plan`] says so),
//! solves of the game at rising confidence (`22@73%`, `22@87%`, … to the exact score), as
//! Edax and the strong engines search: near the end a selective solve sees further in the
//! same time than a midgame iteration, which still has to evaluate the positions it stops at.
//!
//! [`SOLVE_AHEAD`]: super::plan::SOLVE_AHEAD

use std::time::Instant;

use super::{
    super::{Limits, Node, Selectivity, SquareSet, TranspositionTable, eval::DISC, limits::Signal},
    endgame::{self, SolveOptions, Unfinished},
    midgame::{self, RankedMove, SearchOptions, SearchReport},
    plan::{ExactFirst, plan},
    probcut,
};

/// The midgame search's iterations (see its guarantees: each finished one reported to
/// `progress`, the last one returned, a legal move always found when there is one).
///
/// A selective search (where a cut model applies) that may look to the end of the game
/// (no depth limit short of it) stops its midgame iterations 8 plies short of the end (as
/// the engine's one decision between searching and solving says), then solves at each level
/// of selectivity from its own to the exact score, each within what is left of the limits;
/// each finished solve is reported as an iteration to the end (its depth the number of
/// empties). A full-width search only
/// deepens: its last iteration is the exact solve's work done by the midgame search.
///
/// With `options.threads` above one, helper threads search beside this one (Lazy SMP);
/// the node counts include the helpers'.
///
/// Each solve starts from the step before's score (the last midgame iteration's, then each
/// level's), sparing the short search that would otherwise make its first guess.
///
/// A solve stopped by the limits may still have proved, at its confidence, that another
/// move reaches a score the last finished step's move does not
/// ([`Unfinished::best_so_far`]): the search then returns that move (with the score proved
/// for it, a lower bound), though its report keeps the depth and selectivity of the last
/// finished step and `progress` never hears of it. For one best move only: a ranking of
/// several keeps the last finished step's. On the 20-24-empty positions of `train measure`
/// at a million nodes a move this took the mean loss from 0.446 to 0.402 discs a move.
pub fn search<N: Node>(
    node: &N,
    options: &SearchOptions,
    tt: &mut TranspositionTable,
    signal: Option<&Signal>,
    progress: &mut dyn FnMut(&SearchReport),
) -> SearchReport {
    let Some(last_iteration) = plan(node, ExactFirst::Never, options).solve_after else {
        return midgame::search(node, options, tt, signal, progress);
    };
    let empties = node.empties().len();
    let start = Instant::now();
    let midgame_options = SearchOptions {
        limits: Limits {
            depth: Some(last_iteration),
            ..options.limits
        },
        ..*options
    };
    let mut report = midgame::search(node, &midgame_options, tt, signal, progress);
    if report.depth < last_iteration || report.best.is_none() || report.exact {
        return report; // stopped, or a pass, or already the end
    }
    // Below the solver's first cuts a selective solve is the exact one.
    let first_level = if empties >= probcut::ENDGAME_MIN_EMPTIES {
        options.selectivity
    } else {
        Selectivity::NONE
    };
    for selectivity in Selectivity::ALL.into_iter().filter(|&l| l >= first_level) {
        let limits = Limits {
            depth: None,
            nodes: options
                .limits
                .nodes
                .map(|nodes| nodes.saturating_sub(report.nodes).max(1)),
            time: options
                .limits
                .time
                .map(|time| time.saturating_sub(start.elapsed())),
        };
        let solve_options = SolveOptions {
            rule: options.rule,
            eval: options.eval,
            selectivity,
            threads: options.threads,
        };
        match solve(
            node,
            &solve_options,
            options.ranked_moves,
            report.score,
            tt,
            &limits,
            signal,
        ) {
            Ok((ranked, nodes)) => {
                report.nodes += nodes;
                report.depth = empties;
                report.selectivity = selectivity;
                report.exact = selectivity.is_none();
                if let Some(first) = ranked.first() {
                    report.best = Some(first.square);
                    report.score = first.score;
                    report.pv.clone_from(&first.pv);
                }
                report.ranked = ranked;
                report.elapsed = start.elapsed();
                progress(&report);
            }
            Err(Unfinished {
                nodes, best_so_far, ..
            }) => {
                report.nodes += nodes;
                if let Some((square, at_least)) = best_so_far
                    && options.ranked_moves <= 1
                    && report.best != Some(square)
                {
                    // Not a finished step (so not reported as one), but its move beat the
                    // last step's at a higher confidence: the better move to play. (The
                    // same move keeps the finished step's score: a bound proved for it
                    // says less.)
                    report.best = Some(square);
                    report.score = at_least * DISC;
                    report.pv = endgame::line(tt, node, options.rule, square);
                    report.ranked = vec![RankedMove {
                        square,
                        score: report.score,
                        pv: report.pv.clone(),
                    }];
                }
                break;
            }
        }
    }
    report.elapsed = start.elapsed();
    report
}

/// The best `count` moves of `node` solved with `options`, scored in evaluation units, and
/// the nodes visited: one solve for the best move alone (from `guess`, the last step's
/// score), else a ranking of every move.
fn solve<N: Node>(
    node: &N,
    options: &SolveOptions,
    count: usize,
    guess: i32,
    tt: &mut TranspositionTable,
    limits: &Limits,
    signal: Option<&Signal>,
) -> Result<(Vec<RankedMove>, u64), Unfinished> {
    if count > 1 {
        let (solved, nodes) = endgame::rank(node, options, count, tt, limits, signal)?;
        let ranked = solved
            .into_iter()
            .map(|solved| RankedMove {
                square: solved.square,
                score: solved.score * DISC,
                pv: solved.pv,
            })
            .collect();
        return Ok((ranked, nodes));
    }
    let solution = endgame::solve_from(node, guess, options, tt, limits, signal)?;
    let ranked = solution
        .best
        .map(|square| RankedMove {
            square,
            score: solution.score * DISC,
            pv: endgame::line(tt, node, options.rule, square),
        })
        .into_iter()
        .collect();
    Ok((ranked, solution.nodes))
}

#[cfg(test)]
mod tests {
    use super::{super::plan::SOLVE_AHEAD, *};
    use crate::{
        Board, Color, Shape, Square, WinRule,
        engine::{Index, Node8, SquareSet, eval::Evaluator},
    };

    /// The position `empties` squares from the end of a game of pseudo-random moves (by
    /// `seed`) from the start.
    fn position(empties: u32, seed: u64) -> Node8 {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let start = Node8::from_board(&Board::standard(Shape::STANDARD), Color::Black);
        let mut node = start;
        while node.empties().len() > empties {
            let mut moves = node.moves();
            if moves.is_empty() {
                // A pass, or a game over too soon: start again.
                node = node.after_pass().unwrap_or(start);
                continue;
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut pick = state % u64::from(moves.len());
            let mut mv: Index<Node8> = moves.pop().unwrap();
            while pick > 0 {
                mv = moves.pop().unwrap();
                pick -= 1;
            }
            node = node.play(mv);
        }
        node
    }

    fn selective(limits: Limits) -> SearchOptions {
        SearchOptions {
            selectivity: Selectivity::MOST,
            ..SearchOptions::new(WinRule::MostDiscs, limits, Evaluator::default())
        }
    }

    /// A selective search of `node` within `limits` in a table of its own, and the last
    /// finished step it reported (`None` if none finished).
    fn stopped_search(node: &Node8, limits: Limits) -> (SearchReport, Option<SearchReport>) {
        let mut last = None;
        let report = search(
            node,
            &selective(limits),
            &mut TranspositionTable::new(4),
            None,
            &mut |r| last = Some(r.clone()),
        );
        (report, last)
    }

    fn exact_score(node: &Node8) -> i32 {
        let mut tt = TranspositionTable::new(4);
        endgame::exact_score(node, &mut tt)
    }

    #[test]
    fn a_selective_search_solves_at_rising_confidence_to_the_exact_score() {
        for seed in 0..3 {
            let node = position(16, seed);
            let mut tt = TranspositionTable::new(4);
            let mut steps = Vec::new();
            let report = search(&node, &selective(Limits::NONE), &mut tt, None, &mut |r| {
                steps.push((r.depth, r.selectivity.percent(), r.exact))
            });
            let midgame: Vec<_> = (1..=16 - SOLVE_AHEAD)
                .map(|depth| {
                    let cuts = depth > probcut::MIDGAME_MIN_DEPTH;
                    (depth, if cuts { 73 } else { 100 }, false)
                })
                .collect();
            let solves: Vec<_> = [73, 87, 95, 98, 99, 100]
                .map(|percent| (16, percent, percent == 100))
                .to_vec();
            assert_eq!(steps, [midgame, solves].concat(), "seed {seed}");
            let exact = exact_score(&node);
            assert!(report.exact);
            assert_eq!(report.score, exact * DISC, "seed {seed}");
            let best = node.play(node.index(report.best.unwrap()).unwrap());
            assert_eq!(-exact_score(&best), exact, "the best move keeps the score");
            assert_eq!(report.pv.first(), report.best.as_ref());
            assert_eq!(report.ranked.len(), 1);
        }
    }

    #[test]
    fn a_depth_limit_short_of_the_end_keeps_to_the_midgame_search() {
        let node = position(20, 1);
        let mut depths = Vec::new();
        let report = search(
            &node,
            &selective(Limits::depth(12)),
            &mut TranspositionTable::new(4),
            None,
            &mut |r| depths.push(r.depth),
        );
        assert_eq!(depths, (1..=12).collect::<Vec<_>>());
        assert_eq!((report.depth, report.selectivity), (12, Selectivity::MOST));
        assert!(!report.exact);
    }

    #[test]
    fn a_full_width_search_only_deepens() {
        let node = position(14, 2);
        let options = SearchOptions::new(WinRule::MostDiscs, Limits::NONE, Evaluator::default());
        let mut depths = Vec::new();
        let report = search(
            &node,
            &options,
            &mut TranspositionTable::new(4),
            None,
            &mut |r| depths.push(r.depth),
        );
        assert_eq!(depths, (1..=14).collect::<Vec<_>>());
        assert!(report.exact);
        assert_eq!(report.score, exact_score(&node) * DISC);
    }

    #[test]
    fn ranked_moves_get_their_solved_scores() {
        let node = position(15, 3);
        let options = SearchOptions {
            ranked_moves: 3,
            ..selective(Limits::NONE)
        };
        let report = search(
            &node,
            &options,
            &mut TranspositionTable::new(4),
            None,
            &mut |_| {},
        );
        assert!(report.exact);
        assert_eq!(report.ranked.len(), 3.min(node.moves().len() as usize));
        for ranked in &report.ranked {
            let child = node.play(node.index(ranked.square).unwrap());
            assert_eq!(ranked.score, -exact_score(&child) * DISC);
            assert_eq!(ranked.pv.first(), Some(&ranked.square));
        }
        assert!(report.ranked.windows(2).all(|w| w[0].score >= w[1].score));
    }

    /// Stopped while solving, a search plays the move the solve had proved better than the
    /// last finished step's: solved exactly, it scores more than that move, and at least
    /// the score the search gives it; a search that keeps the last step's move keeps its
    /// score too. Below the selective solves' first cuts the solve after
    /// the midgame iterations is the exact one, so its proofs are exact.
    #[test]
    fn a_search_stopped_while_solving_plays_the_better_move_it_had_proved() {
        let empties = probcut::ENDGAME_MIN_EMPTIES - 1;
        let mut switched = 0;
        for seed in 0..12 {
            let node = position(empties, seed);
            let mut tt = TranspositionTable::new(4);
            let mut all = 0;
            search(&node, &selective(Limits::NONE), &mut tt, None, &mut |r| {
                all = r.nodes;
            });
            for nodes in (1..all).step_by((all / 60).max(1) as usize) {
                let (report, last) = stopped_search(&node, Limits::nodes(nodes));
                let last = last.expect("the first iteration always finishes");
                assert_eq!(
                    report.depth, last.depth,
                    "the depth of the last finished step"
                );
                if report.best == last.best {
                    assert_eq!(report.score, last.score, "the finished step's score");
                    continue;
                }
                let after = |square: Square| node.play(node.index(square).unwrap());
                let played = -exact_score(&after(report.best.unwrap()));
                assert!(played > -exact_score(&after(last.best.unwrap())));
                assert!(played * DISC >= report.score, "seed {seed}, {nodes} nodes");
                switched += 1;
            }
        }
        assert!(switched > 0);
    }

    /// A node limit the midgame iterations fit in but the first solve does not: the last
    /// iteration's move, and the nodes of both counted.
    #[test]
    fn a_search_stopped_while_solving_keeps_the_last_iteration() {
        let node = position(18, 4);
        let last_iteration = 18 - SOLVE_AHEAD;
        let mut midgame_nodes = 0;
        search(
            &node,
            &selective(Limits::NONE),
            &mut TranspositionTable::new(4),
            None,
            &mut |r| {
                if r.depth == last_iteration {
                    midgame_nodes = r.nodes;
                }
            },
        );
        assert!(midgame_nodes > 0);
        let limit = midgame_nodes + 10;
        let (report, last) = stopped_search(&node, Limits::nodes(limit));
        assert_eq!(report.depth, last_iteration);
        assert_eq!(Some(&report.best), last.as_ref().map(|r| &r.best));
        assert!(
            node.moves()
                .contains(node.index(report.best.unwrap()).unwrap())
        );
        assert!(
            report.nodes > midgame_nodes,
            "the unfinished solve's nodes count too"
        );
    }
}
