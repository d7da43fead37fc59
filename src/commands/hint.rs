//! `othello hint`: the best few moves of a position, with scores and expected lines.
//!
//! Scores are final disc differences for the side to move: exact where the solver could
//! finish in the time given (the lines say `exact`), else the search's estimate, which the
//! evaluation keeps inside what the board allows. A side that must pass gets one line, the
//! pass, with the score of the position after it.

use std::{
    io::Write,
    sync::atomic::{AtomicU32, Ordering},
    time::{Duration, Instant},
};

use serde::Serialize;

use super::{
    CommandError,
    progress::{WARN_AFTER, roughly, thousands, ticking},
};
use crate::{
    Color, Full, Setup, Simple, Square, Variant, WinRule,
    engine::{
        Limits, Node, NodeTask, SearchOptions, Signal, SquareSet, TranspositionTable,
        endgame::{self, final_score},
        eval::DISC,
        player::{SOLVE_SHARE, solvable_empties},
        search, solve_time_estimate,
    },
};

/// Time given to a hint when neither a depth nor a time is asked for.
pub const DEFAULT_TIME: Duration = Duration::from_secs(1);

/// A depth from which a search without a time limit may take very long.
const LONG_DEPTH: u32 = 14;

/// What to search and how to show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HintOptions {
    /// The rule set.
    pub variant: Variant,
    /// A depth or a time.
    pub limits: Limits,
    /// How many moves to rank.
    pub count: usize,
    /// The transposition table's size in MiB; `None` sizes it to the work.
    pub hash: Option<usize>,
    /// One JSON object instead of text.
    pub json: bool,
    /// Warn before a search that may take very long, and show progress while it runs, on
    /// stderr (for a terminal).
    pub progress: bool,
}

impl HintOptions {
    /// The best `count` moves under `variant` in [`DEFAULT_TIME`], as text.
    pub fn new(variant: Variant, count: usize) -> HintOptions {
        HintOptions {
            variant,
            limits: Limits::time(DEFAULT_TIME),
            count,
            hash: None,
            json: false,
            progress: false,
        }
    }
}

/// One ranked move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HintLine {
    /// The move; `None` for a pass.
    pub square: Option<Square>,
    /// Its score for the side to move, in evaluation units ([`DISC`] per disc).
    pub score: i32,
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
    /// Positions visited.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
}

impl Hint {
    /// Whether every line is exact.
    pub fn exact(&self) -> bool {
        self.lines.iter().all(|line| line.exact)
    }
}

/// Ranks the best `options.count` moves of `setup` (its first mover to move), within
/// `options.limits`; `signal` can stop it and hears its node count, `depth` the depth
/// reached.
pub fn rank(setup: &Setup, options: &HintOptions, signal: &Signal, depth: &AtomicU32) -> Hint {
    struct Task<'a>(&'a HintOptions, WinRule, &'a Signal, &'a AtomicU32);
    impl NodeTask for Task<'_> {
        type Output = Hint;
        fn run<N: Node>(self, node: N) -> Hint {
            rank_node(&node, self.0, self.1, self.2, self.3)
        }
    }
    let task = Task(options, setup.win_rule, signal, depth);
    let mut hint = match options.variant {
        Variant::Full => crate::engine::with_node::<Full, _>(&setup.board, setup.first_mover, task),
        Variant::Simple => {
            crate::engine::with_node::<Simple, _>(&setup.board, setup.first_mover, task)
        }
    };
    hint.to_move = hint.final_score.is_none().then_some(setup.first_mover);
    hint
}

/// The table for a hint with `options` on a position with `empties` empty squares.
fn table(options: &HintOptions, empties: u32) -> TranspositionTable {
    let megabytes = options.hash.unwrap_or_else(|| match options.limits.time {
        Some(time) => TranspositionTable::megabytes_for_time(time),
        None => TranspositionTable::megabytes_for_solve(empties),
    });
    TranspositionTable::new(megabytes)
}

