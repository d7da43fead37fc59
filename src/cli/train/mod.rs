//! `othello train`: the learned evaluation's pipeline, one step a subcommand: `selfplay`
//! writes positions, `label` scores them, `fit` makes weights of them. Each step streams
//! to a file and resumes where it stopped when run again with the same arguments.

use std::{
    io::{IsTerminal, Write},
    path::{Path, PathBuf},
    time::Instant,
};

mod dedup;
mod error;
mod merge;
mod pack;
mod pipeline;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use othello::{
    engine::{
        Limits, Selectivity,
        eval::Evaluator,
        pattern::{PHASES, PatternWeights, ShapedWeights, WeightsError, phase_of},
        search::probcut::{CutModel, ENDGAME_MIN_EMPTIES},
    },
    training::{
        FitOptions, Label, LabelOptions, LabelTables, PhaseFit, Sample, SampleHeader, SampleReader,
        SampleWriter, SelfPlayOptions, Shard, fit, fit_kind, game_table, label, measure,
        phases_for, probcut, self_play_game,
    },
    {GameKind, Shape, WinRule},
};
use rand::{SeedableRng, rngs::StdRng, seq::SliceRandom};
use rayon::prelude::*;

use super::{
    CliError, Rules,
    output::{self, check_output},
};

/// `othello train`.
#[derive(Debug, Args)]
pub struct TrainArgs {
    #[command(subcommand)]
    step: Step,
}

#[derive(Debug, Subcommand)]
#[command(next_line_help = true)]
enum Step {
    /// Step 1: positions from games the engine plays against itself (any board, rule set
    /// and win rule; standard Othello by default).
    ///
    /// Each game starts with random moves and mixes some in later; some games are random
    /// throughout. Every position with a move to make is written, unlabelled. Run again
    /// with the same arguments, it goes on where it stopped.
    Selfplay(SelfPlayArgs),
    /// Step 2: scores for positions: exact where few squares are empty, else a search.
    ///
    /// Run again with the same arguments, it goes on where it stopped.
    Label(LabelArgs),
    /// Step 3: weights fitted to labelled positions, with each phase's error on the
    /// positions fitted to and on held-out games.
    ///
    /// Games, not positions, are held out, so the held-out error is the error on games
    /// the weights never saw.
    Fit(FitArgs),
    /// How good an evaluation is, against another: the loss of the moves a shallow search
    /// chooses (scored by the exact solver), and the error of the static evaluation
    /// against exact scores and against deep searches.
    ///
    /// The positions come from games of a seed of their own, not from training.
    Measure(MeasureArgs),
    /// The selective search's model (Multi-ProbCut): how well a shallow search predicts a
    /// deep one, and the exact score, fitted on positions (a selfplay or label output).
    ///
    /// Writes JSON; the models compiled in are data/probcut-patterns.json (the built-in
    /// evaluation) and data/probcut-classic.json.
    Probcut(ProbcutArgs),
    /// The shards of a selfplay or label step (--shard I/N, one a machine) joined into the
    /// file one whole run writes.
    Merge(merge::MergeArgs),
    /// A positions file kept as the games it comes from: about a byte a position for
    /// self-play's, against 24 a record (data worth keeping in a repository, where the
    /// machine that made it does not keep its disk).
    ///
    /// `train unpack` makes the file again, byte for byte.
    Pack(pack::PackArgs),
    /// A `train pack` output made into the positions file that was packed, byte for byte.
    Unpack(pack::UnpackArgs),
    /// Positions files joined with each position kept once, up to the board's symmetries
    /// (copies merged into the first, their labels averaged), and a held-out set's
    /// positions left out.
    Dedup(dedup::DedupArgs),
    /// The mean absolute error of evaluations' static scores on a test set's labels, phase
    /// by phase, side by side (generations fitted on different positions compared on the
    /// same held-out ones).
    Error(error::ErrorArgs),
    /// One generation end to end for any kind of game: self-play, labels, fit and the
    /// selective search's model (probcut), in one directory, with run.json there keeping its options, the steps finished and what each
    /// cost.
    ///
    /// Run again with the same options, it goes on where it stopped.
    Run(pipeline::RunArgs),
}

/// An evaluation named on the command line: the built-in one (`None`, or `built-in`),
/// `classic`, or a weights file.
///
/// # Errors
/// A weights file that cannot be read or is damaged.
pub fn evaluator(name: Option<&str>) -> Result<Evaluator, CliError> {
    match name {
        None | Some("built-in") => Ok(Evaluator::default()),
        Some("classic") => Ok(Evaluator::Classic),
        Some(path) => load_weights(Path::new(path)),
    }
}

/// A weights file (standard Othello's, from `train fit` on 8x8 FULL most-discs positions,
/// or another kind's), kept for the rest of the program.
///
/// # Errors
/// A file that cannot be read, or is neither kind of weights file, or is damaged.
pub fn load_weights(path: &Path) -> Result<Evaluator, CliError> {
    let bytes = crate::files::read_limited(path, crate::files::WEIGHTS_FILE).map_err(|source| {
        CliError::Read {
            path: path.to_owned(),
            source,
        }
    })?;
    let damaged = |error: WeightsError| CliError::Usage {
        message: format!("{}: {error}", path.display()),
    };
    if bytes.starts_with(ShapedWeights::MAGIC) {
        let weights = ShapedWeights::from_bytes(&bytes).map_err(damaged)?;
        return Ok(Evaluator::Shaped(Box::leak(Box::new(weights))));
    }
    let weights = PatternWeights::from_bytes(&bytes).map_err(damaged)?;
    Ok(Evaluator::Patterns(Box::leak(Box::new(weights))))
}

/// The kind of game a step plays: rule set, board and win rule.
#[derive(Clone, Copy, Debug, Args)]
struct KindArgs {
    /// Rule set.
    #[arg(long, value_enum, default_value_t = Rules::Full)]
    rules: Rules,
    /// Board size, rows x columns.
    #[arg(long, value_name = "RxC", default_value = "8x8")]
    size: Shape,
    /// Who wins: most or fewest discs.
    #[arg(long, value_name = "most|fewest", default_value = "most", value_parser = super::win_rule)]
    win: WinRule,
}

impl KindArgs {
    fn kind(self) -> GameKind {
        GameKind::new(self.rules.into(), self.size, self.win)
    }
}

