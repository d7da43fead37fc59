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

use thiserror::Error;

pub use super::{
    ratings::Category,
    table::{ColorChoice, Ended, GameStatus},
    tournaments::Tournament,
};

mod columns;
mod copy;
mod notice;
mod postgres;
mod rows;
mod sqlite;

pub use notice::Notice;
pub use postgres::Postgres;
pub use rows::{
    Attempts, Change, GameMeta, LibraryGame, StoredAnswer, StoredGame, StoredMatch, StoredMove,
    StoredPresence, StoredPuzzle, StoredPuzzleRating, StoredRating, StoredSeat, StoredSeek,
    StoredSession, StoredUser,
};
pub use sqlite::{Sqlite, SqliteStore};

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
    /// What a command that only reads was given is not a database of this program's (no
    /// such file, or a SQLite file without its tables): left as it is.
    #[error("{0}: give the server's database (--db)")]
    NotOurs(String),
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
    /// An account that has played cannot become a bot account (its games and rating
    /// were a person's).
    #[error("{0} has played games: only a new account can become a bot")]
    HasPlayed(String),
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
        matches!(self, StoreError::NameTaken(_) | StoreError::HasPlayed(_))
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

    /// The ids of games being played that changed at `since` (milliseconds since the Unix
    /// epoch) or later, most recent first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn playing(&self, limit: usize, since: i64) -> Result<Vec<String>, StoreError>;

    /// The ids of finished games, most recently finished first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn finished(&self, limit: usize) -> Result<Vec<String>, StoreError>;

    /// The ids of `user_id`'s games being played, most recently changed first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn playing_of(&self, user_id: i64, limit: usize) -> Result<Vec<String>, StoreError>;

    /// The ids of the games being played whose side to move runs out of time at `before`
    /// (milliseconds since the Unix epoch) or earlier, the soonest first: the games a
    /// server watches though nobody has opened them since it started (days-a-move games
    /// end on time while both players are away).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn due(&self, before: i64, limit: usize) -> Result<Vec<String>, StoreError>;

    /// Every game of the game database on a `size` × `size` board: its moves (a move
    /// list) and Black's disc difference at its end.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn library_games(&self, size: u8) -> Result<Vec<(String, i32)>, StoreError>;

    /// A tournament's record.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn tournament(&self, id: &str) -> Result<Option<Tournament>, StoreError>;

    /// Tournaments: those not finished (the soonest to start first), then up to `limit`
    /// finished ones (the latest first).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn tournaments(&self, limit: usize) -> Result<Vec<Tournament>, StoreError>;

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

    /// The puzzle `id`.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn puzzle(&self, id: &str) -> Result<Option<StoredPuzzle>, StoreError>;

    /// Up to `count` puzzles whose ratings are nearest `rating`, nearest first, leaving out
    /// those `user_id` has answered.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn puzzles_near(
        &self,
        rating: f64,
        user_id: Option<i64>,
        count: usize,
    ) -> Result<Vec<StoredPuzzle>, StoreError>;

    /// How many puzzles there are.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn puzzle_count(&self) -> Result<u64, StoreError>;

    /// `user_id`'s puzzle rating (`None` before a first answer).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn puzzle_rating(&self, user_id: i64) -> Result<Option<StoredPuzzleRating>, StoreError>;

    /// Whether `user_id` solved `puzzle_id` at the first answer (`None`: not answered).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn puzzle_answered(
        &self,
        user_id: i64,
        puzzle_id: &str,
    ) -> Result<Option<bool>, StoreError>;

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
