//! What follows a change, decided under the game's lock and started after it: the engine's
//! turn to search, the flag to watch, and on a shared database the engine reply's lease.

use std::{sync::Arc, time::Duration};

use othello::{AnyGame, Color, engine::Signal};

use super::{
    super::{
        client::Client,
        engine_pool::Lane,
        game::{GameCell, LiveGame, now_ms},
        store::Change,
        table::{EngineTurn, Table},
    },
    LEASE_SLACK_MS,
};

/// What a change leaves to start once the game's lock is let go.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// The engine's move to search.
    pub job: Option<EngineJob>,
    /// The flag to watch.
    pub flag: Option<PlannedFlag>,
}

impl Plan {
    /// What `live` (in `cell`) has next: an engine's turn (marked as thinking) and its flag.
    pub fn of(cell: &GameCell, live: &mut LiveGame) -> Plan {
        Plan {
            job: plan_engine_turn(cell, live),
            flag: plan_flag(live),
        }
    }

    /// Only the flag (nothing else changed).
    pub fn flag(live: &LiveGame) -> Plan {
        Plan {
            job: None,
            flag: plan_flag(live),
        }
    }
}

/// When a timed game's flag falls, unless it changes before.
#[derive(Clone, Copy, Debug)]
pub(super) struct PlannedFlag {
    /// The game's version then.
    pub version: u64,
    /// When, in milliseconds since the Unix epoch.
    pub at: i64,
}

fn plan_flag(live: &LiveGame) -> Option<PlannedFlag> {
    Some(PlannedFlag {
        version: live.version,
        at: live.table.flag_at()?,
    })
}

/// An engine move about to be searched.
#[derive(Debug)]
pub(super) struct EngineJob {
    pub game: AnyGame,
    pub turn: EngineTurn,
    /// The game's version it was planned at: a result for another one is dropped.
    pub version: u64,
    /// Games between engines: the pause before it.
    pub delay: Duration,
    pub seed: u64,
    pub signal: Arc<Signal>,
    /// Games between engines give way to people's.
    pub lane: Lane,
    /// Whose lane in the pool.
    pub client: Client,
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
        client: live.client.clone().unwrap_or_else(|| {
            // Read back from the database and not played since: a member seated in it,
            // else a lane of its own.
            [Color::Black, Color::White]
                .into_iter()
                .find_map(|color| table.seats[color].user_id)
                .map_or_else(|| Client::Game(cell.id.clone()), Client::Member)
        }),
    })
}

/// The lane of engine work for a game: a game between engines gives way to people.
pub(super) fn lane(table: &Table) -> Lane {
    if table.engines_only() {
        Lane::Engines
    } else {
        Lane::People
    }
}

/// The engine reply `table` leaves due at `version` (or none), as a shared database
/// leases it.
pub(super) fn engine_turn_change(id: &str, table: &Table, version: u64) -> Change {
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
