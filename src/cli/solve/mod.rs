//! `othello solve`: the exact result of a position, of every position of an OBF suite, or
//! of the starts of small boards ([`table`]).
//!
//! Exit status: 0 when every position asked for was solved (and, for a suite, every score
//! is the suite's); 1 otherwise, after every result is printed.

use std::{io::Write, path::PathBuf, time::Duration};

use clap::Args;
use othello::{
    Obf, Setup, Shape, Variant, WinRule,
    analysis::{Solved, solve_setup, solve_time},
    engine::{Limits, Signal, TranspositionTable, endgame, eval::Evaluator},
};
use serde::Serialize;

mod table;

use super::{
    CliError, PositionSource, Rules, ThreadsArg, WeightsArg, hash_megabytes,
    progress::{WARN_AFTER, catch_interrupts, interrupted, roughly, thousands, ticking},
};

/// `othello solve (--obf .. | --position FILE | --suite FILE.obf) [--time MS] [--hash MIB]
/// [--json]`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    #[command(flatten)]
    source: SolveSource,
    /// Rule set.
    #[arg(long, value_enum, default_value_t = Rules::Full)]
    rules: Rules,
    /// Give up on a position after this many milliseconds (it then counts as not solved).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    time: Option<u64>,
    /// Transposition table size in MiB (default: sized to the position, 1 to 256).
    #[arg(long, value_name = "MIB", value_parser = hash_megabytes)]
    hash: Option<u64>,
    /// The evaluation that orders moves far from the end (the score is exact whichever).
    #[command(flatten)]
    weights: WeightsArg,
    /// Threads (the score is the same with any number).
    #[command(flatten)]
    threads: ThreadsArg,
    /// JSON: one object {"solved":true,"game_over":false,"move":"a2","score":38,
    /// "nodes":n,"seconds":s} ("move" is "pass" or null when there is none); with
    /// --suite, JSON Lines: one per position (with "name", "expected", "ok"), then a
    /// total.
    #[arg(long)]
    json: bool,
}

/// Where the positions to solve come from.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
struct SolveSource {
    /// An 8x8 position in OBF: "<64 cells a1..h8 of X, O, -> <X|O>" (X is Black).
    #[arg(long, value_name = "OBF", allow_hyphen_values = true)]
    obf: Option<String>,
    /// A grader-format input: its header and board, its first mover to move, its win rule.
    #[arg(long, value_name = "FILE")]
    position: Option<PathBuf>,
    /// An OBF file with one position per line and its scored moves (e.g. the FFO suite).
    #[arg(long, value_name = "FILE.obf")]
    suite: Option<PathBuf>,
    /// The starts of these boards (e.g. 4x4,4x6,6x6:full), under both rule sets (or the
    /// one after a colon) and both win rules, with every best first move: the Markdown page
    /// docs/solved.md is.
    #[arg(
        long,
        value_name = "BOARDS",
        value_delimiter = ',',
        conflicts_with_all = ["json", "rules"]
    )]
    table: Option<Vec<table::TableEntry>>,
}

impl SolveArgs {
    /// Solves and prints.
    ///
    /// # Errors
    /// [`CliError`] for bad input, a position not solved, a wrong suite score or failed
    /// output.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        use std::io::IsTerminal;
        catch_interrupts();
        let variant = self.rules.into();
        let mut options = SolveOptions {
            limits: self
                .time
                .map_or(Limits::NONE, |ms| Limits::time(Duration::from_millis(ms))),
            hash: self.hash.map(|mib| mib as usize),
            json: self.json,
            progress: std::io::stderr().is_terminal(),
            threads: self.threads.or_all_cores(),
            ..SolveOptions::new(variant)
        };
        if let Some(shapes) = self.source.table {
            return table::run_table(&shapes, &options, out);
        }
        match self.source.suite {
            Some(path) => {
                options.eval =
                    self.weights
                        .evaluator(variant, Shape::STANDARD, WinRule::MostDiscs)?;
                run_suite(&read_suite(&path)?, &options, out).map(drop)
            }
            None => {
                let source = PositionSource {
                    obf: self.source.obf,
                    position: self.source.position,
                };
                let setup = source.setup()?;
                options.eval =
                    self.weights
                        .evaluator(variant, setup.board.shape(), setup.win_rule)?;
                run(&setup, &options, out).map(drop)
            }
        }
    }
}

/// How to solve and print.
#[derive(Clone, Copy, Debug)]
struct SolveOptions {
    /// The rule set.
    pub variant: Variant,
    /// When to give up on a position.
    pub limits: Limits,
    /// The transposition table's size in MiB; `None` sizes it to the work
    /// ([`TranspositionTable::megabytes_for_solve`]).
    pub hash: Option<usize>,
    /// What orders the moves far from the end.
    pub eval: Evaluator,
    /// Threads per solve.
    pub threads: usize,
    /// JSON instead of text.
    pub json: bool,
    /// Warn before a solve that may take very long, and show progress while it runs, on
    /// stderr (for a terminal).
    pub progress: bool,
}

