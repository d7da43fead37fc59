//! The loop, iteration after iteration, in one directory that it can stop and resume in:
//! self-play by the best net so far, a fit of the latest net on a window of recent
//! iterations' positions, a gate that keeps the latest only if it beats the best, and the
//! best's strength against fixed opponents. Every iteration's figures go to
//! `iterations.csv`.
//!
//! The directory holds `zero.json` (the settings, and the iterations done), `games/N.bin`
//! (iteration N's positions), `nets/N.safetensors` (the latest net after iteration N),
//! `best.safetensors` and `iterations.csv`.

use std::{
    io::{self, Write},
    path::{Path, PathBuf},
    time::Instant,
};

use rand::{SeedableRng, rngs::StdRng};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::fit::{FitSettings, Losses, fit, losses, optimizer};
use super::games::{MatchSettings, Seat, SelfPlaySettings, play_match, self_play};
use super::replay::{ZeroSample, read_samples, write_samples};
use crate::engine::mix;
use crate::engine::zero::{Net, NetConfig, NetError, Noise};
use crate::engine::{Node, on_node};
use crate::{Board, Color, GameKind, Shape, Variant, WinRule};

/// Everything a run is made of; fixed when the run starts (`zero.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ZeroSettings {
    /// `full` or `simple`.
    pub rules: String,
    /// Rows x columns.
    pub size: String,
    /// `most` or `fewest`.
    pub win: String,
    /// The net's filters per convolution.
    pub channels: usize,
    /// Its residual blocks.
    pub blocks: usize,
    /// Games of self-play an iteration.
    pub games: usize,
    /// Simulations of self-play's searches.
    pub simulations: u32,
    /// Plies played in proportion to visits at the start of each self-play game.
    pub temperature_plies: u32,
    /// The root's Dirichlet noise: concentration and share.
    pub noise_alpha: f32,
    /// The share of the root's priors the noise replaces.
    pub noise_fraction: f32,
    /// Games played at once (the batch of the net's evaluations).
    pub parallel: usize,
    /// Iterations whose positions the fit draws from (the replay window).
    pub window: usize,
    /// Mini-batches of each iteration's fit.
    pub steps: usize,
    /// Positions in a mini-batch.
    pub batch: usize,
    /// AdamW's step size.
    pub learning_rate: f64,
    /// AdamW's weight decay.
    pub weight_decay: f64,
    /// Pairs of games of the gate (latest against best).
    pub gate_pairs: usize,
    /// The score the latest needs against the best to replace it.
    pub gate_score: f64,
    /// Pairs of games against `random` and against `greedy` each iteration.
    pub eval_pairs: usize,
    /// Simulations a move in the gate and the evaluation games.
    pub match_simulations: u32,
    /// Random plies that open each match game (paired: both colours play each opening).
    pub opening_plies: u32,
    /// Seed of everything random.
    pub seed: u64,
}

impl ZeroSettings {
    /// Settings for `kind` sized to its board: small boards train in minutes.
    pub fn for_kind(kind: GameKind) -> ZeroSettings {
        let cells = kind.shape.cells();
        ZeroSettings {
            rules: kind.variant.name().to_owned(),
            size: kind.shape.to_string(),
            win: kind.rule.name().to_owned(),
            channels: if cells <= 36 { 32 } else { 64 },
            blocks: if cells <= 16 {
                1
            } else if cells <= 36 {
                3
            } else {
                5
            },
            games: 100,
            simulations: if cells <= 16 { 32 } else { 100 },
            temperature_plies: (cells / 4) as u32,
            noise_alpha: 10.0 / cells as f32,
            noise_fraction: 0.25,
            parallel: 64,
            window: 8,
            steps: 200,
            batch: 128,
            learning_rate: 2e-3,
            weight_decay: 1e-4,
            gate_pairs: 20,
            gate_score: 0.55,
            eval_pairs: 20,
            match_simulations: if cells <= 16 { 32 } else { 100 },
            opening_plies: if cells <= 16 { 2 } else { 4 },
            seed: 1,
        }
    }

