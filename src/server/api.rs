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
        ws::{WebSocketUpgrade, rejection::WebSocketUpgradeRejection},
    },
    http::{HeaderMap, Method, StatusCode, header, request::Parts},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use othello::{
    ByColor, Color, LoadSettings, Record, RecordFormat, Setup, Shape, Square, Variant, WinRule,
    engine::analysis::Hint,
};
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use axum_extra::extract::cookie::CookieJar;

mod accounts;
pub mod lobby;
mod players;

use super::{
    accounts::{Accounts, Member, SESSION_COOKIE},
    assets,
    client::{self, Client},
    engine_pool::Load,
    error::{ApiError, SeekError},
    game::{GameCell, NewGame, NewSeat, Viewer},
    hub::{DEFAULT_SPEED_MS, DEFAULT_TIME_MS, EVAL_BUDGET, Hub, MAX_SPEED_MS, MAX_TIME_MS},
    limits::{Admission, Making},
    live,
    lobby::Lobby,
    table::{Help, TimeControl, UndoAction},
    views::{self, GameView},
};
use crate::play::Occupant;

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
}

/// The router: the page, its assets, the API and the live channel.
pub fn router(app: App) -> Router {
    let api = Router::new()
        .route("/games", post(create).get(list))
        .route("/games/{id}", get(show))
        .route("/games/{id}/moves", post(play))
        .route("/games/{id}/undo", post(undo))
        .route("/games/{id}/redo", post(redo))
        .route("/games/{id}/resign", post(resign))
        .route("/games/{id}/abort", post(abort))
        .route("/games/{id}/rematch", post(rematch))
        .route("/games/{id}/claim", post(claim))
        .route("/games/{id}/control", post(control))
        .route("/games/{id}/hint", get(hint))
        .route("/games/{id}/evaluations", get(evaluations))
        .route("/games/{id}/export", get(export))
        .route("/games/{id}/events", get(events))
        .route("/accounts", post(accounts::register))
        .route("/session", post(accounts::login).delete(accounts::logout))
        .route("/me", get(accounts::me))
        .route("/lobby", get(lobby::show_lobby))
        .route("/lobby/events", get(lobby::lobby_events))
        .route("/seeks", post(lobby::post_seek))
        .route(
            "/seeks/{id}",
            get(lobby::show_seek).delete(lobby::withdraw_seek),
        )
        .route("/seeks/{id}/accept", post(lobby::accept_seek))
        .route("/users/{name}", get(players::show_player));
    Router::new()
        .route("/", get(assets::page))
        .route("/g/{id}", get(assets::page))
        .route("/s/{id}", get(assets::page))
        .route("/u/{name}", get(assets::page))
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
        let secret = bearer(&parts.headers).map(str::to_owned);
        let jar = CookieJar::from_headers(&parts.headers);
        let member = match jar.get(SESSION_COOKIE) {
            Some(cookie) => app.accounts.member(cookie.value()).await?,
            None => None,
        };
        // A change asked with the cookie alone (a browser sends it to this site whoever
        // made the request) must carry the session's CSRF token, which only this site's
        // pages can read.
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
            address: Address::of(parts, app).0,
        })
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

/// The state as the caller sees it.
async fn state_for(cell: &GameCell, caller: &Caller) -> GameView {
    views::view(cell, caller.viewer(cell).await, None)
        .await
        .expect("the position now is always there")
}

/// A change the game's rules refuse (409, or 422 for an illegal move) carries the game
/// as the caller sees it now: a page that missed a change (made on another server, say)
/// catches up.
async fn in_state(error: ApiError, cell: &GameCell, caller: &Caller) -> ApiError {
    if !matches!(error, ApiError::Rule(_) | ApiError::Stale) {
        return error;
    }
    ApiError::InState(Box::new(error), Arc::new(state_for(cell, caller).await))
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

/// `POST /api/games`: every field optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateRequest {
    rules: Option<String>,
    rows: Option<u64>,
    columns: Option<u64>,
    first: Option<String>,
    win: Option<String>,
    black: Option<String>,
    white: Option<String>,
    time_ms: Option<u64>,
    black_time_ms: Option<u64>,
    white_time_ms: Option<u64>,
    speed_ms: Option<u64>,
    position: Option<String>,
    help: Option<bool>,
    clock: Option<ClockRequest>,
    #[serde(default)]
    rated: bool,
    black_name: Option<String>,
    white_name: Option<String>,
}

/// A time control asked for: each side's time and the increment per move.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockRequest {
    base_ms: u64,
    #[serde(default)]
    increment_ms: u64,
}

