//! `othello db import` and `othello db export`: the server's game database and WTHOR files,
//! the French federation's (`.wtb` games, `.JOU` players, `.TRN` tournaments).

use std::{
    collections::HashMap,
    io::Write,
    path::{Path, PathBuf},
};

use clap::Args;
use othello::{
    Shape,
    wthor::{PLAYER_BYTES, TOURNAMENT_BYTES, WthorGames, WthorNames},
};

use super::Database;
use crate::cli::{
    CliError, explore,
    output::{self, OutputKind},
};
use crate::server::{database, store::Target};

/// `othello db import FILE.wtb... [--players FILE.JOU] [--tournaments FILE.TRN]`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// WTHOR game files.
    #[arg(value_name = "FILE.wtb", required = true)]
    files: Vec<PathBuf>,
    /// The players file the games name (WTHOR.JOU); without it, players are numbers.
    #[arg(long, value_name = "FILE.JOU")]
    players: Option<PathBuf>,
    /// The tournaments file (WTHOR.TRN); without it, tournaments are numbers.
    #[arg(long, value_name = "FILE.TRN")]
    tournaments: Option<PathBuf>,
    #[command(flatten)]
    db: Database,
}

impl ImportArgs {
    /// Reads the files and adds their games.
    ///
    /// # Errors
    /// [`CliError`] for a file that cannot be read or is no WTHOR file, or a database that
    /// cannot be opened or written.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let players = self
            .players
            .map(|path| explore::read_names(&path, PLAYER_BYTES))
            .transpose()?;
        let tournaments = self
            .tournaments
            .map(|path| explore::read_names(&path, TOURNAMENT_BYTES))
            .transpose()?;
        let name = |names: &Option<WthorNames>, index: u16| {
            names
                .as_ref()
                .and_then(|names| names.name(index))
                .unwrap_or_else(|| format!("#{index}"))
        };
        let mut games = Vec::new();
        let mut left_out = 0;
        for path in &self.files {
            let (file, shape) = explore::read_games(path)?;
            let source = path
                .file_name()
                .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
            for game in &file.games {
                let Ok((record, result)) = game.result(shape) else {
                    left_out += 1;
                    continue;
                };
                let key = explore::game_key(file.header.year, game, &record.moves);
                let moves = othello::MoveList(record.moves).to_string();
                games.push(crate::server::store::LibraryGame {
                    key,
                    source: source.clone(),
                    tournament: name(&tournaments, game.tournament),
                    black: name(&players, game.black),
                    white: name(&players, game.white),
                    year: i64::from(file.header.year),
                    size: shape.rows(),
                    moves,
                    result,
                });
            }
        }
        let read = games.len();
        let (before, after) = database::import_library(&self.db.target, games)?;
        write!(
            out,
            "{read} games read, {} added ({} there already)",
            after - before,
            read as u64 - (after - before)
        )?;
        if left_out > 0 {
            write!(out, ", {left_out} left out (their moves do not replay)")?;
        }
        writeln!(out, "; {} has {after}", self.db.target)?;
        Ok(())
    }
}

/// `othello db export FILE.wtb [--players FILE.JOU] [--tournaments FILE.TRN] [--size N]
/// [--year YYYY]`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The games file to write (`.wtb`); the players and tournaments files go beside it,
    /// under its name, unless named.
    #[arg(value_name = "FILE.wtb")]
    games: PathBuf,
    /// The players file to write (`.JOU`); FILE.JOU when not given.
    #[arg(long, value_name = "FILE.JOU")]
    players: Option<PathBuf>,
    /// The tournaments file to write (`.TRN`); FILE.TRN when not given.
    #[arg(long, value_name = "FILE.TRN")]
    tournaments: Option<PathBuf>,
    /// The board: 8 (8x8) or 10 (10x10), the boards WTHOR has.
    #[arg(long, default_value_t = 8, value_name = "8|10")]
    size: u8,
    /// Only the games played in this year (as the federation's yearly files); all of them
    /// when not given, under the latest game's year.
    #[arg(long, value_name = "YYYY")]
    year: Option<u16>,
    /// Replace files that exist and are not WTHOR files of their kind.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    db: Database,
}

