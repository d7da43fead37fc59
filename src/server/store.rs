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
//! A shared database (PostgreSQL, say) would implement [`Backend`] the same way; see the
//! README for running several server instances on one.

use std::{
    path::{Path, PathBuf},
    sync::{Arc, Mutex, mpsc},
    thread,
};

use rusqlite::{Connection, OptionalExtension, params};
use thiserror::Error;
use tokio::sync::oneshot;

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
    /// The game's own fields.
    Meta {
        /// The game.
        game: String,
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

/// The schema, one migration a step: the database's `user_version` says how many ran.
const MIGRATIONS: [&str; 8] = [
    "CREATE TABLE games (
        id TEXT PRIMARY KEY,
        rules TEXT NOT NULL,
        board TEXT NOT NULL,
        first TEXT NOT NULL,
        win TEXT NOT NULL,
        black TEXT NOT NULL,
        black_time_ms INTEGER NOT NULL,
        black_secret TEXT,
        white TEXT NOT NULL,
        white_time_ms INTEGER NOT NULL,
        white_secret TEXT,
        status TEXT NOT NULL,
        resigned TEXT,
        undo_request TEXT,
        undone TEXT NOT NULL DEFAULT '',
        control_secret TEXT,
        paused INTEGER NOT NULL DEFAULT 0,
        speed_ms INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE moves (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        ply INTEGER NOT NULL,
        square TEXT NOT NULL,
        side TEXT NOT NULL,
        played_at INTEGER NOT NULL,
        think_ms INTEGER NOT NULL,
        eval REAL,
        exact INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (game_id, ply)
    ) WITHOUT ROWID;
    CREATE INDEX games_by_status ON games (status, updated_at);",
    // Versions were the time of the last change, which a change within the same
    // millisecond as the one before it outgrew: from now on they are kept.
    "ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
    UPDATE games SET version = updated_at;",
    // Help for seated people between two people: off for new games unless asked for;
    // games from before kept what they had (on).
    "ALTER TABLE games ADD COLUMN help INTEGER NOT NULL DEFAULT 1;",
    // Online play: how a game ended (resignations moved here), clocks, people's names and
    // accounts, rated games.
    "ALTER TABLE games ADD COLUMN ending TEXT;
    UPDATE games SET ending = 'resign:' || resigned WHERE resigned IS NOT NULL;
    ALTER TABLE games ADD COLUMN clock_base_ms INTEGER;
    ALTER TABLE games ADD COLUMN clock_increment_ms INTEGER;
    ALTER TABLE games ADD COLUMN black_clock_ms INTEGER;
    ALTER TABLE games ADD COLUMN white_clock_ms INTEGER;
    ALTER TABLE games ADD COLUMN clock_since INTEGER;
    ALTER TABLE games ADD COLUMN black_name TEXT;
    ALTER TABLE games ADD COLUMN white_name TEXT;
    ALTER TABLE games ADD COLUMN black_user INTEGER;
    ALTER TABLE games ADD COLUMN white_user INTEGER;
    ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;",
    // Accounts and their sessions.
    "CREATE TABLE users (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        password_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL
    );
    CREATE TABLE sessions (
        token_hash TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        csrf TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
    );
    CREATE INDEX games_by_black_user ON games (black_user, updated_at);
    CREATE INDEX games_by_white_user ON games (white_user, updated_at);",
    // The lobby's open challenges.
    "CREATE TABLE seeks (
        id TEXT PRIMARY KEY,
        poster_name TEXT NOT NULL,
        poster_user INTEGER,
        poster_secret TEXT,
        rules TEXT NOT NULL,
        rows INTEGER NOT NULL,
        columns INTEGER NOT NULL,
        first TEXT NOT NULL,
        win TEXT NOT NULL,
        color TEXT NOT NULL,
        clock_base_ms INTEGER,
        clock_increment_ms INTEGER,
        rated INTEGER NOT NULL,
        help INTEGER NOT NULL,
        to_name TEXT,
        private INTEGER NOT NULL,
        created_at INTEGER NOT NULL
    );",
    // Ratings per category, and each one's history.
    "CREATE TABLE ratings (
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        category TEXT NOT NULL,
        rating REAL NOT NULL,
        deviation REAL NOT NULL,
        volatility REAL NOT NULL,
        games INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, category)
    );
    CREATE TABLE rating_history (
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        category TEXT NOT NULL,
        game_id TEXT NOT NULL,
        rating REAL NOT NULL,
        deviation REAL NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (user_id, game_id)
    );",
    // Rematches.
    "ALTER TABLE games ADD COLUMN rematch_offer TEXT;
    ALTER TABLE games ADD COLUMN rematch TEXT;",
];