    /// The kind of game they are for.
    ///
    /// # Errors
    /// If a name or the size is not one the program knows.
    pub fn kind(&self) -> Result<GameKind, ZeroError> {
        let bad = |what: &str| ZeroError::Settings(format!("unknown {what}"));
        let variant: Variant = self.rules.parse().map_err(|_| bad("rules"))?;
        let shape: Shape = self.size.parse().map_err(|_| bad("board size"))?;
        let rule = WinRule::from_name(&self.win).map_err(|_| bad("win rule"))?;
        Ok(GameKind::new(variant, shape, rule))
    }

    fn net(&self) -> Result<NetConfig, ZeroError> {
        if !(1..=256).contains(&self.channels) || !(1..=40).contains(&self.blocks) {
            return Err(ZeroError::Settings(
                "channels must be 1 to 256 and blocks 1 to 40".into(),
            ));
        }
        Ok(NetConfig {
            kind: self.kind()?,
            channels: self.channels,
            blocks: self.blocks,
        })
    }
}

/// What the directory says of the run.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct State {
    format: String,
    settings: ZeroSettings,
    /// Iterations finished.
    done: usize,
    /// The iteration whose net is the best (0: the first, random one).
    best: usize,
}

const FORMAT: &str = "othello zero run 1";

impl State {
    /// The state in `text`, read from `path`.
    fn parse(text: &str, path: &Path) -> Result<State, ZeroError> {
        serde_json::from_str(text)
            .ok()
            .filter(|state: &State| state.format == FORMAT)
            .ok_or_else(|| {
                ZeroError::Settings(format!(
                    "{} is not the state of an othello zero run",
                    path.display()
                ))
            })
    }
}

/// One iteration's figures, as `iterations.csv` has them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Iteration {
    /// Its number, from 1.
    pub iteration: usize,
    /// Self-play games it played.
    pub games: usize,
    /// Positions they gave.
    pub positions: usize,
    /// Positions in the replay window the fit drew from.
    pub window: usize,
    /// The latest net's losses on the window before the fit.
    pub loss_before: f64,
    /// Its policy loss after.
    pub policy_loss: f64,
    /// Its value loss after.
    pub value_loss: f64,
    /// Its loss after (the sum).
    pub loss_after: f64,
    /// The latest net's score against the best in the gate.
    pub gate_score: f64,
    /// Whether it became the best.
    pub accepted: bool,
    /// The iteration of the best net now.
    pub best: usize,
    /// The best net's score against `random`.
    pub vs_random: f64,
    /// Its score against `greedy`.
    pub vs_greedy: f64,
    /// Seconds of self-play.
    pub selfplay_seconds: f64,
    /// Seconds of the fit.
    pub fit_seconds: f64,
    /// Seconds of the gate and the evaluation.
    pub match_seconds: f64,
    /// Mini-batches of its fit (empty in runs written before this was kept: the run's
    /// `steps` then).
    #[serde(default)]
    pub steps: Option<usize>,
}

/// Why a run could not go on.
#[derive(Debug, Error)]
pub enum ZeroError {
    /// A file of the run.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
    /// Settings that make no run.
    #[error("{0}")]
    Settings(String),
    /// The net.
    #[error(transparent)]
    Net(#[from] NetError),
}

fn io_error(path: &Path) -> impl Fn(io::Error) -> ZeroError + '_ {
    move |source| ZeroError::Io {
        path: path.to_owned(),
        source,
    }
}

/// A run in `dir`: started with `settings` if the directory has none, else resumed (the
/// settings it was started with win; `settings` must then be `None` or the same).
#[derive(Debug)]
pub struct Run {
    dir: PathBuf,
    state: State,
}

