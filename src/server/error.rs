//! Every error the API answers with: a status and `{"error":{"code":..,"message":..}}`
//! (with the legal moves for an illegal one).

use axum::{
    Json,
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use serde::Serialize;
use thiserror::Error;

use std::sync::Arc;

use super::{store::StoreError, table::TableError, views::GameView};

/// What went wrong with a request.
#[derive(Clone, Debug, Error)]
pub enum ApiError {
    /// No such game (or page).
    #[error("no such game")]
    NotFound,
    /// No such page or endpoint.
    #[error("no such path: {0}")]
    NoRoute(String),
    /// The method does not apply to this path.
    #[error("method not allowed here")]
    Method,
    /// No secret given where a seat's is needed.
    #[error("this needs a seat's secret: Authorization: Bearer <secret>")]
    Unauthorized,
    /// A secret that opens no seat of this game (or not the one needed).
    #[error("{0}")]
    Forbidden(String),
    /// A game rule refused the action (not your turn, illegal move, nothing to undo...).
    #[error(transparent)]
    Rule(#[from] TableError),
    /// A body that is not JSON.
    #[error("malformed JSON: {0}")]
    MalformedJson(String),
    /// JSON of the wrong shape: a field unknown, missing or of the wrong type.
    #[error("{0}")]
    InvalidJson(String),
    /// A body over the limit.
    #[error("the body is over {0} bytes")]
    TooLarge(usize),
    /// A body that did not arrive in time (in seconds).
    #[error("the body did not arrive within {0} s")]
    BodyTimeout(u64),
    /// A value out of range or not understood.
    #[error("{0}")]
    BadRequest(String),
    /// A starting position or transcript that cannot be played.
    #[error("{0}")]
    BadPosition(String),
    /// The engine's help is not given to this viewer now.
    #[error("{0}")]
    NoHelp(String),
    /// Too many hints wait for the engines: try again.
    #[error("the engines are busy: try again in a moment")]
    Busy,
    /// The database failed.
    #[error("storage failed: {0}")]
    Storage(String),
    /// The game changed under the request (on another server) in a way the request no
    /// longer fits.
    #[error("the game changed meanwhile: look at it again")]
    Stale,
    /// Every connection to the database is in use (a load peak): ask again shortly.
    #[error("the server is busy: nothing was changed; try again in a moment")]
    StoreBusy,
    /// The database cannot be reached for now (a shared one): ask again shortly.
    #[error("the database cannot be reached for now: {0}")]
    Unavailable(String),
    /// An account that has played cannot become a bot.
    #[error("{0} has played games: only an account that has never played can become a bot")]
    HasPlayed(String),
    /// A bot endpoint asked by an account that is not a bot's.
    #[error("{0} is not a bot account: upgrade it first (POST /api/bot/account/upgrade)")]
    NotBot(String),
    /// An account endpoint asked without an account (no token, no session).
    #[error("this needs an account: Authorization: Bearer <API token>, or a session")]
    NoAccount,
    /// A bearer token that is not (or no longer) valid.
    #[error("this API token is not valid: it expired or was revoked")]
    BadToken,
    /// Too many actions of one account refused lately: wait this many seconds.
    #[error("too many refused actions by this account in the last minute: try again in {0} s")]
    TooManyRefusals(u64),
    /// Too many streams open for one account.
    #[error("{0}")]
    TooManyStreams(String),
    /// An account of that name exists.
    #[error("the name {0} is taken")]
    NameTaken(String),
    /// A login with a name or password that does not match (which of the two is not
    /// said).
    #[error("wrong name or password")]
    WrongLogin,
    /// Too many failed logins (or registrations): wait this many seconds.
    #[error("too many attempts: try again in {0} s")]
    TooManyAttempts(u64),
    /// Too many games or challenges made lately: wait this many seconds.
    #[error("too many {0} made from here lately: try again in {1} s")]
    TooFast(&'static str, u64),
    /// A body that is not `application/json`: a form or plain text another site's page
    /// could send without asking.
    #[error("a request body must be JSON sent as Content-Type: application/json, not {0}")]
    MediaType(String),
    /// A change asked from a page of another site (its `Origin`).
    #[error("a change may only be asked from this site's own pages, not from {0}")]
    CrossOrigin(String),
    /// A change asked with the session cookie but without its CSRF token.
    #[error("a change made with the session cookie needs the session's X-CSRF-Token header")]
    Csrf,
    /// No account of that name.
    #[error("no player is called {0}")]
    NoSuchPlayer(String),
    /// No such puzzle (or none left to answer).
    #[error("no puzzle: {0}")]
    NoSuchPuzzle(String),
    /// No tournament has that id.
    #[error("no tournament {0}")]
    NoSuchTournament(String),
    /// A tournament refuses the change.
    #[error(transparent)]
    Tournament(crate::server::tournaments::Refusal),
    /// Too many tournaments to come or being played (the caller's, or the server's).
    #[error("{0}")]
    TooManyTournaments(String),
    /// A challenge cannot be taken, withdrawn or posted.
    #[error(transparent)]
    Seek(#[from] SeekError),
    /// A change the game's rules refuse, answered with the game as it is now.
    #[error("{0}")]
    InState(Box<ApiError>, Arc<GameView>),
}

impl ApiError {
    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::InState(error, _) => error.status(),
            ApiError::NotFound
            | ApiError::NoRoute(_)
            | ApiError::NoSuchPlayer(_)
            | ApiError::NoSuchPuzzle(_)
            | ApiError::NoSuchTournament(_) => StatusCode::NOT_FOUND,
            ApiError::Method => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) | ApiError::NoHelp(_) => StatusCode::FORBIDDEN,
            ApiError::Rule(TableError::IllegalMove { .. }) | ApiError::BadPosition(_) => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            ApiError::Rule(_) | ApiError::Stale => StatusCode::CONFLICT,
            ApiError::MalformedJson(_) | ApiError::InvalidJson(_) | ApiError::BadRequest(_) => {
                StatusCode::BAD_REQUEST
            }
            ApiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::MediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::CrossOrigin(_) => StatusCode::FORBIDDEN,
            ApiError::BodyTimeout(_) => StatusCode::REQUEST_TIMEOUT,
            ApiError::Busy | ApiError::StoreBusy | ApiError::Unavailable(_) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ApiError::Storage(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::NameTaken(_)
            | ApiError::HasPlayed(_)
            | ApiError::Tournament(_)
            | ApiError::TooManyTournaments(_) => StatusCode::CONFLICT,
            ApiError::NotBot(_) => StatusCode::FORBIDDEN,
            ApiError::NoAccount | ApiError::BadToken => StatusCode::UNAUTHORIZED,
            ApiError::TooManyStreams(_) | ApiError::TooManyRefusals(_) => {
                StatusCode::TOO_MANY_REQUESTS
            }
            ApiError::WrongLogin => StatusCode::UNAUTHORIZED,
            ApiError::TooManyAttempts(_) | ApiError::TooFast(..) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Csrf => StatusCode::FORBIDDEN,
            ApiError::Seek(SeekError::MembersOnly) => StatusCode::UNAUTHORIZED,
            ApiError::Seek(SeekError::NotForYou(_) | SeekError::NotYours) => StatusCode::FORBIDDEN,
            ApiError::Seek(SeekError::Gone | SeekError::Own | SeekError::TooMany(_)) => {
                StatusCode::CONFLICT
            }
        }
    }

    /// The machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::InState(error, _) => error.code(),
            ApiError::NotFound => "not_found",
            ApiError::NoRoute(_) => "no_route",
            ApiError::Method => "method_not_allowed",
            ApiError::Unauthorized => "unauthorized",
            ApiError::Forbidden(_) => "forbidden",
            ApiError::MediaType(_) => "unsupported_media_type",
            ApiError::CrossOrigin(_) => "cross_origin",
            ApiError::Rule(error) => error.code(),
            ApiError::MalformedJson(_) => "malformed_json",
            ApiError::InvalidJson(_) => "invalid_json",
            ApiError::TooLarge(_) => "body_too_large",
            ApiError::BodyTimeout(_) => "body_timeout",
            ApiError::BadRequest(_) => "bad_request",
            ApiError::BadPosition(_) => "bad_position",
            ApiError::Busy | ApiError::StoreBusy => "busy",
            ApiError::NoHelp(_) => "no_help",
            ApiError::Storage(_) => "storage",
            ApiError::Unavailable(_) => "unavailable",
            ApiError::Stale => "stale",
            ApiError::NameTaken(_) => "name_taken",
            ApiError::Tournament(refusal) => refusal.code(),
            ApiError::TooManyTournaments(_) => "too_many_tournaments",
            ApiError::HasPlayed(_) => "has_played",
            ApiError::NotBot(_) => "not_bot",
            ApiError::NoAccount => "no_account",
            ApiError::BadToken => "bad_token",
            ApiError::TooManyStreams(_) => "too_many_streams",
            ApiError::TooManyRefusals(_) => "too_fast",
            ApiError::WrongLogin => "wrong_login",
            ApiError::TooManyAttempts(_) => "too_many_attempts",
            ApiError::TooFast(..) => "too_fast",
            ApiError::Csrf => "csrf",
            ApiError::NoSuchPlayer(_) => "no_such_player",
            ApiError::NoSuchPuzzle(_) => "no_such_puzzle",
            ApiError::NoSuchTournament(_) => "no_such_tournament",
            ApiError::Seek(SeekError::MembersOnly) => "login_needed",
            ApiError::Seek(SeekError::Gone) => "seek_gone",
            ApiError::Seek(SeekError::Own) => "own_seek",
            ApiError::Seek(SeekError::NotForYou(_)) => "not_for_you",
            ApiError::Seek(SeekError::NotYours) => "not_yours",
            ApiError::Seek(SeekError::TooMany(_)) => "too_many_seeks",
        }
    }
}

