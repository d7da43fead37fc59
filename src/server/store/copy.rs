//! Copying a SQLite database into an empty PostgreSQL one, table by table in one
//! transaction, keeping every id (so links, sessions and ratings stay valid).

use rusqlite::types::Value;
use tokio_postgres::types::ToSql;

use super::{Postgres, Sqlite, StoreError};

/// How a column is kept: SQLite's integers are PostgreSQL's `BIGINT` or `BOOLEAN`.
#[derive(Clone, Copy)]
enum Kind {
    Text,
    Integer,
    Boolean,
    Real,
}

use Kind::{Boolean, Integer, Real, Text};

/// Every table, parents first, with its columns (PostgreSQL's names and kinds; SQLite has
/// the same names).
const TABLES: [(&str, &[(&str, Kind)]); 12] = [
    (
        "users",
        &[
            ("id", Integer),
            ("name", Text),
            ("password_hash", Text),
            ("created_at", Integer),
            ("bot", Boolean),
        ],
    ),
    (
        "sessions",
        &[
            ("token_hash", Text),
            ("user_id", Integer),
            ("csrf", Text),
            ("created_at", Integer),
            ("expires_at", Integer),
        ],
    ),
    (
        "games",
        &[
            ("id", Text),
            ("rules", Text),
            ("board", Text),
            ("first", Text),
            ("win", Text),
            ("black", Text),
            ("black_time_ms", Integer),
            ("black_secret", Text),
            ("black_name", Text),
            ("black_user", Integer),
            ("white", Text),
            ("white_time_ms", Integer),
            ("white_secret", Text),
            ("white_name", Text),
            ("white_user", Integer),
            ("status", Text),
            ("ending", Text),
            ("undo_request", Text),
            ("undone", Text),
            ("control_secret", Text),
            ("paused", Boolean),
            ("speed_ms", Integer),
            ("created_at", Integer),
            ("updated_at", Integer),
            ("version", Integer),
            ("help", Boolean),
            ("clock_base_ms", Integer),
            ("clock_increment_ms", Integer),
            ("black_clock_ms", Integer),
            ("white_clock_ms", Integer),
            ("clock_since", Integer),
            ("rated", Boolean),
            ("rematch_offer", Text),
            ("rematch", Text),
            ("clock_per_move", Boolean),
            ("deadline", Integer),
        ],
    ),
    (
        "moves",
        &[
            ("game_id", Text),
            ("ply", Integer),
            ("square", Text),
            ("side", Text),
            ("played_at", Integer),
            ("think_ms", Integer),
            ("eval", Real),
            ("exact", Boolean),
        ],
    ),
    (
        "seeks",
        &[
            ("id", Text),
            ("poster_name", Text),
            ("poster_user", Integer),
            ("poster_secret", Text),
            ("rules", Text),
            ("\"rows\"", Integer),
            ("\"columns\"", Integer),
            ("first", Text),
            ("win", Text),
            ("color", Text),
            ("clock_base_ms", Integer),
            ("clock_increment_ms", Integer),
            ("rated", Boolean),
            ("help", Boolean),
            ("to_name", Text),
            ("private", Boolean),
            ("created_at", Integer),
            ("clock_per_move", Boolean),
        ],
    ),
    (
        "ratings",
        &[
            ("user_id", Integer),
            ("category", Text),
            ("rating", Real),
            ("deviation", Real),
            ("volatility", Real),
            ("games", Integer),
            ("updated_at", Integer),
        ],
    ),
    (
        "rating_history",
        &[
            ("user_id", Integer),
            ("category", Text),
            ("game_id", Text),
            ("rating", Real),
            ("deviation", Real),
            ("at", Integer),
        ],
    ),
    (
        "puzzles",
        &[
            ("id", Text),
            ("position", Text),
            ("answer", Text),
            ("moves", Text),
            ("depth", Integer),
            ("source", Text),
            ("rating", Real),
            ("deviation", Real),
            ("volatility", Real),
            ("attempts", Integer),
            ("solved", Integer),
        ],
    ),
    (
        "puzzle_ratings",
        &[
            ("user_id", Integer),
            ("rating", Real),
            ("deviation", Real),
            ("volatility", Real),
            ("attempts", Integer),
            ("solved", Integer),
            ("updated_at", Integer),
        ],
    ),
    (
        "puzzle_attempts",
        &[
            ("user_id", Integer),
            ("puzzle_id", Text),
            ("solved", Boolean),
            ("at", Integer),
        ],
    ),
    (
        "tournaments",
        &[
            ("id", Text),
            ("stage", Text),
            ("starts_at", Integer),
            ("version", Integer),
            ("updated_at", Integer),
            ("body", Text),
        ],
    ),
    (
        "library_games",
        &[
            ("key", Text),
            ("source", Text),
            ("tournament", Text),
            ("black", Text),
            ("white", Text),
            ("year", Integer),
            ("size", Integer),
            ("moves", Text),
            ("result", Integer),
        ],
    ),
];

