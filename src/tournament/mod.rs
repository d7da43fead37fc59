//! `othello tournament`: any number of players, built-in ones and external engines speaking
//! the NBoard protocol, play every pairing (a round robin) or one player against each of the
//! others (a gauntlet), each pairing a set number of games; then a crosstable and Elo
//! ratings for all of them.
//!
//! - **The schedule** ([`schedule`]): each pairing plays `games_per_pairing` games, two on
//!   each opening with colours swapped, so that a lopsided opening favours neither player.
//!   Every pairing gets the same openings. Games go opening by opening, every pairing's two
//!   games on an opening before the next opening, so that a tournament stopped early has
//!   played every pairing about as often. Games are numbered from 1 in that order.
//! - **Built-in players** ([`othello::engine::PlayerSpec`]) are made afresh for each game,
//!   with the time per move and a seed of their own derived from the tournament's seed, the
//!   game's number and the colour: a game is played the same whenever it is played (a
//!   resumed tournament included), as long as no player is cut short by the clock.
//! - **External engines** ([`external`]) are started once and kept running between games;
//!   an engine that fails loses the game by forfeit (the reason is recorded), is killed and
//!   is started again for its next game; the tournament goes on. One that cannot be started
//!   at all is an error before the first game.
//! - **Saving** ([`save`]): every game as GGF and as a line of a JSON Lines file synced
//!   after each game; a tournament started again on the same directory plays only the games
//!   missing.
//!
//! Games are played one at a time: the time per move is the players' whole machine, as in
//! `othello match`. Only standard 8 × 8 Othello under full rules, the only game NBoard
//! engines and GGF know.

mod external;
mod openings;
pub mod report;
mod save;

use std::{io, path::PathBuf, time::Duration};

pub use external::on_interrupt;
use external::{EngineFailure, ExternalEngine};
pub use openings::{
    Opening, OpeningsError, from_file as openings_from_file, random as random_openings,
};
use othello::{
    ByColor, Color, Full, Outcome, Square, Status,
    arena::elo::EloScore,
    engine::{EngineSettings, Limits, Player, PlayerSpec, mix, new_player_with},
};
use save::Store;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// What [`mix`] is asked for when it seeds a built-in player.
const PLAYER_SEED: u64 = 1;

/// A player of the tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entrant {
    /// Its name: a word, unique in the tournament.
    pub name: String,
    /// What plays.
    pub kind: EntrantKind,
}

/// What plays for an [`Entrant`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntrantKind {
    /// A built-in player.
    BuiltIn(PlayerSpec),
    /// An external engine speaking NBoard.
    External {
        /// The command as given, for reports.
        command: String,
        /// The program and its arguments.
        argv: Vec<String>,
    },
}

/// Where the openings came from, for reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpeningsSource {
    /// A file of transcripts.
    File(PathBuf),
    /// Random legal moves, this many.
    Random(u32),
}

/// A tournament.
#[derive(Clone, Debug)]
pub struct TournamentOptions {
    /// The players, at least two. The built-in players come first, then the engines, each
    /// in the order given.
    pub entrants: Vec<Entrant>,
    /// Games each pairing plays: twice the number of openings.
    pub games_per_pairing: u32,
    /// The player who plays every other (a gauntlet); `None` for a round robin.
    pub gauntlet: Option<usize>,
    /// The openings, `games_per_pairing / 2` of them: each pairing plays two games on each.
    pub openings: Vec<Opening>,
    /// Where the openings came from.
    pub openings_source: OpeningsSource,
    /// Makes the random openings and the built-in players' choices reproducible.
    pub seed: u64,
    /// Built-in players' time per move (also the basis of the engines' clock: see
    /// [`external`]).
    pub time_per_move: Duration,
    /// Threads per built-in engine search (games are played one at a time, but a
    /// comparison with engines given one thread is fairer with one).
    pub threads: usize,
    /// Built-in engines play without the opening book.
    pub no_book: bool,
    /// The depth external engines are given (`set depth`).
    pub engine_depth: u32,
    /// The longest wait for any answer of an external engine.
    pub move_timeout: Duration,
    /// The directory the tournament is saved in (and resumed from), if any.
    pub save: Option<PathBuf>,
    /// The date written into saved games.
    pub date: Option<String>,
}

