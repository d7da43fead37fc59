//! Where games are kept: one asynchronous [`Backend`] interface (commit a batch of changes
//! in one transaction, read games back), its SQLite and PostgreSQL implementations, and
//! [`Store`], the handle the server holds.
//!
//! Every write goes through one writer thread, which takes all the changes waiting, applies
//! them in one transaction, commits, and only then acknowledges each: a move is
//! acknowledged once it is on disk, and many games' moves share one commit (group commit),
//! so durability costs one `fsync` per batch, not per move. Reads use a connection of their
//! own (SQLite's WAL mode lets them run beside the writer).
//!
//! On PostgreSQL ([`Postgres`]) the server may be one of several instances sharing the
//! database: commits are transactions of their own on a pool of connections.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    thread,
};

use othello::{Board, Clock, Color, Shape, Square, TimeControl, Variant, WinRule};
use thiserror::Error;

pub use super::{
    ratings::Category,
    table::{ColorChoice, Ended, GameStatus},
};
use crate::play::Occupant;

mod columns;
mod copy;
mod postgres;
mod sqlite;

pub use postgres::Postgres;
pub use sqlite::{Sqlite, SqliteStore};

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
    /// commit fails with [`StoreError::Conflict`]).
    Meta {
        /// The game.
        game: String,
        /// The version the change was made from.
        expected: u64,
        /// Being played or over.
        status: GameStatus,
        /// How it ended other than by play.
        ending: Option<Ended>,
        /// The clock.
        clock: Option<Clock>,
        /// The seat offering a rematch.
        rematch_offer: Option<Color>,
        /// The rematch's game.
        rematch: Option<String>,
        /// Who asked for an undo.
        undo_request: Option<Color>,
        /// The redo moves, the next one first.
        undone: Vec<Square>,
        /// Engine games: paused.
        paused: bool,
        /// Engine games: the pause between moves.
        speed_ms: u64,
        /// When.
        updated_at: i64,
        /// The game's version after this change.
        version: u64,
    },
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

/// A storage failure.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The database failed.
    #[error("database: {0}")]
    Database(#[from] rusqlite::Error),
    /// The database was written by a newer version of this program.
    #[error("the database is at schema version {found}, newer than this program's {known}")]
    NewerSchema {
        /// Its version.
        found: i64,
        /// The newest this program knows.
        known: i64,
    },
    /// The database's lock file cannot be made.
    #[error("cannot lock it: {0}")]
    Lock(std::io::Error),
    /// The database file is damaged.
    #[error("the database is damaged ({0}): restore it from a backup, or start on another --db")]
    Damaged(String),
    /// The disk is full, or nearly.
    #[error("the disk holding the database has {0} bytes free")]
    DiskFull(u64),
    /// The writer thread is gone (the server is stopping).
    #[error("the store is closed")]
    Closed,
    /// An account of that name exists already (names are compared without case).
    #[error("the name {0} is taken")]
    NameTaken(String),
    /// The latest commit failed (SQLite: its writer says why, until one succeeds).
    #[error("the latest commit failed: {0}")]
    Failing(String),
    /// PostgreSQL failed.
    #[error("database: {}", postgres_message(.0))]
    Postgres(tokio_postgres::Error),
    /// PostgreSQL cannot be reached (the connection was lost, or none could be made):
    /// the change was not applied, or the answer was lost with the connection.
    #[error("the database cannot be reached: {0}")]
    Unavailable(String),
    /// The path is not one to keep a database in: not a regular file, another kind of
    /// file, or a database's log left without it.
    #[error("{0}")]
    NotADatabase(String),
    /// Every connection to the database was in use for as long as a request may wait:
    /// nothing was applied.
    #[error("every connection to the database is busy")]
    Busy,
    /// The challenge was taken or withdrawn already (on a shared database, through
    /// another server).
    #[error("challenge {0} is gone")]
    SeekGone(String),
    /// The game changed since the change was made from it (on a shared database, another
    /// server changed it): nothing was applied.
    #[error("game {0} changed meanwhile")]
    Conflict(String),
    /// A copy's target holds games or accounts already.
    #[error("it holds games or accounts already: copy into an empty database")]
    NotEmpty,
    /// The database's address is not one.
    #[error("{0}")]
    Url(String),
}

/// PostgreSQL's own words where it gave some ("db error" alone says nothing).
fn postgres_message(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => error.to_string(),
    }
}

impl StoreError {
    /// Whether the change was refused (a name taken), the database working as it should.
    pub fn is_refusal(&self) -> bool {
        matches!(self, StoreError::NameTaken(_))
    }
}

