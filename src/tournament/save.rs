//! A tournament's directory: what it is (`tournament.json`), every game played
//! (`games.jsonl`, one JSON object a line, appended and synced after each game, so a
//! tournament stopped at any moment loses at most the game being played), and each game
//! as GGF (`NNNN-BLACK-WHITE.ggf`, readable by `othello play --load` and by other Othello
//! programs).
//!
//! Started again with the same directory, a tournament reads `games.jsonl` back (a last line
//! cut off in the middle of its writing is dropped), checks every game against the schedule
//! (the players and opening of its number, moves that replay, a result that agrees with
//! them), and plays only the games missing. The directory must hold the same tournament:
//! players, games per pairing, gauntlet, openings, seed, time per move and engine depth are
//! compared with `tournament.json`, and any difference is an error that names it (the move
//! timeout may change: it is a safety limit, not a condition of play).

use std::{
    fmt::Write as _,
    fs::{self, File, OpenOptions},
    io::{self, Write},
    path::{Path, PathBuf},
};

use othello::{Color, Ending, Full, Game, MoveList, Outcome, Record, Setup, Shape, Variant};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{
    EntrantKind, Forfeit, ForfeitKind, GameResult, Scheduled, TournamentError, TournamentOptions,
};

/// The header's file name.
const HEADER: &str = "tournament.json";

/// The games' file name.
const GAMES: &str = "games.jsonl";

/// The lock file a running tournament holds (it names the process).
const LOCK: &str = "tournament.lock";

/// What the header says it is.
const FORMAT: &str = "othello tournament";

/// The header's version: a directory written by a later, different version is refused.
const VERSION: u32 = 1;

/// The largest header or games file read back, in bytes (a hundred thousand games take
/// about 40 MB).
const MAX_FILE: u64 = 256 * 1024 * 1024;

/// `tournament.json`: everything that decides which games are played and how.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    format: String,
    version: u32,
    players: Vec<PlayerHeader>,
    games_per_pairing: u32,
    gauntlet: Option<String>,
    openings: Vec<String>,
    seed: u64,
    time_per_move_ms: u64,
    engine_depth: u32,
}

/// A player in the header: a built-in spec or an engine's command.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct PlayerHeader {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    spec: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    command: Option<String>,
}

impl Header {
    /// The header of the tournament `options` describes.
    pub fn new(options: &TournamentOptions) -> Header {
        Header {
            format: FORMAT.to_owned(),
            version: VERSION,
            players: options
                .entrants
                .iter()
                .map(|entrant| {
                    let (spec, command) = match &entrant.kind {
                        EntrantKind::BuiltIn(spec) => (Some(spec.to_string()), None),
                        EntrantKind::External { command, .. } => (None, Some(command.clone())),
                    };
                    PlayerHeader {
                        name: entrant.name.clone(),
                        spec,
                        command,
                    }
                })
                .collect(),
            games_per_pairing: options.games_per_pairing,
            gauntlet: options
                .gauntlet
                .map(|index| options.entrants[index].name.clone()),
            openings: options.openings.iter().map(|o| o.transcript()).collect(),
            seed: options.seed,
            time_per_move_ms: options.time_per_move.as_millis() as u64,
            engine_depth: options.engine_depth,
        }
    }

    /// A directory name for this tournament, the same for the same header:
    /// `tournament-<the first 8 hex digits of the header's SHA-256>`.
    pub fn default_directory(&self) -> PathBuf {
        let json = serde_json::to_string(self).unwrap_or_default();
        let digest = Sha256::digest(json.as_bytes());
        let mut name = String::from("tournament-");
        for byte in &digest[..4] {
            let _ = write!(name, "{byte:02x}");
        }
        PathBuf::from(name)
    }

