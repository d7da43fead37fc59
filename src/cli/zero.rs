//! `othello zero`: the AlphaZero-style player trained by the program itself (see
//! docs/zero.md): `train` runs (or resumes) the loop in a directory, a line per iteration.

use std::{
    io::{Read, Write},
    path::PathBuf,
};

use clap::{Args, Subcommand};
use othello::arena::{LevelMatch, level_match};
use othello::engine::{
    Limits, PlayerSpec,
    zero::{LoadedNet, NetChoice, ZeroSpec},
};
use othello::training::zero::{
    CURVE_MARK, ExactRow, ExactShare, Iteration, LEVELS, LevelRow, Run, RunRecord, ZeroError,
    ZeroSettings, bests, exact_positions, exact_share, levels_csv, parse_exact, parse_levels,
    shown_levels, tenths_of_percent,
};
use othello::{GameKind, Shape, Variant, WinRule};

use super::{
    CliError, Rules,
    train::{SolvedFile, progress_bar, write_file},
};

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
    /// Measure what a run's nets reached, the best net after each iteration: how often its
    /// moves keep the game's exact value (positions from games of their own, every move
    /// solved exactly, the scores kept in DIR/exact-scores.json so that a measure again
    /// solves only new positions; in DIR/exact.csv), the last one beside other players given
    /// its time a move; then its score against the engine's `classic` levels (in
    /// DIR/levels.csv, where a measure again plays only new nets' games).
    Measure(MeasureArgs),
    /// Draw a run's training curve as an SVG: the best net's score against random and
    /// greedy and, where `zero measure` has measured them, against the `classic` levels and
    /// the share of its moves keeping the exact value, per iteration; below, the losses
    /// after each fit.
    Curve(CurveArgs),
}

/// `othello zero curve`.
#[derive(Debug, Args)]
struct CurveArgs {
    /// The run's directory (only read; the drawing goes to DIR/curve.svg unless --out
    /// says otherwise).
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// Where to write the SVG (default DIR/curve.svg).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// `othello zero measure`.
#[derive(Debug, Args)]
struct MeasureArgs {
    /// The run's directory (it may be training meanwhile: a measure writes only its own
    /// files, exact.csv, exact-scores.json, levels.csv and measure.lock).
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// Positions to measure on (0: no measure against the solver).
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    positions: u32,
    /// Empty squares of the positions, MIN-MAX (default 4-20, or to the most the board
    /// has; each empty square more makes the solves about twice as long).
    #[arg(long, value_name = "MIN-MAX", value_parser = empties_range)]
    empties: Option<(u32, u32)>,
    /// Seed of the games the positions come from, and of the games against the levels
    /// (their openings and the levels' slips).
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Players measured beside the last best net at its mean time a move (comma-separated
    /// SPECs; default classic,engine; none: --against '').
    #[arg(long, value_name = "SPECS", value_delimiter = ',')]
    against: Option<Vec<String>>,
    /// The `classic` levels each best net plays, 1 to 9, comma-separated (none:
    /// --levels ''); neither side has a time limit: the net searches the run's match
    /// simulations a move, a level its own depth.
    #[arg(
        long,
        value_name = "LEVELS",
        value_delimiter = ',',
        default_value = "1,3"
    )]
    levels: Vec<String>,
    /// Games against each level, an even number: pairs of games from random openings,
    /// colours swapped (default: as many as the run's checks against random and greedy).
    #[arg(long, value_parser = even_games)]
    games: Option<u32>,
}

/// `--games`: 2 to 100,000, even (each opening is played with both colours).
fn even_games(text: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .ok()
        .filter(|games| (2..=100_000).contains(games) && games % 2 == 0)
        .ok_or_else(|| {
            format!(
                "{text:?} is not an even number of games from 2 to 100000 (each opening is \
                 played with both colours)"
            )
        })
}

/// The players measured beside the net unless told.
const DEFAULT_AGAINST: [&str; 2] = ["classic", "engine"];

/// A `classic` level for `zero measure --levels`.
fn measured_level(text: &str) -> Result<u8, String> {
    text.parse::<u8>()
        .ok()
        .filter(|level| LEVELS.contains(level))
        .ok_or_else(|| {
            format!(
                "--levels: {text:?} is not a level from {} to {} (level 10 has no depth \
                 limit, and a measure plays without a clock)",
                LEVELS.start(),
                LEVELS.end()
            )
        })
}

