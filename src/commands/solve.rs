//! `othello solve`: the exact result of a position, or of every position of an OBF suite.

use std::{io::Write, time::Instant};

use super::CommandError;
use crate::{
    Full, Obf, RuleSet, Setup, Simple, Square, Variant,
    engine::{Goal, Limits, Node, NodeTask, SquareSet, TranspositionTable, endgame, with_node},
};

/// Size of the solver's transposition table, in MiB.
pub const HASH_MB: usize = 256;

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

    /// `a2 +38 (24978642 nodes, 0.742 s)`, or `timeout (...)`.
    pub fn text(&self) -> String {
        if !self.finished {
            return format!("timeout ({} nodes, {:.3} s)", self.nodes, self.seconds);
        }
        format!(
            "{} {:+} ({} nodes, {:.3} s)",
            self.move_text(),
            self.score,
            self.nodes,
            self.seconds
        )
    }

    /// `"move":"a2","score":38,"nodes":n,"seconds":s` (the inside of a JSON object).
    fn json_fields(&self) -> String {
        let mv = match self.best {
            Some(square) => format!("\"{square}\""),
            None => "null".into(),
        };
        let score = if self.finished {
            self.score.to_string()
        } else {
            "null".into()
        };
        format!(
            "\"move\":{mv},\"score\":{score},\"nodes\":{},\"seconds\":{:.6}",
            self.nodes, self.seconds
        )
    }
}

/// Solves `setup` exactly (its first mover to move, its win rule) under `variant`, within
/// `limits`.
pub fn solve_setup(
    variant: Variant,
    setup: &Setup,
    limits: &Limits,
    tt: &mut TranspositionTable,
) -> Solved {
    match variant {
        Variant::Full => solve_with::<Full>(setup, limits, tt),
        Variant::Simple => solve_with::<Simple>(setup, limits, tt),
    }
}

fn solve_with<R: RuleSet>(setup: &Setup, limits: &Limits, tt: &mut TranspositionTable) -> Solved {
    struct Task<'a>(&'a Setup, &'a Limits, &'a mut TranspositionTable);
    impl NodeTask for Task<'_> {
        type Output = Solved;
        fn run<N: Node>(self, node: N) -> Solved {
            let start = Instant::now();
            let solution =
                endgame::solve(&node, self.0.win_rule, Goal::Exact, self.2, self.1, None);
            let game_over = node.moves().is_empty() && node.pass().moves().is_empty();
            let seconds = start.elapsed().as_secs_f64();
            match solution {
                Some(solution) => Solved {
                    finished: true,
                    best: solution.best,
                    game_over,
                    score: solution.score,
                    nodes: solution.nodes,
                    seconds,
                },
                None => Solved {
                    finished: false,
                    best: None,
                    game_over,
                    score: 0,
                    nodes: 0,
                    seconds,
                },
            }
        }
    }
    tt.clear();
    with_node::<R, _>(&setup.board, setup.first_mover, Task(setup, limits, tt))
}

/// Solves one position within `limits` and prints the result.
///
/// # Errors
/// [`CommandError::Write`] if the output fails.
pub fn run(
    variant: Variant,
    setup: &Setup,
    limits: &Limits,
    json: bool,
    out: &mut impl Write,
) -> Result<Solved, CommandError> {
    let mut tt = TranspositionTable::new(HASH_MB);
    let solved = solve_setup(variant, setup, limits, &mut tt);
    if json {
        writeln!(out, "{{{}}}", solved.json_fields())?;
    } else {
        writeln!(out, "{}", solved.text())?;
    }
    Ok(solved)
}

/// The outcome of a suite.
#[derive(Clone, Debug, PartialEq)]
pub struct SuiteSummary {
    /// Positions solved.
    pub positions: usize,
    /// Positions whose score differs from the suite's.
    pub wrong: usize,
    /// Positions not solved within the time limit.
    pub unsolved: usize,
    /// Positions searched in all.
    pub nodes: u64,
    /// Time taken in all, in seconds.
    pub seconds: f64,
}

