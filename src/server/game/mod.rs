//! A live game as the server holds it: its [`Table`] with what only a running server
//! knows (its version, an engine thinking, when the turn began, who is connected), behind a
//! lock of its own; how it is stored and rebuilt; secrets and ids.

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use othello::{
    AnyGame, ByColor, Color, Record, Setup, Square, TimeControl, Variant, engine::Signal,
};
use rand::RngExt;
use sha2::{Digest, Sha256};
use tokio::sync::{MutexGuard, watch};

use super::{
    client::Client,
    ratings,
    store::StoredPresence,
    table::{Ended, Help, Seat, Table},
};
use othello::engine::Occupant;

mod stored;

pub use stored::{changes, revive, stored};

/// A live game: its table and what only a running server knows of it.
#[derive(Debug)]
pub struct LiveGame {
    /// The game at its table.
    pub table: Table,
    /// Grows at every change of the table (see `next_version`), across restarts too.
    pub version: u64,
    /// An engine move is on its way.
    pub thinking: bool,
    /// Another server is making the engine's move (a shared database): watchers here are
    /// told it is thinking too.
    pub engine_elsewhere: bool,
    /// Stops that engine's search (when the game changes under it).
    pub(super) engine_signal: Option<Arc<Signal>>,
    /// When the side to move got the turn.
    pub(super) turn_started: Instant,
    /// Who made the game, whose lane its engine work takes (`None`: not known here, the
    /// game read back from the database).
    pub client: Option<Client>,
}

impl LiveGame {
    /// A live game for `table` at `version`, nothing under way.
    pub(super) fn new(table: Table, version: u64) -> LiveGame {
        LiveGame {
            table,
            version,
            thinking: false,
            engine_elsewhere: false,
            engine_signal: None,
            turn_started: Instant::now(),
            client: None,
        }
    }

    /// The seat a secret opens, if any.
    pub fn seat_of(&self, secret: &str) -> Option<Color> {
        self.table.seat_of_hash(&hash_secret(secret))
    }

    /// Whether `secret` controls this game between engines.
    pub fn controls(&self, secret: &str) -> bool {
        self.table.control_hash.as_deref() == Some(&hash_secret(secret))
    }

    /// Who the holder of `secret`, or the account `user_id`, is in this game.
    pub fn viewer(&self, secret: Option<&str>, user_id: Option<i64>) -> Viewer {
        Viewer {
            seat: secret
                .and_then(|secret| self.seat_of(secret))
                .or_else(|| user_id.and_then(|id| self.table.seat_of_user(id))),
            control: secret.is_some_and(|secret| self.controls(secret)),
        }
    }

    /// The game as a record (dated when it was created).
    pub fn record(&self) -> Record {
        self.table.record(Some(rfc3339(self.table.created_at)))
    }
}

/// Who is connected to a game's live channel, and since when each seat has been away:
/// here, and (on a shared database) on the other servers.
#[derive(Debug)]
pub struct Presence {
    seats: ByColor<AtomicUsize>,
    spectators: AtomicUsize,
    /// When each seat's last connection here closed (from when the game came into memory
    /// for a seat never connected since); `None` while connected.
    away_since: ByColor<std::sync::Mutex<Option<Instant>>>,
    /// When each seat's last connection here closed, in milliseconds since the Unix
    /// epoch (`None`: never, or connected).
    left_here: ByColor<std::sync::Mutex<Option<i64>>>,
    /// The other servers' connections, as last read.
    elsewhere: std::sync::Mutex<StoredPresence>,
}

impl Default for Presence {
    fn default() -> Presence {
        let now = Instant::now();
        Presence {
            seats: ByColor::default(),
            spectators: AtomicUsize::new(0),
            away_since: ByColor::new(
                std::sync::Mutex::new(Some(now)),
                std::sync::Mutex::new(Some(now)),
            ),
            left_here: ByColor::default(),
            elsewhere: std::sync::Mutex::default(),
        }
    }
}

impl Presence {
    /// How long `color`'s seat has had no connection, here or on another server (`None`:
    /// connected now): since the latest one closed.
    pub fn away(&self, color: Color) -> Option<Duration> {
        let here = self.away_since[color]
            .lock()
            .expect("not poisoned")
            .map(|since| since.elapsed())?;
        let elsewhere = self.elsewhere.lock().expect("not poisoned");
        if elsewhere.seats[color as usize] > 0 {
            return None;
        }
        Some(match elsewhere.left_at[color as usize] {
            Some(left_at) => {
                let ago = u64::try_from(now_ms() - left_at).unwrap_or(0);
                here.min(Duration::from_millis(ago))
            }
            None => here,
        })
    }

