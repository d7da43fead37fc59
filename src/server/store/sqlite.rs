//! SQLite, in one file: the embedded default.

use std::{
    path::{Path, PathBuf},
    sync::{Arc, Mutex, mpsc},
    thread,
};

use rusqlite::{Connection, params};
use tokio::sync::oneshot;

use super::{
    Backend, Change, Ended, StoreError, StoredGame, StoredMove, StoredRating, StoredSeek,
    StoredSession, StoredUser,
    columns::{
        self, ClockColumns, GAME_COLUMNS, MOVE_COLUMNS, SEEK_COLUMNS, USER_COLUMNS, board_text,
        color_text, squares_text,
    },
};

/// A batch of changes waiting for the writer, and who waits for its commit.
type Pending = (Vec<Change>, oneshot::Sender<Result<(), Arc<StoreError>>>);

/// SQLite as the server uses it: every write through one writer thread, which takes all
/// the changes waiting, applies them in one transaction and commits them together (group
/// commit); reads on a connection of their own, on a blocking thread.
pub struct SqliteStore {
    writer: mpsc::Sender<Pending>,
    reader: Arc<Mutex<Sqlite>>,
    /// Why the latest commit failed, until one succeeds.
    failing: Arc<Mutex<Option<String>>>,
}

impl SqliteStore {
    /// The store on the database at `path` (created and migrated if need be), and its
    /// writer thread, which ends once the store is dropped and what was sent is committed.
    ///
    /// # Errors
    /// [`StoreError`] if the database cannot be opened.
    pub fn open(path: &Path) -> Result<(SqliteStore, thread::JoinHandle<()>), StoreError> {
        let mut writer = Sqlite::open(path)?;
        writer.verify()?;
        let reader = Sqlite::open(path)?;
        let (sender, receiver) = mpsc::channel::<Pending>();
        let failing = Arc::new(Mutex::new(None));
        let latest = Arc::clone(&failing);
        let thread = thread::Builder::new()
            .name("store-writer".into())
            .spawn(move || write(&mut writer, &receiver, &latest))
            .expect("a thread can be started");
        let store = SqliteStore {
            writer: sender,
            reader: Arc::new(Mutex::new(reader)),
            failing,
        };
        Ok((store, thread))
    }

    /// Runs `read` on the reading connection, on a blocking thread.
    async fn read<T: Send + 'static>(
        &self,
        read: impl FnOnce(&mut Sqlite) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let reader = Arc::clone(&self.reader);
        tokio::task::spawn_blocking(move || read(&mut reader.lock().expect("not poisoned")))
            .await
            .map_err(|_| StoreError::Closed)?
    }
}

/// The writer thread: batches of what is waiting, one transaction each, until every
/// sender is gone; then everything committed goes into the main file.
fn write(writer: &mut Sqlite, receiver: &mpsc::Receiver<Pending>, latest: &Mutex<Option<String>>) {
    while let Ok(first) = receiver.recv() {
        let mut batch = vec![first];
        batch.extend(receiver.try_iter());
        let changes: Vec<Change> = batch
            .iter()
            .flat_map(|(changes, _)| changes.iter().cloned())
            .collect();
        let applied = writer.apply(&changes);
        // What each caller gets: the batch's result, or when it failed, each caller's
        // changes again, alone (one caller's bad change must not fail the others').
        let results: Vec<Result<(), StoreError>> = match applied {
            Ok(()) => batch.iter().map(|_| Ok(())).collect(),
            Err(error) if batch.len() == 1 => vec![Err(error)],
            Err(_) => batch
                .iter()
                .map(|(changes, _)| writer.apply(changes))
                .collect(),
        };
        // The database is failing if a commit failed for its own reasons, not because a
        // change was refused (a name already taken).
        *latest.lock().expect("not poisoned") = results
            .iter()
            .filter_map(|result| result.as_ref().err())
            .find(|error| !error.is_refusal())
            .map(ToString::to_string);
        for ((_, done), result) in batch.into_iter().zip(results) {
            let _ = done.send(result.map_err(Arc::new));
        }
    }
    let _ = writer.close();
}

