//! A live game as the server holds it: the library's game and what the server adds (seats,
//! secrets, times, undo requests, engine games' controls), how it is stored and rebuilt,
//! and who is connected to it.

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use othello::{
    AnyGame, Board, Color, Record, Setup, Square, Status, Variant, WinRule, engine::Signal,
};
use rand::RngExt;
use sha2::{Digest, Sha256};
use tokio::sync::watch;

use super::store::{Change, StoredGame};
use crate::play::Occupant;

/// A seat of a live game.
#[derive(Clone, Debug)]
pub struct Seat {
    /// A person, or an engine.
    pub player: Occupant,
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
    pub seats: [Seat; 2],
    /// A hash of the secret that controls a game between engines.
    pub control_hash: Option<String>,
    /// Whether seated people get help (hints, the evaluation graph) in a game between two
    /// people while it is played (see [`LiveGame::may_help`]).
    pub help: bool,
    /// Grows at every change of the model (see `next_version`).
    pub version: u64,
    /// An engine move is on its way.
    pub thinking: bool,
    /// Stops that engine's search (when the game changes under it).
    pub(super) engine_signal: Option<Arc<Signal>>,
    /// When the side to move got the turn.
    pub(super) turn_started: Instant,
    /// When the game was created, in milliseconds since the Unix epoch.
    pub created_at: i64,
}

impl LiveGame {
    /// Whether both seats are engines.
    pub fn engines_only(&self) -> bool {
        self.seats
            .iter()
            .all(|seat| matches!(seat.player, Occupant::Computer(_)))
    }

    /// The seat a secret opens, if any.
    pub fn seat_of(&self, secret: &str) -> Option<Color> {
        let hash = hash_secret(secret);
        Color::ALL
            .into_iter()
            .find(|&color| self.seats[color as usize].secret_hash.as_deref() == Some(&hash))
    }

    /// Whether both seats are people.
    pub fn people_only(&self) -> bool {
        self.seats.iter().all(|seat| seat.player == Occupant::Human)
    }

    /// Whether the viewer in `seat` (`None`: a spectator) may have `help`. A game with an
    /// engine in it, or one that is over, helps everyone. While two people play, help goes
    /// only to seated people, only if the game was created with it, and hints only to the
    /// side to move: never to a spectator, who could be passing them on, and never on the
    /// opponent's turn.
    pub fn may_help(&self, seat: Option<Color>, help: Help) -> bool {
        if !self.people_only() || self.model.is_over() {
            return true;
        }
        let Some(seat) = seat else {
            return false;
        };
        self.help
            && match help {
                Help::Hints => self.model.to_move() == Some(seat),
                Help::Evaluation => true,
            }
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
        record.ending = self.model.resigned.map(othello::Ending::Resigned);
        record
    }
}

/// The engine's help for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Help {
    /// The best moves of the position now.
    Hints,
    /// The score after each move.
    Evaluation,
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

    pub(super) fn counter(&self, seat: Option<Color>) -> &AtomicUsize {
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
    /// Held while the evaluation graph's missing scores are computed.
    pub(super) evaluating: tokio::sync::Mutex<()>,
    /// Bumped at every change (of the game or of who is connected): watchers re-render.
    pub(super) changed: watch::Sender<u64>,
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

impl Attendance {
    /// Counts a connection to `cell` (for `seat`, or a spectator) until dropped.
    pub(super) fn new(cell: &Arc<GameCell>, seat: Option<Color>) -> Attendance {
        cell.presence.counter(seat).fetch_add(1, Ordering::Relaxed);
        cell.notify();
        Attendance {
            cell: Arc::clone(cell),
            seat,
        }
    }
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
    pub seats: [(Occupant, u64); 2],
    /// Engine games: the pause between moves.
    pub speed_ms: u64,
    /// Help for seated people while two people play.
    pub help: bool,
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

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as i64)
}

pub(super) fn rfc3339(ms: i64) -> String {
    let time = UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64);
    humantime::format_rfc3339_seconds(time).to_string()
}

/// The version after `version`: later than it and than now in milliseconds, so versions
/// only grow, across restarts too (a page keeps the latest state it has seen).
pub(super) fn next_version(version: u64) -> u64 {
    (version + 1).max(now_ms().max(0) as u64)
}

/// 128 random bits, as 32 hexadecimal digits.
pub fn new_secret() -> String {
    format!("{:032x}", rand::rng().random::<u128>())
}

/// 64 random bits, as 16 hexadecimal digits: a game's id (not a secret).
pub(super) fn new_id() -> String {
    format!("{:016x}", rand::rng().random::<u64>())
}

/// What is stored of a secret.
pub fn hash_secret(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

pub(super) fn color_text(color: Color) -> String {
    color.letter().to_string()
}

pub(super) fn color_of(text: &str) -> Option<Color> {
    text.bytes().next().and_then(Color::from_letter)
}

/// A board as stored: rows from the top, `/` between them, cells `.`, `B`, `W`.
pub(super) fn board_text(board: &Board) -> String {
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

pub(super) fn board_of(text: &str) -> Option<Board> {
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

/// The `Meta` change that writes `model`'s own fields, as of `version`.
pub(super) fn meta_change(id: &str, model: &Model, version: u64) -> Change {
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
        version,
    }
}

/// The live game of a stored one.
pub(super) fn revive(stored: StoredGame) -> Option<LiveGame> {
    let variant: Variant = stored.rules.parse().ok()?;
    let setup = Setup {
        board: board_of(&stored.board)?,
        first_mover: color_of(&stored.first)?,
        // An unknown rule is a damaged game, not most discs by default.
        win_rule: WinRule::from_name(&stored.win).ok()?,
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
    let seats = stored.seats.map(|seat| Seat {
        player: seat.player.parse().unwrap_or(Occupant::Human),
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
        help: stored.help,
        version: stored.version.max(stored.updated_at.max(0) as u64),
        thinking: false,
        engine_signal: None,
        turn_started: Instant::now(),
        created_at: stored.created_at,
    })
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

/// Takes moves back until `color`'s last move is undone (back to its turn).
pub(super) fn take_back(model: &mut Model, color: Color) {
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
    use othello::Shape;

    use super::*;

    #[test]
    fn boards_round_trip_as_text() {
        let board = Board::standard(Shape::new(4, 6).unwrap());
        let text = board_text(&board);
        assert_eq!(text, "....../..WB../..BW../......");
        assert_eq!(board_of(&text), Some(board));
        assert_eq!(board_of("..X./..../..../...."), None);
        assert_eq!(board_of("..."), None);
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
