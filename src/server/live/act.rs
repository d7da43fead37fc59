//! The act path: every change to a live game, a person's or the server's, is one
//! [`Action`] that goes the same way: lock, apply ([`Table::apply`]), commit (once more on
//! what the game is now when another server changed it), then let go of the lock, tell the
//! watchers and start what follows ([`Hub::follow`]).

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use othello::{ByColor, Color};

use super::{
    super::{
        client::Client,
        error::ApiError,
        game::{GameCell, LiveGame, NewGame, Rated, changes, next_version, now_ms, revive},
        ratings::{self, Rating},
        store::{Change, StoredRating},
        table::{Action, Applied, Ended, Now, Table, TableError},
        views::{self, GameView},
    },
    Hub, Prepared,
    plan::{Plan, engine_turn_change},
    rematch_of,
};

/// What a person shows to act: the secret they hold and the account they are logged in
/// as (either may open a seat; the secret may control a game between engines).
#[derive(Clone, Copy, Debug, Default)]
pub struct Credentials<'a> {
    /// The secret given, if any.
    pub secret: Option<&'a str>,
    /// The member logged in, if any.
    pub user_id: Option<i64>,
    /// The caller's address, where known (a guest's lane in the engine pool).
    pub address: Option<std::net::IpAddr>,
}

/// A rated game's stakes: both players' ratings after each result, worked out before the
/// game is locked (the arithmetic is pure, [`ratings::update`]).
#[derive(Debug)]
pub(super) struct Stakes {
    rated: Rated,
    /// After a win of Black, of White, and a draw.
    after: [(Rating, Rating); 3],
}

impl Stakes {
    /// The rating changes for `result` (none for an aborted game), at `at`.
    fn changes(&self, id: &str, result: Option<Option<Color>>, at: i64) -> Vec<Change> {
        let Some(winner) = result else {
            return Vec::new();
        };
        let (black, white) = self.after[match winner {
            Some(Color::Black) => 0,
            Some(Color::White) => 1,
            None => 2,
        }];
        [
            (self.rated.players.black, black),
            (self.rated.players.white, white),
        ]
        .into_iter()
        .map(|(user_id, rating)| {
            Change::Rating(StoredRating {
                user_id,
                category: self.rated.category,
                rating: rating.rating,
                deviation: rating.deviation,
                volatility: rating.volatility,
                games: rating.games,
                game_id: id.to_owned(),
                at,
            })
        })
        .collect()
    }
}

/// An action applied under the lock: its outcome, whether the game changed here (stored
/// or read again: watchers are told), and a rematch's game to open.
pub(super) struct Settled {
    pub result: Result<Applied, ApiError>,
    pub touched: bool,
    pub rematch: Option<Prepared>,
}

impl Settled {
    fn refused(error: ApiError, touched: bool) -> Settled {
        Settled {
            result: Err(error),
            touched,
            rematch: None,
        }
    }
}

