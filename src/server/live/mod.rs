//! The live games: each in memory behind a lock of its own (one request at a time per game,
//! any number of games at once), loaded from the store on first use and written back before
//! any change is acknowledged; engine moves scheduled on the engine pool; watchers told of
//! every change.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use super::{
    client::Client,
    engine_pool::{EnginePool, Load},
    error::ApiError,
    game::{
        Created, GameCell, LiveGame, NewGame, NewSeat, SeatRating, SeatRatings, hash_secret,
        new_id, new_secret, next_version, now_ms, revive, stored,
    },
    ratings::{Category, Rating},
    store::{Change, Store, StoredRating},
    table::{Seat, Table, TableError},
};
use othello::engine::Occupant;
use othello::{AnyGame, ByColor, Clock, Color, GameKind};

mod act;
mod analysis;
mod clock;
mod cluster;
mod engine;
mod plan;

pub use act::Credentials;
pub use analysis::EVAL_BUDGET;
use plan::{Plan, engine_turn_change};

/// The longest time an engine may be given per move, in milliseconds.
pub const MAX_TIME_MS: u64 = 30_000;

/// The time an engine gets per move when none is given, in milliseconds.
pub const DEFAULT_TIME_MS: u64 = 1_000;

/// On a shared database, how much longer than its search an engine reply is leased to the
/// server that makes it (its grace, plus room for a busy pool): past that, another server
/// replies.
const LEASE_SLACK_MS: u64 = 3_000;

/// On a shared database, how often a server says its published connections still count.
const PRESENCE_HEARTBEAT: Duration = Duration::from_secs(5);

/// How long a server that takes over an orphaned engine reply holds it before trying.
const TAKE_OVER_MS: u64 = 5_000;

/// The longest pause between two moves of a game between engines, in milliseconds.
pub const MAX_SPEED_MS: u64 = 60_000;

/// The pause between two moves of a game between engines when none is given.
pub const DEFAULT_SPEED_MS: u64 = 500;

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
    /// Accounts' ratings as the lobby shows them, each read at most once a
    /// [`RATINGS_SHOWN_FOR`]: a lobby drawn for every watcher at every change reads the
    /// database once per poster, not once per watcher.
    ratings_shown: Mutex<HashMap<i64, (std::time::Instant, Vec<StoredRating>)>>,
    /// Accounts read as bots or not, and when.
    bots_shown: Mutex<HashMap<i64, (std::time::Instant, bool)>>,
}

/// How long an account read as no bot is believed before it is read again.
const BOTS_SHOWN_FOR: Duration = Duration::from_secs(30);

