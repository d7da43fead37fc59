//! What the load benchmarks share: two people's games timed move by move, more connections
//! for the load generator, percentiles.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::server::{Live, Server};

/// Lets this process open as many files (connections) as it may.
pub fn raise_file_limit() {
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

/// The `fraction` percentile of `sorted` (zero for none).
pub fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() as f64 * fraction).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[index]
}

/// What a game of [`play_game`] measured.
#[derive(Debug, Default)]
pub struct Played {
    /// Each move's latency, from its request to the other seat's live state.
    pub latencies: Vec<Duration>,
    /// Requests answered 503 (busy, with `Retry-After`) and sent again: a server at its
    /// limit says so, and the load generator counts it rather than failing.
    pub busy: usize,
}

/// Sends what `request` makes until it is not answered 503, waiting what `Retry-After`
/// asks (1 to 5 s) in between; counts the 503s in `busy`.
async fn send_until_taken(
    request: impl Fn() -> reqwest::RequestBuilder,
    busy: &mut usize,
) -> (u16, Value) {
    loop {
        let response = request().send().await.expect("the server answers");
        let status = response.status().as_u16();
        if status != 503 {
            let body = response.json().await.unwrap_or(Value::Null);
            return (status, body);
        }
        *busy += 1;
        let wait = response
            .headers()
            .get("retry-after")
            .and_then(|value| value.to_str().ok()?.parse::<u64>().ok())
            .unwrap_or(1)
            .clamp(1, 5);
        tokio::time::sleep(Duration::from_secs(wait)).await;
    }
}

/// One game made from `request` over `servers`, starting at `first` (round robin: its
/// creation, Black's channel, White's, then each move's request on the next one; with one
/// server, all on it): both seats connected, `moves` moves, each timed from the request to
/// the other seat's live state. Each side thinks about `think` (0.5 to 1.5 times) first.
pub async fn play_game(
    servers: &[Server],
    first: usize,
    http: &reqwest::Client,
    moves: usize,
    think: Duration,
    seed: u64,
    request: &Value,
) -> Played {
    use rand::{RngExt, SeedableRng, rngs::StdRng};
    let mut rng = StdRng::seed_from_u64(seed);
    let mut busy = 0;
    let at = |n: usize| &servers[(first + n) % servers.len()];
    let (status, game) =
        send_until_taken(|| http.post(at(0).api("/games")).json(request), &mut busy).await;
    assert_eq!(status, 201, "{game}");
    let id = game["id"].as_str().unwrap().to_owned();
    let secrets =
        ["black", "white"].map(|seat| game["seats"][seat]["secret"].as_str().unwrap().to_owned());
    // On one core a state can take long to come: a slow answer is a figure, not a hang.
    let patience = Duration::from_secs(600);
    let mut seats = [
        Live::connect(at(1), &id, Some(&secrets[0]))
            .await
            .patient(patience),
        Live::connect(at(2), &id, Some(&secrets[1]))
            .await
            .patient(patience),
    ];
    seats[0]
        .state_where(|s| s["seats"]["white"]["connected"] == true)
        .await;
    seats[1]
        .state_where(|s| s["seats"]["black"]["connected"] == true)
        .await;
    let mut state: Value = game["state"].clone();
    let mut latencies = Vec::with_capacity(moves);
    for ply in 0..moves {
        if state["status"] != "playing" {
            break;
        }
        let mover = usize::from(state["to_move"] == "W");
        let square = state["legal"][0].as_str().unwrap().to_owned();
        if !think.is_zero() {
            tokio::time::sleep(think.mul_f64(rng.random_range(0.5..1.5))).await;
        }
        let start = Instant::now();
        let (status, after) = send_until_taken(
            || {
                http.post(at(3 + ply).api(&format!("/games/{id}/moves")))
                    .bearer_auth(&secrets[mover])
                    .json(&json!({ "square": square }))
            },
            &mut busy,
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
    Played { latencies, busy }
}