/// The longest time control, in milliseconds: three hours a side.
pub const MAX_CLOCK_MS: u64 = 3 * 60 * 60 * 1000;

/// The largest increment, in milliseconds.
pub const MAX_INCREMENT_MS: u64 = 60_000;

/// The longest name a guest may give.
pub const MAX_NAME_CHARS: usize = 24;

impl ClockRequest {
    /// The time control, if in range: from a second to three hours, increments up to a
    /// minute.
    pub fn control(self) -> Result<TimeControl, ApiError> {
        if !(1_000..=MAX_CLOCK_MS).contains(&self.base_ms) {
            return Err(ApiError::BadRequest(format!(
                "clock.base_ms must be from 1000 to {MAX_CLOCK_MS}, not {}",
                self.base_ms
            )));
        }
        if self.increment_ms > MAX_INCREMENT_MS {
            return Err(ApiError::BadRequest(format!(
                "clock.increment_ms must be from 0 to {MAX_INCREMENT_MS}, not {}",
                self.increment_ms
            )));
        }
        Ok(TimeControl {
            base_ms: self.base_ms,
            increment_ms: self.increment_ms,
        })
    }
}

/// A guest's name, trimmed: 1 to 24 characters, none of them control characters.
///
/// # Errors
/// [`ApiError::BadRequest`] naming `field`.
pub fn guest_name(text: Option<String>, field: &str) -> Result<Option<String>, ApiError> {
    let Some(text) = text else {
        return Ok(None);
    };
    let name = text.trim();
    let chars = name.chars().count();
    if chars == 0
        || chars > MAX_NAME_CHARS
        || name.chars().any(invisible)
        || name.chars().all(blank)
        || stacked_marks(name)
    {
        return Err(ApiError::BadRequest(format!(
            "{field} must be 1 to {MAX_NAME_CHARS} characters that show: no control or \
             formatting characters (such as direction marks), blanks, private or unassigned \
             characters, or more than two accents on a letter"
        )));
    }
    Ok(Some(name.to_owned()))
}

/// Characters that show as nothing though they are letters or symbols (Hangul fillers,
/// the blank braille pattern), or whitespace: a name of these alone is no name.
fn blank(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{2800}'
        )
}

