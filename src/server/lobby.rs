//! The lobby: open challenges (seeks) that anyone can post, accept or withdraw, and the
//! games being played and just finished; everything a watcher sees, rebuilt when it
//! changes and pushed over the lobby's live channel.
//!
//! A challenge names its game (rules, board, first mover, win rule, clock, rated or casual,
//! help), the poster's colour (or random), and who may take it: anyone, one member by name,
//! or whoever has its link (not listed). Accepting removes it under the lobby's lock, so of
//! two people accepting at once exactly one gets the game; the other is told it is gone.
//! Challenges are stored: a restart keeps them.

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex},
};

use othello::{ByColor, Color, Setup, Shape, TimeControl, Variant, WinRule, engine::Occupant};
use rand::RngExt;
use tokio::sync::watch;

use super::{
    error::{ApiError, SeekError},
    game::{Created, new_id, now_ms},
    live::Hub,
    store::{Change, Store, StoredMatch, StoredSeek},
    table::ColorChoice,
};
use crate::server::game::{NewGame, NewSeat};

/// The most challenges open at once (beyond, posting is refused until some go).
pub const MAX_SEEKS: usize = 500;

/// The most challenges one person may have open.
pub const MAX_SEEKS_EACH: usize = 3;

/// The most challenges guests may have open from one address (a guest can be many people
/// by making up new secrets).
pub const MAX_GUEST_SEEKS_PER_ADDRESS: usize = 3;

/// Who is behind a challenge or takes one: a member, or a guest with a name and secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Person {
    /// Their name (a member's account name, or what a guest typed).
    pub name: String,
    /// A member's account.
    pub user_id: Option<i64>,
    /// The hash of a guest's secret: it opens the guest's seat, and withdraws the guest's
    /// challenge.
    pub secret_hash: Option<String>,
}

impl Person {
    fn is(&self, other: &Person) -> bool {
        match (self.user_id, other.user_id) {
            (Some(a), Some(b)) => a == b,
            (None, None) => self.secret_hash.is_some() && self.secret_hash == other.secret_hash,
            _ => false,
        }
    }

    fn seat(&self) -> NewSeat {
        NewSeat {
            name: Some(self.name.clone()),
            user_id: self.user_id,
            secret_hash: self.secret_hash.clone(),
            ..NewSeat::new(Occupant::Human, 0)
        }
    }
}

/// A challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seek {
    /// Its id.
    pub id: String,
    /// Who posted it.
    pub poster: Person,
    /// The rule set.
    pub variant: Variant,
    /// The board.
    pub shape: Shape,
    /// Who moves first.
    pub first: Color,
    /// Who wins.
    pub win: WinRule,
    /// The poster's colour.
    pub color: ColorChoice,
    /// The clock, if timed.
    pub clock: Option<TimeControl>,
    /// Whether it is rated (members only, timed).
    pub rated: bool,
    /// Whether the players get the engine's help (casual games only).
    pub help: bool,
    /// The only member who may accept it (by name, any case).
    pub to: Option<String>,
    /// Not listed: for whoever has its link.
    pub private: bool,
    /// When it was posted.
    pub created_at: i64,
    /// Where it was posted from (posted on this server; not stored).
    pub address: Option<std::net::IpAddr>,
}

impl Seek {
    /// Whether only members may post or accept it: rated, or days a move (a
    /// correspondence game is found again in one's list of games to move in).
    pub fn members_only(&self) -> bool {
        self.rated || self.clock.is_some_and(|clock| clock.per_move)
    }

    /// Whether `viewer` sees it in the lobby: a listed challenge, or one posted by them or
    /// to them.
    pub fn visible_to(&self, viewer: &Viewer) -> bool {
        if viewer.is_poster(self) {
            return true;
        }
        if self.private {
            return false;
        }
        match &self.to {
            None => true,
            Some(name) => viewer
                .member_name
                .as_deref()
                .is_some_and(|member| member.eq_ignore_ascii_case(name)),
        }
    }

    fn stored(&self) -> StoredSeek {
        StoredSeek {
            id: self.id.clone(),
            poster_name: self.poster.name.clone(),
            poster_user: self.poster.user_id,
            poster_secret: self.poster.secret_hash.clone(),
            rules: self.variant,
            shape: self.shape,
            first: self.first,
            win: self.win,
            color: self.color,
            clock: self.clock,
            rated: self.rated,
            help: self.help,
            to_name: self.to.clone(),
            private: self.private,
            created_at: self.created_at,
        }
    }