/// Solves every position of an OBF suite (lines starting with `%` and blank lines are
/// skipped), each within `limits`, printing a row per position with the expected and found
/// scores, then a total.
///
/// # Errors
/// [`CommandError::WrongScores`] after printing everything if any score differs from the
/// suite's or was not found in time; [`CommandError::Write`] if the output fails.
pub fn run_suite(
    variant: Variant,
    suite: &[Obf],
    limits: &Limits,
    json: bool,
    out: &mut impl Write,
) -> Result<SuiteSummary, CommandError> {
    let mut tt = TranspositionTable::new(HASH_MB);
    let mut summary = SuiteSummary {
        positions: 0,
        wrong: 0,
        unsolved: 0,
        nodes: 0,
        seconds: 0.0,
    };
    for (number, obf) in suite.iter().enumerate() {
        let solved = solve_setup(variant, &obf.setup, limits, &mut tt);
        let expected = obf.best_score();
        let ok = solved.finished && expected.is_none_or(|score| score == solved.score);
        let name = if obf.comment.is_empty() {
            format!("#{}", number + 1)
        } else {
            obf.comment
                .split(',')
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned()
        };
        summary.positions += 1;
        summary.unsolved += usize::from(!solved.finished);
        summary.wrong += usize::from(solved.finished && !ok);
        summary.nodes += solved.nodes;
        summary.seconds += solved.seconds;
        if json {
            let expected = expected.map_or("null".into(), |score| score.to_string());
            writeln!(
                out,
                "{{\"name\":\"{}\",{},\"expected\":{expected},\"ok\":{ok}}}",
                name.replace(['"', '\\'], ""),
                solved.json_fields()
            )?;
        } else {
            let expected = expected.map_or("?".into(), |score| format!("{score:+}"));
            let (found, verdict) = match (solved.finished, ok) {
                (false, _) => ("-".to_owned(), "TIMEOUT"),
                (true, ok) => (
                    format!("{:+}", solved.score),
                    if ok { "ok" } else { "WRONG" },
                ),
            };
            let mv = if solved.finished {
                solved.move_text()
            } else {
                "-".into()
            };
            writeln!(
                out,
                "{name:<10} {mv:<5} {found:>4}  expected {expected:>4}  {verdict:<7} {:>12} nodes {:>9.3} s",
                solved.nodes, solved.seconds
            )?;
        }
        out.flush()?;
    }
    if json {
        writeln!(
            out,
            "{{\"positions\":{},\"right\":{},\"wrong\":{},\"unsolved\":{},\"nodes\":{},\"seconds\":{:.6}}}",
            summary.positions,
            summary.positions - summary.wrong - summary.unsolved,
            summary.wrong,
            summary.unsolved,
            summary.nodes,
            summary.seconds
        )?;
    } else {
        let unsolved = if summary.unsolved > 0 {
            format!(", {} not solved in time", summary.unsolved)
        } else {
            String::new()
        };
        writeln!(
            out,
            "total: {} positions, {} right, {} wrong{unsolved}; {} nodes in {:.1} s",
            summary.positions,
            summary.positions - summary.wrong - summary.unsolved,
            summary.wrong,
            summary.nodes,
            summary.seconds
        )?;
    }
    if summary.wrong + summary.unsolved > 0 {
        return Err(CommandError::WrongScores {
            wrong: summary.wrong + summary.unsolved,
            positions: summary.positions,
        });
    }
    Ok(summary)
}

/// Reads an OBF suite: one position per line, skipping blank lines and `%` comments.
///
/// # Errors
/// [`CommandError::Read`] or [`CommandError::Obf`] naming the bad line.
pub fn read_suite(path: &std::path::Path) -> Result<Vec<Obf>, CommandError> {
    let text = std::fs::read_to_string(path).map_err(|source| CommandError::Read {
        path: path.to_owned(),
        source,
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('%'))
        .map(|(index, line)| {
            line.parse().map_err(|source| CommandError::Obf {
                path: path.to_owned(),
                line: index + 1,
                source,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quick 8x8 endgame: twelve empty squares.
    fn near_end() -> Obf {
        let mut board = crate::Board::empty(crate::Shape::STANDARD);
        for (i, square) in crate::Shape::STANDARD.squares().enumerate() {
            if i % 5 != 2 || i < 5 {
                let color = if (i * 11) % 7 < 3 {
                    crate::Color::White
                } else {
                    crate::Color::Black
                };
                board.set(square, Some(color));
            }
        }
        let mut obf = Obf::new(board, crate::Color::Black);
        obf.comment = "test, 12 empties".into();
        obf
    }

    #[test]
    fn suite_rows_and_a_wrong_score() {
        let mut obf = near_end();
        let mut tt = TranspositionTable::new(8);
        let solved = solve_setup(Variant::Full, &obf.setup, &Limits::NONE, &mut tt);
        obf.scored_moves = vec![(solved.best.unwrap(), solved.score)];
        let mut out = Vec::new();
        let summary = run_suite(
            Variant::Full,
            &[obf.clone()],
            &Limits::NONE,
            false,
            &mut out,
        )
        .unwrap();
        assert_eq!((summary.positions, summary.wrong), (1, 0));
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("test "), "{text}");
        assert!(text.contains(" ok "), "{text}");
        assert!(
            text.lines()
                .last()
                .unwrap()
                .starts_with("total: 1 positions, 1 right, 0 wrong")
        );

        obf.scored_moves[0].1 += 2;
        let mut out = Vec::new();
        let error = run_suite(Variant::Full, &[obf], &Limits::NONE, true, &mut out).unwrap_err();
        assert!(matches!(
            error,
            CommandError::WrongScores {
                wrong: 1,
                positions: 1
            }
        ));
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.lines().next().unwrap().contains("\"ok\":false"),
            "{text}"
        );
    }
}