/// The error's JSON.
#[derive(Serialize)]
struct Body<'a> {
    error: Inner<'a>,
}

#[derive(Serialize)]
struct Inner<'a> {
    code: &'a str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    legal: Option<Vec<String>>,
    /// The game now, for a change refused because of where it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<&'a GameView>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (error, state) = match &self {
            ApiError::InState(error, state) => (error.as_ref(), Some(state.as_ref())),
            error => (error, None),
        };
        let legal = match error {
            ApiError::Rule(TableError::IllegalMove { legal, .. }) => {
                Some(legal.iter().map(ToString::to_string).collect())
            }
            _ => None,
        };
        let body = Body {
            error: Inner {
                code: self.code(),
                message: self.to_string(),
                legal,
                state,
            },
        };
        let mut response = (self.status(), Json(body)).into_response();
        let retry = match self {
            // When to ask again, in seconds: a search or two will have finished.
            ApiError::Busy => Some(HeaderValue::from_static("2")),
            // A restarting database is usually back within a second or two.
            ApiError::Unavailable(_) | ApiError::StoreBusy => Some(HeaderValue::from_static("1")),
            ApiError::TooManyAttempts(seconds)
            | ApiError::TooFast(_, seconds)
            | ApiError::TooManyRefusals(seconds) => {
                HeaderValue::from_str(&seconds.to_string()).ok()
            }
            _ => None,
        };
        if let Some(retry) = retry {
            response.headers_mut().insert(header::RETRY_AFTER, retry);
        }
        response
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> ApiError {
        match error {
            StoreError::Unavailable(_) => ApiError::Unavailable(error.to_string()),
            StoreError::Busy => ApiError::StoreBusy,
            StoreError::Conflict(_) => ApiError::Stale,
            StoreError::SeekGone(_) => ApiError::Seek(SeekError::Gone),
            StoreError::NameTaken(name) => ApiError::NameTaken(name),
            other => ApiError::Storage(other.to_string()),
        }
    }
}