impl SolveOptions {
    /// No limit, a table sized to the work, text, no progress.
    fn new(variant: Variant) -> SolveOptions {
        SolveOptions {
            variant,
            limits: Limits::NONE,
            hash: None,
            eval: Evaluator::default(),
            threads: 1,
            json: false,
            progress: false,
        }
    }

    /// What the engine's solver is told: the rule comes from each position.
    fn engine(&self) -> endgame::SolveOptions {
        endgame::SolveOptions {
            eval: self.eval,
            threads: self.threads,
            ..endgame::SolveOptions::exact(WinRule::MostDiscs)
        }
    }
}

/// A solved position in JSON: `{"solved":true,"game_over":false,"move":"a2","score":38,
/// "nodes":n,"seconds":s}`; `move` is `"pass"` when the side to move must pass and `null`
/// when the game is over or the solve did not finish; `score` is `null` when it did not.
#[derive(Serialize)]
struct SolvedJson {
    solved: bool,
    game_over: bool,
    #[serde(rename = "move")]
    mv: Option<String>,
    score: Option<i32>,
    nodes: u64,
    seconds: f64,
    /// The bounds proved on the score (both the score once solved; null if a stopped solve
    /// proved none).
    lower: Option<i32>,
    upper: Option<i32>,
    /// For a stopped solve that proved a lower bound: the move that reaches it.
    best_so_far: Option<BestSoFarJson>,
    /// What ordered the moves far from the end (the score is exact whichever).
    evaluation: String,
}

/// A stopped solve's best move so far and the score it reaches at least.
#[derive(Serialize)]
struct BestSoFarJson {
    #[serde(rename = "move")]
    mv: String,
    at_least: i32,
}

/// A suite row in JSON: the position's name, its [`SolvedJson`] fields, the suite's score
/// and whether they agree.
#[derive(Serialize)]
struct SuiteRowJson<'a> {
    name: &'a str,
    #[serde(flatten)]
    solved: SolvedJson,
    expected: Option<i32>,
    ok: bool,
}

/// The last line of a suite in JSON.
#[derive(Serialize)]
struct SuiteTotalJson {
    positions: usize,
    right: usize,
    wrong: usize,
    unsolved: usize,
    nodes: u64,
    seconds: f64,
}

/// Seconds to the microsecond, for JSON.
fn micro(seconds: f64) -> f64 {
    (seconds * 1e6).round() / 1e6
}

fn solved_json(solved: &Solved, evaluation: String) -> SolvedJson {
    SolvedJson {
        solved: solved.finished,
        game_over: solved.game_over,
        mv: match solved.best {
            Some(square) => Some(square.to_string()),
            None if solved.finished && !solved.game_over => Some("pass".to_owned()),
            None => None,
        },
        score: solved.finished.then_some(solved.score),
        nodes: solved.nodes,
        seconds: micro(solved.seconds),
        lower: solved.proved.map(|(lower, _)| lower),
        upper: solved.proved.map(|(_, upper)| upper),
        best_so_far: solved.best_so_far.map(|(square, at_least)| BestSoFarJson {
            mv: square.to_string(),
            at_least,
        }),
        evaluation,
    }
}

/// The table for solving positions with up to `empties` empty squares.
fn table(options: &SolveOptions, empties: u32) -> TranspositionTable {
    TranspositionTable::new(
        options
            .hash
            .unwrap_or_else(|| TranspositionTable::megabytes_for_solve(empties)),
    )
}

/// With progress on and no time limit: a warning on stderr when the solve of `setup` may
/// take very long.
fn warn_if_long(options: &SolveOptions, setup: &Setup) {
    if !options.progress || options.limits.time.is_some() || options.limits.nodes.is_some() {
        return;
    }
    let estimate = solve_time(options.variant, setup);
    if estimate >= WARN_AFTER {
        eprintln!(
            "othello: an exact solve of {} empty squares may take very long ({} by a rough \
             model); --time MS bounds it",
            setup.board.empty_squares().count(),
            roughly(estimate)
        );
    }
}

/// What a stopped solve's line starts with: why it stopped.
fn stop_word() -> &'static str {
    if interrupted() {
        "interrupted"
    } else {
        "timeout"
    }
}