#[derive(Debug, Args)]
struct SelfPlayArgs {
    /// The positions file to write (or to go on with).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    #[command(flatten)]
    kind: KindArgs,
    /// Play only this part of the games, I/N (the I-th of N equal runs, from 0), for a
    /// cluster's array job: `train merge` joins the N files into the file one run writes.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// Games to play in all.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// Seed: the same seed and options play the same games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Depth of the engine's search for its moves.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=20))]
    depth: u32,
    /// How selective that search is (percent; 100: full width).
    #[arg(long, value_name = "PERCENT", default_value_t = Selectivity::NONE)]
    selectivity: Selectivity,
    /// From this many empty squares on, the engine solves the game exactly and plays a best
    /// move (0: never).
    #[arg(long, value_name = "EMPTIES", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=24))]
    solve: u32,
    /// Play as the engine's level L does (1-9): its depth, exact solve and selectivity
    /// (not its slips or book), in place of --depth, --solve and --selectivity.
    #[arg(long, value_name = "L", conflicts_with_all = ["depth", "solve", "selectivity"], value_parser = clap::value_parser!(u8).range(1..=9))]
    level: Option<u8>,
    /// Label each position with at most EMPTIES empty squares by how its game ended (the
    /// final disc difference; exact from --solve on); those with more stay unlabelled for
    /// `train label`. Games then have no random move after the opening, and the opening's
    /// positions are not written.
    #[arg(long, value_name = "EMPTIES", conflicts_with_all = ["randomness", "random_games"], value_parser = clap::value_parser!(u32).range(1..=256))]
    result_labels: Option<u32>,
    /// The chance that a move after the opening is random.
    #[arg(long, default_value_t = 0.1, value_parser = probability)]
    randomness: f64,
    /// The share of games played at random throughout.
    #[arg(long, default_value_t = 0.1, value_parser = probability)]
    random_games: f64,
    /// Random moves at the start of each game, MIN-MAX (at most the board's squares less 5: 59
    /// on 8x8, 139 on 12x12) [default: 4-20, or that bound where it is less].
    #[arg(long, value_parser = opening)]
    opening: Option<(u32, u32)>,
    /// The evaluation the engine plays with: a weights file, or classic (default: the
    /// built-in one).
    #[arg(long, value_name = "FILE|classic")]
    weights: Option<String>,
    /// Write over an --out file that is not a positions file.
    #[arg(long)]
    force: bool,
}

#[derive(Debug, Args)]
struct LabelArgs {
    /// The positions to score.
    #[arg(long = "in", value_name = "FILE")]
    input: PathBuf,
    /// Where the scored positions go (or the file to go on with).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Positions with at most this many empty squares are solved exactly.
    #[arg(long, default_value_t = 18, value_parser = clap::value_parser!(u32).range(0..=26))]
    exact: u32,
    /// The others get the score of a search this deep.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=20))]
    depth: u32,
    /// The evaluation that search uses: a weights file, or classic (default: the built-in
    /// one).
    #[arg(long, value_name = "FILE|classic")]
    weights: Option<String>,
    /// How selective that search is (percent; 100: full width).
    #[arg(long, value_name = "PERCENT", default_value_t = Selectivity::NONE)]
    selectivity: Selectivity,
    /// Score only this part of the positions, I/N (the I-th of N equal runs, from 0), for a
    /// cluster's array job: `train merge` joins the N files into the file one run writes.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// Write over an --out file that is not a labelled positions file.
    #[arg(long)]
    force: bool,
}

#[derive(Debug, Args)]
struct FitArgs {
    /// Labelled positions (several files are read as one).
    #[arg(long = "in", value_name = "FILE", required = true)]
    input: Vec<PathBuf>,
    /// The weights file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Passes over the positions.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    epochs: u32,
    /// The first step size, in discs (it decays to a tenth).
    #[arg(long, default_value_t = 0.05, value_parser = positive)]
    learning_rate: f64,
    /// L2 regularisation per weight.
    #[arg(long, default_value_t = 1e-5, value_parser = non_negative)]
    l2: f64,
    /// The share of games held out to measure the error.
    #[arg(long, default_value_t = 0.1, value_parser = held_out_share)]
    holdout: f64,
    /// Which games are held out.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Weights seen in fewer positions than this stay at zero.
    #[arg(long, default_value_t = 3)]
    min_count: u32,
    /// How much a neighbouring phase's position counts in a phase's fit.
    #[arg(long, default_value_t = 0.5, value_parser = probability)]
    blend: f64,
    /// Positions in each step (mini-batches, in an order shuffled every epoch; use far
    /// fewer --epochs, such as 20); 0 steps once an epoch over every position.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100_000_000))]
    batch: u32,
    /// Fit to files whose step has not finished (the positions as far as it went, a last
    /// record cut short dropped): labels taken while the labelling goes on.
    #[arg(long)]
    unfinished: bool,
    /// Write over an --out file that is not a weights file.
    #[arg(long)]
    force: bool,
}

#[derive(Debug, Args)]
struct MeasureArgs {
    #[command(flatten)]
    kind: KindArgs,
    /// Measure move quality at MIN to MAX empty squares (default: --endgame to 4 more).
    #[arg(long, value_name = "MIN-MAX", value_parser = empties_range)]
    empties: Option<(u32, u32)>,
    /// Positions for each measurement.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(1..))]
    positions: u32,
    /// Seed of the games the positions come from.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Depth of the search that chooses the moves.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=20))]
    depth: u32,
    /// Choose the moves by a search of this many milliseconds instead of --depth.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=60_000))]
    time: Option<u64>,
    /// Choose the moves by a search of at most this many positions instead of --depth: like
    /// --time, but the same on every run and machine, so two builds compare exactly.
    #[arg(long, value_name = "N", conflicts_with = "time", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// How selective the measured evaluation's move-choosing search is (percent).
    #[arg(long, value_name = "PERCENT", default_value_t = Selectivity::NONE)]
    selectivity: Selectivity,
    /// How selective the other's is.
    #[arg(long, value_name = "PERCENT", default_value_t = Selectivity::NONE)]
    against_selectivity: Selectivity,
    /// Measure move quality only (not the predictions).
    #[arg(long)]
    moves_only: bool,
    /// Where the endgame measures are taken: move quality at E to E+4 empty squares, the
    /// exact prediction at E.
    #[arg(long, value_name = "E", default_value_t = 20, value_parser = clap::value_parser!(u32).range(4..=26))]
    endgame: u32,
    /// Depth of the reference searches at 30-40 empties.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=20))]
    deep: u32,
    /// The evaluation measured: a weights file (default: the built-in one).
    #[arg(long, value_name = "FILE|classic")]
    weights: Option<String>,
    /// The evaluation it is compared with: a weights file, classic (the default), or
    /// built-in.
    #[arg(long, value_name = "FILE|classic|built-in", default_value = "classic")]
    against: String,
    /// Keep the move-quality positions' exact scores in this file (JSON; read if it exists,
    /// written back with the new ones): a run again, with another build or time limit,
    /// solves only the moves it has not met.
    #[arg(long, value_name = "FILE")]
    solved: Option<PathBuf>,
}

/// The file of `train measure --solved`: exact scores, `(player, opponent, score)` each
/// (the discs of the side to move and of the other, a bit a square; the final disc
/// difference for the side to move).
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct SolvedFile {
    format: String,
    version: u32,
    scores: Vec<(u64, u64, i32)>,
}

impl SolvedFile {
    const FORMAT: &str = "othello exact scores";
    const VERSION: u32 = 1;

