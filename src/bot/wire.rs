//! What the bot API sends and takes (see docs/api.md), and the HTTP calls that carry it.
//! Only the fields a bot needs are read; others are ignored.

use std::{
    io::{BufRead, BufReader},
    sync::mpsc,
    thread,
    time::Duration,
};

use serde::Deserialize;
use serde_json::Value;

use super::BotError;

/// A line of the event stream.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum Event {
    /// A challenge to or from this account.
    #[serde(rename = "challenge")]
    Challenge {
        /// It.
        challenge: Challenge,
    },
    /// A challenge gone without a game.
    #[serde(rename = "challengeCanceled")]
    ChallengeCanceled {
        /// Its id.
        challenge: Gone,
    },
    /// A game of this account's started (or is being played, at the stream's start).
    #[serde(rename = "gameStart")]
    GameStart {
        /// It.
        game: GameEvent,
    },
    /// A game of this account's finished.
    #[serde(rename = "gameFinish")]
    GameFinish {},
    /// A kind of event this client does not know (a newer server).
    #[serde(other)]
    Other,
}

/// A challenge, as the event stream shows it.
#[derive(Clone, Debug, Deserialize)]
pub struct Challenge {
    /// Its id.
    pub id: String,
    /// Who posted it.
    pub poster: String,
    /// Whether it is this account's own.
    pub mine: bool,
    /// Whether the poster is a bot.
    #[serde(default)]
    pub bot: bool,
    /// `full` or `simple`.
    pub rules: String,
    /// Rows.
    pub rows: u8,
    /// Columns.
    pub columns: u8,
    /// Whether it is rated.
    pub rated: bool,
}

/// A challenge gone.
#[derive(Debug, Deserialize)]
pub struct Gone {
    /// Its id.
    pub id: String,
}

/// A game, as the event stream names it.
#[derive(Debug, Deserialize)]
pub struct GameEvent {
    /// Its id.
    pub id: String,
    /// This account's colour (`B` or `W`).
    pub color: Option<char>,
    /// Who it plays.
    pub opponent: Opponent,
}

/// The other seat.
#[derive(Debug, Deserialize)]
pub struct Opponent {
    /// Its name.
    pub name: String,
}

/// A game's state, as its stream sends it.
#[derive(Clone, Debug, Deserialize)]
pub struct State {
    /// The moves so far, with `pass` where a side passed.
    pub moves: Vec<String>,
    /// The side to move (`B` or `W`), `None` once over.
    pub to_move: Option<char>,
    /// Its legal moves.
    pub legal: Vec<String>,
    /// The board, a string per row from the top.
    pub board: Vec<String>,
    /// The clocks of a timed game.
    pub clock: Option<Clock>,
    /// `playing` or `over`.
    pub status: String,
    /// `B`, `W` or `none` once over (`None` when aborted).
    pub winner: Option<String>,
    /// How it ended, when not by play.
    pub ending: Option<String>,
    /// Discs of each colour.
    pub counts: Counts,
    /// Grows at every change.
    pub version: u64,
}

/// Discs of each colour.
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct Counts {
    /// Black's.
    #[serde(rename = "B")]
    pub black: u32,
    /// White's.
    #[serde(rename = "W")]
    pub white: u32,
}

/// A timed game's clocks, in milliseconds.
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct Clock {
    /// Black's time left.
    #[serde(rename = "B")]
    pub black_ms: u64,
    /// White's.
    #[serde(rename = "W")]
    pub white_ms: u64,
}

/// The first line of a game's stream.
#[derive(Debug, Deserialize)]
pub struct Full {
    /// `full` or `simple`.
    pub rules: String,
    /// Rows.
    pub rows: u8,
    /// Columns.
    pub columns: u8,
    /// Who moved first.
    pub first: char,
    /// `most` or `fewest`.
    pub win: String,
    /// This bot's seat.
    pub you: Option<char>,
    /// The state now.
    pub state: State,
}

/// A line of a game's stream.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum GameLine {
    /// The game, first.
    #[serde(rename = "gameFull")]
    Full(Box<Full>),
    /// A new state.
    #[serde(rename = "gameState")]
    State(State),
    /// Anything newer.
    #[serde(other)]
    Other,
}

/// A streamed line: its JSON, or the stream's end (`Err`: how it broke).
pub type Received = Result<String, String>;

/// The server, as a bot's token sees it.
#[derive(Clone, Debug)]
pub struct Client {
    agent: ureq::Agent,
    server: String,
    token: String,
}

