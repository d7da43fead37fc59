//! `othello zero`: the AlphaZero-style player trained by the program itself (see
//! docs/zero.md): `train` runs (or resumes) the loop in a directory, a line per iteration.

use std::{io::Write, path::PathBuf};

use clap::{Args, Subcommand};
use othello::training::zero::{Iteration, Run, ZeroSettings};
use othello::{GameKind, Shape, WinRule};

use super::{CliError, Rules};

/// `othello zero ...`.
#[derive(Debug, Args)]
pub struct ZeroArgs {
    #[command(subcommand)]
    command: ZeroCommand,
}

#[derive(Debug, Subcommand)]
enum ZeroCommand {
    /// Train a net from self-play, iteration after iteration, in a directory: self-play
    /// by the best net, a fit of the latest, a gate, and the best's score against random
    /// and greedy, a line per iteration (also in DIR/iterations.csv).
    ///
    /// The same command again resumes the run (its settings are kept in DIR/zero.json).
    Train(TrainArgs),
}

/// `othello zero train`.
#[derive(Debug, Args)]
struct TrainArgs {
    /// The run's directory (made if need be).
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// Iterations to have done in all (the run stops there; run again with more to go on).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    iterations: u32,
    /// Rule set (a new run; default full).
    #[arg(long, value_enum)]
    rules: Option<Rules>,
    /// Board size, rows x columns (a new run; default 6x6).
    #[arg(long, value_name = "RxC")]
    size: Option<Shape>,
    /// Who wins, most or fewest discs (a new run; default most).
    #[arg(long, value_name = "most|fewest", value_parser = super::win_rule)]
    win: Option<WinRule>,
    /// Filters of each convolution (default: 32 up to 6x6, else 64).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    channels: Option<u32>,
    /// Residual blocks (default: by board size).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=40))]
    blocks: Option<u32>,
    /// Self-play games an iteration.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    games: Option<u32>,
    /// Simulations of each self-play search.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    simulations: Option<u32>,
    /// Mini-batches of each iteration's fit.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    steps: Option<u32>,
    /// Seed of everything random.
    #[arg(long)]
    seed: Option<u64>,
}

impl ZeroArgs {
    /// Runs the subcommand.
    ///
    /// # Errors
    /// A usage error for settings that make no run or another run's directory; a read
    /// error for the run's files.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        match self.command {
            ZeroCommand::Train(args) => args.run(out),
        }
    }
}

impl TrainArgs {
    /// The settings the flags ask for; `None` when none is given and the run exists
    /// (resume it as it was started).
    fn settings(&self) -> Option<ZeroSettings> {
        let given = self.rules.is_some()
            || self.size.is_some()
            || self.win.is_some()
            || self.channels.is_some()
            || self.blocks.is_some()
            || self.games.is_some()
            || self.simulations.is_some()
            || self.steps.is_some()
            || self.seed.is_some();
        if !given && self.dir.join("zero.json").exists() {
            return None;
        }
        let kind = GameKind::new(
            self.rules.unwrap_or(Rules::Full).into(),
            self.size
                .unwrap_or_else(|| Shape::new(6, 6).expect("6x6 is a board")),
            self.win.unwrap_or(WinRule::MostDiscs),
        );
        let mut settings = ZeroSettings::for_kind(kind);
        if let Some(channels) = self.channels {
            settings.channels = channels as usize;
        }
        if let Some(blocks) = self.blocks {
            settings.blocks = blocks as usize;
        }
        if let Some(games) = self.games {
            settings.games = games as usize;
        }
        if let Some(simulations) = self.simulations {
            settings.simulations = simulations;
            settings.match_simulations = simulations;
        }
        if let Some(steps) = self.steps {
            settings.steps = steps as usize;
        }
        if let Some(seed) = self.seed {
            settings.seed = seed;
        }
        Some(settings)
    }

    fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let usage = |error: othello::training::zero::ZeroError| CliError::Usage {
            message: error.to_string(),
        };
        let mut run = Run::open(&self.dir, self.settings()).map_err(usage)?;
        let settings = run.settings().clone();
        writeln!(
            out,
            "{} {} {}: {} channels, {} blocks; {} games of {} simulations an iteration; {} done",
            settings.size,
            settings.rules.to_uppercase(),
            settings.win,
            settings.channels,
            settings.blocks,
            settings.games,
            settings.simulations,
            run.done()
        )?;
        out.flush()?;
        let mut failed = None;
        run.run(self.iterations as usize, &mut |figures| {
            if failed.is_none()
                && let Err(error) = writeln!(out, "{}", line(figures)).and_then(|()| out.flush())
            {
                failed = Some(error);
            }
        })
        .map_err(usage)?;
        if let Some(error) = failed {
            return Err(error.into());
        }
        writeln!(out, "best net: {}", run.best_path().display())?;
        Ok(())
    }
}

/// An iteration's figures in a line.
fn line(figures: &Iteration) -> String {
    format!(
        "iteration {}: {} positions (window {}), loss {:.3} -> {:.3} (policy {:.3}, value {:.3}); \
         gate {:.1} % ({}), best {}: {:.1} % against random, {:.1} % against greedy; \
         {:.1} s self-play, {:.1} s fit, {:.1} s matches",
        figures.iteration,
        figures.positions,
        figures.window,
        figures.loss_before,
        figures.loss_after,
        figures.policy_loss,
        figures.value_loss,
        figures.gate_score * 100.0,
        if figures.accepted { "kept" } else { "not kept" },
        figures.best,
        figures.vs_random * 100.0,
        figures.vs_greedy * 100.0,
        figures.selfplay_seconds,
        figures.fit_seconds,
        figures.match_seconds,
    )
}
