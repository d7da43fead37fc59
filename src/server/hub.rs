//! The live games: each in memory behind a lock of its own (one request at a time per game,
//! any number of games at once), loaded from the store on first use and written back before
//! any change is acknowledged; engine moves scheduled on the engine pool; watchers told of
//! every change.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use othello::{
    AnyGame, Board, Color, Full, Record, Setup, Simple, Square, Status, Variant, WinRule,
    engine::{
        Limits, PlayerSpec, Signal,
        analysis::{Hint, RankOptions, rank},
        eval::DISC,
        new_player,
    },
};
use rand::RngExt;
use sha2::{Digest, Sha256};
use tokio::sync::watch;

use super::{
    engine_pool::EnginePool,
    error::ApiError,
    store::{Change, Store, StoredGame, StoredMove, StoredSeat},
};
use crate::play::Seat;

/// The longest time an engine may be given per move, in milliseconds.
pub const MAX_TIME_MS: u64 = 30_000;

/// The time an engine gets per move when none is given, in milliseconds.
pub const DEFAULT_TIME_MS: u64 = 1_000;

/// The longest pause between two moves of a game between engines, in milliseconds.
pub const MAX_SPEED_MS: u64 = 60_000;

/// The pause between two moves of a game between engines when none is given.
pub const DEFAULT_SPEED_MS: u64 = 500;

/// Time for each position of the evaluation graph, and its depth limit.
const EVAL_TIME: Duration = Duration::from_millis(40);
const EVAL_DEPTH: u32 = 8;

/// Transposition table for a hint or an evaluation, in MiB.
const ANALYSIS_HASH: usize = 8;

/// A seat of a live game.
#[derive(Clone, Debug)]
pub struct SeatInfo {
    /// A person, or an engine.
    pub player: Seat,
    /// The engine's time per move, in milliseconds.
    pub time_ms: u64,
    /// A hash of the person's secret.
    pub secret_hash: Option<String>,
}

/// What is known of each move besides its square.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveMeta {
    /// When, in milliseconds since the Unix epoch.
    pub played_at: i64,
    /// How long its side thought, in milliseconds.
    pub think_ms: u64,
    /// The engine's score after it for Black (discs) and whether it is exact, once known.
    pub eval: Option<(f64, bool)>,
}

/// A game's state that changes: cloned, changed, committed, then put back, so that a
/// failed commit leaves the game as it was.
#[derive(Clone, Debug)]
pub struct Model {
    /// The game itself (its moves, and the redo list).
    pub game: AnyGame,
    /// Parallel to the game's history.
    pub meta: Vec<MoveMeta>,
    /// Who resigned.
    pub resigned: Option<Color>,
    /// Who asked to take a move back.
    pub undo_request: Option<Color>,
    /// Engine games: paused.
    pub paused: bool,
    /// Engine games: one move asked for while paused.
    pub step: bool,
    /// Engine games: the pause between moves, in milliseconds.
    pub speed_ms: u64,
    /// When the game last changed, in milliseconds since the Unix epoch.
    pub updated_at: i64,
}

impl Model {
    /// Whether the game is over (no move for either side, or a resignation).
    pub fn is_over(&self) -> bool {
        self.resigned.is_some() || self.game.is_over()
    }

    /// The side to move, unless the game is over.
    pub fn to_move(&self) -> Option<Color> {
        if self.resigned.is_some() {
            None
        } else {
            self.game.side_to_move()
        }
    }
}

/// A live game: its model and what does not change.
#[derive(Debug)]
pub struct LiveGame {
    /// What changes.
    pub model: Model,
    /// Black's seat, then White's.
    pub seats: [SeatInfo; 2],
    /// A hash of the secret that controls a game between engines.
    pub control_hash: Option<String>,
    /// Grows at every change of the model (see `next_version`).
    pub version: u64,
    /// An engine move is on its way.
    pub thinking: bool,
    /// Stops that engine's search (when the game changes under it).
    engine_signal: Option<Arc<Signal>>,
    /// When the side to move got the turn.
    turn_started: Instant,
    /// When the game was created, in milliseconds since the Unix epoch.
    pub created_at: i64,
}

