//! Accounts, for people who want a name that stays theirs, a rating and a page of their
//! games (playing as a guest needs none): registration, login and logout, sessions.
//!
//! - Passwords are kept as Argon2id hashes (the `argon2` crate's defaults), hashed and
//!   checked on blocking threads.
//! - A session is a random token in an `HttpOnly`, `SameSite=Lax` cookie; the database
//!   keeps only its hash, with a CSRF token that the page sends with every change it asks
//!   for (`X-CSRF-Token`), so another site cannot act with the cookie.
//! - A failed login says only "wrong name or password", and takes as long whether the name
//!   exists or not (an unknown name is checked against a hash all the same): nobody learns
//!   which names exist from it.
//! - Failed logins are limited per name and address together, with a wait that doubles
//!   after a few (so someone guessing from one address cannot lock the owner out of their
//!   account elsewhere), and per address; registrations per address (see
//!   [`super::limits`]).

use std::{
    collections::HashMap,
    net::IpAddr,
    sync::{Mutex, OnceLock},
    time::Duration,
};

use argon2::{
    Argon2,
    password_hash::{PasswordHasher, PasswordVerifier, phc::PasswordHash},
};

use super::{
    error::ApiError,
    game::{hash_secret, new_secret, now_ms},
    limits::{LONGEST_WINDOW, Limit, RateLimiter},
    store::{Change, Store, StoredSession, StoredUser},
};

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "othello_session";

/// Names: 3 to 20 letters, digits, `_` or `-`.
const NAME_CHARS: std::ops::RangeInclusive<usize> = 3..=20;

/// Passwords: 8 to 128 characters.
const PASSWORD_CHARS: std::ops::RangeInclusive<usize> = 8..=128;

/// Failed logins for one name from one address: three free, then a wait of 2 s after
/// each, doubling, up to 15 minutes.
pub const LOGIN_FAILURES_PER_NAME: Limit = Limit::Backoff {
    free: 3,
    first: Duration::from_secs(2),
    window: LONGEST_WINDOW,
};

/// Failed logins from one address, whatever the names.
pub const LOGIN_FAILURES_PER_ADDRESS: Limit = Limit::Rate {
    events: 20,
    per: LONGEST_WINDOW,
};

/// Sessions kept in memory at most before the expired ones are dropped.
const SESSIONS_KEPT: usize = 100_000;

/// Registrations from one address.
pub const REGISTRATIONS_PER_ADDRESS: Limit = Limit::Rate {
    events: 10,
    per: LONGEST_WINDOW,
};

/// A person logged in, as a request knows them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The account's id.
    pub id: i64,
    /// The account's name.
    pub name: String,
    /// The session's CSRF token.
    pub csrf: String,
    /// A bot account (see [`Accounts::make_bot`]).
    pub bot: bool,
}

/// What an API token starts with: a bearer secret that names an account rather than a
/// seat (see [`Accounts::open_token`]).
pub const TOKEN_PREFIX: &str = "oat_";

/// How long an API token lasts.
pub const TOKEN_TTL: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// A session found by its cookie, with when it ends.
#[derive(Clone, Debug)]
struct Cached {
    member: Member,
    expires_at: i64,
}

/// Registration, login, logout and sessions, on the store.
#[derive(Debug)]
pub struct Accounts {
    store: Store,
    /// Sessions by the hash of their token, as read (a request needs no database read).
    sessions: Mutex<HashMap<String, Cached>>,
    limiter: RateLimiter,
    ttl: Duration,
}

impl Accounts {
    /// Accounts on `store`, sessions lasting `ttl`.
    pub fn new(store: Store, ttl: Duration) -> Accounts {
        Accounts {
            store,
            sessions: Mutex::new(HashMap::new()),
            limiter: RateLimiter::default(),
            ttl,
        }
    }