/// Whether more than two combining marks follow one another (the "zalgo" text that
/// spills over the lines around it).
fn stacked_marks(name: &str) -> bool {
    /// The blocks of combining marks.
    const MARKS: &[(u32, u32)] = &[
        (0x0300, 0x036F),
        (0x0483, 0x0489),
        (0x1AB0, 0x1AFF),
        (0x1DC0, 0x1DFF),
        (0x20D0, 0x20FF),
        (0xFE20, 0xFE2F),
    ];
    let mut run = 0;
    for c in name.chars() {
        let code = u32::from(c);
        if MARKS
            .iter()
            .any(|&(first, last)| (first..=last).contains(&code))
        {
            run += 1;
            if run > 2 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// Characters a name may not hold: controls (Cc), formatting characters (Cf: direction
/// marks and overrides, zero-width spaces and joiners, tags ...), line and paragraph
/// separators, private-use characters and noncharacters. They show as nothing, as
/// anything, or turn the text around them.
fn invisible(c: char) -> bool {
    /// Unicode's Cf ranges (Unicode 15.1).
    const FORMAT: &[(u32, u32)] = &[
        (0x00AD, 0x00AD),
        (0x0600, 0x0605),
        (0x061C, 0x061C),
        (0x06DD, 0x06DD),
        (0x070F, 0x070F),
        (0x0890, 0x0891),
        (0x08E2, 0x08E2),
        (0x180E, 0x180E),
        (0x200B, 0x200F),
        (0x202A, 0x202E),
        (0x2060, 0x2064),
        (0x2066, 0x206F),
        (0xFEFF, 0xFEFF),
        (0xFFF9, 0xFFFB),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x1343F),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0001, 0xE0001),
        (0xE0020, 0xE007F),
    ];
    let code = u32::from(c);
    // Private use (shows as whatever a font puts there) and noncharacters.
    let private = (0xE000..=0xF8FF).contains(&code) || code >= 0xF0000;
    let noncharacter = (0xFDD0..=0xFDEF).contains(&code) || code & 0xFFFE == 0xFFFE;
    c.is_control()
        || private
        || noncharacter
        || matches!(c, '\u{2028}' | '\u{2029}')
        || FORMAT
            .iter()
            .any(|&(first, last)| (first..=last).contains(&code))
}

/// A new game's answer.
#[derive(Serialize)]
struct CreatedView {
    id: String,
    seats: SeatsCreated,
    spectator_url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    control: Option<Link>,
    state: GameView,
}

#[derive(Serialize)]
struct SeatsCreated {
    black: SeatCreated,
    white: SeatCreated,
}

#[derive(Serialize)]
struct SeatCreated {
    player: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    secret: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

#[derive(Serialize)]
struct Link {
    secret: String,
    url: String,
}

fn side_length(value: Option<u64>, name: &str) -> Result<Option<u8>, ApiError> {
    match value {
        None => Ok(None),
        Some(n @ 4..=16) => Ok(Some(n as u8)),
        Some(n) => Err(ApiError::BadRequest(format!(
            "{name} must be from 4 to 16, not {n}"
        ))),
    }
}

/// The longest time a client may ask for, and what the refusal adds.
#[derive(Clone, Copy, Debug)]
struct TimeCap {
    ms: u64,
    /// `" for a guest (log in for more)"`, or nothing.
    whose: &'static str,
}

fn time(value: Option<u64>, name: &str, default: u64, cap: TimeCap) -> Result<u64, ApiError> {
    let TimeCap { ms: max, whose } = cap;
    match value {
        None => Ok(default.min(max)),
        Some(n @ 1..) if n <= max => Ok(n),
        Some(n) => Err(ApiError::BadRequest(format!(
            "{name} must be from 1 to {max} (milliseconds){whose}, not {n}"
        ))),
    }
}

/// The longest an engine of `client`'s may think a move.
fn max_time(client: &Client) -> TimeCap {
    if client.is_guest() {
        TimeCap {
            ms: MAX_GUEST_TIME_MS,
            whose: " for a guest (log in for more)",
        }
    } else {
        TimeCap {
            ms: MAX_TIME_MS,
            whose: "",
        }
    }
}

/// The game's settings as asked for (each optional): rules, board, first mover, win rule.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct SettingsRequest {
    rules: Option<String>,
    rows: Option<u64>,
    columns: Option<u64>,
    first: Option<String>,
    win: Option<String>,
}

/// [`SettingsRequest`] read: each setting asked for, if it makes sense.
#[derive(Clone, Copy, Debug, Default)]
pub struct Settings {
    /// The rule set.
    pub variant: Option<Variant>,
    /// The board.
    pub shape: Option<Shape>,
    /// Who moves first.
    pub first: Option<Color>,
    /// Who wins.
    pub win: Option<WinRule>,
}

impl SettingsRequest {
    /// The settings, each checked.
    ///
    /// # Errors
    /// [`ApiError::BadRequest`] naming the first that makes no sense.
    pub fn read(&self) -> Result<Settings, ApiError> {
        let variant = match self.rules.as_deref() {
            None => None,
            Some(text) => Some(text.parse::<Variant>().map_err(|_| {
                ApiError::BadRequest(format!("rules must be full or simple, not {text:?}"))
            })?),
        };
        let rows = side_length(self.rows, "rows")?;
        let columns = side_length(self.columns, "columns")?;
        let shape = match (rows, columns) {
            (None, None) => None,
            (rows, columns) => Some(
                Shape::new(rows.unwrap_or(8), columns.unwrap_or(8))
                    .map_err(|error| ApiError::BadRequest(error.to_string()))?,
            ),
        };
        let first = match self.first.as_deref() {
            None => None,
            Some("B" | "b") => Some(Color::Black),
            Some("W" | "w") => Some(Color::White),
            Some(text) => {
                return Err(ApiError::BadRequest(format!(
                    "first must be B or W, not {text:?}"
                )));
            }
        };
        let win = self
            .win
            .as_deref()
            .map(WinRule::from_name)
            .transpose()
            .map_err(|error| ApiError::BadRequest(format!("win: {error}")))?;
        Ok(Settings {
            variant,
            shape,
            first,
            win,
        })
    }
}

impl CreateRequest {
    /// The game asked for, its engines' time per move within `max_time`.
    fn into_new_game(self, max_time: TimeCap) -> Result<NewGame, ApiError> {
        let Settings {
            variant,
            shape,
            first,
            win,
        } = SettingsRequest {
            rules: self.rules,
            rows: self.rows,
            columns: self.columns,
            first: self.first,
            win: self.win,
        }
        .read()?;
        let seat = |text: Option<String>, name: &str| -> Result<Occupant, ApiError> {
            match text {
                None => Ok(Occupant::Human),
                Some(text) => text
                    .parse()
                    .map_err(|error| ApiError::BadRequest(format!("{name}: {error}"))),
            }
        };
        let black = seat(self.black, "black")?;
        let white = seat(self.white, "white")?;
        let time_ms = time(self.time_ms, "time_ms", DEFAULT_TIME_MS, max_time)?;
        let black_time = time(self.black_time_ms, "black_time_ms", time_ms, max_time)?;
        let white_time = time(self.white_time_ms, "white_time_ms", time_ms, max_time)?;
        let speed_ms = match self.speed_ms {
            None => DEFAULT_SPEED_MS,
            Some(n) if n <= MAX_SPEED_MS => n,
            Some(n) => {
                return Err(ApiError::BadRequest(format!(
                    "speed_ms must be from 0 to {MAX_SPEED_MS}, not {n}"
                )));
            }
        };
        let mut setup = Setup::standard(shape.unwrap_or(Shape::STANDARD));
        let (variant, setup, moves) = match self.position.as_deref().map(str::trim) {
            None | Some("") => {
                if let Some(first) = first {
                    setup.first_mover = first;
                }
                if let Some(win) = win {
                    setup.win_rule = win;
                }
                (variant.unwrap_or(Variant::Full), setup, Vec::new())
            }
            Some(text) => {
                let settings = LoadSettings {
                    variant,
                    shape,
                    first,
                    win,
                    ..LoadSettings::defaults(Variant::Full, setup)
                };
                let record = Record::load(text, &settings)
                    .map_err(|error| ApiError::BadPosition(format!("position: {error}")))?;
                (record.variant, record.setup, record.moves)
            }
        };
        let clock = self.clock.map(ClockRequest::control).transpose()?;
        if clock.is_some() && black != Occupant::Human && white != Occupant::Human {
            return Err(ApiError::BadRequest(
                "a clock is for games with a person in them".into(),
            ));
        }
        let seat = |occupant: Occupant, time_ms: u64, name: Option<String>| NewSeat {
            name: name.filter(|_| occupant == Occupant::Human),
            ..NewSeat::new(occupant, time_ms)
        };
        Ok(NewGame {
            variant,
            setup,
            moves,
            seats: [
                seat(
                    black,
                    black_time,
                    guest_name(self.black_name, "black_name")?,
                ),
                seat(
                    white,
                    white_time,
                    guest_name(self.white_name, "white_name")?,
                ),
            ],
            speed_ms,
            help: self.help.unwrap_or(false),
            clock,
            rated: false,
            client: None,
        })
    }
}

async fn create(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
    Body(request): Body<CreateRequest>,
) -> Result<Response, ApiError> {
    let rated = request.rated;
    let client = caller.client();
    let mut new = request.into_new_game(max_time(&client))?;
    if rated {
        rate_against_the_computer(&app, &caller, &mut new).await?;
    }
    app.admission.admit(Making::Game, &client, caller.address)?;
    new.client = Some(client);
    let created = app.hub.create(new).await?;
    let origin = origin(&app, &headers);
    let cell = &created.cell;
    let page = format!("{origin}/g/{}", cell.id);
    let players = cell.listing().await.players;
    let state = views::view(cell, Viewer::default(), None)
        .await
        .expect("the position now is always there");
    let ByColor {
        black: black_secret,
        white: white_secret,
    } = created.secrets;
    let ByColor {
        black: black_player,
        white: white_player,
    } = players;
    let seat = |player: String, secret: Option<String>| SeatCreated {
        player,
        url: secret
            .as_ref()
            .map(|secret| format!("{page}#secret={secret}")),
        secret,
    };
    let view = CreatedView {
        id: cell.id.clone(),
        seats: SeatsCreated {
            black: seat(black_player, black_secret),
            white: seat(white_player, white_secret),
        },
        spectator_url: page.clone(),
        control: created.control.map(|secret| Link {
            url: format!("{page}#control={secret}"),
            secret,
        }),
        state,
    };
    Ok((StatusCode::CREATED, Json(view)).into_response())
}

/// Makes `new` a rated game between the member asking and a computer player, whose
/// account (named by its player spec, `engine:7`) holds its rating: a timed game, no help.
async fn rate_against_the_computer(
    app: &App,
    caller: &Caller,
    new: &mut NewGame,
) -> Result<(), ApiError> {
    let member = caller.member.as_ref().ok_or(SeekError::MembersOnly)?;
    if new.clock.is_none() {
        return Err(ApiError::BadRequest(
            "a rated game needs a clock: give clock.base_ms".into(),
        ));
    }
    if !new.moves.is_empty() {
        return Err(ApiError::BadRequest(
            "a rated game starts from its start, with no moves pasted".into(),
        ));
    }
    let people = new
        .seats
        .iter()
        .filter(|seat| seat.occupant == Occupant::Human)
        .count();
    if people != 1 {
        return Err(ApiError::BadRequest(
            "a rated game made here is between you and a computer player: one seat human, \
             the other an engine; play people from the lobby"
                .into(),
        ));
    }
    for seat in &mut new.seats {
        match seat.occupant {
            Occupant::Human => {
                seat.name = Some(member.name.clone());
                seat.user_id = Some(member.id);
            }
            Occupant::Computer(spec) => {
                seat.user_id = Some(app.accounts.computer_account(&spec.to_string()).await?);
            }
        }
    }
    new.rated = true;
    new.help = false;
    Ok(())
}

/// How many games `GET /api/games` lists.
const LISTED: usize = 20;

/// A game in the list of those being played.
#[derive(Serialize)]
struct Listed {
    id: String,
    url: String,
    rules: &'static str,
    rows: u8,
    columns: u8,
    black: String,
    white: String,
    moves: usize,
    to_move: Option<char>,
}

/// `GET /api/games`: the games being played, most recently changed first (at most 20),
/// for spectators.
#[derive(Serialize)]
struct ListView {
    games: Vec<Listed>,
}

async fn list(
    AxumState(app): AxumState<App>,
    headers: HeaderMap,
) -> Result<Json<ListView>, ApiError> {
    let origin = origin(&app, &headers);
    let mut games = Vec::new();
    for id in app.hub.playing(LISTED).await? {
        let Ok(cell) = app.hub.get(&id).await else {
            continue;
        };
        let listing = cell.listing().await;
        games.push(Listed {
            url: format!("{origin}/g/{id}"),
            id,
            rules: listing.variant.name(),
            rows: listing.rows,
            columns: listing.columns,
            black: listing.players.black,
            white: listing.players.white,
            moves: listing.moves,
            to_move: listing.to_move.map(Color::letter),
        });
    }
    Ok(Json(ListView { games }))
}

/// `GET /api/games/{id}`: `?ply=k` for the position after `k` moves.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ShowParams {
    ply: Option<usize>,
}