impl LiveGame {
    /// Whether both seats are engines.
    pub fn engines_only(&self) -> bool {
        self.seats
            .iter()
            .all(|seat| matches!(seat.player, Seat::Computer(_)))
    }

    /// The seat a secret opens, if any.
    pub fn seat_of(&self, secret: &str) -> Option<Color> {
        let hash = hash_secret(secret);
        Color::ALL
            .into_iter()
            .find(|&color| self.seats[color as usize].secret_hash.as_deref() == Some(&hash))
    }

    /// Whether `secret` controls this game between engines.
    pub fn controls(&self, secret: &str) -> bool {
        self.control_hash.as_deref() == Some(&hash_secret(secret))
    }

    /// The game as a record: rule set, start, players, date, moves.
    pub fn record(&self) -> Record {
        let game = &self.model.game;
        let mut record = Record::new(game.variant(), *game.setup());
        record.players = self.seats.clone().map(|seat| seat.player.to_string());
        record.date = Some(rfc3339(self.created_at));
        record.moves = game.moves().collect();
        record
    }
}

/// Who is connected to a game's live channel.
#[derive(Debug, Default)]
pub struct Presence {
    seats: [AtomicUsize; 2],
    spectators: AtomicUsize,
}

impl Presence {
    /// Connections of `color`'s seat.
    pub fn seat(&self, color: Color) -> usize {
        self.seats[color as usize].load(Ordering::Relaxed)
    }

    /// Connections without a seat.
    pub fn spectators(&self) -> usize {
        self.spectators.load(Ordering::Relaxed)
    }

    /// Connections in all.
    pub fn total(&self) -> usize {
        self.seat(Color::Black) + self.seat(Color::White) + self.spectators()
    }

    fn counter(&self, seat: Option<Color>) -> &AtomicUsize {
        match seat {
            Some(color) => &self.seats[color as usize],
            None => &self.spectators,
        }
    }
}

/// One game in the hub.
#[derive(Debug)]
pub struct GameCell {
    /// Its id.
    pub id: String,
    /// The game, one request at a time.
    pub live: tokio::sync::Mutex<LiveGame>,
    /// Bumped at every change (of the game or of who is connected): watchers re-render.
    changed: watch::Sender<u64>,
    /// Who is connected.
    pub presence: Presence,
}

impl GameCell {
    /// Tells every watcher that something changed.
    pub fn notify(&self) {
        self.changed.send_modify(|generation| *generation += 1);
    }

    /// A receiver that wakes at every change.
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }
}

/// Marks a connection as present while it lives.
#[derive(Debug)]
pub struct Attendance {
    cell: Arc<GameCell>,
    seat: Option<Color>,
}

impl Drop for Attendance {
    fn drop(&mut self) {
        self.cell
            .presence
            .counter(self.seat)
            .fetch_sub(1, Ordering::Relaxed);
        self.cell.notify();
    }
}

/// A new game, as asked for.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// The rule set.
    pub variant: Variant,
    /// The start.
    pub setup: Setup,
    /// Moves already played from it (a pasted transcript).
    pub moves: Vec<Square>,
    /// Black's seat, then White's, with each engine's time per move.
    pub seats: [(Seat, u64); 2],
    /// Engine games: the pause between moves.
    pub speed_ms: u64,
}

/// The secrets of a new game's seats.
#[derive(Clone, Debug)]
pub struct Created {
    /// The game.
    pub cell: Arc<GameCell>,
    /// Black's secret then White's, for people's seats.
    pub secrets: [Option<String>; 2],
    /// The control secret of a game between engines.
    pub control: Option<String>,
}

/// All the games the server has in memory, the store and the engine pool.
#[derive(Debug)]
pub struct Hub {
    store: Store,
    pool: EnginePool,
    games: Mutex<HashMap<String, Arc<GameCell>>>,
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as i64)
}

