//! The lobby's endpoints: `GET /api/lobby`, `POST /api/seeks` (post a challenge),
//! `GET /api/seeks/{id}`, `DELETE /api/seeks/{id}` (withdraw), `POST /api/seeks/{id}/accept`,
//! and the live channel `/api/lobby/events`.

use std::sync::Arc;

use axum::{
    Json,
    extract::{
        Path, State as AxumState,
        ws::{WebSocketUpgrade, rejection::WebSocketUpgradeRejection},
    },
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
};
use othello::{Color, Setup, Shape, Variant, WinRule};
use serde::{Deserialize, Serialize};

use super::{
    App, Body, Caller, ClockRequest, Done, Empty, GameHead, SettingsRequest, guest_name, origin,
    settings::{ClockView, clock_view},
};
use crate::server::{
    error::ApiError,
    game::{Listing, hash_secret, new_secret},
    limits::Making,
    lobby::{Person, Seek, Viewer},
    ratings,
    table::ColorChoice,
    table::Ended,
    websocket,
};

/// Games listed as being played, and as just finished.
const LISTED: usize = 20;

/// `POST /api/seeks`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SeekRequest {
    rules: Option<String>,
    rows: Option<u64>,
    columns: Option<u64>,
    first: Option<String>,
    win: Option<String>,
    /// The poster's colour: `B`, `W` or `random` (the default).
    color: Option<String>,
    clock: Option<ClockRequest>,
    #[serde(default)]
    rated: bool,
    #[serde(default)]
    help: bool,
    /// Only this member may accept.
    to: Option<String>,
    /// Not listed: for whoever has the link.
    #[serde(default)]
    private: bool,
    /// A guest's name.
    name: Option<String>,
}

/// `POST /api/seeks/{id}/accept`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AcceptRequest {
    /// A guest's name.
    name: Option<String>,
}

/// A challenge as the lobby shows it.
#[derive(Serialize)]
pub(super) struct SeekView {
    id: String,
    url: String,
    poster: String,
    /// Whether the poster is a member (their page is `/u/NAME`).
    member: bool,
    /// Whether that member is a bot account.
    bot: bool,
    /// A member's rating in the category the challenge is for (a timed one), rounded.
    rating: Option<i64>,
    /// Whether that rating is still uncertain (shown `1338?`).
    provisional: bool,
    rules: &'static str,
    rows: u8,
    columns: u8,
    first: String,
    win: &'static str,
    /// The poster's colour: `B`, `W` or `random`.
    color: String,
    clock: Option<ClockView>,
    rated: bool,
    help: bool,
    to: Option<String>,
    private: bool,
    /// Whether it is the viewer's own.
    mine: bool,
    created_at: i64,
}

/// A game in the lobby's lists.
#[derive(Serialize)]
pub(super) struct GameItem {
    #[serde(flatten)]
    head: GameHead,
    black: String,
    white: String,
    clock: Option<ClockView>,
    rated: bool,
    /// Once over: `B`, `W` or `none` (a draw); `null` otherwise.
    winner: Option<&'static str>,
    ending: Option<&'static str>,
}

/// A challenge of the viewer's that was accepted: the game to go to.
#[derive(Serialize)]
pub(super) struct MatchedView {
    seek: String,
    game: String,
}

/// The lobby as one viewer sees it.
#[derive(Serialize)]
pub(super) struct LobbyView {
    seeks: Vec<SeekView>,
    /// Tournaments to come and being played, then the latest finished.
    tournaments: Vec<super::tournaments::SummaryView>,
    #[serde(flatten)]
    lists: Arc<Lists>,
    matched: Vec<MatchedView>,
}

/// The games being played and just finished: the same for every viewer.
#[derive(Serialize)]
pub(super) struct Lists {
    playing: Vec<GameItem>,
    finished: Vec<GameItem>,
}

/// The lobby's lists, made once for each start or end of a game (and each address the
/// links name) and shared by every watcher: two hundred watchers do not read the database
/// two hundred times.
#[derive(Default)]
pub struct ListsCache(tokio::sync::Mutex<Option<(ListsKey, String, Arc<Lists>)>>);

/// What the lists were made for: the hub's count of games started and ended, and the
/// minute (a game with no move for a while leaves them).
type ListsKey = (u64, i64);

impl std::fmt::Debug for ListsCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ListsCache")
    }
}

