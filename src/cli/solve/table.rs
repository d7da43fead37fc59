//! `othello solve --table SHAPES`: the starting positions of small boards solved exactly,
//! under both rule sets and both win rules, as the Markdown page `docs/solved.md` is.

use std::{fmt, io::Write, str::FromStr, time::Instant};

use othello::{
    Board, Color, Setup, Shape, Square, Variant, WinRule,
    analysis::{AllBest, solve_all_best},
    engine::{Signal, endgame},
};

use super::{
    super::{CliError, progress::thousands},
    SolveOptions, solve_progress, stop_word, table,
};
use crate::cli::progress::{interrupted, ticking};

/// A board of the table and the rule sets to solve it under: `6x6` (both) or `6x6:full`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TableEntry {
    shape: Shape,
    /// `None` for both rule sets.
    variant: Option<Variant>,
}

impl FromStr for TableEntry {
    type Err = String;

    fn from_str(text: &str) -> Result<TableEntry, String> {
        let (shape, variant) = match text.split_once(':') {
            Some((shape, variant)) => (
                shape,
                Some(variant.parse::<Variant>().map_err(|e| e.to_string())?),
            ),
            None => (text, None),
        };
        let shape = shape.parse::<Shape>().map_err(|e| e.to_string())?;
        if shape.rows() % 2 == 1 || shape.columns() % 2 == 1 {
            return Err(format!(
                "{shape}: the table takes boards with even sides, as the grader's format does \
                 (an odd side has no centre of four squares to start from)"
            ));
        }
        Ok(TableEntry { shape, variant })
    }
}

impl fmt::Display for TableEntry {
    /// As it is read: `6x6` or `6x6:full`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.variant {
            Some(variant) => write!(f, "{}:{}", self.shape, variant.name()),
            None => write!(f, "{}", self.shape),
        }
    }
}

/// One row of the table: a start, solved or not.
struct Row {
    shape: Shape,
    variant: Variant,
    rule: WinRule,
    outcome: Result<AllBest, endgame::Unfinished>,
    seconds: f64,
}

/// The value for people: `White 20-16` (most discs, empty squares to the winner),
/// `Black, 2 fewer` (fewest discs), `draw`.
fn result_words(shape: Shape, rule: WinRule, score: i32) -> String {
    let winner = if score > 0 { "Black" } else { "White" };
    match (score, rule) {
        (0, _) => "draw".to_owned(),
        (_, WinRule::MostDiscs) => {
            let cells = i32::from(shape.rows()) * i32::from(shape.columns());
            let (more, fewer) = ((cells + score.abs()) / 2, (cells - score.abs()) / 2);
            format!("{winner} {more}-{fewer}")
        }
        (_, WinRule::FewestDiscs) => format!("{winner}, {} fewer", score.abs()),
    }
}

/// The table's text row for `row` (Markdown).
fn row_text(row: &Row) -> String {
    let rules = row.variant.name().to_uppercase();
    let rule = row.rule.name();
    let board = row.shape;
    match &row.outcome {
        Ok(best) => {
            let moves: Vec<String> = best.moves.iter().map(Square::to_string).collect();
            format!(
                "| {board} | {rules} | {rule} | {:+} | {} | {} | {} | {:.1} s |",
                best.score,
                result_words(row.shape, row.rule, best.score),
                moves.join(" "),
                thousands(best.nodes),
                row.seconds
            )
        }
        Err(unfinished) => {
            let proved = match unfinished.proved {
                Some((lower, upper)) => format!("{lower:+} to {upper:+}"),
                None => "nothing".to_owned(),
            };
            format!(
                "| {board} | {rules} | {rule} | ? | {} after {:.1} s: proved {proved} | | {} | {:.1} s |",
                stop_word(),
                row.seconds,
                thousands(unfinished.nodes),
                row.seconds
            )
        }
    }
}

/// The page's words before the table.
const HEADER: &str = "\
# The small boards, solved

Every start here was solved exactly by `othello solve --table` (this page is its output:
regenerate it with the command below). Black moves first from the usual start, White on
the centre's main diagonal (the other diagonal is its mirror image, with the same values).
*value* is Black's final disc difference under perfect play: under *most* discs win,
Black's discs minus White's with the empty squares counted for the winner (the usual
Othello scoring); under *fewest*, White's discs minus Black's, so that a positive value is
a win for Black under either rule. *best first moves* are every move that keeps the value
(column letter, row number, `a1` at the top left). *nodes* and *time* are this run's, on
the machine and thread count named below; the values do not depend on them. A start not
solved within `--time` shows `?` and the bounds proved by then.
";