    /// The scores in `path`, none if there is no such file yet.
    pub(super) fn read(path: &Path) -> Result<measure::KnownScores, CliError> {
        if !path.exists() {
            return Ok(measure::KnownScores::default());
        }
        let text =
            crate::files::read_text(path, crate::files::LIST_FILE).map_err(read_error(path))?;
        let damaged = |why: String| CliError::Usage {
            message: format!("{}: not a file of exact scores ({why})", path.display()),
        };
        let file: Self = serde_json::from_str(&text).map_err(|error| damaged(error.to_string()))?;
        if file.format != Self::FORMAT || file.version != Self::VERSION {
            return Err(damaged(format!(
                "format {:?} version {}",
                file.format, file.version
            )));
        }
        Ok(measure::KnownScores::new(file.scores))
    }

    pub(super) fn write(path: &Path, known: &measure::KnownScores) -> Result<(), CliError> {
        let file = Self {
            format: Self::FORMAT.to_owned(),
            version: Self::VERSION,
            scores: known.scores(),
        };
        let text = serde_json::to_string(&file).expect("scores serialize");
        write_file(path, text.as_bytes())
    }
}

/// The fewest midgame (and endgame) positions a selective search's model is fitted on.
pub(super) const MIN_PROBCUT_POSITIONS: u32 = 10;

#[derive(Debug, Args)]
pub(super) struct ProbcutArgs {
    /// Positions to measure on (a selfplay or label output).
    #[arg(long = "in", value_name = "FILE")]
    input: PathBuf,
    /// The model to write (JSON).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Midgame positions (more than 14 empty squares) to search.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(MIN_PROBCUT_POSITIONS as i64..))]
    positions: u32,
    /// Endgame positions to solve.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u32).range(MIN_PROBCUT_POSITIONS as i64..))]
    endgame_positions: u32,
    /// The deepest midgame search measured (6 at least: shallower ones leave the depth and
    /// the shallow search's depth moving together, which a fit cannot tell apart).
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(6..=20))]
    depth: u32,
    /// The most empty squares of an endgame position (its exact score is solved; from 12
    /// empties, so 13 at least).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(13..=26))]
    exact: u32,
    /// Which positions are picked.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The evaluation the searches use: a weights file, or classic (default: the built-in
    /// one).
    #[arg(long, value_name = "FILE|classic")]
    weights: Option<String>,
    /// Write over an --out file that is not a model.
    #[arg(long)]
    force: bool,
}

fn probability(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!("expected a number from 0 to 1, not {text:?}")),
    }
}

/// `--holdout`: some games must be left to fit.
fn held_out_share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if (0.0..1.0).contains(&p) => Ok(p),
        _ => Err(format!(
            "expected a number from 0 to below 1 (some games must be left to fit), not {text:?}"
        )),
    }
}

fn positive(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
        _ => Err(format!("expected a positive number, not {text:?}")),
    }
}

fn non_negative(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x >= 0.0 && x.is_finite() => Ok(x),
        _ => Err(format!("expected a number of at least 0, not {text:?}")),
    }
}

fn empties_range(text: &str) -> Result<(u32, u32), String> {
    let error = || format!("expected MIN-MAX empty squares (4 to 26), such as 16-24, not {text:?}");
    let (low, high) = text.split_once('-').ok_or_else(error)?;
    let (low, high): (u32, u32) = (
        low.parse().map_err(|_| error())?,
        high.parse().map_err(|_| error())?,
    );
    (4 <= low && low <= high && high <= 26)
        .then_some((low, high))
        .ok_or_else(error)
}

/// `--opening`'s default, cut to a small board's bound.
const DEFAULT_OPENING: (u32, u32) = (4, 20);

/// At most one move fewer than the largest board's game: a kind of game's own bound is
/// checked when the kind is known (`SelfPlayArgs::run`).
fn opening(text: &str) -> Result<(u32, u32), String> {
    let error =
        || format!("expected MIN-MAX random moves (at most 251), such as 4-20, not {text:?}");
    let (low, high) = text.split_once('-').ok_or_else(error)?;
    let (low, high): (u32, u32) = (
        low.parse().map_err(|_| error())?,
        high.parse().map_err(|_| error())?,
    );
    (low <= high && high <= 251)
        .then_some((low, high))
        .ok_or_else(error)
}

/// A progress bar on stderr when it is a terminal (hidden otherwise).
pub(super) fn progress_bar(length: u64, done: u64, what: &str) -> ProgressBar {
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(length), target);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{bar:40}} {{pos}}/{{len}} {what} {{elapsed}} (eta {{eta}})"
        ))
        .expect("a valid template"),
    );
    bar.set_position(done);
    bar
}

/// Records read, at most, to tell a positions file from a labelled one (past the positions
/// labelled by their games' results, which both may hold).
const RESULTS_LOOKED_PAST: usize = 4096;

/// Games played, or positions scored, between two flushes to disk.
const CHUNK: usize = 256;

impl TrainArgs {
    /// Runs the step.
    ///
    /// # Errors
    /// [`CliError`] for unusable arguments or files.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        match self.step {
            Step::Selfplay(args) => args.run(out),
            Step::Label(args) => args.run(out),
            Step::Fit(args) => args.run(out),
            Step::Measure(args) => args.run(out),
            Step::Probcut(args) => args.run(out),
            Step::Merge(args) => args.run(out),
            Step::Pack(args) => args.run(out),
            Step::Unpack(args) => args.run(out),
            Step::Dedup(args) => args.run(out),
            Step::Error(args) => args.run(out),
            Step::Run(args) => args.run(out),
        }
    }
}

fn write_error(path: &Path) -> impl Fn(std::io::Error) -> CliError + '_ {
    move |source| CliError::WriteFile {
        path: path.to_owned(),
        source,
    }
}

fn read_error(path: &Path) -> impl Fn(std::io::Error) -> CliError + '_ {
    move |source| CliError::Read {
        path: path.to_owned(),
        source,
    }
}

