//! The live channel (a WebSocket at `/api/games/{id}/events`): the client says hello, with
//! a seat's secret or none (a member's session cookie opens their seat too); the server answers with the game's state as that viewer sees
//! it, and again after every change (a move, an undo, someone connecting or leaving).
//!
//! Client to server: `{"type":"hello","secret":"..."}` (or `{"type":"hello"}` to watch).
//! Server to client: `{"type":"state","state":{...}}`, and `{"type":"error","error":{...}}`
//! for a hello it cannot take (the connection then stays a spectator's).

use std::{sync::Arc, time::Duration};

use axum::extract::ws::{Message, Utf8Bytes, WebSocket};
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use super::{
    game::GameCell,
    live::Hub,
    views::{self, GameView},
};

/// The read buffer of a live connection, and the largest message a client may send.
pub const BUFFER: usize = 4096;

/// `upgrade` with the small buffers of a live connection: a hello in and states (a few
/// KiB) out, and a thousand games hold two each.
pub fn small_buffers(
    upgrade: axum::extract::ws::WebSocketUpgrade,
) -> axum::extract::ws::WebSocketUpgrade {
    upgrade
        .read_buffer_size(BUFFER)
        .write_buffer_size(0)
        .max_message_size(BUFFER)
        .max_frame_size(BUFFER)
}

/// The upgrade a live channel's request asked for, with the small buffers of a live
/// connection ([`small_buffers`]).
///
/// # Errors
/// [`ApiError::BadRequest`] for a request that is not a WebSocket's, naming `what`.
pub fn upgrade(
    upgrade: Result<
        axum::extract::ws::WebSocketUpgrade,
        axum::extract::ws::rejection::WebSocketUpgradeRejection,
    >,
    what: &str,
) -> Result<axum::extract::ws::WebSocketUpgrade, super::error::ApiError> {
    upgrade.map(small_buffers).map_err(|rejection| {
        super::error::ApiError::BadRequest(format!(
            "{what} is a WebSocket: {}",
            rejection.body_text()
        ))
    })
}

/// How long a client has to say hello.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// Pings go out this many times within the silence a connection is allowed, so a live
/// peer answers at least once before it would be dropped.
const PINGS_PER_SILENCE: u32 = 3;

/// A client's first message.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
enum ClientMessage {
    Hello {
        #[serde(default)]
        secret: Option<String>,
    },
}

/// What the server sends.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum ServerMessage<'a> {
    State { state: &'a GameView },
    Error { error: ErrorBody<'a> },
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    code: &'a str,
    message: &'a str,
}

fn text(message: &ServerMessage<'_>) -> Message {
    let json = serde_json::to_string(message).expect("states serialize");
    Message::Text(Utf8Bytes::from(json))
}

/// Sends `message`; false if the connection failed or took longer than `limit` to take it
/// (a peer that reads nothing fills its buffers, and then a send waits for ever).
async fn send(socket: &mut WebSocket, message: Message, limit: Duration) -> bool {
    matches!(
        tokio::time::timeout(limit, socket.send(message)).await,
        Ok(Ok(()))
    )
}

/// Serves one connection until the client leaves or the server stops.
pub async fn serve(
    mut socket: WebSocket,
    hub: Arc<Hub>,
    cell: Arc<GameCell>,
    mut stopping: watch::Receiver<bool>,
    silence: Duration,
    member: Option<i64>,
) {
    let secret = match tokio::time::timeout(HELLO_TIMEOUT, socket.recv()).await {
        Ok(Some(Ok(Message::Text(hello)))) => {
            match serde_json::from_str::<ClientMessage>(hello.as_str()) {
                Ok(ClientMessage::Hello { secret }) => secret,
                Err(error) => {
                    let message = error.to_string();
                    let error = ServerMessage::Error {
                        error: ErrorBody {
                            code: "bad_hello",
                            message: &message,
                        },
                    };
                    let _ = send(&mut socket, text(&error), silence).await;
                    None
                }
            }
        }
        // Anything else (binary, a close, silence): a spectator, if it stays.
        Ok(Some(Ok(_))) | Err(_) => None,
        Ok(Some(Err(_)) | None) => return,
    };
    let viewer = cell.viewer(secret.as_deref(), member).await;
    if secret.is_some() && viewer.seat.is_none() && !viewer.control {
        let error = ServerMessage::Error {
            error: ErrorBody {
                code: "forbidden",
                message: "this secret opens no seat of this game: watching only",
            },
        };
        if !send(&mut socket, text(&error), silence).await {
            return;
        }
    }
    let mut changes = cell.watch();
    let _attendance = hub.attend(&cell, viewer.seat).await;
    // A peer that stops answering (a laptop closed, a network gone) is let go: pings go
    // out regularly, and a connection silent for `silence` is closed.
    let mut pings = tokio::time::interval(silence / PINGS_PER_SILENCE);
    pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    pings.tick().await;
    let mut heard = tokio::time::Instant::now();
    loop {
        // Marked seen before rendering: a change while rendering wakes the next round.
        changes.mark_unchanged();
        hub.refresh_seats(&cell).await;
        let message = match views::view(&cell, viewer, None).await {
            Ok(state) => text(&ServerMessage::State { state: &state }),
            Err(_) => return,
        };
        if !send(&mut socket, message, silence).await {
            return;
        }
        loop {
            tokio::select! {
                changed = changes.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    break;
                }
                received = socket.recv() => match received {
                    Some(Ok(Message::Close(_)) | Err(_)) | None => return,
                    // Pongs and anything else: the peer is there. (Its pings are answered
                    // by the library; other messages are ignored.)
                    Some(Ok(_)) => heard = tokio::time::Instant::now(),
                },
                _ = pings.tick() => {
                    if heard.elapsed() >= silence {
                        let _ = send(&mut socket, Message::Close(None), silence).await;
                        return;
                    }
                    if !send(&mut socket, Message::Ping(Default::default()), silence).await {
                        return;
                    }
                }
                _ = stopping.changed() => {
                    let _ = send(&mut socket, Message::Close(None), silence).await;
                    return;
                }
            }
        }
    }
}

