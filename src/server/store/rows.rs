//! What the store keeps, as the server's words: games, their moves, seats, accounts,
//! sessions, challenges, ratings; and the changes a commit makes. Text only at the SQL
//! column ([`columns`](super::columns)).

use othello::{Board, Clock, Color, Shape, Square, TimeControl, Variant, WinRule};

use super::{Category, ColorChoice, Ended, GameStatus};
use crate::server::{ratings::Rating, tournaments::Tournament};
use othello::analysis::puzzle::Puzzle;
use othello::engine::Occupant;

/// A key's attempts within a window: how many, the oldest and the newest (milliseconds
/// since the Unix epoch).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Attempts {
    /// How many.
    pub count: u64,
    /// The oldest's time.
    pub oldest: Option<i64>,
    /// The newest's time.
    pub newest: Option<i64>,
}

/// A game as stored: everything needed to rebuild it after a restart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredGame {
    /// Its id.
    pub id: String,
    /// The rule set.
    pub rules: Variant,
    /// The starting board.
    pub board: Board,
    /// Who moves first.
    pub first: Color,
    /// Who wins.
    pub win: WinRule,
    /// The seats, Black then White.
    pub seats: [StoredSeat; 2],
    /// The moves played, in order.
    pub moves: Vec<StoredMove>,
    /// The moves taken back that redo may replay, the next one first.
    pub undone: Vec<Square>,
    /// Being played or over.
    pub status: GameStatus,
    /// How it ended other than by play.
    pub ending: Option<Ended>,
    /// The clock of a timed game.
    pub clock: Option<Clock>,
    /// When the side to move's time runs out (or its first move's), while a timed game is
    /// being played: what the sweep for correspondence games looks for (the table works
    /// it out again when the game is revived).
    pub deadline: Option<i64>,
    /// Whether the result counts for the players' ratings.
    pub rated: bool,
    /// Over: the seat that offered a rematch.
    pub rematch_offer: Option<Color>,
    /// Over: the rematch's game.
    pub rematch: Option<String>,
    /// Who asked to take a move back, waiting for the other seat.
    pub undo_request: Option<Color>,
    /// A hash of the secret that controls a game between engines (pause, step, speed).
    pub control_hash: Option<String>,
    /// Engine games: paused.
    pub paused: bool,
    /// Engine games: the pause between moves, in milliseconds.
    pub speed_ms: u64,
    /// When it was created, in milliseconds since the Unix epoch.
    pub created_at: i64,
    /// When it last changed, in milliseconds since the Unix epoch.
    pub updated_at: i64,
    /// The version of its state last acknowledged: versions only grow, across restarts
    /// too, so a page can keep the newest state it has seen.
    pub version: u64,
    /// Whether people seated in a game between two people get hints and the evaluation
    /// graph while it is played.
    pub help: bool,
}

/// A seat as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSeat {
    /// A person, or an engine.
    pub player: Occupant,
    /// The engine's time per move, in milliseconds.
    pub time_ms: u64,
    /// A hash of the person's secret (people only).
    pub secret_hash: Option<String>,
    /// The person's name: an account's, or the one a guest gave.
    pub name: Option<String>,
    /// The person's account.
    pub user_id: Option<i64>,
}

impl StoredGame {
    /// Whether it is standard Othello on `shape`: FULL rules from the standard start, Black
    /// first, most discs winning (what WTHOR files and the opening explorer hold).
    pub fn is_standard(&self, shape: Shape) -> bool {
        let standard = othello::Setup::standard(shape);
        self.rules == Variant::Full
            && self.board == standard.board
            && self.first == standard.first_mover
            && self.win == WinRule::MostDiscs
    }
}

/// An account as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredUser {
    /// Its id (0 for one not stored yet).
    pub id: i64,
    /// The name, as its owner typed it.
    pub name: String,
    /// The password's Argon2 hash (a PHC string).
    pub password_hash: String,
    /// When it was made, in milliseconds since the Unix epoch.
    pub created_at: i64,
    /// A bot account (for the bot API; marked BOT wherever it is shown).
    pub bot: bool,
}