impl SelfPlayArgs {
    fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let kind = self.kind.kind();
        // An opening must leave a move to play: 59 random moves at most on 8 x 8. The
        // default is cut to fit a small board; an opening asked for is refused.
        let longest = (kind.shape.cells() as u32).saturating_sub(5);
        let opening = match self.opening {
            None => (
                DEFAULT_OPENING.0.min(longest),
                DEFAULT_OPENING.1.min(longest),
            ),
            Some((_, high)) if high > longest => {
                return Err(CliError::Usage {
                    message: format!(
                        "an opening of up to {high} random moves is longer than a game of \
                         {kind} allows: at most {longest}"
                    ),
                });
            }
            Some(opening) => opening,
        };
        let options = SelfPlayOptions {
            kind,
            seed: self.seed,
            opening,
            depth: self.depth,
            randomness: self.randomness,
            random_games: self.random_games,
            eval: evaluator_for(self.weights.as_deref(), kind)?,
            selectivity: self.selectivity,
            solve_empties: self.solve,
            result_labels: self.result_labels,
        };
        let options = match self.level {
            Some(level) => options.at_level(level),
            None => options,
        };
        let mut words = vec![
            "selfplay".to_owned(),
            kind.to_string(),
            self.games.to_string(),
            self.seed.to_string(),
            options.depth.to_string(),
            self.randomness.to_string(),
            self.random_games.to_string(),
            format!("{opening:?}"),
        ];
        // Named only where used, so the runs begun before these options go on.
        if options.selectivity != Selectivity::NONE
            || options.solve_empties != 0
            || options.result_labels.is_some()
        {
            words.extend([
                options.selectivity.to_string(),
                options.solve_empties.to_string(),
                format!("{:?}", options.result_labels),
            ]);
        }
        let run = run_id(&words, self.weights.as_deref(), kind)?;
        let weights = self.weights.as_deref().map(Path::new);
        check_step_output(
            &self.out,
            &weights.into_iter().collect::<Vec<_>>(),
            OutputKind::Positions,
            self.force,
        )?;
        let shard = self.shard.unwrap_or(Shard::WHOLE);
        let header = SampleHeader {
            kind,
            shard,
            run,
            complete: false,
        };
        let games = shard.range(u64::from(self.games));
        let (first, end) = (games.start as u32, games.end as u32);
        if finished(&self.out, header) {
            writeln!(
                out,
                "games {first}..{end} of {kind}: done before -> {}",
                self.out.display()
            )?;
            return Ok(());
        }
        // Games are written whole and in order: go on from the last game begun (which a
        // stop may have cut short), dropping what it has. The first open makes the file, or
        // checks that it holds this run's positions.
        drop(SampleWriter::append(&self.out, header).map_err(write_error(&self.out))?);
        let next = resume_point(&self.out)
            .map_err(read_error(&self.out))?
            .map_or(first, |last| last.clamp(first, end));
        let (mut writer, _) =
            SampleWriter::append(&self.out, header).map_err(write_error(&self.out))?;
        let start = Instant::now();
        let bar = progress_bar(u64::from(end - first), u64::from(next - first), "games");
        let mut positions = 0u64;
        let mut game = next;
        while game < end {
            let stop = (game + CHUNK as u32).min(end);
            let chunk: Vec<Vec<Sample>> = (game..stop)
                .into_par_iter()
                .map_init(game_table, |tt, number| {
                    self_play_game(number, &options, tt)
                })
                .collect();
            for samples in &chunk {
                writer.write(samples).map_err(write_error(&self.out))?;
                positions += samples.len() as u64;
            }
            writer.flush().map_err(write_error(&self.out))?;
            bar.set_position(u64::from(stop - first));
            game = stop;
        }
        writer.finish().map_err(write_error(&self.out))?;
        bar.finish_and_clear();
        writeln!(
            out,
            "games {next}..{end} of {kind}: {positions} positions in {:.1} s -> {}",
            start.elapsed().as_secs_f64(),
            self.out.display()
        )?;
        Ok(())
    }
}

/// Refuses an `out` that exists and is not a regular file (a directory, a FIFO, a device),
/// `--force` or not: [`write_whole`] would put a file in its place.
fn refuse_irregular(out: &Path) -> Result<(), CliError> {
    if crate::files::is_irregular(out) {
        return Err(CliError::Usage {
            message: format!(
                "--out {}: not a regular file, so not replaced",
                out.display()
            ),
        });
    }
    Ok(())
}

/// Writes a whole file with `write`, beside `out` under a name of its own (`doing` and the
/// process's number in it), then renames it to `out`: a stop leaves no part of it where the
/// whole is expected, and a failure or Ctrl-C (which `write` sees as [`stopped`]) removes
/// it. Parts left by runs that were killed are removed first.
fn write_whole<T>(
    out: &Path,
    doing: &str,
    write: impl FnOnce(&Path) -> Result<T, CliError>,
) -> Result<T, CliError> {
    refuse_irregular(out)?;
    crate::cli::progress::catch_interrupts();
    let dir = match out.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => {
            std::fs::create_dir_all(parent).map_err(write_error(parent))?;
            parent
        }
        None => Path::new("."),
    };
    let name = out
        .file_name()
        .map_or_else(|| "out".into(), |name| name.to_string_lossy());
    let prefix = format!(".{name}.{doing}-");
    remove_dead_parts(dir, &prefix);
    let partial = dir.join(format!("{prefix}{}", std::process::id()));
    match write(&partial) {
        Ok(done) => {
            std::fs::rename(&partial, out).map_err(write_error(out))?;
            Ok(done)
        }
        Err(error) => {
            let _ = std::fs::remove_file(&partial);
            Err(error)
        }
    }
}

/// Removes the parts (`prefix` and a process number) that processes no longer running left
/// in `dir`: a run killed outright cannot remove its own. Only where `/proc` tells which
/// processes run.
fn remove_dead_parts(dir: &Path, prefix: &str) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|name| name.strip_prefix(prefix))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The error of a whole-file step stopped by Ctrl-C, if it was: nothing is written.
fn stopped() -> Result<(), CliError> {
    if crate::cli::progress::interrupted() {
        return Err(CliError::Usage {
            message: "stopped (Ctrl-C): nothing written".to_owned(),
        });
    }
    Ok(())
}

/// An evaluation named on the command line (see [`evaluator`]) for positions of `kind`: a
/// weights file for another kind of game is refused, not quietly replaced by `classic`.
fn evaluator_for(name: Option<&str>, kind: GameKind) -> Result<Evaluator, CliError> {
    let evaluator = evaluator(name)?;
    if let Some(path) = name.filter(|name| !matches!(*name, "classic" | "built-in"))
        && super::weights_file_kind(evaluator) != kind
    {
        return Err(CliError::Usage {
            message: format!(
                "--weights {path}: {}, not {kind}",
                super::weights_kind(evaluator)
            ),
        });
    }
    Ok(evaluator)
}

/// A fingerprint of a step's options, `words`, and of the evaluation it uses on positions
/// of `kind` (a weights file by its contents, the built-in one by the weights compiled in
/// for `kind`, which change while the program's version stays): a step goes on with a file
/// only under the same.
fn run_id(words: &[String], weights: Option<&str>, kind: GameKind) -> Result<u64, CliError> {
    let file;
    let evaluation: &[u8] = match weights {
        // Where no weights are compiled in, the built-in evaluation is `classic`.
        None | Some("built-in") => {
            othello::engine::pattern::builtin_file(kind).unwrap_or(b"classic")
        }
        Some("classic") => b"classic",
        Some(path) => {
            let path = Path::new(path);
            file = crate::files::read_limited(path, crate::files::WEIGHTS_FILE)
                .map_err(read_error(path))?;
            &file
        }
    };
    Ok(fingerprint(words, evaluation))
}

/// A fingerprint of `words` and `evaluation`, so that merge joins shards of one run only.
/// Never 0 (a file that names no run).
fn fingerprint(words: &[String], evaluation: &[u8]) -> u64 {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for word in words {
        hasher.update(word.as_bytes());
        hasher.update([0]);
    }
    hasher.update(evaluation);
    let digest = hasher.finalize();
    u64::from_le_bytes(digest[..8].try_into().expect("8 bytes")) | 1
}