/// A posted challenge's answer: a guest's secret opens their seat once it is accepted.
#[derive(Serialize)]
pub(super) struct PostedView {
    seek: SeekView,
    #[serde(skip_serializing_if = "Option::is_none")]
    secret: Option<String>,
}

/// An accepted challenge's answer: the game, and a guest's secret and link.
#[derive(Serialize)]
pub(super) struct AcceptedView {
    game: String,
    url: String,
    color: char,
    #[serde(skip_serializing_if = "Option::is_none")]
    secret: Option<String>,
}

/// `seek` as `viewer` sees it, with its poster's rating (read through the hub's short
/// cache).
pub(super) async fn seek_view(app: &App, seek: &Seek, viewer: &Viewer, origin: &str) -> SeekView {
    let rating = match (seek.poster.user_id, seek.clock) {
        (Some(user), Some(clock)) => {
            let category = ratings::category(seek.variant, seek.shape, seek.win, clock);
            app.hub.shown_rating(user, category).await
        }
        _ => None,
    };
    let bot = match seek.poster.user_id {
        Some(user) => app
            .hub
            .is_bot(user, &seek.poster.name)
            .await
            .unwrap_or(false),
        None => false,
    };
    SeekView {
        bot,
        rating: rating.map(|(rating, _)| rating),
        provisional: rating.is_some_and(|(_, provisional)| provisional),
        url: format!("{origin}/s/{}", seek.id),
        id: seek.id.clone(),
        poster: seek.poster.name.clone(),
        member: seek.poster.user_id.is_some(),
        rules: seek.variant.name(),
        rows: seek.shape.rows(),
        columns: seek.shape.columns(),
        first: seek.first.letter().to_string(),
        win: seek.win.name(),
        color: seek.color.text(),
        clock: clock_view(seek.clock),
        rated: seek.rated,
        help: seek.help,
        to: seek.to.clone(),
        private: seek.private,
        mine: viewer.is_poster(seek),
        created_at: seek.created_at,
    }
}

fn game_item(id: String, listing: Listing, origin: &str) -> GameItem {
    let who = |color: Color| listing.name(color);
    GameItem {
        head: GameHead::of(origin, id, &listing),
        black: who(Color::Black),
        white: who(Color::White),
        clock: clock_view(listing.clock),
        rated: listing.rated,
        winner: listing.result.map(|winner| match winner {
            Some(Color::Black) => "B",
            Some(Color::White) => "W",
            None => "none",
        }),
        ending: listing.ended.map(Ended::code),
    }
}

/// The viewer a caller is, with the guest secrets their page holds.
fn viewer(caller: &Caller, secrets: &[String]) -> Viewer {
    Viewer {
        member: caller.member.as_ref().map(|member| member.id),
        member_name: caller.member.as_ref().map(|member| member.name.clone()),
        secret_hashes: caller
            .secret
            .iter()
            .chain(secrets)
            .map(|secret| hash_secret(secret))
            .collect(),
    }
}

async fn games(app: &App, ids: Vec<String>, origin: &str) -> Vec<GameItem> {
    let mut items = Vec::new();
    for id in ids {
        if let Ok(cell) = app.hub.get(&id).await {
            items.push(game_item(id, cell.listing().await, origin));
        }
    }
    items
}

/// The lists of games, from the cache while no game has started or ended since.
async fn lists(app: &App, origin: &str) -> Result<Arc<Lists>, ApiError> {
    // One watcher makes them; the others wait for it and share them.
    let mut cache = app.lobby_lists.0.lock().await;
    // A game with no move for a while leaves the list (checked every minute or so).
    let generation = (
        app.hub.starts_and_ends(),
        super::super::game::now_ms() / 60_000,
    );
    if let Some((made, for_origin, lists)) = &*cache
        && *made == generation
        && for_origin == origin
    {
        return Ok(Arc::clone(lists));
    }
    let store = app.hub.store();
    let playing = store.playing(LISTED, super::listed_since()).await?;
    let finished = store.finished(LISTED).await?;
    let lists = Arc::new(Lists {
        playing: games(app, playing, origin).await,
        finished: games(app, finished, origin).await,
    });
    *cache = Some((generation, origin.to_owned(), Arc::clone(&lists)));
    Ok(lists)
}