/// Solves the start of every board of `entries` under its rule sets and both win rules,
/// and prints the page.
///
/// # Errors
/// [`CliError::NotSolved`] after printing if a start was not solved within the limit;
/// [`CliError::Interrupted`] after Ctrl-C; [`CliError::Write`] if the output fails.
pub(super) fn run_table(
    entries: &[TableEntry],
    options: &SolveOptions,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let names: Vec<String> = entries.iter().map(TableEntry::to_string).collect();
    writeln!(out, "{HEADER}")?;
    let mut command = format!(
        "othello solve --table {} --threads {}",
        names.join(","),
        options.threads
    );
    if let Some(time) = options.limits.time {
        command.push_str(&format!(" --time {}", time.as_millis()));
    }
    if let Some(hash) = options.hash {
        command.push_str(&format!(" --hash {hash}"));
    }
    writeln!(out, "Made with `{command}`.\n")?;
    writeln!(
        out,
        "| board | rules | wins | value | result | best first moves | nodes | time |"
    )?;
    writeln!(out, "|---|---|---|---:|---|---|---:|---:|")?;
    out.flush()?;
    // Each board and rule set once, in the order given.
    let mut jobs: Vec<(Shape, Variant)> = Vec::new();
    for entry in entries {
        let variants = entry
            .variant
            .map_or(Variant::ALL.to_vec(), |variant| vec![variant]);
        for variant in variants {
            if !jobs.contains(&(entry.shape, variant)) {
                jobs.push((entry.shape, variant));
            }
        }
    }
    let mut unsolved = 0;
    'jobs: for (shape, variant) in jobs {
        let mut tt = table(
            options,
            u32::from(shape.rows()) * u32::from(shape.columns()) - 4,
        );
        for rule in [WinRule::MostDiscs, WinRule::FewestDiscs] {
            let setup = Setup {
                board: Board::standard(shape),
                first_mover: Color::Black,
                win_rule: rule,
            };
            let signal = Signal::new();
            let describe = |nodes, seconds| {
                format!(
                    "{shape} {} {}: {}",
                    variant.name(),
                    rule.name(),
                    solve_progress(&signal, nodes, seconds)
                )
            };
            let begun = Instant::now();
            let outcome = ticking(options.progress, &signal, &describe, || {
                solve_all_best(
                    variant,
                    &setup,
                    &options.limits,
                    &mut tt,
                    Some(&signal),
                    &options.engine(),
                )
            });
            let row = Row {
                shape,
                variant,
                rule,
                seconds: begun.elapsed().as_secs_f64(),
                outcome,
            };
            unsolved += usize::from(row.outcome.is_err());
            writeln!(out, "{}", row_text(&row))?;
            out.flush()?;
            if interrupted() {
                break 'jobs;
            }
        }
    }
    if interrupted() {
        return Err(CliError::Interrupted);
    }
    if unsolved > 0 {
        return Err(CliError::NotSolved {
            positions: unsolved,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_in_words() {
        let shape = Shape::new(6, 6).unwrap();
        assert_eq!(result_words(shape, WinRule::MostDiscs, -4), "White 20-16");
        assert_eq!(result_words(shape, WinRule::MostDiscs, 36), "Black 36-0");
        assert_eq!(
            result_words(shape, WinRule::FewestDiscs, 2),
            "Black, 2 fewer"
        );
        assert_eq!(result_words(shape, WinRule::FewestDiscs, 0), "draw");
        let entry: TableEntry = "6x4:simple".parse().unwrap();
        assert_eq!(
            (entry.shape, entry.variant),
            (Shape::new(6, 4).unwrap(), Some(Variant::Simple))
        );
        assert_eq!(entry.to_string(), "6x4:simple");
        assert_eq!("4x4".parse::<TableEntry>().unwrap().variant, None);
        assert!("4x4:hard".parse::<TableEntry>().is_err());
        assert!("3x4".parse::<TableEntry>().is_err());
        assert!(
            "5x4"
                .parse::<TableEntry>()
                .unwrap_err()
                .contains("even sides")
        );
    }
}