/// Whether the file at `path` is this step's, finished (run again, the step has nothing
/// to do).
fn finished(path: &Path, header: SampleHeader) -> bool {
    open_samples(path)
        .ok()
        .and_then(|reader| reader.header())
        .is_some_and(|found| found.complete && found.run == header.run && found.same_step(header))
}

/// The samples file at `path`, if it is a regular file (a FIFO named by mistake would wait
/// for a writer, a device never end).
fn open_samples(path: &Path) -> std::io::Result<SampleReader> {
    SampleReader::from_file(crate::files::open_regular(path)?, path)
}

/// The samples file at `path` as a step's input, with its header: refused if it has no
/// positions or its step has not finished (a file that does not say is taken as finished,
/// unless it ends part-way through a record).
fn open_finished(path: &Path) -> Result<(SampleReader, SampleHeader), CliError> {
    let reader = open_samples(path).map_err(read_error(path))?;
    let Some(header) = reader.header() else {
        return Err(CliError::Usage {
            message: format!("{} has no positions yet", path.display()),
        });
    };
    if header.run == 0 && reader.cut() {
        return Err(CliError::Usage {
            message: format!(
                "{} ends part-way through a position: it was cut short, or its step stopped \
                 as it wrote (run the step again to the end)",
                path.display()
            ),
        });
    }
    if !header.complete && header.run != 0 {
        return Err(CliError::Usage {
            message: format!(
                "{} is not finished (its step stopped before the end): run it again to the \
                 end first",
                path.display()
            ),
        });
    }
    Ok((reader, header))
}

/// Every sample of the file at `path` (see [`open_samples`]).
fn read_samples(path: &Path) -> std::io::Result<Vec<Sample>> {
    open_samples(path)?.read_rest()
}

/// Where a positions file stopped: the number of the last game begun (its positions are
/// removed, to be played again whole), or `None` for a file with no positions.
fn resume_point(path: &Path) -> std::io::Result<Option<u32>> {
    let mut reader = open_samples(path)?;
    let (mut last, mut before_last, mut records) = (None, 0u64, 0u64);
    while let Some(sample) = reader.next_sample()? {
        if last != Some(sample.game) {
            last = Some(sample.game);
            before_last = records;
        }
        records += 1;
    }
    if last.is_some() {
        othello::training::sample::truncate(path, before_last)?;
    }
    Ok(last)
}

impl LabelArgs {
    fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let mut inputs = vec![self.input.as_path()];
        inputs.extend(self.weights.as_deref().map(Path::new));
        check_step_output(&self.out, &inputs, OutputKind::Labelled, self.force)?;
        let (reader, header) = open_finished(&self.input)?;
        let options = LabelOptions {
            exact_empties: self.exact,
            depth: self.depth,
            eval: evaluator_for(self.weights.as_deref(), header.kind)?,
            selectivity: self.selectivity,
        };
        let mut words = vec![
            "label".to_owned(),
            header.run.to_string(),
            self.exact.to_string(),
            self.depth.to_string(),
            self.selectivity.to_string(),
        ];
        // An input of the first format names no run: its length tells one from another.
        if header.run == 0 {
            let length = std::fs::metadata(&self.input)
                .map_err(read_error(&self.input))?
                .len();
            words.push(length.to_string());
        }
        let run = run_id(&words, self.weights.as_deref(), header.kind)?;
        let header = match self.shard {
            None => SampleHeader {
                run,
                complete: false,
                ..header
            },
            Some(shard) if header.shard == Shard::WHOLE => SampleHeader {
                shard,
                run,
                complete: false,
                ..header
            },
            Some(_) => {
                return Err(CliError::Usage {
                    message: format!(
                        "{} is already shard {} of a run: label it whole (no --shard), or \
                         merge the shards first (train merge)",
                        self.input.display(),
                        header.shard
                    ),
                });
            }
        };
        let mut samples = reader.read_rest().map_err(read_error(&self.input))?;
        if let Some(shard) = self.shard {
            let range = shard.range(samples.len() as u64);
            samples.truncate(range.end as usize);
            samples.drain(..range.start as usize);
        }
        if finished(&self.out, header) {
            writeln!(
                out,
                "positions of {}: done before -> {}",
                header.kind,
                self.out.display()
            )?;
            return Ok(());
        }
        let (mut writer, done) =
            SampleWriter::append(&self.out, header).map_err(write_error(&self.out))?;
        let done = (done as usize).min(samples.len());
        let start = Instant::now();
        let bar = progress_bar(samples.len() as u64, done as u64, "positions");
        let (mut exact, mut searched, mut results) = (0u64, 0u64, 0u64);
        for chunk in samples[done..].chunks(CHUNK * 16) {
            let labelled: Vec<Sample> = chunk
                .par_iter()
                .map_init(LabelTables::new, |tables, &sample| {
                    label(sample, &options, tables)
                })
                .collect();
            for sample in &labelled {
                match sample.label {
                    Label::Exact => exact += 1,
                    Label::Result => results += 1,
                    _ => searched += 1,
                }
            }
            writer.write(&labelled).map_err(write_error(&self.out))?;
            writer.flush().map_err(write_error(&self.out))?;
            bar.inc(chunk.len() as u64);
        }
        writer.finish().map_err(write_error(&self.out))?;
        bar.finish_and_clear();
        let kept = if results > 0 {
            format!(", {results} kept their games' results")
        } else {
            String::new()
        };
        writeln!(
            out,
            "positions {}..{}: {exact} solved exactly, {searched} searched to depth {}{kept} in {:.1} s -> {}",
            done,
            samples.len(),
            self.depth,
            start.elapsed().as_secs_f64(),
            self.out.display()
        )?;
        Ok(())
    }
}