    /// What differs between a saved header and this one, for the error: `seed (saved 1,
    /// now 2); players (...)`.
    fn differences(&self, saved: &Header) -> String {
        let mut found = Vec::new();
        let mut compare = |what: &str, saved: String, now: String| {
            if saved != now {
                found.push(format!("{what} (saved {saved}; now {now})"));
            }
        };
        let players = |header: &Header| {
            header
                .players
                .iter()
                .map(|p| {
                    let what = p.spec.as_deref().or(p.command.as_deref()).unwrap_or("?");
                    format!("{}={what}", p.name)
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        compare(
            "format",
            format!("{} {}", saved.format, saved.version),
            format!("{} {}", self.format, self.version),
        );
        compare("players", players(saved), players(self));
        compare(
            "games per pairing",
            saved.games_per_pairing.to_string(),
            self.games_per_pairing.to_string(),
        );
        let gauntlet = |h: &Header| h.gauntlet.clone().unwrap_or_else(|| "none".into());
        compare("gauntlet", gauntlet(saved), gauntlet(self));
        compare("seed", saved.seed.to_string(), self.seed.to_string());
        compare(
            "time per move",
            format!("{} ms", saved.time_per_move_ms),
            format!("{} ms", self.time_per_move_ms),
        );
        compare(
            "engine depth",
            saved.engine_depth.to_string(),
            self.engine_depth.to_string(),
        );
        if saved.openings != self.openings {
            // Only the first difference: there may be thousands of openings.
            let shown = |opening: Option<&String>| match opening.map(String::as_str) {
                None => "none".to_owned(),
                Some("") => "the start".to_owned(),
                Some(opening) => opening.to_owned(),
            };
            let first = (0..)
                .find(|&i| saved.openings.get(i) != self.openings.get(i))
                .unwrap_or(0);
            found.push(format!(
                "openings ({} saved, {} now; opening {} was {}, is {})",
                saved.openings.len(),
                self.openings.len(),
                first + 1,
                shown(saved.openings.get(first)),
                shown(self.openings.get(first)),
            ));
        }
        found.join("; ")
    }
}

/// One line of `games.jsonl`, and one game of `--json`'s output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameLine {
    /// Its number in the schedule, from 1.
    pub game: u32,
    /// Black's player.
    pub black: String,
    /// White's player.
    pub white: String,
    /// The opening, a transcript (empty for the standard start).
    pub opening: String,
    /// Every move, the opening's included, as a transcript (passes implicit).
    pub moves: String,
    /// `1-0` (Black won), `0-1` or `1/2-1/2`.
    pub result: String,
    /// The winner's name, `null` for a draw.
    pub winner: Option<String>,
    /// Black's and White's discs at the end (or when the game was forfeited).
    pub discs: [u32; 2],
    /// Why the game ended early, if it did.
    pub forfeit: Option<ForfeitLine>,
}

/// A forfeit in a [`GameLine`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForfeitLine {
    /// The player who lost by it.
    pub player: String,
    /// What happened.
    pub kind: ForfeitKind,
    /// In words.
    pub reason: String,
}

impl GameLine {
    /// The line of `game` in the tournament `options` describes.
    pub fn new(game: &GameResult, options: &TournamentOptions) -> GameLine {
        let name = |index: usize| options.entrants[index].name.clone();
        let player_of = |color| match color {
            Color::Black => game.black,
            Color::White => game.white,
        };
        GameLine {
            game: game.number,
            black: name(game.black),
            white: name(game.white),
            opening: options.openings[game.opening].transcript(),
            moves: MoveList(game.moves.clone()).to_string(),
            result: result_text(game.outcome).to_owned(),
            winner: game.outcome.winner().map(|color| name(player_of(color))),
            discs: game.discs,
            forfeit: game.forfeit.as_ref().map(|forfeit| ForfeitLine {
                player: name(player_of(forfeit.side)),
                kind: forfeit.kind,
                reason: forfeit.reason.clone(),
            }),
        }
    }

