//! The live games: each in memory behind a lock of its own (one request at a time per game,
//! any number of games at once), loaded from the store on first use and written back before
//! any change is acknowledged; engine moves scheduled on the engine pool; watchers told of
//! every change.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use super::{
    client::Client,
    engine_pool::{EnginePool, Lane, Load},
    error::ApiError,
    game::{
        Attendance, Created, GameCell, LiveGame, NewGame, NewSeat, changes, hash_secret, new_id,
        new_secret, next_version, now_ms, revive, stored,
    },
    ratings::{self, Rating},
    store::{Change, Store, StoredRating},
    table::{Clock, EngineTurn, Seat, Table, TableError, UndoAction},
};
use crate::play::Occupant;
use othello::{
    AnyGame, ByColor, Color, Full, Setup, Simple, Square,
    engine::{
        Limits, PlayerSpec, Signal,
        analysis::{Hint, RankOptions, rank},
        new_player,
    },
};

/// The longest time an engine may be given per move, in milliseconds.
pub const MAX_TIME_MS: u64 = 30_000;

/// The time an engine gets per move when none is given, in milliseconds.
pub const DEFAULT_TIME_MS: u64 = 1_000;

/// How long past its time an engine's search is stopped from outside, should it not stop.
const ENGINE_GRACE: Duration = Duration::from_secs(1);

/// On a shared database, how much longer than its search an engine reply is leased to the
/// server that makes it (its grace, plus room for a busy pool): past that, another server
/// replies.
const LEASE_SLACK_MS: u64 = 3_000;

/// On a shared database, how often a server says its published connections still count.
const PRESENCE_HEARTBEAT: Duration = Duration::from_secs(5);

/// How long a server that takes over an orphaned engine reply holds it before trying.
const TAKE_OVER_MS: u64 = 5_000;

/// The engine reply `table` leaves due at `version` (or none), as a shared database
/// leases it.
fn engine_turn_change(id: &str, table: &Table, version: u64) -> Change {
    let due = table
        .engine_turn()
        .filter(|_| !table.engines_only() || !table.paused || table.step)
        .map(|turn| {
            let delay = if table.engines_only() && !table.step {
                table.speed_ms
            } else {
                0
            };
            let lease = delay + table.engine_budget(&turn, now_ms()) + LEASE_SLACK_MS;
            (version, lease)
        });
    Change::EngineTurn {
        game: id.to_owned(),
        due,
    }
}

/// The longest pause between two moves of a game between engines, in milliseconds.
pub const MAX_SPEED_MS: u64 = 60_000;

/// The pause between two moves of a game between engines when none is given.
pub const DEFAULT_SPEED_MS: u64 = 500;

/// Time for each position of the evaluation graph, and its depth limit.
const EVAL_TIME: Duration = Duration::from_millis(40);
const EVAL_DEPTH: u32 = 8;

/// The most one request for the graph computes before answering with what it has (the
/// page asks again for the rest).
pub const EVAL_BUDGET: Duration = Duration::from_secs(2);

/// Transposition table for a hint or an evaluation, in MiB.
const ANALYSIS_HASH: usize = 8;

/// Clients waiting for the pool per engine thread, beyond which a hint is refused as busy
/// (it would wait for a job of each).
const HINTS_QUEUED_PER_THREAD: usize = 4;

/// Jobs one client may have waiting beyond which its hint is refused as busy.
const HINTS_QUEUED_PER_CLIENT: usize = 2;

/// The lane of engine work for a game: a game between engines gives way to people.
fn lane(table: &Table) -> Lane {
    if table.engines_only() {
        Lane::Engines
    } else {
        Lane::People
    }
}

/// All the games the server has in memory, the store and the engine pool.
#[derive(Debug)]
pub struct Hub {
    store: Store,
    pool: EnginePool,
    games: Mutex<HashMap<String, Arc<GameCell>>>,
    /// Bumped when a game starts or ends (the lobby's lists change then, not at every
    /// move).
    starts_and_ends: tokio::sync::watch::Sender<u64>,
    /// Held while ratings are read and their changes committed: two games of one player
    /// ending at once must not both start from the same rating.
    ratings: tokio::sync::Mutex<()>,
    /// How long a person must be away from an untimed game before the other may claim it.
    abandon_after: Duration,
    /// On a shared database: where live channels' comings and goings are sent, to be
    /// published to the other servers.
    presence_changes: std::sync::OnceLock<tokio::sync::mpsc::UnboundedSender<String>>,
}

/// How long a person must be away from an untimed game (no page open on it) before the
/// other may claim the win, when `serve` is not told otherwise.
pub const ABANDON_AFTER: Duration = Duration::from_secs(5 * 60);

impl Hub {
    /// A hub on `store`, with engine work on `pool`.
    pub fn new(store: Store, pool: EnginePool) -> Hub {
        Hub {
            store,
            pool,
            games: Mutex::new(HashMap::new()),
            starts_and_ends: tokio::sync::watch::Sender::new(0),
            ratings: tokio::sync::Mutex::new(()),
            abandon_after: ABANDON_AFTER,
            presence_changes: std::sync::OnceLock::new(),
        }
    }

    /// This hub, letting the win be claimed after a person has been away `after`.
    pub fn abandon_after(self, after: Duration) -> Hub {
        Hub {
            abandon_after: after,
            ..self
        }
    }

    /// A receiver that wakes when a game starts or ends.
    pub fn watch_starts_and_ends(&self) -> tokio::sync::watch::Receiver<u64> {
        self.starts_and_ends.subscribe()
    }

    /// How many games have started or ended (the lobby's lists change with it).
    pub fn starts_and_ends(&self) -> u64 {
        *self.starts_and_ends.borrow()
    }

    fn started_or_ended(&self) {
        self.starts_and_ends.send_modify(|count| *count += 1);
    }

    /// The store (the lobby and the player pages read it).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// How loaded the engine pool is.
    pub fn engine_load(&self) -> Load {
        self.pool.load()
    }

    /// Whether the store works (see [`Store::health`]).
    ///
    /// # Errors
    /// What is wrong with it.
    pub async fn health(&self) -> Result<(), String> {
        self.store.health().await.map_err(|error| error.to_string())
    }

