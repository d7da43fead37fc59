//! Where games are kept: a small [`Backend`] interface (apply a batch of changes in one
//! transaction, load games), its SQLite implementation, and [`Store`], the asynchronous
//! front the server uses.
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
    sync::{Arc, Mutex, mpsc},
    thread,
};

use thiserror::Error;

mod copy;
mod postgres;
mod sqlite;

pub use postgres::Postgres;
pub use sqlite::Sqlite;
use tokio::sync::oneshot;

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
    /// `full` or `simple`.
    pub rules: String,
    /// The starting board, rows separated by `/`, cells `.`, `B`, `W`.
    pub board: String,
    /// `B` or `W`.
    pub first: String,
    /// `most` or `fewest`.
    pub win: String,
    /// The seats, Black then White.
    pub seats: [StoredSeat; 2],
    /// The moves played, in order.
    pub moves: Vec<StoredMove>,
    /// The moves taken back that redo may replay, the next one first.
    pub undone: Vec<String>,
    /// `playing` or `over`.
    pub status: String,
    /// How it ended other than by play: `resign:B`, `time:W`, `abandon:B`, `abort`.
    pub ending: Option<String>,
    /// The clock of a timed game.
    pub clock: Option<StoredClock>,
    /// Whether the result counts for the players' ratings.
    pub rated: bool,
    /// Over: the seat that offered a rematch (`B` or `W`).
    pub rematch_offer: Option<String>,
    /// Over: the rematch's game.
    pub rematch: Option<String>,
    /// Who asked to take a move back, waiting for the other seat: `B` or `W`.
    pub undo_request: Option<String>,
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
    /// `human`, or a player spec.
    pub player: String,
    /// The engine's time per move, in milliseconds.
    pub time_ms: u64,
    /// A hash of the person's secret (people only).
    pub secret_hash: Option<String>,
    /// The person's name: an account's, or the one a guest gave.
    pub name: Option<String>,
    /// The person's account.
    pub user_id: Option<i64>,
}

/// A timed game's clock as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredClock {
    /// Each side's time at the start, in milliseconds.
    pub base_ms: u64,
    /// Added after each move, in milliseconds.
    pub increment_ms: u64,
    /// Black's time left then White's, not counting the turn under way.
    pub left_ms: [u64; 2],
    /// When the turn under way began, in milliseconds since the Unix epoch.
    pub since: i64,
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
    /// `full` or `simple`.
    pub rules: String,
    /// Board rows.
    pub rows: u8,
    /// Board columns.
    pub columns: u8,
    /// Who moves first: `B` or `W`.
    pub first: String,
    /// `most` or `fewest`.
    pub win: String,
    /// The poster's colour: `B`, `W` or `random`.
    pub color: String,
    /// Time control: base and increment, in milliseconds.
    pub clock: Option<(u64, u64)>,
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
    /// The category (`full-8x8-blitz`).
    pub category: String,
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
    /// The square, `d3`.
    pub square: String,
    /// Who played it: `B` or `W`.
    pub side: String,
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
        /// `playing` or `over`.
        status: String,
        /// How it ended other than by play.
        ending: Option<String>,
        /// The clock.
        clock: Option<StoredClock>,
        /// The seat offering a rematch.
        rematch_offer: Option<String>,
        /// The rematch's game.
        rematch: Option<String>,
        /// Who asked for an undo.
        undo_request: Option<String>,
        /// The redo moves, the next one first.
        undone: Vec<String>,
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

/// Where games are kept: what the server needs of a database.
pub trait Backend: Send + 'static {
    /// Applies `changes` in one transaction: all of them or none.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails; then nothing was applied.
    fn apply(&mut self, changes: &[Change]) -> Result<(), StoreError>;

    /// The game `id`, if there is one.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    fn load(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError>;

    /// The ids of games still being played, most recently changed first, at most `limit`.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    fn playing(&mut self, limit: usize) -> Result<Vec<String>, StoreError>;

    /// The ids of finished games, most recently finished first, at most `limit`.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    fn finished(&mut self, limit: usize) -> Result<Vec<String>, StoreError>;

    /// The open challenges, oldest first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    fn seeks(&mut self) -> Result<Vec<StoredSeek>, StoreError>;

    /// `user_id`'s ratings, one per category played.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    fn ratings(&mut self, user_id: i64) -> Result<Vec<StoredRating>, StoreError>;

    /// `user_id`'s ratings after each rated game, oldest first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    fn rating_history(&mut self, user_id: i64) -> Result<Vec<StoredRating>, StoreError>;

    /// The ids of `user_id`'s games, most recently changed first, at most `limit`.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    fn games_of(&mut self, user_id: i64, limit: usize) -> Result<Vec<String>, StoreError>;

    /// The account named `name` (any case).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    fn user(&mut self, name: &str) -> Result<Option<StoredUser>, StoreError>;

    /// The session whose token hashes to `token_hash`, with its account.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    fn session(
        &mut self,
        token_hash: &str,
    ) -> Result<Option<(StoredSession, StoredUser)>, StoreError>;

    /// Makes the database file whole and alone before the server stops (SQLite copies its
    /// write-ahead log into the main file).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    fn close(&mut self) -> Result<(), StoreError>;

    /// Whether the database can be read and has room to write: cheap enough to ask at
    /// every health check.
    ///
    /// # Errors
    /// [`StoreError`] saying what is wrong.
    fn check(&mut self) -> Result<(), StoreError>;
}

