//! Online play (issue 25) through the API on a real server: clocks kept by the server (a
//! move after the flag, increments, reconnection, a restart, an engine on the clock),
//! aborts.

#[path = "common/server.rs"]
mod server;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use server::{Live, Server, client, create, send};

fn database() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.db");
    (dir, path)
}

fn secret(game: &Value, seat: &str) -> String {
    game["seats"][seat]["secret"].as_str().unwrap().to_owned()
}

fn id(game: &Value) -> String {
    game["id"].as_str().unwrap().to_owned()
}

fn error_code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("(no error code)")
}

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

async fn play(server: &Server, game: &str, secret: &str, square: &str) -> (u16, Value) {
    post(
        server,
        &format!("/games/{game}/moves"),
        secret,
        json!({ "square": square }),
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

#[tokio::test]
async fn the_server_keeps_the_clock_and_adds_the_increment() {
    let (_dir, db) = database();
    let server = Server::start(&db);
    // Black's clock starts with the game.
    let start = Instant::now();
    let game = create(
        &server,
        json!({"clock": {"base_ms": 60_000, "increment_ms": 5_000}, "black_name": "Ann"}),
    )
    .await;
    let (game_id, black) = (id(&game), secret(&game, "black"));
    let created = &game["state"];
    assert_eq!(
        (
            &created["clock"]["base_ms"],
            &created["clock"]["increment_ms"]
        ),
        (&json!(60_000), &json!(5_000))
    );
    assert_eq!(created["clock"]["running"], "B");
    assert!(clock(created, "B") <= 60_000 && clock(created, "W") == 60_000);
    assert_eq!(created["seats"]["black"]["name"], "Ann");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, after) = play(&server, &game_id, &black, "d3").await;
    let spent = start.elapsed().as_millis() as u64;
    assert_eq!(status, 200, "{after}");
    // Black's turn took at least the 300 ms waited and at most what the test measured;
    // the increment came on top.
    let black_left = clock(&after, "B");
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
    ] {
        let (status, body) = send(client().post(server.api("/games")).json(&bad)).await;
        assert_eq!(status, 400, "{bad}: {body}");
    }
}

#[tokio::test]
async fn a_flag_falls_by_itself_and_a_move_after_it_is_refused() {
    let (_dir, db) = database();
    let server = Server::start(&db);
    let game = create(&server, json!({"clock": {"base_ms": 1_000}})).await;
    let (game_id, black) = (id(&game), secret(&game, "black"));
    let mut live = Live::connect(&server, &game_id, Some(&black)).await;
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
    let (status, body) = play(&server, &game_id, &black, "d3").await;
    assert_eq!((status, error_code(&body)), (409, "out_of_time"), "{body}");
    // GGF says Black lost on time.
    let (status, ggf) = text(&server, &format!("/games/{game_id}/export?format=ggf")).await;
    assert_eq!(status, 200);
    assert!(ggf.contains("RE[-64:t]"), "{ggf}");
    let again = state(&server, &game_id).await;
    assert_eq!(again["moves"], json!([]), "nothing played after the flag");
}

#[tokio::test]
async fn reconnecting_and_restarting_show_the_clock_as_it_ran() {
    let (_dir, db) = database();
    let server = Server::start(&db);
    let game = create(&server, json!({"clock": {"base_ms": 120_000}})).await;
    let (game_id, black) = (id(&game), secret(&game, "black"));
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
    let (status, _) = play(&server, &game_id, &black, "d3").await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn an_engine_plays_on_its_clock() {
    let (_dir, db) = database();
    let server = Server::start(&db);
    let game = create(
        &server,
        json!({"white": "engine:3", "time_ms": 30_000, "clock": {"base_ms": 4_000, "increment_ms": 100}}),
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
    // Its share of four seconds over some 30 moves, far below its 30 s per move.
    let white = clock(&replied, "W");
    assert!((3_000..=4_100).contains(&white), "{white}");
}

#[tokio::test]
async fn a_game_aborts_only_before_its_second_move() {
    let (_dir, db) = database();
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
}

/// The session cookie a response sets, as a `Cookie` header value, and the whole header.
fn session_cookie(response: &reqwest::Response) -> (String, String) {
    let header = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|value| value.to_str().unwrap().to_owned())
        .find(|value| value.starts_with("othello_session="))
        .expect("a session cookie");
    let pair = header.split(';').next().unwrap().to_owned();
    (pair, header)
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

#[tokio::test]
async fn accounts_register_log_in_and_out_with_an_http_only_cookie() {
    let (_dir, db) = database();
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

#[tokio::test]
async fn a_failed_login_tells_nothing_and_repeated_ones_are_limited() {
    let (_dir, db) = database();
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
    // Five failures for a name within the window: the sixth try is refused, even with the
    // right password, and says when to come back.
    for _ in 0..4 {
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

#[tokio::test]
async fn sessions_expire() {
    let (_dir, db) = database();
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
