//! `othello analyze FILE`: every move of a saved game against the best the engine finds in
//! its place, with what it lost; as text (the lines the play prompt's `analyze` prints) or
//! one JSON object.

use std::{
    io::{IsTerminal, Write},
    path::PathBuf,
    time::Duration,
};

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use othello::{
    Color, LoadSettings, Setup, Shape, Variant,
    analysis::{self, MoveReview, RankOptions, Verdict},
    engine::{Limits, Selectivity},
};
use serde::Serialize;

use super::{CliError, Rules, ThreadsArg, WeightsArg, hash_megabytes};
use crate::play;

/// `othello analyze FILE [--time MS] [--rules ..] [--json]`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// The game: a record, GGF, transcript, grader input (a bare transcript is played from
    /// the standard 8x8 start unless --rules says otherwise).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Time to review each move, in milliseconds: half to find the best move (exact where
    /// the solver finishes in it), half to score the move played when it is another.
    #[arg(long, value_name = "MS", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    time: u64,
    /// Rule set for a file that does not state its own.
    #[arg(long, value_enum)]
    rules: Option<Rules>,
    /// Transposition table size in MiB (default: sized to the time).
    #[arg(long, value_name = "MIB", value_parser = hash_megabytes)]
    hash: Option<u64>,
    #[command(flatten)]
    threads: ThreadsArg,
    /// How sure the search's selective cuts must be: 73, 87, 95, 98, 99 or 100 (percent).
    #[arg(long, value_name = "PERCENT", default_value_t = Selectivity::DEFAULT)]
    selectivity: Selectivity,
    #[command(flatten)]
    weights: WeightsArg,
    /// One JSON object: {"rules":..,"moves":[{"ply":1,"side":"B","move":"f5","score":..,
    /// "best":"f5","best_score":..,"loss":0.0,"exact":false,"verdict":"fine"},..],
    /// "summary":{"black":{..},"white":{..}}}.
    #[arg(long)]
    json: bool,
}

impl AnalyzeArgs {
    /// Reviews the game and prints the review.
    ///
    /// # Errors
    /// [`CliError`] for a file that cannot be read or played, or failed output.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let variant = self.rules.map_or(Variant::Full, Variant::from);
        let settings = LoadSettings {
            variant: self.rules.map(Variant::from),
            ..LoadSettings::defaults(variant, Setup::standard(Shape::STANDARD))
        };
        let record = play::read_record(&self.file, &settings)?;
        let time = Duration::from_millis(self.time);
        let options = RankOptions {
            limits: Limits::time(time),
            hash: self.hash.map(|mib| mib as usize),
            threads: self.threads.or_all_cores(),
            selectivity: self.selectivity,
            eval: self.weights.evaluator(
                record.variant,
                record.setup.board.shape(),
                record.setup.win_rule,
            )?,
            ..RankOptions::new(record.variant, 1)
        };
        let target = if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(record.moves.len() as u64), target);
        bar.set_style(
            ProgressStyle::with_template("analyzing {bar:30} {pos}/{len} moves {elapsed}")
                .expect("a valid template"),
        );
        let reviews = analysis::review_game(
            record.variant,
            &record.setup,
            &record.moves,
            &options,
            &mut |done| bar.set_position(done as u64),
        );
        bar.finish_and_clear();
        if self.json {
            let report = Report::new(record.variant, &reviews);
            serde_json::to_writer(&mut *out, &report).map_err(std::io::Error::other)?;
            writeln!(out)?;
        } else {
            for line in play::review_lines(&reviews) {
                writeln!(out, "{line}")?;
            }
        }
        out.flush()?;
        Ok(())
    }
}

/// The review in JSON.
#[derive(Serialize)]
struct Report {
    rules: &'static str,
    moves: Vec<MoveJson>,
    summary: Sides,
}

#[derive(Serialize)]
struct MoveJson {
    /// 1-based.
    ply: usize,
    side: char,
    #[serde(rename = "move")]
    played: String,
    score: f64,
    best: String,
    best_score: f64,
    loss: f64,
    exact: bool,
    verdict: &'static str,
}

#[derive(Serialize)]
struct Sides {
    black: SideJson,
    white: SideJson,
}

#[derive(Serialize)]
struct SideJson {
    moves: usize,
    total_loss: f64,
    mistakes: usize,
    blunders: usize,
    worst: Option<Worst>,
}

#[derive(Serialize)]
struct Worst {
    ply: usize,
    #[serde(rename = "move")]
    played: String,
    loss: f64,
}

impl Report {
    fn new(variant: Variant, reviews: &[MoveReview]) -> Report {
        let side = |summary: analysis::SideSummary| SideJson {
            moves: summary.moves,
            total_loss: summary.total_loss.discs(),
            mistakes: summary.mistakes,
            blunders: summary.blunders,
            worst: summary.worst.map(|worst| Worst {
                ply: worst.ply + 1,
                played: worst.played.to_string(),
                loss: worst.loss.discs(),
            }),
        };
        let othello::ByColor { black, white } = analysis::summarize(reviews);
        Report {
            rules: variant.name(),
            moves: reviews
                .iter()
                .map(|review| MoveJson {
                    ply: review.ply + 1,
                    side: Color::letter(review.side),
                    played: review.played.to_string(),
                    score: review.played_score.discs(),
                    best: review.best.to_string(),
                    best_score: review.best_score.discs(),
                    loss: review.loss.discs(),
                    exact: review.exact,
                    verdict: match review.verdict() {
                        Verdict::Fine => "fine",
                        Verdict::Mistake => "mistake",
                        Verdict::Blunder => "blunder",
                    },
                })
                .collect(),
            summary: Sides {
                black: side(black),
                white: side(white),
            },
        }
    }
}