impl Hub {
    /// A person's `action` on `cell`'s game, with `who`'s credentials: a seat's action for
    /// the seat they open, the controls for the holder of the control secret. Returns the
    /// game as they see it after; a refusal of the rules carries it too
    /// ([`ApiError::InState`]), so a page that missed a change catches up.
    ///
    /// # Errors
    /// [`ApiError::Unauthorized`] without credentials, [`ApiError::Forbidden`] when they
    /// open no seat (or do not control the game), the rules' refusal, or the store's.
    pub async fn act(
        self: &Arc<Hub>,
        cell: &Arc<GameCell>,
        who: Credentials<'_>,
        action: Action,
    ) -> Result<GameView, ApiError> {
        let (_ratings, stakes) = self.stakes(cell).await?;
        let mut live = cell.lock().await;
        let viewer = live.viewer(who.secret, who.user_id);
        let seat = match action {
            Action::Control(_) => {
                if !live.table.engines_only() {
                    return Err(ApiError::Rule(TableError::NotEngineGame));
                }
                if !viewer.control {
                    return Err(ApiError::Forbidden(
                        "this secret does not control this game".into(),
                    ));
                }
                None
            }
            Action::EngineMove(_) | Action::Flag => {
                return Err(ApiError::Forbidden("only the server does that".into()));
            }
            _ if who.secret.is_none() && who.user_id.is_none() => {
                return Err(ApiError::Unauthorized);
            }
            _ => Some(viewer.seat.ok_or_else(|| {
                ApiError::Forbidden(
                    "neither this secret nor this account opens a seat of this game".into(),
                )
            })?),
        };
        // A game read back from the database has no maker known here: whoever plays a seat
        // of it (or controls it) is, so that a client's restored games share its lane
        // (found by the red team of issue 48: after a restart each took a lane of its own).
        if live.client.is_none() {
            live.client = who
                .user_id
                .map(Client::Member)
                .or_else(|| who.address.map(Client::guest));
        }
        let settled = self.settle(cell, &mut live, seat, action, stakes).await;
        // Planned first: the answer to a move says that the engine is thinking.
        let plan = settled.touched.then(|| Plan::of(cell, &mut live));
        let view = views::state(cell, &live, &live.table.game, viewer, None);
        // A rated game this action ended: its answer shows what it changed (found by the
        // red team of item 47.11: a resignation's answer had no rating change).
        let rated_end = settled.result.is_ok() && cell.rated.is_some() && live.table.is_over();
        drop(live);
        drop(_ratings);
        self.follow(cell, plan, settled.rematch).await;
        let view = if rated_end {
            self.refresh_ratings(cell).await;
            views::view(cell, viewer, None).await.unwrap_or(view)
        } else {
            view
        };
        match settled.result {
            Ok(_) => Ok(view),
            Err(error @ (ApiError::Rule(_) | ApiError::Stale)) => {
                Err(ApiError::InState(Box::new(error), Arc::new(view)))
            }
            Err(error) => Err(error),
        }
    }

    /// For a rated game: the ratings' lock (held until its change is committed: two games
    /// of one player ending at once must not both start from the same rating) and the
    /// stakes, read before the game is locked.
    pub(super) async fn stakes(
        &self,
        cell: &GameCell,
    ) -> Result<(Option<tokio::sync::MutexGuard<'_, ()>>, Option<Stakes>), ApiError> {
        let Some(rated) = &cell.rated else {
            return Ok((None, None));
        };
        let lock = self.ratings.lock().await;
        Ok((Some(lock), Some(self.read_stakes(rated.clone()).await?)))
    }

    /// `rated`'s players' ratings now, and after each result.
    async fn read_stakes(&self, rated: Rated) -> Result<Stakes, ApiError> {
        let of = |stored: Vec<StoredRating>| {
            stored
                .into_iter()
                .find(|rating| rating.category == rated.category)
                .map_or_else(Rating::default, |stored| Rating {
                    rating: stored.rating,
                    deviation: stored.deviation,
                    volatility: stored.volatility,
                    games: stored.games,
                })
        };
        let black = of(self.store.ratings(rated.players.black).await?);
        let white = of(self.store.ratings(rated.players.white).await?);
        let after = [Some(Color::Black), Some(Color::White), None]
            .map(|winner| ratings::update(black, white, winner));
        Ok(Stakes { rated, after })
    }