impl TournamentOptions {
    /// The player the ratings are anchored on: the gauntlet's, or the first.
    pub fn anchor(&self) -> usize {
        self.gauntlet.unwrap_or(0)
    }
}

/// A game of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scheduled {
    /// Its number, from 1.
    pub number: u32,
    /// The player with Black (an index into [`TournamentOptions::entrants`]).
    pub black: usize,
    /// The player with White.
    pub white: usize,
    /// Its opening (an index into [`TournamentOptions::openings`]).
    pub opening: usize,
}

/// The pairs of players who meet: every pair in a round robin, the gauntlet's player with
/// each other in a gauntlet; each pair in the order of the players (the gauntlet's first).
pub fn pairings(options: &TournamentOptions) -> Vec<(usize, usize)> {
    let players = options.entrants.len();
    match options.gauntlet {
        Some(gauntlet) => (0..players)
            .filter(|&other| other != gauntlet)
            .map(|other| (gauntlet, other))
            .collect(),
        None => (0..players)
            .flat_map(|a| (a + 1..players).map(move |b| (a, b)))
            .collect(),
    }
}

/// Every game of the tournament in the order played: for each opening, for each pairing,
/// a game with the pairing's first player as Black, then one with colours swapped.
pub fn schedule(options: &TournamentOptions) -> Vec<Scheduled> {
    let pairings = pairings(options);
    let mut games = Vec::with_capacity(pairings.len() * options.openings.len() * 2);
    for opening in 0..options.openings.len() {
        for &(a, b) in &pairings {
            for (black, white) in [(a, b), (b, a)] {
                games.push(Scheduled {
                    number: games.len() as u32 + 1,
                    black,
                    white,
                    opening,
                });
            }
        }
    }
    games
}

/// A finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// Its number in the schedule.
    pub number: u32,
    /// The player with Black.
    pub black: usize,
    /// The player with White.
    pub white: usize,
    /// Its opening.
    pub opening: usize,
    /// Every move, the opening's included (passes implicit).
    pub moves: Vec<Square>,
    /// The result: a forfeit is a win for the other side.
    pub outcome: Outcome,
    /// Black's and White's discs at the end (or when the game was forfeited).
    pub discs: [u32; 2],
    /// Why the game ended before its end, if it did.
    pub forfeit: Option<Forfeit>,
}

impl GameResult {
    /// How the game ended for Black's player.
    pub fn black_score(&self) -> EloScore {
        match self.outcome {
            Outcome::Win(Color::Black) => EloScore::Win,
            Outcome::Win(Color::White) => EloScore::Loss,
            Outcome::Draw => EloScore::Draw,
        }
    }

    /// The player who forfeited, if one did.
    pub fn forfeiter(&self) -> Option<usize> {
        self.forfeit.as_ref().map(|forfeit| match forfeit.side {
            Color::Black => self.black,
            Color::White => self.white,
        })
    }
}

/// A game lost before its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forfeit {
    /// The side that lost it.
    pub side: Color,
    /// What happened.
    pub kind: ForfeitKind,
    /// In words.
    pub reason: String,
}

/// What made a player lose a game before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ForfeitKind {
    /// An engine could not be started again.
    Start,
    /// Nothing came in time.
    Timeout,
    /// A line that is not an NBoard answer.
    Garbage,
    /// An illegal move, a pass with a move at hand, or an answer naming no move.
    IllegalMove,
    /// The engine exited, crashed or closed its output.
    Exited,
    /// The engine stopped reading its input.
    NotReading,
    /// This program failed (a built-in player with no legal move: a bug).
    Internal,
}

impl ForfeitKind {
    /// The kind of an engine's failure.
    fn of(failure: &EngineFailure) -> ForfeitKind {
        match failure {
            EngineFailure::Start(_) => ForfeitKind::Start,
            EngineFailure::Timeout { .. } => ForfeitKind::Timeout,
            EngineFailure::Garbage { .. } | EngineFailure::TooLong => ForfeitKind::Garbage,
            EngineFailure::Unreadable { .. }
            | EngineFailure::Illegal { .. }
            | EngineFailure::Pass { .. } => ForfeitKind::IllegalMove,
            EngineFailure::Exited { .. } | EngineFailure::Write(_) => ForfeitKind::Exited,
            EngineFailure::NotReading => ForfeitKind::NotReading,
            EngineFailure::Internal(_) => ForfeitKind::Internal,
        }
    }
}