    /// Another server changed the game `id` to `version` (a shared database says so): if
    /// it is in memory and older, it is read again and its watchers told.
    pub async fn refresh(self: &Arc<Hub>, id: &str, version: u64) {
        let Some(cell) = self.games.lock().expect("not poisoned").get(id).cloned() else {
            return;
        };
        let flag = {
            let mut live = cell.lock().await;
            if live.version >= version {
                return;
            }
            match self.reload(&cell, &mut live).await {
                Ok(true) => plan_flag(&live),
                Ok(false) => return,
                Err(error) => {
                    eprintln!("othello serve: game {id}: {error}");
                    return;
                }
            }
        };
        cell.notify();
        self.watch_flag(&cell, flag);
    }

    /// Every game in memory read again where it changed (after the shared database's
    /// announcements may have been missed).
    pub async fn refresh_all(self: &Arc<Hub>) {
        let ids: Vec<String> = self
            .games
            .lock()
            .expect("not poisoned")
            .keys()
            .cloned()
            .collect();
        for id in ids {
            self.refresh(&id, u64::MAX).await;
            self.publish_presence(&id).await;
            self.refresh_presence(&id).await;
        }
        self.started_or_ended();
    }

    /// On a shared database: publishes who is connected here, as it changes, and keeps
    /// it alive; runs until the hub is dropped.
    pub fn share_presence(self: &Arc<Hub>) {
        let (sender, mut changes) = tokio::sync::mpsc::unbounded_channel::<String>();
        if self.presence_changes.set(sender).is_err() {
            return;
        }
        let hub = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut heartbeat = tokio::time::interval(PRESENCE_HEARTBEAT);
            loop {
                let first = tokio::select! {
                    id = changes.recv() => match id {
                        Some(id) => Some(id),
                        None => return,
                    },
                    _ = heartbeat.tick() => None,
                };
                let Some(hub) = hub.upgrade() else {
                    return;
                };
                let Some(first) = first else {
                    let _ = hub.store.presence_heartbeat(false).await;
                    continue;
                };
                // Each game once, however many came and went meanwhile.
                let mut ids = std::collections::BTreeSet::from([first]);
                while let Ok(id) = changes.try_recv() {
                    ids.insert(id);
                }
                for id in ids {
                    hub.publish_presence(&id).await;
                }
            }
        });
    }

    async fn publish_presence(&self, id: &str) {
        let cell = self.games.lock().expect("not poisoned").get(id).cloned();
        if let Some(cell) = cell {
            let here = cell.presence.here();
            if let Err(error) = self.store.publish_presence(id, &here).await {
                eprintln!("othello serve: game {id}: presence not shared: {error}");
            }
        }
    }

    /// Who is connected to game `id` changed on another server: read it again.
    pub async fn refresh_presence(self: &Arc<Hub>, id: &str) {
        let cell = self.games.lock().expect("not poisoned").get(id).cloned();
        let Some(cell) = cell else {
            return;
        };
        if let Ok(elsewhere) = self.store.presence_elsewhere(id).await {
            cell.presence.set_elsewhere(elsewhere);
            cell.notify();
            // A game between engines goes on while watched anywhere.
            self.advance(&cell);
        }
    }

    /// This server stops: its connections end for the others too.
    pub async fn withdraw_presence(&self) {
        let _ = self.store.presence_heartbeat(true).await;
    }

    /// A game started or ended on another server: the lobby's lists change.
    pub fn lists_changed(&self) {
        self.started_or_ended();
    }

    /// How many games are in memory.
    pub fn live_games(&self) -> usize {
        self.games.lock().expect("not poisoned").len()
    }

    /// Lets go of games nobody uses (no connection, no request or engine move under way)
    /// that have not changed for `idle`: they are in the store and come back on the next
    /// request. Returns how many.
    pub fn evict_idle(&self, idle: Duration) -> usize {
        let cutoff = now_ms() - idle.as_millis() as i64;
        let mut games = self.games.lock().expect("not poisoned");
        let before = games.len();
        games.retain(|_, cell| {
            // Only the map holds it: no handler, live channel or engine task has it, and
            // none can take it while the map is locked.
            if Arc::strong_count(cell) > 1 || cell.presence.local_total() > 0 {
                return true;
            }
            match cell.try_lock() {
                Some(live) => live.thinking || live.table.updated_at > cutoff,
                None => true,
            }
        });
        before - games.len()
    }

    fn insert(&self, id: String, live: LiveGame) -> Arc<GameCell> {
        let cell = Arc::new(GameCell::new(id.clone(), live));
        let mut games = self.games.lock().expect("not poisoned");
        Arc::clone(games.entry(id).or_insert(cell))
    }

    /// The game `id`, from memory or the store (on a shared database, as fresh as the
    /// store's). A game loaded from the store whose engine is to move (it was thinking
    /// when the server stopped) gets its reply started.
    ///
    /// # Errors
    /// [`ApiError::NotFound`] if there is no such game; [`ApiError::Storage`] if the store
    /// fails.
    pub async fn get(self: &Arc<Hub>, id: &str) -> Result<Arc<GameCell>, ApiError> {
        let held = self.games.lock().expect("not poisoned").get(id).cloned();
        if let Some(cell) = held {
            // On a shared database, another server may have changed it a moment ago (its
            // announcement on its way): a request sees at least what was committed before
            // it came.
            if let Some(version) = self.store.shared_version(id).await? {
                self.refresh(id, version).await;
            }
            return Ok(cell);
        }
        if id.len() > 64 {
            return Err(ApiError::NotFound);
        }
        let stored = self.store.load(id).await?.ok_or(ApiError::NotFound)?;
        let (table, version) = revive(stored).ok_or_else(|| {
            ApiError::Storage(format!("game {id} is stored but cannot be replayed"))
        })?;
        let cell = self.insert(id.to_owned(), LiveGame::new(table, version));
        if self.store.is_shared()
            && let Ok(elsewhere) = self.store.presence_elsewhere(id).await
        {
            cell.presence.set_elsewhere(elsewhere);
        }
        // Planned before answering, so the first state read already says it is thinking.
        let (job, flag) = {
            let mut live = cell.lock().await;
            (plan_engine_turn(&cell, &mut live), plan_flag(&live))
        };
        self.launch(&cell, job);
        self.watch_flag(&cell, flag);
        Ok(cell)
    }

    /// On a shared database: replies for the engines whose server is gone (their lease ran
    /// out), a few at a time. Returns how many were taken over.
    pub async fn take_over_engine_turns(self: &Arc<Hub>) -> usize {
        let Ok(ids) = self.store.orphaned_engine_turns(16, TAKE_OVER_MS).await else {
            return 0;
        };
        for id in &ids {
            if let Ok(cell) = self.get(id).await {
                self.advance(&cell);
            }
        }
        ids.len()
    }

    /// The server is stopping: its engine replies go to the others at once.
    pub async fn release_engine_turns(&self) {
        let _ = self.store.release_engine_turns().await;
    }

    /// After a start: loads the games being played (the most recent `limit`), so that an
    /// engine that was to move in one replies without waiting for someone to look.
    pub async fn resume(self: &Arc<Hub>, limit: usize) {
        let Ok(ids) = self.playing(limit).await else {
            return;
        };
        for id in ids {
            let _ = self.get(&id).await;
        }
    }

    /// Creates a game and commits it.
    ///
    /// # Errors
    /// [`ApiError::BadPosition`] if its moves cannot be played; [`ApiError::Storage`] if it
    /// cannot be stored.
    pub async fn create(self: &Arc<Hub>, new: NewGame) -> Result<Created, ApiError> {
        let prepared = Prepared::of(new)?;
        self.commit(prepared.changes(self.store.is_shared()))
            .await?;
        Ok(self.open(prepared).await)
    }

    /// A game made and committed ([`Prepared`]) comes into memory: its engine's turn and
    /// its flag are planned.
    async fn open(self: &Arc<Hub>, prepared: Prepared) -> Created {
        let Prepared {
            id,
            table,
            version,
            secrets,
            control,
            client,
        } = prepared;
        let cell = self.insert(
            id,
            LiveGame {
                client,
                ..LiveGame::new(table, version)
            },
        );
        self.started_or_ended();
        let (job, flag) = {
            let mut live = cell.lock().await;
            (plan_engine_turn(&cell, &mut live), plan_flag(&live))
        };
        self.launch(&cell, job);
        self.watch_flag(&cell, flag);
        Created {
            cell,
            secrets,
            control,
        }
    }

    async fn commit(&self, changes: Vec<Change>) -> Result<(), ApiError> {
        self.store.commit(changes).await.map_err(ApiError::from)
    }

    /// Stores the change from the game's table to `table` and makes it the game's; on
    /// failure the game stays as it was.
    async fn store_table(
        &self,
        cell: &GameCell,
        live: &mut LiveGame,
        table: Table,
    ) -> Result<(), ApiError> {
        self.store_table_with(cell, live, table, Vec::new()).await
    }

    /// [`Hub::store_table`], with `extra` changes in the same commit.
    async fn store_table_with(
        &self,
        cell: &GameCell,
        live: &mut LiveGame,
        table: Table,
        extra: Vec<Change>,
    ) -> Result<(), ApiError> {
        let version = next_version(live.version);
        let mut changes = changes(&cell.id, (&live.table, live.version), &table, version);
        changes.extend(extra);
        // (Between people no engine ever moves: nothing to lease.)
        if self.store.is_shared() && !table.people_only() {
            changes.push(engine_turn_change(&cell.id, &table, version));
        }
        // A rated game that ends moves both ratings, in the same commit as its ending.
        let _ratings = if !live.table.is_over() && table.rated && table.is_over() {
            let lock = self.ratings.lock().await;
            changes.extend(self.rating_changes(&cell.id, &table).await?);
            Some(lock)
        } else {
            None
        };
        self.commit(changes).await?;
        // A search of the position before this change is wasted: stop it.
        if live.thinking
            && let Some(signal) = &live.engine_signal
        {
            signal.stop();
        }
        let turn_changed = live.table.game.history().len() != table.game.history().len()
            || live.table.to_move() != table.to_move();
        if live.table.is_over() != table.is_over() {
            self.started_or_ended();
        }
        live.table = table;
        live.version = version;
        live.engine_elsewhere = false;
        if turn_changed {
            live.turn_started = Instant::now();
        }
        Ok(())
    }

    /// The new ratings of a rated game's two players, now that it has ended (none for an
    /// aborted game, or one without two accounts).
    async fn rating_changes(&self, id: &str, table: &Table) -> Result<Vec<Change>, ApiError> {
        let (Some(winner), Some(clock)) = (table.result(), table.clock) else {
            return Ok(Vec::new());
        };
        let (Some(black), Some(white)) = (table.seats.black.user_id, table.seats.white.user_id)
        else {
            return Ok(Vec::new());
        };
        let category = ratings::category(
            table.game.variant(),
            table.game.board().shape(),
            clock.control,
        );
        let of = |ratings: Vec<StoredRating>| {
            ratings
                .into_iter()
                .find(|rating| rating.category == category)
                .map_or_else(Rating::default, |stored| Rating {
                    rating: stored.rating,
                    deviation: stored.deviation,
                    volatility: stored.volatility,
                    games: stored.games,
                })
        };
        let current = (
            of(self.store.ratings(black).await?),
            of(self.store.ratings(white).await?),
        );
        let (new_black, new_white) = ratings::update(current.0, current.1, winner);
        let at = table.updated_at;
        Ok([(black, new_black), (white, new_white)]
            .into_iter()
            .map(|(user_id, rating)| {
                Change::Rating(StoredRating {
                    user_id,
                    category: category.clone(),
                    rating: rating.rating,
                    deviation: rating.deviation,
                    volatility: rating.volatility,
                    games: rating.games,
                    game_id: id.to_owned(),
                    at,
                })
            })
            .collect())
    }

    /// Applies one of the table's rules to the game: on a copy of its table (with the time
    /// now and how long the side to move has thought), stored, then made the game's; then
    /// watchers are told and an engine's turn is started if one is due. The rule's refusal
    /// leaves the game as it was. When another server changed the game meanwhile (a shared
    /// database), the game is read again and the rule applied once more to what it is now.
    async fn change(
        self: &Arc<Hub>,
        cell: &Arc<GameCell>,
        rule: impl Fn(&mut Table, i64, u64) -> Result<(), TableError>,
    ) -> Result<(), ApiError> {
        let mut reloaded = false;
        let result = {
            let mut live = cell.lock().await;
            loop {
                let mut table = live.table.clone();
                let now = now_ms();
                // Whatever is asked, a flag that has fallen comes first: the game is lost on
                // time, and that is stored and answered.
                let outcome = match table.to_move() {
                    Some(side) if table.flag(now) => {
                        Err(ApiError::Rule(TableError::OutOfTime(side)))
                    }
                    _ => {
                        let think_ms = live.turn_started.elapsed().as_millis() as u64;
                        match rule(&mut table, now, think_ms).map_err(ApiError::Rule) {
                            Ok(()) => Ok(()),
                            // Asked of the game as it was: it moved under the request.
                            Err(refused)
                                if reloaded
                                    && refused.status() != axum::http::StatusCode::CONFLICT =>
                            {
                                break Err(ApiError::Stale);
                            }
                            Err(refused) => break Err(refused),
                        }
                    }
                };
                match self.store_table(cell, &mut live, table).await {
                    Ok(()) => {
                        break Ok((plan_engine_turn(cell, &mut live), plan_flag(&live), outcome));
                    }
                    Err(ApiError::Stale) if !reloaded => {
                        self.reload(cell, &mut live).await?;
                        reloaded = true;
                    }
                    Err(error) => break Err(error),
                }
            }
        };
        let (job, flag, outcome) = match result {
            Ok(planned) => planned,
            Err(error) => {
                if reloaded {
                    cell.notify();
                }
                return Err(error);
            }
        };
        cell.notify();
        self.launch(cell, job);
        self.watch_flag(cell, flag);
        outcome
    }

    /// Reads the game again from the store, where another server changed it: its table and
    /// version become the stored ones, and a search of the position before is stopped.
    /// Returns whether it had changed.
    ///
    /// # Errors
    /// [`ApiError`] if the store fails or the game is gone.
    async fn reload(&self, cell: &GameCell, live: &mut LiveGame) -> Result<bool, ApiError> {
        let stored = self.store.load(&cell.id).await?.ok_or(ApiError::NotFound)?;
        if stored.version <= live.version {
            return Ok(false);
        }
        let (table, version) = revive(stored).ok_or_else(|| {
            ApiError::Storage(format!("game {} is stored but cannot be replayed", cell.id))
        })?;
        if let Some(signal) = &live.engine_signal {
            signal.stop();
        }
        if live.table.is_over() != table.is_over() {
            self.started_or_ended();
        }
        let turn_changed = live.table.game.history().len() != table.game.history().len()
            || live.table.to_move() != table.to_move();
        if turn_changed {
            // The turn began when the other server changed the game.
            let ago = u64::try_from(now_ms() - table.updated_at).unwrap_or(0);
            live.turn_started = Instant::now()
                .checked_sub(Duration::from_millis(ago))
                .unwrap_or_else(Instant::now);
        }
        // Between a person and an engine, the engine's turn is being played somewhere
        // (by the server that leased it, or the one that takes it over).
        live.engine_elsewhere = table.engine_turn().is_some() && !table.engines_only();
        live.table = table;
        live.version = version;
        Ok(true)
    }

    /// Ends the game on time when the flag planned at `version` falls, if nothing changed
    /// the game meanwhile (a change plans its own).
    fn watch_flag(self: &Arc<Hub>, cell: &Arc<GameCell>, flag: Option<PlannedFlag>) {
        let Some(PlannedFlag { version, at }) = flag else {
            return;
        };
        let hub = Arc::clone(self);
        let cell = Arc::clone(cell);
        tokio::spawn(async move {
            let wait = u64::try_from(at - now_ms()).unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(wait)).await;
            let stored = {
                let mut live = cell.lock().await;
                if live.version != version {
                    return;
                }
                let mut table = live.table.clone();
                if !table.flag(now_ms()) {
                    // Woken a little early: wait for the rest.
                    let flag = plan_flag(&live);
                    drop(live);
                    hub.watch_flag(&cell, flag);
                    return;
                }
                match hub.store_table(&cell, &mut live, table).await {
                    // Another server changed it first (or a player's rating): as it is
                    // now, with its flag planned again.
                    Err(ApiError::Stale) => match hub.reload(&cell, &mut live).await {
                        Ok(_) => {
                            let flag = plan_flag(&live);
                            drop(live);
                            cell.notify();
                            hub.watch_flag(&cell, flag);
                            return;
                        }
                        Err(error) => Err(error),
                    },
                    stored => stored,
                }
            };
            cell.notify();
            if let Err(error) = stored {
                eprintln!("othello serve: game {}: {error}", cell.id);
            }
        });
    }

    /// `color`'s seat plays `square`.
    ///
    /// # Errors
    /// [`ApiError`]: the table refuses ([`Table::play`]), or the store failed.
    pub async fn play(
        self: &Arc<Hub>,
        cell: &Arc<GameCell>,
        color: Color,
        square: Square,
    ) -> Result<(), ApiError> {
        self.change(cell, |table, now, think_ms| {
            table.play(color, square, now, think_ms)
        })
        .await
    }

    /// Undo for `color`'s seat, as `action` says ([`Table::undo`]).
    ///
    /// # Errors
    /// [`ApiError`]: the table refuses, or the store failed.
    pub async fn undo(
        self: &Arc<Hub>,
        cell: &Arc<GameCell>,
        color: Color,
        action: UndoAction,
    ) -> Result<(), ApiError> {
        self.change(cell, |table, now, _| table.undo(color, action, now))
            .await
    }

    /// Redo for `color`'s seat against an engine ([`Table::redo`]).
    ///
    /// # Errors
    /// [`ApiError`]: the table refuses, or the store failed.
    pub async fn redo(self: &Arc<Hub>, cell: &Arc<GameCell>, color: Color) -> Result<(), ApiError> {
        self.change(cell, |table, now, _| table.redo(color, now))
            .await
    }

    /// `color` resigns.
    ///
    /// # Errors
    /// [`ApiError::Rule(TableError::GameOver)`] if the game is already over.
    pub async fn resign(
        self: &Arc<Hub>,
        cell: &Arc<GameCell>,
        color: Color,
    ) -> Result<(), ApiError> {
        self.change(cell, |table, now, _| table.resign(color, now))
            .await
    }

    /// `color` claims the win in an untimed game the other person left ([`Table::claim`]).
    ///
    /// # Errors
    /// [`ApiError::Rule`] when it cannot be claimed (yet).
    pub async fn claim(
        self: &Arc<Hub>,
        cell: &Arc<GameCell>,
        color: Color,
    ) -> Result<(), ApiError> {
        let away = cell
            .presence
            .away(color.opponent())
            .map(|away| away.as_millis() as u64);
        let needed = self.abandon_after.as_millis() as u64;
        self.change(cell, |table, now, _| table.claim(color, away, needed, now))
            .await
    }

    /// `color` asks for a rematch ([`Table::rematch`]): when both want it (or against an
    /// engine), a game with the same settings and the colours swapped, whose seats open
    /// with the same secrets and accounts; its id is kept on this game for both pages.
    ///
    /// # Errors
    /// [`ApiError::Rule`] while the game is played or once the rematch exists.
    pub async fn rematch(
        self: &Arc<Hub>,
        cell: &Arc<GameCell>,
        color: Color,
    ) -> Result<(), ApiError> {
        let mut reloaded = false;
        let opened = {
            let mut live = cell.lock().await;
            loop {
                let mut table = live.table.clone();
                let made = match table.rematch(color, now_ms()) {
                    Ok(true) => {
                        let prepared = Prepared::of(NewGame {
                            client: live.client.clone(),
                            ..rematch_of(&live.table)
                        })?;
                        table.rematch = Some(prepared.id.clone());
                        Some(prepared)
                    }
                    Ok(false) => None,
                    Err(refused) => {
                        drop(live);
                        if reloaded {
                            cell.notify();
                        }
                        return Err(refused.into());
                    }
                };
                // The new game and the old one's pointer to it in one commit: both or none.
                let extra = made.as_ref().map_or_else(Vec::new, |prepared| {
                    prepared.changes(self.store.is_shared())
                });
                match self.store_table_with(cell, &mut live, table, extra).await {
                    Ok(()) => break made,
                    // Another server changed the game meanwhile: once more on what it is.
                    Err(ApiError::Stale) if !reloaded => {
                        self.reload(cell, &mut live).await?;
                        reloaded = true;
                    }
                    Err(error) => {
                        drop(live);
                        if reloaded {
                            cell.notify();
                        }
                        return Err(error);
                    }
                }
            }
        };
        if let Some(prepared) = opened {
            self.open(prepared).await;
        }
        cell.notify();
        Ok(())
    }

    /// A seat calls the game off before its second move ([`Table::abort`]).
    ///
    /// # Errors
    /// [`ApiError::Rule`] if it is over or too late.
    pub async fn abort(self: &Arc<Hub>, cell: &Arc<GameCell>) -> Result<(), ApiError> {
        self.change(cell, |table, now, _| table.abort(now)).await
    }

    /// Whether `secret` controls the game between engines in `cell`.
    ///
    /// # Errors
    /// [`ApiError::Rule(TableError::NotEngineGame)`] for a game with a person in it, [`ApiError::Forbidden`]
    /// for a secret that does not control it.
    pub async fn check_control(&self, cell: &GameCell, secret: &str) -> Result<(), ApiError> {
        let live = cell.lock().await;
        if !live.table.engines_only() {
            return Err(ApiError::Rule(TableError::NotEngineGame));
        }
        if !live.controls(secret) {
            return Err(ApiError::Forbidden(
                "this secret does not control this game".into(),
            ));
        }
        Ok(())
    }

    /// Pause, step or pace a game between engines ([`Table::control`]); see
    /// [`Hub::check_control`] for who may.
    ///
    /// # Errors
    /// [`ApiError::Rule(TableError::NotEngineGame)`] for a game with a person in it.
    pub async fn control(
        self: &Arc<Hub>,
        cell: &Arc<GameCell>,
        paused: Option<bool>,
        step: bool,
        speed_ms: Option<u64>,
    ) -> Result<(), ApiError> {
        self.change(cell, |table, now, _| {
            table.control(paused, step, speed_ms, now)
        })
        .await
    }

    /// Registers a connection to the live channel (for `seat`, or a spectator) until the
    /// returned guard is dropped; a game between engines resumes when watched.
    pub async fn attend(self: &Arc<Hub>, cell: &Arc<GameCell>, seat: Option<Color>) -> Attendance {
        let attendance = Attendance::new(cell, seat, self.presence_changes.get().cloned());
        self.advance(cell);
        attendance
    }

    /// Starts an engine move if it is an engine's turn and none is under way (in a task of
    /// its own: the caller does not wait). A game with a person in it always goes on (the
    /// person waits for the reply); a game between engines only while someone watches and
    /// it is not paused (or a step is asked for).
    pub fn advance(self: &Arc<Hub>, cell: &Arc<GameCell>) {
        let hub = Arc::clone(self);
        let cell = Arc::clone(cell);
        tokio::spawn(async move {
            let job = {
                let mut live = cell.lock().await;
                plan_engine_turn(&cell, &mut live)
            };
            if let Some(job) = job {
                hub.engine_turn(cell, job).await;
            }
        });
    }

    /// Starts `job` (planned under the game's lock, see [`plan_engine_turn`]).
    fn launch(self: &Arc<Hub>, cell: &Arc<GameCell>, job: Option<EngineJob>) {
        if let Some(job) = job {
            tokio::spawn(Arc::clone(self).engine_turn(Arc::clone(cell), job));
        }
    }

    /// Plays an engine move: waits the pause between moves, searches on the pool, then
    /// plays the move if the game is still where it was.
    async fn engine_turn(self: Arc<Hub>, cell: Arc<GameCell>, job: EngineJob) {
        let EngineJob {
            game,
            turn,
            version,
            delay,
            seed,
            signal,
            lane,
            client,
        } = job;
        // On a shared database, one server replies: the one whose lease runs.
        let lease = delay.as_millis() as u64 + turn.time_ms + LEASE_SLACK_MS;
        let claimed = self.store.claim_engine_turn(&cell.id, version, lease).await;
        if !matches!(claimed, Ok(true)) {
            let mut live = cell.lock().await;
            if live.version == version {
                live.thinking = false;
                live.engine_signal = None;
                live.engine_elsewhere = matches!(claimed, Ok(false));
            }
            return;
        }
        // Watchers see that the engine is thinking.
        cell.notify();
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        let start = Instant::now();
        let time = Duration::from_millis(turn.time_ms);
        // Every player stops at its time; this stops one that does not, counting from when
        // its search starts on the pool, so no seat holds a thread for long past its time.
        let (started, search_started) = tokio::sync::oneshot::channel::<()>();
        let watchdog = {
            let signal = Arc::clone(&signal);
            tokio::spawn(async move {
                if search_started.await.is_ok() {
                    tokio::time::sleep(time + ENGINE_GRACE).await;
                    signal.stop();
                }
            })
        };
        let chosen = self
            .pool
            .run(lane, client, move || {
                let _ = started.send(());
                engine_move(&game, turn.spec, time, seed, signal)
            })
            .await
            .flatten();
        watchdog.abort();
        let think_ms = start.elapsed().as_millis() as u64;
        let stored = {
            let mut live = cell.lock().await;
            live.thinking = false;
            live.engine_signal = None;
            let table = &live.table;
            let wanted = !table.engines_only() || !table.paused || table.step;
            let played = match chosen {
                // Still the position it searched (no undo, no pause meanwhile).
                Some(square) if live.version == version && wanted => {
                    let mut table = live.table.clone();
                    let now = now_ms();
                    if table.flag(now) {
                        self.store_table(&cell, &mut live, table).await
                    } else {
                        match table.engine_plays(square, now, think_ms) {
                            Ok(()) => self.store_table(&cell, &mut live, table).await,
                            Err(error) => Err(ApiError::Storage(format!(
                                "the engine chose an illegal move: {error}"
                            ))),
                        }
                    }
                }
                _ => Ok(()),
            };
            match played {
                // Another server changed the game under the search: its result is dropped.
                Err(ApiError::Stale) => self.reload(&cell, &mut live).await.map(|_| ()),
                stored => stored,
            }
            .map(|()| plan_flag(&live))
        };
        cell.notify();
        match stored {
            // The next move (or another try at a position that changed meanwhile).
            Ok(flag) => {
                self.watch_flag(&cell, flag);
                self.advance(&cell);
            }
            // Not again and again: the game waits for the next request.
            Err(error) => eprintln!("othello serve: game {}: {error}", cell.id),
        }
    }

    /// The engine's score after each move, for Black (`None` where not known yet), having
    /// computed the first missing ones for at most `budget` (at least one); and whether
    /// every score is known. Each score is kept as soon as it is computed, as long as the
    /// moves up to it are still the game's, so a long game's graph fills in over a few
    /// requests however fast it moves.
    ///
    /// # Errors
    /// [`ApiError::Storage`] if the scores cannot be stored.
    pub async fn evaluations(
        &self,
        cell: &Arc<GameCell>,
        budget: Duration,
        client: Client,
    ) -> Result<(Vec<Option<(f64, bool)>>, bool), ApiError> {
        // One computation per game at a time: every watcher asks after every move, and
        // those who wait find the scores the first one kept.
        let _evaluating = cell.evaluating.lock().await;
        let (game, known, lane) = {
            let live = cell.lock().await;
            (
                live.table.game.clone(),
                live.table
                    .meta
                    .iter()
                    .map(|meta| meta.eval)
                    .collect::<Vec<_>>(),
                lane(&live.table),
            )
        };
        let missing: Vec<usize> = (0..known.len())
            .filter(|&ply| known[ply].is_none())
            .collect();
        if missing.is_empty() {
            return Ok((known, true));
        }
        let moves: Vec<Square> = game.moves().collect();
        let evaluated = moves.clone();
        let computed = self
            .pool
            .run(lane, client, move || {
                let start = Instant::now();
                let setup = *game.setup();
                let mut computed = Vec::new();
                for ply in missing {
                    if !computed.is_empty() && start.elapsed() >= budget {
                        break;
                    }
                    let after =
                        AnyGame::replay(game.variant(), setup, evaluated[..=ply].iter().copied())
                            .expect("the game's own moves replay");
                    computed.push((ply, evaluate_for_black(&after)));
                }
                computed
            })
            .await
            .ok_or_else(|| ApiError::Storage("the engine pool has stopped".into()))?;
        let mut live = cell.lock().await;
        // Scores of positions the game still goes through (an undo meanwhile may have
        // taken some back; the moves before it are unchanged).
        let same = live
            .table
            .game
            .moves()
            .zip(&moves)
            .take_while(|(now, then)| now == *then)
            .count();
        let keep: Vec<(usize, (f64, bool))> = computed
            .into_iter()
            .filter(|&(ply, _)| ply < same && live.table.meta[ply].eval.is_none())
            .collect();
        if !keep.is_empty() {
            let changes = keep
                .iter()
                .map(|&(ply, (score, exact))| Change::Eval {
                    game: cell.id.clone(),
                    ply,
                    score,
                    exact,
                })
                .collect();
            self.commit(changes).await?;
            for &(ply, score) in &keep {
                live.table.meta[ply].eval = Some(score);
            }
        }
        let scores: Vec<Option<(f64, bool)>> =
            live.table.meta.iter().map(|meta| meta.eval).collect();
        let complete = scores.iter().all(Option::is_some);
        Ok((scores, complete))
    }

    /// The best `count` moves of the position now, searched for `time`.
    ///
    /// # Errors
    /// [`ApiError::Rule(TableError::GameOver)`] when there is nothing to move; [`ApiError::Busy`] when many
    /// hints already wait for the engines.
    pub async fn hint(
        &self,
        cell: &Arc<GameCell>,
        count: usize,
        time: Duration,
        client: Client,
    ) -> Result<Hint, ApiError> {
        let (variant, setup) = {
            let live = cell.lock().await;
            if live.table.is_over() {
                return Err(ApiError::Rule(TableError::GameOver));
            }
            let setup = position(&live.table.game).ok_or(ApiError::Rule(TableError::GameOver))?;
            (live.table.game.variant(), setup)
        };
        let options = RankOptions {
            limits: Limits::time(time),
            hash: Some(
                othello::engine::TranspositionTable::megabytes_for_time(time)
                    .clamp(ANALYSIS_HASH, 64),
            ),
            ..RankOptions::new(variant, count)
        };
        self.pool
            .try_run(
                self.pool.size() * HINTS_QUEUED_PER_THREAD,
                HINTS_QUEUED_PER_CLIENT,
                client,
                move || rank(&setup, &options, None, &mut |_| {}),
            )
            .map_err(|_| ApiError::Busy)?
            .await
            .ok_or_else(|| ApiError::Storage("the engine pool has stopped".into()))
    }

    /// The ids of games being played, most recent first.
    ///
    /// # Errors
    /// [`ApiError::Storage`] if the store fails.
    pub async fn playing(&self, limit: usize) -> Result<Vec<String>, ApiError> {
        self.store.playing(limit).await.map_err(ApiError::from)
    }
}