/// The most empty squares `zero measure` takes positions at unless told: on 6 × 6 a move
/// there solves in well under a second, at 24 in seconds, at 28 in a minute or more.
const DEFAULT_MOST_EMPTIES: u32 = 20;

/// `MIN-MAX` empty squares.
fn empties_range(text: &str) -> Result<(u32, u32), String> {
    let error = || format!("expected MIN-MAX empty squares, such as 4-28, not {text:?}");
    let (low, high) = text.split_once('-').ok_or_else(error)?;
    let (low, high): (u32, u32) = (
        low.parse().map_err(|_| error())?,
        high.parse().map_err(|_| error())?,
    );
    (1 <= low && low <= high)
        .then_some((low, high))
        .ok_or_else(error)
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
    /// Mini-batches of each iteration's fit (on a resume, the one setting taken: the fits
    /// from the next iteration on)
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
            ZeroCommand::Measure(args) => args.run(out),
            ZeroCommand::Curve(args) => args.run(out),
        }
    }
}

impl TrainArgs {
    /// The settings the flags ask for; `None` when none is given and the run exists
    /// (resume it as it was started).
    fn settings(&self) -> Result<Option<ZeroSettings>, CliError> {
        if self.dir.join("zero.json").exists() {
            // A run resumes as it was started: flags that repeat its settings are welcome,
            // one that differs is refused by name.
            let run = Run::read(&self.dir).map_err(|error| CliError::Usage {
                message: error.to_string(),
            })?;
            let stored = run.settings();
            let kind = stored.kind().map_err(|error| CliError::Usage {
                message: error.to_string(),
            })?;
            // `--steps` is not among them: it changes only the fits to come (below).
            let given: [(&str, Option<String>, String); 8] = [
                (
                    "--rules",
                    self.rules.map(|r| Variant::from(r).name().to_owned()),
                    stored.rules.clone(),
                ),
                (
                    "--size",
                    self.size.map(|s| s.to_string()),
                    kind.shape.to_string(),
                ),
                (
                    "--win",
                    self.win.map(|w| w.name().to_owned()),
                    stored.win.clone(),
                ),
                (
                    "--channels",
                    self.channels.map(|n| n.to_string()),
                    stored.channels.to_string(),
                ),
                (
                    "--blocks",
                    self.blocks.map(|n| n.to_string()),
                    stored.blocks.to_string(),
                ),
                (
                    "--games",
                    self.games.map(|n| n.to_string()),
                    stored.games.to_string(),
                ),
                (
                    "--simulations",
                    self.simulations.map(|n| n.to_string()),
                    stored.simulations.to_string(),
                ),
                (
                    "--seed",
                    self.seed.map(|n| n.to_string()),
                    stored.seed.to_string(),
                ),
            ];
            for (flag, given, stored) in given {
                if let Some(given) = given
                    && given != stored
                {
                    return Err(CliError::Usage {
                        message: format!(
                            "{flag} {given}: {} was started with {flag} {stored}; resume it \
                             without the flag, or start another directory",
                            self.dir.display()
                        ),
                    });
                }
            }
            return Ok(None);
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
        Ok(Some(settings))
    }

    fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let usage = |error: othello::training::zero::ZeroError| CliError::Usage {
            message: error.to_string(),
        };
        // One trainer a run: a second would write the same files beside the first.
        let lock = |dir: &std::path::Path| hold(dir, "zero.lock", "trained", "train");
        let early = if self.dir.is_dir() {
            Some(lock(&self.dir)?)
        } else {
            None
        };
        let mut run = Run::open(&self.dir, self.settings()?).map_err(usage)?;
        let _lock = match early {
            Some(held) => held,
            None => lock(&self.dir)?,
        };
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
        // A resumed run may fit longer or shorter from here on: the data and the nets made
        // so far mean what they meant.
        if let Some(steps) = self.steps
            && steps as usize != run.settings().steps
        {
            writeln!(
                out,
                "fits from iteration {} on: {steps} steps (before: {})",
                run.done() + 1,
                run.settings().steps
            )?;
            run.set_steps(steps as usize).map_err(usage)?;
        }
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

impl MeasureArgs {
    fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let usage = |message: String| CliError::Usage { message };
        let zero_error = |error: ZeroError| usage(error.to_string());
        let run = Run::read(&self.dir).map_err(zero_error)?;
        let kind = run.settings().kind().map_err(zero_error)?;
        let against_given = self.against.is_some();
        let against = match &self.against {
            Some(specs) => specs.iter().map(String::as_str).collect(),
            None => DEFAULT_AGAINST.to_vec(),
        };
        let against = if against == [""] {
            Vec::new()
        } else {
            against
                .into_iter()
                .map(|spec| super::player_spec(spec).map_err(usage))
                .collect::<Result<Vec<_>, _>>()?
        };
        for &spec in &against {
            super::check_fits(spec, kind)?;
        }
        let mut levels = if self.levels == [""] {
            Vec::new()
        } else {
            self.levels
                .iter()
                .map(|level| measured_level(level).map_err(usage))
                .collect::<Result<Vec<_>, _>>()?
        };
        levels.sort_unstable();
        levels.dedup();
        if self.positions == 0 {
            if against_given && !against.is_empty() {
                return Err(usage(
                    "--against measures players on the solver's positions: it needs \
                     --positions above 0"
                        .to_owned(),
                ));
            }
            if levels.is_empty() {
                return Err(usage(
                    "nothing to measure: --positions 0 and no --levels".to_owned(),
                ));
            }
        }
        // Positions come after a move or more, with a move to make.
        let most = kind.shape.cells() as u32 - 5;
        let empties = self.empties.unwrap_or_else(|| {
            let high = most.min(DEFAULT_MOST_EMPTIES);
            (high.min(4), high)
        });
        if empties.1 > most || empties.0 < 1 {
            return Err(usage(format!(
                "--empties {}-{}: {kind} has positions with 1 to {most} empty squares after a \
                 move",
                empties.0, empties.1
            )));
        }
        let mut rows = run.iterations().map_err(zero_error)?;
        // A trainer running meanwhile writes an iteration's row a moment before its state:
        // that iteration is not done yet.
        if rows.len() == run.done() + 1 {
            rows.pop();
        }
        if rows.len() != run.done() {
            return Err(usage(format!(
                "{}: iterations.csv has {} iterations where zero.json says {} are done: the \
                 run's files disagree",
                self.dir.display(),
                rows.len(),
                run.done()
            )));
        }
        // One measure a run at a time: a second would write the same files beside it (a
        // trainer may run meanwhile: it writes none of them).
        let _lock = hold(&self.dir, "measure.lock", "measured", "measure")?;
        let levels_path = self.dir.join("levels.csv");
        let levels_before = if levels.is_empty() || !levels_path.exists() {
            Vec::new()
        } else {
            read_levels(&levels_path)?
        };
        let mut nets = BestNets {
            run: &run,
            dir: &self.dir,
            kind,
            bests: bests(&rows),
            loaded: Vec::new(),
        };
        if self.positions > 0 {
            self.measure_exact(&mut nets, empties, &against, out)?;
        }
        if !levels.is_empty() {
            let games = self
                .games
                .unwrap_or(2 * run.settings().eval_pairs.max(1) as u32);
            self.measure_levels(&mut nets, &levels, games, levels_before, out)?;
        }
        Ok(())
    }

    /// The share of exact moves of each iteration's best net (DIR/exact.csv), then the last
    /// one's beside `against`'s at its time a move.
    fn measure_exact(
        &self,
        nets: &mut BestNets<'_>,
        empties: (u32, u32),
        against: &[PlayerSpec],
        out: &mut impl Write,
    ) -> Result<(), CliError> {
        let kind = nets.kind;
        let scores = self.dir.join("exact-scores.json");
        let known = SolvedFile::read(&scores)?;
        let known_before = known.scores().len();
        let count = self.positions as usize;
        let bar = progress_bar(count as u64, 0, "positions solved");
        let positions = exact_positions(kind, count, empties, self.seed, &known, &|| bar.inc(1));
        bar.finish_and_clear();
        SolvedFile::write(&scores, &known)?;
        let moves: usize = positions.iter().map(|position| position.moves).sum();
        let keeping: usize = positions
            .iter()
            .map(|position| position.keeping.len())
            .sum();
        writeln!(
            out,
            "{} positions of {kind} at {}-{} empties (seed {}), {moves} moves, {keeping} \
             keeping the value ({} positions solved now, {known_before} known from before)",
            positions.len(),
            empties.0,
            empties.1,
            self.seed,
            known.scores().len() - known_before
        )?;
        let simulations = nets.run.settings().match_simulations;
        writeln!(
            out,
            "iteration  best net  keeps the value ({simulations} simulations a move)"
        )?;
        let mut csv = String::from("iteration,best,kept,positions,share\n");
        let mut measured: Vec<(usize, ExactShare)> = Vec::new();
        for (iteration, best) in nets.bests.clone() {
            let share = match measured.iter().find(|(done, _)| *done == best) {
                Some(&(_, share)) => share,
                None => {
                    let spec = nets.spec(best)?;
                    let share = exact_share(&positions, spec, &Limits::NONE, self.seed);
                    measured.push((best, share));
                    share
                }
            };
            writeln!(
                out,
                "{iteration:>9}  {best:>8}  {:>5.1} % ({}/{})",
                share.share() * 100.0,
                share.kept,
                share.positions
            )?;
            out.flush()?;
            csv.push_str(&format!(
                "{iteration},{best},{},{},{:.4}\n",
                share.kept,
                share.positions,
                share.share()
            ));
        }
        write_file(&self.dir.join("exact.csv"), csv.as_bytes())?;
        let Some(&(best, last)) = measured.last() else {
            return Ok(());
        };
        let time = last.mean_time.max(std::time::Duration::from_millis(1));
        writeln!(
            out,
            "At the best net's mean time a move, {:.1} ms:",
            time.as_secs_f64() * 1000.0
        )?;
        writeln!(
            out,
            "  {:<24} {:>5.1} % ({}/{})",
            format!("best net ({best})"),
            last.share() * 100.0,
            last.kept,
            last.positions
        )?;
        for &spec in against {
            let share = exact_share(&positions, spec, &Limits::time(time), self.seed);
            writeln!(
                out,
                "  {:<24} {:>5.1} % ({}/{})",
                spec.to_string(),
                share.share() * 100.0,
                share.kept,
                share.positions
            )?;
        }
        Ok(())
    }

    /// Each iteration's best net against each of `levels` (DIR/levels.csv, written after
    /// each iteration so that a measure stopped keeps what it played), reusing the results
    /// in `before` of the same net, level, games and seed.
    fn measure_levels(
        &self,
        nets: &mut BestNets<'_>,
        levels: &[u8],
        games: u32,
        before: Vec<LevelRow>,
        out: &mut impl Write,
    ) -> Result<(), CliError> {
        let kind = nets.kind;
        let settings = nets.run.settings();
        let openings = settings.opening_plies;
        let jobs = std::thread::available_parallelism().map_or(1, usize::from);
        let mut file = nets.own_rows(before, "dropped", out)?;
        writeln!(
            out,
            "iteration  best net  {} ({games} games each from {openings}-move openings, \
             {} simulations a move)",
            levels
                .iter()
                .map(|level| format!("{:>9}", format!("classic:{level}")))
                .collect::<Vec<_>>()
                .join("  "),
            settings.match_simulations
        )?;
        for (iteration, best) in nets.bests.clone() {
            let net = nets.fingerprint(best)?;
            let mut line = format!("{iteration:>9}  {best:>8}");
            for &level in levels {
                let known = file
                    .iter()
                    .find(|row| {
                        (row.best, &row.net, row.level, row.games, row.seed)
                            == (best, &net, level, games, self.seed)
                    })
                    .cloned();
                let row = match known {
                    Some(row) => LevelRow { iteration, ..row },
                    None => {
                        let spec = nets.spec(best)?;
                        let tally = level_match(
                            kind,
                            spec,
                            &LevelMatch {
                                level,
                                games,
                                openings,
                                seed: self.seed,
                                jobs,
                            },
                        );
                        LevelRow {
                            iteration,
                            best,
                            net: net.clone(),
                            level,
                            games,
                            seed: self.seed,
                            wins: tally.wins,
                            draws: tally.draws,
                            losses: tally.losses,
                            score: tally.score(),
                        }
                    }
                };
                line.push_str(&format!("  {:>7.1} %", tenths_of_percent(row.score)));
                // A row for each iteration, level, game count and seed: a quick look with
                // fewer games does not replace a longer one.
                file.retain(|kept| {
                    (kept.iteration, kept.level, kept.games, kept.seed)
                        != (iteration, level, games, self.seed)
                });
                file.push(row);
            }
            file.sort_by_key(|row| (row.iteration, row.level, row.games, row.seed));
            write_file(&self.dir.join("levels.csv"), levels_csv(&file).as_bytes())?;
            writeln!(out, "{line}")?;
            out.flush()?;
        }
        Ok(())
    }
}

/// A run's best nets, each loaded at its first use, as players.
struct BestNets<'a> {
    run: &'a Run,
    dir: &'a std::path::Path,
    /// The run's game.
    kind: GameKind,
    /// The best net after each iteration, from the random one the run started from.
    bests: Vec<(usize, usize)>,
    /// Each net loaded: its iteration, its fingerprint, and it as a player.
    loaded: Vec<(usize, String, PlayerSpec)>,
}

