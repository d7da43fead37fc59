//! `othello db`: a database's schema brought up to date, and a SQLite file's games,
//! accounts, challenges and ratings moved into PostgreSQL (to run several servers on it).

use std::path::Path;

use othello::{Color, Full, Game, Record, Setup, Shape, Variant, WinRule, analysis::puzzle};

use super::{
    ServeError, game, lock_database,
    store::{Change, Postgres, Sqlite, Store, StoreError, Target},
};

/// Opens `target`, which brings its schema up to date (creating it if need be).
///
/// # Errors
/// [`ServeError`] if it cannot be opened or is newer than this program.
pub fn migrate(target: &Target) -> Result<(), ServeError> {
    let failed = |source| ServeError::Store {
        target: target.clone(),
        source,
    };
    match target {
        Target::Sqlite(path) => {
            let _lock = lock_database(path)?;
            let mut sqlite = Sqlite::open(path).map_err(failed)?;
            sqlite.verify().map_err(failed)
        }
        Target::Postgres(url) => runtime()?
            .block_on(Postgres::connect(url, 1))
            .map(drop)
            .map_err(failed),
    }
}

/// Copies the SQLite database at `from` (no server may be using it) into the empty
/// PostgreSQL database at `to`; returns the rows copied per table. Games whose engine was
/// to move get their reply from the first server started on `to`.
///
/// # Errors
/// [`ServeError`] if either cannot be opened, `to` is not empty, or the copy fails
/// (then nothing was copied).
pub fn copy(from: &Path, to: &str) -> Result<Vec<(&'static str, u64)>, ServeError> {
    let target = Target::Postgres(to.to_owned());
    let source = Target::Sqlite(from.to_owned());
    if !from.is_file() {
        return Err(ServeError::Store {
            target: source,
            source: StoreError::NotOurs(format!("{}: no such file", from.display())),
        });
    }
    let _lock = lock_database(from)?;
    let mut sqlite = Sqlite::open(from).map_err(|error| ServeError::Store {
        target: source.clone(),
        source: error,
    })?;
    sqlite.verify().map_err(|error| ServeError::Store {
        target: source,
        source: error,
    })?;
    let failed = |source| ServeError::Store {
        target: target.clone(),
        source,
    };
    runtime()?.block_on(async {
        let postgres = Postgres::connect(to, 2).await.map_err(failed)?;
        let copied = postgres.copy_from(&sqlite).await.map_err(failed)?;
        // An engine reply due in a copied game: leased to nobody, so taken at once.
        let store = Store::postgres(to, 2).await.map_err(failed)?;
        for id in store.playing(usize::MAX, i64::MIN).await.map_err(failed)? {
            let Some(stored) = store.load(&id).await.map_err(failed)? else {
                continue;
            };
            let Some((table, version)) = game::revive(stored) else {
                continue;
            };
            if table.engine_turn().is_some() {
                store
                    .commit(vec![Change::EngineTurn {
                        game: id,
                        due: Some((version, 0)),
                    }])
                    .await
                    .map_err(|error| failed(StoreError::Failing(error.to_string())))?;
            }
        }
        Ok(copied)
    })
}

/// The latest `limit` finished games of standard Othello (8 × 8, FULL rules, most discs
/// wins) in `target` (a SQLite file no server is using, or PostgreSQL, live), each with
/// its positions between [`puzzle::EMPTIES`] empty squares where a move was played, for
/// `othello puzzles make --from-db`.
///
/// # Errors
/// [`ServeError`] if the database cannot be opened or read.
pub fn finished_standard_games(
    target: &Target,
    limit: usize,
) -> Result<Vec<(String, Vec<Setup>)>, ServeError> {
    reading(target, async |store| {
        let mut games = Vec::new();
        for id in store.finished(limit).await? {
            let Some(stored) = store.load(&id).await? else {
                continue;
            };
            let setup = Setup {
                board: stored.board,
                first_mover: stored.first,
                win_rule: stored.win,
            };
            if stored.rules != Variant::Full
                || stored.board.shape() != Shape::STANDARD
                || stored.win != WinRule::MostDiscs
            {
                continue;
            }
            let mut game = Game::<Full>::new(setup);
            let mut setups = Vec::new();
            for mv in &stored.moves {
                let Some(side) = game.side_to_move() else {
                    break;
                };
                let empties = game.board().empty_squares().count();
                if puzzle::EMPTIES.contains(&empties) {
                    setups.push(Setup {
                        board: *game.board(),
                        first_mover: side,
                        win_rule: WinRule::MostDiscs,
                    });
                }
                if game.play(mv.square).is_err() {
                    break;
                }
            }
            games.push((id, setups));
        }
        Ok(games)
    })
}

/// A finished game of standard Othello as `othello db export` writes it.
#[derive(Debug)]
pub struct FinishedGame {
    /// The game: its players by the names they played under, its date, its moves.
    pub record: Record,
    /// Its result: `Some(winner)`, `None` a draw (resigned and lost on time included).
    pub winner: Option<Color>,
    /// Whether it was rated.
    pub rated: bool,
    /// The name of the server's tournament it was played in, if any.
    pub tournament: Option<String>,
    /// The year it was played in (by its start, as its record's date says).
    pub year: u16,
}

