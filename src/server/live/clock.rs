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

impl Hub {
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
                    eprintln!("othello serve: game {}: {error}", cell.id);
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
                // Not again and again: the game waits for the next request.
                (Err(_), false) => None,
            };
            drop(live);
            drop(_ratings);
            if let Err(error) = &settled.result {
                eprintln!("othello serve: game {}: {error}", cell.id);
            }
            hub.follow(&cell, plan, None).await;
        });
    }
}