    /// The game this line records, checked against the schedule and the rules; `None`
    /// with what is wrong.
    fn to_result(
        &self,
        options: &TournamentOptions,
        schedule: &[Scheduled],
    ) -> Result<GameResult, String> {
        let scheduled = (self.game as usize)
            .checked_sub(1)
            .and_then(|index| schedule.get(index))
            .ok_or_else(|| format!("game {} is not in the schedule", self.game))?;
        let name = |index: usize| options.entrants[index].name.as_str();
        if (self.black.as_str(), self.white.as_str())
            != (name(scheduled.black), name(scheduled.white))
        {
            return Err(format!(
                "game {} is {} against {}, but the schedule has {} against {}",
                self.game,
                self.black,
                self.white,
                name(scheduled.black),
                name(scheduled.white)
            ));
        }
        let opening = &options.openings[scheduled.opening];
        if self.opening != opening.transcript() {
            return Err(format!(
                "game {} starts with {:?}, but the schedule has {:?}",
                self.game,
                self.opening,
                opening.transcript()
            ));
        }
        let moves = self
            .moves
            .parse::<MoveList>()
            .map_err(|error| format!("game {}: {error}", self.game))?
            .0;
        if !moves.starts_with(opening.moves()) {
            return Err(format!(
                "game {}: the moves do not start with the opening",
                self.game
            ));
        }
        let game = Game::<Full>::replay(Setup::standard(Shape::STANDARD), moves.iter().copied())
            .map_err(|error| format!("game {}: {error}", self.game))?;
        let outcome = match self.result.as_str() {
            "1-0" => Outcome::Win(Color::Black),
            "0-1" => Outcome::Win(Color::White),
            "1/2-1/2" => Outcome::Draw,
            other => return Err(format!("game {}: unknown result {other:?}", self.game)),
        };
        let forfeit = match &self.forfeit {
            None => {
                if game.outcome() != Some(outcome) {
                    return Err(format!(
                        "game {}: the result {} does not match the moves",
                        self.game, self.result
                    ));
                }
                None
            }
            Some(line) => {
                let side = game.side_to_move().ok_or_else(|| {
                    format!("game {}: forfeited after the game was over", self.game)
                })?;
                let forfeiter = match side {
                    Color::Black => scheduled.black,
                    Color::White => scheduled.white,
                };
                if line.player != name(forfeiter) || outcome != Outcome::Win(side.opponent()) {
                    return Err(format!(
                        "game {}: the forfeit does not match the moves and the result",
                        self.game
                    ));
                }
                Some(Forfeit {
                    side,
                    kind: line.kind,
                    reason: line.reason.clone(),
                })
            }
        };
        let discs = [game.count(Color::Black), game.count(Color::White)];
        if discs != self.discs {
            return Err(format!(
                "game {}: the discs do not match the moves",
                self.game
            ));
        }
        Ok(GameResult {
            number: self.game,
            black: scheduled.black,
            white: scheduled.white,
            opening: scheduled.opening,
            moves,
            outcome,
            discs,
            forfeit,
        })
    }
}

/// `1-0`, `0-1` or `1/2-1/2`: the result from Black's side, as in PGN.
fn result_text(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win(Color::Black) => "1-0",
        Outcome::Win(Color::White) => "0-1",
        Outcome::Draw => "1/2-1/2",
    }
}

/// A tournament's open directory.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    /// `games.jsonl`, open for appending.
    games: File,
    /// The date written into each game's GGF.
    date: Option<String>,
    /// Held while the tournament runs: one run at a time saves here.
    lock: Option<crate::files::Lock>,
    /// This run made the directory (it was not there before).
    made: bool,
}

