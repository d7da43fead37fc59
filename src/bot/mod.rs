//! `othello bot`'s client: the project's engine (any player spec) plays on a server
//! through its bot API ([`wire`]): it follows the account's events, accepts or declines
//! challenges, posts its own, and plays each game on a thread of its own, from the game's
//! stream. Every stream is opened again after a break (a server restart), and every state
//! received is checked: its moves, replayed from the start, must give its board (a
//! desync otherwise), and a move the server refuses as illegal is counted.

mod wire;

use std::{
    collections::HashSet,
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use othello::{
    AnyGame, Color, Setup, Shape, Square, Variant, WinRule,
    engine::{EngineSettings, Limits, PlayerSpec, new_player_with},
    on_rules,
};
use serde_json::{Value, json};

pub use wire::Client;
use wire::{Event, GameLine, State};

/// Why the bot stopped.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// The server could not be reached (after retrying where retrying helps).
    #[error("{0}")]
    Http(String),
    /// The server refused what the bot asked.
    #[error("{0}")]
    Refused(String),
}

/// Which challenges to other accounts' the bot accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accept {
    /// Every one it can play.
    All,
    /// From bots only.
    Bots,
    /// None (declined).
    None,
}

/// A challenge the bot posts, again after each game, to play a series.
#[derive(Clone, Debug)]
pub struct Series {
    /// The member challenged.
    pub opponent: String,
    /// The challenge's settings (`rules`, `rows`, `columns`, `win`, `clock`, `rated`,
    /// `color`), as `POST /api/challenge/{name}` takes them.
    pub settings: Value,
}

/// What `othello bot` is asked to do.
#[derive(Clone, Debug)]
pub struct BotOptions {
    /// The player.
    pub player: PlayerSpec,
    /// Its engine's settings.
    pub engine: EngineSettings,
    /// Its longest think per move (less when its clock is short).
    pub move_time: Duration,
    /// Which challenges it accepts.
    pub accept: Accept,
    /// A series it posts challenges for.
    pub series: Option<Series>,
    /// Stop after this many games finished (`None`: run until stopped).
    pub games: Option<u32>,
    /// Seed of the players' random choices.
    pub seed: u64,
}

/// One game's result, as the bot saw it.
#[derive(Clone, Debug, Default)]
pub struct Played {
    /// The game's id.
    pub id: String,
    /// The bot's colour.
    pub color: Option<Color>,
    /// The other seat's name.
    pub opponent: String,
    /// The last state.
    pub last: Option<State>,
    /// Moves the server refused as illegal.
    pub illegal: u32,
    /// States whose moves did not give their board, or that went back in version.
    pub desyncs: u32,
    /// Streams opened again after a break.
    pub reconnects: u32,
}

impl Played {
    /// `won`, `lost`, `drawn` or `aborted`.
    pub fn result(&self) -> &'static str {
        let winner = self.last.as_ref().and_then(|state| state.winner.as_deref());
        match (winner, self.color) {
            (Some("none"), _) => "drawn",
            (Some("B"), Some(Color::Black)) | (Some("W"), Some(Color::White)) => "won",
            (Some("B" | "W"), Some(_)) => "lost",
            _ => "aborted",
        }
    }

    /// The line printed for it: `game ID: won 20-16 against NAME as B (ending)`.
    pub fn line(&self) -> String {
        let (black, white) = self
            .last
            .as_ref()
            .map_or((0, 0), |state| (state.counts.black, state.counts.white));
        let ending = self
            .last
            .as_ref()
            .and_then(|state| state.ending.clone())
            .unwrap_or_else(|| "played out".to_owned());
        format!(
            "game {}: {} {black}-{white} against {} as {} ({ending}); illegal moves {}, desyncs {}, reconnects {}",
            self.id,
            self.result(),
            self.opponent,
            self.color.map_or('?', Color::letter),
            self.illegal,
            self.desyncs,
            self.reconnects,
        )
    }
}

/// The totals printed at the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Games finished.
    pub games: u32,
    /// Won.
    pub won: u32,
    /// Drawn.
    pub drawn: u32,
    /// Lost.
    pub lost: u32,
    /// Aborted.
    pub aborted: u32,
    /// Moves refused as illegal.
    pub illegal: u32,
    /// Desyncs seen.
    pub desyncs: u32,
}

impl Totals {
    fn add(&mut self, played: &Played) {
        self.games += 1;
        match played.result() {
            "won" => self.won += 1,
            "drawn" => self.drawn += 1,
            "lost" => self.lost += 1,
            _ => self.aborted += 1,
        }
        self.illegal += played.illegal;
        self.desyncs += played.desyncs;
    }

