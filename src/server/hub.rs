//! The live games: each in memory behind a lock of its own (one request at a time per game,
//! any number of games at once), loaded from the store on first use and written back before
//! any change is acknowledged; engine moves scheduled on the engine pool; watchers told of
//! every change.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use othello::{
    AnyGame, Color, Full, Setup, Simple, Square,
    engine::{
        Limits, PlayerSpec, Signal,
        analysis::{Hint, RankOptions, rank},
        new_player,
    },
};
use tokio::sync::watch;

use super::{
    engine_pool::{EnginePool, Lane},
    error::ApiError,
    game::{
        Attendance, Created, GameCell, LiveGame, Model, MoveMeta, NewGame, Presence, Seat,
        UndoAction, board_text, color_text, hash_secret, legal_list, meta_change, new_id,
        new_secret, next_version, now_ms, revive, take_back,
    },
    store::{Change, Store, StoredGame, StoredMove, StoredSeat},
};
use crate::play::Occupant;

/// The longest time an engine may be given per move, in milliseconds.
pub const MAX_TIME_MS: u64 = 30_000;

/// The time an engine gets per move when none is given, in milliseconds.
pub const DEFAULT_TIME_MS: u64 = 1_000;

/// How long past its time an engine's search is stopped from outside, should it not stop.
const ENGINE_GRACE: Duration = Duration::from_secs(1);

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

/// Hints waiting for the pool per engine thread, beyond which a hint is refused as busy.
const HINTS_QUEUED_PER_THREAD: usize = 4;