/// Every finished game of standard Othello on `shape` (FULL rules from the standard
/// start, Black first, most discs wins) in `target` (a SQLite file no server is using, or
/// PostgreSQL, live), oldest first; aborted games (no result) left out.
///
/// # Errors
/// [`ServeError`] if the database cannot be opened or read.
pub fn finished_games(target: &Target, shape: Shape) -> Result<Vec<FinishedGame>, ServeError> {
    reading(target, async |store| {
        let mut tournaments = std::collections::HashMap::new();
        for tournament in store.tournaments(usize::MAX >> 2).await? {
            for pairing in tournament.pairings {
                tournaments.insert(pairing.game, tournament.name.clone());
            }
        }
        let mut games = Vec::new();
        for id in store.finished(usize::MAX >> 2).await?.into_iter().rev() {
            let Some(stored) = store.load(&id).await? else {
                continue;
            };
            if !stored.is_standard(shape) {
                continue;
            }
            let Some((table, _)) = game::revive(stored) else {
                continue;
            };
            let Some(winner) = table.result() else {
                continue;
            };
            let date = game::rfc3339(table.created_at);
            games.push(FinishedGame {
                year: date[..4].parse().unwrap_or(0),
                record: table.record(Some(date)),
                winner,
                rated: table.rated,
                tournament: tournaments.remove(&id),
            });
        }
        Ok(games)
    })
}

/// Whether `path` is a SQLite file of this program's (its `games` table there), looked at
/// read-only: a command that reads must not make one of a missing file or add its tables
/// to another program's database (found by the red team of item 47.15).
fn ours(path: &Path) -> Result<(), StoreError> {
    if !path.is_file() {
        return Err(StoreError::NotOurs(format!(
            "{}: no such file",
            path.display()
        )));
    }
    let not_ours = |why: &str| StoreError::NotOurs(format!("{}: {why}", path.display()));
    let connection =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|_| not_ours("not a SQLite database"))?;
    let games: Result<i64, _> = connection.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'games'",
        [],
        |row| row.get(0),
    );
    match games {
        Ok(1) => Ok(()),
        Ok(_) => Err(not_ours("a SQLite database without this program's tables")),
        Err(_) => Err(not_ours("not a SQLite database")),
    }
}

/// Runs `read` on `target` opened for reading: a SQLite file must exist (a name that is
/// no file is a mistake, not a new database) and no server may be using it.
fn reading<T>(
    target: &Target,
    read: impl AsyncFnOnce(&Store) -> Result<T, StoreError>,
) -> Result<T, ServeError> {
    let failed = |source| ServeError::Store {
        target: target.clone(),
        source,
    };
    if let Target::Sqlite(path) = target {
        ours(path).map_err(failed)?;
    }
    let _lock = match target {
        Target::Sqlite(path) => Some(lock_database(path)?),
        Target::Postgres(_) => None,
    };
    runtime()?.block_on(async {
        let (store, writer) = open(target).await.map_err(failed)?;
        let result = read(&store).await.map_err(failed);
        close(store, writer);
        result
    })
}

/// Adds `puzzles` to `target` (a SQLite file no server is using, or PostgreSQL); those it
/// has stay as they are. Returns how many it has now.
///
/// # Errors
/// [`ServeError`] if the database cannot be opened or written.
pub fn add_puzzles(
    target: &Target,
    puzzles: Vec<super::store::StoredPuzzle>,
) -> Result<u64, ServeError> {
    let failed = |source| ServeError::Store {
        target: target.clone(),
        source,
    };
    let _lock = match target {
        Target::Sqlite(path) => Some(lock_database(path)?),
        Target::Postgres(_) => None,
    };
    runtime()?.block_on(async {
        let (store, writer) = open(target).await.map_err(failed)?;
        let count = super::puzzles::stock(&store, puzzles)
            .await
            .map_err(failed)?;
        close(store, writer);
        Ok(count)
    })
}

/// Adds `games` to the game database the opening explorer reads (those already there, by
/// key, are kept once); returns how many games it had before and has after.
///
/// # Errors
/// [`ServeError`] if the database cannot be opened or written.
pub fn import_library(
    target: &Target,
    games: Vec<super::store::LibraryGame>,
) -> Result<(u64, u64), ServeError> {
    let failed = |source| ServeError::Store {
        target: target.clone(),
        source,
    };
    let _lock = match target {
        Target::Sqlite(path) => Some(lock_database(path)?),
        Target::Postgres(_) => None,
    };
    runtime()?.block_on(async {
        let (store, writer) = open(target).await.map_err(failed)?;
        let count = async || -> Result<u64, StoreError> {
            let mut count = 0;
            for size in [8, 10] {
                count += store.library_games(size).await?.len() as u64;
            }
            Ok(count)
        };
        let before = count().await.map_err(failed)?;
        for chunk in games.chunks(2_000) {
            store
                .commit(vec![Change::AddLibraryGames(chunk.to_vec())])
                .await
                .map_err(|error| failed(StoreError::Failing(error.to_string())))?;
        }
        let after = count().await.map_err(failed)?;
        close(store, writer);
        Ok((before, after))
    })
}

/// A store on `target` for a command (a SQLite file's lock taken by the caller), and the
/// SQLite writer to wait for.
async fn open(target: &Target) -> Result<(Store, Option<std::thread::JoinHandle<()>>), StoreError> {
    Ok(match target {
        Target::Sqlite(path) => {
            let (store, writer) = Store::sqlite(path)?;
            (store, Some(writer))
        }
        Target::Postgres(url) => (Store::postgres(url, 2).await?, None),
    })
}

/// Lets go of a store from [`open`], once its writer has committed everything.
fn close(store: Store, writer: Option<std::thread::JoinHandle<()>>) {
    drop(store);
    if let Some(writer) = writer {
        let _ = writer.join();
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, ServeError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| ServeError::Store {
            target: Target::Sqlite(".".into()),
            source: StoreError::Failing(source.to_string()),
        })
}