    /// Makes an account and logs it in: the member and the session's token (for the
    /// cookie).
    ///
    /// # Errors
    /// [`ApiError::BadRequest`] for a name or password out of bounds,
    /// [`ApiError::NameTaken`], [`ApiError::TooManyAttempts`] past the registrations an
    /// address may make, [`ApiError::Storage`].
    pub async fn register(
        &self,
        name: &str,
        password: &str,
        peer: IpAddr,
    ) -> Result<(Member, String), ApiError> {
        check_name(name)?;
        // Names are one account whatever their case: `Greedy` is `greedy`'s too.
        if name
            .to_ascii_lowercase()
            .parse::<othello::engine::Occupant>()
            .is_ok()
        {
            // `greedy`, `human`: a computer player's (or no one's) name.
            return Err(ApiError::NameTaken(name.to_owned()));
        }
        check_password(password)?;
        let key = format!("register {peer}");
        self.check_limit(&key, REGISTRATIONS_PER_ADDRESS).await?;
        self.record_attempt(&key).await?;
        let password = password.to_owned();
        let password_hash = tokio::task::spawn_blocking(move || hash_password(&password))
            .await
            .map_err(|_| ApiError::Storage("the password could not be hashed".into()))?;
        let user = StoredUser {
            id: 0,
            name: name.to_owned(),
            password_hash,
            created_at: now_ms(),
            bot: false,
        };
        self.store.commit(vec![Change::NewUser(user)]).await?;
        let user = self
            .read_user(name)
            .await?
            .ok_or_else(|| ApiError::Storage("the account was stored but cannot be read".into()))?;
        self.open_session(user, "", self.ttl).await
    }

    /// Logs in: the member and the session's token.
    ///
    /// # Errors
    /// [`ApiError::WrongLogin`] (whether the name exists or not),
    /// [`ApiError::TooManyAttempts`] after too many failures for the name from the
    /// address, or from the address, [`ApiError::Storage`].
    pub async fn login(
        &self,
        name: &str,
        password: &str,
        peer: IpAddr,
    ) -> Result<(Member, String), ApiError> {
        let name_key = format!("name {} from {peer}", name.to_lowercase());
        let address_key = format!("address {peer}");
        self.check_limit(&name_key, LOGIN_FAILURES_PER_NAME).await?;
        self.check_limit(&address_key, LOGIN_FAILURES_PER_ADDRESS)
            .await?;
        let user = if password.chars().count() <= *PASSWORD_CHARS.end() {
            self.read_user(name).await?
        } else {
            None
        };
        let hash = user.as_ref().map_or_else(
            || dummy_hash().to_owned(),
            |user| user.password_hash.clone(),
        );
        let password = password.to_owned();
        let verified = tokio::task::spawn_blocking(move || verify_password(&password, &hash))
            .await
            .unwrap_or(false);
        match user {
            Some(user) if verified => {
                self.forget_attempts(&name_key).await?;
                self.open_session(user, "", self.ttl).await
            }
            _ => {
                self.record_attempt(&name_key).await?;
                self.record_attempt(&address_key).await?;
                Err(ApiError::WrongLogin)
            }
        }
    }

    /// Refuses when `limit` allows `key` no attempt now: its attempts counted here, or on
    /// a shared database by every server (else each would allow as many).
    async fn check_limit(&self, key: &str, limit: Limit) -> Result<(), ApiError> {
        let now = now_ms();
        let since = now - limit.window().as_millis() as i64;
        let attempts = if self.store.is_shared() {
            self.store.attempts(key, since).await?
        } else {
            self.limiter.attempts(key, since)
        };
        match limit.wait(attempts, now) {
            Some(seconds) => Err(ApiError::TooManyAttempts(seconds)),
            None => Ok(()),
        }
    }

    /// Counts an attempt for `key`.
    async fn record_attempt(&self, key: &str) -> Result<(), ApiError> {
        if self.store.is_shared() {
            self.store
                .commit(vec![Change::Attempt {
                    key: key.to_owned(),
                    at: now_ms(),
                    window_ms: LONGEST_WINDOW.as_millis() as i64,
                }])
                .await?;
        } else {
            self.limiter.record(key);
        }
        Ok(())
    }