impl BestNets<'_> {
    /// The rows of `rows` measured with this run's nets: those of a net the run does not
    /// have (another run's in the same directory, a net since replaced or unreadable) are
    /// left out, and a line says how many and what became of them (`fate`).
    fn own_rows(
        &mut self,
        rows: Vec<LevelRow>,
        fate: &str,
        out: &mut impl Write,
    ) -> Result<Vec<LevelRow>, CliError> {
        let count = rows.len();
        let mut own = Vec::new();
        for row in rows {
            if self.bests.contains(&(row.iteration, row.best))
                && self.fingerprint(row.best).ok().as_ref() == Some(&row.net)
            {
                own.push(row);
            }
        }
        if own.len() < count {
            writeln!(
                out,
                "{} rows of levels.csv were not this run's nets' (another run's, or nets since \
                 replaced): {fate}",
                count - own.len()
            )?;
        }
        Ok(own)
    }

    /// Iteration `iteration`'s net as a player of the run's match simulations.
    fn spec(&mut self, iteration: usize) -> Result<PlayerSpec, CliError> {
        self.load(iteration).map(|(_, spec)| spec)
    }

    /// Iteration `iteration`'s net's fingerprint.
    fn fingerprint(&mut self, iteration: usize) -> Result<String, CliError> {
        self.load(iteration).map(|(fingerprint, _)| fingerprint)
    }

    fn load(&mut self, iteration: usize) -> Result<(String, PlayerSpec), CliError> {
        if let Some((_, fingerprint, spec)) =
            self.loaded.iter().find(|(done, _, _)| *done == iteration)
        {
            return Ok((fingerprint.clone(), *spec));
        }
        let kind = self.kind;
        let usage = |message: String| CliError::Usage { message };
        let net = self
            .run
            .load(iteration)
            .map_err(|error| usage(error.to_string()))?;
        let label = format!("{}/nets/{iteration:04}", self.dir.display());
        if net.config().kind != kind {
            return Err(usage(format!(
                "{label}: the net is for {}, not the run's {kind}",
                net.config().kind
            )));
        }
        let fingerprint = net
            .fingerprint()
            .map_err(|error| usage(format!("{label}: {error}")))?;
        let spec = PlayerSpec::Zero(ZeroSpec {
            net: NetChoice::Loaded(LoadedNet::register(&label, net)),
            simulations: self.run.settings().match_simulations,
        });
        self.loaded.push((iteration, fingerprint.clone(), spec));
        Ok((fingerprint, spec))
    }
}