    fn revive(stored: StoredSeek) -> Seek {
        Seek {
            poster: Person {
                name: stored.poster_name,
                user_id: stored.poster_user,
                secret_hash: stored.poster_secret,
            },
            variant: stored.rules,
            shape: stored.shape,
            first: stored.first,
            win: stored.win,
            color: stored.color,
            clock: stored.clock,
            rated: stored.rated,
            help: stored.help,
            to: stored.to_name,
            private: stored.private,
            created_at: stored.created_at,
            address: None,
            id: stored.id,
        }
    }
}

/// Who looks at the lobby: a member, and the guest secrets' hashes a page holds.
#[derive(Clone, Debug, Default)]
pub struct Viewer {
    /// A member's account.
    pub member: Option<i64>,
    /// Their name.
    pub member_name: Option<String>,
    /// Hashes of guest secrets (a guest's own challenges).
    pub secret_hashes: Vec<String>,
}

impl Viewer {
    /// Whether `seek` is this viewer's own.
    pub fn is_poster(&self, seek: &Seek) -> bool {
        self.is(seek.poster.user_id, seek.poster.secret_hash.as_deref())
    }

    /// Whether the viewer is the member `user_id`, or else holds the guest secret of
    /// hash `secret_hash`.
    fn is(&self, user_id: Option<i64>, secret_hash: Option<&str>) -> bool {
        match user_id {
            Some(id) => self.member == Some(id),
            None => secret_hash.is_some_and(|hash| self.secret_hashes.iter().any(|h| h == hash)),
        }
    }
}

/// The open challenges, and what watchers need to know when they change.
#[derive(Debug)]
pub struct Lobby {
    store: Store,
    seeks: Mutex<BTreeMap<String, Seek>>,
    /// Bumped at every change this server makes to `seeks`: a reload that read the store
    /// before one reads it again rather than undo it.
    edits: std::sync::atomic::AtomicU64,
    /// Challenges being taken or withdrawn here, their commit under way: a reload leaves
    /// them out.
    leaving: Mutex<std::collections::BTreeSet<String>>,
    /// Challenges accepted lately, seek id to game id: the poster's page learns its game.
    matched: Mutex<Vec<StoredMatch>>,
    changed: watch::Sender<u64>,
}

/// How long an accepted challenge's game is pointed out to its poster.
const MATCHED_FOR_MS: i64 = 10 * 60 * 1000;

impl Lobby {
    /// The lobby on `store`, with the challenges it keeps.
    ///
    /// # Errors
    /// [`ApiError::Storage`] if they cannot be read.
    pub async fn open(store: Store) -> Result<Lobby, ApiError> {
        let stored = store.seeks().await?;
        let seeks = stored
            .into_iter()
            .map(Seek::revive)
            .map(|seek| (seek.id.clone(), seek))
            .collect();
        Ok(Lobby {
            store,
            seeks: Mutex::new(seeks),
            edits: std::sync::atomic::AtomicU64::new(0),
            leaving: Mutex::default(),
            matched: Mutex::new(Vec::new()),
            changed: watch::Sender::new(0),
        })
    }

    /// Reads the challenges again (another server posted, took or withdrew one).
    ///
    /// # Errors
    /// [`ApiError::Storage`] if they cannot be read.
    pub async fn reload(&self) -> Result<(), ApiError> {
        use std::sync::atomic::Ordering;
        let mut tries = 0;
        loop {
            let before = self.edits.load(Ordering::SeqCst);
            let stored = self.store.seeks().await?;
            let mut seeks = self.seeks.lock().expect("not poisoned");
            // Changed here while the store was read: read again (a few times at most: a
            // busy lobby's next announcement reloads it anyway).
            if self.edits.load(Ordering::SeqCst) != before && tries < 3 {
                tries += 1;
                continue;
            }
            let leaving = self.leaving.lock().expect("not poisoned");
            *seeks = stored
                .into_iter()
                .map(Seek::revive)
                .filter(|seek| !leaving.contains(&seek.id))
                .map(|seek| (seek.id.clone(), seek))
                .collect();
            break;
        }
        let matched = self.store.matches_since(now_ms() - MATCHED_FOR_MS).await?;
        {
            let mut known = self.matched.lock().expect("not poisoned");
            for new in matched {
                if !known.iter().any(|old| old.seek_id == new.seek_id) {
                    known.push(new);
                }
            }
        }
        self.notify();
        Ok(())
    }

