//! Online play (issue 25) through the API on a real server: clocks kept by the server (a
//! move after the flag, increments, reconnection, a restart, an engine on the clock),
//! aborts.

#[path = "common/postgres.rs"]
mod postgres;
#[path = "common/server.rs"]
mod server;

use std::time::{Duration, Instant};

use postgres::TestDb;
use serde_json::{Value, json};
use server::{
    Live, Server, client, create, error_code, id, member, play, secret, send, session_cookie,
};

fn clock(state: &Value, side: &str) -> u64 {
    state["clock"][side].as_u64().expect("a timed game's clock")
}

async fn post(server: &Server, path: &str, secret: &str, body: Value) -> (u16, Value) {
    send(
        client()
            .post(server.api(path))
            .bearer_auth(secret)
            .json(&body),
    )
    .await
}

/// A GET's status and text.
async fn text(server: &Server, path: &str) -> (u16, String) {
    let response = client().get(server.api(path)).send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

async fn state(server: &Server, game: &str) -> Value {
    let (status, state) = send(client().get(server.api(&format!("/games/{game}")))).await;
    assert_eq!(status, 200, "{state}");
    state
}

async fn the_server_keeps_the_clock_and_adds_the_increment(db: TestDb) {
    let server = Server::start(&db);
    // No clock runs before a side's first move (issue 47): the time left to make it
    // counts down instead.
    let game = create(
        &server,
        json!({"clock": {"base_ms": 60_000, "increment_ms": 5_000}, "black_name": "Ann"}),
    )
    .await;
    let (game_id, black, white) = (id(&game), secret(&game, "black"), secret(&game, "white"));
    let created = &game["state"];
    assert_eq!(
        (
            &created["clock"]["base_ms"],
            &created["clock"]["increment_ms"]
        ),
        (&json!(60_000), &json!(5_000))
    );
    assert_eq!(created["clock"]["running"], Value::Null);
    let due = created["clock"]["first_move_ms"].as_u64().unwrap();
    assert!((25_000..=30_000).contains(&due), "{created}");
    assert!(clock(created, "B") == 60_000 && clock(created, "W") == 60_000);
    assert_eq!(created["seats"]["black"]["name"], "Ann");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, after) = play(&server, &game_id, &black, "d3").await;
    assert_eq!(status, 200, "{after}");
    assert_eq!((clock(&after, "B"), clock(&after, "W")), (60_000, 60_000));
    assert_eq!(after["clock"]["running"], Value::Null, "White's first move");
    // Black's clock starts with White's first move (timed from before it is sent).
    let start = Instant::now();
    let (status, after) = play(&server, &game_id, &white, "c5").await;
    assert_eq!(status, 200, "{after}");
    assert_eq!(
        clock(&after, "W"),
        60_000,
        "nothing charged for a first move"
    );
    assert!(clock(&after, "B") > 59_000, "{after}");
    assert_eq!(after["clock"]["running"], "B");
    assert_eq!(after["clock"]["first_move_ms"], Value::Null);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, after) = play(&server, &game_id, &black, "d6").await;
    let spent = start.elapsed().as_millis() as u64;
    assert_eq!(status, 200, "{after}");
    // Black's turn took at least the 300 ms waited and at most what the test measured;
    // the increment came on top.
    let black_left = clock(&after, "B");
    // The move's time is kept and exported with it (GGF: move, no evaluation, seconds).
    let (_, ggf) = text(&server, &format!("/games/{game_id}/export?format=ggf")).await;
    assert!(ggf.contains("TI[01:00/00:05/00:00]"), "{ggf}");
    // People by the names they play under, never "human" (issue 47).
    assert!(ggf.contains("PB[Ann]PW[guest]"), "{ggf}");
    let seconds: f64 = ggf
        .split("B[D6//")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .and_then(|time| time.parse().ok())
        .unwrap_or_else(|| panic!("a time on the move: {ggf}"));
    // (GGF writes hundredths of a second, rounded.)
    assert!(
        (0.3..=spent as f64 / 1000.0 + 0.005).contains(&seconds),
        "{seconds} of {spent} ms"
    );
    assert!(
        (65_000 - spent..=65_000 - 300).contains(&black_left),
        "{black_left} after {spent} ms"
    );
    assert_eq!(after["clock"]["running"], "W");
    // White's clock runs now, Black's stands.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let later = state(&server, &game_id).await;
    assert_eq!(clock(&later, "B"), black_left);
    assert!(clock(&later, "W") <= 60_000 - 200, "{later}");
    // Bad clocks are refused.
    for bad in [
        json!({"clock": {"base_ms": 999}}),
        json!({"clock": {"base_ms": 60_000, "increment_ms": 60_001}}),
        json!({"clock": {"base_ms": 60_000}, "black": "engine:1", "white": "engine:1"}),
        json!({"clock": {"minutes": 5}}),
        json!({"black_name": ""}),
        json!({"black_name": "a\u{7}b"}),
        // A person does not pass for a computer player, or for "human".
        json!({"black_name": "engine:5"}),
        json!({"white_name": "Human"}),
    ] {
        let (status, body) = send(client().post(server.api("/games")).json(&bad)).await;
        assert_eq!(status, 400, "{bad}: {body}");
    }
}

async fn a_flag_falls_by_itself_and_a_move_after_it_is_refused(db: TestDb) {
    let server = Server::start(&db);
    let game = create(&server, json!({"clock": {"base_ms": 1_000}})).await;
    let (game_id, black, white) = (id(&game), secret(&game, "black"), secret(&game, "white"));
    let mut live = Live::connect(&server, &game_id, Some(&black)).await;
    for (seat, square) in [(&black, "d3"), (&white, "c5")] {
        let (status, body) = play(&server, &game_id, seat, square).await;
        assert_eq!(status, 200, "{body}");
    }
    // Nobody asks: the server ends the game when Black's second is up, and says so.
    let over = live.state_where(|state| state["status"] == "over").await;
    assert_eq!(
        (&over["ending"], &over["winner"]),
        (&json!("time"), &json!("W"))
    );
    assert_eq!(
        (clock(&over, "B"), &over["clock"]["running"]),
        (0, &Value::Null)
    );
    let (status, body) = play(&server, &game_id, &black, "d6").await;
    assert_eq!((status, error_code(&body)), (409, "out_of_time"), "{body}");
    // GGF says Black lost on time.
    let (status, ggf) = text(&server, &format!("/games/{game_id}/export?format=ggf")).await;
    assert_eq!(status, 200);
    assert!(ggf.contains("RE[-64:t]"), "{ggf}");
    assert!(ggf.contains("TI[00:01/00:00/00:00]"), "{ggf}");
    let again = state(&server, &game_id).await;
    assert_eq!(
        again["moves"],
        json!(["d3", "c5"]),
        "nothing played after the flag"
    );
}

/// Issue 47: a timed game whose first move does not come in time is aborted, and a
/// rated one moves no rating.
async fn a_first_move_that_never_comes_aborts_the_game_unrated(db: TestDb) {
    let server = Server::start(&db);
    let ann = member(&server, "ann").await;
    let bob = member(&server, "bob").await;
    let (_, game) = seek_taken(
        &server,
        &ann,
        &bob,
        json!({"rated": true, "color": "B", "clock": {"base_ms": 60_000}}),
    )
    .await;
    let move_as = |member: &(String, String), square: &str| {
        send(
            Auth::Member(&member.0, &member.1)
                .apply(client().post(server.api(&format!("/games/{game}/moves"))))
                .json(&json!({ "square": square })),
        )
    };
    let (status, body) = move_as(&ann, "d3").await;
    assert_eq!(status, 200, "{body}");
    // Bob never makes his first move: 30 s after Ann's, the game is called off.
    let mut live = Live::connect(&server, &game, None).await;
    let over = live.state_where(|state| state["status"] == "over").await;
    assert_eq!(
        (&over["ending"], &over["no_first_move"], &over["winner"]),
        (&json!("no_first_move"), &json!("W"), &Value::Null),
        "{over}"
    );
    assert_eq!((clock(&over, "B"), clock(&over, "W")), (60_000, 60_000));
    let (status, body) = move_as(&bob, "c5").await;
    assert_eq!(
        (status, error_code(&body)),
        (409, "no_first_move"),
        "{body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("White did not make a first move in the time given for it"),
        "{body}"
    );
    for name in ["ann", "bob"] {
        let (status, page) = send(client().get(server.api(&format!("/users/{name}")))).await;
        assert_eq!(status, 200, "{page}");
        assert_eq!(page["ratings"], json!([]), "no rating moved: {page}");
        assert_eq!(page["games"][0]["result"], "aborted", "{page}");
        assert_eq!(page["games"][0]["ending"], "no_first_move", "{page}");
    }
}

async fn reconnecting_and_restarting_show_the_clock_as_it_ran(db: TestDb) {
    let server = Server::start(&db);
    let game = create(&server, json!({"clock": {"base_ms": 120_000}})).await;
    let (game_id, black, white) = (id(&game), secret(&game, "black"), secret(&game, "white"));
    // Black's clock runs from White's first move.
    for (seat, square) in [(&black, "d3"), (&white, "c5")] {
        let (status, body) = play(&server, &game_id, seat, square).await;
        assert_eq!(status, 200, "{body}");
    }
    let mut live = Live::connect(&server, &game_id, Some(&black)).await;
    let first = live.next().await;
    let before = clock(&first["state"], "B");
    drop(live);
    tokio::time::sleep(Duration::from_millis(400)).await;
    let mut live = Live::connect(&server, &game_id, Some(&black)).await;
    let again = live.next().await;
    let after = clock(&again["state"], "B");
    assert!(after <= before - 400, "{before} then {after}");
    drop(live);
    // Stopped and started again: the clock is stored, and it kept running.
    let addr = server.url.trim_start_matches("http://").to_owned();
    assert!(server.terminate().success());
    tokio::time::sleep(Duration::from_millis(200)).await;
    let server = Server::start_command(Server::command_at(&db, &addr, &[]));
    let restarted = state(&server, &game_id).await;
    assert!(clock(&restarted, "B") <= after - 200, "{restarted}");
    assert_eq!(clock(&restarted, "W"), 120_000);
    let (status, _) = play(&server, &game_id, &black, "d6").await;
    assert_eq!(status, 200);
}

async fn an_engine_plays_on_its_clock(db: TestDb) {
    let server = Server::start(&db);
    let game = create(
        &server,
        json!({"white": "engine:3", "time_ms": 5_000, "clock": {"base_ms": 4_000, "increment_ms": 100}}),
    )
    .await;
    let (game_id, black) = (id(&game), secret(&game, "black"));
    let mut live = Live::connect(&server, &game_id, Some(&black)).await;
    let (status, _) = play(&server, &game_id, &black, "d3").await;
    assert_eq!(status, 200);
    let replied = live
        .state_where(|state| state["ply"] == 2 || state["status"] == "over")
        .await;
    assert_eq!(replied["status"], "playing", "{replied}");
    // An engine's clock runs from its first turn (it is there from the start): its share
    // of four seconds over some 30 moves, far below its 5 s per move.
    let white = clock(&replied, "W");
    assert!((3_000..=4_100).contains(&white), "{white}");
    let square = replied["legal"][0].as_str().unwrap();
    let (status, _) = play(&server, &game_id, &black, square).await;
    assert_eq!(status, 200);
    let replied = live
        .state_where(|state| state["ply"] == 4 || state["status"] == "over")
        .await;
    assert_eq!(replied["status"], "playing", "{replied}");
    // Two moves of its share, two increments of 0.1 s.
    let white = clock(&replied, "W");
    assert!((2_000..=4_200).contains(&white), "{white}");
}