    /// `games N: W won, D drawn, L lost, A aborted; illegal moves I, desyncs S`.
    pub fn line(&self) -> String {
        format!(
            "games {}: {} won, {} drawn, {} lost, {} aborted; illegal moves {}, desyncs {}",
            self.games, self.won, self.drawn, self.lost, self.aborted, self.illegal, self.desyncs
        )
    }
}

/// A series' challenge gone for this long with no game started was declined.
const DECLINED_AFTER: Duration = Duration::from_secs(10);

/// The longest wait between two tries to reach the server.
const MOST_BACKOFF: Duration = Duration::from_secs(10);

/// What the threads tell the main loop.
enum Message {
    Event(Event),
    /// The event stream broke (and is being opened again).
    Lost(String),
    Done(Box<Played>),
}

/// Plays on the server as `options` say until `options.games` games have finished, `stop`
/// is set (Ctrl-C) or `report` answers false (its output closed), calling `report` with
/// each game's line as it finishes, and with notices. On the way out it withdraws its
/// open challenge (games being played are left to their clocks).
///
/// # Errors
/// [`BotError`] when the account cannot play as a bot (a refused stream, a challenge
/// refused), not for a server that is down for a while (it is tried again).
pub fn run(
    client: &Client,
    options: &BotOptions,
    stop: &std::sync::atomic::AtomicBool,
    report: &mut dyn FnMut(&str) -> bool,
) -> Result<Totals, BotError> {
    let (sender, receiver) = mpsc::channel();
    follow_events(client.clone(), sender.clone())?;
    let mut session = Session {
        client,
        options,
        sender,
        totals: Totals::default(),
        playing: HashSet::new(),
        finished: HashSet::new(),
        posted: None,
        started: 0,
        wanted: options.games.unwrap_or(u32::MAX),
        post_next: options.series.is_some(),
        canceled_at: None,
        accepts: Vec::new(),
    };
    let result = session.go(&receiver, stop, report);
    if let Some(id) = session.posted.take() {
        let _ = client.post(&format!("/challenge/{id}/cancel"), None);
    }
    result.map(|()| session.totals)
}

/// What the bot's main loop keeps.
struct Session<'a> {
    client: &'a Client,
    options: &'a BotOptions,
    sender: mpsc::Sender<Message>,
    totals: Totals,
    playing: HashSet<String>,
    finished: HashSet<String>,
    /// The series' open challenge.
    posted: Option<String>,
    started: u32,
    wanted: u32,
    /// Whether the series' next challenge is to be posted.
    post_next: bool,
    /// When the series' challenge left the lobby with no game seen yet.
    canceled_at: Option<Instant>,
    /// Challenges to accept once the server allows (it said to wait): when, and which.
    accepts: Vec<(Instant, wire::Challenge)>,
}

