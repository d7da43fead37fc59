//! Tournaments (issue 47, item 12) on a real server: sixteen bot accounts play a rated
//! four-round Swiss through the API; the test follows the standings over the live
//! channel, then checks every pairing (once per round each, nobody twice), every result
//! against its game, and the final standings (points, Buchholz, discs) against its own
//! count; an arena pairs whoever is free and stops pairing at its end.

#[path = "common/postgres.rs"]
mod postgres;
#[path = "common/server.rs"]
mod server;

use std::{
    collections::{BTreeMap, BTreeSet},
    time::{Duration, Instant},
};

use futures_util::{SinkExt, StreamExt};
use postgres::TestDb;
use serde_json::{Value, json};
use server::{Server, bot_token, error_code, send};
use tokio_tungstenite::tungstenite::Message;

async fn post(server: &Server, path: &str, token: &str, body: Value) -> (u16, Value) {
    send(
        server::client()
            .post(server.api(path))
            .bearer_auth(token)
            .json(&body),
    )
    .await
}

async fn get(server: &Server, path: &str, token: Option<&str>) -> (u16, Value) {
    let mut request = server::client().get(server.api(path));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    send(request).await
}

/// A little generator of the bots' choices: results vary, the same each run.
fn pick(seed: &mut u64, n: usize) -> usize {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*seed >> 33) % n as u64) as usize
}

/// Each bot plays a move in each game waiting for it. Returns how many moves were made.
async fn play_turns(server: &Server, tokens: &[(String, String)], seed: &mut u64) -> usize {
    play_turns_on(&[server], tokens, seed).await
}

/// As [`play_turns`], the `i`-th bot through the `i % n`-th of `servers`.
async fn play_turns_on(servers: &[&Server], tokens: &[(String, String)], seed: &mut u64) -> usize {
    let mut moves = 0;
    for (i, (_, token)) in tokens.iter().enumerate() {
        let server = servers[i % servers.len()];
        let (status, turns) = get(server, "/me/turn", Some(token)).await;
        assert_eq!(status, 200, "{turns}");
        for turn in turns["games"].as_array().unwrap() {
            let id = turn["id"].as_str().unwrap();
            let (status, state) = get(server, &format!("/games/{id}"), Some(token)).await;
            assert_eq!(status, 200, "{state}");
            let legal = state["legal"].as_array().unwrap();
            if legal.is_empty() {
                continue;
            }
            let square = legal[pick(seed, legal.len())].as_str().unwrap();
            let (status, body) = post(
                server,
                &format!("/bot/game/{id}/move/{square}"),
                token,
                json!({}),
            )
            .await;
            // The opponent's clock or a finished game may have changed it meanwhile.
            assert!(status == 200 || status == 409, "{status} {body}");
            moves += 1;
        }
    }
    moves
}

/// The tournament's live channel.
struct Channel(
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
);

