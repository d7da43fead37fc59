//! How often a client may do a thing: a limit, and the attempts it is judged on.
//!
//! - [`Limit::Rate`]: at most so many within a sliding window (games and challenges made,
//!   registrations, failed logins from one address);
//! - [`Limit::Backoff`]: a few free tries, then a wait after each that doubles (failed
//!   logins for one name from one address: the owner, elsewhere, is never locked out by
//!   someone else's guesses, and a guesser gets fewer tries an hour the longer they go).
//!
//! The attempts are counted here ([`RateLimiter`]), or on a shared database by every server
//! (the store's `attempts`): both give [`Attempts`], judged the same way.

use std::{
    collections::{HashMap, VecDeque},
    net::IpAddr,
    sync::Mutex,
    time::Duration,
};

use super::{client::Client, error::ApiError, game::now_ms, store::Attempts};

/// The longest window a limit counts in: the limiter forgets events older than this.
pub const LONGEST_WINDOW: Duration = Duration::from_secs(15 * 60);

/// Keys the limiter remembers at most: beyond, the oldest are forgotten.
const KEYS: usize = 100_000;

/// What a client may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// At most `events` within `per`.
    Rate {
        /// How many.
        events: u64,
        /// Within how long.
        per: Duration,
    },
    /// `free` attempts within `window`, then after each a wait of `first`, doubled for
    /// each one more, up to the window.
    Backoff {
        /// Attempts without a wait.
        free: u64,
        /// The first wait.
        first: Duration,
        /// The window attempts are counted in, and the longest wait.
        window: Duration,
    },
}

impl Limit {
    /// The window attempts are counted in.
    pub fn window(self) -> Duration {
        match self {
            Limit::Rate { per, .. } => per,
            Limit::Backoff { window, .. } => window,
        }
    }

    /// How long to wait, in whole seconds (at least one), before another attempt is
    /// allowed after `attempts` (counted within [`Limit::window`]), at `now`; `None`
    /// when it is allowed now.
    pub fn wait(self, attempts: Attempts, now: i64) -> Option<u64> {
        let window = self.window().as_millis() as i64;
        let until = match self {
            Limit::Rate { events, .. } => {
                if attempts.count < events {
                    return None;
                }
                attempts
                    .oldest
                    .map_or(now + window, |oldest| oldest + window)
            }
            Limit::Backoff { free, first, .. } => {
                if attempts.count < free {
                    return None;
                }
                let doublings = (attempts.count - free).min(32) as u32;
                let wait = (first.as_millis() as i64)
                    .saturating_mul(1_i64 << doublings)
                    .min(window);
                attempts.newest.map_or(now + wait, |newest| newest + wait)
            }
        };
        let left = until - now;
        (left > 0).then(|| (left as u64).div_ceil(1000).max(1))
    }
}

/// Counts attempts per key, in memory (one server's own).
#[derive(Debug, Default)]
pub struct RateLimiter {
    events: Mutex<HashMap<String, VecDeque<i64>>>,
}

impl RateLimiter {
    /// `key`'s attempts since `since`.
    pub fn attempts(&self, key: &str, since: i64) -> Attempts {
        let events = self.events.lock().expect("not poisoned");
        let Some(times) = events.get(key) else {
            return Attempts::default();
        };
        let mut recent = times.iter().copied().filter(|&time| time > since);
        let oldest = recent.next();
        let (count, newest) = recent.fold((u64::from(oldest.is_some()), oldest), |(n, _), t| {
            (n + 1, Some(t))
        });
        Attempts {
            count,
            oldest,
            newest,
        }
    }

    /// Refuses when `limit` allows no attempt for `key` now: the seconds to wait.
    pub fn check(&self, key: &str, limit: Limit) -> Result<(), u64> {
        let now = now_ms();
        let since = now - limit.window().as_millis() as i64;
        match limit.wait(self.attempts(key, since), now) {
            Some(wait) => Err(wait),
            None => Ok(()),
        }
    }

    /// Counts an attempt for `key`, now.
    pub fn record(&self, key: &str) {
        let now = now_ms();
        let forgotten = now - LONGEST_WINDOW.as_millis() as i64;
        let mut events = self.events.lock().expect("not poisoned");
        if events.len() >= KEYS && !events.contains_key(key) {
            events.retain(|_, times| times.back().is_some_and(|&time| time > forgotten));
            if events.len() >= KEYS {
                // Still full of live keys: make room by forgetting the quietest half.
                let mut newest: Vec<i64> = events
                    .values()
                    .filter_map(|times| times.back().copied())
                    .collect();
                newest.sort_unstable();
                let cutoff = newest[newest.len() / 2];
                events.retain(|_, times| times.back().is_some_and(|&time| time > cutoff));
            }
        }
        let times = events.entry(key.to_owned()).or_default();
        while times.front().is_some_and(|&time| time <= forgotten) {
            times.pop_front();
        }
        times.push_back(now);
    }