impl Session<'_> {
    /// The loop: `Ok` when done or stopped.
    fn go(
        &mut self,
        receiver: &mpsc::Receiver<Message>,
        stop: &std::sync::atomic::AtomicBool,
        report: &mut dyn FnMut(&str) -> bool,
    ) -> Result<(), BotError> {
        loop {
            if stop.load(std::sync::atomic::Ordering::SeqCst) {
                return Ok(());
            }
            if self.post_next
                && self.posted.is_none()
                && self.playing.is_empty()
                && self.started < self.wanted
                && let Some(series) = &self.options.series
            {
                self.posted = post_challenge(self.client, series, stop, report)?;
                if self.posted.is_none() {
                    return Ok(());
                }
                self.post_next = false;
            }
            let due: Vec<wire::Challenge> = {
                let now = Instant::now();
                let (due, later) = std::mem::take(&mut self.accepts)
                    .into_iter()
                    .partition(|(at, _)| *at <= now);
                self.accepts = later;
                due.into_iter().map(|(_, challenge)| challenge).collect()
            };
            for challenge in due {
                if !self.answer(challenge, report)? {
                    return Ok(());
                }
            }
            let message = match receiver.recv_timeout(Duration::from_secs(1)) {
                Ok(message) => message,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let (Some(at), Some(series)) = (self.canceled_at, &self.options.series)
                        && at.elapsed() > DECLINED_AFTER
                        && self.playing.is_empty()
                    {
                        return Err(BotError::Refused(format!(
                            "{} declined the challenge (or it was withdrawn)",
                            series.opponent
                        )));
                    }
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(BotError::Http("the event stream's reader stopped".into()));
                }
            };
            let going = match message {
                Message::Event(Event::Challenge { challenge }) if !challenge.mine => {
                    self.answer(challenge, report)?
                }
                Message::Event(Event::ChallengeCanceled { challenge }) => {
                    if self.posted.as_deref() == Some(challenge.id.as_str()) {
                        // Taken (its game is on its way) or declined: a game start says
                        // which.
                        self.posted = None;
                        self.canceled_at = Some(Instant::now());
                    }
                    self.accepts
                        .retain(|(_, waiting)| waiting.id != challenge.id);
                    true
                }
                Message::Event(Event::GameStart { game }) => {
                    self.start(game);
                    true
                }
                Message::Event(_) => true,
                Message::Lost(why) => report(&format!("event stream: {why}; connecting again")),
                Message::Done(played) => {
                    self.playing.remove(&played.id);
                    self.finished.insert(played.id.clone());
                    self.totals.add(&played);
                    self.post_next = self.options.series.is_some();
                    report(&played.line()) && self.totals.games < self.wanted
                }
            };
            if !going {
                return Ok(());
            }
        }
    }

    /// Accepts or declines `challenge` as the options say; a refusal to wait is kept for
    /// later. False when `report` says to stop.
    fn answer(
        &mut self,
        challenge: wire::Challenge,
        report: &mut dyn FnMut(&str) -> bool,
    ) -> Result<bool, BotError> {
        let take = match self.options.accept {
            Accept::All => true,
            Accept::Bots => challenge.bot,
            Accept::None => false,
        } && self.started < self.wanted;
        let verb = if take { "accept" } else { "decline" };
        let (status, answer) = self
            .client
            .post(&format!("/challenge/{}/{verb}", challenge.id), None)?;
        let mut line = format!(
            "challenge {} from {} ({} {}x{}{}): {verb} -> {status}",
            challenge.id,
            challenge.poster,
            challenge.rules,
            challenge.rows,
            challenge.columns,
            if challenge.rated { ", rated" } else { "" },
        );
        if status >= 300 {
            line.push_str(&format!(" {}", answer["error"]["message"]));
        }
        if matches!(status, 429 | 503) {
            let seconds = answer["retry_after"].as_u64().unwrap_or(1).clamp(1, 900);
            line.push_str(&format!("; trying again in {seconds} s"));
            self.accepts
                .push((Instant::now() + Duration::from_secs(seconds), challenge));
        }
        Ok(report(&line))
    }

    /// Plays `game` on a thread of its own (once).
    fn start(&mut self, game: wire::GameEvent) {
        if self.finished.contains(&game.id) || !self.playing.insert(game.id.clone()) {
            return;
        }
        self.started += 1;
        if self.options.series.is_some() {
            self.posted = None;
            self.canceled_at = None;
        }
        let client = self.client.clone();
        let sender = self.sender.clone();
        let options = self.options.clone();
        thread::spawn(move || {
            let played = play_game(&client, &options, game);
            let _ = sender.send(Message::Done(Box::new(played)));
        });
    }
}

/// Posts the series' challenge: its id. Waits as long as the server asks when challenges
/// are made too fast, and retries a server that is down for a while.
fn post_challenge(
    client: &Client,
    series: &Series,
    stop: &std::sync::atomic::AtomicBool,
    report: &mut dyn FnMut(&str) -> bool,
) -> Result<Option<String>, BotError> {
    let mut tries = 0;
    loop {
        if stop.load(std::sync::atomic::Ordering::SeqCst) {
            return Ok(None);
        }
        let wait = match client.post(
            &format!("/challenge/{}", series.opponent),
            Some(&series.settings),
        ) {
            Ok((201, answer)) => {
                return answer["seek"]["id"]
                    .as_str()
                    .map(|id| Some(id.to_owned()))
                    .ok_or_else(|| BotError::Refused(format!("a challenge answered {answer}")));
            }
            Ok((429 | 503, answer)) => {
                let seconds = answer["retry_after"].as_u64().unwrap_or(1).clamp(1, 900);
                if !report(&format!(
                    "challenge to {}: {}; waiting {seconds} s",
                    series.opponent, answer["error"]["message"]
                )) {
                    return Ok(None);
                }
                Duration::from_secs(seconds)
            }
            Err(BotError::Http(_)) if tries < 60 => backoff(tries),
            Ok((status, answer)) => {
                return Err(BotError::Refused(format!(
                    "the challenge to {} was refused: {status} {answer}",
                    series.opponent
                )));
            }
            Err(error) => return Err(error),
        };
        tries += 1;
        // Asleep a second at a time, so that Ctrl-C is heard.
        let until = Instant::now() + wait;
        while Instant::now() < until && !stop.load(std::sync::atomic::Ordering::SeqCst) {
            thread::sleep(
                until
                    .saturating_duration_since(Instant::now())
                    .min(Duration::from_secs(1)),
            );
        }
    }
}

