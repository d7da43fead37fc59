//! The HTTP API: requests turned into hub calls, results and errors into JSON. No game
//! logic here: the hub and the library decide; this only translates.

use std::{
    net::{IpAddr, Ipv4Addr, SocketAddr},
    sync::Arc,
    time::Duration,
};

use axum::{
    Json, Router,
    body::Bytes,
    extract::{
        ConnectInfo, FromRequest, FromRequestParts, Path, Query, Request, State as AxumState,
        rejection::BytesRejection,
    },
    http::{HeaderMap, Method, StatusCode, header, request::Parts},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use othello::Color;
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use axum_extra::extract::cookie::CookieJar;

mod accounts;
mod analysis;
pub mod bot;
pub mod explorer;
mod games;
pub mod lobby;
mod players;
mod puzzles;
mod settings;
#[cfg(test)]
mod tests;
pub mod tournaments;
mod zero;

pub use settings::{ClockRequest, SettingsRequest, guest_name};

use super::{
    accounts::{Accounts, Member, SESSION_COOKIE, TOKEN_PREFIX},
    assets,
    client::{self, Client},
    engine_pool::Load,
    error::ApiError,
    game::{GameCell, Listing, Viewer},
    limits::Admission,
    live::{Credentials, Hub},
    lobby::Lobby,
};

/// The header a page sends its session's CSRF token in.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// The largest request body, in bytes.
pub const BODY_LIMIT: usize = 64 * 1024;

/// The most moves a hint ranks.
pub const MAX_HINT_COUNT: usize = 64;

/// The longest a hint may search, in milliseconds.
pub const MAX_HINT_TIME_MS: u64 = 10_000;

/// The longest a guest's engine may think a move, or a guest's hint search, in
/// milliseconds: what another visitor may wait behind in the pool (a member may ask for up
/// to [`MAX_TIME_MS`]). Every search stops at its time, so this bounds the cost of any
/// level on any board.
pub const MAX_GUEST_TIME_MS: u64 = 5_000;

/// What every handler shares.
#[derive(Clone, Debug)]
pub struct App {
    /// Accounts and sessions.
    pub accounts: Arc<Accounts>,
    /// The open challenges.
    pub lobby: Arc<Lobby>,
    /// The lobby's lists of games, shared by its watchers.
    pub lobby_lists: Arc<lobby::ListsCache>,
    /// The games.
    pub hub: Arc<Hub>,
    /// The address served, for links when a request names no host.
    pub origin: String,
    /// Fires when the server is stopping (live channels close).
    pub stopping: tokio::sync::watch::Receiver<bool>,
    /// How long a client may take to send a request's body; how long a live channel may
    /// stay silent.
    pub client_timeout: Duration,
    /// Proxies whose `X-Forwarded-For` names the client (for the limits per client).
    pub trusted_proxies: Arc<[std::net::IpAddr]>,
    /// How fast games and challenges may be made.
    pub admission: Arc<Admission>,
    /// The bot API's streams and refusals, per account.
    pub bots: Arc<bot::Bots>,
    /// The opening explorer's game database, per board.
    pub explorers: Arc<explorer::Explorers>,
    /// The tournaments' director.
    pub tournaments: tournaments::Tournaments,
}

/// The router: the page, its assets, the API and the live channel.
pub fn router(app: App) -> Router {
    let api = games::routes()
        .route("/accounts", accounts::entry(true))
        .route("/session", accounts::entry(false).delete(accounts::logout))
        .route("/me", get(accounts::me))
        .route("/me/turn", get(players::my_turn))
        .route("/lobby", get(lobby::show_lobby))
        .route("/lobby/events", get(lobby::lobby_events))
        .route("/seeks", post(lobby::post_seek))
        .route(
            "/seeks/{id}",
            get(lobby::show_seek).delete(lobby::withdraw_seek),
        )
        .route("/seeks/{id}/accept", post(lobby::accept_seek))
        .route("/users/{name}", get(players::show_player))
        .route(
            "/tokens",
            post(accounts::new_token).delete(accounts::revoke_token),
        )
        .route("/challenge/{id}", post(lobby::challenge))
        .route("/challenge/{id}/accept", post(lobby::accept_seek))
        .route("/challenge/{id}/decline", post(lobby::decline_seek))
        .route("/challenge/{id}/cancel", post(lobby::cancel_seek))
        .route("/explorer", get(explorer::explore))
        .route("/analysis", post(analysis::show))
        .route("/analysis/lines", post(analysis::lines))
        .route("/analysis/graph", post(analysis::graph))
        .route(
            "/tournaments",
            get(tournaments::list).post(tournaments::create),
        )
        .route(
            "/tournaments/{id}",
            get(tournaments::show).delete(tournaments::call_off),
        )
        .route("/tournaments/{id}/join", post(tournaments::join))
        .route("/tournaments/{id}/withdraw", post(tournaments::withdraw))
        .route("/tournaments/{id}/start", post(tournaments::start))
        .route("/tournaments/{id}/events", get(tournaments::events))
        .route("/puzzles/next", get(puzzles::next_puzzle))
        .route("/puzzles/{id}", get(puzzles::show_puzzle))
        .route("/puzzles/{id}/answer", post(puzzles::answer_puzzle))
        .route("/zero/nets", get(zero::nets))
        .route("/zero/nets/{name}/curve", get(zero::curve))
        .merge(bot::routes());
    Router::new()
        .route("/", get(assets::page))
        .route("/g/{id}", get(assets::page))
        .route("/s/{id}", get(assets::page))
        .route("/u/{name}", get(assets::page))
        .route("/puzzles", get(assets::page))
        .route("/p/{id}", get(assets::page))
        .route("/t/{id}", get(assets::page))
        .route("/analysis", get(assets::page))
        .route("/assets/{file}", get(assets::asset))
        .route("/favicon.ico", get(assets::icon))
        .route("/healthz", get(health))
        .nest("/api", api.layer(axum::middleware::from_fn(same_site_only)))
        .fallback(no_route)
        .method_not_allowed_fallback(wrong_method)
        .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(app)
}

/// The page runs only its own files (no inline script or style, nothing from elsewhere),
/// talks only to this server, and is never framed by another site; no response is read
/// as another type than it says; links out do not carry the page's address.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "same-origin"),
        (header::X_FRAME_OPTIONS, "DENY"),
    ] {
        headers.insert(name, axum::http::HeaderValue::from_static(value));
    }
    response
}

