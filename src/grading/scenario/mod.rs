//! Reproducible grader inputs for every situation the grader protocol specifies, and the
//! reference output for each (what `othello gen` writes).
//!
//! A run is described by [`GenOptions`]; scenario number `index` of a run comes from
//! [`generate`] and depends on the options and `index` alone, so any scenario can be made
//! again without the others. Random numbers come from `rand`'s `StdRng` (fixed by
//! `Cargo.lock`), seeded per scenario and per purpose from the run's seed, so that the same
//! seed plays the same games whatever the rate of invalid lines or the truncation setting.
//!
//! ```
//! use othello::grading::scenario::{GenOptions, ScenarioKind, expected_output, generate};
//!
//! let options = GenOptions { kinds: vec![ScenarioKind::Tie], seed: 7, ..GenOptions::default() };
//! let scenario = generate(&options, 0);
//! assert_eq!(scenario, generate(&options, 0));
//! let (output, status) = expected_output(options.variant, scenario.input.as_bytes());
//! assert_eq!(status, 0);
//! assert!(String::from_utf8(output)?.ends_with("WINNER: NONE\n"));
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::{fmt, str::FromStr};

use rand::{RngExt, SeedableRng, rngs::StdRng};
use thiserror::Error;

mod invalid;
mod malformed;
mod plans;

use invalid::{InvalidKind, invalid_line};
pub use malformed::{cut_short, malformed};
use plans::{nearly_full, over_at_start, passes, pick, random, standard, stuck_first, tie};

use crate::{
    Game, ParseShapeError, RuleSet, Setup, Shape, Variant, WinRule, engine::mix, protocol,
};

/// The situations a scenario is built to exercise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScenarioKind {
    /// The standard start ([`Board::standard`](crate::Board::standard)) on the chosen size, a random first mover.
    Standard,
    /// A random position of varied density (from sparse to full), with both colours or only
    /// one; the game may even be over at once.
    Random,
    /// The named first mover has no legal move at the start but the other side has: a pass
    /// before the first move.
    StuckFirst,
    /// Neither side can move at the start: `WINNER:` comes right after the first state block.
    OverAtStart,
    /// A game with at least one pass between two moves.
    Passes,
    /// A position with only 1 to 6 empty squares left.
    NearlyFull,
    /// A game that ends with equal disc counts (`WINNER: NONE`).
    Tie,
}

impl ScenarioKind {
    /// Every kind, in the order a run rotates through them.
    pub const ALL: [ScenarioKind; 7] = [
        ScenarioKind::Standard,
        ScenarioKind::Random,
        ScenarioKind::StuckFirst,
        ScenarioKind::OverAtStart,
        ScenarioKind::Passes,
        ScenarioKind::NearlyFull,
        ScenarioKind::Tie,
    ];

    /// The kebab-case name used on the command line: `standard`, `random`, `stuck-first`,
    /// `over-at-start`, `passes`, `nearly-full`, `tie`.
    pub const fn name(self) -> &'static str {
        match self {
            ScenarioKind::Standard => "standard",
            ScenarioKind::Random => "random",
            ScenarioKind::StuckFirst => "stuck-first",
            ScenarioKind::OverAtStart => "over-at-start",
            ScenarioKind::Passes => "passes",
            ScenarioKind::NearlyFull => "nearly-full",
            ScenarioKind::Tie => "tie",
        }
    }

    /// Whether scenarios of this kind may stop before the game is over: not
    /// [`OverAtStart`](ScenarioKind::OverAtStart) (there is no move to leave out) and not
    /// [`Tie`](ScenarioKind::Tie) (its point is the end of the game).
    pub const fn can_truncate(self) -> bool {
        !matches!(self, ScenarioKind::OverAtStart | ScenarioKind::Tie)
    }
}

impl fmt::Display for ScenarioKind {
    /// The kebab-case [`name`](ScenarioKind::name).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ScenarioKind {
    type Err = ParseScenarioKindError;

    /// A kind's [`name`](ScenarioKind::name), in any case.
    fn from_str(text: &str) -> Result<ScenarioKind, ParseScenarioKindError> {
        ScenarioKind::ALL
            .into_iter()
            .find(|kind| kind.name().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| ParseScenarioKindError {
                found: text.to_owned(),
            })
    }
}

