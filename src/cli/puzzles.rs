//! `othello puzzles`: make puzzles (positions where one move alone keeps the result,
//! proved by the solver) from self-play or a server's finished games, and check a puzzles
//! file by solving a sample again. The server ships `data/puzzles.jsonl`, made here.

use std::{
    collections::HashSet,
    fs::{self, OpenOptions},
    io::{BufRead, BufReader, Write},
    ops::RangeInclusive,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use clap::{Args, Subcommand};
use othello::{
    Setup,
    analysis::puzzle::{self, Puzzle, PuzzleRecord},
    engine::{Limits, TranspositionTable, mix},
    training::{SelfPlayOptions, game_table, self_play_game},
};
use rand::{SeedableRng, rngs::StdRng, seq::SliceRandom};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{CliError, progress::interrupted};
use crate::server::{database, store::Target};

/// `othello puzzles`.
#[derive(Debug, Args)]
pub struct PuzzlesArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, Subcommand)]
#[command(next_line_help = true)]
enum Action {
    /// Append puzzles to a file (JSON lines): from games the engine plays against itself
    /// (one puzzle a game at most), or from a server's finished standard games. Resumable:
    /// run again, it goes on from the game after the last one it finished.
    Make(MakeArgs),
    /// Check a puzzles file: every record is consistent (the legal moves, the answer first
    /// and alone keeping the result), and a sample is solved again from its position.
    /// Exit status 1 if anything differs.
    Check(CheckArgs),
}

#[derive(Debug, Args)]
struct MakeArgs {
    /// The puzzles file to append to.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Self-play games to look in (numbered from 0; a resumed run goes on from its last).
    #[arg(long, default_value_t = 100)]
    games: u32,
    /// Makes the self-play games reproducible.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Look in a server's finished games instead: a SQLite file or a PostgreSQL URL.
    #[arg(long, value_name = "PATH|URL")]
    from_db: Option<Target>,
    /// With --from-db: the most recent games to look in.
    #[arg(long, default_value_t = 1000)]
    limit: usize,
    /// Threads, 1 to 256 (default: every core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// Positions with this many empty squares are tried (within 14-24: the more, the
    /// longer each proof takes).
    #[arg(long, value_name = "MIN-MAX", default_value = "14-22", value_parser = parse_empties)]
    empties: RangeInclusive<u32>,
    /// A position whose proof takes longer than this (milliseconds) is passed over.
    #[arg(long, value_name = "MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    time: u64,
}

fn parse_empties(text: &str) -> Result<RangeInclusive<u32>, String> {
    let (low, high) = text.split_once('-').unwrap_or((text, text));
    let bound = |text: &str| {
        text.trim()
            .parse::<u32>()
            .map_err(|error| format!("{text:?}: {error}"))
    };
    let range = bound(low)?..=bound(high)?;
    if range.is_empty()
        || !puzzle::EMPTIES.contains(range.start())
        || !puzzle::EMPTIES.contains(range.end())
    {
        return Err(format!(
            "expected MIN-MAX within {}-{}",
            puzzle::EMPTIES.start(),
            puzzle::EMPTIES.end()
        ));
    }
    Ok(range)
}

#[derive(Debug, Args)]
struct CheckArgs {
    /// The puzzles file.
    file: PathBuf,
    /// Puzzles to solve again, drawn at random (0: none; every record is still checked).
    #[arg(long, default_value_t = 20)]
    sample: usize,
    /// Draws the sample.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Only draw puzzles with at most this many empty squares (quicker).
    #[arg(long, default_value_t = 24)]
    max_empties: u32,
}

/// Where a self-play run stands, beside its file (`FILE.progress`).
#[derive(Debug, Serialize, Deserialize)]
struct Progress {
    seed: u64,
    next_game: u32,
}

/// Games played between two saves, a thread.
const CHUNK: u32 = 16;

/// Candidate positions tried in each game.
const TRIES_PER_GAME: usize = 3;

impl PuzzlesArgs {
    /// Runs the action.
    ///
    /// # Errors
    /// Files that cannot be read or written, a bad record, a check that fails.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        match self.action {
            Action::Make(args) => args.run(out),
            Action::Check(args) => args.run(out),
        }
    }
}