    /// Forgets `key`'s attempts (a successful login clears its name's failures).
    async fn forget_attempts(&self, key: &str) -> Result<(), ApiError> {
        if self.store.is_shared() {
            self.store
                .commit(vec![Change::ForgetAttempts {
                    key: key.to_owned(),
                }])
                .await?;
        } else {
            self.limiter.forget(key);
        }
        Ok(())
    }

    /// Ends the session of `token` (nothing if there is none).
    ///
    /// # Errors
    /// [`ApiError::Storage`].
    pub async fn logout(&self, token: &str) -> Result<(), ApiError> {
        let token_hash = hash_secret(token);
        self.sessions
            .lock()
            .expect("not poisoned")
            .remove(&token_hash);
        self.store
            .commit(vec![Change::EndSession { token_hash }])
            .await
            .map_err(ApiError::from)
    }

    /// Forgets the session whose token hashes to `token_hash` (closed on another server);
    /// `None`: every session (announcements may have been missed): they are read again.
    pub fn forget(&self, token_hash: Option<&str>) {
        let mut sessions = self.sessions.lock().expect("not poisoned");
        match token_hash {
            Some(hash) => {
                sessions.remove(hash);
            }
            None => sessions.clear(),
        }
    }

    /// The member whose session `token` is, if it is open and not expired.
    ///
    /// # Errors
    /// [`ApiError::Storage`].
    pub async fn member(&self, token: &str) -> Result<Option<Member>, ApiError> {
        let token_hash = hash_secret(token);
        let now = now_ms();
        let cached = self
            .sessions
            .lock()
            .expect("not poisoned")
            .get(&token_hash)
            .cloned();
        let cached = match cached {
            Some(cached) => cached,
            None => {
                let key = token_hash.clone();
                let Some((session, user)) = self.store.session(&key).await? else {
                    return Ok(None);
                };
                let cached = Cached {
                    member: Member {
                        id: user.id,
                        name: user.name,
                        csrf: session.csrf,
                        bot: user.bot,
                    },
                    expires_at: session.expires_at,
                };
                let mut sessions = self.sessions.lock().expect("not poisoned");
                if sessions.len() >= SESSIONS_KEPT {
                    sessions.retain(|_, cached| cached.expires_at > now);
                }
                sessions.insert(token_hash.clone(), cached.clone());
                cached
            }
        };
        if cached.expires_at <= now {
            // Expired: forgotten here and in the database.
            self.logout(token).await?;
            return Ok(None);
        }
        Ok(Some(cached.member))
    }

    /// The account named `name` (any case).
    async fn read_user(&self, name: &str) -> Result<Option<StoredUser>, ApiError> {
        let name = name.to_owned();
        self.store.user(&name).await.map_err(ApiError::from)
    }

    /// Logs in for a program: an API token (`oat_...`) that lasts [`TOKEN_TTL`], sent as
    /// `Authorization: Bearer` (no cookie, so no CSRF token either). The same limits as a
    /// login.
    ///
    /// # Errors
    /// As [`Accounts::login`].
    pub async fn open_token(
        &self,
        name: &str,
        password: &str,
        peer: IpAddr,
    ) -> Result<(Member, String), ApiError> {
        let (member, session) = self.login(name, password, peer).await?;
        // The login's own session is not wanted: the token replaces it.
        self.logout(&session).await?;
        let user = self
            .read_user(&member.name)
            .await?
            .ok_or(ApiError::WrongLogin)?;
        self.open_session(user, TOKEN_PREFIX, TOKEN_TTL).await
    }

    /// Makes `member`'s account a bot account, for good: only an account that has played
    /// no game may (its games and rating were a person's).
    ///
    /// # Errors
    /// [`ApiError::HasPlayed`], [`ApiError::Storage`].
    pub async fn make_bot(&self, member: &Member) -> Result<(), ApiError> {
        let made = self
            .store
            .commit(vec![Change::MakeBot { user_id: member.id }])
            .await;
        if let Err(error) = made {
            return Err(match &*error {
                super::store::StoreError::HasPlayed(_) => ApiError::HasPlayed(member.name.clone()),
                _ => ApiError::from(error),
            });
        }
        // Sessions read again, with the mark.
        self.forget(None);
        Ok(())
    }