/// A name that is not one of [`ScenarioKind::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "scenario kind must be one of standard, random, stuck-first, over-at-start, passes, \
     nearly-full, tie, found {found:?}"
)]
pub struct ParseScenarioKindError {
    /// The rejected name.
    pub found: String,
}

/// A `--sizes` list that is not one.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseSizesError {
    /// An empty item.
    #[error("expected a list of board sizes such as 4x4,8x8,16x12 or all, found {found:?}")]
    Empty {
        /// The whole list.
        found: String,
    },
    /// An item that is not a board size.
    #[error(transparent)]
    Shape(#[from] ParseShapeError),
    /// A size with an odd side.
    #[error("board size {shape} has an odd side: the grader accepts only even sizes from 4 to 16")]
    Odd {
        /// The size.
        shape: Shape,
    },
}

/// Parses a list of board sizes: comma-separated `ROWSxCOLUMNS` (`4x4,8x8,16x12`), or `all`
/// for every even size from 4 × 4 to 16 × 16 (49 shapes). A size listed twice is chosen
/// twice as often.
///
/// ```
/// use othello::{Shape, grading::scenario::parse_sizes};
///
/// assert_eq!(parse_sizes("4x4, 16x12")?, [Shape::new(4, 4)?, Shape::new(16, 12)?]);
/// assert_eq!(parse_sizes("all")?.len(), 49);
/// assert!(parse_sizes("5x8").unwrap_err().to_string().contains("even"));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`ParseSizesError`] naming the first size that is malformed, out of range or odd.
pub fn parse_sizes(text: &str) -> Result<Vec<Shape>, ParseSizesError> {
    if text.trim().eq_ignore_ascii_case("all") {
        let sides = (Shape::MIN_SIDE..=Shape::MAX_SIDE).step_by(2);
        return Ok(sides
            .clone()
            .flat_map(|rows| {
                sides
                    .clone()
                    .map(move |columns| Shape::new(rows, columns).expect("in range"))
            })
            .collect());
    }
    text.split(',')
        .map(|item| {
            let item = item.trim();
            if item.is_empty() {
                return Err(ParseSizesError::Empty {
                    found: text.to_owned(),
                });
            }
            let shape: Shape = item.parse()?;
            if shape.rows() % 2 == 1 || shape.columns() % 2 == 1 {
                return Err(ParseSizesError::Odd { shape });
            }
            Ok(shape)
        })
        .collect()
}

/// Parses a list of [`ScenarioKind`] names (`standard,tie`), or `all`.
///
/// ```
/// use othello::grading::scenario::{ScenarioKind, parse_kinds};
///
/// assert_eq!(parse_kinds("tie,passes")?, [ScenarioKind::Tie, ScenarioKind::Passes]);
/// assert_eq!(parse_kinds("all")?, ScenarioKind::ALL);
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`ParseScenarioKindError`] naming the first unknown kind.
pub fn parse_kinds(text: &str) -> Result<Vec<ScenarioKind>, ParseScenarioKindError> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(ScenarioKind::ALL.to_vec());
    }
    text.split(',').map(|item| item.trim().parse()).collect()
}

/// What a run of scenarios is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct GenOptions {
    /// The rule set the scenarios are for: moves are legal, and invalid lines refused, under
    /// these rules.
    pub variant: Variant,
    /// Board sizes, each chosen with equal probability per scenario (a size listed twice
    /// counts twice). Rows and columns must be even, as the grader requires.
    pub sizes: Vec<Shape>,
    /// The kinds, taken in rotation: scenario `index` has kind `kinds[index % kinds.len()]`,
    /// so every kind gets its share even in a short run.
    pub kinds: Vec<ScenarioKind>,
    /// Probability of an invalid move line before each move (0 for none); after one, another
    /// follows with the same probability, at most [`MAX_INVALID_RUN`] in a row. Values
    /// outside 0..=1 are clamped (NaN counts as 0).
    pub invalid_rate: f64,
    /// Whether some scenarios (one in four of the kinds that
    /// [can be truncated](ScenarioKind::can_truncate)) stop before the game is over.
    pub truncate: bool,
    /// The seed of the run.
    pub seed: u64,
    /// Also write lines whose verdict is this program's own choice where the course's spec
    /// is silent: invalid lines a plain student program may accept (over-long lines,
    /// unusual whitespace, non-ASCII digits), and legal moves written other than as
    /// `row column` (padded, tabs, leading zeros, a `+`). Without it every invalid line is
    /// one that every reasonable reading of the spec refuses, and every move is canonical.
    pub edge_cases: bool,
}

