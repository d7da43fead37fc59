//! A timed game's flag: watched from when it is planned, and applied ([`Action::Flag`])
//! when it falls, unless the game changed meanwhile (a change plans its own).

use std::{sync::Arc, time::Duration};

use super::{
    super::{
        game::{GameCell, now_ms},
        table::Action,
    },
    Hub,
    plan::{Plan, PlannedFlag},
};

/// How long a flag whose ending could not be stored waits before it is tried again.
const FLAG_RETRY: Duration = Duration::from_secs(3);

/// The most games one look for due flags brings into memory.
const DUE_AT_ONCE: usize = 500;

impl Hub {
    /// Brings into memory the games being played whose flag falls within `ahead` (their
    /// flags are watched from then on): games nobody has opened since this server
    /// started, such as a days-a-move game both players are away from, still end on
    /// time. On a shared database every server looks; the game's version check lets
    /// one ending through.
    pub async fn watch_due(self: &Arc<Hub>, ahead: Duration) {
        let before = now_ms() + ahead.as_millis() as i64;
        let ids = match self.store().due(before, DUE_AT_ONCE).await {
            Ok(ids) => ids,
            Err(error) => {
                eprintln!("othello serve: looking for games due on time: {error}");
                return;
            }
        };
        for id in ids {
            if let Err(error) = self.get(&id).await {
                eprintln!("othello serve: game {id}: {error}");
            }
        }
    }

    /// Ends the game on time when the flag planned at its version falls, if nothing changed
    /// the game meanwhile.
    pub(super) fn watch_flag(self: &Arc<Hub>, cell: &Arc<GameCell>, flag: Option<PlannedFlag>) {
        let Some(PlannedFlag { version, at }) = flag else {
            return;
        };
        let hub = Arc::clone(self);
        let cell = Arc::clone(cell);
        tokio::spawn(async move {
            let wait = u64::try_from(at - now_ms()).unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(wait)).await;
            let stakes = match hub.stakes(&cell).await {
                Ok(stakes) => stakes,
                Err(error) => {
                    hub.retry_flag(&cell, version, &error);
                    return;
                }
            };
            let (_ratings, stakes) = stakes;
            let mut live = cell.lock().await;
            if live.version != version {
                return;
            }
            let settled = hub
                .settle(&cell, &mut live, None, Action::Flag, stakes)
                .await;
            let plan = match (&settled.result, settled.touched) {
                (_, true) => Some(Plan::of(&cell, &mut live)),
                // Woken a little early, nothing changed: the rest is waited for.
                (Ok(_), false) => {
                    let flag = Plan::flag(&live).flag;
                    drop(live);
                    hub.watch_flag(&cell, flag);
                    return;
                }
                // The ending could not be stored (the database fails): tried again a
                // little later, so that the game ends once the database is back, whoever
                // asks.
                (Err(error), false) => {
                    drop(live);
                    hub.retry_flag(&cell, version, error);
                    return;
                }
            };
            drop(live);
            drop(_ratings);
            if let Err(error) = &settled.result {
                eprintln!("othello serve: game {}: {error}", cell.id);
            }
            hub.follow(&cell, plan, None).await;
        });
    }

    /// The flag planned at `version` could not end the game (`error`: the database fails):
    /// it is tried again a little later.
    fn retry_flag(
        self: &Arc<Hub>,
        cell: &Arc<GameCell>,
        version: u64,
        error: &dyn std::fmt::Display,
    ) {
        eprintln!(
            "othello serve: game {}: its flag: {error}; trying again in {} s",
            cell.id,
            FLAG_RETRY.as_secs()
        );
        let at = now_ms() + FLAG_RETRY.as_millis() as i64;
        self.watch_flag(cell, Some(PlannedFlag { version, at }));
    }
}