impl FitArgs {
    fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let inputs: Vec<&Path> = self.input.iter().map(PathBuf::as_path).collect();
        check_step_output(&self.out, &inputs, OutputKind::Weights, self.force)?;
        let mut samples = Vec::new();
        for path in &self.input {
            let read = if self.unfinished {
                read_samples(path)
            } else {
                open_finished(path)?.0.read_rest()
            }
            .map_err(read_error(path))?;
            if samples.is_empty() {
                samples = read;
            } else {
                samples.extend(read);
            }
        }
        let labelled = samples.iter().filter(|s| s.label != Label::None).count();
        if labelled == 0 {
            return Err(CliError::Usage {
                message: "no labelled positions to fit to (run othello train label first)"
                    .to_owned(),
            });
        }
        let options = FitOptions {
            epochs: self.epochs,
            learning_rate: self.learning_rate,
            l2: self.l2,
            holdout: self.holdout,
            seed: self.seed,
            min_count: self.min_count,
            blend: self.blend,
            batch: self.batch as usize,
        };
        let kind = samples[0].kind;
        if let Some(other) = samples.iter().find(|sample| sample.kind != kind) {
            return Err(CliError::Usage {
                message: format!(
                    "positions of {kind} and of {}: fit the weights of one kind of game at \
                     a time",
                    other.kind
                ),
            });
        }
        let start = Instant::now();
        let (bytes, phases) = if kind == GameKind::STANDARD {
            let bar = progress_bar(PHASES as u64, 0, "phases");
            let result = fit(&samples, &options, &|_| bar.inc(1));
            bar.finish_and_clear();
            (result.weights.to_bytes(), result.phases)
        } else {
            let bar = progress_bar(phases_for(kind.shape.cells()) as u64, 0, "phases");
            let (weights, phases) = fit_kind(&samples, &options, &|_| bar.inc(1));
            bar.finish_and_clear();
            (weights.to_bytes(), phases)
        };
        if phases.iter().all(|phase| phase.train == 0) {
            return Err(CliError::Usage {
                message: format!(
                    "no position was left to fit: the games of all {labelled} labelled \
                     positions were held out (--holdout {}); nothing was written",
                    self.holdout
                ),
            });
        }
        write_file(&self.out, &bytes)?;
        writeln!(
            out,
            "{labelled} labelled positions, {} epochs, {:.1} s -> {} ({} bytes)",
            self.epochs,
            start.elapsed().as_secs_f64(),
            self.out.display(),
            bytes.len()
        )?;
        writeln!(
            out,
            "phase  empties  positions  held out  error (discs)  held-out error  weights"
        )?;
        let plies = kind.shape.cells() as u32 - 4;
        for phase in &phases {
            write_phase(out, phase, plies, phases.len())?;
        }
        let total = |pick: fn(&PhaseFit) -> (usize, f64)| {
            let (count, sum) = phases
                .iter()
                .map(pick)
                .filter(|(_, e)| e.is_finite())
                .fold((0usize, 0.0f64), |(c, s), (n, e)| (c + n, s + n as f64 * e));
            if count == 0 {
                f64::NAN
            } else {
                sum / count as f64
            }
        };
        writeln!(
            out,
            "all                                   {:>13}  {:>14}",
            error_cell(total(|p| (p.train, p.train_error))),
            error_cell(total(|p| (p.held_out, p.held_out_error)))
        )?;
        Ok(())
    }
}

/// An error in the fit's table: "-" where there were no positions to measure it on.
fn error_cell(error: f64) -> String {
    if error.is_finite() {
        format!("{error:.2}")
    } else {
        "-".to_owned()
    }
}

/// One line of the fit's table; the phases cut the game's `plies` in `phases` equal parts.
fn write_phase(
    out: &mut impl Write,
    phase: &PhaseFit,
    plies: u32,
    phases: usize,
) -> std::io::Result<()> {
    let of_phase =
        || (0..=plies).filter(|&empties| phase_of(plies, phases, empties) == phase.phase);
    let (least, most) = (of_phase().min().unwrap_or(0), of_phase().max().unwrap_or(0));
    let weights = match phase.copied_from {
        Some(from) => format!("{} (phase {from}'s: none of its own)", phase.weights_used),
        None => phase.weights_used.to_string(),
    };
    writeln!(
        out,
        "{:>5}  {:>7}  {:>9}  {:>8}  {:>13}  {:>14}  {:>7}",
        phase.phase,
        format!("{least}-{most}"),
        phase.train,
        phase.held_out,
        error_cell(phase.train_error),
        error_cell(phase.held_out_error),
        weights
    )
}

/// Writes `bytes` to `path` through a temporary file beside it: a stop leaves the old file
/// or the new one, never a part.
pub(super) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    crate::files::write_bytes(path, bytes).map_err(write_error(path))
}

/// What a step's `--out` may be ([`check_output`]): a new file, or a file of the step's
/// own kind, which it goes on with (or, for `fit`, replaces); a label step costs hours, so
/// its output must not be lost to a typo. A file of another kind that `--force` replaces is
/// removed: the step starts a new file rather than going on with another kind.
fn check_step_output(
    out: &Path,
    inputs: &[&Path],
    own: OutputKind,
    force: bool,
) -> Result<(), CliError> {
    if check_output(out, inputs, own, force)? {
        std::fs::remove_file(out).map_err(write_error(out))?;
    }
    Ok(())
}

/// The kinds of file the training steps write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OutputKind {
    /// Positions from `selfplay`.
    Positions,
    /// Positions with labels, from `label`.
    Labelled,
    /// A positions file with no whole record yet: a `selfplay` or `label` step stopped as
    /// it began.
    NoSamples,
    /// Positions all labelled by their games' results (as far as it was read): a `selfplay
    /// --result-labels` output with nothing left to label, or a `label` output of one.
    ResultsOnly,
    /// Weights, from `fit`.
    Weights,
    /// A selective search's model, from `probcut`.
    CutModel,
}

impl OutputKind {
    /// What the file at `path` holds, read from its start; `None` for anything else.
    fn read(path: &Path) -> Option<OutputKind> {
        let mut start = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(crate::files::open_regular(path).ok()?, 8),
            &mut start,
        )
        .ok()?;
        if start == PatternWeights::MAGIC || start == ShapedWeights::MAGIC {
            return Some(OutputKind::Weights);
        }
        if start.starts_with(b"{") {
            let text = crate::files::read_text(path, crate::files::GAME_FILE).ok()?;
            let model: CutModel = serde_json::from_str(&text).ok()?;
            return (model.version == CutModel::VERSION).then_some(OutputKind::CutModel);
        }
        // Self-play may label positions by their games' results, and `label` keeps those:
        // what tells the two files apart is the first position labelled otherwise.
        let mut reader = open_samples(path).ok()?;
        let mut results = false;
        for _ in 0..RESULTS_LOOKED_PAST {
            match reader.next_sample().ok()? {
                None if results => return Some(OutputKind::ResultsOnly),
                None => return Some(OutputKind::NoSamples),
                Some(sample) => match sample.label {
                    Label::Result => results = true,
                    Label::None => return Some(OutputKind::Positions),
                    Label::Exact | Label::Searched(_) => return Some(OutputKind::Labelled),
                },
            }
        }
        Some(OutputKind::ResultsOnly)
    }
}

impl output::OutputKind for OutputKind {
    fn words(self) -> &'static str {
        match self {
            OutputKind::Positions => "positions (a selfplay output)",
            OutputKind::Labelled => "labelled positions (a label output)",
            OutputKind::NoSamples => "a positions file with no whole record",
            OutputKind::ResultsOnly => "positions labelled by their games' results",
            OutputKind::Weights => "weights (a fit output)",
            OutputKind::CutModel => "a model (a probcut output)",
        }
    }

    fn of(path: &Path) -> Result<OutputKind, &'static str> {
        OutputKind::read(path).ok_or("no training file of this program's")
    }

    /// A positions file with no whole record (a step stopped as it began) is the start of
    /// either step's file: it goes on as one. So is one of results only, which either step
    /// may have written.
    fn accepts(self, found: OutputKind) -> bool {
        self == found
            || matches!(found, OutputKind::NoSamples | OutputKind::ResultsOnly)
                && matches!(self, OutputKind::Positions | OutputKind::Labelled)
    }
}