/// What a running tournament tells its caller.
#[derive(Clone, Copy, Debug)]
pub enum Progress<'a> {
    /// Before any game: this many of the games were already played (read back from the
    /// save directory).
    Resumed {
        /// Games already played.
        played: usize,
        /// Games in the schedule.
        total: usize,
    },
    /// A game starts.
    Started(&'a Scheduled),
    /// A game is over (and saved).
    Finished {
        /// The game.
        game: &'a GameResult,
        /// Games played so far, this one included.
        played: usize,
    },
}

/// Why a tournament stopped.
#[derive(Debug, Error)]
pub enum TournamentError {
    /// An external engine cannot be started at all.
    #[error("cannot start engine {name} ({command}): {source}")]
    Start {
        /// The engine's name.
        name: String,
        /// Its command.
        command: String,
        /// Why.
        source: io::Error,
    },
    /// A saved file cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A file cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A saved file is damaged.
    #[error("{}: {problem}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// The openings file cannot be used.
    #[error(transparent)]
    Openings(#[from] OpeningsError),
    /// The save directory holds another tournament.
    #[error(
        "{} holds a different tournament: {differences}; give the same arguments as before, \
         or another --save directory",
        dir.display()
    )]
    Different {
        /// The directory.
        dir: PathBuf,
        /// What differs.
        differences: String,
    },
    /// Another run of a tournament is saving into the same directory: both would write
    /// every game.
    #[error(
        "{} is in use by another othello tournament ({holder}): wait for it to finish, or \
         give another --save directory",
        dir.display()
    )]
    InUse {
        /// The directory.
        dir: PathBuf,
        /// Who holds it: `process 1234`.
        holder: String,
    },
}

/// A tournament played (or read back).
#[derive(Clone, Debug)]
pub struct Played {
    /// Every game, in the order of the schedule.
    pub games: Vec<GameResult>,
    /// How many of them were read back from the save directory.
    pub resumed: usize,
}

/// The directory a tournament is saved in when none is named: see
/// [`save::Header::default_directory`].
pub fn default_directory(options: &TournamentOptions) -> PathBuf {
    save::Header::new(options).default_directory()
}

