//! PostgreSQL: one database that several server instances share.
//!
//! A pool of connections; each commit is one transaction of its own (PostgreSQL groups
//! concurrent commits itself), each read one query. The schema is the SQLite one in
//! PostgreSQL's types: integers are `BIGINT`, flags `BOOLEAN`, times milliseconds since the
//! Unix epoch as everywhere in the store.

use std::{collections::BTreeSet, sync::Arc, time::Duration};

use deadpool_postgres::{Manager, ManagerConfig, Pool, PoolError, RecyclingMethod, Runtime};
use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, NoTls, Row, error::SqlState};

use super::{
    Attempts, Backend, Change, Ended, Notice, StoreError, StoredGame, StoredMatch, StoredMove,
    StoredPresence, StoredPuzzle, StoredPuzzleRating, StoredRating, StoredSeek, StoredSession,
    StoredUser, Tournament,
    columns::{
        self, ClockColumns, GAME_COLUMNS, MOVE_COLUMNS, PUZZLE_COLUMNS, PUZZLE_RATING_COLUMNS,
        RATING_COLUMNS, RATING_HISTORY_COLUMNS, SEEK_COLUMNS, USER_COLUMNS, board_text, color_text,
        squares_text,
    },
};

mod schema;
mod write;

use schema::MIGRATIONS;

/// The advisory lock that lets one instance at a time migrate (any number, the same).
const MIGRATION_LOCK: i64 = 0x07e1_1000;

/// How long a request waits for a connection, or for one to be made, before the database
/// counts as unreachable.
const WAIT: Duration = Duration::from_secs(2);

/// A server whose heartbeat is older than this is gone (its connections with it).
const GONE_AFTER_MS: u64 = 15_000;

/// The channel every commit announces its changes on (`LISTEN othello`).
const CHANNEL: &str = "othello";

/// A PostgreSQL database, through a pool of connections.
pub struct Postgres {
    pub(super) pool: Pool,
    config: tokio_postgres::Config,
    /// This server, as engine leases name their holder.
    instance: String,
}

impl std::fmt::Debug for Postgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Postgres")
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(error: tokio_postgres::Error) -> StoreError {
        // A lost or refused connection, or a server shutting down: the database is out of
        // reach for now, not refusing this change.
        let io =
            std::error::Error::source(&error).is_some_and(|source| source.is::<std::io::Error>());
        let unreachable = error.is_closed()
            || io
            || match error.code() {
                None => false,
                Some(code) => {
                    code.code().starts_with("08")
                        || [
                            SqlState::ADMIN_SHUTDOWN,
                            SqlState::CRASH_SHUTDOWN,
                            SqlState::CANNOT_CONNECT_NOW,
                        ]
                        .contains(code)
                }
            };
        if unreachable {
            StoreError::Unavailable(error.to_string())
        } else {
            StoreError::Postgres(error)
        }
    }
}

impl From<PoolError> for StoreError {
    fn from(error: PoolError) -> StoreError {
        match error {
            PoolError::Backend(error) => error.into(),
            // Every connection is in use for as long as a request waits: the database is
            // there, the server is busy.
            PoolError::Timeout(deadpool_postgres::TimeoutType::Wait) => StoreError::Busy,
            other => StoreError::Unavailable(other.to_string()),
        }
    }
}