impl Run {
    /// Opens the run in `dir`, starting it with `settings` if it has not started.
    ///
    /// # Errors
    /// If the directory cannot be used, holds another run, or the settings make none.
    pub fn open(dir: &Path, settings: Option<ZeroSettings>) -> Result<Run, ZeroError> {
        let path = dir.join("zero.json");
        let state = match std::fs::read_to_string(&path) {
            Ok(text) => {
                let state = State::parse(&text, &path)?;
                if let Some(settings) = settings
                    && settings != state.settings
                {
                    return Err(ZeroError::Settings(format!(
                        "{} was started with other settings: resume it with none given, \
                         or start another directory",
                        dir.display()
                    )));
                }
                if state.settings.steps == 0 {
                    return Err(ZeroError::Settings(format!(
                        "{}: steps 0: a fit takes at least one step",
                        path.display()
                    )));
                }
                // The figures are rewritten with every iteration: a file that cannot be
                // read is refused, never replaced by the new iteration's row alone (found
                // by the red team of issue 48).
                let figures = dir.join("iterations.csv");
                if figures.exists() {
                    read_iterations(&figures).map_err(|error| {
                        ZeroError::Settings(format!(
                            "{error}: the run's figures cannot be read; repair the file \
                             (or move it away to start its figures afresh)"
                        ))
                    })?;
                }
                state
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                let settings = settings.ok_or_else(|| {
                    ZeroError::Settings(format!("{} holds no run to resume", dir.display()))
                })?;
                for stray in ["iterations.csv", "best.safetensors"] {
                    if dir.join(stray).exists() {
                        return Err(ZeroError::Settings(format!(
                            "{} holds {stray} but no zero.json: not a run to start over; \
                             start in another directory",
                            dir.display()
                        )));
                    }
                }
                settings.net()?;
                for sub in ["games", "nets"] {
                    std::fs::create_dir_all(dir.join(sub)).map_err(io_error(dir))?;
                }
                State {
                    format: FORMAT.to_owned(),
                    settings,
                    done: 0,
                    best: 0,
                }
            }
            Err(source) => return Err(ZeroError::Io { path, source }),
        };
        let run = Run {
            dir: dir.to_owned(),
            state,
        };
        run.save()?;
        Ok(run)
    }

    /// The run in `dir` as it stands, only read (to measure it while it trains, say).
    ///
    /// # Errors
    /// If there is no run there or its state cannot be read.
    pub fn read(dir: &Path) -> Result<Run, ZeroError> {
        let path = dir.join("zero.json");
        let text = std::fs::read_to_string(&path).map_err(|source| match source.kind() {
            io::ErrorKind::NotFound => {
                ZeroError::Settings(format!("{} holds no othello zero run", dir.display()))
            }
            _ => ZeroError::Io {
                path: path.clone(),
                source,
            },
        })?;
        Ok(Run {
            dir: dir.to_owned(),
            state: State::parse(&text, &path)?,
        })
    }

    /// Every finished iteration's figures, from `iterations.csv`.
    ///
    /// # Errors
    /// If the file cannot be read.
    pub fn iterations(&self) -> Result<Vec<Iteration>, ZeroError> {
        let path = self.dir.join("iterations.csv");
        if self.state.done == 0 && !path.exists() {
            return Ok(Vec::new());
        }
        read_iterations(&path)
    }

    /// Fits `steps` mini-batches from the next iteration on (`zero.json` keeps the
    /// latest; `iterations.csv` each iteration's).
    ///
    /// # Errors
    /// If `steps` is 0 or the state cannot be written.
    pub fn set_steps(&mut self, steps: usize) -> Result<(), ZeroError> {
        if steps == 0 {
            return Err(ZeroError::Settings("a fit takes at least one step".into()));
        }
        self.state.settings.steps = steps;
        self.save()
    }

    /// The run's settings.
    pub fn settings(&self) -> &ZeroSettings {
        &self.state.settings
    }

    /// Iterations finished.
    pub fn done(&self) -> usize {
        self.state.done
    }

    /// The iteration whose net is the best (0: the first, random one).
    pub fn best(&self) -> usize {
        self.state.best
    }

    /// The best net's file.
    pub fn best_path(&self) -> PathBuf {
        self.dir.join("best.safetensors")
    }