impl Store {
    /// Opens (or creates) `dir` for the tournament `options` describes, and reads back the
    /// games already played there.
    ///
    /// # Errors
    /// [`TournamentError`]: the directory holds another tournament, a file cannot be read
    /// or written, or `games.jsonl` is damaged before its last line.
    pub fn open(
        dir: &Path,
        options: &TournamentOptions,
        schedule: &[Scheduled],
    ) -> Result<(Store, Vec<GameResult>), TournamentError> {
        let write_error = |path: &Path| {
            let path = path.to_owned();
            move |source| TournamentError::Write { path, source }
        };
        let made = !dir.exists();
        fs::create_dir_all(dir).map_err(write_error(dir))?;
        let lock_path = dir.join(LOCK);
        let lock = match crate::files::Lock::try_acquire(&lock_path) {
            Ok(Ok(lock)) => lock,
            Ok(Err(held)) => {
                return Err(TournamentError::InUse {
                    dir: dir.to_owned(),
                    holder: held.holder(),
                });
            }
            Err(source) => {
                return Err(TournamentError::Write {
                    path: lock_path,
                    source,
                });
            }
        };
        let header = Header::new(options);
        let header_path = dir.join(HEADER);
        match crate::files::read_limited(&header_path, MAX_FILE) {
            Ok(text) => {
                let saved: Header =
                    serde_json::from_slice(&text).map_err(|error| TournamentError::Damaged {
                        path: header_path.clone(),
                        problem: error.to_string(),
                    })?;
                if saved != header {
                    return Err(TournamentError::Different {
                        dir: dir.to_owned(),
                        differences: header.differences(&saved),
                    });
                }
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                let mut text = serde_json::to_string_pretty(&header).unwrap_or_default();
                text.push('\n');
                crate::files::write_bytes(&header_path, text.as_bytes())
                    .map_err(write_error(&header_path))?;
            }
            Err(source) => {
                return Err(TournamentError::Read {
                    path: header_path,
                    source,
                });
            }
        }

        let games_path = dir.join(GAMES);
        let (played, good_len) = match crate::files::read_limited(&games_path, MAX_FILE) {
            Ok(bytes) => read_games(&bytes, options, schedule).map_err(|(line, problem)| {
                TournamentError::Damaged {
                    path: games_path.clone(),
                    problem: format!("line {line}: {problem}"),
                }
            })?,
            Err(error) if error.kind() == io::ErrorKind::NotFound => (Vec::new(), 0),
            Err(source) => {
                return Err(TournamentError::Read {
                    path: games_path,
                    source,
                });
            }
        };
        let games = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&games_path)
            .map_err(write_error(&games_path))?;
        // A line cut off in its writing is dropped, so the next one starts on a line of
        // its own.
        if games.metadata().map_err(write_error(&games_path))?.len() != good_len {
            games
                .set_len(good_len)
                .and_then(|()| games.sync_data())
                .map_err(write_error(&games_path))?;
        }
        Ok((
            Store {
                dir: dir.to_owned(),
                games,
                date: options.date.clone(),
                lock: Some(lock),
                made,
            },
            played,
        ))
    }

    /// Gives the directory up when the tournament fails before its first game: one this run
    /// made is removed (it holds no game), one that was there is left as it was.
    pub fn abandon(mut self) {
        let played = fs::metadata(self.dir.join(GAMES)).is_ok_and(|games| games.len() > 0);
        self.lock = None;
        if self.made && !played {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }

    /// Saves a finished game: its GGF file, then its line in `games.jsonl`, synced to disk.
    ///
    /// # Errors
    /// [`TournamentError::Write`].
    pub fn save(
        &mut self,
        game: &GameResult,
        options: &TournamentOptions,
    ) -> Result<(), TournamentError> {
        let line = GameLine::new(game, options);
        let ggf_path = self.dir.join(format!(
            "{:04}-{}-{}.ggf",
            game.number, line.black, line.white
        ));
        let mut record = Record::new(Variant::Full, Setup::standard(Shape::STANDARD));
        record.players = [line.black.clone(), line.white.clone()];
        record.date = self.date.clone();
        record.moves = game.moves.clone();
        // A forfeit reads as GGS writes it: lost on time, or resigned for any other reason.
        record.ending = game.forfeit.as_ref().map(|forfeit| {
            if forfeit.kind == ForfeitKind::Timeout {
                Ending::LostOnTime(forfeit.side)
            } else {
                Ending::Resigned(forfeit.side)
            }
        });
        // The moves were played, so they replay; GGF holds any 8 x 8 FULL game.
        if let Ok(ggf) = record.to_ggf() {
            let mut text = ggf;
            text.push('\n');
            crate::files::write_bytes(&ggf_path, text.as_bytes()).map_err(|source| {
                TournamentError::Write {
                    path: ggf_path.clone(),
                    source,
                }
            })?;
        }
        let mut json = serde_json::to_string(&line).unwrap_or_default();
        json.push('\n');
        self.games
            .write_all(json.as_bytes())
            .and_then(|()| self.games.sync_data())
            .map_err(|source| TournamentError::Write {
                path: self.dir.join(GAMES),
                source,
            })
    }
}

/// The games of `games.jsonl` and the length of its good part: every complete line but a
/// last one that does not parse (cut off in its writing). `Err` names a damaged line.
fn read_games(
    bytes: &[u8],
    options: &TournamentOptions,
    schedule: &[Scheduled],
) -> Result<(Vec<GameResult>, u64), (usize, String)> {
    let mut games = Vec::new();
    let mut seen = vec![false; schedule.len()];
    let mut good_len = 0;
    let mut rest = bytes;
    let mut number = 0;
    while !rest.is_empty() {
        number += 1;
        let (line, complete, after) = match rest.iter().position(|&b| b == b'\n') {
            Some(end) => (&rest[..end], true, &rest[end + 1..]),
            None => (rest, false, &rest[rest.len()..]),
        };
        rest = after;
        let last = rest.is_empty();
        if line.iter().all(u8::is_ascii_whitespace) && complete {
            good_len += line.len() as u64 + 1;
            continue;
        }
        let parsed = match (serde_json::from_slice::<GameLine>(line), complete) {
            (Ok(parsed), true) => parsed,
            // A cut-off last line: what was being written when the tournament stopped.
            _ if last => break,
            (Ok(_), false) => return Err((number, "the line is cut off".to_owned())),
            (Err(error), _) => return Err((number, error.to_string())),
        };
        let game = parsed
            .to_result(options, schedule)
            .map_err(|problem| (number, problem))?;
        let index = game.number as usize - 1;
        if std::mem::replace(&mut seen[index], true) {
            return Err((number, format!("game {} is there twice", game.number)));
        }
        games.push(game);
        good_len += line.len() as u64 + 1;
    }
    Ok((games, good_len))
}