fn rfc3339(ms: i64) -> String {
    let time = UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64);
    humantime::format_rfc3339_seconds(time).to_string()
}

/// The version after `version`: later than it and than now in milliseconds, so versions
/// only grow, across restarts too (a page keeps the latest state it has seen).
fn next_version(version: u64) -> u64 {
    (version + 1).max(now_ms().max(0) as u64)
}

/// 128 random bits, as 32 hexadecimal digits.
pub fn new_secret() -> String {
    format!("{:032x}", rand::rng().random::<u128>())
}

/// 64 random bits, as 16 hexadecimal digits: a game's id (not a secret).
fn new_id() -> String {
    format!("{:016x}", rand::rng().random::<u64>())
}

/// What is stored of a secret.
pub fn hash_secret(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

fn color_text(color: Color) -> String {
    color.letter().to_string()
}

fn color_of(text: &str) -> Option<Color> {
    text.bytes().next().and_then(Color::from_letter)
}

/// A board as stored: rows from the top, `/` between them, cells `.`, `B`, `W`.
fn board_text(board: &Board) -> String {
    let shape = board.shape();
    (0..shape.rows())
        .map(|row| {
            (0..shape.columns())
                .map(|column| match board.at(Square::new(row, column)) {
                    Some(color) => color.letter(),
                    None => '.',
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn board_of(text: &str) -> Option<Board> {
    let rows: Vec<&str> = text.split('/').collect();
    let shape = othello::Shape::new(
        u8::try_from(rows.len()).ok()?,
        u8::try_from(rows.first()?.len()).ok()?,
    )
    .ok()?;
    let mut board = Board::empty(shape);
    for (row, cells) in rows.iter().enumerate() {
        if cells.len() != usize::from(shape.columns()) {
            return None;
        }
        for (column, cell) in cells.bytes().enumerate() {
            let disc = match cell {
                b'.' => None,
                letter => Some(Color::from_letter(letter)?),
            };
            board.set(shape.square(row, column)?, disc);
        }
    }
    Some(board)
}

/// The `Meta` change that writes `model`'s own fields.
fn meta_change(id: &str, model: &Model) -> Change {
    Change::Meta {
        game: id.to_owned(),
        status: if model.is_over() { "over" } else { "playing" }.to_owned(),
        resigned: model.resigned.map(color_text),
        undo_request: model.undo_request.map(color_text),
        undone: model
            .game
            .undone()
            .map(|square| square.to_string())
            .collect(),
        paused: model.paused,
        speed_ms: model.speed_ms,
        updated_at: model.updated_at,
    }
}

/// The live game of a stored one.
fn revive(stored: StoredGame) -> Option<LiveGame> {
    let variant: Variant = stored.rules.parse().ok()?;
    let setup = Setup {
        board: board_of(&stored.board)?,
        first_mover: color_of(&stored.first)?,
        win_rule: match stored.win.as_str() {
            "fewest" => WinRule::FewestDiscs,
            _ => WinRule::MostDiscs,
        },
    };
    let squares: Vec<Square> = stored
        .moves
        .iter()
        .map(|mv| mv.square.parse().ok())
        .collect::<Option<_>>()?;
    let undone: Vec<Square> = stored
        .undone
        .iter()
        .map(|square| square.parse().ok())
        .collect::<Option<_>>()?;
    // Replay the redo list too, then take it back: the game remembers it for redo.
    let mut game = AnyGame::replay(variant, setup, squares.iter().chain(&undone).copied()).ok()?;
    for _ in &undone {
        game.undo();
    }
    let seats = stored.seats.map(|seat| SeatInfo {
        player: seat.player.parse().unwrap_or(Seat::Human),
        time_ms: seat.time_ms,
        secret_hash: seat.secret_hash,
    });
    Some(LiveGame {
        model: Model {
            game,
            meta: stored
                .moves
                .iter()
                .map(|mv| MoveMeta {
                    played_at: mv.played_at,
                    think_ms: mv.think_ms,
                    eval: mv.eval.map(|score| (score, mv.exact)),
                })
                .collect(),
            resigned: stored.resigned.as_deref().and_then(color_of),
            undo_request: stored.undo_request.as_deref().and_then(color_of),
            paused: stored.paused,
            step: false,
            speed_ms: stored.speed_ms,
            updated_at: stored.updated_at,
        },
        seats,
        control_hash: stored.control_hash,
        version: stored.updated_at.max(0) as u64,
        thinking: false,
        engine_signal: None,
        turn_started: Instant::now(),
        created_at: stored.created_at,
    })
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
            player.choose(game, Some(time), &mut |_| {})
        }
        AnyGame::Simple(game) => {
            let mut player = new_player::<Simple>(spec, seed, None);
            player.watch(signal);
            player.choose(game, Some(time), &mut |_| {})
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
    let score = f64::from(line.score) / f64::from(DISC);
    let score = if setup.first_mover == Color::Black {
        score
    } else {
        -score
    };
    ((score * 100.0).round() / 100.0 + 0.0, line.exact)
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
            changed: watch::Sender::new(0),
            presence: Presence::default(),
        });
        let mut games = self.games.lock().expect("not poisoned");
        Arc::clone(games.entry(id).or_insert(cell))
    }

    /// The game `id`, from memory or the store.
    ///
    /// # Errors
    /// [`ApiError::NotFound`] if there is no such game; [`ApiError::Storage`] if the store
    /// fails.
    pub async fn get(&self, id: &str) -> Result<Arc<GameCell>, ApiError> {
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
        Ok(self.insert(id.to_owned(), live))
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
            let secret = (player == Seat::Human).then(new_secret);
            let hash = secret.as_deref().map(hash_secret);
            secrets[index] = secret;
            SeatInfo {
                player,
                time_ms,
                secret_hash: hash,
            }
        });
        let engines_only = seats
            .iter()
            .all(|seat| matches!(seat.player, Seat::Computer(_)));
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
            win: match new.setup.win_rule {
                WinRule::MostDiscs => "most",
                WinRule::FewestDiscs => "fewest",
            }
            .to_owned(),
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
        changes.push(meta_change(&cell.id, &model));
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
        live.version = next_version(live.version);
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
            let against_engine = matches!(other.player, Seat::Computer(_));
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
                        // Both asked: the earlier request is accepted.
                        take_back(&mut model, color.opponent());
                    } else {
                        if !played(&model, color) {
                            return Err(ApiError::NothingToUndo);
                        }
                        model.undo_request = Some(color);
                    }
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
                Seat::Computer(_)
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
        cell.presence.counter(seat).fetch_add(1, Ordering::Relaxed);
        cell.notify();
        self.advance(cell);
        Attendance {
            cell: Arc::clone(cell),
            seat,
        }
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
        } = job;
        // Watchers see that the engine is thinking.
        cell.notify();
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        let start = Instant::now();
        let chosen = self
            .pool
            .run(move || engine_move(&game, spec, time, seed, signal))
            .await
            .flatten();
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

    /// The engine's score after each move, for Black (computing those not known yet).
    ///
    /// # Errors
    /// [`ApiError::Storage`] if the scores cannot be stored.
    pub async fn evaluations(&self, cell: &Arc<GameCell>) -> Result<Vec<(f64, bool)>, ApiError> {
        let (game, known, version) = {
            let live = cell.live.lock().await;
            (
                live.model.game.clone(),
                live.model
                    .meta
                    .iter()
                    .map(|meta| meta.eval)
                    .collect::<Vec<_>>(),
                live.version,
            )
        };
        if known.iter().all(Option::is_some) {
            return Ok(known.into_iter().flatten().collect());
        }
        let missing: Vec<usize> = (0..known.len())
            .filter(|&ply| known[ply].is_none())
            .collect();
        let computed = self
            .pool
            .run(move || {
                let setup = *game.setup();
                let moves: Vec<Square> = game.moves().collect();
                missing
                    .into_iter()
                    .map(|ply| {
                        let after =
                            AnyGame::replay(game.variant(), setup, moves[..=ply].iter().copied())
                                .expect("the game's own moves replay");
                        (ply, evaluate_for_black(&after))
                    })
                    .collect::<Vec<_>>()
            })
            .await
            .ok_or_else(|| ApiError::Storage("the engine pool has stopped".into()))?;
        let mut live = cell.live.lock().await;
        let mut scores = known;
        for &(ply, score) in &computed {
            scores[ply] = Some(score);
        }
        if live.version == version {
            // Keep them (the moves have not changed meanwhile).
            let changes = computed
                .iter()
                .map(|&(ply, (score, exact))| Change::Eval {
                    game: cell.id.clone(),
                    ply,
                    score,
                    exact,
                })
                .collect();
            self.commit(changes).await?;
            for &(ply, score) in &computed {
                live.model.meta[ply].eval = Some(score);
            }
        }
        Ok(scores.into_iter().flatten().collect())
    }

    /// The best `count` moves of the position now, searched for `time`.
    ///
    /// # Errors
    /// [`ApiError::GameOver`] when there is nothing to move.
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
            .run(move || rank(&setup, &options, None, &mut |_| {}))
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

/// The legal moves, in standard notation.
pub fn legal_list(game: &AnyGame) -> Vec<String> {
    game.legal_moves()
        .iter()
        .map(|square| square.to_string())
        .collect()
}

/// How a seat answers about taking moves back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UndoAction {
    /// Ask (against an engine: take back at once).
    Request,
    /// Accept the other seat's request.
    Accept,
    /// Decline the other seat's request.
    Decline,
    /// Withdraw one's own request.
    Cancel,
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
}