async fn show(
    Game(cell): Game,
    caller: Caller,
    Params(params): Params<ShowParams>,
) -> Result<Json<GameView>, ApiError> {
    let Some(ply) = params.ply else {
        return Ok(Json(state_for(&cell, &caller).await));
    };
    // A review is read-only: no control of a game between engines in it.
    let viewer = Viewer {
        control: false,
        ..caller.viewer(&cell).await
    };
    views::view(&cell, viewer, Some(ply))
        .await
        .map(Json)
        .map_err(|played| {
            ApiError::BadRequest(format!(
                "ply must be from 0 to {played} (the moves played), not {ply}"
            ))
        })
}

/// `POST /api/games/{id}/moves`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    square: String,
}

async fn play(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(request): Body<MoveRequest>,
) -> Result<Json<GameView>, ApiError> {
    let color = seat(&cell, &caller).await?;
    let square: Square = request.square.trim().parse().map_err(|_| {
        ApiError::BadRequest(format!(
            "square must be in standard notation such as d3, not {:?}",
            request.square
        ))
    })?;
    if let Err(error) = app.hub.play(&cell, color, square).await {
        return Err(in_state(error, &cell, &caller).await);
    }
    Ok(Json(state_for(&cell, &caller).await))
}

/// `POST /api/games/{id}/undo`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct UndoRequest {
    action: Option<UndoAction>,
}