/// A quiet stream is given up after this long (the server sends an empty line every
/// few seconds).
pub const SILENCE: Duration = Duration::from_secs(30);

impl Client {
    /// A client of `server` (`http://host:port`) with API token `token`.
    pub fn new(server: &str, token: &str) -> Client {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(10)))
            .timeout_recv_response(Some(Duration::from_secs(60)))
            .build()
            .into();
        Client {
            agent,
            server: server.trim_end_matches('/').to_owned(),
            token: token.to_owned(),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}/api{path}", self.server)
    }

    fn bearer(&self) -> String {
        format!("Bearer {}", self.token)
    }

    /// `POST /api{path}` with `body` (JSON; `None`: empty): the status and the answer
    /// (with the `Retry-After` header's seconds as `retry_after`, when sent).
    ///
    /// # Errors
    /// [`BotError::Http`] when the server cannot be reached.
    pub fn post(&self, path: &str, body: Option<&Value>) -> Result<(u16, Value), BotError> {
        let request = self
            .agent
            .post(self.url(path))
            .header("Authorization", self.bearer());
        let response = match body {
            Some(body) => request.send_json(body),
            None => request.send_empty(),
        }
        .map_err(|error| BotError::Http(format!("POST {path}: {error}")))?;
        answer(&format!("POST {path}"), response)
    }

    /// `GET /api{path}`: the status and the answer.
    ///
    /// # Errors
    /// [`BotError::Http`] when the server cannot be reached.
    pub fn get(&self, path: &str) -> Result<(u16, Value), BotError> {
        let response = self
            .agent
            .get(self.url(path))
            .header("Authorization", self.bearer())
            .call()
            .map_err(|error| BotError::Http(format!("GET {path}: {error}")))?;
        answer(&format!("GET {path}"), response)
    }

    /// Opens the stream `GET /api{path}`: its lines arrive on the receiver as they come
    /// (empty keep-alive lines left out), then `Err` with why it ended; a stream silent
    /// for [`SILENCE`] is given up.
    ///
    /// # Errors
    /// [`BotError::Http`] when the server cannot be reached; [`BotError::Refused`] when it
    /// answers with an error.
    pub fn stream(&self, path: &str) -> Result<Lines, BotError> {
        let response = self
            .agent
            .get(self.url(path))
            .header("Authorization", self.bearer())
            .call()
            .map_err(|error| BotError::Http(format!("GET {path}: {error}")))?;
        let status = response.status().as_u16();
        if status != 200 {
            let text = response.into_body().read_to_string().unwrap_or_default();
            return Err(BotError::Refused(format!("GET {path}: {status} {text}")));
        }
        let reader = BufReader::new(response.into_body().into_reader());
        let (sender, receiver) = mpsc::channel();
        thread::spawn(move || {
            for line in reader.lines() {
                match line {
                    Ok(line) => {
                        if sender.send(Ok(line)).is_err() {
                            return;
                        }
                    }
                    Err(error) => {
                        let _ = sender.send(Err(error.to_string()));
                        return;
                    }
                }
            }
            let _ = sender.send(Err("the server ended the stream".to_owned()));
        });
        Ok(Lines { receiver })
    }
}

/// A response's status and JSON (`null` when it is not JSON), with the `Retry-After`
/// header's seconds as `retry_after`, when sent.
fn answer(
    what: &str,
    response: ureq::http::Response<ureq::Body>,
) -> Result<(u16, Value), BotError> {
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok());
    let text = response
        .into_body()
        .read_to_string()
        .map_err(|error| BotError::Http(format!("{what}: {error}")))?;
    let mut value = serde_json::from_str(&text).unwrap_or(Value::Null);
    if let (Some(seconds), Some(object)) = (retry_after, value.as_object_mut()) {
        object.insert("retry_after".into(), seconds.into());
    }
    Ok((status, value))
}

/// A stream's lines.
#[derive(Debug)]
pub struct Lines {
    receiver: mpsc::Receiver<Received>,
}

impl Iterator for Lines {
    type Item = Received;

    /// The next line with something in it; `Err` once, when the stream ends, breaks or is
    /// silent for [`SILENCE`]; then `None`.
    fn next(&mut self) -> Option<Received> {
        loop {
            match self.receiver.recv_timeout(SILENCE) {
                Ok(Ok(line)) if line.trim().is_empty() => continue,
                Ok(received) => return Some(received),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    // The reading thread ends on its own when the connection does.
                    let (_, empty) = mpsc::channel();
                    self.receiver = empty;
                    return Some(Err(format!("silent for {} s", SILENCE.as_secs())));
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            }
        }
    }
}