/// The engine's move for `spec` in `game`, within `time` (less if `signal` stops it).
fn engine_move(
    game: &AnyGame,
    spec: PlayerSpec,
    time: Duration,
    seed: u64,
    signal: Arc<Signal>,
) -> Option<Square> {
    match game {
        AnyGame::Full(game) => {
            let mut player = new_player::<Full>(spec, seed, None);
            player.watch(signal);
            player.choose(game, &Limits::time(time), &mut |_| {})
        }
        AnyGame::Simple(game) => {
            let mut player = new_player::<Simple>(spec, seed, None);
            player.watch(signal);
            player.choose(game, &Limits::time(time), &mut |_| {})
        }
    }
}

/// The position after the game's moves so far, with the side to move named first.
fn position(game: &AnyGame) -> Option<Setup> {
    Some(Setup {
        board: *game.board(),
        first_mover: game.side_to_move()?,
        win_rule: game.setup().win_rule,
    })
}

/// Black's final score in a finished position, in discs.
fn final_for_black(game: &AnyGame) -> f64 {
    let board = game.board();
    let (black, white) = (board.count(Color::Black), board.count(Color::White));
    let empties = board.empty_squares().count();
    f64::from(othello::engine::final_score(
        game.setup().win_rule,
        black,
        white,
        empties,
    ))
}