fn backoff(tries: u32) -> Duration {
    (Duration::from_millis(250) * 2_u32.saturating_pow(tries.min(6))).min(MOST_BACKOFF)
}

/// Follows the event stream on a thread of its own, opening it again whenever it breaks.
///
/// # Errors
/// [`BotError::Refused`] when the first opening is refused (a bad token, not a bot).
fn follow_events(client: Client, sender: mpsc::Sender<Message>) -> Result<(), BotError> {
    let first = client.stream("/stream/event")?;
    thread::spawn(move || {
        let mut lines = Some(first);
        let mut tries = 0;
        loop {
            let stream = match lines.take() {
                Some(stream) => Ok(stream),
                None => client.stream("/stream/event"),
            };
            match stream {
                Ok(stream) => {
                    tries = 0;
                    for line in stream {
                        match line {
                            Ok(text) => match serde_json::from_str::<Event>(&text) {
                                Ok(event) => {
                                    if sender.send(Message::Event(event)).is_err() {
                                        return;
                                    }
                                }
                                Err(error) => {
                                    let why = format!("a line not understood ({error}): {text}");
                                    if sender.send(Message::Lost(why)).is_err() {
                                        return;
                                    }
                                }
                            },
                            Err(why) => {
                                if sender.send(Message::Lost(why)).is_err() {
                                    return;
                                }
                            }
                        }
                    }
                }
                Err(error) => {
                    if sender.send(Message::Lost(error.to_string())).is_err() {
                        return;
                    }
                }
            }
            tries += 1;
            thread::sleep(backoff(tries));
        }
    });
    Ok(())
}

/// What a game's stream told so far.
struct Seen {
    variant: Variant,
    setup: Setup,
    you: Option<Color>,
    version: u64,
}

/// Plays game `game` to its end from its stream, opened again after each break.
fn play_game(client: &Client, options: &BotOptions, game: wire::GameEvent) -> Played {
    let mut played = Played {
        id: game.id.clone(),
        color: game.color.and_then(letter),
        opponent: game.opponent.name,
        ..Played::default()
    };
    let mut seen: Option<Seen> = None;
    let mut tries = 0;
    let mut moved_at = None;
    let started = Instant::now();
    loop {
        let stream = match client.stream(&format!("/bot/game/stream/{}", game.id)) {
            Ok(stream) => stream,
            Err(BotError::Refused(why)) if why.contains(" 404 ") || why.contains(" 403 ") => {
                return played;
            }
            Err(_) => {
                tries += 1;
                // A server gone for good: give the game up after a while.
                if started.elapsed() > Duration::from_secs(3600) {
                    return played;
                }
                thread::sleep(backoff(tries));
                continue;
            }
        };
        if tries > 0 || played.reconnects > 0 || seen.is_some() {
            played.reconnects += 1;
        }
        tries = 0;
        for line in stream {
            let Ok(text) = line else {
                break;
            };
            let state = match serde_json::from_str::<GameLine>(&text) {
                Ok(GameLine::Full(full)) => {
                    let variant = full.rules.parse().unwrap_or(Variant::Full);
                    let shape = Shape::new(full.rows, full.columns).unwrap_or(Shape::STANDARD);
                    let mut setup = Setup::standard(shape);
                    setup.first_mover = letter(full.first).unwrap_or(Color::Black);
                    setup.win_rule = WinRule::from_name(&full.win).unwrap_or(WinRule::MostDiscs);
                    let you = full.you.and_then(letter);
                    if you.is_some() {
                        played.color = you;
                    }
                    if let Some(before) = &seen
                        && full.state.version < before.version
                    {
                        played.desyncs += 1;
                    }
                    seen = Some(Seen {
                        variant,
                        setup,
                        you,
                        version: full.state.version,
                    });
                    full.state
                }
                Ok(GameLine::State(state)) => {
                    if let Some(before) = &mut seen {
                        if state.version < before.version {
                            played.desyncs += 1;
                        }
                        before.version = state.version;
                    }
                    state
                }
                Ok(GameLine::Other) | Err(_) => continue,
            };
            let Some(seen) = &seen else {
                continue;
            };
            let over = state.status == "over";
            let game = replay(seen, &state);
            if game.is_none() {
                played.desyncs += 1;
            }
            let to_move = state.to_move.and_then(letter);
            let mine = !over && to_move.is_some() && to_move == seen.you;
            let version = state.version;
            played.last = Some(state);
            if over {
                return played;
            }
            if !mine || moved_at == Some(version) {
                continue;
            }
            let Some(game) = game else {
                // Its position is not known: better resign than move blind.
                let _ = client.post(&format!("/bot/game/{}/resign", played.id), None);
                continue;
            };
            let left = played.last.as_ref().and_then(|state| {
                state.clock.map(|clock| match seen.you {
                    Some(Color::White) => clock.white_ms,
                    _ => clock.black_ms,
                })
            });
            let Some(square) = choose(&game, options, &played.id, left) else {
                continue;
            };
            match client.post(&format!("/bot/game/{}/move/{square}", played.id), None) {
                Ok((200, _)) => moved_at = Some(version),
                Ok((_, answer)) if answer["error"]["code"] == "illegal_move" => {
                    played.illegal += 1;
                    moved_at = Some(version);
                }
                // Refused as the game stands (it moved on meanwhile): the next state says
                // what to do.
                Ok((400..=499, _)) => moved_at = Some(version),
                // The server gone or failing (a restart): not played, so the same state,
                // when it comes again, is moved in again.
                Ok(_) | Err(_) => {}
            }
        }
        tries += 1;
        thread::sleep(backoff(tries));
    }
}