/// The tournament numbers every export has before the server's own tournaments.
const RATED: u16 = 0;
const CASUAL: u16 = 1;

impl ExportArgs {
    /// Reads the games and writes the three files.
    ///
    /// # Errors
    /// [`CliError::Usage`] for another board, files that would replace the database, one
    /// another or a file of another kind, or names too many for the format;
    /// [`CliError::Serve`] if the database cannot be read; [`CliError::WriteFile`].
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let usage = |message: String| CliError::Usage { message };
        let shape = match self.size {
            8 => Shape::STANDARD,
            10 => Shape::new(10, 10).expect("10x10 is a board"),
            size => {
                return Err(usage(format!(
                    "--size must be 8 or 10 (the boards WTHOR has), not {size}"
                )));
            }
        };
        let beside = |extension| self.games.with_extension(extension);
        let files = [
            (self.games.clone(), WthorFile::Games),
            (
                self.players.clone().unwrap_or_else(|| beside("JOU")),
                WthorFile::Players,
            ),
            (
                self.tournaments.clone().unwrap_or_else(|| beside("TRN")),
                WthorFile::Tournaments,
            ),
        ];
        let database = match &self.db.target {
            Target::Sqlite(path) => Some(path.as_path()),
            Target::Postgres(_) => None,
        };
        for (index, (path, kind)) in files.iter().enumerate() {
            if database.is_some_and(|database| output::same_file(database, path)) {
                return Err(usage(format!(
                    "{} is the database: write the games to a file of their own",
                    path.display()
                )));
            }
            if files[..index]
                .iter()
                .any(|(other, _)| same_place(other, path))
            {
                return Err(usage(format!(
                    "{} is named for two files: give each its own",
                    path.display()
                )));
            }
            if output::check_output(path, &[], *kind, self.force)? {
                std::fs::remove_file(path).map_err(|source| CliError::WriteFile {
                    path: path.clone(),
                    source,
                })?;
            }
        }

        let finished = database::finished_games(&self.db.target, shape)?;
        let total = finished.len();
        let games: Vec<_> = finished
            .into_iter()
            .filter(|game| self.year.is_none_or(|year| game.year == year))
            .collect();
        let year = self
            .year
            .or_else(|| games.iter().map(|game| game.year).max())
            .unwrap_or(0);
        let mut players = Numbers::default();
        let mut tournaments = Numbers::default();
        tournaments.number("Online rated");
        tournaments.number("Online casual");
        let mut file = WthorGames::new(shape, year).map_err(|error| usage(error.to_string()))?;
        for game in &games {
            let tournament = match &game.tournament {
                Some(name) => tournaments.number(name),
                None if game.rated => RATED,
                None => CASUAL,
            };
            let [black, white] = game
                .record
                .players
                .each_ref()
                .map(|name| players.number(name));
            file.push_won(&game.record, [tournament, black, white], Some(game.winner))
                .map_err(|error| usage(format!("game of {}: {error}", game.record.players[0])))?;
        }
        let too_many = |what: &str| usage(format!("more {what} than a WTHOR file numbers"));
        let players_file = WthorNames::players(players.names(PLAYER_BYTES - 1))
            .map_err(|_| too_many("players"))?;
        let tournaments_file = WthorNames::tournaments(tournaments.names(TOURNAMENT_BYTES - 1))
            .map_err(|_| too_many("tournaments"))?;
        let (players_count, tournaments_count) =
            (players_file.records.len(), tournaments_file.records.len());
        // All three written before any is put in place: a stop while writing leaves the
        // old set whole.
        let mut written = Vec::new();
        for ((path, _), bytes) in files.iter().zip([
            file.to_bytes(),
            players_file.to_bytes(),
            tournaments_file.to_bytes(),
        ]) {
            let failed = |source| CliError::WriteFile {
                path: path.clone(),
                source,
            };
            written.push((
                path,
                crate::files::prepare_replacing(path, |file| {
                    std::io::Write::write_all(file, &bytes)
                })
                .map_err(failed)?,
            ));
        }
        for (path, replacement) in written {
            replacement.commit().map_err(|source| CliError::WriteFile {
                path: path.clone(),
                source,
            })?;
        }
        let when = self
            .year
            .map_or_else(String::new, |year| format!(" played in {year}"));
        writeln!(
            out,
            "{} games{when} of {total} finished standard {} games written to {}; {} players \
             in {}, {} tournaments in {}",
            games.len(),
            shape,
            files[0].0.display(),
            players_count,
            files[1].0.display(),
            tournaments_count,
            files[2].0.display()
        )?;
        Ok(())
    }
}