async fn undo(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(request): Body<UndoRequest>,
) -> Result<Json<GameView>, ApiError> {
    let color = seat(&cell, &caller).await?;
    let action = request.action.unwrap_or(UndoAction::Request);
    if let Err(error) = app.hub.undo(&cell, color, action).await {
        return Err(in_state(error, &cell, &caller).await);
    }
    Ok(Json(state_for(&cell, &caller).await))
}

/// A body that must be empty (or `{}`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

async fn redo(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<GameView>, ApiError> {
    let color = seat(&cell, &caller).await?;
    if let Err(error) = app.hub.redo(&cell, color).await {
        return Err(in_state(error, &cell, &caller).await);
    }
    Ok(Json(state_for(&cell, &caller).await))
}

async fn resign(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<GameView>, ApiError> {
    let color = seat(&cell, &caller).await?;
    if let Err(error) = app.hub.resign(&cell, color).await {
        return Err(in_state(error, &cell, &caller).await);
    }
    Ok(Json(state_for(&cell, &caller).await))
}

async fn abort(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<GameView>, ApiError> {
    seat(&cell, &caller).await?;
    if let Err(error) = app.hub.abort(&cell).await {
        return Err(in_state(error, &cell, &caller).await);
    }
    Ok(Json(state_for(&cell, &caller).await))
}

async fn rematch(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<GameView>, ApiError> {
    let color = seat(&cell, &caller).await?;
    app.admission
        .admit(Making::Game, &caller.client(), caller.address)?;
    if let Err(error) = app.hub.rematch(&cell, color).await {
        return Err(in_state(error, &cell, &caller).await);
    }
    Ok(Json(state_for(&cell, &caller).await))
}

async fn claim(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<GameView>, ApiError> {
    let color = seat(&cell, &caller).await?;
    if let Err(error) = app.hub.claim(&cell, color).await {
        return Err(in_state(error, &cell, &caller).await);
    }
    Ok(Json(state_for(&cell, &caller).await))
}

/// `POST /api/games/{id}/control`: games between engines.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ControlRequest {
    paused: Option<bool>,
    step: Option<bool>,
    speed_ms: Option<u64>,
}

async fn control(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Body(request): Body<ControlRequest>,
) -> Result<Json<GameView>, ApiError> {
    let secret = caller.secret.as_deref().ok_or(ApiError::Unauthorized)?;
    app.hub.check_control(&cell, secret).await?;
    if let Some(speed) = request.speed_ms
        && speed > MAX_SPEED_MS
    {
        return Err(ApiError::BadRequest(format!(
            "speed_ms must be from 0 to {MAX_SPEED_MS}, not {speed}"
        )));
    }
    app.hub
        .control(
            &cell,
            request.paused,
            request.step.unwrap_or(false),
            request.speed_ms,
        )
        .await?;
    Ok(Json(state_for(&cell, &caller).await))
}

/// `GET /api/games/{id}/hint?count=K&time_ms=T`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HintParams {
    count: Option<usize>,
    time_ms: Option<u64>,
}

/// A hint's answer.
#[derive(Serialize)]
struct HintView {
    to_move: Option<char>,
    depth: u32,
    exact: bool,
    nodes: u64,
    moves: Vec<HintLineView>,
}

#[derive(Serialize)]
struct HintLineView {
    #[serde(rename = "move")]
    mv: String,
    score: f64,
    exact: bool,
    pv: Vec<String>,
}

fn move_text(square: Option<Square>) -> String {
    square.map_or_else(|| "pass".to_owned(), |square| square.to_string())
}

fn hint_view(hint: &Hint) -> HintView {
    HintView {
        to_move: hint.to_move.map(Color::letter),
        depth: hint.depth,
        exact: hint.exact(),
        nodes: hint.nodes,
        moves: hint
            .lines
            .iter()
            .map(|line| HintLineView {
                mv: move_text(line.square),
                score: line.score.discs(),
                exact: line.exact,
                pv: line.pv.iter().map(|&square| move_text(square)).collect(),
            })
            .collect(),
    }
}

/// Refuses `help` to the holder of the request's secret where the game gives none.
async fn check_help(cell: &GameCell, caller: &Caller, help: Help) -> Result<(), ApiError> {
    let viewer = caller.viewer(cell).await;
    cell.check_help(viewer, help)
        .await
        .map_err(ApiError::NoHelp)
}

async fn hint(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    Params(params): Params<HintParams>,
) -> Result<Json<HintView>, ApiError> {
    let count = match params.count {
        None => 3,
        Some(count @ 1..=MAX_HINT_COUNT) => count,
        Some(count) => {
            return Err(ApiError::BadRequest(format!(
                "count must be from 1 to {MAX_HINT_COUNT}, not {count}"
            )));
        }
    };
    let client = caller.client();
    let cap = max_time(&client);
    let time_ms = time(
        params.time_ms,
        "time_ms",
        1000,
        TimeCap {
            ms: cap.ms.min(MAX_HINT_TIME_MS),
            ..cap
        },
    )?;
    check_help(&cell, &caller, Help::Hints).await?;
    let hint = app
        .hub
        .hint(&cell, count, Duration::from_millis(time_ms), client)
        .await?;
    Ok(Json(hint_view(&hint)))
}

/// The evaluation graph: the scores known, and whether that is all of them.
#[derive(Serialize)]
struct EvaluationsView {
    /// Moves in the game (the graph's width).
    moves: usize,
    scores: Vec<EvaluationView>,
    /// False while some are still to be computed: ask again.
    complete: bool,
}

#[derive(Serialize)]
struct EvaluationView {
    ply: usize,
    #[serde(rename = "move")]
    mv: String,
    score: f64,
    exact: bool,
}

async fn evaluations(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
) -> Result<Json<EvaluationsView>, ApiError> {
    check_help(&cell, &caller, Help::Evaluation).await?;
    let (scores, complete) = app
        .hub
        .evaluations(&cell, EVAL_BUDGET, caller.client())
        .await?;
    let moves = cell.moves().await;
    Ok(Json(EvaluationsView {
        moves: moves.len(),
        scores: scores
            .into_iter()
            .zip(moves)
            .enumerate()
            .filter_map(|(index, (score, mv))| {
                let (score, exact) = score?;
                Some(EvaluationView {
                    ply: index + 1,
                    mv,
                    score,
                    exact,
                })
            })
            .collect(),
        complete,
    }))
}

/// `GET /api/games/{id}/export?format=ggf|transcript|record|grader`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportParams {
    format: Option<String>,
}

async fn export(
    Game(cell): Game,
    Params(params): Params<ExportParams>,
) -> Result<Response, ApiError> {
    let record = cell.record().await;
    let name = params.format.as_deref().unwrap_or("record");
    let format = RecordFormat::from_name(name)
        .filter(|format| RecordFormat::EXPORTS.contains(format))
        .ok_or_else(|| {
            ApiError::BadRequest(format!(
                "format must be ggf, transcript, record or grader, not {name:?}"
            ))
        })?;
    let text = record
        .export(format)
        .map_err(|error| ApiError::BadPosition(error.to_string()))?;
    // A grader input does not say its rules: its name does (`othello --rules simple <
    // othello-ID-simple.in` replays a SIMPLE one).
    let file = if format == RecordFormat::Grader {
        format!("othello-{}-{}.in", cell.id, record.variant.name())
    } else {
        format!("othello-{}-{name}.{}", cell.id, format.extension())
    };
    Ok((
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("inline; filename=\"{file}\""),
            ),
        ],
        text,
    )
        .into_response())
}