impl Postgres {
    /// Connects to the database at `url` (`postgres://user:password@host:port/name`, or
    /// key=value pairs) with at most `connections` at once, and brings its schema up to
    /// date.
    ///
    /// # Errors
    /// [`StoreError`] if the URL is wrong, the database unreachable, or its schema newer
    /// than this program's.
    pub async fn connect(url: &str, connections: usize) -> Result<Postgres, StoreError> {
        let mut config: tokio_postgres::Config = url
            .parse()
            .map_err(|error: tokio_postgres::Error| StoreError::Url(error.to_string()))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(WAIT);
        }
        if config.get_application_name().is_none() {
            config.application_name("othello serve");
        }
        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(connections.max(1))
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(WAIT))
            .create_timeout(Some(WAIT))
            .recycle_timeout(Some(WAIT))
            .build()
            .map_err(|error| StoreError::Url(error.to_string()))?;
        let instance = format!("{:016x}", rand::random::<u64>());
        let postgres = Postgres {
            pool,
            config,
            instance,
        };
        postgres.migrate().await?;
        Ok(postgres)
    }

    /// Runs the migrations not run yet, one instance at a time.
    async fn migrate(&self) -> Result<(), StoreError> {
        let mut client = self.pool.get().await?;
        client
            .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
            .await?;
        let result = async {
            client
                .batch_execute(
                    "CREATE TABLE IF NOT EXISTS othello_schema (version BIGINT NOT NULL)",
                )
                .await?;
            let found: i64 = client
                .query_one("SELECT coalesce(max(version), 0) FROM othello_schema", &[])
                .await?
                .try_get(0)?;
            let known = MIGRATIONS.len() as i64;
            if found > known {
                return Err(StoreError::NewerSchema { found, known });
            }
            for (index, migration) in MIGRATIONS.iter().enumerate().skip(found as usize) {
                let transaction = client.transaction().await?;
                transaction.batch_execute(migration).await?;
                transaction
                    .execute(
                        "INSERT INTO othello_schema (version) VALUES ($1)",
                        &[&(index as i64 + 1)],
                    )
                    .await?;
                transaction.commit().await?;
            }
            Ok(())
        }
        .await;
        client
            .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
            .await?;
        result
    }

    /// A notice as sent: from this server (which skips its own when they come back).
    fn payload(&self, notice: &Notice) -> String {
        format!("{}|{notice}", self.instance)
    }

    /// Every row `query` gives for `params`, each read by `read`.
    async fn all<T>(
        &self,
        query: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
        read: impl Fn(&Row) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        let client = self.pool.get().await?;
        let statement = client.prepare_cached(query).await?;
        client
            .query(&statement, params)
            .await?
            .iter()
            .map(read)
            .collect()
    }

    /// Ids from `query`, which selects one text column from `games` with `$1` its limit.
    async fn ids(
        &self,
        query: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<String>, StoreError> {
        let client = self.pool.get().await?;
        let statement = client.prepare_cached(query).await?;
        let ids = client
            .query(&statement, params)
            .await?
            .iter()
            .map(|row| row.try_get(0))
            .collect::<Result<_, _>>()?;
        Ok(ids)
    }
}

#[async_trait::async_trait]
impl Backend for Postgres {
    async fn commit(&self, changes: Vec<Change>) -> Result<(), Arc<StoreError>> {
        self.apply(&changes).await.map_err(Arc::new)
    }

    fn is_shared(&self) -> bool {
        true
    }

    /// What other servers commit, as it is committed: a connection of its own that
    /// listens, made again whenever it is lost (each time [`Notice::Resync`] comes first:
    /// what was announced meanwhile is lost, and must be read again).
    fn listen(&self) -> Option<mpsc::UnboundedReceiver<Notice>> {
        let (sender, receiver) = mpsc::unbounded_channel();
        let config = self.config.clone();
        let own = self.instance.clone();
        tokio::spawn(async move {
            let mut backoff = Duration::from_millis(50);
            while !sender.is_closed() {
                if let Ok((client, mut connection)) = config.connect(NoTls).await {
                    backoff = Duration::from_millis(50);
                    let forward = sender.clone();
                    let own = own.clone();
                    let messages = tokio::spawn(async move {
                        while let Some(Ok(message)) =
                            std::future::poll_fn(|cx| connection.poll_message(cx)).await
                        {
                            if let AsyncMessage::Notification(notification) = message
                                && let Some((from, body)) = notification.payload().split_once('|')
                                && from != own
                                && let Some(notice) = Notice::parse(body)
                                && forward.send(notice).is_err()
                            {
                                return;
                            }
                        }
                    });
                    if client
                        .batch_execute(&format!("LISTEN {CHANNEL}"))
                        .await
                        .is_ok()
                        && sender.send(Notice::Resync).is_ok()
                    {
                        // Until the connection is lost (or nobody listens any more).
                        let _ = messages.await;
                    } else {
                        messages.abort();
                    }
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(1));
            }
        });
        Some(receiver)
    }