    /// Changes the challenges here (see `edits`).
    fn edit(&self, change: impl FnOnce(&mut BTreeMap<String, Seek>)) {
        let mut seeks = self.seeks.lock().expect("not poisoned");
        change(&mut seeks);
        self.edits.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// A receiver that wakes when a challenge comes or goes.
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    fn notify(&self) {
        self.changed.send_modify(|count| *count += 1);
    }

    /// The challenges `viewer` sees, oldest first.
    pub fn seeks_for(&self, viewer: &Viewer) -> Vec<Seek> {
        let mut seeks: Vec<Seek> = self
            .seeks
            .lock()
            .expect("not poisoned")
            .values()
            .filter(|seek| seek.visible_to(viewer))
            .cloned()
            .collect();
        seeks.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        seeks
    }

    /// The challenge `id`, for its link.
    pub async fn seek(&self, id: &str) -> Option<Seek> {
        self.catch_up(id).await;
        self.seeks.lock().expect("not poisoned").get(id).cloned()
    }

    /// On a shared database, a challenge this server has not heard of yet (posted on
    /// another a moment ago, its announcement on its way) is read from the store.
    async fn catch_up(&self, id: &str) {
        let could_be = id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit());
        if could_be
            && self.store.is_shared()
            && !self.seeks.lock().expect("not poisoned").contains_key(id)
        {
            let _ = self.reload().await;
        }
    }

    /// Games made lately from `viewer`'s challenges: (seek id, game id).
    pub fn matched_for(&self, viewer: &Viewer) -> Vec<(String, String)> {
        let cutoff = now_ms() - MATCHED_FOR_MS;
        let mut matched = self.matched.lock().expect("not poisoned");
        matched.retain(|matched| matched.at > cutoff);
        matched
            .iter()
            .filter(|matched| viewer.is(matched.poster_user, matched.poster_secret.as_deref()))
            .map(|matched| (matched.seek_id.clone(), matched.game_id.clone()))
            .collect()
    }

    /// Whether challenge `id` was taken lately (it became a game).
    pub fn was_taken(&self, id: &str) -> bool {
        self.matched
            .lock()
            .expect("not poisoned")
            .iter()
            .any(|matched| matched.seek_id == id)
    }

    /// Posts `seek` (its id and time are made here) and returns it.
    ///
    /// # Errors
    /// [`SeekError::MembersOnly`] for a rated one from a guest, [`SeekError::TooMany`];
    /// [`ApiError::Storage`].
    pub async fn post(&self, mut seek: Seek) -> Result<Seek, ApiError> {
        if seek.members_only() && seek.poster.user_id.is_none() {
            return Err(SeekError::MembersOnly.into());
        }
        seek.id = new_id();
        seek.created_at = now_ms();
        {
            let seeks = self.seeks.lock().expect("not poisoned");
            if seeks.len() >= MAX_SEEKS {
                return Err(SeekError::TooMany("try again later".into()).into());
            }
            let own = seeks
                .values()
                .filter(|open| open.poster.is(&seek.poster))
                .count();
            if own >= MAX_SEEKS_EACH {
                return Err(
                    SeekError::TooMany(format!("you have {own}: withdraw one first")).into(),
                );
            }
            if seek.poster.user_id.is_none() && seek.address.is_some() {
                let here = seeks
                    .values()
                    .filter(|open| open.poster.user_id.is_none() && open.address == seek.address)
                    .count();
                if here >= MAX_GUEST_SEEKS_PER_ADDRESS {
                    return Err(SeekError::TooMany(format!(
                        "guests here have {here} open: withdraw one, or log in"
                    ))
                    .into());
                }
            }
        }
        self.store
            .commit(vec![Change::NewSeek(seek.stored())])
            .await?;
        self.edit(|seeks| {
            seeks.insert(seek.id.clone(), seek.clone());
        });
        self.notify();
        Ok(seek)
    }

    /// Takes challenge `id` out of the lobby if `check` allows, marked as leaving until its
    /// end is committed (a reload meanwhile does not bring it back).
    ///
    /// # Errors
    /// [`SeekError::Gone`], or `check`'s refusal.
    fn take(
        &self,
        id: &str,
        check: impl FnOnce(&Seek) -> Result<(), ApiError>,
    ) -> Result<Seek, ApiError> {
        let mut seeks = self.seeks.lock().expect("not poisoned");
        check(seeks.get(id).ok_or(SeekError::Gone)?)?;
        self.leaving
            .lock()
            .expect("not poisoned")
            .insert(id.to_owned());
        self.edits.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(seeks.remove(id).expect("just seen"))
    }

    /// Withdraws `id`, if `person` posted it.
    ///
    /// # Errors
    /// [`SeekError::Gone`], [`SeekError::NotYours`]; [`ApiError::Storage`].
    pub async fn withdraw(&self, id: &str, person: &Person) -> Result<(), ApiError> {
        self.end(id, |seek| {
            if !seek.poster.is(person) {
                return Err(SeekError::NotYours.into());
            }
            Ok(())
        })
        .await
    }