/// A clock as its columns: all null in an untimed game.
#[derive(Default)]
struct ClockColumns {
    base_ms: Option<i64>,
    increment_ms: Option<i64>,
    black_ms: Option<i64>,
    white_ms: Option<i64>,
    since: Option<i64>,
}

impl ClockColumns {
    fn of(clock: Option<&StoredClock>) -> ClockColumns {
        let Some(clock) = clock else {
            return ClockColumns::default();
        };
        let ms = |value: u64| Some(i64::try_from(value).unwrap_or(i64::MAX));
        ClockColumns {
            base_ms: ms(clock.base_ms),
            increment_ms: ms(clock.increment_ms),
            black_ms: ms(clock.left_ms[0]),
            white_ms: ms(clock.left_ms[1]),
            since: Some(clock.since),
        }
    }

    fn clock(&self) -> Option<StoredClock> {
        let ms = |value: Option<i64>| value.map(|value| u64::try_from(value).unwrap_or(0));
        Some(StoredClock {
            base_ms: ms(self.base_ms)?,
            increment_ms: ms(self.increment_ms)?,
            left_ms: [ms(self.black_ms)?, ms(self.white_ms)?],
            since: self.since?,
        })
    }
}

/// Text of a redo list.
fn join(squares: &[String]) -> String {
    squares.join(" ")
}