impl CurveArgs {
    fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let usage = |message: String| CliError::Usage { message };
        let run = Run::read(&self.dir).map_err(|error| usage(error.to_string()))?;
        let settings = run.settings();
        let rows = run.iterations().map_err(|error| usage(error.to_string()))?;
        if rows.is_empty() {
            return Err(usage(format!(
                "{} has no iteration finished yet: nothing to draw",
                self.dir.display()
            )));
        }
        let exact_path = self.dir.join("exact.csv");
        let exact = if exact_path.exists() {
            read_exact(&exact_path)?
        } else {
            Vec::new()
        };
        let levels_path = self.dir.join("levels.csv");
        let levels = if levels_path.exists() {
            let mut nets = BestNets {
                run: &run,
                dir: &self.dir,
                kind: settings.kind().map_err(|error| usage(error.to_string()))?,
                bests: bests(&rows),
                loaded: Vec::new(),
            };
            let own = nets.own_rows(read_levels(&levels_path)?, "not drawn", out)?;
            shown_levels(&own, &nets.bests)
        } else {
            Vec::new()
        };
        let record = RunRecord {
            settings: settings.clone(),
            best: run.best(),
            iterations: rows,
            exact,
            levels,
        };
        let svg = record.curve_svg().map_err(usage)?;
        let path = self.out.unwrap_or_else(|| self.dir.join("curve.svg"));
        refuse_unless_svg(&path)?;
        write_file(&path, svg.as_bytes())?;
        writeln!(
            out,
            "{}: {} iterations{}{}",
            path.display(),
            record.iterations.len(),
            if record.exact.is_empty() {
                String::new()
            } else {
                format!(", {} measured against the solver", record.exact.len())
            },
            if record.levels.is_empty() {
                String::new()
            } else {
                let mut levels: Vec<u8> = record.levels.iter().map(|row| row.level).collect();
                levels.sort_unstable();
                levels.dedup();
                let names: Vec<String> = levels.iter().map(|l| format!("classic:{l}")).collect();
                format!(", against {}", names.join(", "))
            }
        )?;
        Ok(())
    }
}