async fn no_route(request: Request) -> ApiError {
    ApiError::NoRoute(request.uri().path().chars().take(200).collect())
}

async fn wrong_method() -> ApiError {
    ApiError::Method
}

/// A JSON body: an empty body reads as `{}`; errors are the API's own.
pub struct Body<T>(pub T);

impl<T: DeserializeOwned> FromRequest<App> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, app: &App) -> Result<Self, ApiError> {
        let content_type = request
            .headers()
            .get(header::CONTENT_TYPE)
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
        // A body sent slowly, or never finished, holds the connection only so long.
        let bytes = tokio::time::timeout(app.client_timeout, Bytes::from_request(request, app))
            .await
            .map_err(|_| ApiError::BodyTimeout(app.client_timeout.as_secs()))?
            .map_err(|rejection| match rejection {
                BytesRejection::FailedToBufferBody(_) => ApiError::TooLarge(BODY_LIMIT),
                other => ApiError::BadRequest(other.body_text()),
            })?;
        let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else if !json_typed(content_type.as_deref()) {
            return Err(ApiError::MediaType(content_type.map_or_else(
                || "no Content-Type".to_owned(),
                |text| format!("{:?}", text.chars().take(100).collect::<String>()),
            )));
        } else {
            &bytes
        };
        serde_json::from_slice(text).map(Body).map_err(|error| {
            if error.is_syntax() || error.is_eof() {
                ApiError::MalformedJson(error.to_string())
            } else {
                ApiError::InvalidJson(error.to_string())
            }
        })
    }
}

/// Whether a `Content-Type` says JSON (`application/json`, any parameters, any case).
fn json_typed(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|text| {
        text.split(';')
            .next()
            .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
    })
}

/// Refuses a request that changes something (any method but `GET`, `HEAD`, `OPTIONS`), or
/// opens a live channel, from a page of another site: a browser names the page's site in
/// `Origin`. A login, a registration or a move cannot be made from another site's page,
/// with or without the cookie. Programs that send no `Origin` are not browsers' pages.
async fn same_site_only(request: Request, next: axum::middleware::Next) -> Response {
    let upgrade = request.headers().contains_key(header::UPGRADE);
    if (upgrade || !reads_only(request.method())) && !same_origin(request.headers()) {
        let origin = request
            .headers()
            .get(header::ORIGIN)
            .map(|value| {
                String::from_utf8_lossy(value.as_bytes())
                    .chars()
                    .take(100)
                    .collect()
            })
            .unwrap_or_default();
        return ApiError::CrossOrigin(origin).into_response();
    }
    next.run(request).await
}