    /// This server's connections, as other servers read them: counts, and when each
    /// seat's last one closed (milliseconds since the Unix epoch).
    pub fn here(&self) -> StoredPresence {
        let left_at = |color: Color| *self.left_here[color].lock().expect("not poisoned");
        StoredPresence {
            seats: [
                self.seats[Color::Black].load(Ordering::Relaxed) as u64,
                self.seats[Color::White].load(Ordering::Relaxed) as u64,
            ],
            spectators: self.spectators.load(Ordering::Relaxed) as u64,
            left_at: [left_at(Color::Black), left_at(Color::White)],
        }
    }

    /// What the other servers have (read from the shared database).
    pub fn set_elsewhere(&self, elsewhere: StoredPresence) {
        *self.elsewhere.lock().expect("not poisoned") = elsewhere;
    }

    /// Connections to this server.
    pub fn local_total(&self) -> usize {
        self.seats[Color::Black].load(Ordering::Relaxed)
            + self.seats[Color::White].load(Ordering::Relaxed)
            + self.spectators.load(Ordering::Relaxed)
    }

    /// Counts a connection in (`true`) or out, and keeps when a seat went away.
    fn count(&self, seat: Option<Color>, arriving: bool) {
        let counter = self.counter(seat);
        let Some(color) = seat else {
            if arriving {
                counter.fetch_add(1, Ordering::Relaxed);
            } else {
                counter.fetch_sub(1, Ordering::Relaxed);
            }
            return;
        };
        // Under the seat's lock, so the count and the time agree.
        let mut away = self.away_since[color].lock().expect("not poisoned");
        let mut left = self.left_here[color].lock().expect("not poisoned");
        if arriving {
            counter.fetch_add(1, Ordering::Relaxed);
            *away = None;
            *left = None;
        } else if counter.fetch_sub(1, Ordering::Relaxed) == 1 {
            *away = Some(Instant::now());
            *left = Some(now_ms());
        }
    }

    /// Connections of `color`'s seat, on every server.
    pub fn seat(&self, color: Color) -> usize {
        let elsewhere = self.elsewhere.lock().expect("not poisoned").seats[color as usize];
        self.seats[color].load(Ordering::Relaxed) + elsewhere as usize
    }

    /// Connections without a seat, on every server.
    pub fn spectators(&self) -> usize {
        let elsewhere = self.elsewhere.lock().expect("not poisoned").spectators;
        self.spectators.load(Ordering::Relaxed) + elsewhere as usize
    }

    /// Connections in all.
    pub fn total(&self) -> usize {
        self.seat(Color::Black) + self.seat(Color::White) + self.spectators()
    }

    pub(super) fn counter(&self, seat: Option<Color>) -> &AtomicUsize {
        match seat {
            Some(color) => &self.seats[color],
            None => &self.spectators,
        }
    }
}

/// Who asks: the seat a request's secret opens, and whether it controls a game between
/// engines (neither: a spectator).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Viewer {
    /// The seat, if the secret opens one.
    pub seat: Option<Color>,
    /// Whether the secret controls the game.
    pub control: bool,
}

/// A game in the listing of games being played.
#[derive(Clone, Debug)]
pub struct Listing {
    /// Its rule set.
    pub variant: Variant,
    /// Rows and columns.
    pub rows: u8,
    /// Columns.
    pub columns: u8,
    /// Black's and White's occupants.
    pub players: ByColor<String>,
    /// Moves played.
    pub moves: usize,
    /// The side to move, unless over.
    pub to_move: Option<Color>,
    /// The names the seats play under ([`Seat::shown_name`]).
    pub names: ByColor<String>,
    /// Whether each seat is a member's.
    pub members: ByColor<bool>,
    /// The board.
    pub shape: othello::Shape,
    /// Which discs win.
    pub win_rule: othello::WinRule,
    /// Once over, the winner (`None`: a draw); `None` while playing or when aborted.
    pub result: Option<Option<Color>>,
    /// How it ended other than by play.
    pub ended: Option<Ended>,
    /// The time control.
    pub clock: Option<TimeControl>,
    /// When the side to move runs out of time (a timed game being played), in
    /// milliseconds since the Unix epoch.
    pub deadline: Option<i64>,
    /// Whether it is rated.
    pub rated: bool,
    /// When it last changed (for a finished game, when it ended), in milliseconds since
    /// the Unix epoch.
    pub updated_at: i64,
}

impl Listing {
    /// The name `color` plays under: a person's (`guest` when they gave none), an engine's
    /// spec.
    pub fn name(&self, color: Color) -> String {
        self.names[color].clone()
    }
}