/// Plays the tournament `options` describes: reads back the games already saved (if it is
/// saved), plays the others in the order of the [`schedule`], saving each, and tells
/// `progress` as it goes. Every engine it started is stopped when it returns.
///
/// # Errors
/// [`TournamentError`]: an engine cannot be started at all, or saving (or reading back)
/// fails. An engine that misbehaves is not an error: it loses the game.
pub fn run(
    options: &TournamentOptions,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Played, TournamentError> {
    let schedule = schedule(options);
    let total = schedule.len();
    let mut results: Vec<Option<GameResult>> = vec![None; total];
    let mut store = None;
    if let Some(dir) = &options.save {
        let (opened, saved) = Store::open(dir, options, &schedule)?;
        for game in saved {
            let index = (game.number as usize).checked_sub(1);
            if let Some(slot) = index.and_then(|index| results.get_mut(index)) {
                *slot = Some(game);
            }
        }
        store = Some(opened);
    }
    let resumed = results.iter().flatten().count();
    progress(Progress::Resumed {
        played: resumed,
        total,
    });

    let mut engines: Vec<Option<ExternalEngine>> = options
        .entrants
        .iter()
        .map(|entrant| match &entrant.kind {
            EntrantKind::External { argv, .. } => Some(new_engine(options, argv)),
            EntrantKind::BuiltIn(_) => None,
        })
        .collect();
    // An engine that cannot even be started is a mistake on the command line: said before
    // the first game rather than as a forfeit of every game.
    for (index, engine) in engines.iter_mut().enumerate() {
        let (Some(engine), EntrantKind::External { command, .. }) =
            (engine, &options.entrants[index].kind)
        else {
            continue;
        };
        let plays = schedule
            .iter()
            .zip(&results)
            .any(|(game, result)| result.is_none() && (game.black == index || game.white == index));
        if plays && let Err(source) = engine.start() {
            // Nothing was played: a directory made for this run goes with it.
            if let Some(store) = store.take() {
                store.abandon();
            }
            return Err(TournamentError::Start {
                name: options.entrants[index].name.clone(),
                command: command.clone(),
                source,
            });
        }
    }

    let mut played = resumed;
    for (scheduled, slot) in schedule.iter().zip(results.iter_mut()) {
        if slot.is_some() {
            continue;
        }
        progress(Progress::Started(scheduled));
        let game = play_scheduled_game(options, scheduled, &mut engines);
        if let Some(store) = &mut store {
            store.save(&game, options)?;
        }
        played += 1;
        progress(Progress::Finished {
            game: &game,
            played,
        });
        *slot = Some(game);
    }
    Ok(Played {
        games: results.into_iter().flatten().collect(),
        resumed,
    })
}

fn new_engine(options: &TournamentOptions, argv: &[String]) -> ExternalEngine {
    ExternalEngine::new(argv.to_vec(), options.engine_depth, options.move_timeout)
}

/// Who sits on one side of a game.
enum Occupant {
    BuiltIn(Box<dyn Player<Full>>),
    /// An engine, taken from the tournament's list for the game and put back after it.
    External(ExternalEngine),
}

/// Plays one game of the schedule to its end or to a forfeit.
fn play_scheduled_game(
    options: &TournamentOptions,
    scheduled: &Scheduled,
    engines: &mut [Option<ExternalEngine>],
) -> GameResult {
    let players = ByColor::new(scheduled.black, scheduled.white);
    let names = players
        .map(|player| options.entrants[player].name.as_str())
        .into_array();
    let game_seed = mix(options.seed, u64::from(scheduled.number), PLAYER_SEED);
    let mut seats: ByColor<Occupant> = ByColor::from_fn(|colour| {
        let player = players[colour];
        match &options.entrants[player].kind {
            EntrantKind::BuiltIn(spec) => Occupant::BuiltIn(new_player_with::<Full>(
                *spec,
                mix(game_seed, colour as u64, PLAYER_SEED),
                None,
                &EngineSettings {
                    threads: Some(options.threads),
                    no_book: options.no_book,
                    ..EngineSettings::default()
                },
            )),
            EntrantKind::External { argv, .. } => Occupant::External(
                engines[player]
                    .take()
                    .unwrap_or_else(|| new_engine(options, argv)),
            ),
        }
    });

    let mut game = options.openings[scheduled.opening].game();
    let (outcome, forfeit) = loop {
        let side = match game.status() {
            Status::Over(outcome) => break (outcome, None),
            Status::ToMove(side) => side,
        };
        let chosen = match &mut seats[side] {
            Occupant::BuiltIn(player) => player
                .choose(&game, &Limits::time(options.time_per_move), &mut |_| {})
                .ok_or_else(|| Forfeit {
                    side,
                    kind: ForfeitKind::Internal,
                    reason: "the built-in player chose no move".to_owned(),
                }),
            Occupant::External(engine) => engine
                .choose(&game, names, external::clock(&game, options.time_per_move))
                .map_err(|failure| Forfeit {
                    side,
                    kind: ForfeitKind::of(&failure),
                    reason: failure.to_string(),
                }),
        };
        let played = chosen.and_then(|square| {
            game.play(square).map(drop).map_err(|error| Forfeit {
                side,
                kind: ForfeitKind::Internal,
                reason: format!("the built-in player chose an illegal move: {error}"),
            })
        });
        if let Err(forfeit) = played {
            break (Outcome::Win(side.opponent()), Some(forfeit));
        }
    };

    for (seat, player) in seats.into_array().into_iter().zip(players.into_array()) {
        if let Occupant::External(engine) = seat {
            engines[player] = Some(engine);
        }
    }
    GameResult {
        number: scheduled.number,
        black: scheduled.black,
        white: scheduled.white,
        opening: scheduled.opening,
        moves: game.moves().collect(),
        outcome,
        discs: [game.count(Color::Black), game.count(Color::White)],
        forfeit,
    }
}

#[cfg(test)]
mod tests;