impl ProbcutArgs {
    pub(super) fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let mut inputs = vec![self.input.as_path()];
        inputs.extend(self.weights.as_deref().map(Path::new));
        check_step_output(&self.out, &inputs, OutputKind::CutModel, self.force)?;
        let (reader, header) = open_finished(&self.input)?;
        let kind = header.kind;
        let eval = evaluator_for(self.weights.as_deref(), kind)?;
        let samples = reader.read_rest().map_err(read_error(&self.input))?;
        // Midgame: from 15 empties to 8 after the start (56 on 8 x 8).
        let cells = kind.shape.cells() as u32;
        let opening = cells.saturating_sub(8);
        if opening < 15 {
            return Err(CliError::Usage {
                message: format!(
                    "{kind} is too small for a model: its midgame positions would have 15 to \
                     {opening} empty squares"
                ),
            });
        }
        let pick = |range: std::ops::RangeInclusive<u32>, count: u32, salt: u64| {
            let mut fitting: Vec<Sample> = samples
                .iter()
                .filter(|sample| range.contains(&sample.empties()))
                .copied()
                .collect();
            let mut rng = StdRng::seed_from_u64(self.seed ^ salt);
            fitting.shuffle(&mut rng);
            fitting.truncate(count as usize);
            fitting
        };
        let midgame = pick(15..=opening, self.positions, 0x6d69_6467);
        let endgame = pick(
            ENDGAME_MIN_EMPTIES..=self.exact,
            self.endgame_positions,
            0x656e_6467,
        );
        for (found, asked, range) in [
            (midgame.len(), self.positions, format!("15 to {opening}")),
            (
                endgame.len(),
                self.endgame_positions,
                format!("{ENDGAME_MIN_EMPTIES} to {}", self.exact),
            ),
        ] {
            if found < MIN_PROBCUT_POSITIONS as usize {
                return Err(CliError::Usage {
                    message: format!(
                        "{} has {found} positions with {range} empty squares: a model needs \
                         {MIN_PROBCUT_POSITIONS} at least",
                        self.input.display(),
                    ),
                });
            }
            if found < asked as usize {
                writeln!(
                    out,
                    "only {found} positions with {range} empty squares, of the {asked} asked"
                )?;
            }
        }
        let name = match self.weights.as_deref() {
            Some(path) if !matches!(path, "classic" | "built-in") => path.to_owned(),
            _ => eval.describe(kind.variant, kind.shape, kind.rule),
        };
        let start = Instant::now();
        let bar = progress_bar(midgame.len() as u64, 0, "midgame positions");
        let midgame_pairs: Vec<probcut::Pair> = midgame
            .par_iter()
            .flat_map_iter(|sample| {
                let pairs = probcut::midgame_pairs(sample, eval, self.depth);
                bar.inc(1);
                pairs
            })
            .collect();
        bar.finish_and_clear();
        let bar = progress_bar(endgame.len() as u64, 0, "endgame positions");
        let endgame_pairs: Vec<probcut::Pair> = endgame
            .par_iter()
            .filter_map(|sample| {
                let pair = probcut::endgame_pair(sample, eval);
                bar.inc(1);
                pair
            })
            .collect();
        bar.finish_and_clear();
        let fitted_on = format!(
            "{} midgame positions of {} searched to depth {}, {} endgame positions solved \
             (up to {} empties), seed {}",
            midgame.len(),
            self.input
                .file_name()
                .map_or(String::new(), |name| name.to_string_lossy().into_owned()),
            self.depth,
            endgame.len(),
            self.exact,
            self.seed
        );
        let model = probcut::fit_model(kind, &midgame_pairs, &endgame_pairs, &name, &fitted_on)
            .map_err(|error| CliError::Usage {
                message: error.to_string(),
            })?;
        let mut text = serde_json::to_string_pretty(&model).expect("a model serializes");
        text.push('\n');
        write_file(&self.out, text.as_bytes())?;
        writeln!(
            out,
            "{} midgame and {} endgame pairs of {kind} with {name} in {:.1} s -> {}",
            midgame_pairs.len(),
            endgame_pairs.len(),
            start.elapsed().as_secs_f64(),
            self.out.display()
        )?;
        write_cut_table(
            out,
            "depth",
            &midgame_pairs,
            |pair| pair.depth,
            |depth, empties| model.midgame(depth, empties),
        )?;
        write_cut_table(
            out,
            "empties",
            &endgame_pairs,
            |pair| pair.empties,
            |_, empties| model.endgame(empties),
        )?;
        Ok(())
    }
}

/// For each value of `key` among `pairs`: how many, the error's mean and deviation
/// measured, and the fitted model's at their mean empties; in discs.
fn write_cut_table(
    out: &mut impl Write,
    name: &str,
    pairs: &[probcut::Pair],
    key: impl Fn(&probcut::Pair) -> u32,
    fitted: impl Fn(u32, u32) -> (i32, i32),
) -> Result<(), CliError> {
    writeln!(
        out,
        "{name:>7}  pairs  mean  deviation  fitted mean  fitted deviation (discs)"
    )?;
    let mut keys: Vec<u32> = pairs.iter().map(&key).collect();
    keys.sort_unstable();
    keys.dedup();
    let disc = f64::from(othello::engine::eval::DISC);
    for value in keys {
        let group: Vec<&probcut::Pair> = pairs.iter().filter(|p| key(p) == value).collect();
        let count = group.len() as f64;
        let mean = group.iter().map(|p| f64::from(p.error)).sum::<f64>() / count;
        let deviation = (group
            .iter()
            .map(|p| (f64::from(p.error) - mean).powi(2))
            .sum::<f64>()
            / count)
            .sqrt();
        let empties = (group.iter().map(|p| f64::from(p.empties)).sum::<f64>() / count).round();
        let (fitted_mean, fitted_deviation) = fitted(value, empties as u32);
        writeln!(
            out,
            "{value:>7}  {:>5}  {:>4.2}  {:>9.2}  {:>11.2}  {:>16.2}",
            group.len(),
            mean / disc,
            deviation / disc,
            f64::from(fitted_mean) / disc,
            f64::from(fitted_deviation) / disc
        )?;
    }
    Ok(())
}