    /// Under the game's lock: `action` (by `seat`, if a seat's) applied to a copy of the
    /// table at the time now, the difference committed (with a rematch's game, and a rated
    /// game's new ratings from `stakes`), then the copy made the game's. When another server
    /// changed the game meanwhile it is read again, and a person's action applied once more
    /// to what it is now (a rated game's stakes read again: another server may have moved a
    /// player's rating, the one read under the game's lock); the server's actions (planned
    /// for the game as it was) are dropped. A refusal leaves the game as it was.
    pub(super) async fn settle(
        &self,
        cell: &GameCell,
        live: &mut LiveGame,
        seat: Option<Color>,
        action: Action,
        mut stakes: Option<Stakes>,
    ) -> Settled {
        let mut reloaded = false;
        loop {
            let mut table = live.table.clone();
            let now = Now {
                at: now_ms(),
                thought_ms: live.turn_started.elapsed().as_millis() as u64,
                away_ms: ByColor::from_fn(|color| {
                    cell.presence
                        .away(color)
                        .map(|away| away.as_millis() as u64)
                }),
                abandon_after_ms: self.abandon_after.as_millis() as u64,
            };
            let applied = match table.apply(seat, action, now) {
                Ok(applied) => applied,
                Err(refused) => {
                    let refused = ApiError::Rule(refused);
                    // Asked of the game as it was: it moved under the request.
                    let error = if reloaded && refused.status() != axum::http::StatusCode::CONFLICT
                    {
                        ApiError::Stale
                    } else {
                        refused
                    };
                    return Settled::refused(error, reloaded);
                }
            };
            if !applied.changed {
                return Settled {
                    result: Ok(applied),
                    touched: reloaded,
                    rematch: None,
                };
            }
            let mut extra = Vec::new();
            let rematch = if applied.rematch {
                match Prepared::of(NewGame {
                    client: live.client.clone(),
                    ..rematch_of(&live.table)
                }) {
                    Ok(prepared) => {
                        table.rematch = Some(prepared.id.clone());
                        // The new game and the old one's pointer to it in one commit.
                        extra.extend(prepared.changes(self.store.is_shared()));
                        Some(prepared)
                    }
                    Err(error) => return Settled::refused(error, reloaded),
                }
            } else {
                None
            };
            // A rated game that ends moves both ratings, in the same commit as its ending.
            if applied.ended
                && let Some(stakes) = &stakes
            {
                extra.extend(stakes.changes(&cell.id, table.result(), table.updated_at));
            }
            let moved = stakes
                .as_ref()
                .filter(|_| applied.ended)
                .map(|stakes| stakes.rated.players);
            match self.commit_table(cell, live, table, applied, extra).await {
                Ok(()) => {
                    if let Some(players) = moved {
                        self.forget_shown_ratings(players);
                    }
                    return Settled {
                        result: match applied.flagged.and_then(Ended::fallen_flag) {
                            Some(fallen) => Err(ApiError::Rule(fallen)),
                            None => Ok(applied),
                        },
                        touched: true,
                        rematch,
                    };
                }
                Err(ApiError::Stale) if !reloaded => {
                    if let Err(error) = self.reload(cell, live).await {
                        return Settled::refused(error, false);
                    }
                    reloaded = true;
                    if let Some(old) = stakes.take() {
                        match self.read_stakes(old.rated).await {
                            Ok(fresh) => stakes = Some(fresh),
                            Err(error) => return Settled::refused(error, true),
                        }
                    }
                    if action.is_planned() {
                        return Settled {
                            result: Ok(Applied::default()),
                            touched: true,
                            rematch: None,
                        };
                    }
                }
                Err(error) => return Settled::refused(error, reloaded),
            }
        }
    }

    /// Commits the change from the game's table to `table` (what `applied` says of it, with
    /// `extra` changes in the same commit) and makes it the game's; on failure the game
    /// stays as it was.
    async fn commit_table(
        &self,
        cell: &GameCell,
        live: &mut LiveGame,
        table: Table,
        applied: Applied,
        extra: Vec<Change>,
    ) -> Result<(), ApiError> {
        let version = next_version(live.version);
        let mut changes = changes(&cell.id, (&live.table, live.version), &table, version);
        changes.extend(extra);
        // (Between people no engine ever moves: nothing to lease.)
        if self.store.is_shared() && !table.people_only() {
            changes.push(engine_turn_change(&cell.id, &table, version));
        }
        self.commit(changes).await?;
        // A search of the position before this change is wasted: stop it.
        if live.thinking
            && let Some(signal) = &live.engine_signal
        {
            signal.stop();
        }
        if applied.ended || applied.reopened {
            self.started_or_ended();
        }
        live.table = table;
        live.version = version;
        live.engine_elsewhere = false;
        if applied.turn_changed {
            live.turn_started = Instant::now();
        }
        Ok(())
    }

    /// Reads the game again from the store, where another server changed it: its table and
    /// version become the stored ones, and a search of the position before is stopped.
    /// Returns whether it had changed.
    ///
    /// # Errors
    /// [`ApiError`] if the store fails or the game is gone.
    pub(super) async fn reload(
        &self,
        cell: &GameCell,
        live: &mut LiveGame,
    ) -> Result<bool, ApiError> {
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

    /// After a change, the game's lock let go: watchers are told (when `plan` is there:
    /// something changed), then the one place that starts what follows: the engine's turn,
    /// the flag's watch, and a rematch's game.
    pub(super) async fn follow(
        self: &Arc<Hub>,
        cell: &Arc<GameCell>,
        plan: Option<Plan>,
        rematch: Option<Prepared>,
    ) {
        if let Some(prepared) = rematch {
            self.open(prepared).await;
        }
        let Some(plan) = plan else {
            return;
        };
        cell.notify();
        self.start(cell, plan);
    }
}