    async fn open_session(
        &self,
        user: StoredUser,
        prefix: &str,
        ttl: Duration,
    ) -> Result<(Member, String), ApiError> {
        let token = format!("{prefix}{}", new_secret());
        let now = now_ms();
        let session = StoredSession {
            token_hash: hash_secret(&token),
            user_id: user.id,
            csrf: new_secret(),
            created_at: now,
            expires_at: now.saturating_add(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)),
        };
        let member = Member {
            id: user.id,
            name: user.name,
            csrf: session.csrf.clone(),
            bot: user.bot,
        };
        self.store.commit(vec![Change::NewSession(session)]).await?;
        Ok((member, token))
    }

    /// The id of the account that holds computer player `name`'s rating (`engine:7`),
    /// made the first time it plays a rated game. Nobody can log in to it (it has no
    /// password), and no person can take its name (a colon is not allowed in names).
    ///
    /// # Errors
    /// [`ApiError::Storage`].
    pub async fn computer_account(&self, name: &str) -> Result<i64, ApiError> {
        if let Some(user) = self.read_user(name).await? {
            // A member who took the name before such names were refused: their account
            // never holds a computer player's rating.
            if !user.password_hash.is_empty() {
                return Err(ApiError::Storage(format!(
                    "the computer player {name}'s name is a member's account"
                )));
            }
            return Ok(user.id);
        }
        // A game starting at the same time may make it first: then this commit is refused
        // (the name is taken) and both read the same account.
        let _ = self
            .store
            .commit(vec![Change::NewUser(StoredUser {
                id: 0,
                name: name.to_owned(),
                password_hash: String::new(),
                created_at: now_ms(),
                bot: false,
            })])
            .await;
        self.read_user(name)
            .await?
            .map(|user| user.id)
            .ok_or_else(|| ApiError::Storage(format!("the account of {name} cannot be made")))
    }

    /// How long a session lasts.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }
}

/// Refuses a name that is not 3 to 20 letters, digits, `_` or `-`.
///
/// # Errors
/// [`ApiError::BadRequest`] saying what a name may be.
pub fn check_name(name: &str) -> Result<(), ApiError> {
    let fits = NAME_CHARS.contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    within(fits, "a name", &NAME_CHARS, "letters, digits, _ or -")
}

fn check_password(password: &str) -> Result<(), ApiError> {
    let fits = PASSWORD_CHARS.contains(&password.chars().count());
    within(fits, "a password", &PASSWORD_CHARS, "characters")
}

/// `Ok` when it `fits`, else a bad request saying `what` is `range` `of` long.
fn within(
    fits: bool,
    what: &str,
    range: &std::ops::RangeInclusive<usize>,
    of: &str,
) -> Result<(), ApiError> {
    if fits {
        return Ok(());
    }
    let (least, most) = (range.start(), range.end());
    Err(ApiError::BadRequest(format!(
        "{what} is {least} to {most} {of}"
    )))
}

/// The password's Argon2id hash, with a fresh random salt, as a PHC string.
fn hash_password(password: &str) -> String {
    Argon2::default()
        .hash_password(password.as_bytes())
        .expect("hashing with the default parameters works")
        .to_string()
}

/// Whether `password` is the one `hash` was made from.
fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| {
        Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok()
    })
}

/// A hash of no one's password, checked when a login names no account: the answer takes
/// as long as for a real one.
fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| hash_password(&new_secret()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_verify_only_themselves() {
        let hash = hash_password("correct horse");
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password("correct horse", &hash));
        assert!(!verify_password("correct horsf", &hash));
        assert!(!verify_password("correct horse", "not a hash"));
        assert_ne!(hash, hash_password("correct horse"), "salted");
    }

    #[test]
    fn names_and_passwords_have_bounds() {
        for good in ["ann", "Bob_the-2nd", "x".repeat(20).as_str()] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["ab", "a b", "engine:7", "é123", "x".repeat(21).as_str(), ""] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert!(check_password("1234567").is_err());
        assert!(check_password("12345678").is_ok());
        assert!(check_password(&"p".repeat(129)).is_err());
    }
}
