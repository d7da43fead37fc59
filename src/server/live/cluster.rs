//! Several servers on one database: each game's changes announced and read again, who is
//! connected shared, and engine replies leased, released and taken over.

use std::sync::Arc;

use super::{Hub, PRESENCE_HEARTBEAT, TAKE_OVER_MS, plan::Plan};

impl Hub {
    /// Another server changed the game `id` to `version` (a shared database says so): if
    /// it is in memory and older, it is read again and its watchers told.
    pub async fn refresh(self: &Arc<Hub>, id: &str, version: u64) {
        let Some(cell) = self.games.lock().expect("not poisoned").get(id).cloned() else {
            return;
        };
        let flag: Plan = {
            let mut live = cell.lock().await;
            if live.version >= version {
                return;
            }
            match self.reload(&cell, &mut live).await {
                Ok(true) => Plan::flag(&live),
                Ok(false) => return,
                Err(error) => {
                    eprintln!("othello serve: game {id}: {error}");
                    return;
                }
            }
        };
        self.follow(&cell, Some(flag), None).await;
    }

    /// Every game in memory read again where it changed (after the shared database's
    /// announcements may have been missed).
    pub async fn refresh_all(self: &Arc<Hub>) {
        let ids: Vec<String> = self
            .games
            .lock()
            .expect("not poisoned")
            .keys()
            .cloned()
            .collect();
        for id in ids {
            self.refresh(&id, u64::MAX).await;
            self.publish_presence(&id).await;
            self.refresh_presence(&id).await;
        }
        self.started_or_ended();
    }

    /// On a shared database: publishes who is connected here, as it changes, and keeps
    /// it alive; runs until the hub is dropped.
    pub fn share_presence(self: &Arc<Hub>) {
        let (sender, mut changes) = tokio::sync::mpsc::unbounded_channel::<String>();
        if self.presence_changes.set(sender).is_err() {
            return;
        }
        let hub = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut heartbeat = tokio::time::interval(PRESENCE_HEARTBEAT);
            loop {
                let first = tokio::select! {
                    id = changes.recv() => match id {
                        Some(id) => Some(id),
                        None => return,
                    },
                    _ = heartbeat.tick() => None,
                };
                let Some(hub) = hub.upgrade() else {
                    return;
                };
                let Some(first) = first else {
                    let _ = hub.store.presence_heartbeat(false).await;
                    continue;
                };
                // Each game once, however many came and went meanwhile.
                let mut ids = std::collections::BTreeSet::from([first]);
                while let Ok(id) = changes.try_recv() {
                    ids.insert(id);
                }
                for id in ids {
                    hub.publish_presence(&id).await;
                }
            }
        });
    }

    async fn publish_presence(&self, id: &str) {
        let cell = self.games.lock().expect("not poisoned").get(id).cloned();
        if let Some(cell) = cell {
            let here = cell.presence.here();
            if let Err(error) = self.store.publish_presence(id, &here).await {
                eprintln!("othello serve: game {id}: presence not shared: {error}");
            }
        }
    }

    /// Who is connected to game `id` changed on another server: read it again.
    pub async fn refresh_presence(self: &Arc<Hub>, id: &str) {
        let cell = self.games.lock().expect("not poisoned").get(id).cloned();
        let Some(cell) = cell else {
            return;
        };
        if let Ok(elsewhere) = self.store.presence_elsewhere(id).await {
            cell.presence.set_elsewhere(elsewhere);
            cell.notify();
            // A game between engines goes on while watched anywhere.
            self.advance(&cell);
        }
    }

    /// This server stops: its connections end for the others too.
    pub async fn withdraw_presence(&self) {
        let _ = self.store.presence_heartbeat(true).await;
    }

    /// On a shared database: replies for the engines whose server is gone (their lease ran
    /// out), a few at a time. Returns how many were taken over.
    pub async fn take_over_engine_turns(self: &Arc<Hub>) -> usize {
        let Ok(ids) = self.store.orphaned_engine_turns(16, TAKE_OVER_MS).await else {
            return 0;
        };
        for id in &ids {
            if let Ok(cell) = self.get(id).await {
                self.advance(&cell);
            }
        }
        ids.len()
    }

    /// The server is stopping: its engine replies go to the others at once.
    pub async fn release_engine_turns(&self) {
        let _ = self.store.release_engine_turns().await;
    }
}