/// A running solve's progress: `proved -6 <= score <= +36, testing >= -4 on move 2 of 4,
/// 1,234,567 nodes, 25.1 M/s`.
fn solve_progress(signal: &Signal, nodes: u64, seconds: f64) -> String {
    let proved = match signal.proved() {
        Some((lower, upper)) => format!("proved {lower:+} <= score <= {upper:+}, "),
        None => String::new(),
    };
    let step = match signal.step() {
        Some(step) => format!(
            "testing >= {:+} on move {} of {}, ",
            step.testing, step.move_number, step.moves
        ),
        None => String::new(),
    };
    format!(
        "{proved}{step}{} nodes, {:.1} M/s",
        thousands(nodes),
        nodes as f64 / seconds.max(1e-3) / 1e6
    )
}

/// Solves one position and prints the result.
///
/// # Errors
/// [`CliError::NotSolved`] after printing if the time ran out first;
/// [`CliError::Write`] if the output fails.
fn run(setup: &Setup, options: &SolveOptions, out: &mut impl Write) -> Result<Solved, CliError> {
    let empties = setup.board.empty_squares().count();
    let mut tt = table(options, empties);
    warn_if_long(options, setup);
    let signal = Signal::new();
    let describe = |nodes, seconds| {
        format!(
            "solving {empties} empties: {}",
            solve_progress(&signal, nodes, seconds)
        )
    };
    let solved = ticking(options.progress, &signal, &describe, || {
        solve_setup(
            options.variant,
            setup,
            &options.limits,
            &mut tt,
            Some(&signal),
            &options.engine(),
        )
    });
    if options.json {
        let evaluation =
            options
                .eval
                .describe(options.variant, setup.board.shape(), setup.win_rule);
        serde_json::to_writer(&mut *out, &solved_json(&solved, evaluation))
            .map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        writeln!(out, "{}", solved.text_stopped_by(stop_word()))?;
    }
    out.flush()?;
    if !solved.finished {
        return Err(if interrupted() {
            CliError::Interrupted
        } else {
            CliError::NotSolved { positions: 1 }
        });
    }
    Ok(solved)
}