/// The lane of engine work for a game: a game between engines gives way to people.
fn lane(live: &LiveGame) -> Lane {
    if live.engines_only() {
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
    f64::from(othello::engine::eval::final_score(
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

impl Hub {
    /// A hub on `store`, with engine work on `pool`.
    pub fn new(store: Store, pool: EnginePool) -> Hub {
        Hub {
            store,
            pool,
            games: Mutex::new(HashMap::new()),
        }
    }

    /// Whether the store works (see [`Store::health`]).
    ///
    /// # Errors
    /// What is wrong with it.
    pub async fn health(&self) -> Result<(), String> {
        self.store.health().await
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
            if Arc::strong_count(cell) > 1 || cell.presence.total() > 0 {
                return true;
            }
            match cell.live.try_lock() {
                Ok(live) => live.thinking || live.model.updated_at > cutoff,
                Err(_) => true,
            }
        });
        before - games.len()
    }

    fn insert(&self, id: String, live: LiveGame) -> Arc<GameCell> {
        let cell = Arc::new(GameCell {
            id: id.clone(),
            live: tokio::sync::Mutex::new(live),
            evaluating: tokio::sync::Mutex::new(()),
            changed: watch::Sender::new(0),
            presence: Presence::default(),
        });
        let mut games = self.games.lock().expect("not poisoned");
        Arc::clone(games.entry(id).or_insert(cell))
    }

    /// The game `id`, from memory or the store. A game loaded from the store whose engine
    /// is to move (it was thinking when the server stopped) gets its reply started.
    ///
    /// # Errors
    /// [`ApiError::NotFound`] if there is no such game; [`ApiError::Storage`] if the store
    /// fails.
    pub async fn get(self: &Arc<Hub>, id: &str) -> Result<Arc<GameCell>, ApiError> {
        if let Some(cell) = self.games.lock().expect("not poisoned").get(id) {
            return Ok(Arc::clone(cell));
        }
        if id.len() > 64 {
            return Err(ApiError::NotFound);
        }
        let stored = self
            .store
            .load(id)
            .await
            .map_err(|error| ApiError::Storage(error.to_string()))?
            .ok_or(ApiError::NotFound)?;
        let live = revive(stored).ok_or_else(|| {
            ApiError::Storage(format!("game {id} is stored but cannot be replayed"))
        })?;
        let cell = self.insert(id.to_owned(), live);
        // Planned before answering, so the first state read already says it is thinking.
        let job = plan_engine_turn(&cell, &mut *cell.live.lock().await);
        self.launch(&cell, job);
        Ok(cell)
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
    /// [`ApiError::Storage`] if it cannot be stored.
    pub async fn create(self: &Arc<Hub>, new: NewGame) -> Result<Created, ApiError> {
        let id = new_id();
        let now = now_ms();
        let mut secrets = [None, None];
        let seats = [0, 1].map(|index| {
            let (player, time_ms) = new.seats[index];
            let secret = (player == Occupant::Human).then(new_secret);
            let hash = secret.as_deref().map(hash_secret);
            secrets[index] = secret;
            Seat {
                player,
                time_ms,
                secret_hash: hash,
            }
        });
        let engines_only = seats
            .iter()
            .all(|seat| matches!(seat.player, Occupant::Computer(_)));
        let control = engines_only.then(new_secret);
        let game = AnyGame::replay(new.variant, new.setup, new.moves.iter().copied())
            .map_err(|error| ApiError::BadPosition(error.to_string()))?;
        let model = Model {
            meta: vec![
                MoveMeta {
                    played_at: now,
                    think_ms: 0,
                    eval: None,
                };
                game.history().len()
            ],
            game,
            resigned: None,
            undo_request: None,
            paused: false,
            step: false,
            speed_ms: new.speed_ms,
            updated_at: now,
        };
        let live = LiveGame {
            model,
            seats,
            control_hash: control.as_deref().map(hash_secret),
            help: new.help,
            version: next_version(0),
            thinking: false,
            engine_signal: None,
            turn_started: Instant::now(),
            created_at: now,
        };
        let stored = StoredGame {
            id: id.clone(),
            rules: new.variant.name().to_owned(),
            board: board_text(&new.setup.board),
            first: color_text(new.setup.first_mover),
            win: new.setup.win_rule.name().to_owned(),
            seats: live.seats.clone().map(|seat| StoredSeat {
                player: seat.player.to_string(),
                time_ms: seat.time_ms,
                secret_hash: seat.secret_hash,
            }),
            moves: live
                .model
                .game
                .history()
                .iter()
                .map(|ply| StoredMove {
                    square: ply.square().to_string(),
                    side: color_text(ply.side()),
                    played_at: now,
                    think_ms: 0,
                    eval: None,
                    exact: false,
                })
                .collect(),
            undone: Vec::new(),
            status: if live.model.is_over() {
                "over"
            } else {
                "playing"
            }
            .to_owned(),
            resigned: None,
            undo_request: None,
            control_hash: live.control_hash.clone(),
            paused: false,
            speed_ms: new.speed_ms,
            created_at: now,
            updated_at: now,
            version: live.version,
            help: live.help,
        };
        self.commit(vec![Change::Create(Box::new(stored))]).await?;
        let cell = self.insert(id, live);
        let job = plan_engine_turn(&cell, &mut *cell.live.lock().await);
        self.launch(&cell, job);
        Ok(Created {
            cell,
            secrets,
            control,
        })
    }

    async fn commit(&self, changes: Vec<Change>) -> Result<(), ApiError> {
        self.store
            .commit(changes)
            .await
            .map_err(|error| ApiError::Storage(error.to_string()))
    }

    /// Commits the change from `live.model` to `model` (plus `extra` changes) and makes
    /// it the game's; on failure the game stays as it was.
    async fn apply(
        &self,
        cell: &GameCell,
        live: &mut LiveGame,
        model: Model,
        extra: Vec<Change>,
    ) -> Result<(), ApiError> {
        let before = live.model.game.history().len();
        let after = model.game.history().len();
        let common = live
            .model
            .game
            .moves()
            .zip(model.game.moves())
            .take_while(|(a, b)| a == b)
            .count();
        let mut changes = Vec::new();
        if common < before {
            changes.push(Change::Truncate {
                game: cell.id.clone(),
                keep: common,
            });
        }
        for (ply, played) in model.game.history().iter().enumerate().skip(common) {
            let meta = &model.meta[ply];
            changes.push(Change::Move {
                game: cell.id.clone(),
                ply,
                mv: StoredMove {
                    square: played.square().to_string(),
                    side: color_text(played.side()),
                    played_at: meta.played_at,
                    think_ms: meta.think_ms,
                    eval: meta.eval.map(|(score, _)| score),
                    exact: meta.eval.is_some_and(|(_, exact)| exact),
                },
            });
        }
        let version = next_version(live.version);
        changes.push(meta_change(&cell.id, &model, version));
        changes.extend(extra);
        self.commit(changes).await?;
        // A search of the position before this change is wasted: stop it.
        if live.thinking
            && let Some(signal) = &live.engine_signal
        {
            signal.stop();
        }
        let turn_changed = before != after || model.to_move() != live.model.to_move();
        live.model = model;
        live.version = version;
        if turn_changed {
            live.turn_started = Instant::now();
        }
        Ok(())
    }

    /// Plays `square` for `color`'s seat.
    ///
    /// # Errors
    /// [`ApiError`]: the game is over, it is not this seat's turn, or the move is illegal;
    /// or the store failed.
    pub async fn play(
        self: &Arc<Hub>,
        cell: &Arc<GameCell>,
        color: Color,
        square: Square,
    ) -> Result<(), ApiError> {
        let job = {
            let mut live = cell.live.lock().await;
            if live.model.is_over() {
                return Err(ApiError::GameOver);
            }
            if live.model.to_move() != Some(color) {
                return Err(ApiError::NotYourTurn);
            }
            if !live.model.game.is_legal(square) {
                return Err(ApiError::IllegalMove {
                    square: square.to_string(),
                    legal: legal_list(&live.model.game),
                });
            }
            let think_ms = live.turn_started.elapsed().as_millis() as u64;
            let mut model = live.model.clone();
            model
                .game
                .play(square)
                .map_err(|error| ApiError::IllegalMove {
                    square: error.to_string(),
                    legal: Vec::new(),
                })?;
            let now = now_ms();
            model.meta.push(MoveMeta {
                played_at: now,
                think_ms,
                eval: None,
            });
            // A move answers any request to take one back.
            model.undo_request = None;
            model.updated_at = now;
            self.apply(cell, &mut live, model, Vec::new()).await?;
            plan_engine_turn(cell, &mut live)
        };
        cell.notify();
        self.launch(cell, job);
        Ok(())
    }

    /// Undo for `color`'s seat, as `action` says: against an engine, back to this seat's
    /// previous turn at once; between two people, a request the other seat accepts.
    ///
    /// # Errors
    /// [`ApiError`] when there is nothing to undo or the action does not fit the game.
    pub async fn undo(
        self: &Arc<Hub>,
        cell: &Arc<GameCell>,
        color: Color,
        action: UndoAction,
    ) -> Result<(), ApiError> {
        let job = {
            let mut live = cell.live.lock().await;
            let other = &live.seats[color.opponent() as usize];
            let against_engine = matches!(other.player, Occupant::Computer(_));
            let mut model = live.model.clone();
            if model.resigned.is_some() {
                return Err(ApiError::GameOver);
            }
            let played = |model: &Model, side: Color| {
                model.game.history().iter().any(|ply| ply.side() == side)
            };
            match (against_engine, action) {
                (true, UndoAction::Request | UndoAction::Accept) => {
                    if !played(&model, color) {
                        return Err(ApiError::NothingToUndo);
                    }
                    take_back(&mut model, color);
                }
                (true, _) => return Err(ApiError::UndoNotPending),
                (false, UndoAction::Request) => {
                    if model.undo_request == Some(color.opponent()) {
                        // Answering is for accept and decline: a request of one's own
                        // now would take back two moves without either seat saying so.
                        return Err(ApiError::UndoPending);
                    }
                    if !played(&model, color) {
                        return Err(ApiError::NothingToUndo);
                    }
                    model.undo_request = Some(color);
                }
                (false, UndoAction::Accept) => {
                    if model.undo_request != Some(color.opponent()) {
                        return Err(ApiError::UndoNotPending);
                    }
                    take_back(&mut model, color.opponent());
                }
                (false, UndoAction::Decline) => {
                    if model.undo_request != Some(color.opponent()) {
                        return Err(ApiError::UndoNotPending);
                    }
                    model.undo_request = None;
                }
                (false, UndoAction::Cancel) => {
                    if model.undo_request != Some(color) {
                        return Err(ApiError::UndoNotPending);
                    }
                    model.undo_request = None;
                }
            }
            model.updated_at = now_ms();
            self.apply(cell, &mut live, model, Vec::new()).await?;
            plan_engine_turn(cell, &mut live)
        };
        cell.notify();
        self.launch(cell, job);
        Ok(())
    }

    /// Redo for `color`'s seat against an engine: the moves taken back, up to this seat's
    /// next turn.
    ///
    /// # Errors
    /// [`ApiError`] when there is nothing to redo or the other seat is a person.
    pub async fn redo(self: &Arc<Hub>, cell: &Arc<GameCell>, color: Color) -> Result<(), ApiError> {
        let job = {
            let mut live = cell.live.lock().await;
            if !matches!(
                live.seats[color.opponent() as usize].player,
                Occupant::Computer(_)
            ) {
                return Err(ApiError::RedoNeedsEngine);
            }
            let mut model = live.model.clone();
            if model.game.undone().len() == 0 || model.resigned.is_some() {
                return Err(ApiError::NothingToRedo);
            }
            let now = now_ms();
            while model.game.redo().is_some() {
                model.meta.push(MoveMeta {
                    played_at: now,
                    think_ms: 0,
                    eval: None,
                });
                if model.game.side_to_move() == Some(color) || model.game.undone().len() == 0 {
                    break;
                }
            }
            model.updated_at = now;
            self.apply(cell, &mut live, model, Vec::new()).await?;
            plan_engine_turn(cell, &mut live)
        };
        cell.notify();
        self.launch(cell, job);
        Ok(())
    }

    /// `color` resigns.
    ///
    /// # Errors
    /// [`ApiError::GameOver`] if the game is already over.
    pub async fn resign(&self, cell: &Arc<GameCell>, color: Color) -> Result<(), ApiError> {
        {
            let mut live = cell.live.lock().await;
            let mut model = live.model.clone();
            if model.is_over() {
                return Err(ApiError::GameOver);
            }
            model.resigned = Some(color);
            model.undo_request = None;
            model.updated_at = now_ms();
            self.apply(cell, &mut live, model, Vec::new()).await?;
        }
        cell.notify();
        Ok(())
    }

    /// Pause, step or pace a game between engines.
    ///
    /// # Errors
    /// [`ApiError::NotEngineGame`] for a game with a person in it.
    pub async fn control(
        self: &Arc<Hub>,
        cell: &Arc<GameCell>,
        paused: Option<bool>,
        step: bool,
        speed_ms: Option<u64>,
    ) -> Result<(), ApiError> {
        let job = {
            let mut live = cell.live.lock().await;
            if !live.engines_only() {
                return Err(ApiError::NotEngineGame);
            }
            let mut model = live.model.clone();
            if let Some(paused) = paused {
                model.paused = paused;
            }
            if let Some(speed_ms) = speed_ms {
                model.speed_ms = speed_ms;
            }
            model.step = step;
            model.updated_at = now_ms();
            self.apply(cell, &mut live, model, Vec::new()).await?;
            plan_engine_turn(cell, &mut live)
        };
        cell.notify();
        self.launch(cell, job);
        Ok(())
    }

    /// Registers a connection to the live channel (for `seat`, or a spectator) until the
    /// returned guard is dropped; a game between engines resumes when watched.
    pub async fn attend(self: &Arc<Hub>, cell: &Arc<GameCell>, seat: Option<Color>) -> Attendance {
        let attendance = Attendance::new(cell, seat);
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
                let mut live = cell.live.lock().await;
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
            spec,
            time,
            version,
            delay,
            seed,
            signal,
            lane,
        } = job;
        // Watchers see that the engine is thinking.
        cell.notify();
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        let start = Instant::now();
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
            .run(lane, move || {
                let _ = started.send(());
                engine_move(&game, spec, time, seed, signal)
            })
            .await
            .flatten();
        watchdog.abort();
        let think_ms = start.elapsed().as_millis() as u64;
        let stored = {
            let mut live = cell.live.lock().await;
            live.thinking = false;
            live.engine_signal = None;
            let engines_only = live.engines_only();
            let wanted = !engines_only || !live.model.paused || live.model.step;
            match chosen {
                // Still the position it searched (no undo, no pause meanwhile).
                Some(square) if live.version == version && wanted => {
                    let mut model = live.model.clone();
                    match model.game.play(square) {
                        Ok(_) => {
                            let now = now_ms();
                            model.meta.push(MoveMeta {
                                played_at: now,
                                think_ms,
                                eval: None,
                            });
                            model.step = false;
                            model.undo_request = None;
                            model.updated_at = now;
                            self.apply(&cell, &mut live, model, Vec::new()).await
                        }
                        Err(error) => Err(ApiError::Storage(format!(
                            "the engine chose an illegal move: {error}"
                        ))),
                    }
                }
                _ => Ok(()),
            }
        };
        cell.notify();
        match stored {
            // The next move (or another try at a position that changed meanwhile).
            Ok(()) => self.advance(&cell),
            // Not again and again: the game waits for the next request.
            Err(error) => eprintln!("othello serve: game {}: {error}", cell.id),
        }
    }

    /// The engine's score after each move, for Black (`None` where not known yet), having
    /// computed the first missing ones for at most `budget` (at least one); and whether
    /// every score is known. Each score is kept as soon as it is computed, as long as the moves
    /// up to it are still the game's, so a long game's graph fills in over a few requests
    /// however fast it moves.
    ///
    /// # Errors
    /// [`ApiError::Storage`] if the scores cannot be stored.
    pub async fn evaluations(
        &self,
        cell: &Arc<GameCell>,
        budget: Duration,
    ) -> Result<(Vec<Option<(f64, bool)>>, bool), ApiError> {
        // One computation per game at a time: every watcher asks after every move, and
        // those who wait find the scores the first one kept.
        let _evaluating = cell.evaluating.lock().await;
        let (game, known, lane) = {
            let live = cell.live.lock().await;
            (
                live.model.game.clone(),
                live.model
                    .meta
                    .iter()
                    .map(|meta| meta.eval)
                    .collect::<Vec<_>>(),
                lane(&live),
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
            .run(lane, move || {
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
        let mut live = cell.live.lock().await;
        // Scores of positions the game still goes through (an undo meanwhile may have
        // taken some back; the moves before it are unchanged).
        let same = live
            .model
            .game
            .moves()
            .zip(&moves)
            .take_while(|(now, then)| now == *then)
            .count();
        let keep: Vec<(usize, (f64, bool))> = computed
            .into_iter()
            .filter(|&(ply, _)| ply < same && live.model.meta[ply].eval.is_none())
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
                live.model.meta[ply].eval = Some(score);
            }
        }
        let scores: Vec<Option<(f64, bool)>> =
            live.model.meta.iter().map(|meta| meta.eval).collect();
        let complete = scores.iter().all(Option::is_some);
        Ok((scores, complete))
    }

    /// The best `count` moves of the position now, searched for `time`.
    ///
    /// # Errors
    /// [`ApiError::GameOver`] when there is nothing to move; [`ApiError::Busy`] when many
    /// hints already wait for the engines.
    pub async fn hint(
        &self,
        cell: &Arc<GameCell>,
        count: usize,
        time: Duration,
    ) -> Result<Hint, ApiError> {
        let (variant, setup) = {
            let live = cell.live.lock().await;
            if live.model.is_over() {
                return Err(ApiError::GameOver);
            }
            let setup = position(&live.model.game).ok_or(ApiError::GameOver)?;
            (live.model.game.variant(), setup)
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
            .try_run(self.pool.size() * HINTS_QUEUED_PER_THREAD, move || {
                rank(&setup, &options, None, &mut |_| {})
            })
            .map_err(|_| ApiError::Busy)?
            .await
            .ok_or_else(|| ApiError::Storage("the engine pool has stopped".into()))
    }

    /// The ids of games being played, most recent first.
    ///
    /// # Errors
    /// [`ApiError::Storage`] if the store fails.
    pub async fn playing(&self, limit: usize) -> Result<Vec<String>, ApiError> {
        self.store
            .playing(limit)
            .await
            .map_err(|error| ApiError::Storage(error.to_string()))
    }
}

/// An engine move about to be searched.
#[derive(Debug)]
struct EngineJob {
    game: AnyGame,
    spec: PlayerSpec,
    time: Duration,
    /// The game's version it was planned at: a result for another one is dropped.
    version: u64,
    /// Games between engines: the pause before it.
    delay: Duration,
    seed: u64,
    signal: Arc<Signal>,
    /// Games between engines give way to people's.
    lane: Lane,
}

/// If an engine is to move and may (a game with a person in it always goes on; a game
/// between engines only while watched and not paused, or a step is asked for), and none is
/// already thinking: marks the game as thinking and returns the search to start.
fn plan_engine_turn(cell: &GameCell, live: &mut LiveGame) -> Option<EngineJob> {
    let side = live.model.to_move()?;
    let seat = &live.seats[side as usize];
    let (time_ms, Occupant::Computer(spec)) = (seat.time_ms, seat.player) else {
        return None;
    };
    if live.thinking {
        return None;
    }
    let engines_only = live.engines_only();
    if engines_only && (cell.presence.total() == 0 || (live.model.paused && !live.model.step)) {
        return None;
    }
    live.thinking = true;
    let signal = Arc::new(Signal::new());
    live.engine_signal = Some(Arc::clone(&signal));
    let delay = if engines_only && !live.model.step {
        Duration::from_millis(live.model.speed_ms)
    } else {
        Duration::ZERO
    };
    let seed =
        u64::from_str_radix(&cell.id, 16).unwrap_or(0) ^ live.model.game.history().len() as u64;
    Some(EngineJob {
        game: live.model.game.clone(),
        spec,
        time: Duration::from_millis(time_ms),
        version: live.version,
        delay,
        seed,
        signal,
        lane: lane(live),
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
            seats: [(Occupant::Human, 100), (Occupant::Human, 100)],
            speed_ms: 0,
            help: false,
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
        let live = cell.live.lock().await;
        assert_eq!(
            live.model.game.moves().collect::<Vec<_>>(),
            ["d3".parse().unwrap()]
        );
        assert!(live.seats.iter().all(|seat| seat.secret_hash.is_some()));
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
            seats: [(Occupant::Human, 100), (Occupant::Human, 100)],
            speed_ms: 0,
            help: false,
        };
        let cell = hub.create(new).await.unwrap().cell;
        let known = |scores: &[Option<(f64, bool)>]| scores.iter().flatten().count();
        let (scores, complete) = hub.evaluations(&cell, Duration::ZERO).await.unwrap();
        assert_eq!((known(&scores), complete), (1, false));
        // White moves: the score after the first moves still counts.
        let square = cell.live.lock().await.model.game.legal_moves().first();
        hub.play(&cell, Color::White, square.unwrap())
            .await
            .unwrap();
        let (scores, complete) = hub.evaluations(&cell, Duration::ZERO).await.unwrap();
        assert_eq!((known(&scores), complete), (2, false));
        assert_eq!(scores.len(), 6);
        let (scores, complete) = hub
            .evaluations(&cell, Duration::from_secs(60))
            .await
            .unwrap();
        assert_eq!((known(&scores), complete), (6, true));
    }
}