async fn a_game_aborts_only_before_its_second_move(db: TestDb) {
    let server = Server::start(&db);
    let abort = |game: &str| format!("/games/{game}/abort");
    let game = create(&server, json!({})).await;
    let (game_id, black, white) = (id(&game), secret(&game, "black"), secret(&game, "white"));
    let (status, body) = post(&server, &abort(&game_id), "nobody", json!({})).await;
    assert_eq!((status, error_code(&body)), (403, "forbidden"));
    play(&server, &game_id, &black, "d3").await;
    let (status, aborted) = post(&server, &abort(&game_id), &white, json!({})).await;
    assert_eq!(status, 200, "{aborted}");
    assert_eq!(
        (&aborted["status"], &aborted["ending"], &aborted["winner"]),
        (&json!("over"), &json!("abort"), &Value::Null)
    );
    let game = create(&server, json!({})).await;
    let (game_id, black, white) = (id(&game), secret(&game, "black"), secret(&game, "white"));
    play(&server, &game_id, &black, "d3").await;
    play(&server, &game_id, &white, "c5").await;
    let (status, body) = post(&server, &abort(&game_id), &black, json!({})).await;
    assert_eq!(
        (status, error_code(&body)),
        (409, "too_late_to_abort"),
        "{body}"
    );
    assert_eq!(state(&server, &game_id).await["can_abort"], false);
    // Moves pasted with the start are not played at the table (red team, issue 47).
    let game = create(&server, json!({"position": "f5d6c3"})).await;
    let (game_id, white) = (id(&game), secret(&game, "white"));
    assert_eq!(
        (&game["state"]["ply"], &game["state"]["can_abort"]),
        (&json!(3), &json!(true))
    );
    let (status, aborted) = post(&server, &abort(&game_id), &white, json!({})).await;
    assert_eq!(status, 200, "{aborted}");
    assert_eq!(aborted["ending"], "abort");
}

/// Registers (or logs in with `path` = "/session"): the status, the body, the cookie.
async fn account(
    server: &Server,
    path: &str,
    name: &str,
    password: &str,
) -> (u16, Value, Option<String>) {
    let response = client()
        .post(server.api(path))
        .json(&json!({"name": name, "password": password}))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let cookie = (status < 300).then(|| session_cookie(&response).0);
    (status, response.json().await.unwrap_or(Value::Null), cookie)
}

async fn me(server: &Server, cookie: &str) -> Value {
    let (status, body) = send(client().get(server.api("/me")).header("cookie", cookie)).await;
    assert_eq!(status, 200, "{body}");
    body["user"].clone()
}

async fn accounts_register_log_in_and_out_with_an_http_only_cookie(db: TestDb) {
    let server = Server::start(&db);
    let response = client()
        .post(server.api("/accounts"))
        .json(&json!({"name": "Ann_1", "password": "correct horse"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 201);
    let (cookie, header) = session_cookie(&response);
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age="] {
        assert!(header.contains(attribute), "{header}");
    }
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["name"], "Ann_1");
    let csrf = body["csrf"].as_str().unwrap().to_owned();
    assert_eq!(me(&server, &cookie).await["name"], "Ann_1");
    assert_eq!(me(&server, "othello_session=forged").await, Value::Null);
    // Names are unique whatever their case; bad names and passwords are refused.
    let (status, body, _) = account(&server, "/accounts", "ann_1", "another one").await;
    assert_eq!((status, error_code(&body)), (409, "name_taken"), "{body}");
    for (name, password) in [
        ("an", "long enough"),
        ("a b c", "long enough"),
        ("bob", "short"),
    ] {
        let (status, body, _) = account(&server, "/accounts", name, password).await;
        assert_eq!(
            (status, error_code(&body)),
            (400, "bad_request"),
            "{name}: {body}"
        );
    }
    // The name taken did not make the database look unwell.
    let (status, _) = send(client().get(format!("{}/healthz", server.url))).await;
    assert_eq!(status, 200);
    // Logging in again, in any case of the name, opens a second session.
    let (status, body, other) = account(&server, "/session", "ANN_1", "correct horse").await;
    assert_eq!(status, 200, "{body}");
    let other = other.unwrap();
    assert_ne!(other, cookie);
    // Logging out needs the session's CSRF token: another site's form cannot do it.
    let (status, body) = send(
        client()
            .delete(server.api("/session"))
            .header("cookie", &cookie),
    )
    .await;
    assert_eq!((status, error_code(&body)), (403, "csrf"), "{body}");
    assert_eq!(me(&server, &cookie).await["name"], "Ann_1");
    let response = client()
        .delete(server.api("/session"))
        .header("cookie", &cookie)
        .header("x-csrf-token", &csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 204);
    assert_eq!(me(&server, &cookie).await, Value::Null, "logged out");
    assert_eq!(
        me(&server, &other).await["name"],
        "Ann_1",
        "the other session stays"
    );
}

async fn a_failed_login_tells_nothing_and_repeated_ones_are_limited(db: TestDb) {
    let server = Server::start(&db);
    let (status, _, _) = account(&server, "/accounts", "carol", "a good password").await;
    assert_eq!(status, 201);
    let (status, wrong_password, _) =
        account(&server, "/session", "carol", "not her password").await;
    let (status_unknown, unknown_name, _) =
        account(&server, "/session", "nobody", "not her password").await;
    assert_eq!((status, status_unknown), (401, 401));
    assert_eq!(
        wrong_password, unknown_name,
        "the same answer whether the name exists or not"
    );
    assert_eq!(error_code(&wrong_password), "wrong_login");
    // Three failures for a name from one address: the next try from there comes too soon,
    // even with the right password, and is told when to come back (the wait doubles with
    // each failure; from another address the owner still logs in, see
    // tests/server/attacks.rs).
    for _ in 0..2 {
        let (status, _, _) = account(&server, "/session", "carol", "guessing").await;
        assert_eq!(status, 401);
    }
    let response = client()
        .post(server.api("/session"))
        .json(&json!({"name": "carol", "password": "a good password"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 429);
    let retry: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=900).contains(&retry), "{retry}");
    let body: Value = response.json().await.unwrap();
    assert_eq!(error_code(&body), "too_many_attempts");
    // Another name from the same address is not locked yet.
    let (status, _, _) = account(&server, "/accounts", "dave", "a good password").await;
    assert_eq!(status, 201);
    let (status, _, _) = account(&server, "/session", "dave", "a good password").await;
    assert_eq!(status, 200);
}

async fn sessions_expire(db: TestDb) {
    let server = Server::start_with(&db, &["--session-ttl", "1500ms"]);
    let (status, _, cookie) = account(&server, "/accounts", "erin", "a good password").await;
    assert_eq!(status, 201);
    let cookie = cookie.unwrap();
    assert_eq!(me(&server, &cookie).await["name"], "erin");
    tokio::time::sleep(Duration::from_millis(1_600)).await;
    assert_eq!(me(&server, &cookie).await, Value::Null);
    // Expired sessions are forgotten after a restart too.
    let addr = server.url.trim_start_matches("http://").to_owned();
    assert!(server.terminate().success());
    let server = Server::start_command(Server::command_at(&db, &addr, &[]));
    assert_eq!(me(&server, &cookie).await, Value::Null);
}

/// The lobby's live channel, with the guest secrets a page holds.
struct LobbyLive {
    socket: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
}

impl LobbyLive {
    async fn connect(server: &Server, secrets: &[&str], cookie: Option<&str>) -> LobbyLive {
        use futures_util::SinkExt;
        use tokio_tungstenite::tungstenite::{Message, client::IntoClientRequest};
        let url = format!(
            "{}/api/lobby/events",
            server.url.replacen("http://", "ws://", 1)
        );
        let mut request = url.into_client_request().unwrap();
        if let Some(cookie) = cookie {
            request
                .headers_mut()
                .insert("cookie", cookie.parse().unwrap());
        }
        let (mut socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        let hello = json!({"type": "hello", "secrets": secrets}).to_string();
        socket.send(Message::text(hello)).await.unwrap();
        LobbyLive { socket }
    }

    /// The next lobby that satisfies `wanted`.
    async fn lobby_where(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        use futures_util::StreamExt;
        loop {
            let message = tokio::time::timeout(Duration::from_secs(30), self.socket.next())
                .await
                .expect("a message in time")
                .expect("open")
                .expect("a message");
            if let tokio_tungstenite::tungstenite::Message::Text(text) = message {
                let value: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(value["type"], "lobby");
                if wanted(&value["lobby"]) {
                    return value["lobby"].clone();
                }
            }
        }
    }
}

async fn post_seek(server: &Server, auth: Auth<'_>, body: Value) -> (u16, Value) {
    send(auth.apply(client().post(server.api("/seeks"))).json(&body)).await
}

/// `poster` posts the challenge `body` and `taker` accepts it: the challenge as posted,
/// and its game's id.
async fn seek_taken(
    server: &Server,
    poster: &(String, String),
    taker: &(String, String),
    body: Value,
) -> (Value, String) {
    let (status, posted) = post_seek(server, Auth::Member(&poster.0, &poster.1), body).await;
    assert_eq!(status, 201, "{posted}");
    let seek = posted["seek"]["id"].as_str().unwrap();
    let (status, taken) = send(
        Auth::Member(&taker.0, &taker.1)
            .apply(client().post(server.api(&format!("/seeks/{seek}/accept")))),
    )
    .await;
    assert_eq!(status, 201, "{taken}");
    let game = taken["game"].as_str().unwrap().to_owned();
    (posted, game)
}

/// How a request says who it is.
#[derive(Clone, Copy)]
enum Auth<'a> {
    Nobody,
    Secret(&'a str),
    /// A session cookie and its CSRF token.
    Member(&'a str, &'a str),
}

impl Auth<'_> {
    fn apply(self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match self {
            Auth::Nobody => request,
            Auth::Secret(secret) => request.bearer_auth(secret),
            Auth::Member(cookie, csrf) => request
                .header("cookie", cookie)
                .header("x-csrf-token", csrf),
        }
    }
}

