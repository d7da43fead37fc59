//! SQLite, in one file: the embedded default.

use std::{
    path::{Path, PathBuf},
    sync::{Arc, Mutex, mpsc},
    thread,
};

use rusqlite::{Connection, params};
use tokio::sync::oneshot;

use super::{
    Backend, Change, Ended, StoreError, StoredGame, StoredMove, StoredPuzzle, StoredPuzzleRating,
    StoredRating, StoredSeek, StoredSession, StoredUser, Tournament,
    columns::{
        self, ClockColumns, GAME_COLUMNS, MOVE_COLUMNS, PUZZLE_COLUMNS, PUZZLE_RATING_COLUMNS,
        RATING_COLUMNS, RATING_HISTORY_COLUMNS, SEEK_COLUMNS, USER_COLUMNS, board_text, color_text,
        squares_text,
    },
};

mod schema;

use schema::MIGRATIONS;

use crate::server::game::now_ms;

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

    async fn playing(&self, limit: usize, since: i64) -> Result<Vec<String>, StoreError> {
        self.read(move |db| db.playing(limit, since)).await
    }

    async fn finished(&self, limit: usize) -> Result<Vec<String>, StoreError> {
        self.read(move |db| db.finished(limit)).await
    }

    async fn games_of(&self, user_id: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        self.read(move |db| db.games_of(user_id, limit)).await
    }

    async fn playing_of(&self, user_id: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        self.read(move |db| db.playing_of(user_id, limit)).await
    }

    async fn due(&self, before: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        self.read(move |db| db.due(before, limit)).await
    }

    async fn library_games(&self, size: u8) -> Result<Vec<(String, i32)>, StoreError> {
        self.read(move |db| db.library_games(size)).await
    }

    async fn seeks(&self) -> Result<Vec<StoredSeek>, StoreError> {
        self.read(Sqlite::seeks).await
    }

    async fn tournament(&self, id: &str) -> Result<Option<Tournament>, StoreError> {
        let id = id.to_owned();
        self.read(move |db| db.tournament(&id)).await
    }

    async fn tournaments(&self, limit: usize) -> Result<Vec<Tournament>, StoreError> {
        self.read(move |db| db.tournaments(limit)).await
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

    async fn puzzle(&self, id: &str) -> Result<Option<StoredPuzzle>, StoreError> {
        let id = id.to_owned();
        self.read(move |db| {
            let query = format!("SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id = ?1");
            Ok(db.all(&query, [id], |row| columns::puzzle(row))?.pop())
        })
        .await
    }

    async fn puzzles_near(
        &self,
        rating: f64,
        user_id: Option<i64>,
        count: usize,
    ) -> Result<Vec<StoredPuzzle>, StoreError> {
        self.read(move |db| {
            let query = format!(
                "SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id NOT IN (
                    SELECT puzzle_id FROM puzzle_attempts WHERE user_id = ?2)
                 ORDER BY abs(rating - ?1), id LIMIT ?3"
            );
            db.all(
                &query,
                params![rating, user_id.unwrap_or(-1), count as i64],
                |row| columns::puzzle(row),
            )
        })
        .await
    }

    async fn puzzle_count(&self) -> Result<u64, StoreError> {
        self.read(|db| {
            let count: i64 =
                db.connection
                    .query_row("SELECT count(*) FROM puzzles", [], |row| row.get(0))?;
            Ok(count.max(0) as u64)
        })
        .await
    }

    async fn puzzle_rating(&self, user_id: i64) -> Result<Option<StoredPuzzleRating>, StoreError> {
        self.read(move |db| {
            let query =
                format!("SELECT {PUZZLE_RATING_COLUMNS} FROM puzzle_ratings WHERE user_id = ?1");
            Ok(db
                .all(&query, [user_id], |row| columns::puzzle_rating(row))?
                .pop())
        })
        .await
    }

    async fn puzzle_answered(
        &self,
        user_id: i64,
        puzzle_id: &str,
    ) -> Result<Option<bool>, StoreError> {
        let puzzle_id = puzzle_id.to_owned();
        self.read(move |db| {
            Ok(db
                .all(
                    "SELECT solved FROM puzzle_attempts WHERE user_id = ?1 AND puzzle_id = ?2",
                    params![user_id, puzzle_id],
                    |row| Ok(row.get::<_, bool>(0)?),
                )?
                .pop())
        })
        .await
    }
}

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
                            black_user, white_user, rated, rematch_offer, rematch,
                            clock_per_move, deadline)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,
                            ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27,
                            ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36)",
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
                            clock.per_move,
                            game.deadline,
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
                Change::Meta(meta) => {
                    let clock = ClockColumns::of(meta.clock.as_ref());
                    let updated = transaction.execute(
                        "UPDATE games SET status = ?2, ending = ?3, undo_request = ?4,
                            undone = ?5, paused = ?6, speed_ms = ?7, updated_at = ?8,
                            version = ?9, black_clock_ms = ?10, white_clock_ms = ?11,
                            clock_since = ?12, rematch_offer = ?13, rematch = ?14,
                            deadline = ?16
                         WHERE id = ?1 AND version = ?15",
                        params![
                            meta.game,
                            meta.status.name(),
                            meta.ending.map(Ended::to_text),
                            meta.undo_request.map(color_text),
                            squares_text(&meta.undone),
                            meta.paused,
                            meta.speed_ms as i64,
                            meta.updated_at,
                            meta.version as i64,
                            clock.black_ms,
                            clock.white_ms,
                            clock.since,
                            meta.rematch_offer.map(color_text),
                            meta.rematch,
                            meta.expected as i64,
                            meta.deadline,
                        ],
                    )?;
                    if updated == 0 {
                        return Err(StoreError::Conflict(meta.game.clone()));
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
                            help, to_name, private, created_at, clock_per_move)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
                            ?16, ?17, ?18)",
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
                            seek.created_at,
                            seek.clock.is_some_and(|clock| clock.per_move),
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
                Change::AddPuzzles(puzzles) => {
                    for stored in puzzles {
                        transaction.execute(
                            "INSERT INTO puzzles (id, position, answer, moves, depth, source,
                                rating, deviation, volatility, attempts, solved)
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                             ON CONFLICT (id) DO NOTHING",
                            params![
                                stored.puzzle.id(),
                                stored.puzzle.obf(),
                                stored.puzzle.answer.to_string(),
                                columns::scored_moves_text(&stored.puzzle.moves),
                                stored.puzzle.depth,
                                stored.source,
                                stored.rating.rating,
                                stored.rating.deviation,
                                stored.rating.volatility,
                                stored.rating.games,
                                stored.solved,
                            ],
                        )?;
                    }
                }
                Change::AddLibraryGames(games) => {
                    for game in games {
                        transaction.execute(
                            "INSERT INTO library_games (key, source, tournament, black, white,
                                year, size, moves, result)
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                             ON CONFLICT (key) DO NOTHING",
                            params![
                                game.key,
                                game.source,
                                game.tournament,
                                game.black,
                                game.white,
                                game.year,
                                game.size,
                                game.moves,
                                game.result,
                            ],
                        )?;
                    }
                }
                Change::Tournament {
                    tournament,
                    expected,
                } => {
                    let body = columns::tournament_text(tournament);
                    let now = now_ms();
                    match expected {
                        None => {
                            transaction.execute(
                                "INSERT INTO tournaments (id, stage, starts_at, version,
                                    updated_at, body)
                                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                                params![
                                    tournament.id,
                                    tournament.stage.name(),
                                    tournament.starts_at,
                                    tournament.version as i64,
                                    now,
                                    body
                                ],
                            )?;
                        }
                        Some(expected) => {
                            let updated = transaction.execute(
                                "UPDATE tournaments SET stage = ?2, starts_at = ?3,
                                    version = ?4, updated_at = ?5, body = ?6
                                 WHERE id = ?1 AND version = ?7",
                                params![
                                    tournament.id,
                                    tournament.stage.name(),
                                    tournament.starts_at,
                                    tournament.version as i64,
                                    now,
                                    body,
                                    *expected as i64
                                ],
                            )?;
                            if updated == 0 {
                                return Err(StoreError::Conflict(format!(
                                    "tournament {}",
                                    tournament.id
                                )));
                            }
                        }
                    }
                }
                Change::PuzzleAnswer(answer) => {
                    // Only over the ratings it was computed from (one answer fewer each),
                    // and once per account and puzzle.
                    let player = &answer.player;
                    let updated = transaction.execute(
                        "INSERT INTO puzzle_ratings (user_id, rating, deviation, volatility,
                            attempts, solved, updated_at)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                         ON CONFLICT (user_id) DO UPDATE SET rating = ?2, deviation = ?3,
                            volatility = ?4, attempts = ?5,
                            solved = puzzle_ratings.solved + ?6, updated_at = ?7
                         WHERE puzzle_ratings.attempts = ?5 - 1",
                        params![
                            answer.user_id,
                            player.rating,
                            player.deviation,
                            player.volatility,
                            player.games,
                            u32::from(answer.solved),
                            answer.at
                        ],
                    )? + transaction.execute(
                        "UPDATE puzzles SET rating = ?2, deviation = ?3, volatility = ?4,
                            attempts = ?5, solved = solved + ?6
                         WHERE id = ?1 AND attempts = ?5 - 1",
                        params![
                            answer.puzzle_id,
                            answer.puzzle.rating,
                            answer.puzzle.deviation,
                            answer.puzzle.volatility,
                            answer.puzzle.games,
                            u32::from(answer.solved)
                        ],
                    )? + transaction.execute(
                        "INSERT INTO puzzle_attempts (user_id, puzzle_id, solved, at)
                         VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
                        params![answer.user_id, answer.puzzle_id, answer.solved, answer.at],
                    )?;
                    if updated != 3 {
                        return Err(StoreError::Conflict(format!(
                            "puzzle {} answered by {}",
                            answer.puzzle_id, answer.user_id
                        )));
                    }
                }
                Change::MakeBot { user_id } => {
                    let made = transaction.execute(
                        "UPDATE users SET bot = 1 WHERE id = ?1 AND NOT EXISTS (
                            SELECT 1 FROM games WHERE black_user = ?1 OR white_user = ?1)",
                        [user_id],
                    )?;
                    if made == 0 {
                        return Err(StoreError::HasPlayed(format!("account {user_id}")));
                    }
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

    pub(super) fn playing(&mut self, limit: usize, since: i64) -> Result<Vec<String>, StoreError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT id FROM games WHERE status = 'playing' AND updated_at >= ?2
             ORDER BY updated_at DESC LIMIT ?1",
        )?;
        let ids = statement
            .query_map([limit as i64, since], |row| row.get(0))?
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
        let rows = self.all(&query, [], |row| Ok(columns::seek(row)))?;
        Ok(columns::readable_seeks(rows))
    }

    pub(super) fn ratings(&mut self, user_id: i64) -> Result<Vec<StoredRating>, StoreError> {
        self.all(
            &format!(
                "SELECT {RATING_COLUMNS} FROM ratings WHERE user_id = ?1
                 ORDER BY games DESC, category"
            ),
            [user_id],
            |row| columns::rating(row, user_id),
        )
    }

    pub(super) fn rating_history(&mut self, user_id: i64) -> Result<Vec<StoredRating>, StoreError> {
        self.all(
            &format!(
                "SELECT {RATING_HISTORY_COLUMNS} FROM rating_history WHERE user_id = ?1
                 ORDER BY at, game_id"
            ),
            [user_id],
            |row| columns::rating(row, user_id),
        )
    }

    pub(super) fn playing_of(
        &mut self,
        user_id: i64,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT id FROM games WHERE (black_user = ?1 OR white_user = ?1)
                AND status = 'playing' ORDER BY updated_at DESC LIMIT ?2",
        )?;
        let ids = statement
            .query_map([user_id, limit as i64], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }

    pub(super) fn tournament(&mut self, id: &str) -> Result<Option<Tournament>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT body FROM tournaments WHERE id = ?1")?;
        let mut rows = statement.query([id])?;
        match rows.next()? {
            Some(row) => Ok(Some(columns::tournament(row)?)),
            None => Ok(None),
        }
    }

    pub(super) fn tournaments(&mut self, limit: usize) -> Result<Vec<Tournament>, StoreError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT body FROM (SELECT body, 0 AS part, starts_at AS at FROM tournaments
                WHERE stage <> 'finished'
             UNION ALL SELECT * FROM (SELECT body, 1, -updated_at FROM tournaments
                WHERE stage = 'finished' ORDER BY updated_at DESC LIMIT ?1))
             ORDER BY part, at",
        )?;
        let mut rows = statement.query([limit as i64])?;
        let mut tournaments = Vec::new();
        while let Some(row) = rows.next()? {
            tournaments.push(columns::tournament(row)?);
        }
        Ok(tournaments)
    }

    pub(super) fn library_games(&mut self, size: u8) -> Result<Vec<(String, i32)>, StoreError> {
        let mut statement = self
            .connection
            .prepare_cached("SELECT moves, result FROM library_games WHERE size = ?1")?;
        let games = statement
            .query_map([size], |row| Ok((row.get(0)?, row.get(1)?)))?
            .collect::<Result<_, _>>()?;
        Ok(games)
    }

    pub(super) fn due(&mut self, before: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT id FROM games WHERE deadline <= ?1 AND status = 'playing'
             ORDER BY deadline, id LIMIT ?2",
        )?;
        let ids = statement
            .query_map([before, limit as i64], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(ids)
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
mod tests;
