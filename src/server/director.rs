//! The director: starts tournaments at their time, reads each game's result off the game
//! when it ends, pairs the next games and makes them, finishes tournaments. Every server
//! runs one; what it decides is committed under the tournament's version, so on a shared
//! database one server's step goes through and the others' conflict and read again.

use std::{sync::Arc, time::Duration};

use othello::{ByColor, Color, Setup, engine::Occupant};
use tokio::sync::{Notify, watch};

use super::{
    error::ApiError,
    game::{NewGame, NewSeat, now_ms},
    live::Hub,
    store::Change,
    tournaments::{Plan, Refusal, Stage, Tournament},
};

/// How often the director looks at the tournaments being played when nothing wakes it
/// (a game ended on another server; a start time reached).
const TICK: Duration = Duration::from_secs(1);

/// Finished tournaments listed.
pub const FINISHED_LISTED: usize = 10;

/// How many times a change made from a stale record is made again.
const RETRIES: usize = 5;

/// The tournaments' director (one per server).
pub struct Director {
    hub: Arc<Hub>,
    /// One more whenever a tournament changes (here, or on another server that said so):
    /// pages following one read it again.
    changes: watch::Sender<u64>,
    /// Wakes the loop early.
    wake: Notify,
    /// The list as last read, and the count of changes it was read at: the lobby's
    /// watchers share one reading.
    listed: tokio::sync::Mutex<Option<(u64, Vec<Tournament>)>>,
}

impl std::fmt::Debug for Director {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Director")
    }
}

impl Director {
    /// A director for `hub`'s games.
    pub fn new(hub: Arc<Hub>) -> Arc<Director> {
        Arc::new(Director {
            hub,
            changes: watch::Sender::new(0),
            wake: Notify::new(),
            listed: tokio::sync::Mutex::new(None),
        })
    }

    /// Follows the tournaments' changes.
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// A tournament changed: its followers are told, and the loop looks at once.
    pub fn changed(&self) {
        self.changes.send_modify(|count| *count += 1);
        self.wake.notify_one();
    }

    /// The tournament `id`.
    ///
    /// # Errors
    /// [`ApiError::NoSuchTournament`]; the store's.
    pub async fn get(&self, id: &str) -> Result<Tournament, ApiError> {
        self.hub
            .store()
            .tournament(id)
            .await?
            .ok_or_else(|| ApiError::NoSuchTournament(id.to_owned()))
    }

    /// The tournaments not finished, then the latest finished.
    ///
    /// # Errors
    /// The store's.
    pub async fn list(&self) -> Result<Vec<Tournament>, ApiError> {
        let mut listed = self.listed.lock().await;
        let count = *self.changes.borrow();
        if let Some((at, tournaments)) = &*listed
            && *at == count
        {
            return Ok(tournaments.clone());
        }
        let tournaments = self.hub.store().tournaments(FINISHED_LISTED).await?;
        *listed = Some((count, tournaments.clone()));
        Ok(tournaments)
    }

    /// Stores a new tournament.
    ///
    /// # Errors
    /// The store's.
    pub async fn create(&self, mut tournament: Tournament) -> Result<Tournament, ApiError> {
        tournament.version = 1;
        self.hub
            .store()
            .commit(vec![Change::Tournament {
                tournament: Box::new(tournament.clone()),
                expected: None,
            }])
            .await?;
        self.changed();
        Ok(tournament)
    }

    /// Changes the tournament `id` with `edit` (made again on a fresher record when
    /// another server changed it meanwhile).
    ///
    /// # Errors
    /// `edit`'s refusal; [`ApiError::NoSuchTournament`]; the store's.
    pub async fn change(
        &self,
        id: &str,
        edit: impl Fn(&mut Tournament, i64) -> Result<(), Refusal>,
    ) -> Result<Tournament, ApiError> {
        for _ in 0..RETRIES {
            let mut tournament = self.get(id).await?;
            edit(&mut tournament, now_ms())?;
            match self.commit(&mut tournament, Vec::new()).await {
                Ok(()) => {
                    self.changed();
                    return Ok(tournament);
                }
                Err(ApiError::Stale) => continue,
                Err(error) => return Err(error),
            }
        }
        Err(ApiError::Stale)
    }

    /// Commits `tournament` one version on, with `with`.
    async fn commit(&self, tournament: &mut Tournament, with: Vec<Change>) -> Result<(), ApiError> {
        let expected = tournament.version;
        tournament.version += 1;
        let mut changes = with;
        changes.push(Change::Tournament {
            tournament: Box::new(tournament.clone()),
            expected: Some(expected),
        });
        Ok(self.hub.store().commit(changes).await?)
    }