    /// Ends challenge `id` without a game, if `check` allows.
    async fn end(
        &self,
        id: &str,
        check: impl FnOnce(&Seek) -> Result<(), ApiError>,
    ) -> Result<(), ApiError> {
        self.catch_up(id).await;
        let seek = self.take(id, check)?;
        let committed = self
            .store
            .commit(vec![Change::EndSeek { id: id.to_owned() }])
            .await;
        self.edit(|seeks| {
            if committed.is_err() {
                // Not withdrawn after all.
                seeks.insert(seek.id.clone(), seek);
            }
        });
        self.leaving.lock().expect("not poisoned").remove(id);
        committed?;
        self.notify();
        Ok(())
    }

    /// The member named `name` declines challenge `id`, which was addressed to them.
    ///
    /// # Errors
    /// [`SeekError::Gone`], [`SeekError::NotForYou`] for one not addressed to them;
    /// [`ApiError::Storage`].
    pub async fn decline(&self, id: &str, name: &str) -> Result<(), ApiError> {
        self.end(id, |seek| match &seek.to {
            Some(to) if to.eq_ignore_ascii_case(name) => Ok(()),
            Some(to) => Err(SeekError::NotForYou(to.clone()).into()),
            None => Err(ApiError::Forbidden(
                "only a challenge addressed to one is declined: this one is open to all".into(),
            )),
        })
        .await
    }

    /// `taker` accepts `id`: the challenge is taken off the lobby at once (a second taker
    /// finds it gone) and its game created.
    ///
    /// # Errors
    /// [`SeekError`] when it cannot be taken; [`ApiError::Storage`].
    pub async fn accept(
        &self,
        hub: &Arc<Hub>,
        id: &str,
        taker: Person,
    ) -> Result<Created, ApiError> {
        self.catch_up(id).await;
        let seek = self.take(id, |seek| {
            if seek.poster.is(&taker) {
                return Err(SeekError::Own.into());
            }
            if seek.members_only() && taker.user_id.is_none() {
                return Err(SeekError::MembersOnly.into());
            }
            if let Some(to) = &seek.to
                && (taker.user_id.is_none() || !taker.name.eq_ignore_ascii_case(to))
            {
                return Err(SeekError::NotForYou(to.clone()).into());
            }
            Ok(())
        })?;
        let started = self.start_game(hub, &seek, taker).await;
        if started.is_ok() {
            self.edit(|_| {});
        }
        self.leaving.lock().expect("not poisoned").remove(id);
        match started {
            Ok(created) => {
                let matched = StoredMatch {
                    seek_id: seek.id.clone(),
                    game_id: created.cell.id.clone(),
                    poster_user: seek.poster.user_id,
                    poster_secret: seek.poster.secret_hash.clone(),
                    at: now_ms(),
                };
                if self.store.is_shared() {
                    // The poster's page may be on another server.
                    if let Err(error) = self
                        .store
                        .commit(vec![Change::Matched(matched.clone())])
                        .await
                    {
                        eprintln!("othello serve: challenge {}: {error}", matched.seek_id);
                    }
                }
                self.matched.lock().expect("not poisoned").push(matched);
                self.notify();
                Ok(created)
            }
            Err(error) => {
                // Back in the lobby: nobody got a game.
                self.edit(|seeks| {
                    seeks.insert(seek.id.clone(), seek);
                });
                Err(error)
            }
        }
    }

    async fn start_game(
        &self,
        hub: &Arc<Hub>,
        seek: &Seek,
        taker: Person,
    ) -> Result<Created, ApiError> {
        self.store
            .commit(vec![Change::EndSeek {
                id: seek.id.clone(),
            }])
            .await?;
        let poster_color = match seek.color {
            ColorChoice::Is(color) => color,
            ColorChoice::Random => {
                if rand::rng().random::<bool>() {
                    Color::Black
                } else {
                    Color::White
                }
            }
        };
        let mut seats = ByColor::new(taker.seat(), taker.seat());
        seats[poster_color] = seek.poster.seat();
        let mut setup = Setup::standard(seek.shape);
        setup.first_mover = seek.first;
        setup.win_rule = seek.win;
        let created = hub
            .create(NewGame {
                variant: seek.variant,
                setup,
                moves: Vec::new(),
                seats: seats.into_array(),
                speed_ms: 0,
                help: seek.help && !seek.rated,
                clock: seek.clock,
                rated: seek.rated,
                // Two people: no engine work.
                client: None,
            })
            .await;
        if created.is_err() {
            // Stored again, as it is back in the lobby.
            let _ = self
                .store
                .commit(vec![Change::NewSeek(seek.stored())])
                .await;
        }
        created
    }
}
