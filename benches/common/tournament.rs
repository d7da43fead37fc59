//! A tournament under load: BOTS bot accounts play a rated Swiss on 6 × 6 through the bot
//! API while the rest of the load runs. Each bot looks for its games (`GET /api/me/turn`),
//! thinks about THINK, and moves; the tournament's live channel says when it is over.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use super::server::{Server, bot_token, client, send};

/// What the tournament measured.
#[derive(Debug, Default)]
pub struct Figures {
    /// Each bot move's answer time.
    pub moves: Vec<Duration>,
    /// Games played, and the updates the live channel sent.
    pub games: u64,
    /// Updates the live channel sent.
    pub updates: u64,
    /// Rounds played.
    pub rounds: u64,
    /// The tournament's wall time, from its start to its end.
    pub wall: Duration,
}

async fn post(server: &Server, path: &str, token: &str, body: Value) -> (u16, Value) {
    send(
        client()
            .post(server.api(path))
            .bearer_auth(token)
            .json(&body),
    )
    .await
}

async fn get(server: &Server, path: &str, token: &str) -> (u16, Value) {
    send(client().get(server.api(path)).bearer_auth(token)).await
}

/// One bot: plays whatever game waits for it until `over`.
async fn play(
    server: &Server,
    token: String,
    think: Duration,
    seed: u64,
    over: tokio::sync::watch::Receiver<bool>,
) -> Vec<Duration> {
    let mut seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut random = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut times = Vec::new();
    while !*over.borrow() {
        let (_, turns) = get(server, "/me/turn", &token).await;
        let games: Vec<String> = turns["games"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|game| Some(game["id"].as_str()?.to_owned()))
            .collect();
        if games.is_empty() {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        }
        for id in games {
            let (_, state) = get(server, &format!("/games/{id}"), &token).await;
            let legal: Vec<String> = state["legal"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|square| Some(square.as_str()?.to_owned()))
                .collect();
            if legal.is_empty() {
                continue;
            }
            let pause = think.mul_f64(0.5 + random(1000) as f64 / 1000.0);
            tokio::time::sleep(pause).await;
            let square = &legal[random(legal.len() as u64) as usize];
            let asked = Instant::now();
            let (status, body) = post(
                server,
                &format!("/bot/game/{id}/move/{square}"),
                &token,
                json!({}),
            )
            .await;
            assert!(status == 200 || status == 409, "{status} {body}");
            times.push(asked.elapsed());
        }
    }
    times
}

/// Runs a Swiss of `rounds` rounds between `bots` bots to its end.
pub async fn run(server: &Server, bots: usize, rounds: u32, think: Duration) -> Figures {
    let mut tokens = Vec::new();
    for index in 0..bots {
        tokens.push(
            bot_token(
                server,
                &format!("127.0.1.{}", 1 + index / 8),
                &format!("loadbot{index}"),
            )
            .await,
        );
    }
    let (status, made) = post(
        server,
        "/tournaments",
        &tokens[0],
        json!({"name": "Load Swiss", "system": "swiss", "rounds": rounds, "rows": 6, "columns": 6,
               "clock": {"base_ms": 600000, "increment_ms": 5000}, "rated": true,
               "starts_in_s": 3600}),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    let id = made["id"].as_str().unwrap().to_owned();
    for token in &tokens[1..] {
        let (status, body) =
            post(server, &format!("/tournaments/{id}/join"), token, json!({})).await;
        assert_eq!(status, 200, "{body}");
    }
    let url = server
        .api(&format!("/tournaments/{id}/events"))
        .replacen("http://", "ws://", 1);
    let (mut socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    socket
        .send(Message::text(json!({"type": "hello"}).to_string()))
        .await
        .unwrap();
    let started = Instant::now();
    let (status, body) = post(
        server,
        &format!("/tournaments/{id}/start"),
        &tokens[0],
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (over, watching) = tokio::sync::watch::channel(false);
    let players = futures_util::future::join_all(
        tokens
            .into_iter()
            .enumerate()
            .map(|(i, token)| play(server, token, think, i as u64 + 1, watching.clone())),
    );
    let follow = async {
        let mut figures = Figures::default();
        while let Some(Ok(message)) = socket.next().await {
            let Message::Text(text) = message else {
                continue;
            };
            let value: Value = serde_json::from_str(&text).unwrap();
            let tournament = &value["tournament"];
            figures.updates += 1;
            figures.rounds = tournament["round"].as_u64().unwrap_or(0);
            if tournament["stage"] == "finished" {
                figures.games = tournament["rounds_played"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|round| round["games"].as_array().map_or(0, Vec::len) as u64)
                    .sum();
                break;
            }
        }
        figures.wall = started.elapsed();
        let _ = over.send(true);
        figures
    };
    let (mut figures, moves) = futures_util::future::join(follow, players).await;
    figures.moves = moves.into_iter().flatten().collect();
    figures.moves.sort();
    figures
}