fn rank_node<N: Node>(
    node: &N,
    options: &HintOptions,
    rule: WinRule,
    signal: &Signal,
    depth: &AtomicU32,
) -> Hint {
    let start = Instant::now();
    let mut tt = table(options, node.empties().len());
    if node.moves().is_empty() {
        let passed = node.pass();
        if passed.moves().is_empty() {
            let score = final_score(
                rule,
                node.player().len(),
                node.opponent().len(),
                node.empties().len(),
            );
            return Hint {
                to_move: None,
                lines: Vec::new(),
                final_score: Some(score),
                depth: 0,
                nodes: 0,
                elapsed: start.elapsed(),
            };
        }
        // The pass is the only move: rank the opponent's best reply after it.
        let options = HintOptions {
            count: 1,
            ..*options
        };
        let mut after = rank_moves(&passed, &options, rule, &mut tt, signal, depth, start);
        let reply = after.lines.pop();
        let (score, exact, mut pv) = reply.map_or((0, true, Vec::new()), |line| {
            (-line.score, line.exact, line.pv)
        });
        pv.insert(0, None);
        after.lines = vec![HintLine {
            square: None,
            score,
            exact,
            pv,
        }];
        return after;
    }
    rank_moves(node, options, rule, &mut tt, signal, depth, start)
}

/// Ranks the moves of `node`, which has some: exactly when the solver should finish in
/// the time given (or the depth asked for reaches the end), else by the search.
fn rank_moves<N: Node>(
    node: &N,
    options: &HintOptions,
    rule: WinRule,
    tt: &mut TranspositionTable,
    signal: &Signal,
    depth: &AtomicU32,
    start: Instant,
) -> Hint {
    let empties = node.empties().len();
    let count = options.count.max(1);
    let solve_limits = match (options.limits.time, options.limits.depth) {
        (Some(time), _) if empties <= solvable_empties(node, time) => {
            Some(Limits::time(time.mul_f64(SOLVE_SHARE)))
        }
        (None, Some(wanted)) if wanted >= empties => Some(Limits::NONE),
        _ => None,
    };
    let mut nodes = 0;
    if let Some(limits) = solve_limits {
        depth.store(empties, Ordering::Relaxed);
        match endgame::rank(node, rule, count, tt, &limits, Some(signal)) {
            Ok((ranked, visited)) => {
                return Hint {
                    to_move: None,
                    lines: ranked
                        .into_iter()
                        .map(|solved| HintLine {
                            square: Some(solved.square),
                            score: solved.score * DISC,
                            exact: true,
                            pv: solved.pv.into_iter().map(Some).collect(),
                        })
                        .collect(),
                    final_score: None,
                    depth: empties,
                    nodes: visited,
                    elapsed: start.elapsed(),
                };
            }
            Err(unfinished) => nodes = unfinished.nodes,
        }
    }
    let limits = match options.limits.time {
        Some(time) => Limits {
            time: Some(time.saturating_sub(start.elapsed())),
            ..options.limits
        },
        None => options.limits,
    };
    let search_options = SearchOptions {
        rule,
        limits,
        ranked_moves: count,
    };
    let report = search(node, &search_options, tt, Some(signal), &mut |report| {
        depth.store(report.depth, Ordering::Relaxed);
    });
    Hint {
        to_move: None,
        lines: report
            .ranked
            .iter()
            .map(|ranked| HintLine {
                square: Some(ranked.square),
                score: ranked.score,
                exact: report.exact,
                pv: ranked.pv.iter().copied().map(Some).collect(),
            })
            .collect(),
        final_score: None,
        depth: report.depth,
        nodes: nodes + report.nodes,
        elapsed: start.elapsed(),
    }
}

/// A score for people: whole discs when exact (`+6`), else discs to two decimals (`+1.25`).
fn score_text(score: i32, exact: bool) -> String {
    if exact {
        format!("{:+}", score / DISC)
    } else {
        format!("{:+.2}", f64::from(score) / f64::from(DISC))
    }
}

/// A move or a pass in a line.
fn move_text(square: Option<Square>) -> String {
    square.map_or_else(|| "pass".to_owned(), |square| square.to_string())
}

