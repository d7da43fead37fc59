//! Load on `othello serve`: N two-person games at once on loopback, both seats on the live
//! channel; each game plays M moves, each made over HTTP by the side to move and timed
//! until the other seat's WebSocket has the new state. Reports moves a second, the p50 and
//! p99 of that latency, and the server's memory per live game (resident set growth over the
//! games, with their two connections each). A bounded run: it stops by itself.
//!
//! Each side thinks before it moves, a random time around THINK milliseconds (people do;
//! 0 makes every game move as fast as it can, which measures the most moves a second).
//!
//! Meanwhile WATCHERS clients watch the lobby's live channel while a challenge is posted
//! and withdrawn every half second: the time from posting it to each watcher's lobby
//! showing it is the lobby's update latency. The games run on a clock of CLOCK seconds a
//! side plus 5 s a move (0: untimed).
//!
//! With BOTS above 0, that many bot accounts also play a rated three-round Swiss on 6 × 6
//! through the bot API (thinking THINK a move), started as the games start; the run ends
//! when both are over (issue 47.12).
//!
//! `cargo bench --bench server_load -- [GAMES] [MOVES] [THINK] [WATCHERS] [CLOCK] [BOTS]`
//! (default 1000 games, 20 moves, 1000 ms, 200 watchers, 600 s, 0 bots).

#[path = "common/load.rs"]
mod load;
#[path = "../tests/common/server.rs"]
mod server;
#[path = "common/tournament.rs"]
mod tournament;

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use load::{percentile, play_game, raise_file_limit};
use serde_json::{Value, json};
use server::{Server, client, send};

/// The server's resident memory in KiB.
fn resident_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|value| value.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

/// A game's creation: on a clock of `clock_s` seconds a side plus 5 s a move (0: untimed).
fn game_request(clock_s: u64) -> Value {
    if clock_s > 0 {
        json!({"clock": {"base_ms": clock_s * 1000, "increment_ms": 5000}})
    } else {
        json!({})
    }
}

/// When each challenge was posted, and when each watcher's lobby first showed it.
#[derive(Default)]
struct LobbyTimes {
    posted: std::collections::HashMap<String, Instant>,
    seen: Vec<(String, Instant)>,
}

type SharedTimes = std::sync::Arc<std::sync::Mutex<LobbyTimes>>;

/// A lobby watcher: notes when each challenge first shows in its lobby, until `stop`.
async fn watch_lobby(
    server: &Server,
    times: SharedTimes,
    stop: tokio::sync::watch::Receiver<bool>,
) {
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::Message;
    let url = format!(
        "{}/api/lobby/events",
        server.url.replacen("http://", "ws://", 1)
    );
    let (mut socket, _) = tokio_tungstenite::connect_async(url)
        .await
        .expect("the lobby opens");
    socket
        .send(Message::text(json!({"type": "hello"}).to_string()))
        .await
        .unwrap();
    let mut known = std::collections::HashSet::new();
    let mut stop = stop;
    loop {
        let message = tokio::select! {
            message = socket.next() => message,
            _ = stop.changed() => return,
        };
        let Some(Ok(Message::Text(text))) = message else {
            if message.is_none() {
                return;
            }
            continue;
        };
        let now = Instant::now();
        let lobby: Value = serde_json::from_str(&text).unwrap();
        for seek in lobby["lobby"]["seeks"].as_array().into_iter().flatten() {
            let id = seek["id"].as_str().unwrap().to_owned();
            if known.insert(id.clone()) {
                times.lock().unwrap().seen.push((id, now));
            }
        }
    }
}

/// Posts a challenge and withdraws it, every half second, until `stop`.
async fn post_challenges(
    server: &Server,
    http: &reqwest::Client,
    times: SharedTimes,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    loop {
        let start = Instant::now();
        let (status, posted) = send(
            http.post(server.api("/seeks"))
                .json(&json!({"name": "load"})),
        )
        .await;
        assert_eq!(status, 201, "{posted}");
        let id = posted["seek"]["id"].as_str().unwrap().to_owned();
        let secret = posted["secret"].as_str().unwrap().to_owned();
        times.lock().unwrap().posted.insert(id.clone(), start);
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(250)) => {}
            _ = stop.changed() => return,
        }
        let _ = send(
            http.delete(server.api(&format!("/seeks/{id}")))
                .bearer_auth(&secret),
        )
        .await;
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(250)) => {}
            _ = stop.changed() => return,
        }
    }
}

