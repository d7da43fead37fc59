//! The bot API, in lichess's shape, so that anyone's engine can play here: a bot account
//! (an account upgraded once, marked BOT wherever it is shown) logs in with an API token
//! (`POST /api/tokens`), follows its events (`GET /api/stream/event`: challenges, games
//! starting and finishing) and each game (`GET /api/bot/game/stream/{id}`: the full game,
//! then each new state), and moves, resigns or aborts. Challenges are the lobby's: a
//! challenge to a bot is a challenge addressed to its name (`POST /api/challenge/{name}`),
//! accepted, declined or cancelled here. Streams are newline-delimited JSON, with an empty
//! line as a keep-alive every few seconds. See docs/api.md.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    sync::{Arc, Mutex},
    time::Duration,
};

use axum::{
    Json, Router,
    body::Bytes,
    extract::{Path, State as AxumState},
    http::{HeaderMap, header},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use othello::{Color, Square};
use serde::Serialize;
use tokio::sync::mpsc;

use super::{App, Body, Caller, Done, Empty, GameHead, origin};
use crate::server::{
    accounts::Member,
    error::ApiError,
    game::{GameCell, Viewer},
    limits::{Limit, RateLimiter},
    lobby,
    table::{Action, Ended},
    views::{self, ClockView, Counts, GameView},
};

/// An empty line goes out on a quiet stream this often: the client knows the server is
/// there, and the server learns when the client has gone. The events are also looked at
/// again at this pace (a game started on another server is seen within it).
pub const KEEPALIVE: Duration = Duration::from_secs(5);

/// The most event streams one account may hold open on a server at once.
pub const MAX_EVENT_STREAMS: usize = 2;

/// The most game streams one account may hold open on a server at once.
pub const MAX_GAME_STREAMS: usize = 32;

/// The most games being played an event stream follows for one account.
const MAX_GAMES: usize = 100;

/// The routes of the bot API (under `/api`).
pub fn routes() -> Router<App> {
    Router::new()
        .route("/bot/account/upgrade", post(upgrade))
        .route("/stream/event", get(event_stream))
        .route("/bot/game/stream/{id}", get(game_stream))
        .route("/bot/game/{id}/move/{square}", post(play))
        .route("/bot/game/{id}/resign", post(resign))
        .route("/bot/game/{id}/abort", post(abort))
}

/// Refused actions (an illegal move, a move out of turn, a game not its own) one account
/// may have in a minute before its actions are refused for a while: a bot that has lost
/// track of a game does not hammer the server. A bot in step is never refused.
pub const REFUSALS: Limit = Limit::Rate {
    events: 60,
    per: Duration::from_secs(60),
};

/// What the server keeps for the bot API, per account: the streams open here (at most
/// [`MAX_EVENT_STREAMS`] and [`MAX_GAME_STREAMS`]) and the actions refused lately
/// ([`REFUSALS`]). Counted per server.
#[derive(Debug, Default)]
pub struct Bots {
    open: Mutex<HashMap<(i64, StreamKind), usize>>,
    pub(super) refused: RateLimiter,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum StreamKind {
    Events,
    Game,
}

/// One open stream, counted until it is dropped.
struct Slot {
    streams: Arc<Bots>,
    key: (i64, StreamKind),
}

impl Bots {
    fn open(self: &Arc<Bots>, user: i64, kind: StreamKind) -> Result<Slot, ApiError> {
        let (most, what) = match kind {
            StreamKind::Events => (MAX_EVENT_STREAMS, "event streams"),
            StreamKind::Game => (MAX_GAME_STREAMS, "game streams"),
        };
        let mut open = self.open.lock().expect("not poisoned");
        let count = open.entry((user, kind)).or_default();
        if *count >= most {
            return Err(ApiError::TooManyStreams(format!(
                "this account has {count} {what} open here, the most it may: close one first"
            )));
        }
        *count += 1;
        Ok(Slot {
            streams: Arc::clone(self),
            key: (user, kind),
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.streams.open.lock().expect("not poisoned");
        if let Some(count) = open.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.remove(&self.key);
            }
        }
    }
}

/// The caller's account, which must be a bot's.
fn bot(caller: &Caller) -> Result<&Member, ApiError> {
    let member = caller.member.as_ref().ok_or(ApiError::NoAccount)?;
    if !member.bot {
        return Err(ApiError::NotBot(member.name.clone()));
    }
    Ok(member)
}

/// `POST /api/bot/account/upgrade`: the account becomes a bot's, for good (only one that
/// has played no game).
#[derive(Serialize)]
struct Upgraded {
    name: String,
    bot: bool,
}

async fn upgrade(
    AxumState(app): AxumState<App>,
    caller: Caller,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<Upgraded>, ApiError> {
    let member = caller.member.as_ref().ok_or(ApiError::NoAccount)?;
    if !member.bot {
        app.accounts.make_bot(member).await?;
        app.hub.forget_bot(member.id);
    }
    Ok(Json(Upgraded {
        name: member.name.clone(),
        bot: true,
    }))
}

/// A game as the event stream names it.
#[derive(Serialize)]
struct GameEvent {
    #[serde(flatten)]
    head: GameHead,
    /// The bot's colour: `B` or `W`.
    color: Option<char>,
    /// Who it plays.
    opponent: Opponent,
    rated: bool,
    clock: Option<super::settings::ClockView>,
    /// Once finished: `B`, `W` or `none` (a draw); `null` when aborted.
    #[serde(skip_serializing_if = "Option::is_none")]
    winner: Option<Option<&'static str>>,
    /// Once finished: how, when not by play (`resign`, `time`, `abort`...).
    #[serde(skip_serializing_if = "Option::is_none")]
    ending: Option<Option<&'static str>>,
}

/// The other seat.
#[derive(Serialize)]
struct Opponent {
    name: String,
    /// Whether it is an account (its page is `/u/NAME`).
    account: bool,
    bot: bool,
}

async fn game_event(app: &App, cell: &GameCell, user: i64, origin: &str, over: bool) -> GameEvent {
    app.hub.refresh_seats(cell).await;
    let listing = cell.listing().await;
    let color = cell.viewer(None, Some(user)).await.seat;
    let other = color.map_or(Color::White, Color::opponent);
    let (winner, ending) = if over {
        let winner = listing.result.map(|winner| match winner {
            Some(Color::Black) => "B",
            Some(Color::White) => "W",
            None => "none",
        });
        (Some(winner), Some(listing.ended.map(Ended::code)))
    } else {
        (None, None)
    };
    GameEvent {
        head: GameHead::of(origin, cell.id.clone(), &listing),
        color: color.map(Color::letter),
        opponent: Opponent {
            name: listing.name(other),
            account: listing.members[other],
            bot: cell.is_bot(other),
        },
        rated: listing.rated,
        clock: super::settings::clock_view(listing.clock),
        winner,
        ending,
    }
}

/// One line of a stream: its type, then the fields of `body`.
#[derive(Serialize)]
struct Line<'a, T: Serialize> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    body: &'a T,
}

fn line<T: Serialize>(kind: &'static str, body: &T) -> Bytes {
    let mut text = serde_json::to_vec(&Line { kind, body }).expect("lines serialize");
    text.push(b'\n');
    Bytes::from(text)
}

/// A streamed answer whose lines `follow` sends, on a task of its own that holds `slot`
/// until it ends.
fn streamed<F>(slot: Slot, follow: impl FnOnce(mpsc::Sender<Bytes>) -> F) -> Response
where
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let (sender, receiver) = mpsc::channel(16);
    let follow = follow(sender);
    tokio::spawn(async move {
        let _slot = slot;
        follow.await;
    });
    ndjson(receiver)
}

/// A streamed answer: newline-delimited JSON from `lines`, which ends when the client goes
/// (its sends fail) or the sender is done.
fn ndjson(lines: mpsc::Receiver<Bytes>) -> Response {
    let stream = futures_util::stream::unfold(lines, |mut lines| async move {
        lines
            .recv()
            .await
            .map(|line| (Ok::<_, std::convert::Infallible>(line), lines))
    });
    (
        [
            (header::CONTENT_TYPE, "application/x-ndjson"),
            (header::CACHE_CONTROL, "no-store"),
            // nginx and others hand each line on at once rather than gather them.
            (header::HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        axum::body::Body::from_stream(stream),
    )
        .into_response()
}

/// Sends `line`; false when the client is gone or has read nothing for `limit`.
async fn send(lines: &mpsc::Sender<Bytes>, line: Bytes, limit: Duration) -> bool {
    lines.send_timeout(line, limit).await.is_ok()
}

/// `GET /api/stream/event`: the account's events, as they come. At the start, a
/// `gameStart` for each game it is playing and a `challenge` for each open challenge to or
/// from it; then `challenge`, `challengeCanceled` (gone without a game: withdrawn,
/// declined or taken elsewhere), `gameStart` and `gameFinish`.
async fn event_stream(
    AxumState(app): AxumState<App>,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let member = caller.member.clone().ok_or(ApiError::NoAccount)?;
    let slot = app.bots.open(member.id, StreamKind::Events)?;
    let origin = origin(&app, &headers);
    let token = caller.token.clone();
    Ok(streamed(slot, |lines| {
        follow_events(app, member, token, origin, lines)
    }))
}

async fn follow_events(
    app: App,
    member: Member,
    token: Option<String>,
    origin: String,
    lines: mpsc::Sender<Bytes>,
) {
    let viewer = lobby::Viewer {
        member: Some(member.id),
        member_name: Some(member.name.clone()),
        secret_hashes: Vec::new(),
    };
    let limit = app.client_timeout;
    let mut seeks_seen = BTreeSet::<String>::new();
    let mut games_seen = BTreeSet::<String>::new();
    let mut seeks_changed = app.lobby.watch();
    let mut games_changed = app.hub.watch_starts_and_ends();
    let mut stopping = app.stopping.clone();
    let mut keepalive =
        tokio::time::interval_at(tokio::time::Instant::now() + KEEPALIVE, KEEPALIVE);
    keepalive.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        seeks_changed.mark_unchanged();
        games_changed.mark_unchanged();
        let mut out = Vec::new();
        // Games first: a challenge taken is a game before it is gone.
        if let Ok(ids) = app.hub.store().playing_of(member.id, MAX_GAMES).await {
            let playing: BTreeSet<String> = ids.into_iter().collect();
            for id in playing.difference(&games_seen) {
                if let Ok(cell) = app.hub.get(id).await {
                    let event = game_event(&app, &cell, member.id, &origin, false).await;
                    out.push(line("gameStart", &GameLine { game: event }));
                }
            }
            for id in games_seen.difference(&playing) {
                if let Ok(cell) = app.hub.get(id).await {
                    let event = game_event(&app, &cell, member.id, &origin, true).await;
                    out.push(line("gameFinish", &GameLine { game: event }));
                }
            }
            games_seen = playing;
        }
        let seeks: BTreeMap<String, lobby::Seek> = app
            .lobby
            .seeks_for(&viewer)
            .into_iter()
            .filter(|seek| {
                viewer.is_poster(seek)
                    || seek
                        .to
                        .as_deref()
                        .is_some_and(|to| to.eq_ignore_ascii_case(&member.name))
            })
            .map(|seek| (seek.id.clone(), seek))
            .collect();
        for (id, seek) in &seeks {
            if !seeks_seen.contains(id) {
                let challenge = super::lobby::seek_view(&app, seek, &viewer, &origin).await;
                out.push(line("challenge", &ChallengeLine { challenge }));
            }
        }
        for id in &seeks_seen {
            // A challenge taken is told as its game's start.
            if !seeks.contains_key(id) && !app.lobby.was_taken(id) {
                let challenge = GoneChallenge { id: id.clone() };
                out.push(line("challengeCanceled", &ChallengeLine { challenge }));
            }
        }
        seeks_seen = seeks.into_keys().collect();
        for text in out {
            if !send(&lines, text, limit).await {
                return;
            }
        }
        tokio::select! {
            changed = seeks_changed.changed() => if changed.is_err() { return },
            changed = games_changed.changed() => if changed.is_err() { return },
            _ = keepalive.tick() => {
                if !keep_alive(&app, token.as_deref(), &lines, limit).await {
                    return;
                }
            }
            // The client went: its place is given back at once.
            () = lines.closed() => return,
            _ = stopping.changed() => return,
        }
    }
}

/// A quiet stream's empty line, if its token still holds: false when the stream is to
/// end.
async fn keep_alive(
    app: &App,
    token: Option<&str>,
    lines: &mpsc::Sender<Bytes>,
    limit: Duration,
) -> bool {
    still_valid(app, token).await && send(lines, Bytes::from_static(b"\n"), limit).await
}

/// Whether the API token a stream was opened with still holds (a revoked one ends its
/// streams within [`KEEPALIVE`]); a stream opened otherwise, or a database that cannot
/// say, goes on.
async fn still_valid(app: &App, token: Option<&str>) -> bool {
    match token {
        Some(token) => !matches!(app.accounts.member(token).await, Ok(None)),
        None => true,
    }
}

#[derive(Serialize)]
struct GameLine {
    game: GameEvent,
}

#[derive(Serialize)]
struct ChallengeLine<T: Serialize> {
    challenge: T,
}

#[derive(Serialize)]
struct GoneChallenge {
    id: String,
}

/// A game's state on its stream: what a bot needs to move.
#[derive(Serialize)]
struct StateLine<'a> {
    /// The moves so far, with `pass` where a side passed.
    moves: &'a [String],
    /// The side to move; `null` once over.
    to_move: Option<char>,
    /// Its legal moves.
    legal: &'a [String],
    board: &'a [String],
    counts: &'a Counts,
    clock: Option<&'a ClockView>,
    /// `playing` or `over`.
    status: &'static str,
    winner: Option<&'static str>,
    ending: Option<&'static str>,
    /// Which seat asked to take a move back (a person may ask; a bot may ignore it).
    undo_request: Option<char>,
    /// Grows at every change: a client keeps the highest.
    version: u64,
}

impl<'a> StateLine<'a> {
    fn of(view: &'a GameView) -> StateLine<'a> {
        StateLine {
            moves: &view.moves,
            to_move: view.to_move,
            legal: &view.legal,
            board: &view.board,
            counts: &view.counts,
            clock: view.clock.as_ref(),
            status: view.status,
            winner: view.winner,
            ending: view.ending,
            undo_request: view.undo_request,
            version: view.version,
        }
    }
}

/// The first line of a game's stream: the game as its page sees it (`you` is the bot's
/// seat), with its state.
#[derive(Serialize)]
struct FullLine<'a> {
    #[serde(flatten)]
    game: &'a GameView,
    state: StateLine<'a>,
}

/// `GET /api/bot/game/stream/{id}`: `gameFull` (the game as its page sees it, and its
/// state), then a `gameState` at each change of the game; the stream ends after the
/// state that says it is over. While it is open the bot's seat counts as connected.
async fn game_stream(
    AxumState(app): AxumState<App>,
    Path(id): Path<String>,
    caller: Caller,
) -> Result<Response, ApiError> {
    let member = bot(&caller)?;
    let cell = app.hub.get(&id).await?;
    let viewer = caller.viewer(&cell).await;
    if viewer.seat.is_none() {
        return Err(ApiError::Forbidden(format!(
            "{} has no seat in game {id}",
            member.name
        )));
    }
    let slot = app.bots.open(member.id, StreamKind::Game)?;
    let token = caller.token.clone();
    Ok(streamed(slot, |lines| {
        follow_game(app, cell, viewer, token, lines)
    }))
}

async fn follow_game(
    app: App,
    cell: Arc<GameCell>,
    viewer: Viewer,
    token: Option<String>,
    lines: mpsc::Sender<Bytes>,
) {
    let limit = app.client_timeout;
    let mut changes = cell.watch();
    let _attendance = app.hub.attend(&cell, viewer.seat).await;
    let mut stopping = app.stopping.clone();
    let mut keepalive =
        tokio::time::interval_at(tokio::time::Instant::now() + KEEPALIVE, KEEPALIVE);
    keepalive.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut sent: Option<u64> = None;
    loop {
        changes.mark_unchanged();
        app.hub.refresh_seats(&cell).await;
        let Ok(view) = views::view(&cell, viewer, None).await else {
            return;
        };
        if sent != Some(view.version) {
            let text = match sent {
                None => line(
                    "gameFull",
                    &FullLine {
                        game: &view,
                        state: StateLine::of(&view),
                    },
                ),
                Some(_) => line("gameState", &StateLine::of(&view)),
            };
            if !send(&lines, text, limit).await {
                return;
            }
            sent = Some(view.version);
            if view.status == "over" {
                return;
            }
        }
        tokio::select! {
            changed = changes.changed() => if changed.is_err() { return },
            _ = keepalive.tick() => {
                if !keep_alive(&app, token.as_deref(), &lines, limit).await {
                    return;
                }
            }
            () = lines.closed() => return,
            _ = stopping.changed() => return,
        }
    }
}

/// A bot's action on game `id`, through the hub's one act path; refused at once after
/// too many refusals ([`REFUSALS`]).
async fn act(app: &App, caller: &Caller, id: &str, action: Action) -> Result<Json<Done>, ApiError> {
    bot(caller)?;
    app.check_refusals(caller)?;
    let done = match app.hub.get(id).await {
        Ok(cell) => app.hub.act(&cell, caller.credentials(), action).await,
        Err(error) => Err(error),
    };
    match done {
        Ok(_) => Ok(Json(Done::OK)),
        Err(error) => {
            app.count_refusal(caller, &error);
            Err(error)
        }
    }
}

/// `POST /api/bot/game/{id}/move/{square}`.
async fn play(
    AxumState(app): AxumState<App>,
    Path((id, square)): Path<(String, String)>,
    caller: Caller,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<Done>, ApiError> {
    let parsed: Square = square.trim().parse().map_err(|_| {
        ApiError::BadRequest(format!(
            "the square must be in standard notation such as d3, not {square:?}"
        ))
    })?;
    act(&app, &caller, &id, Action::Play(parsed)).await
}

/// `POST /api/bot/game/{id}/resign`.
async fn resign(
    AxumState(app): AxumState<App>,
    Path(id): Path<String>,
    caller: Caller,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<Done>, ApiError> {
    act(&app, &caller, &id, Action::Resign).await
}

/// `POST /api/bot/game/{id}/abort`.
async fn abort(
    AxumState(app): AxumState<App>,
    Path(id): Path<String>,
    caller: Caller,
    Body(Empty {}): Body<Empty>,
) -> Result<Json<Done>, ApiError> {
    act(&app, &caller, &id, Action::Abort).await
}