/// One game in the hub: its live game behind a lock of its own, and what watchers share.
/// The lock is the hub's: everything else asks through these methods.
#[derive(Debug)]
pub struct GameCell {
    /// Its id.
    pub id: String,
    /// The game, one request at a time.
    live: tokio::sync::Mutex<LiveGame>,
    /// Held while the evaluation graph's missing scores are computed.
    pub(super) evaluating: tokio::sync::Mutex<()>,
    /// Bumped at every change (of the game or of who is connected): watchers re-render.
    changed: watch::Sender<u64>,
    /// Who is connected.
    pub presence: Presence,
    /// A rated game's players and category, fixed for its life: read without its lock.
    pub rated: Option<Rated>,
    /// A rated game's players' ratings as its table shows them (see
    /// [`Hub::refresh_ratings`](super::live::Hub::refresh_ratings)).
    pub(super) ratings: std::sync::Mutex<Option<SeatRatings>>,
    /// Which seats are bot accounts' (read once: an account that has played cannot
    /// become one).
    pub(super) bots: std::sync::OnceLock<ByColor<bool>>,
}

/// A player's rating as a rated game's table shows it: when the game began, and once it
/// is over the change it made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeatRating {
    /// The rating when the game began, rounded.
    pub rating: i64,
    /// Whether it was still uncertain (shown with a `?`).
    pub provisional: bool,
    /// Once over, what the game changed it by (none for an aborted game).
    pub change: Option<i64>,
}

/// Both players' [`SeatRating`]s, and whether the game was over when they were read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeatRatings {
    /// Read when the game was over (the changes known).
    pub over: bool,
    /// Black's and White's.
    pub seats: ByColor<SeatRating>,
}

/// The two accounts of a rated game and the rating category it counts for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rated {
    /// Black's account and White's.
    pub players: ByColor<i64>,
    /// What [`ratings::category`] makes of its rules, board and time control.
    pub category: ratings::Category,
}

impl Rated {
    /// `table`'s, if it is rated, timed and between two accounts.
    fn of(table: &Table) -> Option<Rated> {
        let clock = table.clock.filter(|_| table.rated)?;
        Some(Rated {
            players: ByColor::new(table.seats.black.user_id?, table.seats.white.user_id?),
            category: ratings::category(
                table.game.variant(),
                table.game.board().shape(),
                table.game.setup().win_rule,
                clock.control,
            ),
        })
    }
}

impl GameCell {
    /// A cell for `live`.
    pub(super) fn new(id: String, live: LiveGame) -> GameCell {
        GameCell {
            id,
            rated: Rated::of(&live.table),
            live: tokio::sync::Mutex::new(live),
            evaluating: tokio::sync::Mutex::new(()),
            changed: watch::Sender::new(0),
            presence: Presence::default(),
            ratings: std::sync::Mutex::new(None),
            bots: std::sync::OnceLock::new(),
        }
    }

    /// Whether `color`'s seat is a bot account's (false until read).
    pub fn is_bot(&self, color: Color) -> bool {
        self.bots.get().is_some_and(|bots| bots[color])
    }

    /// A rated game's players' ratings, as last read.
    pub fn seat_ratings(&self) -> Option<ByColor<SeatRating>> {
        self.ratings
            .lock()
            .expect("not poisoned")
            .map(|ratings| ratings.seats)
    }