    /// Claims the engine's reply to game `id` at `version` for `lease_ms`: unless another
    /// server holds it and its lease runs, or the game has moved on.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn claim_engine_turn(
        &self,
        id: &str,
        version: u64,
        lease_ms: u64,
    ) -> Result<bool, StoreError> {
        let client = self.pool.get().await?;
        let claimed = client
            .execute(
                "INSERT INTO engine_turns (game_id, version, holder, expires_at)
                 SELECT id, version, $3, now() + $4 ::bigint * interval '1 millisecond' FROM games
                 WHERE id = $1 AND version = $2
                 ON CONFLICT (game_id) DO UPDATE SET version = excluded.version,
                    holder = excluded.holder, expires_at = excluded.expires_at
                 WHERE engine_turns.holder = excluded.holder
                    OR engine_turns.expires_at < now()
                    OR engine_turns.version < excluded.version",
                &[&id, &big(version), &self.instance, &big(lease_ms)],
            )
            .await?;
        Ok(claimed == 1)
    }

    /// The games whose engine lease ran out, leased to this server for `lease_ms`.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn orphaned_engine_turns(
        &self,
        limit: usize,
        lease_ms: u64,
    ) -> Result<Vec<String>, StoreError> {
        let client = self.pool.get().await?;
        let rows = client
            .query(
                "UPDATE engine_turns SET holder = $2,
                    expires_at = now() + $3 ::bigint * interval '1 millisecond'
                 WHERE game_id IN (SELECT game_id FROM engine_turns WHERE expires_at < now()
                    ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
                 RETURNING game_id",
                &[&big(limit as u64), &self.instance, &big(lease_ms)],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|row| row.try_get(0))
            .collect::<Result<_, _>>()?)
    }

    /// Ends this server's engine leases now.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn release_engine_turns(&self) -> Result<(), StoreError> {
        let client = self.pool.get().await?;
        client
            .execute(
                "UPDATE engine_turns SET expires_at = now() - interval '1 second'
                 WHERE holder = $1",
                &[&self.instance],
            )
            .await?;
        Ok(())
    }

    /// Publishes this server's connections to game `id`, and tells the others.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn publish_presence(&self, id: &str, here: &StoredPresence) -> Result<(), StoreError> {
        let client = self.pool.get().await?;
        let count = |n: u64| big(n);
        client
            .execute(
                "WITH written AS (
                    INSERT INTO presence (game_id, instance, black, white, spectators,
                        black_left_at, white_left_at, heartbeat_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, now())
                    ON CONFLICT (game_id, instance) DO UPDATE SET black = $3, white = $4,
                        spectators = $5, black_left_at = $6, white_left_at = $7,
                        heartbeat_at = now()
                    RETURNING 1)
                 SELECT pg_notify($8, $9) FROM written",
                &[
                    &id,
                    &self.instance,
                    &count(here.seats[0]),
                    &count(here.seats[1]),
                    &count(here.spectators),
                    &here.left_at[0],
                    &here.left_at[1],
                    &CHANNEL,
                    &self.payload(&Notice::Presence(id.to_owned())),
                ],
            )
            .await?;
        Ok(())
    }

    /// The other servers' connections to game `id`, summed.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn presence_elsewhere(&self, id: &str) -> Result<StoredPresence, StoreError> {
        let client = self.pool.get().await?;
        let statement = client
            .prepare_cached(
                "SELECT black, white, spectators, black_left_at, white_left_at,
                    heartbeat_at > now() - $3::bigint * interval '1 millisecond',
                    (extract(epoch FROM heartbeat_at) * 1000)::bigint
                 FROM presence WHERE game_id = $1 AND instance <> $2",
            )
            .await?;
        let rows = client
            .query(&statement, &[&id, &self.instance, &big(GONE_AFTER_MS)])
            .await?;
        let mut sum = StoredPresence::default();
        for row in rows {
            let alive: bool = row.try_get(5)?;
            let heard_at: i64 = row.try_get(6)?;
            for seat in 0..2 {
                let connected = small(row.try_get(seat)?);
                let left_at: Option<i64> = row.try_get(3 + seat)?;
                // A server gone silent: its seats left when it was last heard from.
                let left_at = if alive || connected == 0 {
                    left_at
                } else {
                    Some(heard_at)
                };
                if alive {
                    sum.seats[seat] += connected;
                }
                sum.left_at[seat] = sum.left_at[seat].max(left_at);
            }
            if alive {
                sum.spectators += small(row.try_get(2)?);
            }
        }
        Ok(sum)
    }

    /// Keeps this server's published connections alive (or, `leaving`, ends them) and
    /// forgets servers gone long ago.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn presence_heartbeat(&self, leaving: bool) -> Result<(), StoreError> {
        let client = self.pool.get().await?;
        if leaving {
            client
                .execute(
                    "WITH left_games AS (
                        UPDATE presence SET black = 0, white = 0, spectators = 0,
                            black_left_at = CASE WHEN black > 0
                                THEN (extract(epoch FROM now()) * 1000)::bigint
                                ELSE black_left_at END,
                            white_left_at = CASE WHEN white > 0
                                THEN (extract(epoch FROM now()) * 1000)::bigint
                                ELSE white_left_at END,
                            heartbeat_at = now()
                        WHERE instance = $1 RETURNING game_id)
                     SELECT pg_notify($2, $3 || '|p:' || game_id) FROM left_games",
                    &[&self.instance, &CHANNEL, &self.instance],
                )
                .await?;
        } else {
            client
                .execute(
                    "UPDATE presence SET heartbeat_at = now() WHERE instance = $1",
                    &[&self.instance],
                )
                .await?;
        }
        // Housekeeping: servers gone a day ago, attempts too old to count.
        client
            .batch_execute(
                "DELETE FROM presence WHERE heartbeat_at < now() - interval '1 day';
                 DELETE FROM attempts
                 WHERE at < (extract(epoch FROM now() - interval '1 day') * 1000)::bigint;",
            )
            .await?;
        Ok(())
    }

    /// How many attempts `key` has had since `since`, and the oldest's time.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn attempts(&self, key: &str, since: i64) -> Result<Attempts, StoreError> {
        let client = self.pool.get().await?;
        let row = client
            .query_one(
                "SELECT count(*), min(at), max(at) FROM attempts WHERE key = $1 AND at > $2",
                &[&key, &since],
            )
            .await?;
        Ok(Attempts {
            count: small(row.try_get(0)?),
            oldest: row.try_get(1)?,
            newest: row.try_get(2)?,
        })
    }

    /// Challenges taken since `since`.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn matches_since(&self, since: i64) -> Result<Vec<StoredMatch>, StoreError> {
        let client = self.pool.get().await?;
        let rows = client
            .query(
                "SELECT seek_id, game_id, poster_user, poster_secret, at FROM seek_matches
                 WHERE at > $1 ORDER BY at",
                &[&since],
            )
            .await?;
        let matches = rows
            .iter()
            .map(|row| {
                Ok(StoredMatch {
                    seek_id: row.try_get(0)?,
                    game_id: row.try_get(1)?,
                    poster_user: row.try_get(2)?,
                    poster_secret: row.try_get(3)?,
                    at: row.try_get(4)?,
                })
            })
            .collect::<Result<_, tokio_postgres::Error>>()?;
        Ok(matches)
    }

    /// The game `id`'s version, if there is such a game.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn shared_version(&self, id: &str) -> Result<Option<u64>, StoreError> {
        let client = self.pool.get().await?;
        let statement = client
            .prepare_cached("SELECT version FROM games WHERE id = $1")
            .await?;
        let row = client.query_opt(&statement, &[&id]).await?;
        Ok(row
            .map(|row| row.try_get::<_, i64>(0))
            .transpose()?
            .map(small))
    }

    /// The game `id`, if there is one.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn load(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let client = self.pool.get().await?;
        let query = format!("SELECT {GAME_COLUMNS} FROM games WHERE id = $1");
        let Some(row) = client.query_opt(&query, &[&id]).await? else {
            return Ok(None);
        };
        let mut game = columns::game(&row)?;
        let query = format!("SELECT {MOVE_COLUMNS} FROM moves WHERE game_id = $1 ORDER BY ply");
        game.moves = self.all(&query, &[&id], columns::game_move).await?;
        Ok(Some(game))
    }

    /// The ids of games being played, most recently changed first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn playing(&self, limit: usize, since: i64) -> Result<Vec<String>, StoreError> {
        self.ids(
            "SELECT id FROM games WHERE status = 'playing' AND updated_at >= $2
             ORDER BY updated_at DESC LIMIT $1",
            &[&big(limit as u64), &since],
        )
        .await
    }

    /// The ids of finished games, most recently finished first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn finished(&self, limit: usize) -> Result<Vec<String>, StoreError> {
        self.ids(
            "SELECT id FROM games WHERE status = 'over' ORDER BY updated_at DESC LIMIT $1",
            &[&big(limit as u64)],
        )
        .await
    }

    /// The ids of `user_id`'s games, most recently changed first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn playing_of(&self, user_id: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        self.ids(
            "SELECT id FROM games WHERE (black_user = $2 OR white_user = $2)
                AND status = 'playing' ORDER BY updated_at DESC LIMIT $1",
            &[&big(limit as u64), &user_id],
        )
        .await
    }

    async fn tournament(&self, id: &str) -> Result<Option<Tournament>, StoreError> {
        let client = self.pool.get().await?;
        let row = client
            .query_opt("SELECT body FROM tournaments WHERE id = $1", &[&id])
            .await?;
        row.as_ref().map(columns::tournament).transpose()
    }

    async fn tournaments(&self, limit: usize) -> Result<Vec<Tournament>, StoreError> {
        let client = self.pool.get().await?;
        let rows = client
            .query(
                "(SELECT body, 0 AS part, starts_at AS at FROM tournaments
                    WHERE stage <> 'finished')
                 UNION ALL (SELECT body, 1, -updated_at FROM tournaments
                    WHERE stage = 'finished' ORDER BY updated_at DESC LIMIT $1)
                 ORDER BY part, at",
                &[&big(limit as u64)],
            )
            .await?;
        rows.iter().map(columns::tournament).collect()
    }

    async fn library_games(&self, size: u8) -> Result<Vec<(String, i32)>, StoreError> {
        let client = self.pool.get().await?;
        let rows = client
            .query(
                "SELECT moves, result FROM library_games WHERE size = $1",
                &[&i64::from(size)],
            )
            .await?;
        rows.iter()
            .map(|row| {
                let result: i64 = row.try_get(1)?;
                Ok((row.try_get(0)?, result as i32))
            })
            .collect()
    }

    async fn due(&self, before: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        self.ids(
            "SELECT id FROM games WHERE deadline <= $2 AND status = 'playing'
             ORDER BY deadline, id LIMIT $1",
            &[&big(limit as u64), &before],
        )
        .await
    }

    /// The ids of `user_id`'s games, most recently changed first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn games_of(&self, user_id: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        self.ids(
            "SELECT id FROM games WHERE black_user = $2 OR white_user = $2
             ORDER BY updated_at DESC LIMIT $1",
            &[&big(limit as u64), &user_id],
        )
        .await
    }

    /// The open challenges, oldest first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn seeks(&self) -> Result<Vec<StoredSeek>, StoreError> {
        let query = format!("SELECT {SEEK_COLUMNS} FROM seeks ORDER BY created_at, id");
        let rows = self.all(&query, &[], |row| Ok(columns::seek(row))).await?;
        Ok(columns::readable_seeks(rows))
    }

    /// `user_id`'s ratings, one per category played.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn ratings(&self, user_id: i64) -> Result<Vec<StoredRating>, StoreError> {
        self.all(
            &format!(
                "SELECT {RATING_COLUMNS} FROM ratings WHERE user_id = $1
                 ORDER BY games DESC, category"
            ),
            &[&user_id],
            |row| columns::rating(row, user_id),
        )
        .await
    }

    /// `user_id`'s ratings after each rated game, oldest first.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn rating_history(&self, user_id: i64) -> Result<Vec<StoredRating>, StoreError> {
        self.all(
            &format!(
                "SELECT {RATING_HISTORY_COLUMNS} FROM rating_history WHERE user_id = $1
                 ORDER BY at, game_id"
            ),
            &[&user_id],
            |row| columns::rating(row, user_id),
        )
        .await
    }

    /// The account named `name` (any case).
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn user(&self, name: &str) -> Result<Option<StoredUser>, StoreError> {
        let query = format!("SELECT {USER_COLUMNS} FROM users WHERE lower(name) = lower($1)");
        Ok(self.all(&query, &[&name], columns::user).await?.pop())
    }

    /// The session whose token hashes to `token_hash`, with its account.
    ///
    /// # Errors
    /// [`StoreError`] if the database fails.
    async fn session(
        &self,
        token_hash: &str,
    ) -> Result<Option<(StoredSession, StoredUser)>, StoreError> {
        let query = columns::session_query("$1");
        let read = |row: &Row| Ok((columns::session(row)?, columns::user(row)?));
        Ok(self.all(&query, &[&token_hash], read).await?.pop())
    }

    async fn puzzle(&self, id: &str) -> Result<Option<StoredPuzzle>, StoreError> {
        let query = format!("SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id = $1");
        Ok(self.all(&query, &[&id], columns::puzzle).await?.pop())
    }

    async fn puzzles_near(
        &self,
        rating: f64,
        user_id: Option<i64>,
        count: usize,
    ) -> Result<Vec<StoredPuzzle>, StoreError> {
        let query = format!(
            "SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id NOT IN (
                SELECT puzzle_id FROM puzzle_attempts WHERE user_id = $2)
             ORDER BY abs(rating - $1), id LIMIT $3"
        );
        let (user_id, count) = (user_id.unwrap_or(-1), count as i64);
        self.all(&query, &[&rating, &user_id, &count], columns::puzzle)
            .await
    }

    async fn puzzle_count(&self) -> Result<u64, StoreError> {
        let counts = self
            .all("SELECT count(*) FROM puzzles", &[], |row| {
                Ok(row.try_get::<_, i64>(0)?)
            })
            .await?;
        Ok(counts.first().copied().unwrap_or(0).max(0) as u64)
    }

    async fn puzzle_rating(&self, user_id: i64) -> Result<Option<StoredPuzzleRating>, StoreError> {
        let query =
            format!("SELECT {PUZZLE_RATING_COLUMNS} FROM puzzle_ratings WHERE user_id = $1");
        Ok(self
            .all(&query, &[&user_id], columns::puzzle_rating)
            .await?
            .pop())
    }

    async fn puzzle_answered(
        &self,
        user_id: i64,
        puzzle_id: &str,
    ) -> Result<Option<bool>, StoreError> {
        Ok(self
            .all(
                "SELECT solved FROM puzzle_attempts WHERE user_id = $1 AND puzzle_id = $2",
                &[&user_id, &puzzle_id],
                |row| Ok(row.try_get::<_, bool>(0)?),
            )
            .await?
            .pop())
    }

    /// Whether the database answers, within a second.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] saying why not.
    async fn health(&self) -> Result<(), StoreError> {
        let ask = async {
            let client = self.pool.get().await?;
            client.query_one("SELECT 1", &[]).await?;
            Ok::<_, StoreError>(())
        };
        tokio::time::timeout(Duration::from_secs(1), ask)
            .await
            .map_err(|_| StoreError::Unavailable("no answer within a second".into()))?
    }
}

/// A stored count of milliseconds as a `BIGINT` (saturating: none comes near).
fn big(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// A `BIGINT` count of milliseconds back (never negative).
fn small(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}