fn seek_ids(lobby: &Value) -> Vec<String> {
    lobby["seeks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seek| seek["id"].as_str().unwrap().to_owned())
        .collect()
}

async fn a_challenge_appears_live_and_exactly_one_of_two_takers_gets_the_game(db: TestDb) {
    let server = Server::start(&db);
    let mut watcher = LobbyLive::connect(&server, &[], None).await;
    let empty = watcher.lobby_where(|_| true).await;
    assert_eq!(empty["seeks"], json!([]));
    let (status, posted) = post_seek(
        &server,
        Auth::Nobody,
        json!({"name": "Ann", "color": "B", "clock": {"base_ms": 300_000, "increment_ms": 2_000}, "rows": 6, "columns": 6}),
    )
    .await;
    assert_eq!(status, 201, "{posted}");
    let seek = posted["seek"]["id"].as_str().unwrap().to_owned();
    let ann = posted["secret"].as_str().unwrap().to_owned();
    // Everyone watching the lobby sees it come, without asking.
    let lobby = watcher
        .lobby_where(|lobby| !lobby["seeks"].as_array().unwrap().is_empty())
        .await;
    let listed = &lobby["seeks"][0];
    assert_eq!(
        (
            &listed["poster"],
            &listed["color"],
            &listed["rows"],
            &listed["mine"]
        ),
        (&json!("Ann"), &json!("B"), &json!(6), &json!(false))
    );
    assert_eq!(
        listed["clock"],
        json!({"base_ms": 300_000, "increment_ms": 2_000, "days": null})
    );
    let mut poster = LobbyLive::connect(&server, &[&ann], None).await;
    let mine = poster.lobby_where(|_| true).await;
    assert_eq!(mine["seeks"][0]["mine"], true);
    // Two take it at once: one game, one "gone".
    let accept = format!("/seeks/{seek}/accept");
    let (first, second) = tokio::join!(
        send(
            client()
                .post(server.api(&accept))
                .json(&json!({"name": "Bob"}))
        ),
        send(
            client()
                .post(server.api(&accept))
                .json(&json!({"name": "Cy"}))
        ),
    );
    let mut answers = [first, second];
    answers.sort_by_key(|(status, _)| *status);
    let [(won, taken), (lost, gone)] = answers;
    assert_eq!((won, lost), (201, 409), "{taken} {gone}");
    assert_eq!(error_code(&gone), "seek_gone");
    let game = taken["game"].as_str().unwrap().to_owned();
    assert_eq!(taken["color"], "W");
    let taker = taken["secret"].as_str().unwrap().to_owned();
    // The poster's page learns its game; the lobby lists it as being played.
    let matched = poster
        .lobby_where(|lobby| !lobby["matched"].as_array().unwrap().is_empty())
        .await;
    assert_eq!(matched["matched"][0], json!({"seek": seek, "game": game}));
    assert!(seek_ids(&matched).is_empty());
    assert_eq!(matched["playing"][0]["id"], game.as_str());
    let state = state(&server, &game).await;
    assert_eq!(
        (
            &state["seats"]["black"]["name"],
            &state["rows"],
            &state["clock"]["increment_ms"]
        ),
        (&json!("Ann"), &json!(6), &json!(2_000))
    );
    let taker_name = state["seats"]["white"]["name"].as_str().unwrap();
    assert!(["Bob", "Cy"].contains(&taker_name));
    // Each secret opens its own seat.
    let (_, as_ann) = send(
        client()
            .get(server.api(&format!("/games/{game}")))
            .bearer_auth(&ann),
    )
    .await;
    let (_, as_taker) = send(
        client()
            .get(server.api(&format!("/games/{game}")))
            .bearer_auth(&taker),
    )
    .await;
    assert_eq!(
        (&as_ann["you"], &as_taker["you"]),
        (&json!("B"), &json!("W"))
    );
}

async fn challenges_are_withdrawn_by_their_poster_only_and_survive_a_restart(db: TestDb) {
    let server = Server::start(&db);
    let (_, posted) = post_seek(&server, Auth::Nobody, json!({"name": "Ann"})).await;
    let seek = posted["seek"]["id"].as_str().unwrap().to_owned();
    let ann = posted["secret"].as_str().unwrap().to_owned();
    let (_, other) = post_seek(&server, Auth::Nobody, json!({"name": "Eve"})).await;
    let eve = other["secret"].as_str().unwrap().to_owned();
    let path = server.api(&format!("/seeks/{seek}"));
    let (status, body) = send(Auth::Secret(&eve).apply(client().delete(&path))).await;
    assert_eq!((status, error_code(&body)), (403, "not_yours"));
    let (status, body) = send(client().post(format!("{path}/accept")).bearer_auth(&ann)).await;
    assert_eq!((status, error_code(&body)), (409, "own_seek"), "{body}");
    // Stopped and started: both challenges are still there.
    let addr = server.url.trim_start_matches("http://").to_owned();
    assert!(server.terminate().success());
    let server = Server::start_command(Server::command_at(&db, &addr, &[]));
    let (_, lobby) = send(client().get(server.api("/lobby"))).await;
    assert_eq!(seek_ids(&lobby).len(), 2, "{lobby}");
    let (status, _) = send(client().delete(&path).bearer_auth(&ann)).await;
    assert_eq!(status, 204);
    let (status, body) = send(client().post(format!("{path}/accept"))).await;
    assert_eq!((status, error_code(&body)), (409, "seek_gone"));
    let (status, body) = send(client().get(&path)).await;
    assert_eq!((status, error_code(&body)), (409, "seek_gone"));
    // Bad challenges are refused.
    for bad in [
        json!({"rated": true}),
        json!({"color": "green"}),
        json!({"rows": 3}),
        json!({"to": "no such name!"}),
        json!({"surprise": 1}),
    ] {
        let (status, body) = post_seek(&server, Auth::Nobody, bad.clone()).await;
        assert!(matches!(status, 400 | 401), "{bad}: {status} {body}");
    }
    let (status, body) = post_seek(
        &server,
        Auth::Nobody,
        json!({"rated": true, "clock": {"base_ms": 60_000}}),
    )
    .await;
    assert_eq!((status, error_code(&body)), (401, "login_needed"));
}

async fn rated_and_named_challenges_are_between_members(db: TestDb) {
    let server = Server::start(&db);
    let mut members = Vec::new();
    for name in ["ann", "bob", "cyd"] {
        members.push(member(&server, name).await);
    }
    let auth = |index: usize| Auth::Member(&members[index].0, &members[index].1);
    // Without the CSRF token, the cookie alone cannot post.
    let (status, body) = send(
        client()
            .post(server.api("/seeks"))
            .header("cookie", &members[0].0)
            .json(&json!({})),
    )
    .await;
    assert_eq!((status, error_code(&body)), (403, "csrf"));
    let (status, posted) = post_seek(
        &server,
        auth(0),
        json!({"rated": true, "clock": {"base_ms": 60_000}, "to": "BOB", "color": "W"}),
    )
    .await;
    assert_eq!(status, 201, "{posted}");
    assert!(posted.get("secret").is_none(), "a member needs no secret");
    let seek = posted["seek"]["id"].as_str().unwrap().to_owned();
    // Listed for Ann and Bob only.
    for (index, sees) in [(0, true), (1, true), (2, false)] {
        let (_, lobby) = send(auth(index).apply(client().get(server.api("/lobby")))).await;
        assert_eq!(seek_ids(&lobby).contains(&seek), sees, "member {index}");
    }
    let (_, lobby) = send(client().get(server.api("/lobby"))).await;
    assert!(seek_ids(&lobby).is_empty());
    let accept = server.api(&format!("/seeks/{seek}/accept"));
    let (status, body) = send(client().post(&accept).json(&json!({"name": "bob"}))).await;
    assert_eq!(
        (status, error_code(&body)),
        (401, "login_needed"),
        "a guest cannot take it"
    );
    let (status, body) = send(auth(2).apply(client().post(&accept))).await;
    assert_eq!((status, error_code(&body)), (403, "not_for_you"));
    let (status, taken) = send(auth(1).apply(client().post(&accept))).await;
    assert_eq!(status, 201, "{taken}");
    assert!(taken.get("secret").is_none());
    let game = taken["game"].as_str().unwrap();
    // Each member's own cookie opens their seat; the game is rated, timed and helpless.
    let path = server.api(&format!("/games/{game}"));
    let (_, as_ann) = send(auth(0).apply(client().get(&path))).await;
    let (_, as_bob) = send(auth(1).apply(client().get(&path))).await;
    let (_, as_cy) = send(auth(2).apply(client().get(&path))).await;
    assert_eq!(
        (&as_ann["you"], &as_bob["you"], &as_cy["you"]),
        (&json!("W"), &json!("B"), &Value::Null)
    );
    assert_eq!(
        (&as_bob["rated"], &as_bob["help"]["hints"]),
        (&json!(true), &json!(false))
    );
    assert_eq!(
        (
            &as_bob["seats"]["black"]["name"],
            &as_bob["seats"]["black"]["account"]
        ),
        (&json!("bob"), &json!(true))
    );
    let (status, _) = send(
        auth(1)
            .apply(client().post(server.api(&format!("/games/{game}/moves"))))
            .json(&json!({"square": "d3"})),
    )
    .await;
    assert_eq!(status, 200);
    let (status, body) = send(
        auth(0)
            .apply(client().post(server.api(&format!("/games/{game}/moves"))))
            .json(&json!({"square": "d3"})),
    )
    .await;
    assert_eq!((status, error_code(&body)), (422, "illegal_move"), "{body}");
}

async fn a_rated_game_lost_on_time_moves_both_ratings_and_both_pages_show_it(db: TestDb) {
    let server = Server::start(&db);
    let ann = member(&server, "ann").await;
    let bob = member(&server, "bob").await;
    let (_, game) = seek_taken(
        &server,
        &ann,
        &bob,
        json!({"rated": true, "color": "B", "clock": {"base_ms": 1_500}}),
    )
    .await;
    for (player, square) in [(&ann, "d3"), (&bob, "c5")] {
        let (status, _) = send(
            Auth::Member(&player.0, &player.1)
                .apply(client().post(server.api(&format!("/games/{game}/moves"))))
                .json(&json!({ "square": square })),
        )
        .await;
        assert_eq!(status, 200);
    }
    // Ann does not move again: her flag falls, and Bob wins on time.
    let mut live = Live::connect(&server, &game, None).await;
    let over = live.state_where(|state| state["status"] == "over").await;
    assert_eq!(
        (&over["winner"], &over["ending"]),
        (&json!("W"), &json!("time"))
    );
    // The table shows the ratings the game began with and what it changed (issue 47.4).
    let over = state(&server, &game).await;
    let (black, white) = (&over["seats"]["black"], &over["seats"]["white"]);
    assert_eq!(
        (&black["rating"], &black["provisional"], &white["rating"]),
        (&json!(1500), &json!(true), &json!(1500)),
        "{over}"
    );
    let (lost, won) = (
        black["rating_change"].as_i64().unwrap(),
        white["rating_change"].as_i64().unwrap(),
    );
    assert!(
        lost < -100 && won > 100 && (lost + won).abs() <= 1,
        "{over}"
    );
    // The export names the members (issue 47).
    let (status, ggf) = text(&server, &format!("/games/{game}/export?format=ggf")).await;
    assert_eq!(status, 200);
    assert!(ggf.contains("PB[ann]PW[bob]"), "{ggf}");
    assert!(
        ggf.contains("RB[1500]RW[1500]"),
        "their ratings as it began: {ggf}"
    );
    assert!(ggf.contains("TI[00:01/00:00/00:00]"), "{ggf}");
    let page = |name: &str| {
        let url = server.api(&format!("/users/{name}"));
        async move { send(client().get(url)).await }
    };
    let (status, ann_page) = page("ANN").await;
    assert_eq!(status, 200, "{ann_page}");
    let (_, bob_page) = page("bob").await;
    assert_eq!(ann_page["name"], "ann");
    for (player, sign, result) in [(&ann_page, -1, "loss"), (&bob_page, 1, "win")] {
        let rating = &player["ratings"][0];
        assert_eq!(
            (
                &rating["category"],
                &rating["games"],
                &rating["provisional"]
            ),
            (&json!("full-8x8-bullet"), &json!(1), &json!(true))
        );
        let moved = rating["rating"].as_i64().unwrap() - 1500;
        assert!(moved * sign > 100, "{player}");
        assert_eq!(player["history"].as_array().unwrap().len(), 1);
        assert_eq!(player["history"][0]["game"], game.as_str());
        let played = &player["games"][0];
        assert_eq!(
            (
                &played["id"],
                &played["result"],
                &played["ending"],
                &played["rated"]
            ),
            (&json!(game), &json!(result), &json!("time"), &json!(true))
        );
    }
    assert_eq!(bob_page["games"][0]["opponent"], "ann");
    let (status, body) = page("nobody").await;
    assert_eq!((status, error_code(&body)), (404, "no_such_player"));
    // Their next rated game in the category begins from the ratings this one left.
    let (posted, next) = seek_taken(
        &server,
        &ann,
        &bob,
        json!({"rated": true, "color": "W", "clock": {"base_ms": 1_500}}),
    )
    .await;
    // The lobby showed the poster's rating for the challenge's category.
    assert_eq!(
        (&posted["seek"]["rating"], &posted["seek"]["provisional"]),
        (&ann_page["ratings"][0]["rating"], &json!(true)),
        "{posted}"
    );
    let next = state(&server, &next).await;
    assert_eq!(
        (
            &next["seats"]["white"]["rating"],
            &next["seats"]["black"]["rating"],
            &next["seats"]["black"]["rating_change"]
        ),
        (
            &ann_page["ratings"][0]["rating"],
            &bob_page["ratings"][0]["rating"],
            &Value::Null
        ),
        "{next}"
    );
}

async fn a_rematch_swaps_colours_when_both_want_it_and_a_left_game_can_be_claimed(db: TestDb) {
    let server = Server::start_with(&db, &["--abandon-after", "1s"]);
    let game = create(&server, json!({"black_name": "Ann", "white_name": "Bob", "clock": {"base_ms": 60_000, "increment_ms": 1_000}})).await;
    let (game_id, ann, bob) = (id(&game), secret(&game, "black"), secret(&game, "white"));
    let rematch = format!("/games/{game_id}/rematch");
    let (status, body) = post(&server, &rematch, &ann, json!({})).await;
    assert_eq!((status, error_code(&body)), (409, "not_over"));
    post(
        &server,
        &format!("/games/{game_id}/resign"),
        &bob,
        json!({}),
    )
    .await;
    let (status, offered) = post(&server, &rematch, &ann, json!({})).await;
    assert_eq!(status, 200, "{offered}");
    assert_eq!(
        (&offered["rematch_offer"], &offered["rematch"]),
        (&json!("B"), &Value::Null)
    );
    let (status, agreed) = post(&server, &rematch, &bob, json!({})).await;
    assert_eq!(status, 200, "{agreed}");
    let next = agreed["rematch"].as_str().unwrap().to_owned();
    let (status, body) = post(&server, &rematch, &ann, json!({})).await;
    assert_eq!((status, error_code(&body)), (409, "rematch_made"));
    // The same people, colours swapped, each with the secret they had; the same clock.
    let (_, as_ann) = send(
        client()
            .get(server.api(&format!("/games/{next}")))
            .bearer_auth(&ann),
    )
    .await;
    assert_eq!(
        (
            &as_ann["you"],
            &as_ann["seats"]["white"]["name"],
            &as_ann["seats"]["black"]["name"]
        ),
        (&json!("W"), &json!("Ann"), &json!("Bob"))
    );
    assert_eq!(as_ann["clock"]["increment_ms"], 1_000);
    // A timed game cannot be claimed: it is lost on time.
    let (status, body) = post(&server, &format!("/games/{next}/claim"), &ann, json!({})).await;
    assert_eq!((status, error_code(&body)), (409, "no_claim"));

    // Untimed: Ann stays, Bob's page is closed; after a second away, Ann may claim.
    let game = create(&server, json!({})).await;
    let (game_id, ann) = (id(&game), secret(&game, "black"));
    let claim = format!("/games/{game_id}/claim");
    let mut live = Live::connect(&server, &game_id, Some(&ann)).await;
    let mut bob_live = Live::connect(&server, &game_id, Some(&secret(&game, "white"))).await;
    bob_live
        .state_where(|state| state["seats"]["white"]["connected"] == true)
        .await;
    let (status, body) = post(&server, &claim, &ann, json!({})).await;
    assert_eq!(
        (status, error_code(&body)),
        (409, "not_abandoned"),
        "{body}"
    );
    drop(bob_live);
    let away = live
        .state_where(|state| state["seats"]["white"]["connected"] == false)
        .await;
    assert!(away["seats"]["white"]["away_ms"].as_u64().unwrap() < 1_000);
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let (status, claimed) = post(&server, &claim, &ann, json!({})).await;
    assert_eq!(status, 200, "{claimed}");
    assert_eq!(
        (&claimed["winner"], &claimed["ending"]),
        (&json!("B"), &json!("abandon"))
    );
}

async fn a_member_plays_a_rated_game_against_an_engine_level_which_holds_a_rating(db: TestDb) {
    let server = Server::start(&db);
    let ann = member(&server, "ann").await;
    let rated =
        json!({"white": "engine:1", "time_ms": 50, "clock": {"base_ms": 30_000}, "rated": true});
    let (status, body) = send(client().post(server.api("/games")).json(&rated)).await;
    assert_eq!((status, error_code(&body)), (401, "login_needed"));
    let as_ann = |request: reqwest::RequestBuilder| Auth::Member(&ann.0, &ann.1).apply(request);
    let (status, body) = send(
        as_ann(client().post(server.api("/games")))
            .json(&json!({"white": "engine:1", "rated": true})),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    // Red team (issue 47): a rated game from a pasted position farmed ratings.
    let mut pasted = rated.clone();
    pasted["position"] = json!(format!("BW{} B", "-".repeat(62)));
    let (status, body) = send(as_ann(client().post(server.api("/games"))).json(&pasted)).await;
    assert_eq!(status, 400, "{body}");
    let (status, game) = send(as_ann(client().post(server.api("/games"))).json(&rated)).await;
    assert_eq!(status, 201, "{game}");
    assert!(
        game["seats"]["black"].get("secret").is_none(),
        "her account opens her seat"
    );
    let game_id = id(&game);
    let path = server.api(&format!("/games/{game_id}"));
    let (_, state) = send(as_ann(client().get(&path))).await;
    assert_eq!(
        (&state["you"], &state["rated"]),
        (&json!("B"), &json!(true))
    );
    assert_eq!(state["help"], json!({"hints": false, "evaluation": false}));
    let (status, body) = send(as_ann(client().get(format!("{path}/hint")))).await;
    assert_eq!(
        (status, error_code(&body)),
        (403, "no_help"),
        "no help in a rated game"
    );
    let (status, body) = send(client().get(format!("{path}/evaluations"))).await;
    assert_eq!(
        (status, error_code(&body)),
        (403, "no_help"),
        "not for spectators either"
    );
    // Red team (issue 47): taken back to its start, a lost rated game could be aborted.
    let (status, body) =
        send(as_ann(client().post(format!("{path}/undo"))).json(&json!({"action": "request"})))
            .await;
    assert_eq!(
        (status, error_code(&body)),
        (409, "no_undo_when_rated"),
        "{body}"
    );
    let (status, _) = send(as_ann(client().post(format!("{path}/resign")))).await;
    assert_eq!(status, 200);
    let (_, engine) = send(client().get(server.api("/users/engine:1"))).await;
    let (_, ann_page) = send(client().get(server.api("/users/ann"))).await;
    assert!(
        engine["ratings"][0]["rating"].as_i64().unwrap() > 1500,
        "{engine}"
    );
    assert!(
        ann_page["ratings"][0]["rating"].as_i64().unwrap() < 1500,
        "{ann_page}"
    );
    assert_eq!(engine["ratings"][0]["category"], "full-8x8-bullet");
    // Fewest discs winning is another game, rated in a pool of its own (issue 47.16): a
    // loss there leaves her most-discs rating as it was.
    let most = ann_page["ratings"][0]["rating"].clone();
    let mut fewest = rated.clone();
    fewest["win"] = json!("fewest");
    let (status, game) = send(as_ann(client().post(server.api("/games"))).json(&fewest)).await;
    assert_eq!(status, 201, "{game}");
    let resign = server.api(&format!("/games/{}/resign", id(&game)));
    let (status, _) = send(as_ann(client().post(resign))).await;
    assert_eq!(status, 200);
    let (_, ann_page) = send(client().get(server.api("/users/ann"))).await;
    let ratings = ann_page["ratings"].as_array().unwrap();
    let rating_in = |category: &str| {
        ratings
            .iter()
            .find(|rating| rating["category"] == category)
            .unwrap_or_else(|| panic!("a {category} rating: {ann_page}"))["rating"]
            .clone()
    };
    assert_eq!(rating_in("full-8x8-bullet"), most, "{ann_page}");
    assert!(
        rating_in("full-fewest-8x8-bullet").as_i64().unwrap() < 1500,
        "{ann_page}"
    );
    // Nobody logs in as the engine.
    let (status, body, _) = account(&server, "/session", "engine:1", "").await;
    assert_eq!((status, error_code(&body)), (401, "wrong_login"));
}

/// Issue 47.13: the analysis board reads a pasted move list or GGF game, or a finished game
/// of the server's (not one being played); steps through it; plays a variation; ranks every
/// legal move with its depth and selectivity; scores every move for the graph; and the
/// opening explorer counts the server's own finished games of standard Othello.
async fn the_analysis_board_reads_any_game_and_the_engine_ranks_every_move(db: TestDb) {
    let server = Server::start(&db);
    let analyse = |body: Value| send(client().post(server.api("/analysis")).json(&body));
    // A pasted move list, looked at after its second move.
    let (status, view) = analyse(json!({"position": "f5d6c3d3c4", "ply": 2})).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["moves"], json!(["f5", "d6", "c3", "d3", "c4"]));
    assert_eq!(
        (view["ply"].as_u64(), view["to_move"].as_str()),
        (Some(2), Some("B"))
    );
    assert_eq!(view["last_move"], "d6");
    assert_eq!(view["explorer"], 8);
    assert!(
        view["url"]
            .as_str()
            .unwrap()
            .contains("/analysis?ply=2&position=")
    );
    // The link's record reads back as the same game.
    let (_, again) = analyse(json!({"position": view["record"], "ply": 2})).await;
    assert_eq!(again["board"], view["board"]);
    assert_eq!(again["moves"], view["moves"]);
    // A variation: another move at ply 2 drops the moves after it.
    let (status, variation) =
        analyse(json!({"position": "f5d6c3d3c4", "ply": 2, "play": "c5"})).await;
    assert_eq!(status, 200, "{variation}");
    assert_eq!(variation["moves"], json!(["f5", "d6", "c5"]));
    assert_eq!(variation["ply"], 3);
    let (status, body) = analyse(json!({"position": "f5d6", "play": "a1"})).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = analyse(json!({"position": "f5d6", "ply": 3})).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = analyse(json!({"position": "f5f5"})).await;
    assert_eq!((status, error_code(&body)), (422, "bad_position"), "{body}");
    let (status, body) = analyse(json!({})).await;
    assert_eq!(status, 400, "{body}");
    // Any shape and rule: an empty 6 x 6 SIMPLE board, fewest discs.
    let (status, small) = analyse(
        json!({"position": "", "rules": "simple", "rows": 6, "columns": 6, "win": "fewest"}),
    )
    .await;
    assert_eq!(status, 200, "{small}");
    assert_eq!(
        (
            small["rows"].as_u64(),
            small["rules"].as_str(),
            small["win"].as_str()
        ),
        (Some(6), Some("simple"), Some("fewest"))
    );
    assert!(small["explorer"].is_null());
    // The engine's lines: every legal move, with its depth and selectivity.
    let (status, lines) = send(
        client()
            .post(server.api("/analysis/lines"))
            .json(&json!({"position": "f5d6c3d3c4", "time_ms": 300})),
    )
    .await;
    assert_eq!(status, 200, "{lines}");
    let ranked: std::collections::BTreeSet<&str> = lines["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| line["move"].as_str().unwrap())
        .collect();
    let (_, at_end) = analyse(json!({"position": "f5d6c3d3c4"})).await;
    let legal: std::collections::BTreeSet<&str> = at_end["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|square| square.as_str().unwrap())
        .collect();
    assert_eq!(ranked, legal, "{lines}");
    assert!(lines["depth"].as_u64().unwrap() >= 1);
    assert!(
        [73, 87, 95, 98, 99, 100].contains(&lines["selectivity"].as_u64().unwrap()),
        "{lines}"
    );
    // Near the end the lines are exact.
    let ggf = "(;GM[Othello]PC[test]PB[a]PW[b]RE[?]TI[0]TY[8]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[F5]W[F6]B[E6]W[F4];)";
    let (status, view) = analyse(json!({"position": ggf})).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["moves"], json!(["f5", "f6", "e6", "f4"]));
    // The graph: a score after every move, asked again until complete.
    let mut scores = Vec::new();
    loop {
        let (status, part) = send(
            client()
                .post(server.api("/analysis/graph"))
                .json(&json!({"position": "f5d6c3d3c4", "from": scores.len()})),
        )
        .await;
        assert_eq!(status, 200, "{part}");
        scores.extend(part["scores"].as_array().unwrap().iter().cloned());
        if part["complete"] == true {
            break;
        }
    }
    assert_eq!(
        scores
            .iter()
            .map(|s| s["ply"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [1, 2, 3, 4, 5]
    );
    // A game being played is not analysed; once over it is, and it feeds the explorer.
    let game = create(&server, json!({})).await;
    let (game_id, black) = (id(&game), secret(&game, "black"));
    let white = secret(&game, "white");
    assert_eq!(play(&server, &game_id, &black, "f5").await.0, 200);
    assert_eq!(play(&server, &game_id, &white, "f6").await.0, 200);
    let (status, body) = analyse(json!({"game": game_id})).await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("being played"),
        "{body}"
    );
    let (status, body) = post(
        &server,
        &format!("/games/{game_id}/resign"),
        &black,
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, view) = analyse(json!({"game": game_id, "ply": 1})).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["moves"], json!(["f5", "f6"]));
    // A guest's two-move game does not feed the explorer (found by the red team of item
    // 13: anyone could fill it with made-up games); one between two members, played from
    // the start for twenty moves or more, does.
    let (status, explorer) = send(client().get(server.api("/explorer?size=8"))).await;
    assert_eq!((status, &explorer["total"]), (200, &json!(0)), "{explorer}");
    let ann = member(&server, "ann").await;
    let bob = member(&server, "bob").await;
    let (_, game) = seek_taken(
        &server,
        &ann,
        &bob,
        json!({"color": "B", "clock": {"days": 2}}),
    )
    .await;
    let mut played = Vec::new();
    while played.len() < 20 {
        let now = state(&server, &game).await;
        let square = now["legal"][0].as_str().unwrap().to_owned();
        let player = if now["to_move"] == "B" { &ann } else { &bob };
        assert!(!played.is_empty() || square == "d3", "{now}");
        let (status, body) = member_plays(&server, player, &game, &square).await;
        assert_eq!(status, 200, "{body}");
        played.push(square);
    }
    let (status, body) = send(
        Auth::Member(&ann.0, &ann.1)
            .apply(client().post(server.api(&format!("/games/{game}/resign")))),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    // The explorer reads the server's games again a minute after it last did: a new
    // server reads them at once.
    let server = restart(server, &db);
    let (status, explorer) = send(client().get(server.api("/explorer?size=8"))).await;
    assert_eq!((status, &explorer["total"]), (200, &json!(1)), "{explorer}");
    let next = &explorer["next"][0];
    assert_eq!(
        (&next["move"], &next["games"], &next["white_wins"]),
        // Its first move (d3) turned to meet the explorer's f5.
        (&json!("f5"), &json!(1), &json!(1)),
        "{explorer}"
    );
}

on_both_databases!(
    the_analysis_board_reads_any_game_and_the_engine_ranks_every_move,
    the_server_keeps_the_clock_and_adds_the_increment,
    a_first_move_that_never_comes_aborts_the_game_unrated,
    a_flag_falls_by_itself_and_a_move_after_it_is_refused,
    reconnecting_and_restarting_show_the_clock_as_it_ran,
    an_engine_plays_on_its_clock,
    a_game_aborts_only_before_its_second_move,
    accounts_register_log_in_and_out_with_an_http_only_cookie,
    a_failed_login_tells_nothing_and_repeated_ones_are_limited,
    sessions_expire,
    a_challenge_appears_live_and_exactly_one_of_two_takers_gets_the_game,
    challenges_are_withdrawn_by_their_poster_only_and_survive_a_restart,
    rated_and_named_challenges_are_between_members,
    a_rated_game_lost_on_time_moves_both_ratings_and_both_pages_show_it,
    a_rematch_swaps_colours_when_both_want_it_and_a_left_game_can_be_claimed,
    a_member_plays_a_rated_game_against_an_engine_level_which_holds_a_rating,
    puzzles_are_served_judged_and_rated_once_per_account,
    puzzles_are_made_from_the_servers_finished_games,
    a_crowd_answering_one_puzzle_at_once_is_rated_one_by_one,
    a_correspondence_game_waits_days_for_each_move_across_restarts,
    a_flag_falls_after_a_restart_though_nobody_opens_the_game,
    red_team_47_11_correspondence_games_are_always_someone_s,
    wthor_games_imported_feed_the_opening_explorer,
    the_servers_own_games_export_as_wthor_files_that_read_back,
    red_team_47_13_the_analysis_board_ranks_every_move_and_stops_for_nobody,
);

/// A member's move through their session.
async fn member_plays(
    server: &Server,
    player: &(String, String),
    game: &str,
    square: &str,
) -> (u16, Value) {
    send(
        Auth::Member(&player.0, &player.1)
            .apply(client().post(server.api(&format!("/games/{game}/moves"))))
            .json(&json!({ "square": square })),
    )
    .await
}

/// The games waiting for `player`'s move, as the home page's "Your turn" lists them.
async fn turn(server: &Server, player: &(String, String)) -> Vec<Value> {
    let (status, body) =
        send(Auth::Member(&player.0, &player.1).apply(client().get(server.api("/me/turn")))).await;
    assert_eq!(status, 200, "{body}");
    body["games"].as_array().unwrap().clone()
}

/// The server stopped and started again on the same address and database.
fn restart(server: Server, db: &TestDb) -> Server {
    let addr = server.url.trim_start_matches("http://").to_owned();
    assert!(server.terminate().success());
    Server::start_command(Server::command_at(db, &addr, &[]))
}

/// Issue 47.11: days a move between members: each side's list of games waiting for its
/// move, moves across restarts, the move's days given back whole, a rated result in the
/// correspondence pool, and a rematch agreed while the other player was away.
async fn a_correspondence_game_waits_days_for_each_move_across_restarts(db: TestDb) {
    const DAY: i64 = 86_400_000;
    let server = Server::start(&db);
    let ann = member(&server, "ann").await;
    let bob = member(&server, "bob").await;
    // Guests neither post nor take one: their games would be nowhere to find again.
    let daily = json!({"color": "B", "rated": true, "clock": {"days": 2}});
    let (status, body) = post_seek(&server, Auth::Nobody, json!({"clock": {"days": 2}})).await;
    assert_eq!((status, error_code(&body)), (401, "login_needed"), "{body}");
    for bad in [
        json!({"days": 0}),
        json!({"days": 15}),
        json!({"days": 2, "base_ms": 60_000}),
        json!({"days": 2, "increment_ms": 1_000}),
    ] {
        let (status, body) = post_seek(
            &server,
            Auth::Member(&ann.0, &ann.1),
            json!({ "clock": bad }),
        )
        .await;
        assert_eq!((status, error_code(&body)), (400, "bad_request"), "{bad}");
    }
    let (posted, game) = seek_taken(&server, &ann, &bob, daily).await;
    assert_eq!(posted["seek"]["clock"]["days"], 2, "{posted}");
    let started = state(&server, &game).await;
    assert_eq!(started["clock"]["days"], 2, "{started}");
    let first = started["clock"]["first_move_ms"].as_i64().unwrap();
    assert!(
        first > 2 * DAY - 60_000,
        "two days for the first move: {first}"
    );
    // Ann's turn: in her list, not in Bob's; a guest has no list.
    let listed = turn(&server, &ann).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(
        (
            &listed[0]["id"],
            &listed[0]["opponent"],
            &listed[0]["color"]
        ),
        (&json!(game), &json!("bob"), &json!("B"))
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let left = listed[0]["deadline"].as_i64().unwrap() - now;
    assert!(
        (2 * DAY - 60_000..=2 * DAY).contains(&left),
        "two days ahead: {listed:?}"
    );
    assert!(turn(&server, &bob).await.is_empty());
    let (status, body) = send(client().get(server.api("/me/turn"))).await;
    assert_eq!((status, error_code(&body)), (401, "no_account"));
    let (status, body) = member_plays(&server, &ann, &game, "d3").await;
    assert_eq!(status, 200, "{body}");
    assert!(turn(&server, &ann).await.is_empty());
    assert_eq!(turn(&server, &bob).await.len(), 1);
    // The server stops; Bob moves whenever he comes back.
    let server = restart(server, &db);
    assert_eq!(turn(&server, &bob).await[0]["id"], game.as_str());
    let (status, body) = member_plays(&server, &bob, &game, "c5").await;
    assert_eq!(status, 200, "{body}");
    // Ann's page says the game waits for her, to anyone.
    let (_, page) = send(client().get(server.api("/users/ann"))).await;
    assert_eq!(page["turn"][0]["id"], game.as_str(), "{page}");
    let (status, _) = member_plays(&server, &ann, &game, "d6").await;
    assert_eq!(status, 200);
    let after = state(&server, &game).await;
    assert_eq!(
        after["clock"]["B"],
        2 * DAY,
        "the move's days back whole: {after}"
    );
    assert_eq!(after["clock"]["running"], "W");
    // Bob resigns: rated, in the correspondence pool.
    let (status, _) = send(
        Auth::Member(&bob.0, &bob.1)
            .apply(client().post(server.api(&format!("/games/{game}/resign")))),
    )
    .await;
    assert_eq!(status, 200);
    let (_, page) = send(client().get(server.api("/users/ann"))).await;
    assert_eq!(page["ratings"][0]["category"], "full-8x8-correspondence");
    assert!(page["turn"].as_array().unwrap().is_empty(), "{page}");
    // Ann offers a rematch and leaves; Bob takes it up after a restart.
    let rematch = format!("/games/{game}/rematch");
    let (status, offered) =
        send(Auth::Member(&ann.0, &ann.1).apply(client().post(server.api(&rematch)))).await;
    assert_eq!((status, &offered["rematch_offer"]), (200, &json!("B")));
    let server = restart(server, &db);
    let (status, agreed) =
        send(Auth::Member(&bob.0, &bob.1).apply(client().post(server.api(&rematch)))).await;
    assert_eq!(status, 200, "{agreed}");
    let next = agreed["rematch"].as_str().unwrap();
    let next = state(&server, next).await;
    assert_eq!(
        (&next["clock"]["days"], &next["seats"]["black"]["name"]),
        (&json!(2), &json!("bob")),
        "{next}"
    );
    assert_eq!(turn(&server, &bob).await[0]["id"], next["id"]);
}

/// Found by the red team of item 47.11: days a move made outside the lobby were tied to
/// nobody; a challenge to oneself or to nobody held a slot for nothing; an empty clock was
/// said to be two; a resignation's answer had no rating change.
async fn red_team_47_11_correspondence_games_are_always_someone_s(db: TestDb) {
    let server = Server::start(&db);
    let ann = member(&server, "ann").await;
    let as_ann = |request: reqwest::RequestBuilder| Auth::Member(&ann.0, &ann.1).apply(request);
    let daily = json!({"clock": {"days": 2}, "white": "engine:3"});
    let (status, body) = send(client().post(server.api("/games")).json(&daily)).await;
    assert_eq!((status, error_code(&body)), (401, "login_needed"), "{body}");
    let (status, body) =
        send(as_ann(client().post(server.api("/games"))).json(&json!({"clock": {"days": 2}})))
            .await;
    assert_eq!((status, error_code(&body)), (400, "bad_request"), "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("computer player"),
        "{body}"
    );
    let (status, created) = send(as_ann(client().post(server.api("/games"))).json(&daily)).await;
    assert_eq!(status, 201, "{created}");
    let game = created["id"].as_str().unwrap();
    let (_, seen) = send(as_ann(client().get(server.api(&format!("/games/{game}"))))).await;
    assert_eq!(
        (&seen["you"], &seen["seats"]["black"]["name"]),
        (&json!("B"), &json!("ann"))
    );
    assert_eq!(turn(&server, &ann).await[0]["id"], game);
    // Challenges nobody could take.
    for (to, code) in [
        ("ANN", (400, "bad_request")),
        ("nobody", (404, "no_such_player")),
    ] {
        let (status, body) = post_seek(
            &server,
            Auth::Member(&ann.0, &ann.1),
            json!({"clock": {"days": 3}, "to": to}),
        )
        .await;
        assert_eq!((status, error_code(&body)), code, "{to}: {body}");
    }
    for clock in [json!({}), json!({"days": null})] {
        let (status, body) = post_seek(
            &server,
            Auth::Member(&ann.0, &ann.1),
            json!({ "clock": clock }),
        )
        .await;
        assert_eq!(status, 400);
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("needs base_ms"),
            "{body}"
        );
    }
    // A rated game's resignation answers with what it changed.
    let (status, rated) = send(
        as_ann(client().post(server.api("/games")))
            .json(&json!({"rated": true, "clock": {"days": 1}, "white": "engine:3"})),
    )
    .await;
    assert_eq!(status, 201, "{rated}");
    let (status, resigned) = send(as_ann(
        client().post(server.api(&format!("/games/{}/resign", rated["id"].as_str().unwrap()))),
    ))
    .await;
    assert_eq!(status, 200, "{resigned}");
    let change = &resigned["seats"]["black"]["rating_change"];
    assert!(
        change.as_i64().is_some_and(|change| change < 0),
        "{resigned}"
    );
}

/// Issue 47.11: a game whose flag falls while nobody has it open, not even after a
/// restart, still ends on time (the server looks for games coming due).
async fn a_flag_falls_after_a_restart_though_nobody_opens_the_game(db: TestDb) {
    let server = Server::start(&db);
    let ann = member(&server, "ann").await;
    let bob = member(&server, "bob").await;
    let (_, game) = seek_taken(
        &server,
        &ann,
        &bob,
        json!({"color": "B", "clock": {"base_ms": 2_000}}),
    )
    .await;
    for (player, square) in [(&ann, "d3"), (&bob, "c5")] {
        let (status, body) = member_plays(&server, player, &game, square).await;
        assert_eq!(status, 200, "{body}");
    }
    let server = restart(server, &db);
    // Nothing asks the server anything: the database is read behind its back.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, ending) = stored_ending(&db, &game).await;
        if status == "over" {
            assert_eq!(ending.as_deref(), Some("time:B"));
            break;
        }
        assert!(Instant::now() < deadline, "not ended: {status}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let over = state(&server, &game).await;
    assert_eq!(
        (&over["winner"], &over["ending"]),
        (&json!("W"), &json!("time"))
    );
}

/// A game's status and ending as stored, read straight from the database.
async fn stored_ending(db: &TestDb, game: &str) -> (String, Option<String>) {
    const QUERY: &str = "SELECT status, ending FROM games WHERE id = $1";
    match db {
        TestDb::Sqlite(..) => {
            let connection = rusqlite::Connection::open(db.path()).unwrap();
            connection
                .query_row(&QUERY.replace('$', "?"), [game], |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })
                .unwrap()
        }
        TestDb::Postgres(url) => {
            let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(connection);
            let row = client.query_one(QUERY, &[&game]).await.unwrap();
            (row.get(0), row.get(1))
        }
    }
}

/// Issue 47.15: WTHOR files imported into the game database (players named by the `.JOU`
/// file; a game that does not replay left out; imported again, nothing doubled) and the
/// opening explorer's answers over HTTP.
async fn wthor_games_imported_feed_the_opening_explorer(db: TestDb) {
    use othello::{
        MoveList, Record, Setup, Shape, Variant,
        wthor::{WthorGames, WthorNames},
    };
    let dir = tempfile::tempdir().unwrap();
    let mut games = WthorGames::new(Shape::STANDARD, 2025).unwrap();
    for (moves, black, white) in [("f5d6c3", 0, 1), ("e6f4", 1, 0), ("f5f6e6", 0, 1)] {
        let mut record = Record::new(Variant::Full, Setup::standard(Shape::STANDARD));
        record.moves = moves.parse::<MoveList>().unwrap().0;
        games.push(&record, 0, black, white).unwrap();
    }
    let mut broken = games.games[0].clone();
    broken.moves[1] = 11;
    games.games.push(broken);
    let wtb = dir.path().join("WTH_2025.wtb");
    std::fs::write(&wtb, games.to_bytes()).unwrap();
    let jou = dir.path().join("WTHOR.JOU");
    std::fs::write(
        &jou,
        WthorNames::players(["Ann", "Bob"]).unwrap().to_bytes(),
    )
    .unwrap();
    // `othello db import` of the file, with `extra` arguments: what it says.
    let import = |extra: &[&std::path::Path]| {
        let output = std::process::Command::new(assert_cmd::cargo::cargo_bin!("othello"))
            .args(["db", "import"])
            .arg(&wtb)
            .args(extra)
            .arg("--db")
            .arg(&db)
            .env_remove("DATABASE_URL")
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let with_names = [std::path::Path::new("--players"), &jou];
    let said = import(&with_names);
    assert!(
        said.starts_with("3 games read, 3 added (0 there already), 1 left out")
            && said.trim_end().ends_with("has 3"),
        "{said}"
    );
    let said = import(&with_names);
    assert!(
        said.starts_with("3 games read, 0 added (3 there already)"),
        "{said}"
    );
    // Without the names (or with names corrected), the same games: none added (found by
    // the red team of item 47.15: they were added again under their numbers).
    let said = import(&[]);
    assert!(
        said.starts_with("3 games read, 0 added (3 there already)"),
        "{said}"
    );
    let server = Server::start(&db);
    let (status, after) = send(client().get(server.api("/explorer?moves=e6"))).await;
    assert_eq!(status, 200, "{after}");
    assert_eq!((&after["total"], &after["games"]), (&json!(3), &json!(3)));
    // Asked from e6, answered from e6: f4 (the two f5 d6 games), then f6 (f5 f6 turned).
    let next = after["next"].as_array().unwrap();
    assert_eq!(
        (
            &next[0]["move"],
            &next[0]["games"],
            &next[0]["black_score"],
            &next[0]["average"]
        ),
        (&json!("f4"), &json!(2), &json!(75.0), &json!(30.0)),
        "{after}"
    );
    assert_eq!((next.len(), &next[1]["move"]), (2, &json!("f6")), "{after}");
    let (status, body) = send(client().get(server.api("/explorer?moves=a1"))).await;
    assert_eq!((status, error_code(&body)), (400, "bad_request"), "{body}");
    let (status, body) = send(client().get(server.api("/explorer?size=6"))).await;
    assert_eq!((status, error_code(&body)), (400, "bad_request"), "{body}");
    let (_, ten) = send(client().get(server.api("/explorer?size=10"))).await;
    assert_eq!((&ten["total"], &ten["next"]), (&json!(0), &json!([])));
}

/// Issue 47.15: `othello db export` writes the server's finished standard games as WTHOR
/// files: each game's moves, players by the names they played under (in Latin-1, cut to
/// the format's 19 characters), its result as a score byte that names the winner (a game
/// won by resignation while behind too); other shapes and rules, and games being played,
/// left out. The files read back through `othello explore` and `db import`; an export never
/// replaces the database or a file of another kind.
async fn the_servers_own_games_export_as_wthor_files_that_read_back(db: TestDb) {
    use othello::{
        Shape,
        wthor::{PLAYER_BYTES, TOURNAMENT_BYTES, WthorGames, WthorNames},
    };
    let server = Server::start(&db);
    // Black plays f5 (4-1 up), then resigns on White's turn: White wins while behind.
    let game = create(
        &server,
        json!({"black_name": "Zoë ✓ plays a long game", "white_name": "bob"}),
    )
    .await;
    let (resigned, black) = (id(&game), secret(&game, "black"));
    assert_eq!(play(&server, &resigned, &black, "f5").await.0, 200);
    let (status, body) = post(
        &server,
        &format!("/games/{resigned}/resign"),
        &black,
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    // Two engines play one to its end.
    let engines = create(
        &server,
        json!({"black": "engine:1", "white": "random", "speed_ms": 0, "time_ms": 20}),
    )
    .await;
    let mut watcher = Live::connect(&server, &id(&engines), None).await;
    let over = watcher.state_where(|state| state["status"] == "over").await;
    drop(watcher);
    // Left out: a 6x6 game, a SIMPLE game (both resigned), and a game being played.
    for request in [
        json!({"rows": 6, "columns": 6}),
        json!({"rules": "simple"}),
        json!({}),
    ] {
        let game = create(&server, request.clone()).await;
        let (black, first) = (secret(&game, "black"), &game["state"]["legal"][0]);
        let first = first.as_str().unwrap_or_else(|| panic!("{game}"));
        assert_eq!(play(&server, &id(&game), &black, first).await.0, 200);
        if request != json!({}) {
            let path = format!("/games/{}/resign", id(&game));
            assert_eq!(post(&server, &path, &black, json!({})).await.0, 200);
        }
    }
    if matches!(db, TestDb::Sqlite(..)) {
        server.terminate();
    }
    let dir = tempfile::tempdir().unwrap();
    let wtb = dir.path().join("ours.wtb");
    let program = env!("CARGO_BIN_EXE_othello");
    let export = |args: &[&std::ffi::OsStr]| {
        std::process::Command::new(program)
            .args(["db", "export"])
            .args(args)
            .arg("--db")
            .arg(&db)
            .env_remove("DATABASE_URL")
            .output()
            .unwrap()
    };
    let made = export(&[wtb.as_os_str()]);
    let said = String::from_utf8_lossy(&made.stdout);
    assert!(made.status.success(), "{said} {made:?}");
    assert!(
        said.starts_with("2 games of 2 finished standard 8x8 games written to "),
        "{said}"
    );
    let file = WthorGames::from_bytes(&std::fs::read(&wtb).unwrap()).unwrap();
    let players = WthorNames::from_bytes(
        &std::fs::read(wtb.with_extension("JOU")).unwrap(),
        PLAYER_BYTES,
    )
    .unwrap();
    let tournaments = WthorNames::from_bytes(
        &std::fs::read(wtb.with_extension("TRN")).unwrap(),
        TOURNAMENT_BYTES,
    )
    .unwrap();
    assert_eq!(file.games.len(), 2);
    let name = |number| players.name(number).unwrap();
    let first = &file.games[0];
    let (record, difference) = first.result(Shape::STANDARD).unwrap();
    assert_eq!(othello::MoveList(record.moves).to_string(), "f5");
    assert_eq!((first.black_discs, difference), (4, -56));
    assert_eq!(
        (name(first.black), name(first.white)),
        ("Zoë ? plays a long ".to_owned(), "bob".to_owned())
    );
    assert_eq!(
        tournaments.name(first.tournament).as_deref(),
        Some("Online casual")
    );
    // The engines' game: every move, and its score by its final board.
    let second = &file.games[1];
    let (record, difference) = second.result(Shape::STANDARD).unwrap();
    let moves: Vec<String> = over["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|mv| mv.as_str().unwrap().to_owned())
        .filter(|mv| mv != "pass")
        .collect();
    assert_eq!(othello::MoveList(record.moves).to_string(), moves.concat());
    let (black_discs, white_discs) = (over["counts"]["B"].as_i64(), over["counts"]["W"].as_i64());
    let (black_discs, white_discs) = (black_discs.unwrap(), white_discs.unwrap());
    let empties = 64 - black_discs - white_discs;
    let expected = black_discs - white_discs + empties * (black_discs - white_discs).signum();
    assert_eq!(i64::from(difference), expected, "{over}");
    assert_eq!(
        (name(second.black), name(second.white)),
        ("engine:1".to_owned(), "random".to_owned())
    );
    // `othello explore` reads them: after f5 (any first move, turned) both games, one of
    // them going on with the engines' result.
    let explored = std::process::Command::new(program)
        .args(["explore", "--after", "f5"])
        .arg(&wtb)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&explored.stdout);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(
        (lines[0], lines.len()),
        ("after f5: 2 games of 2", 3),
        "{table}"
    );
    let discs = format!(" {:+.1}", expected as f64);
    assert!(lines[2].ends_with(&discs), "{table}");
    // Exported again over its own files: replaced, the same games.
    assert!(export(&[wtb.as_os_str()]).status.success());
    assert_eq!(
        WthorGames::from_bytes(&std::fs::read(&wtb).unwrap())
            .unwrap()
            .games,
        file.games
    );
    // Never over the database, nor over a file of another kind.
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "mine").unwrap();
    let refused = export(&[notes.as_os_str()]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("not replaced"),
        "{refused:?}"
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "mine");
    if let TestDb::Sqlite(..) = db {
        let before = std::fs::read(db.path()).unwrap();
        let refused = export(&[db.path().as_os_str()]);
        assert!(
            String::from_utf8_lossy(&refused.stderr).contains("is the database"),
            "{refused:?}"
        );
        assert_eq!(std::fs::read(db.path()).unwrap(), before);
    }
    let refused = export(&[wtb.as_os_str(), "--size".as_ref(), "6".as_ref()]);
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("--size must be 8 or 10"),
        "{refused:?}"
    );
    // Found by the red team of item 47.15. One file spelled two ways is refused: the
    // players were written over the games.
    let games_before = std::fs::read(&wtb).unwrap();
    let dotted = std::path::Path::new(".").join("ours.wtb");
    let refused = std::process::Command::new(program)
        .current_dir(dir.path())
        .args(["db", "export", "ours.wtb", "--players"])
        .arg(&dotted)
        .arg("--db")
        .arg(&db)
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("named for two files"),
        "{refused:?}"
    );
    assert_eq!(std::fs::read(&wtb).unwrap(), games_before);
    // An export of no games, run again, replaces its own empty files.
    for _ in 0..2 {
        let empty = export(&[
            dir.path().join("none.wtb").as_os_str(),
            "--year".as_ref(),
            "1999".as_ref(),
        ]);
        assert!(empty.status.success(), "{empty:?}");
    }
    // A database that is not the server's is read, never written: another program's
    // SQLite file, a missing one (not made).
    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE notes (x); INSERT INTO notes VALUES ('precious');")
        .unwrap();
    let before = std::fs::read(&other).unwrap();
    let missing = dir.path().join("missing.db");
    for (database, said) in [
        (&other, "without this program's tables"),
        (&missing, "no such file"),
    ] {
        let refused = std::process::Command::new(program)
            .args(["db", "export"])
            .arg(dir.path().join("x.wtb"))
            .arg("--db")
            .arg(database)
            .env_remove("DATABASE_URL")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(
            !refused.status.success() && stderr.contains(said),
            "{stderr}"
        );
    }
    assert_eq!(std::fs::read(&other).unwrap(), before);
    assert!(!missing.exists());
}

/// Found by the red team of item 47.13 (the analysis board): on a 16 x 16 SIMPLE board
/// with 73 legal moves only 64 were ranked; a field an endpoint does not read (`play` for
/// the lines) was ignored, answering for another position; `position` and `game` together
/// got a message asking for one of them; and a search whose visitor had left went on for
/// its whole time, holding an engine thread nobody would read from.
async fn red_team_47_13_the_analysis_board_ranks_every_move_and_stops_for_nobody(db: TestDb) {
    let server = Server::start(&db);
    let lines = |body: Value| send(client().post(server.api("/analysis/lines")).json(&body));
    let many = json!({
        "position": "g7 f6 e5 d4 c3 b2 c2 b3 b1 j7 k6 j5 i4 h3 g2 f2 f3 g3 h2 g10 f11 e10 d9 \
                     c8 b7 b6 j10 k11",
        "rules": "simple", "rows": 16, "columns": 16,
    });
    let (status, view) = send(client().post(server.api("/analysis")).json(&many)).await;
    assert_eq!(status, 200, "{view}");
    let legal = view["legal"].as_array().unwrap().len();
    assert!(legal > 64, "{view}");
    let mut timed = many.clone();
    timed["time_ms"] = json!(100);
    let (status, ranked) = lines(timed).await;
    assert_eq!(status, 200, "{ranked}");
    assert_eq!(ranked["moves"].as_array().unwrap().len(), legal);
    // Fields an endpoint does not read are refused, named.
    for (path, body, field) in [
        (
            "/analysis/lines",
            json!({"position": "f5", "play": "d6"}),
            "play",
        ),
        (
            "/analysis/graph",
            json!({"position": "f5", "time_ms": 100}),
            "time_ms",
        ),
        ("/analysis", json!({"position": "f5", "from": 1}), "from"),
    ] {
        let (status, answer) = send(client().post(server.api(path)).json(&body)).await;
        assert_eq!(
            (status, error_code(&answer)),
            (400, "bad_request"),
            "{answer}"
        );
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(field), "{message}");
    }
    let (status, answer) = send(
        client()
            .post(server.api("/analysis"))
            .json(&json!({"position": "f5", "game": "0123456789abcdef"})),
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not both"),
        "{answer}"
    );
    // A member's ten-second search on the biggest board, left after it starts: the engine
    // thread is free again long before the ten seconds are up.
    let ann = member(&server, "ann").await;
    let running = async || {
        let (_, health) = send(client().get(format!("{}/healthz", server.url))).await;
        health["engines"]["running"].as_u64().unwrap()
    };
    let request = Auth::Member(&ann.0, &ann.1)
        .apply(client().post(server.api("/analysis/lines")))
        .json(&json!({"position": "", "rows": 16, "columns": 16, "time_ms": 10_000}));
    let search = tokio::spawn(async move { request.send().await });
    let started = std::time::Instant::now();
    while running().await == 0 {
        assert!(started.elapsed() < Duration::from_secs(20), "never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let left = std::time::Instant::now();
    search.abort();
    while running().await > 0 {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        left.elapsed() < Duration::from_secs(5),
        "the search went on for {:?} after its visitor left",
        left.elapsed()
    );
}

/// The shipped puzzles, by id (`data/puzzles.jsonl`).
fn shipped_puzzles() -> std::collections::HashMap<String, Value> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/puzzles.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .map(|record| (record["id"].as_str().unwrap().to_owned(), record))
        .collect()
}

/// A served puzzle's board and side to move, in OBF as the puzzles file writes them.
fn served_obf(puzzle: &Value) -> String {
    let cells: String = puzzle["board"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|row| row.as_str().unwrap().chars().collect::<Vec<_>>())
        .map(|cell| match cell {
            'B' => 'X',
            'W' => 'O',
            _ => '-',
        })
        .collect();
    let side = if puzzle["to_move"] == "B" { 'X' } else { 'O' };
    format!("{cells} {side}")
}

/// Issue 47, item 14: a puzzle is served without its answer, as shipped; an answer is
/// judged with every move's exact score; an account's first answer moves its rating and
/// the puzzle's the opposite way, a second answer moves nothing, an answered puzzle is not
/// served to it again, and all of it survives a restart.
async fn puzzles_are_served_judged_and_rated_once_per_account(db: TestDb) {
    let shipped = shipped_puzzles();
    let server = Server::start(&db);
    let http = client();
    // A guest's puzzle: as shipped, without its answer.
    let (status, puzzle) = send(http.get(server.api("/puzzles/next"))).await;
    assert_eq!(status, 200, "{puzzle}");
    let id = puzzle["id"].as_str().unwrap().to_owned();
    let record = &shipped[&id];
    assert_eq!(served_obf(&puzzle), record["position"].as_str().unwrap());
    assert!(
        puzzle.get("answer").is_none() && puzzle.get("moves").is_none(),
        "{puzzle}"
    );
    assert_eq!(puzzle["you"], Value::Null);
    let mut legal: Vec<&str> = record["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|scored| scored["square"].as_str().unwrap())
        .collect();
    legal.sort_unstable();
    assert_eq!(puzzle["legal"], json!(legal));
    let answer = record["answer"].as_str().unwrap();
    let wrong = legal
        .iter()
        .find(|&&square| square != answer)
        .unwrap()
        .to_owned();
    let answer_path = |id: &str| format!("{}/puzzles/{id}/answer", server.api(""));
    let (status, judged) = send(http.post(answer_path(&id)).json(&json!({"square": wrong}))).await;
    assert_eq!(status, 200, "{judged}");
    assert_eq!(judged["correct"], false);
    assert_eq!(judged["rated"], false);
    assert_eq!(judged["answer"], answer);
    assert_eq!(judged["moves"], record["moves"]);
    // A member's first answer is rated; without the CSRF token it is refused.
    let (cookie, csrf) = member(&server, "solver").await;
    let as_member = |request: reqwest::RequestBuilder| {
        request
            .header("cookie", cookie.clone())
            .header("x-csrf-token", csrf.clone())
    };
    let (status, body) = send(
        http.post(answer_path(&id))
            .header("cookie", cookie.clone())
            .json(&json!({"square": answer})),
    )
    .await;
    assert_eq!((status, error_code(&body)), (403, "csrf"), "{body}");
    let start = 1100 + 100 * record["depth"].as_i64().unwrap_or(11);
    let (_, before) = send(as_member(http.get(server.api(&format!("/puzzles/{id}"))))).await;
    assert_eq!(before["rating"], start);
    assert_eq!(before["you"]["rating"], 1500);
    assert_eq!(before["you"]["answered"], Value::Null);
    let (status, judged) =
        send(as_member(http.post(answer_path(&id))).json(&json!({"square": wrong}))).await;
    assert_eq!(status, 200, "{judged}");
    assert_eq!(
        (&judged["correct"], &judged["rated"]),
        (&json!(false), &json!(true))
    );
    assert_eq!(judged["before"], 1500);
    let after = judged["after"].as_i64().unwrap();
    assert!(after < 1500, "{judged}");
    let puzzle_rating = judged["puzzle_rating"].as_i64().unwrap();
    assert!(puzzle_rating > start, "{judged}");
    // Answered again, right this time: judged, not rated.
    let (_, again) =
        send(as_member(http.post(answer_path(&id))).json(&json!({"square": answer}))).await;
    assert_eq!(
        (&again["correct"], &again["rated"]),
        (&json!(true), &json!(false))
    );
    assert_eq!(again["puzzle_rating"], puzzle_rating);
    // Another puzzle, solved: the rating goes up from where it was.
    let (_, next) = send(as_member(
        http.get(server.api(&format!("/puzzles/next?after={id}"))),
    ))
    .await;
    let next_id = next["id"].as_str().unwrap().to_owned();
    assert_ne!(next_id, id);
    assert_eq!(next["you"]["rating"], after);
    assert_eq!(next["you"]["attempts"], 1);
    let next_answer = shipped[&next_id]["answer"].as_str().unwrap();
    let (_, solved) =
        send(as_member(http.post(answer_path(&next_id))).json(&json!({"square": next_answer})))
            .await;
    assert_eq!(
        (&solved["correct"], &solved["rated"]),
        (&json!(true), &json!(true))
    );
    assert_eq!(solved["before"], after);
    let rating = solved["after"].as_i64().unwrap();
    assert!(rating > after, "{solved}");
    // Neither is served to the member again.
    for _ in 0..8 {
        let (_, other) = send(as_member(http.get(server.api("/puzzles/next")))).await;
        let other = other["id"].as_str().unwrap();
        assert!(other != id && other != next_id, "{other} served again");
    }
    // Bad answers.
    for (body, status, code) in [
        (json!({"square": "zz"}), 400, "bad_request"),
        (json!({"square": "a1", "extra": 1}), 400, "invalid_json"),
    ] {
        let (got, error) = send(as_member(http.post(answer_path(&next_id))).json(&body)).await;
        assert_eq!((got, error_code(&error)), (status, code), "{error}");
    }
    let occupied = ["a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "d4", "e4"]
        .into_iter()
        .find(|square| !legal.contains(square))
        .unwrap();
    // Refused as the game endpoints refuse one, the legal moves in square order (the
    // puzzle's own order, best first, would give the answer away).
    let (got, error) = send(
        http.post(answer_path(&id))
            .json(&json!({"square": occupied})),
    )
    .await;
    assert_eq!((got, error_code(&error)), (422, "illegal_move"), "{error}");
    let listed: Vec<&str> = error["error"]["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|square| square.as_str().unwrap())
        .collect();
    let mut by_row = legal.clone();
    by_row.sort_by_key(|square| (&square[1..], &square[..1]));
    assert_eq!(listed, by_row, "not in square order (row by row)");
    let (got, error) = send(http.get(server.api("/puzzles/0000000000"))).await;
    assert_eq!(
        (got, error_code(&error)),
        (404, "no_such_puzzle"),
        "{error}"
    );
    // After a restart: the same ratings, the same counts.
    server.terminate();
    let server = Server::start(&db);
    let (_, kept) = send(as_member(http.get(server.api(&format!("/puzzles/{id}"))))).await;
    assert_eq!(kept["rating"], puzzle_rating);
    assert_eq!((&kept["attempts"], &kept["solved"]), (&json!(1), &json!(0)));
    assert_eq!(kept["you"]["rating"], rating);
    assert_eq!(kept["you"]["answered"], false);
    assert_eq!(
        (&kept["you"]["attempts"], &kept["you"]["solved"]),
        (&json!(2), &json!(1))
    );
}

/// Issue 47, item 14: `othello puzzles make --from-db` looks in the server's own finished
/// games (PostgreSQL while the server runs; SQLite once it has stopped), and what it makes
/// holds when solved again and goes into the database with `othello db puzzles`.
async fn puzzles_are_made_from_the_servers_finished_games(db: TestDb) {
    let server = Server::start(&db);
    let game = create(
        &server,
        json!({"black": "engine:1", "white": "engine:1", "speed_ms": 0}),
    )
    .await;
    let id = id(&game);
    // A game between engines goes on while watched.
    let mut watcher = Live::connect(&server, &id, None).await;
    watcher.state_where(|state| state["status"] == "over").await;
    drop(watcher);
    server.terminate();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ours.jsonl");
    let program = env!("CARGO_BIN_EXE_othello");
    let made = std::process::Command::new(program)
        .args(["puzzles", "make", "--threads", "2", "--from-db"])
        .arg(&db)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&made.stdout);
    assert!(
        made.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&made.stderr)
    );
    assert!(
        stdout.starts_with("1 finished standard games in "),
        "{stdout}"
    );
    let lines = std::fs::read_to_string(&out).unwrap_or_default();
    for line in lines.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        assert_eq!(record["source"], format!("game {id}"));
    }
    if !lines.is_empty() {
        let checked = std::process::Command::new(program)
            .args(["puzzles", "check", "--sample", "10"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            checked.status.success(),
            "{}",
            String::from_utf8_lossy(&checked.stdout)
        );
        let added = std::process::Command::new(program)
            .args(["db", "puzzles"])
            .arg(&out)
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&added.stdout);
        assert!(
            added.status.success() && said.contains("has 1055"),
            "{said}"
        );
    }
}

/// Found by the red team of item 14: a dozen accounts answering one puzzle at the same
/// moment were refused `stale`; each is rated, one after another, over the ratings the
/// others left.
async fn a_crowd_answering_one_puzzle_at_once_is_rated_one_by_one(db: TestDb) {
    let shipped = shipped_puzzles();
    let server = Server::start(&db);
    let (_, puzzle) = send(client().get(server.api("/puzzles/next"))).await;
    let id = puzzle["id"].as_str().unwrap().to_owned();
    let record = &shipped[&id];
    let answer = record["answer"].as_str().unwrap().to_owned();
    let wrong = record["moves"][1]["square"].as_str().unwrap().to_owned();
    let http = server::client_from("127.0.0.2");
    let mut members = Vec::new();
    for n in 0..8 {
        members.push(server::member_with(&http, &server, &format!("crowd{n}")).await);
    }
    let answers: Vec<_> = members
        .into_iter()
        .enumerate()
        .map(|(n, (cookie, csrf))| {
            let url = server.api(&format!("/puzzles/{id}/answer"));
            let square = if n % 2 == 0 {
                answer.clone()
            } else {
                wrong.clone()
            };
            tokio::spawn(async move {
                send(
                    client()
                        .post(url)
                        .header("cookie", cookie)
                        .header("x-csrf-token", csrf)
                        .json(&json!({"square": square})),
                )
                .await
            })
        })
        .collect();
    for answer in answers {
        let (status, body) = answer.await.unwrap();
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["rated"], true, "{body}");
    }
    let (_, after) = send(client().get(server.api(&format!("/puzzles/{id}")))).await;
    assert_eq!(
        (&after["attempts"], &after["solved"]),
        (&json!(8), &json!(4)),
        "{after}"
    );
}