    /// Runs the director until the server stops: at every tick, and whenever a game here
    /// starts or ends or a tournament changes.
    pub async fn run(self: Arc<Director>, mut stopping: watch::Receiver<bool>) {
        let mut games = self.hub.watch_starts_and_ends();
        loop {
            self.tick().await;
            tokio::select! {
                () = tokio::time::sleep(TICK) => {}
                () = self.wake.notified() => {}
                changed = games.changed() => if changed.is_err() { return },
                _ = stopping.changed() => return,
            }
        }
    }

    /// One look at every tournament not finished.
    pub async fn tick(&self) {
        let tournaments = match self.hub.store().tournaments(0).await {
            Ok(tournaments) => tournaments,
            Err(error) => {
                eprintln!("othello serve: tournaments cannot be read: {error}");
                return;
            }
        };
        for tournament in tournaments {
            if tournament.stage == Stage::Finished {
                continue;
            }
            let id = tournament.id.clone();
            match self.advance(tournament).await {
                Ok(true) => self.changed(),
                Ok(false) | Err(ApiError::Stale) => {}
                Err(error) => eprintln!("othello serve: tournament {id}: {error}"),
            }
        }
    }

    /// Records the results of `tournament`'s games that ended, then pairs or finishes it
    /// if it is time. Returns whether it changed.
    async fn advance(&self, mut tournament: Tournament) -> Result<bool, ApiError> {
        let mut changed = false;
        let unfinished: Vec<String> = tournament
            .unfinished()
            .map(|pairing| pairing.game.clone())
            .collect();
        for id in unfinished {
            let Ok(cell) = self.hub.get(&id).await else {
                continue;
            };
            let live = cell.lock().await;
            if !live.table.is_over() {
                continue;
            }
            let board = live.table.game.board();
            let discs = [board.count(Color::Black), board.count(Color::White)];
            changed |= tournament.record(&id, live.table.result(), discs, live.table.ended);
        }
        let now = now_ms();
        if tournament.stage == Stage::Created && now >= tournament.starts_at {
            self.seed(&mut tournament).await;
        }
        match tournament.plan(now) {
            Plan::Wait if !changed => Ok(false),
            Plan::Wait => {
                self.commit(&mut tournament, Vec::new()).await?;
                Ok(true)
            }
            Plan::Finish => {
                tournament.finish(now);
                self.commit(&mut tournament, Vec::new()).await?;
                Ok(true)
            }
            Plan::Pair { round, games, bye } => {
                self.pair(tournament, round, games, bye).await?;
                Ok(true)
            }
        }
    }

    /// Orders the players by their ratings in the tournament's category (the best
    /// first; those without one, and ties, in the order they joined).
    async fn seed(&self, tournament: &mut Tournament) {
        let category = tournament.category();
        let mut ratings = Vec::with_capacity(tournament.players.len());
        for player in &tournament.players {
            let rating = self
                .hub
                .shown_rating(player.user_id, category)
                .await
                .map_or(0, |(rating, _)| rating);
            ratings.push((player.user_id, rating));
        }
        tournament.players.sort_by_key(|player| {
            let rating = ratings
                .iter()
                .find(|(id, _)| *id == player.user_id)
                .map_or(0, |(_, rating)| *rating);
            std::cmp::Reverse(rating)
        });
    }

    /// Makes round `round`'s games and commits them with the tournament's record.
    async fn pair(
        &self,
        mut tournament: Tournament,
        round: u32,
        games: Vec<ByColor<i64>>,
        bye: Option<i64>,
    ) -> Result<(), ApiError> {
        let mut setup = Setup::standard(tournament.shape);
        if let Some(first) = tournament.first {
            setup.first_mover = first;
        }
        setup.win_rule = tournament.win;
        let seat = |user_id: i64| NewSeat {
            name: tournament
                .entrant(user_id)
                .map(|player| player.name.clone()),
            user_id: Some(user_id),
            ..NewSeat::new(Occupant::Human, 0)
        };
        let news: Vec<NewGame> = games
            .iter()
            .map(|players| NewGame {
                variant: tournament.variant,
                setup,
                moves: Vec::new(),
                seats: [seat(players.black), seat(players.white)],
                speed_ms: 0,
                help: false,
                clock: Some(tournament.clock()),
                rated: tournament.rated,
                client: None,
            })
            .collect();
        let expected = tournament.version;
        self.hub
            .create_with(news, |ids| {
                let paired: Vec<(ByColor<i64>, String)> =
                    games.iter().copied().zip(ids.iter().cloned()).collect();
                tournament.paired(round, &paired, bye);
                tournament.version = expected + 1;
                vec![Change::Tournament {
                    tournament: Box::new(tournament.clone()),
                    expected: Some(expected),
                }]
            })
            .await?;
        Ok(())
    }
}