impl Default for GenOptions {
    /// FULL rules, 8 × 8 boards, every kind, invalid rate 0.1, no truncation, seed 1, no
    /// edge cases.
    fn default() -> GenOptions {
        GenOptions {
            variant: Variant::Full,
            sizes: vec![Shape::STANDARD],
            kinds: ScenarioKind::ALL.to_vec(),
            invalid_rate: 0.1,
            truncate: false,
            seed: 1,
            edge_cases: false,
        }
    }
}

/// The most invalid lines generated in a row before one move.
pub const MAX_INVALID_RUN: usize = 5;

/// One grader input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    /// What it was built to exercise.
    pub kind: ScenarioKind,
    /// The header and board: size, first mover, win rule (both rules occur over a run) and
    /// the starting discs.
    pub setup: Setup,
    /// The whole grader input: the setup's text ([`Setup`]'s `Display`), then one line per
    /// move (`row column`, 1-based), with invalid lines mixed in. Every line ends with `\n`.
    pub input: String,
    /// Whether the input plays the game to its end; `false` if it stops before (the
    /// reference then exits with status 3).
    pub complete: bool,
}

/// Scenario number `index` of the run described by `options`: deterministic from the
/// options and `index` alone.
///
/// The kind is `options.kinds[index % len]`; the size, first mover, win rule, position and
/// moves are random. Kinds that need a special position are searched for among random
/// positions and games, a bounded number of times, then built by a construction that
/// always works (see [`ScenarioKind`] and the constructions below), so generation never
/// loops forever and works on every size from 4 × 4 to 16 × 16.
///
/// # Panics
/// If `options.sizes` or `options.kinds` is empty, or a size has an odd side (the grader
/// refuses odd sizes).
pub fn generate(options: &GenOptions, index: u64) -> Scenario {
    build(options, index).0
}

/// What the reference prints for `input` under `variant` (the grader protocol run in memory),
/// and its exit status: 0 for a finished game, 2 for a malformed header or board, 3 for input
/// that ended before the game was over.
pub fn expected_output(variant: Variant, input: &[u8]) -> (Vec<u8>, u8) {
    let mut output = Vec::new();
    let status = match protocol::run(input, &mut output, variant) {
        Ok(_) => 0,
        Err(error) => error.exit_status(),
    };
    (output, status)
}

/// The random stream for the size, win rule, position and game. Each purpose has a stream
/// of its own, derived from the run's seed and the scenario's index, so that changing one
/// option (the invalid rate, truncation) leaves what the others decide unchanged.
const GAME_STREAM: u64 = 0;
/// The stream for invalid lines.
const LINE_STREAM: u64 = 1;
/// The stream for the truncation decision.
const TRUNCATE_STREAM: u64 = 2;

/// The share of truncatable scenarios that stop before the end when truncation is on.
const TRUNCATE_PROBABILITY: f64 = 0.25;

/// What each input line after the board is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineRole {
    /// A legal move: the reference answers `VALID`.
    Move,
    /// A line the reference answers `INVALID`.
    Invalid(InvalidKind),
}

/// A scenario, and the role of each of its move lines.
fn build(options: &GenOptions, index: u64) -> (Scenario, Vec<LineRole>) {
    assert!(!options.kinds.is_empty(), "no scenario kinds to generate");
    assert!(!options.sizes.is_empty(), "no board sizes to generate");
    if let Some(odd) = options
        .sizes
        .iter()
        .find(|shape| shape.rows() % 2 == 1 || shape.columns() % 2 == 1)
    {
        panic!("the grader accepts only even board sizes, not {odd}");
    }
    crate::on_rules!(options.variant, |R| build_rules::<R>(options, index))
}

