//! Load on `othello serve`: N two-person games at once on loopback, both seats on the live
//! channel; each game plays M moves, each made over HTTP by the side to move and timed
//! until the other seat's WebSocket has the new state. Reports moves a second, the p50 and
//! p99 of that latency, and the server's memory per live game (resident set growth over the
//! games, with their two connections each). A bounded run: it stops by itself.
//!
//! Each side thinks before it moves, a random time around THINK milliseconds (people do;
//! 0 makes every game move as fast as it can, which measures the most moves a second).
//!
//! `cargo bench --bench server_load -- [GAMES] [MOVES] [THINK]` (default 1000 games, 20
//! moves, 1000 ms).

#[path = "../tests/common/server.rs"]
mod server;

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{Value, json};
use server::{Live, Server, client, send};

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

/// Lets this process open as many files (connections) as it may.
fn raise_file_limit() {
    // SAFETY: plain system calls on this process's own limits.
    unsafe {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() as f64 * fraction).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[index]
}

/// One game: both seats connected; `moves` moves, each timed from the request to the
/// other seat's live state.
async fn play_load_game(
    server: &Server,
    http: &reqwest::Client,
    moves: usize,
    think: Duration,
    seed: u64,
) -> Vec<Duration> {
    use rand::{RngExt, SeedableRng, rngs::StdRng};
    let mut rng = StdRng::seed_from_u64(seed);
    let (status, game) = send(http.post(server.api("/games")).json(&json!({}))).await;
    assert_eq!(status, 201, "{game}");
    let id = game["id"].as_str().unwrap().to_owned();
    let secrets =
        ["black", "white"].map(|seat| game["seats"][seat]["secret"].as_str().unwrap().to_owned());
    let mut seats = [
        Live::connect(server, &id, Some(&secrets[0])).await,
        Live::connect(server, &id, Some(&secrets[1])).await,
    ];
    // Both connected.
    seats[0]
        .state_where(|s| s["seats"]["white"]["connected"] == true)
        .await;
    seats[1]
        .state_where(|s| s["seats"]["black"]["connected"] == true)
        .await;
    let mut state: Value = game["state"].clone();
    let mut latencies = Vec::with_capacity(moves);
    for _ in 0..moves {
        if state["status"] != "playing" {
            break;
        }
        let mover = usize::from(state["to_move"] == "W");
        let square = state["legal"][0].as_str().unwrap().to_owned();
        if !think.is_zero() {
            tokio::time::sleep(think.mul_f64(rng.random_range(0.5..1.5))).await;
        }
        let start = Instant::now();
        let (status, after) = send(
            http.post(server.api(&format!("/games/{id}/moves")))
                .bearer_auth(&secrets[mover])
                .json(&json!({ "square": square })),
        )
        .await;
        assert_eq!(status, 200, "{after}");
        let version = after["version"].as_u64().unwrap();
        seats[1 - mover]
            .state_where(|s| s["version"].as_u64() >= Some(version))
            .await;
        latencies.push(start.elapsed());
        seats[mover]
            .state_where(|s| s["version"].as_u64() >= Some(version))
            .await;
        seats[0].raw.clear();
        seats[1].raw.clear();
        state = after;
    }
    latencies
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
    raise_file_limit();
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("load.db"));
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
        let start = Instant::now();
        let mut tasks = futures_util::stream::iter((0..games).map(|game| {
            let http = http.clone();
            let server = &server;
            async move { play_load_game(server, &http, moves, think, game as u64).await }
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
        while let Some(game) = tasks.next().await {
            latencies.extend(game);
        }
        sampler.abort();
        let peak = peak.load(std::sync::atomic::Ordering::Relaxed);
        let elapsed = start.elapsed();
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
        println!(
            "server memory        {} KiB before, {} KiB at the peak: {:.1} KiB a live game",
            before,
            peak,
            (peak.saturating_sub(before)) as f64 / games as f64
        );
    });
}