/// The hint for people, a line per move: `1. d3 +1.25 (depth 9) d3 c5 f6`, with an exact
/// score `1. d3 +6 (exact, depth 12) d3`; `game over: ...` when there is no move.
pub fn text_lines(hint: &Hint) -> Vec<String> {
    if let Some(score) = hint.final_score {
        return vec![format!(
            "no move: the game is over (final disc difference {score:+} for the side due to move)"
        )];
    }
    hint.lines
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let pv: Vec<String> = line.pv.iter().map(|&square| move_text(square)).collect();
            format!(
                "{}. {} {} ({}depth {}) {}",
                index + 1,
                move_text(line.square),
                score_text(line.score, line.exact),
                if line.exact { "exact, " } else { "" },
                hint.depth,
                pv.join(" ")
            )
        })
        .collect()
}

/// A hint in JSON.
#[derive(Serialize)]
struct HintJson {
    to_move: Option<char>,
    game_over: bool,
    /// The final score when the game is over.
    score: Option<f64>,
    exact: bool,
    depth: u32,
    nodes: u64,
    seconds: f64,
    moves: Vec<HintLineJson>,
}

#[derive(Serialize)]
struct HintLineJson {
    rank: usize,
    #[serde(rename = "move")]
    mv: String,
    score: f64,
    exact: bool,
    pv: Vec<String>,
}

/// Discs to the hundredth, for JSON (`-0.0` written as `0.0`).
fn discs(score: i32) -> f64 {
    (f64::from(score) / f64::from(DISC) * 100.0).round() / 100.0 + 0.0
}

fn json(hint: &Hint) -> HintJson {
    HintJson {
        to_move: hint.to_move.map(Color::letter),
        game_over: hint.final_score.is_some(),
        score: hint.final_score.map(f64::from),
        exact: hint.exact(),
        depth: hint.depth,
        nodes: hint.nodes,
        seconds: (hint.elapsed.as_secs_f64() * 1e6).round() / 1e6,
        moves: hint
            .lines
            .iter()
            .enumerate()
            .map(|(index, line)| HintLineJson {
                rank: index + 1,
                mv: move_text(line.square),
                score: discs(line.score),
                exact: line.exact,
                pv: line.pv.iter().map(|&square| move_text(square)).collect(),
            })
            .collect(),
    }
}

/// With progress on and no time limit: a warning on stderr when the search may take very
/// long.
fn warn_if_long(setup: &Setup, options: &HintOptions) {
    let Some(wanted) = options.limits.depth else {
        return;
    };
    if !options.progress || options.limits.time.is_some() {
        return;
    }
    struct Estimate;
    impl NodeTask for Estimate {
        type Output = Duration;
        fn run<N: Node>(self, node: N) -> Duration {
            solve_time_estimate(&node)
        }
    }
    let empties = setup.board.empty_squares().count();
    let message = if wanted >= empties {
        let estimate = match options.variant {
            Variant::Full => {
                crate::engine::with_node::<Full, _>(&setup.board, setup.first_mover, Estimate)
            }
            Variant::Simple => {
                crate::engine::with_node::<Simple, _>(&setup.board, setup.first_mover, Estimate)
            }
        };
        (estimate >= WARN_AFTER).then(|| {
            format!(
                "depth {wanted} reaches the end of the game: an exact solve of {empties} empty \
                 squares may take very long ({} by a rough model); --time MS bounds it",
                roughly(estimate)
            )
        })
    } else {
        (wanted > LONG_DEPTH).then(|| {
            format!(
                "a search to depth {wanted} without a time limit may take very long; --time MS \
                 bounds it"
            )
        })
    };
    if let Some(message) = message {
        eprintln!("othello: {message}");
    }
}