/// The records of a puzzles file (none if it does not exist and `may_be_new`).
pub fn read_records(path: &Path, may_be_new: bool) -> Result<Vec<PuzzleRecord>, CliError> {
    let read = |source| CliError::Read {
        path: path.to_owned(),
        source,
    };
    let file = match crate::files::open_regular(path) {
        Ok(file) => file,
        Err(error) if may_be_new && error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Vec::new());
        }
        Err(error) => return Err(read(error)),
    };
    let mut records = Vec::new();
    for (number, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(read)?;
        if line.trim().is_empty() {
            continue;
        }
        let record = serde_json::from_str(&line).map_err(|error| CliError::Usage {
            message: format!("{}: line {}: {error}", path.display(), number + 1),
        })?;
        records.push(record);
    }
    Ok(records)
}

impl MakeArgs {
    fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let threads = self
            .threads
            .map_or_else(othello::engine::all_cores, usize::from)
            .max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|error| CliError::Usage {
                message: format!("threads: {error}"),
            })?;
        let mut known: HashSet<String> = read_records(&self.out, true)?
            .into_iter()
            .map(|record| record.id)
            .collect();
        let start = Instant::now();
        let before = known.len();
        let limits = Limits::time(Duration::from_millis(self.time));
        match &self.from_db {
            Some(target) => {
                let games = database::finished_standard_games(target, self.limit)?;
                writeln!(out, "{} finished standard games in {target}", games.len())?;
                let found: Vec<(String, Puzzle)> = pool.install(|| {
                    games
                        .par_iter()
                        .map_init(solve_table, |tt, (id, setups)| {
                            first_puzzle(setups, tt, &limits)
                                .map(|puzzle| (format!("game {id}"), puzzle))
                        })
                        .flatten()
                        .collect()
                });
                append(&self.out, &mut known, found)?;
            }
            None => self.self_play(&pool, &mut known, &limits, out)?,
        }
        writeln!(
            out,
            "{}: {} new puzzles, {} in all, in {:.1} s",
            self.out.display(),
            known.len() - before,
            known.len(),
            start.elapsed().as_secs_f64()
        )?;
        Ok(())
    }

    fn self_play(
        &self,
        pool: &rayon::ThreadPool,
        known: &mut HashSet<String>,
        limits: &Limits,
        out: &mut impl Write,
    ) -> Result<(), CliError> {
        let empties = self.empties.clone();
        let chunk = CHUNK * pool.current_num_threads() as u32;
        let progress_path = progress_path(&self.out);
        let mut next = match fs::read_to_string(&progress_path) {
            Ok(text) => {
                let progress: Progress =
                    serde_json::from_str(&text).map_err(|error| CliError::Usage {
                        message: format!("{}: {error}", progress_path.display()),
                    })?;
                if progress.seed != self.seed {
                    return Err(CliError::Usage {
                        message: format!(
                            "{} was made with --seed {}: use it, or another file",
                            self.out.display(),
                            progress.seed
                        ),
                    });
                }
                progress.next_game
            }
            Err(_) => 0,
        };
        let options = SelfPlayOptions {
            randomness: 0.05,
            random_games: 0.0,
            opening: (2, 12),
            depth: 4,
            ..SelfPlayOptions::new(self.seed)
        };
        while next < self.games && !interrupted() {
            let end = (next + chunk).min(self.games);
            let found: Vec<(String, Puzzle)> = pool.install(|| {
                (next..end)
                    .into_par_iter()
                    .map_init(
                        || (game_table(), solve_table()),
                        |(game, solve), number| {
                            let setups = candidates(number, &options, &empties, game);
                            first_puzzle(&setups, solve, limits)
                                .map(|puzzle| (format!("self-play {}:{number}", self.seed), puzzle))
                        },
                    )
                    .flatten()
                    .collect()
            });
            append(&self.out, known, found)?;
            next = end;
            let progress = Progress {
                seed: self.seed,
                next_game: next,
            };
            let text = serde_json::to_string(&progress).expect("progress serializes");
            fs::write(&progress_path, text).map_err(|source| CliError::Read {
                path: progress_path.clone(),
                source,
            })?;
            writeln!(out, "games 0..{next}: {} puzzles", known.len())?;
        }
        if interrupted() {
            return Err(CliError::Interrupted);
        }
        Ok(())
    }
}