/// If an engine is to move and may (a game with a person in it always goes on; a game
/// between engines only while watched and not paused, or a step is asked for), and none is
/// already thinking: marks the game as thinking and returns the search to start.
fn plan_engine_turn(cell: &GameCell, live: &mut LiveGame) -> Option<EngineJob> {
    let side = live.model.to_move()?;
    let seat = &live.seats[side as usize];
    let (time_ms, Seat::Computer(spec)) = (seat.time_ms, seat.player) else {
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
    })
}

/// Takes moves back until `color`'s last move is undone (back to its turn).
fn take_back(model: &mut Model, color: Color) {
    while let Some(ply) = model.game.undo() {
        model.meta.pop();
        if ply.side() == color {
            break;
        }
    }
    model.undo_request = None;
}

/// The status of a game as text: `playing` or `over`.
pub fn status_text(model: &Model) -> &'static str {
    match model.game.status() {
        _ if model.resigned.is_some() => "over",
        Status::Over(_) => "over",
        Status::ToMove(_) => "playing",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello::Shape;

    #[test]
    fn boards_round_trip_as_text() {
        let board = Board::standard(Shape::new(4, 6).unwrap());
        let text = board_text(&board);
        assert_eq!(text, "....../..WB../..BW../......");
        assert_eq!(board_of(&text), Some(board));
        assert_eq!(board_of("..X./..../..../...."), None);
        assert_eq!(board_of("..."), None);
    }

    #[tokio::test]
    async fn idle_games_leave_memory_and_come_back_from_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _writer) = Store::sqlite(&dir.path().join("games.db")).unwrap();
        let hub = Arc::new(Hub::new(store, EnginePool::new(1)));
        let new = NewGame {
            variant: Variant::Full,
            setup: Setup::standard(Shape::STANDARD),
            moves: vec!["d3".parse().unwrap()],
            seats: [(Seat::Human, 100), (Seat::Human, 100)],
            speed_ms: 0,
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

    #[test]
    fn secrets_are_long_random_and_stored_hashed() {
        let (a, b) = (new_secret(), new_secret());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
        assert_eq!(hash_secret(&a), hash_secret(&a));
        assert_ne!(hash_secret(&a), a);
        assert_eq!(hash_secret("").len(), 64);
    }
}