async fn events(
    AxumState(app): AxumState<App>,
    Game(cell): Game,
    caller: Caller,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let upgrade = upgrade.map_err(|rejection| {
        ApiError::BadRequest(format!(
            "the live channel is a WebSocket: {}",
            rejection.body_text()
        ))
    })?;
    let hub = Arc::clone(&app.hub);
    let stopping = app.stopping.clone();
    let silence = app.client_timeout;
    // A browser opens a WebSocket to any site with that site's cookies: the session opens
    // a seat only for a page of this site.
    let member = caller
        .member
        .filter(|_| same_origin(&headers))
        .map(|member| member.id);
    Ok(live::small_buffers(upgrade)
        .on_upgrade(move |socket| live::serve(socket, hub, cell, stopping, silence, member)))
}

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

/// The handlers in process, through the router (no sockets): each rule's refusal reaches
/// the client as its status and code. `tests/server.rs` drives a real server over TCP.
#[cfg(test)]
mod tests {
    use axum::body::Body as HttpBody;
    use serde_json::{Value, json};
    use tower::ServiceExt;

    use super::*;
    use crate::server::{engine_pool::EnginePool, store::Store};

    struct Fixture {
        router: Router,
        _dir: tempfile::TempDir,
    }

    impl Fixture {
        async fn new() -> Fixture {
            let dir = tempfile::tempdir().unwrap();
            let (store, _writer) = Store::sqlite(&dir.path().join("games.db")).unwrap();
            let (_stop, stopping) = tokio::sync::watch::channel(false);
            let app = App {
                accounts: Arc::new(Accounts::new(store.clone(), Duration::from_secs(60))),
                lobby: Arc::new(Lobby::open(store.clone()).await.unwrap()),
                lobby_lists: Arc::default(),
                hub: Arc::new(Hub::new(store, EnginePool::new(1))),
                origin: "http://127.0.0.1:1".into(),
                stopping,
                client_timeout: Duration::from_secs(5),
                trusted_proxies: Arc::from([]),
                admission: Arc::new(Admission::new(30)),
            };
            Fixture {
                router: router(app),
                _dir: dir,
            }
        }

