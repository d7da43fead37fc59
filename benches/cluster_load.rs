//! Load on several `othello serve` instances sharing one PostgreSQL, beside one instance on
//! PostgreSQL and one on SQLite, in one run: GAMES two-person games at once, both seats on
//! the live channel, MOVES moves each, made over HTTP by the side to move and timed until
//! the other seat's WebSocket has the new state. Across instances, each game's two seats
//! and its requests are spread round robin, as a load balancer would (its creation on one
//! instance, Black's channel on the next, White's on the one after, each move's request on
//! another again), so most moves cross instances.
//!
//! Each setup runs twice: at a person's pace (THINK milliseconds of thought, 0.5 to 1.5
//! times, before each move), then flat out (no thought). Reported: moves a second, the
//! p50 and p99 of the move-to-event latency, and where the time goes: the CPU time of the
//! servers, of PostgreSQL's processes and of this load generator, per move. PostgreSQL
//! writes to disk as a production one does (fsync on), as SQLite does (synchronous=FULL).
//!
//! `cargo bench --bench cluster_load -- [GAMES] [MOVES] [THINK] [INSTANCES]` (default
//! 1000 games, 20 moves, 1000 ms, 3 instances). Needs PostgreSQL (Debian's postgresql).

#[path = "common/load.rs"]
mod load;
#[path = "../tests/common/postgres.rs"]
mod postgres;
#[path = "../tests/common/server.rs"]
mod server;

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use load::{percentile, play_game, raise_file_limit};
use serde_json::json;
use server::{Server, client};

/// CPU time (user + system) of process `pid` and its threads, in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // The fields after the command name (which may hold spaces), in parentheses.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&index| fields.get(index)?.parse::<u64>().ok())
        .sum();
    // SAFETY: a plain query of a system constant.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    ticks as f64 / per_second
}

/// CPU seconds of every process whose command is `name`.
fn cpu_of_processes_named(name: &str) -> f64 {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0.0;
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|comm| comm.trim() == name)
        })
        .map(cpu_seconds)
        .sum()
}

/// Plays `games` games on `servers` and prints one line of figures.
async fn measure(label: &str, servers: &[Server], games: usize, moves: usize, think: Duration) {
    let http = client();
    let pids: Vec<u32> = servers.iter().map(|server| server.child.id()).collect();
    let servers_cpu = || pids.iter().map(|&pid| cpu_seconds(pid)).sum::<f64>();
    let (servers_before, postgres_before, own_before) = (
        servers_cpu(),
        cpu_of_processes_named("postgres"),
        cpu_seconds(std::process::id()),
    );
    let start = Instant::now();
    let played: Vec<load::Played> =
        futures_util::stream::iter(
            (0..games).map(|game| {
                let http = http.clone();
                async move {
                    play_game(servers, game, &http, moves, think, game as u64, &json!({})).await
                }
            }),
        )
        .buffer_unordered(games)
        .collect()
        .await;
    let busy: usize = played.iter().map(|game| game.busy).sum();
    let mut latencies: Vec<Duration> = played.into_iter().flat_map(|game| game.latencies).collect();
    let elapsed = start.elapsed().as_secs_f64();
    latencies.sort();
    let total = latencies.len() as f64;
    let per_move = |seconds: f64| seconds / total * 1e6;
    println!(
        "| {label} | {} | {:.0} | {:.2} ms | {:.2} ms | {:.0} µs | {:.0} µs | {:.0} µs | {busy} |",
        if think.is_zero() {
            "none".to_owned()
        } else {
            format!("{} ms", think.as_millis())
        },
        total / elapsed,
        percentile(&latencies, 0.50).as_secs_f64() * 1e3,
        percentile(&latencies, 0.99).as_secs_f64() * 1e3,
        per_move(servers_cpu() - servers_before),
        per_move(cpu_of_processes_named("postgres") - postgres_before),
        per_move(cpu_seconds(std::process::id()) - own_before),
    );
}

/// How the servers under load are started: no limit on games made, live channels kept
/// through a slow load generator's silences.
const LOAD_SERVER: &[&str] = &["--games-per-minute", "0", "--client-timeout", "600"];

fn main() {
    let arguments: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let number = |index: usize, default: u64| {
        arguments
            .get(index)
            .and_then(|a| a.parse().ok())
            .unwrap_or(default)
    };
    let games = number(0, 1000) as usize;
    let moves = number(1, 20) as usize;
    let think = Duration::from_millis(number(2, 1000));
    let instances = number(3, 3).max(1) as usize;
    raise_file_limit();
    let cluster = postgres::Postgres::start_durable().expect("PostgreSQL is installed");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "{games} games at once, {moves} moves each; CPU time per move: servers, PostgreSQL, load generator"
    );
    println!();
    println!(
        "| setup | thinking | moves/s | p50 | p99 | servers | PostgreSQL | load | busy (503), retried |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let sqlite = postgres::TestDb::sqlite();
    let setups: [(String, usize, Option<String>); 3] = [
        ("1 × SQLite".into(), 1, None),
        ("1 × PostgreSQL".into(), 1, Some(cluster.create_database())),
        (
            format!("{instances} × PostgreSQL"),
            instances,
            Some(cluster.create_database()),
        ),
    ];
    for (label, count, url) in setups {
        let servers: Vec<Server> = (0..count)
            .map(|_| match &url {
                // One address makes every game here: no limit on how fast. A load generator
                // short of CPU (one core) may read a waiting seat's channel late: it is
                // not a client gone silent, so the server waits for it longer.
                Some(url) => Server::start_with(url, LOAD_SERVER),
                None => Server::start_with(&sqlite, LOAD_SERVER),
            })
            .collect();
        runtime.block_on(async {
            let _ = client()
                .get(format!("{}/healthz", servers[0].url))
                .send()
                .await;
            measure(&label, &servers, games, moves, think).await;
            measure(&label, &servers, games, moves, Duration::ZERO).await;
        });
    }
}