/// Query parameters, with the API's errors.
pub struct Params<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Params<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(params)| Params(params))
            .map_err(|rejection| ApiError::BadRequest(rejection.body_text()))
    }
}

/// A game named in the path, from memory or the store.
pub struct Game(pub Arc<GameCell>);

impl FromRequestParts<App> for Game {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &App) -> Result<Self, ApiError> {
        let Path(id) = Path::<String>::from_request_parts(parts, app)
            .await
            .map_err(|rejection| ApiError::BadRequest(rejection.body_text()))?;
        app.hub.get(&id).await.map(Game)
    }
}

/// The secret in `Authorization: Bearer <secret>`, if any.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, secret) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| secret.trim())
        .filter(|secret| !secret.is_empty())
}

/// Who asks: the holder of a seat's secret (`Authorization: Bearer`), a member logged in
/// (the session cookie), both or neither; and from where.
#[derive(Clone, Debug)]
pub struct Caller {
    /// The secret given, if any.
    pub secret: Option<String>,
    /// The member logged in, if any.
    pub member: Option<Member>,
    /// The API token the member was named by (a stream checks it is still valid).
    pub token: Option<String>,
    /// The client's address (see [`client::address`]).
    pub address: IpAddr,
}

impl Caller {
    /// Whose lane and limits: the member, else the guest's address.
    pub fn client(&self) -> Client {
        match &self.member {
            Some(member) => Client::Member(member.id),
            None => Client::guest(self.address),
        }
    }

    /// What the caller shows to act.
    pub fn credentials(&self) -> Credentials<'_> {
        Credentials {
            secret: self.secret.as_deref(),
            user_id: self.member.as_ref().map(|member| member.id),
            address: Some(self.address),
        }
    }

    /// Who the caller is in `cell`'s game.
    pub async fn viewer(&self, cell: &GameCell) -> Viewer {
        cell.viewer(
            self.secret.as_deref(),
            self.member.as_ref().map(|member| member.id),
        )
        .await
    }
}

/// The client's address (see [`client::address`]).
pub struct Address(pub IpAddr);

impl Address {
    fn of(parts: &Parts, app: &App) -> Address {
        Address(
            parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |ConnectInfo(peer)| {
                    client::address(*peer, &parts.headers, &app.trusted_proxies)
                }),
        )
    }
}

impl FromRequestParts<App> for Address {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &App) -> Result<Self, ApiError> {
        Ok(Address::of(parts, app))
    }
}

/// Whether a request only reads.
fn reads_only(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

impl FromRequestParts<App> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &App) -> Result<Self, ApiError> {
        // An API token (a program's) names an account; any other bearer secret opens a
        // seat.
        if let Some(token) = bearer(&parts.headers).filter(|b| is_token(b)) {
            let member = app
                .accounts
                .member(token)
                .await?
                .ok_or(ApiError::BadToken)?;
            return Ok(Caller {
                secret: None,
                member: Some(member),
                token: Some(token.to_owned()),
                address: Address::of(parts, app).0,
            });
        }
        let secret = bearer(&parts.headers).map(str::to_owned);
        let jar = CookieJar::from_headers(&parts.headers);
        let member = match jar.get(SESSION_COOKIE) {
            // A token is a program's: never a browser's session.
            Some(cookie) if !is_token(cookie.value()) => {
                app.accounts.member(cookie.value()).await?
            }
            _ => None,
        };
        // A change asked with the cookie alone (a browser sends it to this site whoever
        // made the request) must carry the session's CSRF token, which only this site's
        // pages can read. (A token is never sent by a browser on its own.)
        if let Some(member) = &member
            && secret.is_none()
            && !reads_only(&parts.method)
        {
            let token = parts
                .headers
                .get(CSRF_HEADER)
                .and_then(|value| value.to_str().ok());
            if token != Some(member.csrf.as_str()) {
                return Err(ApiError::Csrf);
            }
        }
        Ok(Caller {
            secret,
            member,
            token: None,
            address: Address::of(parts, app).0,
        })
    }
}

/// Whether `secret` is an API token (`oat_…`, any case).
fn is_token(secret: &str) -> bool {
    secret
        .get(..TOKEN_PREFIX.len())
        .is_some_and(|prefix| prefix.eq_ignore_ascii_case(TOKEN_PREFIX))
}