/// Prints the best `options.count` moves of `setup`: a line each, best first, or one JSON
/// object `{"to_move":"B","game_over":false,"score":null,"exact":false,"depth":9,
/// "nodes":n,"seconds":s,"moves":[{"rank":1,"move":"d3","score":1.25,"exact":false,
/// "pv":["d3","c5"]}]}` (`move` is `"pass"` when the side to move must pass; `moves` is
/// empty and `score` the final score when the game is over).
///
/// # Errors
/// [`CommandError::Write`] if the output fails.
pub fn run(
    setup: &Setup,
    options: &HintOptions,
    out: &mut impl Write,
) -> Result<Hint, CommandError> {
    warn_if_long(setup, options);
    let signal = Signal::new();
    let depth = AtomicU32::new(0);
    let describe = |nodes| {
        format!(
            "depth {}, {} nodes",
            depth.load(Ordering::Relaxed),
            thousands(nodes)
        )
    };
    let hint = ticking(options.progress, &signal, &describe, || {
        rank(setup, options, &signal, &depth)
    });
    if options.json {
        serde_json::to_writer(&mut *out, &json(&hint)).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        for line in text_lines(&hint) {
            writeln!(out, "{line}")?;
        }
    }
    out.flush()?;
    Ok(hint)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Obf, Shape};

    fn hint(setup: &Setup, options: &HintOptions) -> Hint {
        rank(setup, options, &Signal::new(), &AtomicU32::new(0))
    }

    #[test]
    fn ranks_the_start_position() {
        let mut out = Vec::new();
        let setup = Setup::standard(Shape::STANDARD);
        let options = HintOptions {
            limits: Limits::depth(4),
            ..HintOptions::new(Variant::Full, 4)
        };
        let report = run(&setup, &options, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // The four opening moves are symmetric: all score the same.
        assert_eq!(lines.len(), 4, "{text}");
        assert!(
            lines[0].starts_with("1. ") && lines[3].starts_with("4. "),
            "{text}"
        );
        assert!(report.lines.windows(2).all(|w| w[0].score == w[1].score));
        let mut out = Vec::new();
        let json = HintOptions {
            json: true,
            count: 2,
            ..options
        };
        run(&setup, &json, &mut out).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(value["moves"].as_array().unwrap().len(), 2);
        assert_eq!(value["to_move"], "B");
        assert_eq!(value["moves"][0]["pv"][0], value["moves"][0]["move"]);
    }

    #[test]
    fn scores_read_as_discs() {
        assert_eq!(score_text(600, true), "+6");
        assert_eq!(score_text(-125, false), "-1.25");
        assert_eq!(discs(-1), -0.01);
        assert!(discs(0).is_sign_positive());
    }

    #[test]
    fn scores_stay_inside_the_board_on_every_shape() {
        for (rows, columns) in [(4, 4), (16, 16), (6, 10)] {
            let setup = Setup::standard(Shape::new(rows, columns).unwrap());
            let cells = i32::from(rows) * i32::from(columns);
            for variant in Variant::ALL {
                let options = HintOptions {
                    limits: Limits::depth(3),
                    ..HintOptions::new(variant, 64)
                };
                for line in hint(&setup, &options).lines {
                    assert!(
                        line.score.abs() < cells * DISC,
                        "{line:?} on {rows}x{columns}"
                    );
                }
            }
        }
    }

    #[test]
    fn an_endgame_in_reach_of_the_solver_is_exact() {
        // FFO #40: a2 wins by 38, exactly.
        let obf: Obf = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X"
            .parse()
            .unwrap();
        let options = HintOptions {
            limits: Limits::depth(20),
            ..HintOptions::new(Variant::Full, 2)
        };
        let hint = hint(&obf.setup, &options);
        assert!(hint.exact());
        assert_eq!(hint.lines[0].square, Some("a2".parse().unwrap()));
        assert_eq!(hint.lines[0].score, 38 * DISC);
        assert!(hint.lines[1].score <= hint.lines[0].score);
        assert!(
            text_lines(&hint)[0].starts_with("1. a2 +38 (exact, depth 20) a2 "),
            "{hint:?}"
        );
    }

    #[test]
    fn a_side_that_must_pass_is_searched_after_the_pass() {
        // Black's discs surround White's only one, in the corner: Black must pass.
        let setup: Setup = "6\n6\nB\n>\nW B . . . .\nB B . . . .\n. . . . . .\n\
                            . . . . . .\n. . . . . .\n. . . . . .\n"
            .parse()
            .unwrap();
        let options = HintOptions {
            limits: Limits::depth(6),
            ..HintOptions::new(Variant::Full, 3)
        };
        let hint = hint(&setup, &options);
        assert_eq!(hint.lines.len(), 1, "{hint:?}");
        assert_eq!(hint.lines[0].square, None);
        assert_eq!(hint.lines[0].pv[0], None);
        assert_eq!(hint.depth, 6);
        assert!(
            hint.lines[0].pv.len() >= 2,
            "the reply follows the pass: {hint:?}"
        );
        assert!(text_lines(&hint)[0].starts_with("1. pass "));
    }
}