    /// The game, locked: for the hub, which changes it.
    pub(super) async fn lock(&self) -> MutexGuard<'_, LiveGame> {
        self.live.lock().await
    }

    /// The lock if free: for eviction, which must not wait.
    pub(super) fn try_lock(&self) -> Option<MutexGuard<'_, LiveGame>> {
        self.live.try_lock().ok()
    }

    /// Tells every watcher that something changed.
    pub fn notify(&self) {
        self.changed.send_modify(|generation| *generation += 1);
    }

    /// A receiver that wakes at every change.
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Who the holder of `secret`, or the account `user_id`, is in this game.
    pub async fn viewer(&self, secret: Option<&str>, user_id: Option<i64>) -> Viewer {
        self.live.lock().await.viewer(secret, user_id)
    }

    /// The game as a record, with a rated game's ratings as its table shows them (when
    /// they have been read: [`Hub::refresh_ratings`](super::live::Hub::refresh_ratings)).
    pub async fn record(&self) -> Record {
        let mut record = self.live.lock().await.record();
        if let Some(ratings) = self.seat_ratings() {
            record.ratings =
                [ratings.black, ratings.white].map(|seat| i32::try_from(seat.rating).ok());
        }
        record
    }

    /// The game in a listing of games being played.
    pub async fn listing(&self) -> Listing {
        let live = self.live.lock().await;
        let table = &live.table;
        let shape = table.game.board().shape();
        Listing {
            variant: table.game.variant(),
            rows: shape.rows(),
            columns: shape.columns(),
            players: table.seats.as_ref().map(|seat| seat.occupant.to_string()),
            moves: table.game.history().len(),
            to_move: table.to_move(),
            names: table.seats.as_ref().map(Seat::shown_name),
            members: table.seats.as_ref().map(|seat| seat.user_id.is_some()),
            shape,
            win_rule: table.game.setup().win_rule,
            result: table.result(),
            ended: table.ended,
            clock: table.clock.map(|clock| clock.control),
            deadline: table.flag_at(),
            rated: table.rated,
            updated_at: table.updated_at,
        }
    }

    /// Whether `viewer` may have `help` now, and if not, why.
    ///
    /// # Errors
    /// Why not, in words.
    pub async fn check_help(&self, viewer: Viewer, help: Help) -> Result<(), String> {
        let live = self.live.lock().await;
        if live.table.may_help(viewer.seat, help) {
            return Ok(());
        }
        Err(match (help, viewer.seat) {
            (Help::Hints, Some(_)) if live.table.help => "hints are for the side to move".into(),
            (_, Some(_)) => "this game between two people was created without help".into(),
            (_, None) => "spectators get no help while two people play".into(),
        })
    }

    /// The moves played, in standard notation.
    pub async fn moves(&self) -> Vec<String> {
        let live = self.live.lock().await;
        live.table
            .game
            .moves()
            .map(|square| square.to_string())
            .collect()
    }
}

/// Marks a connection as present while it lives.
#[derive(Debug)]
pub struct Attendance {
    cell: Arc<GameCell>,
    seat: Option<Color>,
    /// Where to say the game's presence changed (a shared database tells the others).
    announce: Option<tokio::sync::mpsc::UnboundedSender<String>>,
}

impl Attendance {
    /// Counts a connection to `cell` (for `seat`, or a spectator) until dropped; each
    /// change is sent to `announce`.
    pub(super) fn new(
        cell: &Arc<GameCell>,
        seat: Option<Color>,
        announce: Option<tokio::sync::mpsc::UnboundedSender<String>>,
    ) -> Attendance {
        cell.presence.count(seat, true);
        cell.notify();
        if let Some(announce) = &announce {
            let _ = announce.send(cell.id.clone());
        }
        Attendance {
            cell: Arc::clone(cell),
            seat,
            announce,
        }
    }
}

impl Drop for Attendance {
    fn drop(&mut self) {
        self.cell.presence.count(self.seat, false);
        self.cell.notify();
        if let Some(announce) = &self.announce {
            let _ = announce.send(self.cell.id.clone());
        }
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
    /// Black's seat, then White's.
    pub seats: [NewSeat; 2],
    /// Engine games: the pause between moves.
    pub speed_ms: u64,
    /// Help for seated people while two people play.
    pub help: bool,
    /// The clock, for a timed game.
    pub clock: Option<TimeControl>,
    /// Whether the result counts for ratings.
    pub rated: bool,
    /// Who asks for it: its engine work takes their lane.
    pub client: Option<Client>,
}

/// A seat of a new game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewSeat {
    /// A person or an engine.
    pub occupant: Occupant,
    /// An engine's time per move, in milliseconds.
    pub time_ms: u64,
    /// A person's name.
    pub name: Option<String>,
    /// A person's account.
    pub user_id: Option<i64>,
    /// The hash of a secret the person already holds (a guest who posted a challenge):
    /// it opens the seat, and none is made.
    pub secret_hash: Option<String>,
}

impl NewSeat {
    /// `occupant`, anonymous, with `time_ms` per move if an engine.
    pub fn new(occupant: Occupant, time_ms: u64) -> NewSeat {
        NewSeat {
            occupant,
            time_ms,
            name: None,
            user_id: None,
            secret_hash: None,
        }
    }
}

/// The secrets of a new game's seats.
#[derive(Clone, Debug)]
pub struct Created {
    /// The game.
    pub cell: Arc<GameCell>,
    /// Black's secret then White's, for people's seats.
    pub secrets: ByColor<Option<String>>,
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
pub(crate) fn new_id() -> String {
    format!("{:016x}", rand::rng().random::<u64>())
}

/// What is stored of a secret.
pub fn hash_secret(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The legal moves, in standard notation.
pub fn legal_list(game: &AnyGame) -> Vec<String> {
    game.legal_moves()
        .iter()
        .map(|square| square.to_string())
        .collect()
}

#[cfg(test)]
mod tests {

    use super::*;

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