/// The engine's score of `game`'s position for Black, in discs, and whether it is exact.
fn evaluate_for_black(game: &AnyGame) -> (f64, bool) {
    let Some(setup) = position(game) else {
        return (final_for_black(game), true);
    };
    let options = RankOptions {
        limits: Limits {
            depth: Some(EVAL_DEPTH),
            time: Some(EVAL_TIME),
            nodes: None,
        },
        hash: Some(ANALYSIS_HASH),
        ..RankOptions::new(game.variant(), 1)
    };
    let hint = rank(&setup, &options, None, &mut |_| {});
    let Some(line) = hint.lines.first() else {
        return (final_for_black(game), true);
    };
    let score = if setup.first_mover == Color::Black {
        line.score
    } else {
        -line.score
    };
    (score.discs(), line.exact)
}

/// When a timed game's flag falls, unless it changes before.
/// A new game made but not yet committed: its table, version and the secrets it hands out.
struct Prepared {
    id: String,
    table: Table,
    version: u64,
    secrets: ByColor<Option<String>>,
    control: Option<String>,
    client: Option<Client>,
}

impl Prepared {
    /// The game `new` asks for, with a fresh id and secrets for its people.
    fn of(new: NewGame) -> Result<Prepared, ApiError> {
        let id = new_id();
        let now = now_ms();
        let mut secrets = ByColor::<Option<String>>::default();
        let seats = ByColor::from_fn(|color| {
            let seat = new.seats[color as usize].clone();
            // A person gets a secret for the seat, unless they hold one already (or their
            // account opens it).
            let secret = (seat.occupant == Occupant::Human
                && seat.secret_hash.is_none()
                && seat.user_id.is_none())
            .then(new_secret);
            let secret_hash = seat
                .secret_hash
                .or_else(|| secret.as_deref().map(hash_secret));
            secrets[color] = secret;
            Seat {
                occupant: seat.occupant,
                time_ms: seat.time_ms,
                secret_hash,
                name: seat.name,
                user_id: seat.user_id,
            }
        });
        let game = AnyGame::replay(new.variant, new.setup, new.moves.iter().copied())
            .map_err(|error| ApiError::BadPosition(error.to_string()))?;
        let mut table = Table::new(game, seats, now);
        let control = table.engines_only().then(new_secret);
        table.control_hash = control.as_deref().map(hash_secret);
        table.speed_ms = new.speed_ms;
        table.help = new.help;
        table.rated = new.rated;
        table.clock = new.clock.map(|control| Clock::start(control, now));
        Ok(Prepared {
            id,
            table,
            version: next_version(0),
            secrets,
            control,
            client: new.client,
        })
    }