impl App {
    /// Refuses an account's action at once when it has had too many refused lately (see
    /// [`bot::REFUSALS`]): a program that lost track of its game does not hammer the
    /// server, whichever endpoint it uses.
    ///
    /// # Errors
    /// [`ApiError::TooManyRefusals`].
    pub fn check_refusals(&self, caller: &Caller) -> Result<(), ApiError> {
        let Some(member) = &caller.member else {
            return Ok(());
        };
        let now = super::game::now_ms();
        let since = now - bot::REFUSALS.window().as_millis() as i64;
        let attempts = self.bots.refused.attempts(&member.id.to_string(), since);
        match bot::REFUSALS.wait(attempts, now) {
            Some(seconds) => Err(ApiError::TooManyRefusals(seconds)),
            None => Ok(()),
        }
    }

    /// Counts `error` against the caller's account if it was the caller's doing (not the
    /// server's trouble).
    pub fn count_refusal(&self, caller: &Caller, error: &ApiError) {
        if let Some(member) = &caller.member
            && error.status().is_client_error()
        {
            self.bots.refused.record(&member.id.to_string());
        }
    }
}

/// The seat the caller's secret (or account) opens.
async fn seat(cell: &GameCell, caller: &Caller) -> Result<Color, ApiError> {
    if caller.secret.is_none() && caller.member.is_none() {
        return Err(ApiError::Unauthorized);
    }
    caller.viewer(cell).await.seat.ok_or_else(|| {
        ApiError::Forbidden("neither this secret nor this account opens a seat of this game".into())
    })
}

/// What every list of games says of one: its id, its page, its rules and board.
#[derive(Serialize)]
pub struct GameHead {
    id: String,
    url: String,
    rules: &'static str,
    rows: u8,
    columns: u8,
    /// `most` or `fewest`: which discs win.
    win: &'static str,
}

/// A game being played leaves the lists of games being played after this long without a
/// move (an abandoned untimed game against the engine would stay for good); it is still
/// played and watched by its link.
const LISTED_FOR_MS: i64 = 30 * 60 * 1000;

/// The oldest last change a listed game being played may have now.
fn listed_since() -> i64 {
    super::game::now_ms() - LISTED_FOR_MS
}

impl GameHead {
    /// Game `id`'s, its page under `origin`.
    fn of(origin: &str, id: String, listing: &Listing) -> GameHead {
        GameHead {
            url: format!("{origin}/g/{id}"),
            id,
            rules: listing.variant.name(),
            rows: listing.rows,
            columns: listing.columns,
            win: listing.win_rule.name(),
        }
    }
}

/// `http://host` for links: the host the request named, else the address served.
fn origin(app: &App, headers: &HeaderMap) -> String {
    headers
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
        .filter(|host| {
            !host.is_empty()
                && host
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b))
        })
        .map_or_else(|| app.origin.clone(), |host| format!("http://{host}"))
}

/// `GET /healthz`: `ok` (200); `failing` (503) with what is wrong with the database; or
/// `saturated` (503) while a client has waited long for an engine thread: for a load
/// balancer or a monitor to take this server out of service. The engine pool's load is
/// always shown.
#[derive(Serialize)]
struct Health {
    status: &'static str,
    games_in_memory: usize,
    engines: Load,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

async fn health(AxumState(app): AxumState<App>) -> (StatusCode, Json<Health>) {
    let checked = app.hub.health().await;
    let engines = app.hub.engine_load();
    let status = match (&checked, engines.saturated) {
        (Err(_), _) => "failing",
        (Ok(()), true) => "saturated",
        (Ok(()), false) => "ok",
    };
    let code = if status == "ok" {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (
        code,
        Json(Health {
            status,
            games_in_memory: app.hub.live_games(),
            engines,
            error: checked.err(),
        }),
    )
}

/// What the bot API's endpoints answer to a change done: `{"ok":true}`, as lichess's.
#[derive(Serialize)]
pub struct Done {
    ok: bool,
}

impl Done {
    const OK: Done = Done { ok: true };
}

/// A body that must be empty (or `{}`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

/// Whether a request's `Origin`, if it names one, is the host it was sent to.
fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let host = headers
        .get(header::HOST)
        .and_then(|host| host.to_str().ok());
    let origin_host = origin
        .to_str()
        .ok()
        .and_then(|origin| origin.split_once("://"))
        .map(|(_, host)| host);
    host.is_some() && origin_host == host
}