/// What a database does for the server: commit a batch of changes in one transaction,
/// and read games, challenges, accounts and ratings back. SQLite ([`SqliteStore`]) and
/// PostgreSQL ([`Postgres`]) implement it; a new database is one more implementation. The
/// last group is for several servers sharing one database: one server alone needs none of
/// it, and their defaults say so.
#[async_trait::async_trait]
pub trait Backend: Send + Sync + 'static {
    /// Commits `changes` in one transaction (SQLite: possibly with other callers'
    /// changes); returns once they are on disk.
    ///
    /// # Errors
    /// The database's error (on SQLite shared by everything in the same commit).
    async fn commit(&self, changes: Vec<Change>) -> Result<(), Arc<StoreError>>;

    /// Whether the database works: the latest commit succeeded (or none was tried), it can
    /// be read, and (SQLite) its disk has room.
    ///
    /// # Errors
    /// What is wrong.
    async fn health(&self) -> Result<(), StoreError>;

    /// Loads a game.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn load(&self, id: &str) -> Result<Option<StoredGame>, StoreError>;

    /// The ids of games being played, most recent first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn playing(&self, limit: usize) -> Result<Vec<String>, StoreError>;

    /// The ids of finished games, most recently finished first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn finished(&self, limit: usize) -> Result<Vec<String>, StoreError>;

    /// The ids of `user_id`'s games, most recently changed first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn games_of(&self, user_id: i64, limit: usize) -> Result<Vec<String>, StoreError>;

    /// The open challenges, oldest first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn seeks(&self) -> Result<Vec<StoredSeek>, StoreError>;

    /// `user_id`'s ratings, one per category played.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn ratings(&self, user_id: i64) -> Result<Vec<StoredRating>, StoreError>;

    /// `user_id`'s ratings after each rated game, oldest first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn rating_history(&self, user_id: i64) -> Result<Vec<StoredRating>, StoreError>;

    /// The account named `name` (any case).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn user(&self, name: &str) -> Result<Option<StoredUser>, StoreError>;

    /// The session whose token hashes to `token_hash`, with its account.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn session(
        &self,
        token_hash: &str,
    ) -> Result<Option<(StoredSession, StoredUser)>, StoreError>;

    // ------------------------------------------------------ several servers, one database

    /// Whether other servers may share the database.
    fn is_shared(&self) -> bool {
        false
    }

    /// What other servers on the same database commit, as they commit it.
    fn listen(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<Notice>> {
        None
    }

    /// The game `id`'s version where other servers may have changed it (`None` where this
    /// server's memory is the truth, or for no game).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn shared_version(&self, _id: &str) -> Result<Option<u64>, StoreError> {
        Ok(None)
    }

    /// Claims the engine's reply to game `id` at `version` for `lease_ms`, unless another
    /// server holds it and its lease runs (alone: always).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn claim_engine_turn(
        &self,
        _id: &str,
        _version: u64,
        _lease_ms: u64,
    ) -> Result<bool, StoreError> {
        Ok(true)
    }

    /// The games whose engine turn's lease ran out (its server gone, or never started),
    /// now leased to this server for `lease_ms` to look at: at most `limit`.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn orphaned_engine_turns(
        &self,
        _limit: usize,
        _lease_ms: u64,
    ) -> Result<Vec<String>, StoreError> {
        Ok(Vec::new())
    }

    /// Hands back this server's engine leases (it is stopping): others take them at once.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn release_engine_turns(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Publishes this server's connections to game `id` to the others.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn publish_presence(&self, _id: &str, _here: &StoredPresence) -> Result<(), StoreError> {
        Ok(())
    }

    /// The other servers' connections to game `id`, summed (a server not heard from for
    /// a while counts as gone: its seats as left when it was last heard from).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn presence_elsewhere(&self, _id: &str) -> Result<StoredPresence, StoreError> {
        Ok(StoredPresence::default())
    }

    /// Says this server is alive (its published connections count), and forgets servers
    /// long gone. `leaving`: this server stops, its connections with it.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn presence_heartbeat(&self, _leaving: bool) -> Result<(), StoreError> {
        Ok(())
    }

    /// Challenges taken since `since` (alone: this server knows them).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn matches_since(&self, _since: i64) -> Result<Vec<StoredMatch>, StoreError> {
        Ok(Vec::new())
    }

    /// The attempts `key` has had since `since` (alone: none, this server counts them
    /// itself).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn attempts(&self, _key: &str, _since: i64) -> Result<Attempts, StoreError> {
        Ok(Attempts::default())
    }
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

/// What a commit on a shared database announces to the other servers on it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Notice {
    /// The game `id` is at `version` now.
    Game {
        /// Its id.
        id: String,
        /// Its version.
        version: u64,
    },
    /// A game started or ended: the lobby's lists change.
    Lists,
    /// A challenge was posted, taken or withdrawn.
    Seeks,
    /// A session was closed (by its hash).
    Logout(String),
    /// Who is connected to the game `id` changed on some server.
    Presence(String),
    /// The listening connection was made (again): anything may have changed unseen.
    Resync,
}