#[async_trait::async_trait]
impl Backend for SqliteStore {
    async fn commit(&self, changes: Vec<Change>) -> Result<(), Arc<StoreError>> {
        let (done, wait) = oneshot::channel();
        self.writer
            .send((changes, done))
            .map_err(|_| Arc::new(StoreError::Closed))?;
        wait.await.map_err(|_| Arc::new(StoreError::Closed))?
    }

    async fn health(&self) -> Result<(), StoreError> {
        if let Some(error) = self.failing.lock().expect("not poisoned").clone() {
            return Err(StoreError::Failing(error));
        }
        self.read(Sqlite::check).await
    }

    async fn load(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let id = id.to_owned();
        self.read(move |db| db.load(&id)).await
    }

    async fn playing(&self, limit: usize) -> Result<Vec<String>, StoreError> {
        self.read(move |db| db.playing(limit)).await
    }

    async fn finished(&self, limit: usize) -> Result<Vec<String>, StoreError> {
        self.read(move |db| db.finished(limit)).await
    }

    async fn games_of(&self, user_id: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        self.read(move |db| db.games_of(user_id, limit)).await
    }

    async fn seeks(&self) -> Result<Vec<StoredSeek>, StoreError> {
        self.read(Sqlite::seeks).await
    }

    async fn ratings(&self, user_id: i64) -> Result<Vec<StoredRating>, StoreError> {
        self.read(move |db| db.ratings(user_id)).await
    }

    async fn rating_history(&self, user_id: i64) -> Result<Vec<StoredRating>, StoreError> {
        self.read(move |db| db.rating_history(user_id)).await
    }

    async fn user(&self, name: &str) -> Result<Option<StoredUser>, StoreError> {
        let name = name.to_owned();
        self.read(move |db| db.user(&name)).await
    }

    async fn session(
        &self,
        token_hash: &str,
    ) -> Result<Option<(StoredSession, StoredUser)>, StoreError> {
        let token_hash = token_hash.to_owned();
        self.read(move |db| db.session(&token_hash)).await
    }
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