    /// What committing it writes (on a shared database, with its engine's lease).
    fn changes(&self, shared: bool) -> Vec<Change> {
        let mut changes = vec![Change::Create(Box::new(stored(
            &self.id,
            &self.table,
            self.version,
        )))];
        if shared && !self.table.people_only() {
            changes.push(engine_turn_change(&self.id, &self.table, self.version));
        }
        changes
    }
}

/// The rematch of the game at `old`: the same settings, the colours swapped, each seat
/// opened by the same secret or account.
fn rematch_of(old: &Table) -> NewGame {
    let seats = Color::ALL.map(|color| {
        let seat = &old.seats[color.opponent()];
        NewSeat {
            occupant: seat.occupant,
            time_ms: seat.time_ms,
            name: seat.name.clone(),
            user_id: seat.user_id,
            secret_hash: seat.secret_hash.clone(),
        }
    });
    NewGame {
        variant: old.game.variant(),
        setup: *old.game.setup(),
        moves: Vec::new(),
        seats,
        speed_ms: old.speed_ms,
        help: old.help,
        clock: old.clock.map(|clock| clock.control),
        rated: old.rated,
        client: None,
    }
}

#[derive(Clone, Copy, Debug)]
struct PlannedFlag {
    /// The game's version then.
    version: u64,
    /// When, in milliseconds since the Unix epoch.
    at: i64,
}