        /// Sends a request; answers the status and the JSON body.
        async fn send(
            &self,
            method: &str,
            path: &str,
            secret: Option<&str>,
            body: Value,
        ) -> (StatusCode, Value) {
            let mut request = Request::builder()
                .method(method)
                .uri(path)
                .header(header::CONTENT_TYPE, "application/json");
            if let Some(secret) = secret {
                request = request.header(header::AUTHORIZATION, format!("Bearer {secret}"));
            }
            let request = request.body(HttpBody::from(body.to_string())).unwrap();
            let response = self.router.clone().oneshot(request).await.unwrap();
            let status = response.status();
            let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .unwrap();
            (status, serde_json::from_slice(&bytes).unwrap())
        }

        /// A game between two people: its id and the seats' secrets.
        async fn people(&self) -> (String, String, String) {
            let (status, game) = self.send("POST", "/api/games", None, json!({})).await;
            assert_eq!(status, StatusCode::CREATED, "{game}");
            let secret = |seat: &str| game["seats"][seat]["secret"].as_str().unwrap().to_owned();
            let id = game["id"].as_str().unwrap().to_owned();
            (id, secret("black"), secret("white"))
        }
    }

    fn code(body: &Value) -> &str {
        body["error"]["code"].as_str().unwrap_or_default()
    }