fn build_rules<R: RuleSet>(options: &GenOptions, index: u64) -> (Scenario, Vec<LineRole>) {
    let kind = options.kinds[(index % options.kinds.len() as u64) as usize];
    let mut rng = StdRng::seed_from_u64(mix(options.seed, index, GAME_STREAM));
    let shape = options.sizes[rng.random_range(0..options.sizes.len())];
    let win_rule = if rng.random_bool(0.5) {
        WinRule::MostDiscs
    } else {
        WinRule::FewestDiscs
    };
    let mut plan = match kind {
        ScenarioKind::Standard => standard::<R>(shape, &mut rng),
        ScenarioKind::Random => random::<R>(shape, &mut rng),
        ScenarioKind::StuckFirst => stuck_first::<R>(shape, &mut rng),
        ScenarioKind::OverAtStart => over_at_start::<R>(shape, &mut rng),
        ScenarioKind::Passes => passes::<R>(shape, &mut rng),
        ScenarioKind::NearlyFull => nearly_full::<R>(shape, &mut rng),
        ScenarioKind::Tie => tie::<R>(shape, &mut rng),
    };
    plan.setup.win_rule = win_rule;

    let mut truncate_rng = StdRng::seed_from_u64(mix(options.seed, index, TRUNCATE_STREAM));
    let cut = match plan.earliest_cut {
        Some(earliest)
            if options.truncate
                && earliest < plan.moves.len()
                && truncate_rng.random_bool(TRUNCATE_PROBABILITY) =>
        {
            Some(truncate_rng.random_range(earliest..plan.moves.len()))
        }
        _ => None,
    };

    let rate = if options.invalid_rate.is_nan() {
        0.0
    } else {
        options.invalid_rate.clamp(0.0, 1.0)
    };
    let mut line_rng = StdRng::seed_from_u64(mix(options.seed, index, LINE_STREAM));
    let mut input = plan.setup.to_string();
    let mut roles = Vec::new();
    let mut game = Game::<R>::new(plan.setup);
    let kept = cut.unwrap_or(plan.moves.len());
    for (number, &square) in plan.moves.iter().enumerate() {
        for _ in 0..MAX_INVALID_RUN {
            if !line_rng.random_bool(rate) {
                break;
            }
            let (line, kind) = invalid_line(&game, &mut line_rng, options.edge_cases);
            input.push_str(&line);
            input.push('\n');
            roles.push(LineRole::Invalid(kind));
        }
        if number == kept {
            break;
        }
        if options.edge_cases && line_rng.random_bool(EDGE_CASE_MOVES) {
            input.push_str(&padded_move_text(
                square.row(),
                square.column(),
                &mut line_rng,
            ));
        } else {
            input.push_str(&move_text(square.row(), square.column()));
        }
        input.push('\n');
        roles.push(LineRole::Move);
        game.play(square).expect("planned moves are legal");
    }
    debug_assert_eq!(game.is_over(), cut.is_none());
    let scenario = Scenario {
        kind,
        setup: plan.setup,
        input,
        complete: cut.is_none(),
    };
    (scenario, roles)
}

/// The grader's move line for a 0-based row and column.
fn move_text(row: u8, column: u8) -> String {
    format!("{} {}", u32::from(row) + 1, u32::from(column) + 1)
}

/// With edge cases: the share of legal moves written other than as `row column`.
const EDGE_CASE_MOVES: f64 = 0.2;

/// A legal move the reference accepts, written another way: padded with spaces or tabs,
/// with leading zeros or a `+` sign.
fn padded_move_text(row: u8, column: u8, rng: &mut StdRng) -> String {
    let (row, column) = (u32::from(row) + 1, u32::from(column) + 1);
    match rng.random_range(0..4) {
        0 => format!("  {row}   {column}  "),
        1 => format!("{row}\t{column}"),
        2 => format!("0{row} 00{column}"),
        _ => format!("+{row} +{column}"),
    }
}

#[cfg(test)]
mod tests;