/// SQLite, in one file: the embedded default.
#[derive(Debug)]
pub struct Sqlite {
    connection: Connection,
    path: PathBuf,
}

/// Free space below which the disk counts as full: a few commits' worth.
const LOW_DISK: u64 = 1 << 20;

impl Sqlite {
    /// Opens (or creates) the database at `path` and brings its schema up to date.
    ///
    /// # Errors
    /// [`StoreError`] if it cannot be opened or migrated, or is newer than this program.
    pub fn open(path: &Path) -> Result<Sqlite, StoreError> {
        let connection = Connection::open(path)?;
        // WAL: readers beside the writer. FULL: a commit is on disk when it returns, so an
        // acknowledged move survives even the machine going down, not just the process.
        connection.pragma_update(None, "journal_mode", "WAL")?;
        connection.pragma_update(None, "synchronous", "FULL")?;
        connection.pragma_update(None, "foreign_keys", "ON")?;
        connection.busy_timeout(std::time::Duration::from_secs(5))?;
        let mut sqlite = Sqlite {
            connection,
            path: path.to_owned(),
        };
        sqlite.migrate()?;
        Ok(sqlite)
    }

    /// Reads every page once (SQLite's `quick_check`): a damaged file is refused at the
    /// start rather than failing some of its games later.
    ///
    /// # Errors
    /// [`StoreError::Damaged`] with what SQLite found.
    pub fn verify(&mut self) -> Result<(), StoreError> {
        let verdict: String = self
            .connection
            .query_row("PRAGMA quick_check(1)", [], |row| row.get(0))
            .map_err(|error| StoreError::Damaged(error.to_string()))?;
        if verdict == "ok" {
            Ok(())
        } else {
            Err(StoreError::Damaged(verdict))
        }
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let version: i64 = self
            .connection
            .pragma_query_value(None, "user_version", |row| row.get(0))?;
        let known = MIGRATIONS.len() as i64;
        if version > known {
            return Err(StoreError::NewerSchema {
                found: version,
                known,
            });
        }
        for (index, migration) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            let transaction = self.connection.transaction()?;
            transaction.execute_batch(migration)?;
            transaction.pragma_update(None, "user_version", index as i64 + 1)?;
            transaction.commit()?;
        }
        Ok(())
    }
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