/// A challenge as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSeek {
    /// Its id.
    pub id: String,
    /// Who posted it: a name, and an account or the hash of a guest's secret.
    pub poster_name: String,
    /// The poster's account.
    pub poster_user: Option<i64>,
    /// The hash of a guest poster's secret.
    pub poster_secret: Option<String>,
    /// The rule set.
    pub rules: Variant,
    /// The board.
    pub shape: Shape,
    /// Who moves first.
    pub first: Color,
    /// Who wins.
    pub win: WinRule,
    /// The poster's colour.
    pub color: ColorChoice,
    /// The time control.
    pub clock: Option<TimeControl>,
    /// Whether the game is rated.
    pub rated: bool,
    /// Whether the players get the engine's help (casual games only).
    pub help: bool,
    /// The only member who may accept it.
    pub to_name: Option<String>,
    /// Not listed: for whoever has its link.
    pub private: bool,
    /// When it was posted, in milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// A rating as stored: the latest per category, and one row of history per rated game.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRating {
    /// Whose.
    pub user_id: i64,
    /// The category.
    pub category: Category,
    /// The rating.
    pub rating: f64,
    /// Its deviation.
    pub deviation: f64,
    /// Its volatility.
    pub volatility: f64,
    /// Rated games in the category.
    pub games: u32,
    /// The game that made it (empty for the latest of a category read back).
    pub game_id: String,
    /// When, in milliseconds since the Unix epoch.
    pub at: i64,
}

/// A session as stored: only a hash of its token, which the browser's cookie holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSession {
    /// The hash of the token.
    pub token_hash: String,
    /// Whose it is.
    pub user_id: i64,
    /// The token a page sends with each change it asks for (against cross-site requests).
    pub csrf: String,
    /// When it was opened, in milliseconds since the Unix epoch.
    pub created_at: i64,
    /// When it ends.
    pub expires_at: i64,
}

/// A move as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredMove {
    /// The square.
    pub square: Square,
    /// Who played it.
    pub side: Color,
    /// When, in milliseconds since the Unix epoch.
    pub played_at: i64,
    /// How long the side took to play it, in milliseconds.
    pub think_ms: u64,
    /// The engine's evaluation after it, for Black, in discs (once computed).
    pub eval: Option<f64>,
    /// Whether that evaluation is exact.
    pub exact: bool,
}

impl Eq for StoredMove {}

/// One change to the stored games.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// A new game.
    Create(Box<StoredGame>),
    /// A move, the `ply`-th (from 0) of the game.
    Move {
        /// The game.
        game: String,
        /// Its number, from 0.
        ply: usize,
        /// The move.
        mv: StoredMove,
    },
    /// Moves taken back: only the first `keep` stay.
    Truncate {
        /// The game.
        game: String,
        /// Moves kept.
        keep: usize,
    },
    /// The game's own fields, if the game is still at version `expected` (else the whole
    /// commit fails with [`StoreError::Conflict`](super::StoreError::Conflict)).
    Meta(GameMeta),
    /// A new account (its id is given by the database).
    NewUser(StoredUser),
    /// A session opened by logging in.
    NewSession(StoredSession),
    /// A challenge posted in the lobby.
    NewSeek(StoredSeek),
    /// A challenge taken, and the game made of it (a shared database tells the poster's
    /// server).
    Matched(StoredMatch),
    /// A challenge accepted or withdrawn.
    EndSeek {
        /// Its id.
        id: String,
    },
    /// A player's rating after a rated game.
    Rating(StoredRating),
    /// Puzzles added (those already there, by id, are left as they are).
    AddPuzzles(Vec<StoredPuzzle>),
    /// Games added to the game database the opening explorer reads (those already there,
    /// by key, are left as they are).
    AddLibraryGames(Vec<LibraryGame>),
    /// A tournament's record: a new one (`expected` is `None`), or one changed from the
    /// version `expected` (else the whole commit fails with
    /// [`StoreError::Conflict`](super::StoreError::Conflict): another server changed it).
    Tournament {
        /// The record, at its new version.
        tournament: Box<Tournament>,
        /// The version it was changed from.
        expected: Option<u64>,
    },
    /// An account's first answer to a puzzle, with both ratings after it; refused
    /// ([`super::StoreError::Conflict`]) unless both ratings are still those it was computed
    /// from and the account has not answered the puzzle before.
    PuzzleAnswer(StoredAnswer),
    /// An account made a bot account, refused ([`super::StoreError::HasPlayed`]) once it
    /// has played a game.
    MakeBot {
        /// The account's id.
        user_id: i64,
    },
    /// A session closed by logging out (or found expired).
    EndSession {
        /// The hash of its token.
        token_hash: String,
    },
    /// Whether an engine is to move in the game, and for how long at most its reply may
    /// take (a shared database leases the turn to this server: if the server is gone when
    /// the lease ends, another one replies).
    EngineTurn {
        /// The game.
        game: String,
        /// The game's version the engine replies to, and the lease's length in
        /// milliseconds; `None`: no engine is to move.
        due: Option<(u64, u64)>,
    },
    /// A failed login or a registration, counted against `key` (a shared database:
    /// every server's count; older ones than the window are let go of).
    Attempt {
        /// What is limited: `name ann`, `address 192.0.2.1`.
        key: String,
        /// When, in milliseconds since the Unix epoch.
        at: i64,
        /// The window the limits count within.
        window_ms: i64,
    },
    /// `key`'s attempts forgotten (a successful login).
    ForgetAttempts {
        /// What was limited.
        key: String,
    },
    /// The evaluation after the `ply`-th move.
    Eval {
        /// The game.
        game: String,
        /// Which move, from 0.
        ply: usize,
        /// For Black, in discs.
        score: f64,
        /// Exact or estimated.
        exact: bool,
    },
}