/// The outcome of a suite.
#[derive(Clone, Debug, PartialEq)]
struct SuiteSummary {
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

/// A suite position's name: its comment up to the first comma, or `#N`.
fn suite_name(number: usize, obf: &Obf) -> String {
    if obf.comment.is_empty() {
        return format!("#{number}");
    }
    let name = obf.comment.split(',').next().unwrap_or_default().trim();
    name.to_owned()
}

/// Solves every position of an OBF suite (lines starting with `%` and blank lines are
/// skipped), each within the options' limits, printing a row per position with the
/// expected and found scores, then a total: text, or JSON Lines (a [`SuiteRowJson`] per
/// position, then a [`SuiteTotalJson`]).
///
/// # Errors
/// [`CliError::WrongScores`] after printing everything if any score differs from the
/// suite's or was not found in time; [`CliError::Write`] if the output fails.
fn run_suite(
    suite: &[Obf],
    options: &SolveOptions,
    out: &mut impl Write,
) -> Result<SuiteSummary, CliError> {
    let most_empties = suite
        .iter()
        .map(|obf| obf.setup.board.empty_squares().count())
        .max()
        .unwrap_or(0);
    let mut tt = table(options, most_empties);
    let mut summary = SuiteSummary {
        positions: 0,
        wrong: 0,
        unsolved: 0,
        nodes: 0,
        seconds: 0.0,
    };
    for (index, obf) in suite.iter().enumerate() {
        let name = suite_name(index + 1, obf);
        let signal = Signal::new();
        let describe = |nodes, seconds| {
            format!(
                "{name} ({} of {}): {}",
                index + 1,
                suite.len(),
                solve_progress(&signal, nodes, seconds)
            )
        };
        warn_if_long(options, &obf.setup);
        let solved = ticking(options.progress, &signal, &describe, || {
            solve_setup(
                options.variant,
                &obf.setup,
                &options.limits,
                &mut tt,
                Some(&signal),
                &options.engine(),
            )
        });
        let expected = obf.best_score();
        let ok = solved.finished && expected.is_none_or(|score| score == solved.score);
        summary.positions += 1;
        summary.unsolved += usize::from(!solved.finished);
        summary.wrong += usize::from(solved.finished && !ok);
        summary.nodes += solved.nodes;
        summary.seconds += solved.seconds;
        if options.json {
            let row = SuiteRowJson {
                name: &name,
                solved: solved_json(
                    &solved,
                    options.eval.describe(
                        options.variant,
                        obf.setup.board.shape(),
                        obf.setup.win_rule,
                    ),
                ),
                expected,
                ok,
            };
            serde_json::to_writer(&mut *out, &row).map_err(std::io::Error::from)?;
            writeln!(out)?;
        } else {
            let expected = expected.map_or("?".into(), |score| format!("{score:+}"));
            let (found, verdict) = match (solved.finished, ok) {
                (false, _) if interrupted() => ("-".to_owned(), "STOPPED"),
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
            let name = super::printable(&name);
            writeln!(
                out,
                "{name:<10} {mv:<5} {found:>4}  expected {expected:>4}  {verdict:<7} {:>12} nodes {:>9.3} s",
                solved.nodes, solved.seconds
            )?;
        }
        out.flush()?;
        if interrupted() {
            break;
        }
    }
    let right = summary.positions - summary.wrong - summary.unsolved;
    if options.json {
        let total = SuiteTotalJson {
            positions: summary.positions,
            right,
            wrong: summary.wrong,
            unsolved: summary.unsolved,
            nodes: summary.nodes,
            seconds: micro(summary.seconds),
        };
        serde_json::to_writer(&mut *out, &total).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        let unsolved = match summary.unsolved {
            0 => String::new(),
            n if interrupted() => format!(", {n} stopped"),
            n => format!(", {n} not solved in time"),
        };
        writeln!(
            out,
            "total: {}, {right} right, {} wrong{unsolved}; {} nodes in {:.1} s",
            crate::words::count(summary.positions as u64, "position"),
            summary.wrong,
            summary.nodes,
            summary.seconds
        )?;
    }
    out.flush()?;
    if interrupted() {
        return Err(CliError::Interrupted);
    }
    if summary.wrong + summary.unsolved > 0 {
        return Err(CliError::WrongScores {
            wrong: summary.wrong + summary.unsolved,
            positions: summary.positions,
        });
    }
    Ok(summary)
}

/// Reads an OBF suite: one position per line, skipping blank lines and `%` comments.
///
/// # Errors
/// [`CliError::Read`] or [`CliError::Obf`] naming the bad line.
fn read_suite(path: &std::path::Path) -> Result<Vec<Obf>, CliError> {
    let text = crate::files::read_text(path, crate::files::LIST_FILE).map_err(|source| {
        CliError::Read {
            path: path.to_owned(),
            source,
        }
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('%'))
        .map(|(index, line)| {
            line.parse().map_err(|source| CliError::Obf {
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
        let mut board = othello::Board::empty(othello::Shape::STANDARD);
        for (i, square) in othello::Shape::STANDARD.squares().enumerate() {
            if i % 5 != 2 || i < 5 {
                let color = if (i * 11) % 7 < 3 {
                    othello::Color::White
                } else {
                    othello::Color::Black
                };
                board.set(square, Some(color));
            }
        }
        let mut obf = Obf::new(board, othello::Color::Black);
        obf.comment = "test, 12 empties".into();
        obf
    }

    #[test]
    fn suite_rows_and_a_wrong_score() {
        let mut obf = near_end();
        let mut tt = TranspositionTable::new(8);
        let solved = solve_setup(
            Variant::Full,
            &obf.setup,
            &Limits::NONE,
            &mut tt,
            None,
            &SolveOptions::new(Variant::Full).engine(),
        );
        obf.scored_moves = vec![(solved.best.unwrap(), solved.score)];
        let mut out = Vec::new();
        let options = SolveOptions::new(Variant::Full);
        let summary = run_suite(&[obf.clone()], &options, &mut out).unwrap();
        assert_eq!((summary.positions, summary.wrong), (1, 0));
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("test "), "{text}");
        assert!(text.contains(" ok "), "{text}");
        assert!(
            text.lines()
                .last()
                .unwrap()
                .starts_with("total: 1 position, 1 right, 0 wrong")
        );

        obf.scored_moves[0].1 += 2;
        let mut out = Vec::new();
        let json = SolveOptions {
            json: true,
            ..options
        };
        let error = run_suite(&[obf], &json, &mut out).unwrap_err();
        assert!(matches!(
            error,
            CliError::WrongScores {
                wrong: 1,
                positions: 1
            }
        ));
        let text = String::from_utf8(out).unwrap();
        let row: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(row["ok"], false, "{text}");
        assert_eq!(row["name"], "test");
    }

    #[test]
    fn a_solve_out_of_time_reports_its_nodes_and_fails() {
        let setup = Setup::standard(othello::Shape::STANDARD);
        let options = SolveOptions {
            limits: Limits::nodes(50_000),
            json: true,
            ..SolveOptions::new(Variant::Full)
        };
        let mut out = Vec::new();
        let error = run(&setup, &options, &mut out).unwrap_err();
        assert!(matches!(error, CliError::NotSolved { positions: 1 }));
        let row: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(row["solved"], false);
        assert!(row["nodes"].as_u64().unwrap() >= 50_000, "{row}");
        assert_eq!(row["move"], serde_json::Value::Null);
    }
}