impl Backend for Sqlite {
    fn apply(&mut self, changes: &[Change]) -> Result<(), StoreError> {
        let transaction = self.connection.transaction()?;
        for change in changes {
            match change {
                Change::Create(game) => {
                    let [black, white] = &game.seats;
                    let clock = ClockColumns::of(game.clock.as_ref());
                    transaction.execute(
                        "INSERT INTO games (id, rules, board, first, win, black, black_time_ms,
                            black_secret, white, white_time_ms, white_secret, status, ending,
                            undo_request, undone, control_secret, paused, speed_ms, created_at,
                            updated_at, version, help, clock_base_ms, clock_increment_ms,
                            black_clock_ms, white_clock_ms, clock_since, black_name, white_name,
                            black_user, white_user, rated, rematch_offer, rematch)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,
                            ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27,
                            ?28, ?29, ?30, ?31, ?32, ?33, ?34)",
                        params![
                            game.id,
                            game.rules,
                            game.board,
                            game.first,
                            game.win,
                            black.player,
                            black.time_ms as i64,
                            black.secret_hash,
                            white.player,
                            white.time_ms as i64,
                            white.secret_hash,
                            game.status,
                            game.ending,
                            game.undo_request,
                            join(&game.undone),
                            game.control_hash,
                            game.paused,
                            game.speed_ms as i64,
                            game.created_at,
                            game.updated_at,
                            game.version as i64,
                            game.help,
                            clock.base_ms,
                            clock.increment_ms,
                            clock.black_ms,
                            clock.white_ms,
                            clock.since,
                            black.name,
                            white.name,
                            black.user_id,
                            white.user_id,
                            game.rated,
                            game.rematch_offer,
                            game.rematch,
                        ],
                    )?;
                    for (ply, mv) in game.moves.iter().enumerate() {
                        insert_move(&transaction, &game.id, ply, mv)?;
                    }
                }
                Change::Move { game, ply, mv } => insert_move(&transaction, game, *ply, mv)?,
                Change::Truncate { game, keep } => {
                    transaction.execute(
                        "DELETE FROM moves WHERE game_id = ?1 AND ply >= ?2",
                        params![game, *keep as i64],
                    )?;
                }
                Change::Meta {
                    game,
                    status,
                    ending,
                    clock,
                    rematch_offer,
                    rematch,
                    undo_request,
                    undone,
                    paused,
                    speed_ms,
                    updated_at,
                    version,
                } => {
                    let clock = ClockColumns::of(clock.as_ref());
                    transaction.execute(
                        "UPDATE games SET status = ?2, ending = ?3, undo_request = ?4,
                            undone = ?5, paused = ?6, speed_ms = ?7, updated_at = ?8,
                            version = ?9, black_clock_ms = ?10, white_clock_ms = ?11,
                            clock_since = ?12, rematch_offer = ?13, rematch = ?14
                         WHERE id = ?1",
                        params![
                            game,
                            status,
                            ending,
                            undo_request,
                            join(undone),
                            paused,
                            *speed_ms as i64,
                            updated_at,
                            *version as i64,
                            clock.black_ms,
                            clock.white_ms,
                            clock.since,
                            rematch_offer,
                            rematch,
                        ],
                    )?;
                }
                Change::Eval {
                    game,
                    ply,
                    score,
                    exact,
                } => {
                    transaction.execute(
                        "UPDATE moves SET eval = ?3, exact = ?4 WHERE game_id = ?1 AND ply = ?2",
                        params![game, *ply as i64, score, exact],
                    )?;
                }
                Change::NewUser(user) => {
                    let inserted = transaction.execute(
                        "INSERT INTO users (name, password_hash, created_at) VALUES (?1, ?2, ?3)
                         ON CONFLICT (name) DO NOTHING",
                        params![user.name, user.password_hash, user.created_at],
                    )?;
                    if inserted == 0 {
                        return Err(StoreError::NameTaken(user.name.clone()));
                    }
                }
                Change::NewSeek(seek) => {
                    let (base, increment) = seek.clock.unzip();
                    transaction.execute(
                        "INSERT INTO seeks (id, poster_name, poster_user, poster_secret, rules, rows,
                            columns, first, win, color, clock_base_ms, clock_increment_ms, rated,
                            help, to_name, private, created_at)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
                            ?16, ?17)",
                        params![
                            seek.id,
                            seek.poster_name,
                            seek.poster_user,
                            seek.poster_secret,
                            seek.rules,
                            seek.rows,
                            seek.columns,
                            seek.first,
                            seek.win,
                            seek.color,
                            base.map(|ms| ms as i64),
                            increment.map(|ms| ms as i64),
                            seek.rated,
                            seek.help,
                            seek.to_name,
                            seek.private,
                            seek.created_at
                        ],
                    )?;
                }
                Change::EndSeek { id } => {
                    transaction.execute("DELETE FROM seeks WHERE id = ?1", [id])?;
                }
                Change::Rating(rating) => {
                    transaction.execute(
                        "INSERT INTO ratings (user_id, category, rating, deviation, volatility,
                            games, updated_at)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                         ON CONFLICT (user_id, category) DO UPDATE SET rating = ?3,
                            deviation = ?4, volatility = ?5, games = ?6, updated_at = ?7",
                        params![
                            rating.user_id,
                            rating.category,
                            rating.rating,
                            rating.deviation,
                            rating.volatility,
                            rating.games,
                            rating.at
                        ],
                    )?;
                    transaction.execute(
                        "INSERT INTO rating_history (user_id, category, game_id, rating,
                            deviation, at)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        params![
                            rating.user_id,
                            rating.category,
                            rating.game_id,
                            rating.rating,
                            rating.deviation,
                            rating.at
                        ],
                    )?;
                }
                Change::NewSession(session) => {
                    transaction.execute(
                        "INSERT INTO sessions (token_hash, user_id, csrf, created_at, expires_at)
                         VALUES (?1, ?2, ?3, ?4, ?5)",
                        params![
                            session.token_hash,
                            session.user_id,
                            session.csrf,
                            session.created_at,
                            session.expires_at
                        ],
                    )?;
                }
                Change::EndSession { token_hash } => {
                    transaction
                        .execute("DELETE FROM sessions WHERE token_hash = ?1", [token_hash])?;
                }
            }
        }
        transaction.commit()?;
        Ok(())
    }

    fn load(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let game = self
            .connection
            .query_row(
                "SELECT id, rules, board, first, win, black, black_time_ms, black_secret, white,
                    white_time_ms, white_secret, status, ending, undo_request, undone,
                    control_secret, paused, speed_ms, created_at, updated_at, version, help,
                    clock_base_ms, clock_increment_ms, black_clock_ms, white_clock_ms,
                    clock_since, black_name, white_name, black_user, white_user, rated,
                    rematch_offer, rematch
                 FROM games WHERE id = ?1",
                [id],
                |row| {
                    Ok(StoredGame {
                        id: row.get(0)?,
                        rules: row.get(1)?,
                        board: row.get(2)?,
                        first: row.get(3)?,
                        win: row.get(4)?,
                        seats: [
                            StoredSeat {
                                player: row.get(5)?,
                                time_ms: row.get::<_, i64>(6)? as u64,
                                secret_hash: row.get(7)?,
                                name: row.get(27)?,
                                user_id: row.get(29)?,
                            },
                            StoredSeat {
                                player: row.get(8)?,
                                time_ms: row.get::<_, i64>(9)? as u64,
                                secret_hash: row.get(10)?,
                                name: row.get(28)?,
                                user_id: row.get(30)?,
                            },
                        ],
                        moves: Vec::new(),
                        status: row.get(11)?,
                        ending: row.get(12)?,
                        clock: ClockColumns {
                            base_ms: row.get(22)?,
                            increment_ms: row.get(23)?,
                            black_ms: row.get(24)?,
                            white_ms: row.get(25)?,
                            since: row.get(26)?,
                        }
                        .clock(),
                        rated: row.get(31)?,
                        rematch_offer: row.get(32)?,
                        rematch: row.get(33)?,
                        undo_request: row.get(13)?,
                        undone: split(&row.get::<_, String>(14)?),
                        control_hash: row.get(15)?,
                        paused: row.get(16)?,
                        speed_ms: row.get::<_, i64>(17)? as u64,
                        created_at: row.get(18)?,
                        updated_at: row.get(19)?,
                        version: row.get::<_, i64>(20)? as u64,
                        help: row.get(21)?,
                    })
                },
            )
            .optional()?;
        let Some(mut game) = game else {
            return Ok(None);
        };
        let mut statement = self.connection.prepare_cached(
            "SELECT square, side, played_at, think_ms, eval, exact FROM moves
             WHERE game_id = ?1 ORDER BY ply",
        )?;
        game.moves = statement
            .query_map([id], |row| {
                Ok(StoredMove {
                    square: row.get(0)?,
                    side: row.get(1)?,
                    played_at: row.get(2)?,
                    think_ms: row.get::<_, i64>(3)? as u64,
                    eval: row.get(4)?,
                    exact: row.get(5)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(Some(game))
    }

    fn playing(&mut self, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT id FROM games WHERE status = 'playing' ORDER BY updated_at DESC LIMIT ?1",
        )?;
        let ids = statement
            .query_map([limit as i64], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    fn finished(&mut self, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT id FROM games WHERE status = 'over' ORDER BY updated_at DESC LIMIT ?1",
        )?;
        let ids = statement
            .query_map([limit as i64], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    fn seeks(&mut self) -> Result<Vec<StoredSeek>, StoreError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT id, poster_name, poster_user, poster_secret, rules, rows, columns, first, win,
                color, clock_base_ms, clock_increment_ms, rated, help, to_name, private, created_at
             FROM seeks ORDER BY created_at, id",
        )?;
        let seeks = statement
            .query_map([], |row| {
                let base: Option<i64> = row.get(10)?;
                let increment: Option<i64> = row.get(11)?;
                Ok(StoredSeek {
                    id: row.get(0)?,
                    poster_name: row.get(1)?,
                    poster_user: row.get(2)?,
                    poster_secret: row.get(3)?,
                    rules: row.get(4)?,
                    rows: row.get(5)?,
                    columns: row.get(6)?,
                    first: row.get(7)?,
                    win: row.get(8)?,
                    color: row.get(9)?,
                    clock: base
                        .zip(increment)
                        .map(|(base, increment)| (base.max(0) as u64, increment.max(0) as u64)),
                    rated: row.get(12)?,
                    help: row.get(13)?,
                    to_name: row.get(14)?,
                    private: row.get(15)?,
                    created_at: row.get(16)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(seeks)
    }

    fn ratings(&mut self, user_id: i64) -> Result<Vec<StoredRating>, StoreError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT category, rating, deviation, volatility, games, updated_at FROM ratings
             WHERE user_id = ?1 ORDER BY games DESC, category",
        )?;
        let ratings = statement
            .query_map([user_id], |row| {
                Ok(StoredRating {
                    user_id,
                    category: row.get(0)?,
                    rating: row.get(1)?,
                    deviation: row.get(2)?,
                    volatility: row.get(3)?,
                    games: row.get(4)?,
                    game_id: String::new(),
                    at: row.get(5)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(ratings)
    }

    fn rating_history(&mut self, user_id: i64) -> Result<Vec<StoredRating>, StoreError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT category, game_id, rating, deviation, at FROM rating_history
             WHERE user_id = ?1 ORDER BY at, game_id",
        )?;
        let history = statement
            .query_map([user_id], |row| {
                Ok(StoredRating {
                    user_id,
                    category: row.get(0)?,
                    game_id: row.get(1)?,
                    rating: row.get(2)?,
                    deviation: row.get(3)?,
                    volatility: 0.0,
                    games: 0,
                    at: row.get(4)?,
                })
            })?
            .collect::<Result<_, _>>()?;
        Ok(history)
    }

    fn games_of(&mut self, user_id: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT id FROM games WHERE black_user = ?1 OR white_user = ?1
             ORDER BY updated_at DESC LIMIT ?2",
        )?;
        let ids = statement
            .query_map(params![user_id, limit as i64], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    fn user(&mut self, name: &str) -> Result<Option<StoredUser>, StoreError> {
        Ok(self
            .connection
            .prepare_cached(
                "SELECT id, name, password_hash, created_at FROM users WHERE name = ?1",
            )?
            .query_row([name], user_of_row)
            .optional()?)
    }

    fn session(
        &mut self,
        token_hash: &str,
    ) -> Result<Option<(StoredSession, StoredUser)>, StoreError> {
        Ok(self
            .connection
            .prepare_cached(
                "SELECT users.id, users.name, users.password_hash, users.created_at,
                    sessions.csrf, sessions.created_at, sessions.expires_at
                 FROM sessions JOIN users ON users.id = sessions.user_id
                 WHERE sessions.token_hash = ?1",
            )?
            .query_row([token_hash], |row| {
                let user = user_of_row(row)?;
                Ok((
                    StoredSession {
                        token_hash: token_hash.to_owned(),
                        user_id: user.id,
                        csrf: row.get(4)?,
                        created_at: row.get(5)?,
                        expires_at: row.get(6)?,
                    },
                    user,
                ))
            })
            .optional()?)
    }

    fn close(&mut self) -> Result<(), StoreError> {
        self.connection
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        Ok(())
    }

    fn check(&mut self) -> Result<(), StoreError> {
        self.connection.query_row(
            "SELECT count(*) FROM (SELECT 1 FROM games LIMIT 1)",
            [],
            |row| row.get::<_, i64>(0),
        )?;
        match free_space(&self.path) {
            Some(free) if free < LOW_DISK => Err(StoreError::DiskFull(free)),
            _ => Ok(()),
        }
    }
}

fn user_of_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<StoredUser> {
    Ok(StoredUser {
        id: row.get(0)?,
        name: row.get(1)?,
        password_hash: row.get(2)?,
        created_at: row.get(3)?,
    })
}

/// Bytes free for this process on the file system holding `path`, where the system says.
fn free_space(path: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let name = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        // SAFETY: `stats` is plain data the call fills in; `name` is a valid C string.
        unsafe {
            let mut stats: libc::statvfs = std::mem::zeroed();
            (libc::statvfs(name.as_ptr(), &mut stats) == 0)
                .then(|| stats.f_bavail.saturating_mul(stats.f_frsize))
        }
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

fn insert_move(
    transaction: &rusqlite::Transaction<'_>,
    game: &str,
    ply: usize,
    mv: &StoredMove,
) -> Result<(), StoreError> {
    transaction.execute(
        "INSERT INTO moves (game_id, ply, square, side, played_at, think_ms, eval, exact)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            game,
            ply as i64,
            mv.square,
            mv.side,
            mv.played_at,
            mv.think_ms as i64,
            mv.eval,
            mv.exact
        ],
    )?;
    Ok(())
}

/// A batch of changes waiting for the writer, and who waits for its commit.
type Pending = (Vec<Change>, oneshot::Sender<Result<(), Arc<StoreError>>>);

/// The server's storage: changes committed by one writer thread in groups, reads on a
/// connection of their own.
#[derive(Clone)]
pub struct Store {
    writer: mpsc::Sender<Pending>,
    reader: Arc<Mutex<Box<dyn Backend>>>,
    /// Why the latest commit failed, until one succeeds.
    failing: Arc<Mutex<Option<String>>>,
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
            writer: sender,
            reader: Arc::new(Mutex::new(reader)),
            failing,
        };
        (store, thread)
    }

    /// Whether the database works: the latest commit succeeded (or none was tried), it can
    /// be read, and its disk has room.
    ///
    /// # Errors
    /// What is wrong, in words.
    pub async fn health(&self) -> Result<(), String> {
        if let Some(error) = self.failing.lock().expect("not poisoned").clone() {
            return Err(format!("the latest commit failed: {error}"));
        }
        let reader = Arc::clone(&self.reader);
        tokio::task::spawn_blocking(move || reader.lock().expect("not poisoned").check())
            .await
            .map_err(|_| StoreError::Closed.to_string())?
            .map_err(|error| error.to_string())
    }

    /// Commits `changes` (in one transaction, possibly with other callers' changes);
    /// returns once they are on disk.
    ///
    /// # Errors
    /// The database's error, shared by everything in the same commit.
    pub async fn commit(&self, changes: Vec<Change>) -> Result<(), Arc<StoreError>> {
        let (done, wait) = oneshot::channel();
        self.writer
            .send((changes, done))
            .map_err(|_| Arc::new(StoreError::Closed))?;
        wait.await.map_err(|_| Arc::new(StoreError::Closed))?
    }

    /// Runs `read` on the reading connection, on a blocking thread.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn read<T: Send + 'static>(
        &self,
        read: impl FnOnce(&mut dyn Backend) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let reader = Arc::clone(&self.reader);
        tokio::task::spawn_blocking(move || read(reader.lock().expect("not poisoned").as_mut()))
            .await
            .map_err(|_| StoreError::Closed)?
    }

    /// Loads a game.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn load(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let id = id.to_owned();
        self.read(move |backend| backend.load(&id)).await
    }

    /// The ids of games being played, most recent first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub async fn playing(&self, limit: usize) -> Result<Vec<String>, StoreError> {
        self.read(move |backend| backend.playing(limit)).await
    }
}

/// The database file used when none is given: `othello.db` in the current directory.
pub fn default_path() -> PathBuf {
    PathBuf::from("othello.db")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(id: &str) -> StoredGame {
        StoredGame {
            id: id.to_owned(),
            rules: "full".into(),
            board: "......../......../......../...WB.../...BW.../......../......../........".into(),
            first: "B".into(),
            win: "most".into(),
            seats: [
                StoredSeat {
                    player: "human".into(),
                    time_ms: 100,
                    secret_hash: Some("ab".into()),
                    name: Some("Ann".into()),
                    user_id: Some(3),
                },
                StoredSeat {
                    player: "engine:3".into(),
                    time_ms: 250,
                    secret_hash: None,
                    name: None,
                    user_id: None,
                },
            ],
            moves: vec![StoredMove {
                square: "d3".into(),
                side: "B".into(),
                played_at: 5,
                think_ms: 1200,
                eval: None,
                exact: false,
            }],
            undone: Vec::new(),
            status: "playing".into(),
            ending: None,
            clock: Some(StoredClock {
                base_ms: 60_000,
                increment_ms: 2_000,
                left_ms: [58_000, 60_000],
                since: 5,
            }),
            rated: true,
            rematch_offer: None,
            rematch: None,
            undo_request: None,
            control_hash: None,
            paused: false,
            speed_ms: 0,
            created_at: 1,
            updated_at: 5,
            version: 7,
            help: false,
        }
    }

    #[test]
    fn games_survive_reopening_and_changes_apply_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.db");
        let mut db = Sqlite::open(&path).unwrap();
        let original = game("g1");
        db.apply(&[Change::Create(Box::new(original.clone()))])
            .unwrap();
        let second = StoredMove {
            square: "c5".into(),
            side: "W".into(),
            played_at: 9,
            think_ms: 250,
            eval: Some(-1.5),
            exact: false,
        };
        db.apply(&[
            Change::Move {
                game: "g1".into(),
                ply: 1,
                mv: second.clone(),
            },
            Change::Eval {
                game: "g1".into(),
                ply: 0,
                score: 0.5,
                exact: true,
            },
        ])
        .unwrap();
        drop(db);
        let mut db = Sqlite::open(&path).unwrap();
        let loaded = db.load("g1").unwrap().unwrap();
        assert_eq!(loaded.moves.len(), 2);
        assert_eq!(loaded.moves[1], second);
        assert_eq!(
            (loaded.moves[0].eval, loaded.moves[0].exact),
            (Some(0.5), true)
        );
        assert_eq!(loaded.seats, original.seats);
        assert_eq!(loaded.clock, original.clock);
        assert_eq!(db.playing(10).unwrap(), ["g1"]);
        // A failing batch changes nothing: the moves cleared, then the same ply twice.
        let again = Change::Move {
            game: "g1".into(),
            ply: 1,
            mv: second,
        };
        assert!(
            db.apply(&[
                Change::Truncate {
                    game: "g1".into(),
                    keep: 0
                },
                again.clone(),
                again
            ])
            .is_err()
        );
        assert_eq!(db.load("g1").unwrap().unwrap().moves.len(), 2);
        db.apply(&[
            Change::Truncate {
                game: "g1".into(),
                keep: 1,
            },
            Change::Meta {
                game: "g1".into(),
                status: "over".into(),
                ending: Some("resign:W".into()),
                clock: Some(StoredClock {
                    base_ms: 60_000,
                    increment_ms: 2_000,
                    left_ms: [58_000, 41_000],
                    since: 10,
                }),
                rematch_offer: Some("B".into()),
                rematch: None,
                undo_request: None,
                undone: vec!["c5".into()],
                paused: true,
                speed_ms: 300,
                updated_at: 10,
                version: 12,
            },
        ])
        .unwrap();
        let loaded = db.load("g1").unwrap().unwrap();
        assert_eq!(loaded.version, 12, "versions are kept");
        assert_eq!(loaded.moves.len(), 1);
        assert_eq!(loaded.undone, ["c5"]);
        assert_eq!((loaded.status.as_str(), loaded.paused), ("over", true));
        assert_eq!(loaded.ending.as_deref(), Some("resign:W"));
        assert_eq!(loaded.rematch_offer.as_deref(), Some("B"));
        assert_eq!(
            loaded.clock.map(|clock| clock.left_ms),
            Some([58_000, 41_000])
        );
        assert!(loaded.rated);
        assert!(db.playing(10).unwrap().is_empty());
        assert_eq!(db.load("nope").unwrap(), None);
    }

    /// Issue 21.7: a database of the first schema gets versions, from the time of the
    /// last change, and keeps its games.
    #[test]
    fn regression_21_7_the_first_schema_is_migrated_with_versions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.db");
        let connection = Connection::open(&path).unwrap();
        connection.execute_batch(MIGRATIONS[0]).unwrap();
        connection.pragma_update(None, "user_version", 1).unwrap();
        connection
            .execute(
                "INSERT INTO games (id, rules, board, first, win, black, black_time_ms, white,
                    white_time_ms, status, created_at, updated_at)
                 VALUES ('old', 'full', '....', 'B', 'most', 'human', 0, 'human', 0,
                    'playing', 1, 1234)",
                [],
            )
            .unwrap();
        drop(connection);
        let mut db = Sqlite::open(&path).unwrap();
        let old = db.load("old").unwrap().unwrap();
        assert_eq!((old.updated_at, old.version), (1234, 1234));
        assert_eq!((old.ending, old.clock, old.rated), (None, None, false));
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.db");
        let connection = Connection::open(&path).unwrap();
        connection.pragma_update(None, "user_version", 99).unwrap();
        drop(connection);
        assert!(matches!(
            Sqlite::open(&path),
            Err(StoreError::NewerSchema { found: 99, .. })
        ));
    }

    #[tokio::test]
    async fn the_store_commits_batches_and_reads_them_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.db");
        let (store, writer) = Store::sqlite(&path).unwrap();
        let mut waits = Vec::new();
        for index in 0..20 {
            let store = store.clone();
            waits.push(tokio::spawn(async move {
                store
                    .commit(vec![Change::Create(Box::new(game(&format!("g{index}"))))])
                    .await
            }));
        }
        for wait in waits {
            wait.await.unwrap().unwrap();
        }
        assert_eq!(store.playing(100).await.unwrap().len(), 20);
        assert!(store.load("g7").await.unwrap().is_some());
        // A failing change fails its whole commit, and is reported to its caller.
        let duplicate = store
            .commit(vec![Change::Create(Box::new(game("g1")))])
            .await;
        assert!(duplicate.is_err());
        drop(store);
        writer.join().unwrap();
    }
}