/// The colour of `B` or `W`.
fn letter(letter: char) -> Option<Color> {
    u8::try_from(letter).ok().and_then(Color::from_letter)
}

/// The game of `state`, replayed from the start; `None` when its moves do not replay or
/// do not give its board (a desync).
fn replay(seen: &Seen, state: &State) -> Option<AnyGame> {
    let moves: Vec<Square> = state
        .moves
        .iter()
        .filter(|text| *text != "pass")
        .map(|text| text.parse().ok())
        .collect::<Option<_>>()?;
    let game = AnyGame::replay(seen.variant, seen.setup, moves).ok()?;
    let board = game.board();
    let shape = board.shape();
    for (row, text) in state.board.iter().enumerate() {
        if text.len() != usize::from(shape.columns()) {
            return None;
        }
        for (column, cell) in text.chars().enumerate() {
            let square = shape.square(row, column)?;
            let here = match board.at(square) {
                Some(Color::Black) => 'B',
                Some(Color::White) => 'W',
                None => '.',
            };
            if here != cell {
                return None;
            }
        }
    }
    // A game ended by resignation, time or abort has moves left but none to play.
    if state.status != "playing" {
        return (state.board.len() == usize::from(shape.rows())).then_some(game);
    }
    let mut legal: Vec<String> = on_rules!(game = &game, |inner, R| inner
        .legal_moves()
        .iter()
        .map(|square| square.to_string())
        .collect());
    let mut told = state.legal.clone();
    legal.sort();
    told.sort();
    (state.board.len() == usize::from(shape.rows()) && legal == told).then_some(game)
}

/// The player's move in `game`, within its time (a share of `left` on a clock).
fn choose(game: &AnyGame, options: &BotOptions, id: &str, left: Option<u64>) -> Option<Square> {
    let empties = game.board().empty_squares().count() as u64;
    let mut time = options.move_time;
    if let Some(left) = left {
        let share = Duration::from_millis(left / (empties / 2 + 4));
        time = time.min(share).max(Duration::from_millis(5));
    }
    // Another game, other random choices.
    let game_seed = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    let seed = options.seed ^ game_seed ^ empties;
    on_rules!(game = game, |game, R| {
        let mut player = new_player_with::<R>(options.player, seed, None, &options.engine);
        player.choose(game, &Limits::time(time), &mut |_| {})
    })
}

/// The settings of a series' challenge, as `POST /api/challenge/{name}` takes them.
pub fn challenge_settings(
    variant: Variant,
    shape: Shape,
    win: WinRule,
    clock: Option<othello::TimeControl>,
    rated: bool,
) -> Value {
    let mut settings = json!({
        "rules": variant.name(),
        "rows": shape.rows(),
        "columns": shape.columns(),
        "win": win.name(),
        "rated": rated,
    });
    if let Some(clock) = clock {
        settings["clock"] = json!({
            "base_ms": clock.base_ms,
            "increment_ms": clock.increment_ms,
        });
    }
    settings
}