    /// Forgets `key`'s attempts (a successful login clears its failures).
    pub fn forget(&self, key: &str) {
        self.events.lock().expect("not poisoned").remove(key);
    }
}

/// What a client makes that costs the server (memory, a place in every watcher's lobby,
/// engine time), limited per minute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Making {
    /// A game (`POST /api/games`).
    Game,
    /// A challenge (`POST /api/seeks`).
    Challenge,
}

impl Making {
    fn name(self) -> &'static str {
        match self {
            Making::Game => "games",
            Making::Challenge => "challenges",
        }
    }
}

/// How many of each address's clients the per-address limit allows, at the per-client
/// rate: a classroom behind one address is several people.
const CLIENTS_PER_ADDRESS: u64 = 4;

/// Lets games and challenges be made at `per_minute` per client (a member, or a guest's
/// address), and four times that per address whoever asks (one server's own count).
#[derive(Debug)]
pub struct Admission {
    limiter: RateLimiter,
    per_minute: u64,
}

impl Admission {
    /// `per_minute` of each per client; 0 for no limit.
    pub fn new(per_minute: u64) -> Admission {
        Admission {
            limiter: RateLimiter::default(),
            per_minute,
        }
    }

    /// Counts `making` by `client` from `address`, if allowed.
    ///
    /// # Errors
    /// [`ApiError::TooFast`] with the seconds to wait.
    pub fn admit(&self, making: Making, client: &Client, address: IpAddr) -> Result<(), ApiError> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let per = Duration::from_secs(60);
        let each = Limit::Rate {
            events: self.per_minute,
            per,
        };
        let all = Limit::Rate {
            events: self.per_minute * CLIENTS_PER_ADDRESS,
            per,
        };
        let too_fast = |seconds| ApiError::TooFast(making.name(), seconds);
        let (client_key, address_key) = (
            format!("{} {client}", making.name()),
            format!("{} from {}", making.name(), Client::guest(address)),
        );
        self.limiter.check(&client_key, each).map_err(too_fast)?;
        self.limiter.check(&address_key, all).map_err(too_fast)?;
        self.limiter.record(&client_key);
        if client_key != address_key {
            self.limiter.record(&address_key);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    fn attempts(count: u64, oldest: i64, newest: i64) -> Attempts {
        Attempts {
            count,
            oldest: Some(oldest),
            newest: Some(newest),
        }
    }

    #[test]
    fn a_rate_allows_so_many_then_waits_for_the_oldest_to_leave() {
        let rate = Limit::Rate {
            events: 3,
            per: MINUTE,
        };
        assert_eq!(rate.wait(attempts(2, 0, 10_000), 20_000), None);
        assert_eq!(rate.wait(attempts(3, 0, 10_000), 20_000), Some(40));
        assert_eq!(rate.wait(attempts(3, 0, 10_000), 59_999), Some(1));
        assert_eq!(rate.wait(attempts(3, 0, 10_000), 60_000), None);
    }

    #[test]
    fn a_backoff_doubles_its_wait_up_to_its_window() {
        let backoff = Limit::Backoff {
            free: 3,
            first: Duration::from_secs(2),
            window: MINUTE,
        };
        assert_eq!(backoff.wait(attempts(2, 0, 5_000), 5_000), None);
        assert_eq!(backoff.wait(attempts(3, 0, 5_000), 5_000), Some(2));
        assert_eq!(backoff.wait(attempts(4, 0, 5_000), 5_000), Some(4));
        assert_eq!(backoff.wait(attempts(5, 0, 5_000), 6_000), Some(7));
        assert_eq!(backoff.wait(attempts(5, 0, 5_000), 13_000), None);
        assert_eq!(backoff.wait(attempts(60, 0, 5_000), 5_000), Some(60));
        assert_eq!(backoff.wait(attempts(1000, 0, 5_000), 5_000), Some(60));
    }

    #[test]
    fn the_limiter_refuses_past_its_limit_and_forgets_on_request() {
        let limiter = RateLimiter::default();
        let rate = Limit::Rate {
            events: 3,
            per: LONGEST_WINDOW,
        };
        for _ in 0..3 {
            limiter.check("k", rate).unwrap();
            limiter.record("k");
        }
        let wait = limiter.check("k", rate).expect_err("a fourth is refused");
        assert!((1..=LONGEST_WINDOW.as_secs()).contains(&wait));
        assert_eq!(limiter.attempts("k", 0).count, 3);
        assert!(limiter.check("other", rate).is_ok());
        limiter.forget("k");
        assert!(limiter.check("k", rate).is_ok());
    }
}