/// A challenge taken lately: its poster's page learns the game (on any server).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredMatch {
    /// The challenge.
    pub seek_id: String,
    /// The game made of it.
    pub game_id: String,
    /// The poster's account.
    pub poster_user: Option<i64>,
    /// The hash of a guest poster's secret.
    pub poster_secret: Option<String>,
    /// When, in milliseconds since the Unix epoch.
    pub at: i64,
}

/// One server's connections to a game's live channel, as a shared database keeps them
/// (or the sum of the other servers').
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredPresence {
    /// Black's then White's connections.
    pub seats: [u64; 2],
    /// Connections without a seat.
    pub spectators: u64,
    /// When each seat's last connection closed, in milliseconds since the Unix epoch
    /// (`None`: never, or connected).
    pub left_at: [Option<i64>; 2],
}

/// A game's own fields after a change, and the version it was made from.
#[derive(Clone, Debug, PartialEq)]
pub struct GameMeta {
    /// The game.
    pub game: String,
    /// The version the change was made from.
    pub expected: u64,
    /// Being played or over.
    pub status: GameStatus,
    /// How it ended other than by play.
    pub ending: Option<Ended>,
    /// The clock.
    pub clock: Option<Clock>,
    /// When the side to move's time runs out ([`StoredGame::deadline`]).
    pub deadline: Option<i64>,
    /// The seat offering a rematch.
    pub rematch_offer: Option<Color>,
    /// The rematch's game.
    pub rematch: Option<String>,
    /// Who asked for an undo.
    pub undo_request: Option<Color>,
    /// The redo moves, the next one first.
    pub undone: Vec<Square>,
    /// Engine games: paused.
    pub paused: bool,
    /// Engine games: the pause between moves.
    pub speed_ms: u64,
    /// When.
    pub updated_at: i64,
    /// The game's version after this change.
    pub version: u64,
}

/// A puzzle as kept, with its rating among the people who tried it.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredPuzzle {
    /// The position, its answer and every move's exact score.
    pub puzzle: Puzzle,
    /// Where it comes from (`self-play 11:42`, `game ID`).
    pub source: String,
    /// Its rating; `games` counts the rated answers.
    pub rating: Rating,
    /// Rated answers that were right.
    pub solved: u32,
}

/// An account's first answer to a puzzle and both ratings after it.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredAnswer {
    /// Whose.
    pub user_id: i64,
    /// The puzzle.
    pub puzzle_id: String,
    /// Whether it was the answer.
    pub solved: bool,
    /// When, in milliseconds since the Unix epoch.
    pub at: i64,
    /// The account's puzzle rating after it (`games`: its answers).
    pub player: Rating,
    /// The puzzle's after it.
    pub puzzle: Rating,
}

/// An account's puzzle rating, and how many it solved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StoredPuzzleRating {
    /// The rating; `games` counts its rated answers.
    pub rating: Rating,
    /// Answers that were right.
    pub solved: u32,
}

/// A game of the game database (imported from WTHOR files): what the opening explorer
/// needs, and who played it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryGame {
    /// What makes it the same game when imported again: a digest of its year,
    /// tournament, players and moves.
    pub key: String,
    /// Where it comes from (`WTH_2001.wtb`).
    pub source: String,
    /// Its tournament's name.
    pub tournament: String,
    /// Black's name.
    pub black: String,
    /// White's.
    pub white: String,
    /// The year it was played.
    pub year: i64,
    /// The board's side (8 or 10).
    pub size: u8,
    /// Its moves, as a move list (`f5d6c3`).
    pub moves: String,
    /// Black's disc difference at its end (the empty squares for the winner).
    pub result: i32,
}