/// Refuses an output path that holds something other than an earlier drawing of `curve`:
/// it writes over its own drawings only, never over a run's state, nets or figures named by
/// a slip, nor over another SVG.
fn refuse_unless_svg(path: &std::path::Path) -> Result<(), CliError> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    let start = crate::files::open_regular(path).and_then(|file| {
        let mut start = Vec::new();
        file.take(256).read_to_end(&mut start)?;
        Ok(start)
    });
    match start {
        Ok(start) if String::from_utf8_lossy(&start).starts_with(CURVE_MARK) => Ok(()),
        _ => Err(CliError::Usage {
            message: format!(
                "{} exists and is not a drawing of zero curve: it writes only over its \
                 own output; give another --out",
                path.display()
            ),
        }),
    }
}

/// The lock `file` in a run's directory `dir`, for a command that may run only once at a
/// time on a run (`othello zero COMMAND`, which has the run `done`: trained, measured);
/// refused, naming the holder, while another holds it.
fn hold(
    dir: &std::path::Path,
    file: &str,
    done: &str,
    command: &str,
) -> Result<crate::files::Lock, CliError> {
    let path = dir.join(file);
    match crate::files::Lock::try_acquire(&path) {
        Ok(Ok(lock)) => Ok(lock),
        Ok(Err(held)) => Err(CliError::Usage {
            message: format!(
                "{} is being {done} by {} (othello zero {command}): wait for it, or stop it",
                dir.display(),
                held.holder()
            ),
        }),
        Err(source) => Err(CliError::WriteFile { path, source }),
    }
}

/// A file `zero measure` writes (`exact.csv`, `levels.csv`), read by `parse`.
fn read_measured<T>(
    path: &std::path::Path,
    parse: fn(&str) -> Result<T, String>,
) -> Result<T, CliError> {
    let text = crate::files::read_text(path, crate::files::LIST_FILE).map_err(|source| {
        CliError::Read {
            path: path.to_owned(),
            source,
        }
    })?;
    parse(&text).map_err(|error| CliError::Usage {
        message: format!("{}: not a zero measure file ({error})", path.display()),
    })
}

/// `exact.csv`, as `zero measure` writes it.
fn read_exact(path: &std::path::Path) -> Result<Vec<ExactRow>, CliError> {
    read_measured(path, parse_exact)
}

/// `levels.csv`, as `zero measure` writes it.
fn read_levels(path: &std::path::Path) -> Result<Vec<LevelRow>, CliError> {
    read_measured(path, parse_levels)
}