impl From<std::sync::Arc<StoreError>> for ApiError {
    fn from(error: std::sync::Arc<StoreError>) -> ApiError {
        match &*error {
            StoreError::Unavailable(_) => ApiError::Unavailable(error.to_string()),
            StoreError::Busy => ApiError::StoreBusy,
            StoreError::Conflict(_) => ApiError::Stale,
            StoreError::SeekGone(_) => ApiError::Seek(SeekError::Gone),
            StoreError::NameTaken(name) => ApiError::NameTaken(name.clone()),
            other => ApiError::Storage(other.to_string()),
        }
    }
}

/// Why a challenge cannot be taken or withdrawn.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SeekError {
    /// Accepted by someone else, withdrawn, or never there.
    #[error("this challenge is gone: accepted by someone else, or withdrawn")]
    Gone,
    /// Your own.
    #[error("this is your own challenge")]
    Own,
    /// For someone else.
    #[error("this challenge is for {0}")]
    NotForYou(String),
    /// Rated and correspondence games are between members (a correspondence game is
    /// found again in one's own list of games whose turn it is).
    #[error("a rated or correspondence game is between two members: log in first")]
    MembersOnly,
    /// Not the poster's.
    #[error("only its poster may withdraw a challenge")]
    NotYours,
    /// Too many open.
    #[error("too many challenges are open: {0}")]
    TooMany(String),
}

impl From<crate::server::tournaments::Refusal> for ApiError {
    fn from(refusal: crate::server::tournaments::Refusal) -> ApiError {
        ApiError::Tournament(refusal)
    }
}

#[cfg(test)]
mod tests {
    use deadpool_postgres::{PoolError, TimeoutType};

    use super::*;

    /// Issue 44.7: a pool whose every connection stays taken is a busy server (try again),
    /// not a database that cannot be reached.
    #[test]
    fn a_database_pool_at_its_limit_is_busy_not_unreachable() {
        let busy = StoreError::from(PoolError::Timeout(TimeoutType::Wait));
        assert!(matches!(busy, StoreError::Busy), "{busy:?}");
        let response = ApiError::from(busy).into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::RETRY_AFTER], "1");
        assert_eq!(ApiError::StoreBusy.code(), "busy");
        assert!(ApiError::StoreBusy.to_string().contains("try again"));
        // No connection could be made at all: that is the database out of reach.
        let unreachable = StoreError::from(PoolError::Timeout(TimeoutType::Create));
        assert!(matches!(unreachable, StoreError::Unavailable(_)));
    }
}
