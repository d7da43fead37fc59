//! Engine turns: planned under the game's lock ([`Plan`]), searched on the engine pool,
//! played through the act path ([`Action::EngineMove`]) if the game is still where it was.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use othello::{
    AnyGame, Color, Square,
    engine::{Limits, PlayerSpec, Signal, new_player},
    on_rules,
};

use super::{
    super::{
        error::ApiError,
        game::{Attendance, GameCell},
        table::{Action, TableError},
    },
    Hub, LEASE_SLACK_MS,
    plan::{EngineJob, Plan},
};

/// How long past its time an engine's search is stopped from outside, should it not stop.
const ENGINE_GRACE: Duration = Duration::from_secs(1);

impl Hub {
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
                Plan::of(&cell, &mut live).job
            };
            if let Some(job) = job {
                hub.engine_turn(cell, job).await;
            }
        });
    }

    /// Starts `job` (planned under the game's lock, see [`Plan::of`]).
    pub(super) fn launch(self: &Arc<Hub>, cell: &Arc<GameCell>, job: Option<EngineJob>) {
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
            let replan = {
                let mut live = cell.lock().await;
                let ours = live
                    .engine_signal
                    .as_ref()
                    .is_some_and(|current| Arc::ptr_eq(current, &signal));
                if live.version == version {
                    live.thinking = false;
                    live.engine_signal = None;
                    live.engine_elsewhere = matches!(claimed, Ok(false));
                    false
                } else if ours {
                    // The game changed before the claim (a pause, then a step): the claim
                    // was for a version gone, and this turn is still marked as thinking,
                    // which would hold back every turn after it. Plan the turn anew.
                    live.thinking = false;
                    live.engine_signal = None;
                    true
                } else {
                    false
                }
            };
            if replan {
                self.advance(&cell);
            }
            return;
        }
        // Watchers see that the engine is thinking.
        cell.notify();
        pause(delay, &signal).await;
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
        // A change during the pause (a step, a new pace, an undo) stopped it: no search for
        // the position it was planned for; the game's next turn is planned anew below.
        let chosen = if signal.is_stopped() {
            None
        } else {
            self.pool
                .run(lane, client, move || {
                    let _ = started.send(());
                    engine_move(&game, turn.spec, time, seed, signal)
                })
                .await
                .flatten()
        };
        watchdog.abort();
        let settled = {
            let mut live = cell.lock().await;
            live.thinking = false;
            live.engine_signal = None;
            let table = &live.table;
            let wanted = !table.engines_only() || !table.paused || table.step;
            let settled = match chosen {
                // Still the position it searched (no undo, no pause meanwhile).
                Some(square) if live.version == version && wanted => {
                    // Its thinking is the search's, from when it started.
                    live.turn_started = start;
                    let action = Action::EngineMove(square);
                    Some(self.settle(&cell, &mut live, None, action, None).await)
                }
                _ => None,
            };
            settled.map(|settled| (Plan::of(&cell, &mut live), settled.result))
        };
        let Some((plan, result)) = settled else {
            cell.notify();
            // Another try at a position that changed meanwhile.
            self.advance(&cell);
            return;
        };
        match result {
            // Its time ran out first: the game is lost on time, and stored.
            Ok(_) | Err(ApiError::Rule(TableError::OutOfTime(_) | TableError::NoFirstMove(_))) => {
                self.follow(&cell, Some(plan), None).await;
            }
            // Not again and again: the game waits for the next request.
            Err(error) => {
                cell.notify();
                eprintln!(
                    "othello serve: game {}: the engine's move: {error}",
                    cell.id
                );
            }
        }
    }
}

/// Waits the pause between two moves of a game between engines, cut short when `signal`
/// stops (the game changed: a step asked for, a new pace).
async fn pause(delay: Duration, signal: &Signal) {
    const SLICE: Duration = Duration::from_millis(50);
    let start = Instant::now();
    while !signal.is_stopped() {
        let left = delay.saturating_sub(start.elapsed());
        if left.is_zero() {
            return;
        }
        tokio::time::sleep(left.min(SLICE)).await;
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
    on_rules!(game = game, |game, R| {
        let mut player = new_player::<R>(spec, seed, None);
        player.watch(signal);
        player.choose(game, &Limits::time(time), &mut |_| {})
    })
}