/// A solver's table, in MiB: a solve from 24 empty squares fills a few.
const SOLVE_HASH: usize = 32;

fn solve_table() -> TranspositionTable {
    TranspositionTable::new(SOLVE_HASH)
}

/// `FILE.progress`.
fn progress_path(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".progress");
    PathBuf::from(name)
}

/// Up to [`TRIES_PER_GAME`] positions of self-play game `number` with `empties` empty
/// squares, in an order drawn from the game's seed.
fn candidates(
    number: u32,
    options: &SelfPlayOptions,
    empties: &RangeInclusive<u32>,
    tt: &mut TranspositionTable,
) -> Vec<Setup> {
    let mut setups: Vec<Setup> = self_play_game(number, options, tt)
        .into_iter()
        .filter(|sample| empties.contains(&sample.empties()))
        .map(|sample| puzzle::oriented(&sample.board()))
        .collect();
    let mut rng = StdRng::seed_from_u64(mix(options.seed, u64::from(number), 29));
    setups.shuffle(&mut rng);
    setups.truncate(TRIES_PER_GAME);
    setups
}

/// The first of `setups` that is a puzzle (one whose solves take longer than `limits` is
/// passed over).
fn first_puzzle(setups: &[Setup], tt: &mut TranspositionTable, limits: &Limits) -> Option<Puzzle> {
    setups
        .iter()
        .find_map(|setup| puzzle::find(setup, tt, limits, None).ok().flatten())
}

/// Appends the puzzles not known yet, in the order given.
fn append(
    path: &Path,
    known: &mut HashSet<String>,
    found: Vec<(String, Puzzle)>,
) -> Result<(), CliError> {
    let write = |source| CliError::Read {
        path: path.to_owned(),
        source,
    };
    let mut text = String::new();
    for (source, puzzle) in found {
        if known.insert(puzzle.id()) {
            let record = puzzle.record(&source);
            text.push_str(&serde_json::to_string(&record).expect("a record serializes"));
            text.push('\n');
        }
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(write)?;
    file.write_all(text.as_bytes()).map_err(write)
}

impl CheckArgs {
    fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let records = read_records(&self.file, false)?;
        if records.is_empty() {
            return Err(CliError::Usage {
                message: format!("{}: no puzzles in it", self.file.display()),
            });
        }
        let mut wrong = 0;
        let mut puzzles = Vec::new();
        let mut ids = HashSet::new();
        for record in &records {
            match record.puzzle() {
                Ok(puzzle) if ids.insert(record.id.clone()) => puzzles.push(puzzle),
                Ok(_) => {
                    wrong += 1;
                    writeln!(out, "puzzle {}: listed twice", record.id)?;
                }
                Err(error) => {
                    wrong += 1;
                    writeln!(out, "{error}")?;
                }
            }
        }
        let mut sample: Vec<&Puzzle> = puzzles
            .iter()
            .filter(|puzzle| puzzle.setup.board.empty_squares().count() <= self.max_empties)
            .collect();
        sample.shuffle(&mut StdRng::seed_from_u64(self.seed));
        sample.truncate(self.sample);
        let start = Instant::now();
        for puzzle in &sample {
            let verdict = puzzle::verify(puzzle, &Limits::NONE);
            writeln!(
                out,
                "{} {} empties, {} {:+}: {}",
                puzzle.id(),
                puzzle.setup.board.empty_squares().count(),
                puzzle.answer,
                puzzle.moves[0].1,
                verdict
                    .as_ref()
                    .map_or_else(|why| why.as_str(), |()| "solved again, the same")
            )?;
            wrong += usize::from(verdict.is_err());
        }
        writeln!(
            out,
            "{} puzzles, {} solved again in {:.1} s, {wrong} wrong",
            records.len(),
            sample.len(),
            start.elapsed().as_secs_f64()
        )?;
        if wrong > 0 {
            return Err(CliError::Usage {
                message: format!(
                    "{}: {wrong} of {} puzzles wrong (see above)",
                    self.file.display(),
                    records.len()
                ),
            });
        }
        Ok(())
    }
}