/// Whether two output paths name one file, however spelled (`x`, `./x`, `/dir/x`; a link
/// to it), whether it exists yet or not (found by the red team of item 47.15: `x.wtb
/// --players ./x.wtb` wrote the players over the games).
fn same_place(a: &Path, b: &Path) -> bool {
    let resolved = |path: &Path| {
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        std::fs::canonicalize(dir)
            .ok()
            .zip(path.file_name())
            .map(|(dir, name)| dir.join(name))
    };
    a == b
        || output::same_file(a, b)
        || matches!((resolved(a), resolved(b)), (Some(a), Some(b)) if a == b)
}

/// Names numbered in the order first met.
#[derive(Default)]
struct Numbers {
    names: Vec<String>,
    numbers: HashMap<String, u16>,
}

impl Numbers {
    /// `name`'s number (past the format's 65,535, the last: the names file is refused).
    fn number(&mut self, name: &str) -> u16 {
        if let Some(&number) = self.numbers.get(name) {
            return number;
        }
        let number = u16::try_from(self.names.len()).unwrap_or(u16::MAX);
        self.names.push(name.to_owned());
        self.numbers.insert(name.to_owned(), number);
        number
    }

    /// The names as a WTHOR file holds them: at most `length` Latin-1 characters, a
    /// character outside it (or a control character) as `?`.
    fn names(&self, length: usize) -> impl Iterator<Item = String> + '_ {
        self.names.iter().map(move |name| {
            name.chars()
                .map(|c| {
                    if u32::from(c) < 256 && !c.is_control() {
                        c
                    } else {
                        '?'
                    }
                })
                .take(length)
                .collect()
        })
    }
}

/// The three kinds of WTHOR file, told apart by their content (a file of no records, the
/// header alone, could be any of them: an export of no games writes three).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WthorFile {
    Games,
    Players,
    Tournaments,
    Empty,
}

impl OutputKind for WthorFile {
    fn words(self) -> &'static str {
        match self {
            WthorFile::Games => "WTHOR games",
            WthorFile::Players => "WTHOR players",
            WthorFile::Tournaments => "WTHOR tournaments",
            WthorFile::Empty => "an empty WTHOR file",
        }
    }

    fn accepts(self, found: WthorFile) -> bool {
        self == found || found == WthorFile::Empty
    }

    fn of(path: &Path) -> Result<WthorFile, &'static str> {
        let bytes = crate::files::read_limited(path, 256 << 20).map_err(|_| "something unread")?;
        // The header alone: no games, no names.
        if bytes.len() == othello::wthor::HEADER
            && WthorNames::from_bytes(&bytes, PLAYER_BYTES)
                .is_ok_and(|names| names.records.is_empty())
        {
            Ok(WthorFile::Empty)
        } else if WthorGames::from_bytes(&bytes).is_ok() {
            Ok(WthorFile::Games)
        } else if WthorNames::from_bytes(&bytes, PLAYER_BYTES).is_ok() {
            Ok(WthorFile::Players)
        } else if WthorNames::from_bytes(&bytes, TOURNAMENT_BYTES).is_ok() {
            Ok(WthorFile::Tournaments)
        } else {
            Err("no WTHOR file")
        }
    }
}