impl Channel {
    async fn open(server: &Server, id: &str) -> Channel {
        let url = server
            .api(&format!("/tournaments/{id}/events"))
            .replacen("http", "ws", 1);
        let (mut socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        socket
            .send(Message::text(json!({"type": "hello"}).to_string()))
            .await
            .unwrap();
        Channel(socket)
    }

    /// Every tournament message waiting (none if nothing came within `wait`).
    async fn drain(&mut self, wait: Duration) -> Vec<Value> {
        let mut got = Vec::new();
        while let Ok(Some(Ok(message))) = tokio::time::timeout(wait, self.0.next()).await {
            if let Message::Text(text) = message {
                let value: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(value["type"], "tournament", "{value}");
                got.push(value["tournament"].clone());
            }
        }
        got
    }
}

async fn sixteen_bots_play_a_rated_swiss_with_the_right_pairings_and_standings(db: TestDb) {
    let server = Server::start_with(&db, &["--games-per-minute", "0"]);
    let mut tokens = Vec::new();
    for i in 1..=16 {
        let ip = format!("127.0.0.{}", 2 + (i - 1) / 8);
        let name = format!("bot{i:02}");
        let token = bot_token(&server, &ip, &name).await;
        tokens.push((name, token));
    }
    let maker = tokens[0].1.clone();
    let (status, created) = post(
        &server,
        "/tournaments",
        &maker,
        json!({
            "name": "Sixteen bots", "system": "swiss", "rounds": 4,
            "rows": 4, "columns": 4, "clock": {"base_ms": 120000, "increment_ms": 0},
            "rated": true, "starts_in_s": 3600,
        }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["stage"], "created");
    assert_eq!(created["players"], 1);
    assert_eq!(created["joined"], true);
    assert_eq!(created["category"], "full-4x4-bullet");
    for (name, token) in &tokens[1..] {
        let (status, body) = post(
            &server,
            &format!("/tournaments/{id}/join"),
            token,
            json!({}),
        )
        .await;
        assert_eq!(status, 200, "{name}: {body}");
    }
    // Twice is refused; so are guests and a start by anyone but its maker.
    let (status, body) = post(
        &server,
        &format!("/tournaments/{id}/join"),
        &tokens[3].1,
        json!({}),
    )
    .await;
    assert_eq!((status, error_code(&body)), (409, "already_in"), "{body}");
    let (status, body) = send(
        server::client()
            .post(server.api(&format!("/tournaments/{id}/join")))
            .json(&json!({})),
    )
    .await;
    assert_eq!(status, 401, "{body}");
    let (status, body) = post(
        &server,
        &format!("/tournaments/{id}/start"),
        &tokens[5].1,
        json!({}),
    )
    .await;
    assert_eq!((status, error_code(&body)), (403, "forbidden"), "{body}");
    // The lobby lists it.
    let (_, lobby) = get(&server, "/lobby", None).await;
    assert!(
        lobby["tournaments"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["id"] == id.as_str() && t["players"] == 16),
        "{lobby}"
    );

    let mut channel = Channel::open(&server, &id).await;
    let first = channel.drain(Duration::from_secs(2)).await;
    assert_eq!(first.last().unwrap()["stage"], "created", "{first:?}");
    let (status, body) = post(
        &server,
        &format!("/tournaments/{id}/start"),
        &maker,
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");

    // The bots play until it is over; the channel says each change.
    let mut seed = 47_12;
    let mut seen = first;
    let began = Instant::now();
    let finished = loop {
        play_turns(&server, &tokens, &mut seed).await;
        seen.extend(channel.drain(Duration::from_millis(50)).await);
        let (_, now) = get(&server, &format!("/tournaments/{id}"), None).await;
        if now["stage"] == "finished" {
            break now;
        }
        assert!(
            began.elapsed() < Duration::from_secs(240),
            "not finished: {now}"
        );
    };
    seen.extend(channel.drain(Duration::from_secs(2)).await);
    let rounds_seen: BTreeSet<u64> = seen.iter().filter_map(|t| t["round"].as_u64()).collect();
    assert_eq!(
        rounds_seen,
        (0..=4).collect(),
        "the channel told every round"
    );
    assert_eq!(seen.last().unwrap()["stage"], "finished");

    // Every round: eight games, each bot once; nobody meets anybody twice.
    let rounds = finished["rounds_played"].as_array().unwrap();
    assert_eq!(rounds.len(), 4, "{finished}");
    let mut met = BTreeSet::new();
    let mut games = Vec::new();
    for round in rounds {
        let boards = round["games"].as_array().unwrap();
        assert_eq!(boards.len(), 8);
        assert!(round["bye"].is_null());
        let mut playing = BTreeSet::new();
        for board in boards {
            let (black, white) = (
                board["black"].as_str().unwrap().to_owned(),
                board["white"].as_str().unwrap().to_owned(),
            );
            assert!(playing.insert(black.clone()) && playing.insert(white.clone()));
            let key = if black < white {
                (black.clone(), white.clone())
            } else {
                (white.clone(), black.clone())
            };
            assert!(met.insert(key), "{black} and {white} met twice");
            // The result is the game's own.
            let game_id = board["game"].as_str().unwrap();
            let (_, game) = get(&server, &format!("/games/{game_id}"), None).await;
            assert_eq!(game["status"], "over", "{game}");
            let (b, w) = (
                game["counts"]["B"].as_u64().unwrap() as u32,
                game["counts"]["W"].as_u64().unwrap() as u32,
            );
            assert_eq!(board["discs"], json!([b, w]), "{board} {game}");
            let expected = match game["winner"].as_str() {
                Some("B") => "1-0",
                Some("W") => "0-1",
                _ => "½-½",
            };
            assert_eq!(board["result"], expected, "{board} {game}");
            assert_eq!(game["rated"], true);
            games.push((black, white, b, w, expected));
        }
        assert_eq!(playing.len(), 16);
    }

    // The standings, counted here: points, the opponents' points, discs.
    let mut points = BTreeMap::<String, u32>::new();
    let mut discs = BTreeMap::<String, u32>::new();
    for (black, white, b, w, result) in &games {
        let (pb, pw) = match *result {
            "1-0" => (2, 0),
            "0-1" => (0, 2),
            _ => (1, 1),
        };
        *points.entry(black.clone()).or_default() += pb;
        *points.entry(white.clone()).or_default() += pw;
        *discs.entry(black.clone()).or_default() += b;
        *discs.entry(white.clone()).or_default() += w;
    }
    let mut buchholz = BTreeMap::<String, u32>::new();
    for (black, white, ..) in &games {
        *buchholz.entry(black.clone()).or_default() += points[white];
        *buchholz.entry(white.clone()).or_default() += points[black];
    }
    let standings = finished["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 16);
    let mut previous: Option<(u32, u32, u32)> = None;
    for (i, row) in standings.iter().enumerate() {
        let name = row["name"].as_str().unwrap();
        assert_eq!(row["rank"], i + 1);
        assert_eq!(row["bot"], true);
        assert_eq!(
            row["points"].as_f64().unwrap(),
            f64::from(points[name]) / 2.0,
            "{row}"
        );
        assert_eq!(
            row["buchholz"].as_f64().unwrap(),
            f64::from(buchholz[name]) / 2.0,
            "{row}"
        );
        assert_eq!(
            row["discs"].as_u64().unwrap(),
            u64::from(discs[name]),
            "{row}"
        );
        assert_eq!(row["games"], 4);
        let key = (points[name], buchholz[name], discs[name]);
        if let Some(previous) = previous {
            assert!(
                previous >= key,
                "out of order at {name}: {previous:?} then {key:?}"
            );
        }
        previous = Some(key);
    }
    // Rated: the winner's rating moved in the tournament's category.
    let leader = standings[0]["name"].as_str().unwrap();
    let (_, page) = get(&server, &format!("/users/{leader}"), None).await;
    let rating = page["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["category"] == "full-4x4-bullet")
        .unwrap_or_else(|| panic!("{page}"));
    assert_eq!(rating["games"], 4, "{rating}");
    // Over: no more joining.
    let (status, body) = post(
        &server,
        &format!("/tournaments/{id}/join"),
        &tokens[2].1,
        json!({}),
    )
    .await;
    assert_eq!(
        (status, error_code(&body)),
        (409, "tournament_over"),
        "{body}"
    );
}

async fn an_arena_pairs_whoever_is_free_until_its_end(db: TestDb) {
    let server = Server::start_with(&db, &["--games-per-minute", "0"]);
    let mut tokens = Vec::new();
    for i in 1..=5 {
        let name = format!("arena{i}");
        let token = bot_token(&server, "127.0.0.4", &name).await;
        tokens.push((name, token));
    }
    let (status, created) = post(
        &server,
        "/tournaments",
        &tokens[0].1,
        json!({
            "system": "arena", "minutes": 1, "rows": 4, "columns": 4,
            "clock": {"base_ms": 60000}, "starts_in_s": 3600,
        }),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["name"], "arena1's arena");
    let id = created["id"].as_str().unwrap().to_owned();
    for (_, token) in &tokens[1..] {
        let (status, body) = post(
            &server,
            &format!("/tournaments/{id}/join"),
            token,
            json!({}),
        )
        .await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, body) = post(
        &server,
        &format!("/tournaments/{id}/start"),
        &tokens[0].1,
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let mut seed = 5;
    let began = Instant::now();
    let finished = loop {
        play_turns(&server, &tokens, &mut seed).await;
        let (_, now) = get(&server, &format!("/tournaments/{id}"), None).await;
        if now["stage"] == "finished" {
            break now;
        }
        assert!(
            began.elapsed() < Duration::from_secs(150),
            "not finished: {now}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let games: Vec<&Value> = finished["rounds_played"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|round| round["games"].as_array().unwrap())
        .collect();
    // Many games in a minute of 4 x 4; each player in one game at a time.
    assert!(games.len() >= 10, "{finished}");
    let mut at_once = BTreeMap::<String, usize>::new();
    for round in finished["rounds_played"].as_array().unwrap() {
        for board in round["games"].as_array().unwrap() {
            for side in ["black", "white"] {
                *at_once
                    .entry(board[side].as_str().unwrap().into())
                    .or_default() += 1;
            }
        }
    }
    assert_eq!(at_once.len(), 5, "everybody played: {at_once:?}");
    for board in &games {
        assert!(board["result"].is_string(), "{board}");
    }
    let total: f64 = finished["standings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["points"].as_f64().unwrap())
        .sum();
    assert_eq!(total, games.len() as f64, "a point a game");
}

/// What making, joining and leaving refuse, and to whom.
#[tokio::test]
async fn tournaments_refuse_what_they_should() {
    let db = TestDb::sqlite();
    let server = Server::start_with(&db, &["--games-per-minute", "0"]);
    let ann = bot_token(&server, "127.0.0.5", "ann").await;
    let bob = bot_token(&server, "127.0.0.5", "bob").await;
    let swiss = json!({"system": "swiss", "rounds": 3, "clock": {"base_ms": 60000}});
    let (status, body) = send(
        server::client()
            .post(server.api("/tournaments"))
            .json(&swiss),
    )
    .await;
    assert_eq!((status, error_code(&body)), (401, "no_account"), "{body}");
    for (request, words) in [
        (
            json!({"system": "knockout", "rounds": 3, "clock": {"base_ms": 60000}}),
            "swiss or arena",
        ),
        (
            json!({"system": "swiss", "clock": {"base_ms": 60000}}),
            "needs rounds",
        ),
        (
            json!({"system": "swiss", "rounds": 16, "clock": {"base_ms": 60000}}),
            "from 1 to 15",
        ),
        (
            json!({"system": "arena", "rounds": 3, "clock": {"base_ms": 60000}}),
            "needs minutes",
        ),
        (
            json!({"system": "swiss", "rounds": 3, "clock": {"days": 3}}),
            "not days",
        ),
        (
            json!({"system": "swiss", "rounds": 3, "clock": {"base_ms": 60000}, "starts_in_s": 700000}),
            "a week",
        ),
        (
            json!({"system": "swiss", "rounds": 3, "clock": {"base_ms": 60000}, "name": "engine:5"}),
            "name",
        ),
        (
            json!({"system": "swiss", "rounds": 3, "clock": {"base_ms": 60000}, "rows": 17}),
            "rows",
        ),
    ] {
        let (status, body) = post(&server, "/tournaments", &ann, request.clone()).await;
        assert_eq!(status, 400, "{request}: {body}");
        assert!(
            body["error"]["message"].as_str().unwrap().contains(words),
            "{request}: {body}"
        );
    }
    let mut ids = Vec::new();
    for _ in 0..3 {
        let (status, body) = post(&server, "/tournaments", &ann, swiss.clone()).await;
        assert_eq!(status, 201, "{body}");
        ids.push(body["id"].as_str().unwrap().to_owned());
    }
    let (status, body) = post(&server, "/tournaments", &ann, swiss.clone()).await;
    assert_eq!(
        (status, error_code(&body)),
        (409, "too_many_tournaments"),
        "{body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("3 tournaments"),
        "{body}"
    );
    let (status, body) = post(
        &server,
        "/tournaments/0123456789abcdef/join",
        &bob,
        json!({}),
    )
    .await;
    assert_eq!(
        (status, error_code(&body)),
        (404, "no_such_tournament"),
        "{body}"
    );
    let (status, body) = get(&server, "/tournaments/nothing", None).await;
    assert_eq!(
        (status, error_code(&body)),
        (404, "no_such_tournament"),
        "{body}"
    );
    let join = format!("/tournaments/{}/join", ids[0]);
    let leave = format!("/tournaments/{}/withdraw", ids[0]);
    let (status, body) = post(&server, &leave, &bob, json!({})).await;
    assert_eq!((status, error_code(&body)), (409, "not_in"), "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not in"),
        "{body}"
    );
    // Before the start: out and in again, as often as one likes.
    for path in [&join, &leave, &join] {
        let (status, body) = post(&server, path, &bob, json!({})).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    let (_, view) = get(&server, &format!("/tournaments/{}", ids[0]), Some(&bob)).await;
    assert_eq!(view["players"], 2, "{view}");
    assert_eq!(view["joined"], true);
    assert_eq!(view["mine"], false);
    // Unknown fields are refused (a typo does not pass unseen).
    let (status, body) = post(&server, &join, &bob, json!({"color": "B"})).await;
    assert_eq!(status, 400, "{body}");
    // Only its maker calls it off, before its start; then ann may make another.
    let one = format!("/tournaments/{}", ids[1]);
    let delete = |token: &str| {
        send(
            server::client()
                .delete(server.api(&one))
                .bearer_auth(token.to_owned()),
        )
    };
    let (status, body) = delete(&bob).await;
    assert_eq!((status, error_code(&body)), (403, "forbidden"), "{body}");
    let (status, body) = delete(&ann).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["stage"].as_str(), body["called_off"].as_bool()),
        (Some("finished"), Some(true))
    );
    let (status, body) = delete(&ann).await;
    assert_eq!(
        (status, error_code(&body)),
        (409, "tournament_over"),
        "{body}"
    );
    let (status, body) = post(&server, "/tournaments", &ann, swiss.clone()).await;
    assert_eq!(status, 201, "{body}");
    // One started with fewer than two players is called off at once.
    let (_, lone) = post(
        &server,
        "/tournaments",
        &bob,
        json!({"system": "arena", "minutes": 600, "clock": {"base_ms": 60000}, "starts_in_s": 0}),
    )
    .await;
    let lone = format!("/tournaments/{}", lone["id"].as_str().unwrap());
    let began = Instant::now();
    loop {
        let (_, now) = get(&server, &lone, None).await;
        if now["stage"] == "finished" {
            assert_eq!(now["called_off"], true, "{now}");
            break;
        }
        assert!(began.elapsed() < Duration::from_secs(20), "{now}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The red team of 47.12: a game called off (aborted before its second move) counts for
/// neither player: not a game, not a loss, not for Buchholz, not a meeting.
#[tokio::test]
async fn red_team_47_12_an_aborted_game_counts_for_neither_player() {
    let db = TestDb::sqlite();
    let server = Server::start_with(&db, &["--games-per-minute", "0"]);
    let mut tokens = Vec::new();
    for i in 1..=4 {
        let name = format!("ab{i}");
        tokens.push((name.clone(), bot_token(&server, "127.0.0.7", &name).await));
    }
    let (_, made) = post(
        &server,
        "/tournaments",
        &tokens[0].1,
        json!({"system": "swiss", "rounds": 2, "rows": 4, "columns": 4,
               "clock": {"base_ms": 60000}, "starts_in_s": 3600}),
    )
    .await;
    let id = made["id"].as_str().unwrap().to_owned();
    for (_, token) in &tokens[1..] {
        post(
            &server,
            &format!("/tournaments/{id}/join"),
            token,
            json!({}),
        )
        .await;
    }
    post(
        &server,
        &format!("/tournaments/{id}/start"),
        &tokens[0].1,
        json!({}),
    )
    .await;
    let now = loop {
        let (_, now) = get(&server, &format!("/tournaments/{id}"), None).await;
        if now["round"] == 1 {
            break now;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let first = &now["rounds_played"][0]["games"][0];
    let game = first["game"].as_str().unwrap().to_owned();
    let token_of = |name: &str| tokens.iter().find(|(n, _)| n == name).unwrap().1.clone();
    let (black, white) = (
        first["black"].as_str().unwrap().to_owned(),
        first["white"].as_str().unwrap().to_owned(),
    );
    let (_, state) = get(&server, &format!("/games/{game}"), None).await;
    let square = state["legal"][0].as_str().unwrap();
    let (status, body) = post(
        &server,
        &format!("/bot/game/{game}/move/{square}"),
        &token_of(&black),
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = post(
        &server,
        &format!("/bot/game/{game}/abort"),
        &token_of(&white),
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let mut seed = 9;
    let began = Instant::now();
    let finished = loop {
        play_turns(&server, &tokens, &mut seed).await;
        let (_, now) = get(&server, &format!("/tournaments/{id}"), None).await;
        if now["stage"] == "finished" {
            break now;
        }
        assert!(began.elapsed() < Duration::from_secs(60), "{now}");
    };
    assert_eq!(
        finished["rounds_played"][0]["games"][0]["result"],
        "aborted"
    );
    for name in [&black, &white] {
        let row = finished["standings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["name"] == name.as_str())
            .unwrap();
        // Round 2's game only.
        assert_eq!(row["games"], 1, "{row}");
        assert_eq!(
            row["wins"].as_u64().unwrap()
                + row["draws"].as_u64().unwrap()
                + row["losses"].as_u64().unwrap(),
            1,
            "{row}"
        );
    }
}

/// Three servers on one PostgreSQL, each director looking at the same Swiss: each round is
/// paired once (eight bots, four games a round), whichever server sees its last game end.
#[tokio::test]
async fn three_servers_pair_each_round_of_a_swiss_once() {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let servers: Vec<Server> = (0..3)
        .map(|_| Server::start_with(&db, &["--games-per-minute", "0"]))
        .collect();
    let servers: Vec<&Server> = servers.iter().collect();
    let mut tokens = Vec::new();
    for i in 1..=8 {
        let name = format!("many{i}");
        let token = bot_token(servers[i % 3], "127.0.0.6", &name).await;
        tokens.push((name, token));
    }
    let (status, created) = post(
        servers[0],
        "/tournaments",
        &tokens[0].1,
        json!({"system": "swiss", "rounds": 3, "rows": 4, "columns": 4,
               "clock": {"base_ms": 120000}, "starts_in_s": 3600}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap().to_owned();
    for (i, (_, token)) in tokens.iter().enumerate().skip(1) {
        let path = format!("/tournaments/{id}/join");
        let (status, body) = post(servers[i % 3], &path, token, json!({})).await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, body) = post(
        servers[2],
        &format!("/tournaments/{id}/start"),
        &tokens[0].1,
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let mut seed = 3;
    let began = Instant::now();
    let finished = loop {
        play_turns_on(&servers, &tokens, &mut seed).await;
        let (_, now) = get(servers[1], &format!("/tournaments/{id}"), None).await;
        if now["stage"] == "finished" {
            break now;
        }
        assert!(
            began.elapsed() < Duration::from_secs(180),
            "not finished: {now}"
        );
    };
    let rounds = finished["rounds_played"].as_array().unwrap();
    assert_eq!(rounds.len(), 3, "{finished}");
    let mut met = BTreeSet::new();
    for round in rounds {
        let boards = round["games"].as_array().unwrap();
        assert_eq!(boards.len(), 4, "{round}");
        let mut playing = BTreeSet::new();
        for board in boards {
            let (black, white) = (
                board["black"].as_str().unwrap(),
                board["white"].as_str().unwrap(),
            );
            assert!(playing.insert(black) && playing.insert(white), "{round}");
            assert!(met.insert(if black < white {
                (black, white)
            } else {
                (white, black)
            }));
            assert!(board["result"].is_string());
        }
    }
    // Every server tells the same.
    for server in &servers {
        let (_, seen) = get(server, &format!("/tournaments/{id}"), None).await;
        assert_eq!(seen["standings"], finished["standings"]);
    }
}

on_both_databases!(
    sixteen_bots_play_a_rated_swiss_with_the_right_pairings_and_standings,
    an_arena_pairs_whoever_is_free_until_its_end,
);