/// One value as PostgreSQL takes it.
fn parameter(value: Value, kind: Kind) -> Result<Box<dyn ToSql + Sync + Send>, StoreError> {
    let wrong = |value: &Value| StoreError::Damaged(format!("unexpected value {value:?}"));
    Ok(match (value, kind) {
        (Value::Null, Text) => Box::new(None::<String>),
        (Value::Null, Integer) => Box::new(None::<i64>),
        (Value::Null, Boolean) => Box::new(None::<bool>),
        (Value::Null, Real) => Box::new(None::<f64>),
        (Value::Text(text), Text) => Box::new(text),
        (Value::Integer(n), Integer) => Box::new(n),
        (Value::Integer(n), Boolean) => Box::new(n != 0),
        (Value::Integer(n), Real) => Box::new(n as f64),
        (Value::Real(x), Real) => Box::new(x),
        (value, _) => return Err(wrong(&value)),
    })
}

/// Rows copied per table, in [`TABLES`]' order.
pub type Copied = Vec<(&'static str, u64)>;

impl Postgres {
    /// Copies every row of `from` into this database, which must hold no games and no
    /// accounts: all in one transaction (nothing is copied if anything fails).
    ///
    /// # Errors
    /// [`StoreError::NotEmpty`] for a database in use; [`StoreError`] if either fails.
    pub async fn copy_from(&self, from: &Sqlite) -> Result<Copied, StoreError> {
        let mut client = self.pool.get().await?;
        let transaction = client.transaction().await?;
        let held: i64 = transaction
            .query_one(
                "SELECT (SELECT count(*) FROM games) + (SELECT count(*) FROM users)",
                &[],
            )
            .await?
            .try_get(0)?;
        if held > 0 {
            return Err(StoreError::NotEmpty);
        }
        // The puzzles a server put in at its start are the file's, as played there.
        transaction.execute("DELETE FROM puzzles", &[]).await?;
        let mut copied = Vec::new();
        for (table, columns) in TABLES {
            let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
            let list = names.join(", ");
            let placeholders: Vec<String> = (1..=names.len()).map(|n| format!("${n}")).collect();
            let insert = transaction
                .prepare(&format!(
                    "INSERT INTO {table} ({list}) VALUES ({})",
                    placeholders.join(", ")
                ))
                .await?;
            let rows = from.rows(&format!("SELECT {list} FROM {table}"), columns.len())?;
            for row in &rows {
                let values = row
                    .iter()
                    .zip(columns.iter())
                    .map(|(value, (_, kind))| parameter(value.clone(), *kind))
                    .collect::<Result<Vec<_>, _>>()?;
                let values: Vec<&(dyn ToSql + Sync)> = values
                    .iter()
                    .map(|value| value.as_ref() as &(dyn ToSql + Sync))
                    .collect();
                transaction.execute(&insert, &values).await?;
            }
            copied.push((table, rows.len() as u64));
        }
        // New accounts are numbered after the copied ones.
        transaction
            .execute(
                "SELECT setval(pg_get_serial_sequence('users', 'id'),
                    coalesce((SELECT max(id) FROM users), 0) + 1, false)",
                &[],
            )
            .await?;
        transaction.commit().await?;
        Ok(copied)
    }
}