/// How long the lobby shows a rating it read before reading it again.
const RATINGS_SHOWN_FOR: Duration = Duration::from_secs(30);

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
            ratings_shown: Mutex::new(HashMap::new()),
            bots_shown: Mutex::new(HashMap::new()),
        }
    }

    /// The lobby reads `players`' ratings again: a game of theirs just moved them (other
    /// servers on a shared database show the new ones within [`RATINGS_SHOWN_FOR`]).
    pub(super) fn forget_shown_ratings(&self, players: ByColor<i64>) {
        let mut shown = self.ratings_shown.lock().expect("not poisoned");
        for (_, user) in players.iter() {
            shown.remove(user);
        }
    }

    /// Account `user`'s rating in `category` as the lobby shows it: rounded, and whether
    /// it is provisional (the start's when it has none there); `None` when the database
    /// cannot say.
    pub async fn shown_rating(&self, user: i64, category: Category) -> Option<(i64, bool)> {
        let fresh = |seen: &std::time::Instant| seen.elapsed() < RATINGS_SHOWN_FOR;
        let cached = self
            .ratings_shown
            .lock()
            .expect("not poisoned")
            .get(&user)
            .filter(|(seen, _)| fresh(seen))
            .map(|(_, ratings)| ratings.clone());
        let ratings = match cached {
            Some(ratings) => ratings,
            None => {
                let ratings = self.store.ratings(user).await.ok()?;
                let mut shown = self.ratings_shown.lock().expect("not poisoned");
                shown.retain(|_, (seen, _)| fresh(seen));
                shown.insert(user, (std::time::Instant::now(), ratings.clone()));
                ratings
            }
        };
        let rating = ratings
            .iter()
            .find(|stored| stored.category == category)
            .map_or_else(Rating::default, |stored| Rating {
                rating: stored.rating,
                deviation: stored.deviation,
                ..Rating::default()
            });
        Some((rating.rating.round() as i64, rating.provisional()))
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
        let plan = Plan::of(&cell, &mut *cell.lock().await);
        self.start(&cell, plan);
        Ok(cell)
    }

    /// After a start: loads the games being played (the most recent `limit`), so that an
    /// engine that was to move in one replies without waiting for someone to look.
    pub async fn resume(self: &Arc<Hub>, limit: usize) {
        let Ok(ids) = self.playing(limit, i64::MIN).await else {
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

    /// Games made in one commit with what `with` writes given their ids (a tournament's
    /// round and its record): all of them or none.
    ///
    /// # Errors
    /// As [`Hub::create`]; nothing is made when the commit fails.
    pub async fn create_with(
        self: &Arc<Hub>,
        games: Vec<NewGame>,
        with: impl FnOnce(&[String]) -> Vec<Change>,
    ) -> Result<Vec<Created>, ApiError> {
        let prepared = games
            .into_iter()
            .map(Prepared::of)
            .collect::<Result<Vec<_>, _>>()?;
        let ids: Vec<String> = prepared.iter().map(|game| game.id.clone()).collect();
        let shared = self.store.is_shared();
        let mut changes: Vec<Change> = prepared
            .iter()
            .flat_map(|game| game.changes(shared))
            .collect();
        changes.extend(with(&ids));
        self.commit(changes).await?;
        let mut created = Vec::with_capacity(prepared.len());
        for game in prepared {
            created.push(self.open(game).await);
        }
        Ok(created)
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
        let plan = Plan::of(&cell, &mut *cell.lock().await);
        self.start(&cell, plan);
        Created {
            cell,
            secrets,
            control,
        }
    }

    /// The one place what follows a change starts: the engine's turn and the flag's watch.
    fn start(self: &Arc<Hub>, cell: &Arc<GameCell>, plan: Plan) {
        self.launch(cell, plan.job);
        self.watch_flag(cell, plan.flag);
    }

    /// Commits `changes` to the store.
    async fn commit(&self, changes: Vec<Change>) -> Result<(), ApiError> {
        self.store.commit(changes).await.map_err(ApiError::from)
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

    /// Reads what a game's table shows of its players' accounts: whether they are bots
    /// (once), and a rated game's ratings (see [`Hub::refresh_ratings`]).
    pub async fn refresh_seats(&self, cell: &GameCell) {
        if cell.bots.get().is_none() {
            let seats = cell.lock().await.table.seats.clone();
            let mut bots = ByColor::new(false, false);
            for color in Color::ALL {
                let seat = &seats[color];
                if let (Some(user), Some(name)) = (seat.user_id, &seat.name) {
                    let Some(bot) = self.is_bot(user, name).await else {
                        return;
                    };
                    bots[color] = bot;
                }
            }
            let _ = cell.bots.set(bots);
        }
        self.refresh_ratings(cell).await;
    }

    /// Forgets what was read of account `user` being a bot (it just became one).
    pub fn forget_bot(&self, user: i64) {
        self.bots_shown.lock().expect("not poisoned").remove(&user);
    }

    /// Whether account `user` (named `name`) is a bot's; `None` when the database cannot
    /// say. A bot stays one, so only a "no" is read again (after [`BOTS_SHOWN_FOR`]).
    pub async fn is_bot(&self, user: i64, name: &str) -> Option<bool> {
        if let Some((seen, bot)) = self.bots_shown.lock().expect("not poisoned").get(&user)
            && (*bot || seen.elapsed() < BOTS_SHOWN_FOR)
        {
            return Some(*bot);
        }
        let bot = self
            .store
            .user(name)
            .await
            .ok()?
            .is_some_and(|stored| stored.id == user && stored.bot);
        let mut shown = self.bots_shown.lock().expect("not poisoned");
        if shown.len() >= 100_000 {
            shown.retain(|_, (seen, bot)| *bot || seen.elapsed() < BOTS_SHOWN_FOR);
        }
        shown.insert(user, (std::time::Instant::now(), bot));
        Some(bot)
    }

    /// Reads a rated game's players' ratings for its table: their ratings when it began
    /// (their current ones while it is played), and once it is over the change it made
    /// (from the rating history written with its ending). Read once while it is played and
    /// once when it is over; a failing database leaves them unread, for the next time.
    pub async fn refresh_ratings(&self, cell: &GameCell) {
        let Some(rated) = &cell.rated else {
            return;
        };
        let over = cell.lock().await.table.is_over();
        if cell
            .ratings
            .lock()
            .expect("not poisoned")
            .is_some_and(|ratings| ratings.over == over)
        {
            return;
        }
        let mut seats = ByColor::new(SeatRating::default(), SeatRating::default());
        for color in Color::ALL {
            let user = rated.players[color];
            let Ok(history) = self.store.rating_history(user).await else {
                return;
            };
            let mine: Vec<_> = history
                .iter()
                .filter(|entry| entry.category == rated.category)
                .collect();
            let seat = |rating: f64, deviation: f64, after: Option<f64>| SeatRating {
                rating: rating.round() as i64,
                provisional: Rating {
                    deviation,
                    ..Rating::default()
                }
                .provisional(),
                change: after.map(|after| after.round() as i64 - rating.round() as i64),
            };
            seats[color] = match mine.iter().position(|entry| entry.game_id == cell.id) {
                Some(index) => {
                    let start = Rating::default();
                    let (rating, deviation) = index
                        .checked_sub(1)
                        .map_or((start.rating, start.deviation), |before| {
                            (mine[before].rating, mine[before].deviation)
                        });
                    seat(rating, deviation, Some(mine[index].rating))
                }
                None => {
                    let Ok(current) = self.store.ratings(user).await else {
                        return;
                    };
                    let rating = current
                        .iter()
                        .find(|stored| stored.category == rated.category)
                        .map_or_else(Rating::default, |stored| Rating {
                            rating: stored.rating,
                            deviation: stored.deviation,
                            ..Rating::default()
                        });
                    seat(rating.rating, rating.deviation, None)
                }
            };
        }
        *cell.ratings.lock().expect("not poisoned") = Some(SeatRatings { over, seats });
    }

    /// The ids of games being played that changed at `since` or later, most recent first.
    ///
    /// # Errors
    /// [`ApiError::Storage`] if the store fails.
    pub async fn playing(&self, limit: usize, since: i64) -> Result<Vec<String>, ApiError> {
        self.store
            .playing(limit, since)
            .await
            .map_err(ApiError::from)
    }
}

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
        let kind = GameKind::new(new.variant, new.setup.board.shape(), new.setup.win_rule);
        for seat in &new.seats {
            if let Occupant::Computer(spec) = seat.occupant {
                spec.fits(kind)
                    .map_err(|error| ApiError::BadRequest(error.to_string()))?;
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use othello::{Setup, Shape, Variant};

    /// A game between two people on the standard board, with `moves` played.
    fn between_people(moves: &[&str]) -> NewGame {
        NewGame {
            variant: Variant::Full,
            setup: Setup::standard(Shape::STANDARD),
            moves: moves.iter().map(|s| s.parse().unwrap()).collect(),
            seats: [
                NewSeat::new(Occupant::Human, 100),
                NewSeat::new(Occupant::Human, 100),
            ],
            speed_ms: 0,
            help: false,
            clock: None,
            rated: false,
            client: None,
        }
    }

    #[tokio::test]
    async fn idle_games_leave_memory_and_come_back_from_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _writer) = Store::sqlite(&dir.path().join("games.db")).unwrap();
        let hub = Arc::new(Hub::new(store, EnginePool::new(1)));
        let created = hub.create(between_people(&["d3"])).await.unwrap();
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

    /// Issue 48's red team: a game read back from the database takes the lane of whoever
    /// plays it (the guest's address, the member), not one of its own: after a restart a
    /// client's many games still share one lane. Until someone plays, a member seated in
    /// it gives the lane.
    #[tokio::test]
    async fn a_game_read_back_takes_the_lane_of_whoever_plays_it() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _writer) = Store::sqlite(&dir.path().join("games.db")).unwrap();
        let hub = Arc::new(Hub::new(store, EnginePool::new(1)));
        let mut new = between_people(&[]);
        new.client = Some(Client::Member(5));
        new.seats[1].user_id = Some(9);
        let created = hub.create(new).await.unwrap();
        let (id, black) = (created.cell.id.clone(), created.secrets.black.clone());
        drop(created);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(hub.evict_idle(Duration::ZERO), 1);
        let cell = hub.get(&id).await.unwrap();
        {
            let mut live = cell.lock().await;
            assert_eq!(live.client, None, "read back: its maker is not known");
            // An engine's turn now would take the seated member's lane.
            live.table.seats[Color::Black].occupant =
                Occupant::Computer(othello::engine::PlayerSpec::Random);
            let job = plan::Plan::of(&cell, &mut live)
                .job
                .expect("the engine's turn");
            assert_eq!(job.client, Client::Member(9));
            live.table.seats[Color::Black].occupant = Occupant::Human;
            live.thinking = false;
        }
        let address: std::net::IpAddr = "10.1.2.3".parse().unwrap();
        let guest = Credentials {
            secret: black.as_deref(),
            user_id: None,
            address: Some(address),
        };
        let action = crate::server::table::Action::Play("d3".parse().unwrap());
        hub.act(&cell, guest, action).await.unwrap();
        assert_eq!(cell.lock().await.client, Some(Client::guest(address)));
    }

    /// Issue 21.12: the graph's scores are kept as they are computed, in bounded steps,
    /// even when the game moves on meanwhile.
    #[tokio::test]
    async fn regression_21_12_graph_scores_are_kept_step_by_step() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _writer) = Store::sqlite(&dir.path().join("games.db")).unwrap();
        let hub = Arc::new(Hub::new(store, EnginePool::new(1)));
        let new = between_people(&["f5", "d6", "c3", "d3", "c4"]);
        let created = hub.create(new).await.unwrap();
        let cell = Arc::clone(&created.cell);
        let known = |scores: &[Option<(f64, bool)>]| scores.iter().flatten().count();
        let (scores, complete) = hub
            .evaluations(&cell, Duration::ZERO, Client::Member(1))
            .await
            .unwrap();
        assert_eq!((known(&scores), complete), (1, false));
        // White moves: the score after the first moves still counts.
        let square = cell.lock().await.table.game.legal_moves().first();
        let white = Credentials {
            secret: created.secrets.white.as_deref(),
            user_id: None,
            address: None,
        };
        let action = crate::server::table::Action::Play(square.unwrap());
        hub.act(&cell, white, action).await.unwrap();
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