    #[tokio::test]
    async fn each_rule_refusal_has_its_status_and_code() {
        let fixture = Fixture::new().await;
        let (id, black, white) = fixture.people().await;
        let moves = format!("/api/games/{id}/moves");
        let undo = format!("/api/games/{id}/undo");

        let (status, body) = fixture
            .send("POST", &moves, None, json!({"square": "d3"}))
            .await;
        assert_eq!(
            (status, code(&body)),
            (StatusCode::UNAUTHORIZED, "unauthorized")
        );
        let (status, body) = fixture
            .send("POST", &moves, Some(&white), json!({"square": "d3"}))
            .await;
        assert_eq!(
            (status, code(&body)),
            (StatusCode::CONFLICT, "not_your_turn")
        );
        let (status, body) = fixture
            .send("POST", &moves, Some(&black), json!({"square": "a1"}))
            .await;
        assert_eq!(
            (status, code(&body)),
            (StatusCode::UNPROCESSABLE_ENTITY, "illegal_move")
        );
        assert_eq!(body["error"]["legal"], json!(["d3", "c4", "f5", "e6"]));
        let (status, body) = fixture.send("POST", &undo, Some(&black), json!({})).await;
        assert_eq!(
            (status, code(&body)),
            (StatusCode::CONFLICT, "nothing_to_undo")
        );
        let (status, body) = fixture
            .send("POST", &undo, Some(&white), json!({"action": "accept"}))
            .await;
        assert_eq!(
            (status, code(&body)),
            (StatusCode::CONFLICT, "no_undo_request")
        );

        let (status, body) = fixture
            .send("POST", &moves, Some(&black), json!({"square": "d3"}))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["moves"].as_array().map(Vec::len), Some(1), "{body}");
        let (status, _) = fixture.send("POST", &undo, Some(&black), json!({})).await;
        assert_eq!(status, StatusCode::OK);
        let (status, body) = fixture.send("POST", &undo, Some(&white), json!({})).await;
        assert_eq!(
            (status, code(&body)),
            (StatusCode::CONFLICT, "undo_request_pending")
        );
        let redo = format!("/api/games/{id}/redo");
        let (status, body) = fixture.send("POST", &redo, Some(&black), json!({})).await;
        assert_eq!(
            (status, code(&body)),
            (StatusCode::CONFLICT, "redo_needs_engine")
        );
        let control = format!("/api/games/{id}/control");
        let (status, body) = fixture
            .send("POST", &control, Some(&black), json!({"paused": true}))
            .await;
        assert_eq!(
            (status, code(&body)),
            (StatusCode::CONFLICT, "not_engine_game")
        );

        let resign = format!("/api/games/{id}/resign");
        let (status, _) = fixture.send("POST", &resign, Some(&white), json!({})).await;
        assert_eq!(status, StatusCode::OK);
        let (status, body) = fixture
            .send("POST", &moves, Some(&black), json!({"square": "c3"}))
            .await;
        assert_eq!((status, code(&body)), (StatusCode::CONFLICT, "game_over"));
    }

    #[tokio::test]
    async fn a_seat_is_known_by_its_secret_and_a_stranger_only_watches() {
        let fixture = Fixture::new().await;
        let (id, black, _white) = fixture.people().await;
        let path = format!("/api/games/{id}");
        let (status, seated) = fixture.send("GET", &path, Some(&black), Value::Null).await;
        assert_eq!(status, StatusCode::OK);
        let (status, watching) = fixture.send("GET", &path, None, Value::Null).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(seated["you"], json!("B"), "{seated}");
        assert_eq!(watching["you"], Value::Null, "{watching}");
        // Watching is open to all: a secret that opens no seat reads as a spectator's.
        let (status, stranger) = fixture
            .send("GET", &path, Some("not-a-secret"), Value::Null)
            .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(stranger, watching);
        let moves = format!("/api/games/{id}/moves");
        let (status, body) = fixture
            .send(
                "POST",
                &moves,
                Some("not-a-secret"),
                json!({"square": "d3"}),
            )
            .await;
        assert_eq!((status, code(&body)), (StatusCode::FORBIDDEN, "forbidden"));
    }
}