fn plan_flag(live: &LiveGame) -> Option<PlannedFlag> {
    Some(PlannedFlag {
        version: live.version,
        at: live.table.flag_at()?,
    })
}

/// An engine move about to be searched.
#[derive(Debug)]
struct EngineJob {
    game: AnyGame,
    turn: EngineTurn,
    /// The game's version it was planned at: a result for another one is dropped.
    version: u64,
    /// Games between engines: the pause before it.
    delay: Duration,
    seed: u64,
    signal: Arc<Signal>,
    /// Games between engines give way to people's.
    lane: Lane,
    /// Whose lane in the pool.
    client: Client,
}

/// If an engine is to move and may (a game with a person in it always goes on; a game
/// between engines only while watched and not paused, or a step is asked for), and none is
/// already thinking: marks the game as thinking and returns the search to start.
fn plan_engine_turn(cell: &GameCell, live: &mut LiveGame) -> Option<EngineJob> {
    let mut turn = live.table.engine_turn()?;
    turn.time_ms = live.table.engine_budget(&turn, now_ms());
    if live.thinking {
        return None;
    }
    let table = &live.table;
    let engines_only = table.engines_only();
    if engines_only && (cell.presence.total() == 0 || (table.paused && !table.step)) {
        return None;
    }
    let delay = if engines_only && !table.step {
        Duration::from_millis(table.speed_ms)
    } else {
        Duration::ZERO
    };
    let seed = u64::from_str_radix(&cell.id, 16).unwrap_or(0) ^ table.game.history().len() as u64;
    let game = table.game.clone();
    let lane = lane(table);
    live.thinking = true;
    let signal = Arc::new(Signal::new());
    live.engine_signal = Some(Arc::clone(&signal));
    Some(EngineJob {
        game,
        turn,
        version: live.version,
        delay,
        seed,
        signal,
        lane,
        client: live
            .client
            .clone()
            .unwrap_or_else(|| Client::Game(cell.id.clone())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello::{Shape, Variant};

    #[tokio::test]
    async fn idle_games_leave_memory_and_come_back_from_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _writer) = Store::sqlite(&dir.path().join("games.db")).unwrap();
        let hub = Arc::new(Hub::new(store, EnginePool::new(1)));
        let new = NewGame {
            variant: Variant::Full,
            setup: Setup::standard(Shape::STANDARD),
            moves: vec!["d3".parse().unwrap()],
            seats: [
                NewSeat::new(Occupant::Human, 100),
                NewSeat::new(Occupant::Human, 100),
            ],
            speed_ms: 0,
            help: false,
            clock: None,
            rated: false,
            client: None,
        };
        let created = hub.create(new).await.unwrap();
        let id = created.cell.id.clone();
        assert_eq!(hub.evict_idle(Duration::ZERO), 0, "still held by `created`");
        drop(created);
        // Let the task that looked for an engine move finish.
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(
            hub.evict_idle(Duration::from_secs(3600)),
            0,
            "changed just now"
        );
        assert_eq!(hub.evict_idle(Duration::ZERO), 1);
        assert_eq!(hub.live_games(), 0);
        let cell = hub.get(&id).await.unwrap();
        let live = cell.lock().await;
        assert_eq!(
            live.table.game.moves().collect::<Vec<_>>(),
            ["d3".parse().unwrap()]
        );
        assert!(
            live.table
                .seats
                .iter()
                .all(|(_, seat)| seat.secret_hash.is_some())
        );
    }

    /// Issue 21.12: the graph's scores are kept as they are computed, in bounded steps,
    /// even when the game moves on meanwhile.
    #[tokio::test]
    async fn regression_21_12_graph_scores_are_kept_step_by_step() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _writer) = Store::sqlite(&dir.path().join("games.db")).unwrap();
        let hub = Arc::new(Hub::new(store, EnginePool::new(1)));
        let new = NewGame {
            variant: Variant::Full,
            setup: Setup::standard(Shape::STANDARD),
            moves: ["f5", "d6", "c3", "d3", "c4"]
                .map(|s| s.parse().unwrap())
                .to_vec(),
            seats: [
                NewSeat::new(Occupant::Human, 100),
                NewSeat::new(Occupant::Human, 100),
            ],
            speed_ms: 0,
            help: false,
            clock: None,
            rated: false,
            client: None,
        };
        let cell = hub.create(new).await.unwrap().cell;
        let known = |scores: &[Option<(f64, bool)>]| scores.iter().flatten().count();
        let (scores, complete) = hub
            .evaluations(&cell, Duration::ZERO, Client::Member(1))
            .await
            .unwrap();
        assert_eq!((known(&scores), complete), (1, false));
        // White moves: the score after the first moves still counts.
        let square = cell.lock().await.table.game.legal_moves().first();
        hub.play(&cell, Color::White, square.unwrap())
            .await
            .unwrap();
        let (scores, complete) = hub
            .evaluations(&cell, Duration::ZERO, Client::Member(1))
            .await
            .unwrap();
        assert_eq!((known(&scores), complete), (2, false));
        assert_eq!(scores.len(), 6);
        let (scores, complete) = hub
            .evaluations(&cell, Duration::from_secs(60), Client::Member(1))
            .await
            .unwrap();
        assert_eq!((known(&scores), complete), (6, true));
    }
}