fn split(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
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
                if status == "over" {
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

/// A batch of changes waiting for the writer, and who waits for its commit.
type Pending = (Vec<Change>, oneshot::Sender<Result<(), Arc<StoreError>>>);

/// The server's storage, on SQLite (changes committed by one writer thread in groups,
/// reads on a connection of their own) or on PostgreSQL (a pool of connections).
#[derive(Clone)]
pub struct Store {
    kind: Kind,
}

#[derive(Clone)]
enum Kind {
    Sqlite {
        writer: mpsc::Sender<Pending>,
        reader: Arc<Mutex<Box<dyn Backend>>>,
        /// Why the latest commit failed, until one succeeds.
        failing: Arc<Mutex<Option<String>>>,
    },
    Postgres(Arc<Postgres>),
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Store")
    }
}

impl Store {
    /// A store on the SQLite database at `path` (created and migrated if need be).
    ///
    /// # Errors
    /// [`StoreError`] if the database cannot be opened.
    pub fn sqlite(path: &Path) -> Result<(Store, thread::JoinHandle<()>), StoreError> {
        let mut writer = Sqlite::open(path)?;
        writer.verify()?;
        let reader = Sqlite::open(path)?;
        Ok(Store::new(Box::new(writer), Box::new(reader)))
    }

    /// A store on the PostgreSQL database at `url`, with at most `connections` to it at
    /// once (its schema brought up to date).
    ///
    /// # Errors
    /// [`StoreError`] if the database cannot be reached or migrated.
    pub async fn postgres(url: &str, connections: usize) -> Result<Store, StoreError> {
        let postgres = Postgres::connect(url, connections).await?;
        Ok(Store {
            kind: Kind::Postgres(Arc::new(postgres)),
        })
    }

    /// A store writing through `writer` and reading through `reader` (two handles on the
    /// same database); returns the writer thread, which ends once every `Store` is dropped
    /// and what was sent is committed.
    pub fn new(
        mut writer: Box<dyn Backend>,
        reader: Box<dyn Backend>,
    ) -> (Store, thread::JoinHandle<()>) {
        let (sender, receiver) = mpsc::channel::<Pending>();
        let failing = Arc::new(Mutex::new(None));
        let latest = Arc::clone(&failing);
        let thread = thread::Builder::new()
            .name("store-writer".into())
            .spawn(move || {
                while let Ok(first) = receiver.recv() {
                    let mut batch = vec![first];
                    batch.extend(receiver.try_iter());
                    let changes: Vec<Change> = batch
                        .iter()
                        .flat_map(|(changes, _)| changes.iter().cloned())
                        .collect();
                    let applied = writer.apply(&changes);
                    // What each caller gets: the batch's result, or when it failed, each
                    // caller's changes again, alone (one caller's bad change must not fail
                    // the others').
                    let results: Vec<Result<(), StoreError>> = match applied {
                        Ok(()) => batch.iter().map(|_| Ok(())).collect(),
                        Err(error) if batch.len() == 1 => vec![Err(error)],
                        Err(_) => batch
                            .iter()
                            .map(|(changes, _)| writer.apply(changes))
                            .collect(),
                    };
                    // The database is failing if a commit failed for its own reasons, not
                    // because a change was refused (a name already taken).
                    *latest.lock().expect("not poisoned") = results
                        .iter()
                        .filter_map(|result| result.as_ref().err())
                        .find(|error| !error.is_refusal())
                        .map(ToString::to_string);
                    for ((_, done), result) in batch.into_iter().zip(results) {
                        let _ = done.send(result.map_err(Arc::new));
                    }
                }
                // Every handle is gone: everything committed goes into the main file.
                let _ = writer.close();
            })
            .expect("a thread can be started");
        let store = Store {
            kind: Kind::Sqlite {
                writer: sender,
                reader: Arc::new(Mutex::new(reader)),
                failing,
            },
        };
        (store, thread)
    }

    /// Whether the database works: the latest commit succeeded (or none was tried), it can
    /// be read, and (SQLite) its disk has room.
    ///
    /// # Errors
    /// What is wrong.
    pub async fn health(&self) -> Result<(), StoreError> {
        match &self.kind {
            Kind::Sqlite { failing, .. } => {
                if let Some(error) = failing.lock().expect("not poisoned").clone() {
                    return Err(StoreError::Failing(error));
                }
                self.read(|backend| backend.check()).await
            }
            Kind::Postgres(postgres) => postgres.check().await,
        }
    }

    /// Commits `changes` in one transaction (on SQLite possibly with other callers'
    /// changes); returns once they are on disk.
    ///
    /// # Errors
    /// The database's error (on SQLite shared by everything in the same commit).
    pub async fn commit(&self, changes: Vec<Change>) -> Result<(), Arc<StoreError>> {
        match &self.kind {
            Kind::Sqlite { writer, .. } => {
                let (done, wait) = oneshot::channel();
                writer
                    .send((changes, done))
                    .map_err(|_| Arc::new(StoreError::Closed))?;
                wait.await.map_err(|_| Arc::new(StoreError::Closed))?
            }
            Kind::Postgres(postgres) => postgres.apply(&changes).await.map_err(Arc::new),
        }
    }

    /// What other servers on the same database commit, as they commit it (`None` on
    /// SQLite, where this server is alone).
    pub fn listen(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<Notice>> {
        match &self.kind {
            Kind::Sqlite { .. } => None,
            Kind::Postgres(postgres) => Some(postgres.listen()),
        }
    }

    /// The game `id`'s version in a shared database, where other servers may have changed
    /// it (`None` on SQLite, where this server's memory is the truth, or for no game).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn shared_version(&self, id: &str) -> Result<Option<u64>, StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => Ok(None),
            Kind::Postgres(postgres) => postgres.version(id).await,
        }
    }

    /// Claims the engine's reply to game `id` at `version` for `lease_ms` (a shared
    /// database: unless another server holds it and its lease runs; SQLite: always).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn claim_engine_turn(
        &self,
        id: &str,
        version: u64,
        lease_ms: u64,
    ) -> Result<bool, StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => Ok(true),
            Kind::Postgres(postgres) => postgres.claim_engine_turn(id, version, lease_ms).await,
        }
    }

    /// The games whose engine turn's lease ran out (its server gone, or never started),
    /// now leased to this server for `lease_ms` to look at: at most `limit`.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn orphaned_engine_turns(
        &self,
        limit: usize,
        lease_ms: u64,
    ) -> Result<Vec<String>, StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => Ok(Vec::new()),
            Kind::Postgres(postgres) => postgres.orphaned_engine_turns(limit, lease_ms).await,
        }
    }

    /// Hands back this server's engine leases (it is stopping): others take them at once.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn release_engine_turns(&self) -> Result<(), StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => Ok(()),
            Kind::Postgres(postgres) => postgres.release_engine_turns().await,
        }
    }

    /// Publishes this server's connections to game `id` to the others (a shared
    /// database; SQLite: nothing to do).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn publish_presence(
        &self,
        id: &str,
        here: &StoredPresence,
    ) -> Result<(), StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => Ok(()),
            Kind::Postgres(postgres) => postgres.publish_presence(id, here).await,
        }
    }

    /// The other servers' connections to game `id`, summed (a server not heard from for
    /// a while counts as gone: its seats as left when it was last heard from).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn presence_elsewhere(&self, id: &str) -> Result<StoredPresence, StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => Ok(StoredPresence::default()),
            Kind::Postgres(postgres) => postgres.presence_elsewhere(id).await,
        }
    }

    /// Says this server is alive (its published connections count), and forgets servers
    /// long gone. `leaving`: this server stops, its connections with it.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn presence_heartbeat(&self, leaving: bool) -> Result<(), StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => Ok(()),
            Kind::Postgres(postgres) => postgres.presence_heartbeat(leaving).await,
        }
    }

    /// Challenges taken since `since` (a shared database; SQLite: this server knows them).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn matches_since(&self, since: i64) -> Result<Vec<StoredMatch>, StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => Ok(Vec::new()),
            Kind::Postgres(postgres) => postgres.matches_since(since).await,
        }
    }

    /// The attempts `key` has had since `since` (a shared database; SQLite: none, this
    /// server counts them itself).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn attempts(&self, key: &str, since: i64) -> Result<Attempts, StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => Ok(Attempts::default()),
            Kind::Postgres(postgres) => postgres.attempts(key, since).await,
        }
    }

    /// Whether other servers may share the database (PostgreSQL).
    pub fn is_shared(&self) -> bool {
        matches!(self.kind, Kind::Postgres(_))
    }

    /// Runs `read` on SQLite's reading connection, on a blocking thread.
    async fn read<T: Send + 'static>(
        &self,
        read: impl FnOnce(&mut dyn Backend) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let Kind::Sqlite { reader, .. } = &self.kind else {
            unreachable!("only SQLite has a reading connection")
        };
        let reader = Arc::clone(reader);
        tokio::task::spawn_blocking(move || read(reader.lock().expect("not poisoned").as_mut()))
            .await
            .map_err(|_| StoreError::Closed)?
    }

    /// Loads a game.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn load(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => {
                let id = id.to_owned();
                self.read(move |backend| backend.load(&id)).await
            }
            Kind::Postgres(postgres) => postgres.load(id).await,
        }
    }

    /// The ids of games being played, most recent first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn playing(&self, limit: usize) -> Result<Vec<String>, StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => self.read(move |backend| backend.playing(limit)).await,
            Kind::Postgres(postgres) => postgres.playing(limit).await,
        }
    }

    /// The ids of finished games, most recently finished first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn finished(&self, limit: usize) -> Result<Vec<String>, StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => self.read(move |backend| backend.finished(limit)).await,
            Kind::Postgres(postgres) => postgres.finished(limit).await,
        }
    }

    /// The ids of `user_id`'s games, most recently changed first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn games_of(&self, user_id: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => {
                self.read(move |backend| backend.games_of(user_id, limit))
                    .await
            }
            Kind::Postgres(postgres) => postgres.games_of(user_id, limit).await,
        }
    }

    /// The open challenges, oldest first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn seeks(&self) -> Result<Vec<StoredSeek>, StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => self.read(|backend| backend.seeks()).await,
            Kind::Postgres(postgres) => postgres.seeks().await,
        }
    }

    /// `user_id`'s ratings, one per category played.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn ratings(&self, user_id: i64) -> Result<Vec<StoredRating>, StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => self.read(move |backend| backend.ratings(user_id)).await,
            Kind::Postgres(postgres) => postgres.ratings(user_id).await,
        }
    }

    /// `user_id`'s ratings after each rated game, oldest first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn rating_history(&self, user_id: i64) -> Result<Vec<StoredRating>, StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => {
                self.read(move |backend| backend.rating_history(user_id))
                    .await
            }
            Kind::Postgres(postgres) => postgres.rating_history(user_id).await,
        }
    }

    /// The account named `name` (any case).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn user(&self, name: &str) -> Result<Option<StoredUser>, StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => {
                let name = name.to_owned();
                self.read(move |backend| backend.user(&name)).await
            }
            Kind::Postgres(postgres) => postgres.user(name).await,
        }
    }

    /// The session whose token hashes to `token_hash`, with its account.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn session(
        &self,
        token_hash: &str,
    ) -> Result<Option<(StoredSession, StoredUser)>, StoreError> {
        match &self.kind {
            Kind::Sqlite { .. } => {
                let token_hash = token_hash.to_owned();
                self.read(move |backend| backend.session(&token_hash)).await
            }
            Kind::Postgres(postgres) => postgres.session(token_hash).await,
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