/// Lobby updates go out at most this often to each watcher: the first change after a quiet
/// spell goes at once, and a burst of changes (a thousand games starting) is gathered into
/// one update a period, not one per change.
const LOBBY_GATHER: Duration = Duration::from_millis(100);

/// A watcher's lobby is sent again this often with no change, so that a game left idle
/// leaves its list of games being played (the lists are made again once a minute).
const LOBBY_REFRESH: Duration = Duration::from_secs(60);

/// The most guest secrets a lobby hello may name.
const MAX_SECRETS: usize = 16;

/// A lobby client's first message: the secrets of the guest challenges its page posted.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
enum LobbyHello {
    Hello {
        #[serde(default)]
        secrets: Vec<String>,
    },
}

/// What the lobby's channel sends.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum LobbyMessage<'a, V> {
    Lobby { lobby: &'a V },
    Tournament { tournament: &'a V },
}

/// What a channel served by [`serve_lobby`] carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// The lobby (`{"type":"lobby","lobby":...}`).
    Lobby,
    /// A tournament (`{"type":"tournament","tournament":...}`).
    Tournament,
}

/// Serves one connection to the lobby's live channel (`/api/lobby/events`), or a
/// tournament's (`channel`): after the hello (`{"type":"hello","secrets":[...]}`,
/// optional), the view as `render` makes it for that viewer, and again whenever one of
/// `changes` fires (a challenge posted, taken or withdrawn; a game started or ended; the
/// tournament changed).
pub async fn serve_lobby<V, F, R>(
    mut socket: WebSocket,
    channel: Channel,
    render: R,
    mut changes: Vec<watch::Receiver<u64>>,
    mut stopping: watch::Receiver<bool>,
    silence: Duration,
) where
    V: Serialize,
    F: std::future::Future<Output = Option<V>>,
    R: Fn(Vec<String>) -> F,
{
    let secrets = match tokio::time::timeout(HELLO_TIMEOUT, socket.recv()).await {
        Ok(Some(Ok(Message::Text(hello)))) => {
            match serde_json::from_str::<LobbyHello>(hello.as_str()) {
                Ok(LobbyHello::Hello { mut secrets }) => {
                    secrets.truncate(MAX_SECRETS);
                    secrets
                }
                Err(_) => Vec::new(),
            }
        }
        Ok(Some(Ok(_))) | Err(_) => Vec::new(),
        Ok(Some(Err(_)) | None) => return,
    };
    let mut pings = tokio::time::interval(silence / PINGS_PER_SILENCE);
    pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    pings.tick().await;
    let mut heard = tokio::time::Instant::now();
    // Sent again now and then with no change: a game left idle leaves the list.
    let mut refresh =
        tokio::time::interval_at(tokio::time::Instant::now() + LOBBY_REFRESH, LOBBY_REFRESH);
    refresh.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        for change in &mut changes {
            change.mark_unchanged();
        }
        let Some(view) = render(secrets.clone()).await else {
            return;
        };
        let message = match channel {
            Channel::Lobby => LobbyMessage::Lobby { lobby: &view },
            Channel::Tournament => LobbyMessage::Tournament { tournament: &view },
        };
        let json = serde_json::to_string(&message).expect("the lobby serializes");
        if !send(&mut socket, Message::Text(Utf8Bytes::from(json)), silence).await {
            return;
        }
        let sent = tokio::time::Instant::now();
        loop {
            tokio::select! {
                changed = any_changed(&mut changes) => {
                    if changed.is_err() {
                        return;
                    }
                    tokio::time::sleep(LOBBY_GATHER.saturating_sub(sent.elapsed())).await;
                    break;
                }
                _ = refresh.tick() => break,
                received = socket.recv() => match received {
                    Some(Ok(Message::Close(_)) | Err(_)) | None => return,
                    Some(Ok(_)) => heard = tokio::time::Instant::now(),
                },
                _ = pings.tick() => {
                    if heard.elapsed() >= silence {
                        let _ = send(&mut socket, Message::Close(None), silence).await;
                        return;
                    }
                    if !send(&mut socket, Message::Ping(Default::default()), silence).await {
                        return;
                    }
                }
                _ = stopping.changed() => {
                    let _ = send(&mut socket, Message::Close(None), silence).await;
                    return;
                }
            }
        }
    }
}

/// Waits until one of `changes` changes (an error once one's sender is gone).
async fn any_changed(changes: &mut [watch::Receiver<u64>]) -> Result<(), watch::error::RecvError> {
    let waits = changes.iter_mut().map(|change| Box::pin(change.changed()));
    futures_util::future::select_all(waits).await.0
}