impl MeasureArgs {
    fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let kind = self.kind.kind();
        if kind != GameKind::STANDARD && !self.moves_only {
            return Err(CliError::Usage {
                message: format!(
                    "on {kind} only move quality is measured: add --moves-only (the \
                     predictions' positions are the standard board's)"
                ),
            });
        }
        let known = match &self.solved {
            Some(path) => SolvedFile::read(path)?,
            None => measure::KnownScores::default(),
        };
        let names = [
            self.weights
                .clone()
                .unwrap_or_else(|| "built-in".to_owned()),
            self.against.clone(),
        ];
        let evals = [
            evaluator_for(self.weights.as_deref(), kind)?,
            evaluator_for(Some(&self.against), kind)?,
        ];
        let count = self.positions as usize;
        let start = Instant::now();
        // Games are searched for positions until there are enough, or a thousand games a
        // position asked for were played (a range the games seldom reach).
        let positions = |empties: (u32, u32)| -> Vec<Sample> {
            (0u32..(count as u32).saturating_mul(1000))
                .step_by(64)
                .flat_map(|first| {
                    (first..first + 64)
                        .into_par_iter()
                        .filter_map(|game| measure::pick_position(kind, self.seed, game, empties))
                        .collect::<Vec<_>>()
                })
                .take(count)
                .collect()
        };
        let width = names.iter().map(String::len).max().unwrap_or(8).max(8);

        let endgame = self.endgame;
        let range = self.empties.unwrap_or((endgame, endgame + 4));
        // Positions come after at least one move of a game.
        let most = kind.shape.cells() as u32 - 5;
        if range.0 > most {
            return Err(CliError::Usage {
                message: format!(
                    "{kind} has no positions with {} to {} empty squares after a move (at most \
                     {most}): give --empties within that",
                    range.0, range.1
                ),
            });
        }
        let near_end = positions(range);
        if near_end.is_empty() {
            return Err(CliError::Usage {
                message: format!(
                    "no game of {kind} reached {} to {} empty squares with a move to make",
                    range.0, range.1
                ),
            });
        }
        let bar = progress_bar(count as u64, 0, "positions solved");
        let (limits, search) = match (self.time, self.nodes) {
            (Some(ms), _) => (
                Limits::time(std::time::Duration::from_millis(ms)),
                format!("{ms} ms search"),
            ),
            (None, Some(nodes)) => (Limits::nodes(nodes), format!("{nodes}-node search")),
            (None, None) => (
                Limits::depth(self.depth),
                format!("depth-{} search", self.depth),
            ),
        };
        let players = [
            (evals[0], self.selectivity),
            (evals[1], self.against_selectivity),
        ];
        let losses: Vec<Vec<i32>> = near_end
            .par_iter()
            .map(|sample| {
                let losses = measure::move_losses(sample, &players, &limits, &known);
                bar.inc(1);
                losses
            })
            .collect();
        bar.finish_and_clear();
        if let Some(path) = &self.solved {
            SolvedFile::write(path, &known)?;
        }
        writeln!(
            out,
            "Move quality: {} positions of {kind} at {}-{} empties (seed {}), the move a {search} chooses, scored exactly",
            near_end.len(),
            range.0,
            range.1,
            self.seed,
        )?;
        let choosers: Vec<String> = names
            .iter()
            .zip(players)
            .map(|(name, (_, selectivity))| {
                if selectivity.is_none() {
                    name.clone()
                } else {
                    format!("{name} @{selectivity}")
                }
            })
            .collect();
        let chooser_width = choosers
            .iter()
            .map(String::len)
            .max()
            .unwrap_or(8)
            .max(width);
        for (index, name) in choosers.iter().enumerate() {
            let mean =
                losses.iter().map(|l| f64::from(l[index])).sum::<f64>() / losses.len() as f64;
            let best = losses.iter().filter(|l| l[index] == 0).count();
            writeln!(
                out,
                "  {name:<chooser_width$}  mean loss {mean:6.3} discs  best move {:5.1} %",
                100.0 * best as f64 / losses.len() as f64
            )?;
        }
        if self.moves_only {
            writeln!(out, "({:.0} s)", start.elapsed().as_secs_f64())?;
            return Ok(());
        }

        let at_twenty = positions((endgame, endgame));
        let bar = progress_bar(count as u64, 0, "positions solved");
        let exact: Vec<Sample> = at_twenty
            .par_iter()
            .map(|sample| {
                let solved = measure::solved(sample);
                bar.inc(1);
                solved
            })
            .collect();
        bar.finish_and_clear();
        writeln!(
            out,
            "Prediction: static evaluation against the exact score, {} positions at {endgame} empties",
            exact.len()
        )?;
        for (index, name) in names.iter().enumerate() {
            let error = mean_error(&exact, evals[index]);
            writeln!(
                out,
                "  {name:<width$}  mean absolute error {error:5.2} discs"
            )?;
        }

        let midgame = positions((30, 40));
        let bar = progress_bar(2 * count as u64, 0, "positions searched");
        let references: Vec<[Sample; 2]> = midgame
            .par_iter()
            .map(|sample| {
                let searched = evals.map(|eval| measure::searched(sample, eval, self.deep));
                bar.inc(2);
                searched
            })
            .collect();
        bar.finish_and_clear();
        writeln!(
            out,
            "Prediction: static evaluation against a depth-{} search, {} positions at 30-40 empties",
            self.deep,
            references.len()
        )?;
        for (reference, reference_name) in names.iter().enumerate() {
            let scored: Vec<Sample> = references.iter().map(|pair| pair[reference]).collect();
            for (index, name) in names.iter().enumerate() {
                let error = mean_error(&scored, evals[index]);
                writeln!(
                    out,
                    "  {name:<width$}  mean absolute error {error:5.2} discs (search with {reference_name})"
                )?;
            }
        }
        writeln!(out, "({:.0} s)", start.elapsed().as_secs_f64())?;
        Ok(())
    }
}

/// The mean absolute difference in discs between `eval`'s static score and each sample's
/// label.
fn mean_error(samples: &[Sample], eval: Evaluator) -> f64 {
    samples
        .iter()
        .map(|sample| (measure::static_score(sample, eval) - f64::from(sample.score) / 100.0).abs())
        .sum::<f64>()
        / samples.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use othello::Variant;

    use super::*;

    /// A run is named by the weights it plays with, not by the program's version: a run
    /// begun with the built-in weights does not go on once they have changed.
    #[test]
    fn a_run_is_named_by_the_weights_it_plays_with() {
        let words = vec!["selfplay".to_owned()];
        let id = |weights, kind| run_id(&words, weights, kind).unwrap();
        let standard = GameKind::STANDARD;
        let six = GameKind::new(Variant::Full, Shape::new(6, 6).unwrap(), WinRule::MostDiscs);
        let simple = GameKind::new(Variant::Simple, Shape::STANDARD, WinRule::MostDiscs);
        assert_eq!(id(None, standard), id(Some("built-in"), standard));
        // Other weights compiled in, another run (the words aside).
        assert_ne!(id(None, standard), id(None, six));
        assert_ne!(id(None, six), id(Some("classic"), six));
        // Where none are compiled in, the built-in evaluation is `classic`.
        assert_eq!(id(None, simple), id(Some("classic"), simple));
        // A file of the weights compiled in plays as they do.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("six.bin");
        std::fs::write(&path, othello::engine::pattern::builtin_file(six).unwrap()).unwrap();
        assert_eq!(id(path.to_str(), six), id(None, six));
    }
}