    fn net_path(&self, iteration: usize) -> PathBuf {
        self.dir
            .join("nets")
            .join(format!("{iteration:04}.safetensors"))
    }

    fn games_path(&self, iteration: usize) -> PathBuf {
        self.dir.join("games").join(format!("{iteration:04}.bin"))
    }

    fn save(&self) -> Result<(), ZeroError> {
        let path = self.dir.join("zero.json");
        let partial = self.dir.join("zero.json.partial");
        let text = serde_json::to_string_pretty(&self.state).expect("plain data");
        std::fs::write(&partial, text + "\n").map_err(io_error(&partial))?;
        std::fs::rename(&partial, &path).map_err(io_error(&path))
    }

    /// The net after `iteration` (0: the first, made from the seed).
    ///
    /// # Errors
    /// If its file cannot be read or is not a net.
    pub fn load(&self, iteration: usize) -> Result<Net, ZeroError> {
        if iteration == 0 {
            let net = self.state.settings.net()?;
            return Ok(Net::seeded(net, self.state.settings.seed)?);
        }
        Ok(Net::load(&self.net_path(iteration))?)
    }

    /// Runs iterations until `iterations` are done in all, telling `report` each one's
    /// figures as it ends.
    ///
    /// # Errors
    /// If a file cannot be read or written, or the net fails.
    pub fn run(
        &mut self,
        iterations: usize,
        report: &mut dyn FnMut(&Iteration),
    ) -> Result<(), ZeroError> {
        let kind = self.state.settings.net()?.kind;
        let board = Board::standard(kind.shape);
        on_node!(variant = kind.variant, &board, Color::Black, |node| {
            while self.state.done < iterations {
                let figures = self.iteration(node, kind.rule)?;
                report(&figures);
            }
            Ok(())
        })
    }

    fn iteration<N: Node>(&mut self, start: N, rule: WinRule) -> Result<Iteration, ZeroError> {
        let settings = self.state.settings.clone();
        let number = self.state.done + 1;
        let shape = start.layout().shape;
        let seed = mix(settings.seed, number as u64, 0x2e70);
        let best = self.load(self.state.best)?;

        let clock = Instant::now();
        let games_path = self.games_path(number);
        let positions = match read_samples(&games_path, shape) {
            Ok(samples) => samples.len(),
            Err(_) => {
                let play = SelfPlaySettings {
                    simulations: settings.simulations,
                    temperature_plies: settings.temperature_plies,
                    noise: Noise {
                        alpha: settings.noise_alpha,
                        fraction: settings.noise_fraction,
                    },
                    parallel: settings.parallel,
                };
                let samples = self_play(&best, start, rule, settings.games, &play, seed)?;
                write_samples(&games_path, shape, &samples).map_err(io_error(&games_path))?;
                samples.len()
            }
        };
        let selfplay_seconds = clock.elapsed().as_secs_f64();

        let clock = Instant::now();
        let mut window: Vec<ZeroSample> = Vec::new();
        for past in number.saturating_sub(settings.window.max(1) - 1).max(1)..=number {
            let path = self.games_path(past);
            window.extend(read_samples(&path, shape).map_err(io_error(&path))?);
        }
        let latest = self.load(number - 1)?;
        let before = losses(&latest, &window)?;
        let fit_settings = FitSettings {
            steps: settings.steps,
            batch: settings.batch,
            learning_rate: settings.learning_rate,
            weight_decay: settings.weight_decay,
        };
        let mut adam = optimizer(&latest, &fit_settings)?;
        let mut rng = StdRng::seed_from_u64(seed);
        fit(&latest, &mut adam, &window, &fit_settings, &mut rng)?;
        let after: Losses = losses(&latest, &window)?;
        latest.save(&self.net_path(number))?;
        let fit_seconds = clock.elapsed().as_secs_f64();

        let clock = Instant::now();
        let sims = settings.match_simulations;
        let games = |pairs: usize, salt: u64| MatchSettings {
            pairs: pairs.max(1),
            opening_plies: settings.opening_plies,
            parallel: settings.parallel,
            seed: mix(seed, salt, 0x2e71),
        };
        let gate = play_match(
            Seat::Net(&latest, sims),
            Seat::Net(&best, sims),
            start,
            rule,
            &games(settings.gate_pairs, 1),
        )?;
        let accepted = gate.score() >= settings.gate_score;
        if accepted {
            self.state.best = number;
        }
        let champion = if self.state.best == number {
            &latest
        } else {
            &best
        };
        let evaluate = |opponent: Seat<'_>, salt: u64| {
            let games = games(settings.eval_pairs, salt);
            play_match(Seat::Net(champion, sims), opponent, start, rule, &games)
        };
        let vs_random = evaluate(Seat::Random, 2)?.score();
        let vs_greedy = evaluate(Seat::Greedy, 3)?.score();
        champion.save(&self.best_path())?;
        let match_seconds = clock.elapsed().as_secs_f64();