/// The lobby as `viewer` sees it.
pub(super) async fn lobby_view(
    app: &App,
    viewer: &Viewer,
    origin: &str,
) -> Result<LobbyView, ApiError> {
    let lists = lists(app, origin).await?;
    let mut seeks = Vec::new();
    for seek in app.lobby.seeks_for(viewer) {
        seeks.push(seek_view(app, &seek, viewer, origin).await);
    }
    Ok(LobbyView {
        seeks,
        tournaments: super::tournaments::summaries(app, viewer.member, origin).await?,
        lists,
        matched: app
            .lobby
            .matched_for(viewer)
            .into_iter()
            .map(|(seek, game)| MatchedView { seek, game })
            .collect(),
    })
}

pub(super) async fn show_lobby(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Json<LobbyView>, ApiError> {
    let origin = origin(&app, &headers);
    Ok(Json(
        lobby_view(&app, &viewer(&caller, &[]), &origin).await?,
    ))
}

/// The caller as a person: a member, or a guest with `name` and the secret they hold
/// (`Authorization: Bearer`) or a fresh one, returned (it opens their seat).
fn person(caller: &Caller, name: Option<String>) -> Result<(Person, Option<String>), ApiError> {
    if let Some(member) = &caller.member {
        return Ok((
            Person {
                name: member.name.clone(),
                user_id: Some(member.id),
                secret_hash: None,
            },
            None,
        ));
    }
    let name = guest_name(name, "name")?.unwrap_or_else(|| "guest".to_owned());
    let secret = caller.secret.clone().unwrap_or_else(new_secret);
    Ok((
        Person {
            name,
            user_id: None,
            secret_hash: Some(hash_secret(&secret)),
        },
        Some(secret),
    ))
}

pub(super) async fn post_seek(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
    Body(request): Body<SeekRequest>,
) -> Result<Response, ApiError> {
    post(&app, &caller, &headers, request).await
}

/// `POST /api/challenge/{name}` (the bot API's words): a challenge to that member, as
/// `POST /api/seeks` with `to` (`to` and `private` are not taken here).
pub(super) async fn challenge(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
    Path(name): Path<String>,
    Body(request): Body<SeekRequest>,
) -> Result<Response, ApiError> {
    if request.to.is_some() || request.private {
        return Err(ApiError::BadRequest(
            "a challenge names its member in the path: no `to` or `private` here".into(),
        ));
    }
    // A name mistyped is said at once, not left open for nobody.
    crate::server::accounts::check_name(&name)?;
    let Some(member) = app.hub.store().user(&name).await? else {
        return Err(ApiError::NoSuchPlayer(name));
    };
    if caller
        .member
        .as_ref()
        .is_some_and(|caller| caller.id == member.id)
    {
        return Err(ApiError::BadRequest("a challenge to oneself".into()));
    }
    let request = SeekRequest {
        to: Some(member.name),
        ..request
    };
    post(&app, &caller, &headers, request).await
}

/// `POST /api/challenge/{id}/decline`: the member a challenge is for turns it down.
pub(super) async fn decline_seek(
    AxumState(app): AxumState<App>,
    caller: Caller,
    Path(id): Path<String>,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<Done>, ApiError> {
    let member = caller.member.as_ref().ok_or(ApiError::NoAccount)?;
    app.lobby.decline(&id, &member.name).await?;
    Ok(Json(Done::OK))
}

/// `POST /api/challenge/{id}/cancel`: the poster withdraws it (as `DELETE /api/seeks/{id}`).
pub(super) async fn cancel_seek(
    app: AxumState<App>,
    caller: Caller,
    id: Path<String>,
    body: Body<Empty>,
) -> Result<Json<Done>, ApiError> {
    withdraw_seek(app, caller, id, body).await?;
    Ok(Json(Done::OK))
}

async fn post(
    app: &App,
    caller: &Caller,
    headers: &HeaderMap,
    request: SeekRequest,
) -> Result<Response, ApiError> {
    let settings = SettingsRequest {
        rules: request.rules,
        rows: request.rows,
        columns: request.columns,
        first: request.first,
        win: request.win,
    }
    .read()?;
    let color = match request.color.as_deref() {
        None => ColorChoice::Random,
        Some(text) => ColorChoice::from_text(text).ok_or_else(|| {
            ApiError::BadRequest(format!("color must be B, W or random, not {text:?}"))
        })?,
    };
    let clock = request.clock.map(ClockRequest::control).transpose()?;
    if request.rated && clock.is_none() {
        return Err(ApiError::BadRequest(
            "a rated game needs a clock: give clock.base_ms".into(),
        ));
    }
    if let Some(to) = &request.to {
        crate::server::accounts::check_name(to)?;
        // One nobody could accept would hold one of the poster's open challenges for
        // nothing (found by the red team of item 47.11).
        let Some(member) = app.hub.store().user(to).await? else {
            return Err(ApiError::NoSuchPlayer(to.clone()));
        };
        if caller
            .member
            .as_ref()
            .is_some_and(|caller| caller.id == member.id)
        {
            return Err(ApiError::BadRequest("a challenge to oneself".into()));
        }
    }
    let (poster, secret) = person(caller, request.name)?;
    app.admission
        .admit(Making::Challenge, &caller.client(), caller.address)?;
    let shape = settings.shape.unwrap_or(Shape::STANDARD);
    let standard = Setup::standard(shape);
    let seek = Seek {
        id: String::new(),
        poster,
        variant: settings.variant.unwrap_or(Variant::Full),
        shape,
        first: settings.first.unwrap_or(standard.first_mover),
        win: settings.win.unwrap_or(WinRule::MostDiscs),
        color,
        clock,
        rated: request.rated,
        help: request.help && !request.rated,
        to: request.to,
        private: request.private,
        created_at: 0,
        address: Some(caller.address),
    };
    let seek = app.lobby.post(seek).await?;
    let origin = origin(app, headers);
    let viewer = viewer(caller, secret.as_slice());
    Ok((
        StatusCode::CREATED,
        Json(PostedView {
            seek: seek_view(app, &seek, &viewer, &origin).await,
            secret,
        }),
    )
        .into_response())
}

pub(super) async fn show_seek(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<SeekView>, ApiError> {
    let seek = app
        .lobby
        .seek(&id)
        .await
        .ok_or(crate::server::error::SeekError::Gone)?;
    let origin = origin(&app, &headers);
    Ok(Json(
        seek_view(&app, &seek, &viewer(&caller, &[]), &origin).await,
    ))
}

pub(super) async fn withdraw_seek(
    AxumState(app): AxumState<App>,
    caller: Caller,
    Path(id): Path<String>,
    Body(Empty {}): Body<Empty>,
) -> Result<StatusCode, ApiError> {
    let person = match (&caller.member, &caller.secret) {
        (Some(member), _) => Person {
            name: member.name.clone(),
            user_id: Some(member.id),
            secret_hash: None,
        },
        (None, Some(secret)) => Person {
            name: String::new(),
            user_id: None,
            secret_hash: Some(hash_secret(secret)),
        },
        (None, None) => return Err(ApiError::Unauthorized),
    };
    app.lobby.withdraw(&id, &person).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub(super) async fn accept_seek(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
    Path(id): Path<String>,
    Body(request): Body<AcceptRequest>,
) -> Result<Response, ApiError> {
    let (taker, secret) = person(&caller, request.name)?;
    app.admission
        .admit(Making::Game, &caller.client(), caller.address)?;
    let cell = app.lobby.accept(&app.hub, &id, taker).await?.cell;
    let color = cell
        .viewer(
            secret.as_deref(),
            caller.member.as_ref().map(|member| member.id),
        )
        .await
        .seat
        .ok_or_else(|| ApiError::Storage("the taker has no seat in the game made".into()))?;
    let origin = origin(&app, &headers);
    let url = match &secret {
        Some(secret) => format!("{origin}/g/{}#secret={secret}", cell.id),
        None => format!("{origin}/g/{}", cell.id),
    };
    Ok((
        StatusCode::CREATED,
        Json(AcceptedView {
            game: cell.id.clone(),
            url,
            color: color.letter(),
            secret,
        }),
    )
        .into_response())
}

pub(super) async fn lobby_events(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let upgrade = websocket::upgrade(upgrade, "the lobby's live channel")?;
    let caller = Caller {
        member: caller.member.filter(|_| super::same_origin(&headers)),
        ..caller
    };
    let origin = origin(&app, &headers);
    let changes = vec![
        app.lobby.watch(),
        app.hub.watch_starts_and_ends(),
        app.tournaments.watch(),
    ];
    let (stopping, silence) = (app.stopping.clone(), app.client_timeout);
    let render = move |secrets: Vec<String>| {
        let app = app.clone();
        let viewer = viewer(&caller, &secrets);
        let origin = origin.clone();
        async move { lobby_view(&app, &viewer, &origin).await.ok() }
    };
    Ok(upgrade.on_upgrade(move |socket| {
        let channel = websocket::Channel::Lobby;
        websocket::serve_lobby(socket, channel, render, changes, stopping, silence)
    }))
}