    /// Every row `query` selects, `columns` values each (for copying).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    pub(super) fn rows(
        &self,
        query: &str,
        columns: usize,
    ) -> Result<Vec<Vec<rusqlite::types::Value>>, StoreError> {
        let mut statement = self.connection.prepare(query)?;
        let rows = statement
            .query_map([], |row| (0..columns).map(|index| row.get(index)).collect())?
            .collect::<Result<_, _>>()?;
        Ok(rows)
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

/// The connection's work, each on its own thread: the writer's commits, the reader's reads.
impl Sqlite {
    pub(super) fn apply(&mut self, changes: &[Change]) -> Result<(), StoreError> {
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
                            game.rules.name(),
                            board_text(&game.board),
                            color_text(game.first),
                            game.win.name(),
                            black.player.to_string(),
                            black.time_ms as i64,
                            black.secret_hash,
                            white.player.to_string(),
                            white.time_ms as i64,
                            white.secret_hash,
                            game.status.name(),
                            game.ending.map(Ended::to_text),
                            game.undo_request.map(color_text),
                            squares_text(&game.undone),
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
                            game.rematch_offer.map(color_text),
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
                    expected,
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
                    let updated = transaction.execute(
                        "UPDATE games SET status = ?2, ending = ?3, undo_request = ?4,
                            undone = ?5, paused = ?6, speed_ms = ?7, updated_at = ?8,
                            version = ?9, black_clock_ms = ?10, white_clock_ms = ?11,
                            clock_since = ?12, rematch_offer = ?13, rematch = ?14
                         WHERE id = ?1 AND version = ?15",
                        params![
                            game,
                            status.name(),
                            ending.map(Ended::to_text),
                            undo_request.map(color_text),
                            squares_text(undone),
                            paused,
                            *speed_ms as i64,
                            updated_at,
                            *version as i64,
                            clock.black_ms,
                            clock.white_ms,
                            clock.since,
                            rematch_offer.map(color_text),
                            rematch,
                            *expected as i64,
                        ],
                    )?;
                    if updated == 0 {
                        return Err(StoreError::Conflict(game.clone()));
                    }
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
                    let (base, increment) = seek
                        .clock
                        .map(|clock| (clock.base_ms, clock.increment_ms))
                        .unzip();
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
                            seek.rules.name(),
                            seek.shape.rows(),
                            seek.shape.columns(),
                            color_text(seek.first),
                            seek.win.name(),
                            seek.color.text(),
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
                    if transaction.execute("DELETE FROM seeks WHERE id = ?1", [id])? == 0 {
                        return Err(StoreError::SeekGone(id.clone()));
                    }
                }
                Change::Rating(rating) => {
                    // Only over the rating it was computed from (one game fewer).
                    let updated = transaction.execute(
                        "INSERT INTO ratings (user_id, category, rating, deviation, volatility,
                            games, updated_at)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                         ON CONFLICT (user_id, category) DO UPDATE SET rating = ?3,
                            deviation = ?4, volatility = ?5, games = ?6, updated_at = ?7
                         WHERE ratings.games = ?6 - 1",
                        params![
                            rating.user_id,
                            rating.category.to_string(),
                            rating.rating,
                            rating.deviation,
                            rating.volatility,
                            rating.games,
                            rating.at
                        ],
                    )?;
                    if updated == 0 {
                        return Err(StoreError::Conflict(format!(
                            "rating of {}",
                            rating.user_id
                        )));
                    }
                    transaction.execute(
                        "INSERT INTO rating_history (user_id, category, game_id, rating,
                            deviation, at)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        params![
                            rating.user_id,
                            rating.category.to_string(),
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
                // One server per file: its memory knows whose turn it is, which
                // challenges were taken and who tried to log in.
                Change::EngineTurn { .. }
                | Change::Matched(_)
                | Change::Attempt { .. }
                | Change::ForgetAttempts { .. } => {}
            }
        }
        transaction.commit()?;
        Ok(())
    }

    pub(super) fn load(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let query = format!("SELECT {GAME_COLUMNS} FROM games WHERE id = ?1");
        let mut statement = self.connection.prepare_cached(&query)?;
        let mut rows = statement.query([id])?;
        let Some(row) = rows.next()? else {
            return Ok(None);
        };
        let mut game = columns::game(row)?;
        let query = format!("SELECT {MOVE_COLUMNS} FROM moves WHERE game_id = ?1 ORDER BY ply");
        game.moves = self.all(&query, [id], |row| columns::game_move(row))?;
        Ok(Some(game))
    }

    /// Every row `query` gives for `params`, each read by `read`.
    fn all<T>(
        &self,
        query: &str,
        params: impl rusqlite::Params,
        read: impl Fn(&rusqlite::Row<'_>) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        let mut statement = self.connection.prepare_cached(query)?;
        let mut rows = statement.query(params)?;
        let mut all = Vec::new();
        while let Some(row) = rows.next()? {
            all.push(read(row)?);
        }
        Ok(all)
    }

    pub(super) fn playing(&mut self, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT id FROM games WHERE status = 'playing' ORDER BY updated_at DESC LIMIT ?1",
        )?;
        let ids = statement
            .query_map([limit as i64], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    pub(super) fn finished(&mut self, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT id FROM games WHERE status = 'over' ORDER BY updated_at DESC LIMIT ?1",
        )?;
        let ids = statement
            .query_map([limit as i64], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    pub(super) fn seeks(&mut self) -> Result<Vec<StoredSeek>, StoreError> {
        let query = format!("SELECT {SEEK_COLUMNS} FROM seeks ORDER BY created_at, id");
        self.all(&query, [], |row| columns::seek(row))
    }

    pub(super) fn ratings(&mut self, user_id: i64) -> Result<Vec<StoredRating>, StoreError> {
        self.all(
            "SELECT category, rating, deviation, volatility, games, updated_at FROM ratings
             WHERE user_id = ?1 ORDER BY games DESC, category",
            [user_id],
            |row| columns::rating(row, user_id),
        )
    }

    pub(super) fn rating_history(&mut self, user_id: i64) -> Result<Vec<StoredRating>, StoreError> {
        self.all(
            "SELECT category, game_id, rating, deviation, at FROM rating_history
             WHERE user_id = ?1 ORDER BY at, game_id",
            [user_id],
            |row| columns::rating_after(row, user_id),
        )
    }

    pub(super) fn games_of(
        &mut self,
        user_id: i64,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT id FROM games WHERE black_user = ?1 OR white_user = ?1
             ORDER BY updated_at DESC LIMIT ?2",
        )?;
        let ids = statement
            .query_map(params![user_id, limit as i64], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    pub(super) fn user(&mut self, name: &str) -> Result<Option<StoredUser>, StoreError> {
        let query = format!("SELECT {USER_COLUMNS} FROM users WHERE name = ?1");
        Ok(self.all(&query, [name], |row| columns::user(row))?.pop())
    }

    pub(super) fn session(
        &mut self,
        token_hash: &str,
    ) -> Result<Option<(StoredSession, StoredUser)>, StoreError> {
        Ok(self
            .all(&columns::session_query("?1"), [token_hash], |row| {
                Ok((columns::session(row)?, columns::user(row)?))
            })?
            .pop())
    }

    pub(super) fn close(&mut self) -> Result<(), StoreError> {
        self.connection
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        Ok(())
    }

    pub(super) fn check(&mut self) -> Result<(), StoreError> {
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
            mv.square.to_string(),
            color_text(mv.side),
            mv.played_at,
            mv.think_ms as i64,
            mv.eval,
            mv.exact
        ],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello::{Board, ByColor, Clock, Color, Shape, TimeControl, Variant, WinRule};

    use crate::{
        play::Occupant,
        server::store::{Ended, GameStatus, Store, StoredSeat},
    };

    fn square(name: &str) -> othello::Square {
        name.parse().unwrap()
    }

    fn game(id: &str) -> StoredGame {
        StoredGame {
            id: id.to_owned(),
            rules: Variant::Full,
            board: Board::standard(Shape::STANDARD),
            first: Color::Black,
            win: WinRule::MostDiscs,
            seats: [
                StoredSeat {
                    player: Occupant::Human,
                    time_ms: 100,
                    secret_hash: Some("ab".into()),
                    name: Some("Ann".into()),
                    user_id: Some(3),
                },
                StoredSeat {
                    player: "engine:3".parse().unwrap(),
                    time_ms: 250,
                    secret_hash: None,
                    name: None,
                    user_id: None,
                },
            ],
            moves: vec![StoredMove {
                square: square("d3"),
                side: Color::Black,
                played_at: 5,
                think_ms: 1200,
                eval: None,
                exact: false,
            }],
            undone: Vec::new(),
            status: GameStatus::Playing,
            ending: None,
            clock: Some(Clock {
                control: TimeControl::new(60_000, 2_000),
                left_ms: ByColor::new(58_000, 60_000),
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
            square: square("c5"),
            side: Color::White,
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
                expected: 7,
                status: GameStatus::Over,
                ending: Some(Ended::Resigned(Color::White)),
                clock: Some(Clock {
                    control: TimeControl::new(60_000, 2_000),
                    left_ms: ByColor::new(58_000, 41_000),
                    since: 10,
                }),
                rematch_offer: Some(Color::Black),
                rematch: None,
                undo_request: None,
                undone: vec![square("c5")],
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
        assert_eq!(loaded.undone, [square("c5")]);
        assert_eq!((loaded.status, loaded.paused), (GameStatus::Over, true));
        assert_eq!(loaded.ending, Some(Ended::Resigned(Color::White)));
        assert_eq!(loaded.rematch_offer, Some(Color::Black));
        assert_eq!(
            loaded.clock.map(|clock| clock.left_ms),
            Some(ByColor::new(58_000, 41_000))
        );
        assert!(loaded.rated);
        assert!(db.playing(10).unwrap().is_empty());
        assert_eq!(db.load("nope").unwrap(), None);
        // A word its column does not read back as: a damaged database, said by column.
        db.connection
            .execute("UPDATE games SET win = 'less' WHERE id = 'g1'", [])
            .unwrap();
        let Err(StoreError::Damaged(what)) = db.load("g1") else {
            panic!("an unknown win rule is not read as any")
        };
        assert_eq!(what, "win holds \"less\"");
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
                 VALUES ('old', 'full', '..../.WB./.BW./....', 'B', 'most', 'human', 0, 'human', 0,
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