fn main() {
    let arguments: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let games: usize = arguments
        .first()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    let moves: usize = arguments.get(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let think = Duration::from_millis(
        arguments
            .get(2)
            .and_then(|a| a.parse().ok())
            .unwrap_or(1000),
    );
    let watchers: usize = arguments.get(3).and_then(|a| a.parse().ok()).unwrap_or(200);
    let clock_s: u64 = arguments.get(4).and_then(|a| a.parse().ok()).unwrap_or(600);
    let bots: usize = arguments.get(5).and_then(|a| a.parse().ok()).unwrap_or(0);
    raise_file_limit();
    let dir = tempfile::tempdir().unwrap();
    // One address makes every game and challenge here: no limit on how fast; a load
    // generator short of CPU reads a seat's channel late, which is no client gone silent.
    let server = Server::start_with(
        dir.path().join("load.db"),
        &["--games-per-minute", "0", "--client-timeout", "600"],
    );
    let pid = server.child.id();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let http = client();
        // Warm up: the page, one game.
        let _ = http.get(format!("{}/healthz", server.url)).send().await;
        let before = resident_kib(pid);
        // The lobby's watchers, and a challenge coming and going.
        let times = SharedTimes::default();
        let (stop, stopping) = tokio::sync::watch::channel(false);
        let lobby = {
            let watching =
                futures_util::future::join_all((0..watchers).map(|_| {
                    watch_lobby(&server, std::sync::Arc::clone(&times), stopping.clone())
                }));
            let posting = post_challenges(
                &server,
                &http,
                std::sync::Arc::clone(&times),
                stopping.clone(),
            );
            futures_util::future::join(watching, posting)
        };
        let mut lobby = std::pin::pin!(lobby);
        // Let the watchers connect before the games start.
        let _ = tokio::time::timeout(Duration::from_secs(1), lobby.as_mut()).await;
        // The tournament's bots, registered and joined before the games start.
        let swiss = async {
            if bots >= 2 {
                Some(tournament::run(&server, bots, 3, think).await)
            } else {
                None
            }
        };
        let mut swiss = std::pin::pin!(swiss);
        let start = Instant::now();
        let mut tasks = futures_util::stream::iter((0..games).map(|game| {
            let http = http.clone();
            let server = &server;
            async move {
                play_game(
                    std::slice::from_ref(server),
                    0,
                    &http,
                    moves,
                    think,
                    game as u64,
                    &game_request(clock_s),
                )
                .await
            }
        }))
        .buffer_unordered(games);
        // The server's memory, sampled as the games run.
        let peak = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(before));
        let sampler = {
            let peak = std::sync::Arc::clone(&peak);
            tokio::spawn(async move {
                loop {
                    peak.fetch_max(resident_kib(pid), std::sync::atomic::Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            })
        };
        let mut latencies = Vec::with_capacity(games * moves);
        let mut busy = 0;
        let (elapsed, swiss_figures);
        {
            let games_done = async {
                while let Some(game) = tasks.next().await {
                    latencies.extend(game.latencies);
                    busy += game.busy;
                }
                start.elapsed()
            };
            let both = futures_util::future::join(games_done, swiss.as_mut());
            tokio::select! {
                (took, figures) = both => (elapsed, swiss_figures) = (took, figures),
                _ = lobby.as_mut() => panic!("the lobby's load ended before the games"),
            }
        }
        let _ = stop.send(true);
        lobby.await;
        sampler.abort();
        let peak = peak.load(std::sync::atomic::Ordering::Relaxed);
        latencies.sort();
        let total = latencies.len();
        println!("games at once        {games}");
        println!("moves                {total} ({moves} a game)");
        println!(
            "thinking time        {} ms (0.5 to 1.5 times)",
            think.as_millis()
        );
        println!("wall time            {:.2} s", elapsed.as_secs_f64());
        println!(
            "moves a second       {:.0}",
            total as f64 / elapsed.as_secs_f64()
        );
        println!(
            "latency p50          {:.2} ms",
            percentile(&latencies, 0.50).as_secs_f64() * 1000.0
        );
        println!(
            "latency p99          {:.2} ms",
            percentile(&latencies, 0.99).as_secs_f64() * 1000.0
        );
        println!(
            "latency max          {:.2} ms",
            latencies.last().copied().unwrap_or_default().as_secs_f64() * 1000.0
        );
        println!("busy (503), retried  {busy}");
        let mut lobby_latencies: Vec<Duration> = {
            let times = times.lock().unwrap();
            times
                .seen
                .iter()
                .filter_map(|(id, seen)| Some(seen.duration_since(*times.posted.get(id)?)))
                .collect()
        };
        lobby_latencies.sort();
        println!(
            "clock                {}",
            if clock_s > 0 {
                format!("{clock_s} s + 5 s a move")
            } else {
                "none".into()
            }
        );
        if watchers > 0 {
            println!(
                "lobby watchers       {watchers}, {} updates seen",
                lobby_latencies.len()
            );
            println!(
                "lobby latency p50    {:.2} ms",
                percentile(&lobby_latencies, 0.50).as_secs_f64() * 1000.0
            );
            println!(
                "lobby latency p99    {:.2} ms",
                percentile(&lobby_latencies, 0.99).as_secs_f64() * 1000.0
            );
        }
        if let Some(swiss) = swiss_figures {
            println!(
                "tournament           {bots} bots, {} rounds, {} games in {:.1} s, {} live updates",
                swiss.rounds,
                swiss.games,
                swiss.wall.as_secs_f64(),
                swiss.updates
            );
            println!(
                "bot moves            {}, answered p50 {:.2} ms, p99 {:.2} ms",
                swiss.moves.len(),
                percentile(&swiss.moves, 0.50).as_secs_f64() * 1000.0,
                percentile(&swiss.moves, 0.99).as_secs_f64() * 1000.0
            );
        }
        println!(
            "server memory        {} KiB before, {} KiB at the peak: {:.1} KiB a live game",
            before,
            peak,
            (peak.saturating_sub(before)) as f64 / games as f64
        );
    });
}