impl Notice {
    /// What `change` announces.
    fn of(change: &Change) -> Vec<Notice> {
        match change {
            Change::Create(game) => vec![
                Notice::Game {
                    id: game.id.clone(),
                    version: game.version,
                },
                Notice::Lists,
            ],
            Change::Meta {
                game,
                version,
                status,
                ..
            } => {
                let game = Notice::Game {
                    id: game.clone(),
                    version: *version,
                };
                if *status == GameStatus::Over {
                    vec![game, Notice::Lists]
                } else {
                    vec![game]
                }
            }
            Change::NewSeek(_) | Change::EndSeek { .. } | Change::Matched(_) => {
                vec![Notice::Seeks]
            }
            Change::EndSession { token_hash } => vec![Notice::Logout(token_hash.clone())],
            Change::Move { .. }
            | Change::Truncate { .. }
            | Change::EngineTurn { .. }
            | Change::Attempt { .. }
            | Change::ForgetAttempts { .. }
            | Change::Eval { .. }
            | Change::NewUser(_)
            | Change::NewSession(_)
            | Change::Rating(_) => Vec::new(),
        }
    }

    /// The notice of a payload (`None` for one not understood).
    fn parse(payload: &str) -> Option<Notice> {
        let (kind, rest) = payload.split_once(':').unwrap_or((payload, ""));
        match kind {
            "g" => {
                let (id, version) = rest.rsplit_once(':')?;
                Some(Notice::Game {
                    id: id.to_owned(),
                    version: version.parse().ok()?,
                })
            }
            "l" => Some(Notice::Lists),
            "s" => Some(Notice::Seeks),
            "x" => Some(Notice::Logout(rest.to_owned())),
            "p" => Some(Notice::Presence(rest.to_owned())),
            _ => None,
        }
    }
}

/// The payload: short, ids only (PostgreSQL's limit is 8000 bytes).
impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Notice::Game { id, version } => write!(f, "g:{id}:{version}"),
            Notice::Lists => f.write_str("l"),
            Notice::Seeks => f.write_str("s"),
            Notice::Logout(hash) => write!(f, "x:{hash}"),
            Notice::Presence(id) => write!(f, "p:{id}"),
            Notice::Resync => f.write_str("r"),
        }
    }
}

/// The server's storage: one [`Backend`], shared by every handle (its methods are the
/// backend's, through `Deref`).
#[derive(Clone)]
pub struct Store {
    backend: Arc<dyn Backend>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Store")
    }
}

impl std::ops::Deref for Store {
    type Target = dyn Backend;

    fn deref(&self) -> &(dyn Backend + 'static) {
        self.backend.as_ref()
    }
}

impl Store {
    /// A store on the SQLite database at `path` (created and migrated if need be), and
    /// its writer thread, which ends once every `Store` is dropped and what was sent is
    /// committed.
    ///
    /// # Errors
    /// [`StoreError`] if the database cannot be opened.
    pub fn sqlite(path: &Path) -> Result<(Store, thread::JoinHandle<()>), StoreError> {
        let (sqlite, writer) = SqliteStore::open(path)?;
        Ok((Store::on(sqlite), writer))
    }

    /// A store on the PostgreSQL database at `url`, with at most `connections` to it at
    /// once (its schema brought up to date).
    ///
    /// # Errors
    /// [`StoreError`] if the database cannot be reached or migrated.
    pub async fn postgres(url: &str, connections: usize) -> Result<Store, StoreError> {
        Ok(Store::on(Postgres::connect(url, connections).await?))
    }

    /// A store on `backend`.
    pub fn on(backend: impl Backend) -> Store {
        Store {
            backend: Arc::new(backend),
        }
    }
}

/// Which database: a SQLite file, or a PostgreSQL server (`postgres://` or
/// `postgresql://`; any other text is a file's path).
#[derive(Clone, PartialEq, Eq)]
pub enum Target {
    /// The SQLite file.
    Sqlite(PathBuf),
    /// The PostgreSQL URL.
    Postgres(String),
}

impl std::str::FromStr for Target {
    type Err = String;

    fn from_str(text: &str) -> Result<Target, String> {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            text.parse::<tokio_postgres::Config>()
                .map_err(|error| format!("not a PostgreSQL URL ({error})"))?;
            Ok(Target::Postgres(text.to_owned()))
        } else if text.is_empty() {
            Err("an empty path".to_owned())
        } else {
            Ok(Target::Sqlite(PathBuf::from(text)))
        }
    }
}

/// The target as people may read it: a URL's password is left out.
impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Sqlite(path) => write!(f, "{}", path.display()),
            Target::Postgres(url) => {
                let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
                match rest.split_once('@') {
                    Some((user, host)) if user.contains(':') => {
                        let name = user.split(':').next().unwrap_or_default();
                        write!(f, "{scheme}://{name}:***@{host}")
                    }
                    _ => f.write_str(url),
                }
            }
        }
    }
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Target({self})")
    }
}