        let figures = Iteration {
            iteration: number,
            games: settings.games,
            positions,
            window: window.len(),
            loss_before: before.total(),
            policy_loss: after.policy,
            value_loss: after.value,
            loss_after: after.total(),
            gate_score: gate.score(),
            accepted: self.state.best == number,
            best: self.state.best,
            vs_random,
            vs_greedy,
            selfplay_seconds,
            fit_seconds,
            match_seconds,
            steps: Some(settings.steps),
        };
        self.append_csv(&figures)?;
        self.state.done = number;
        self.save()?;
        Ok(figures)
    }

    fn append_csv(&self, figures: &Iteration) -> Result<(), ZeroError> {
        let path = self.dir.join("iterations.csv");
        // A row of an iteration that was cut short and run again replaces it.
        let earlier = if path.exists() {
            read_iterations(&path)?
        } else {
            Vec::new()
        };
        let mut rows: Vec<Iteration> = earlier
            .into_iter()
            .filter(|row| row.iteration < figures.iteration)
            .collect();
        rows.push(figures.clone());
        let mut writer = csv::Writer::from_writer(Vec::new());
        for row in &rows {
            writer
                .serialize(row)
                .map_err(|error| io_error(&path)(io::Error::other(error)))?;
        }
        let bytes = writer
            .into_inner()
            .map_err(|error| io_error(&path)(io::Error::other(error.to_string())))?;
        let partial = path.with_extension("partial");
        std::fs::File::create(&partial)
            .and_then(|mut file| file.write_all(&bytes))
            .map_err(io_error(&partial))?;
        std::fs::rename(&partial, &path).map_err(io_error(&path))
    }
}

/// The figures of every iteration in a run's `iterations.csv`.
///
/// # Errors
/// If it cannot be read or is not such a file.
pub fn read_iterations(path: &Path) -> Result<Vec<Iteration>, ZeroError> {
    let mut reader = csv::Reader::from_path(path)
        .map_err(|error| io_error(path)(io::Error::other(error.to_string())))?;
    reader
        .deserialize()
        .collect::<Result<Vec<Iteration>, _>>()
        .map_err(|error| io_error(path)(io::Error::other(error.to_string())))
}

/// The figures of every iteration in `text`, an `iterations.csv` (`path` names it in
/// errors).
///
/// # Errors
/// If it is not such a file.
pub fn parse_iterations(text: &str, path: &Path) -> Result<Vec<Iteration>, ZeroError> {
    csv::Reader::from_reader(text.as_bytes())
        .deserialize()
        .collect::<Result<Vec<Iteration>, _>>()
        .map_err(|error| io_error(path)(io::Error::other(error.to_string())))
}

/// The best net's iteration and the settings of the run whose `zero.json` is `text`
/// (`path` names it in errors).
///
/// # Errors
/// If it is not the state of a run.
pub fn parse_state(text: &str, path: &Path) -> Result<(ZeroSettings, usize), ZeroError> {
    State::parse(text, path).map(|state| (state.settings, state.best))
}
