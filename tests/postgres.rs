//! The throwaway PostgreSQL the server's PostgreSQL tests run on (tests/common/postgres.rs):
//! made, started, queried, stopped and started again with its data kept, removed at the end.

#[path = "common/postgres.rs"]
mod postgres;
#[path = "common/server.rs"]
mod server;

use postgres::Postgres;

#[test]
fn a_throwaway_cluster_keeps_its_data_across_a_restart() {
    let Some(database) = Postgres::start() else {
        return;
    };
    assert_eq!(
        database
            .query("SELECT current_user, current_database()")
            .trim(),
        "othello|othello"
    );
    database.query("CREATE TABLE moves (id BIGINT PRIMARY KEY, square TEXT NOT NULL)");
    database.query("INSERT INTO moves VALUES (1, 'd3'), (2, 'c5')");
    database.stop();
    let refused = std::net::TcpStream::connect(("127.0.0.1", database.port()));
    assert!(refused.is_err(), "stopped: nothing listens");
    database.start_server();
    assert_eq!(
        database
            .query("SELECT string_agg(square, ' ' ORDER BY id) FROM moves")
            .trim(),
        "d3 c5"
    );
    assert!(database.url().starts_with("postgres://othello@127.0.0.1:"));
}

/// `--db` takes a PostgreSQL URL, `DATABASE_URL` stands in for it, `--db` wins over it, and
/// a database out of reach is a clear error, not a hang.
#[test]
fn serve_takes_its_database_from_the_url_or_database_url() {
    use std::{process::Command, time::Instant};
    let Some(cluster) = postgres::shared() else {
        return;
    };
    let othello = || {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin!("othello"));
        command.env_remove("DATABASE_URL");
        command
    };
    let url = cluster.create_database();
    let from_env = server::Server::start_command({
        let mut command = othello();
        command
            .args(["serve", "--addr", "127.0.0.1:0"])
            .env("DATABASE_URL", &url)
            .stdout(std::process::Stdio::piped());
        command
    });
    drop(from_env);
    assert_eq!(
        cluster
            .query_in(&url, "SELECT to_regclass('games') IS NOT NULL")
            .trim(),
        "t",
        "DATABASE_URL's database got the schema"
    );
    // Nothing listens on the port of a stopped cluster's neighbour: refused at once.
    let nowhere = format!("postgres://othello:hunter2@127.0.0.1:{}/x", free_port());
    let started = Instant::now();
    let output = othello()
        .args(["serve", "--addr", "127.0.0.1:0", "--db", &nowhere])
        .env("DATABASE_URL", &url)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot open the database postgres://othello:***@127.0.0.1:")
            && stderr.contains("cannot be reached"),
        "{stderr}"
    );
    assert!(!stderr.contains("hunter2"), "the password stays secret");
    assert!(started.elapsed().as_secs() < 20);
    let output = othello()
        .args(["serve", "--db", "postgres://othello@127.0.0.1:notaport/x"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("for '--db <PATH|URL>': not a PostgreSQL URL"),
        "{stderr}"
    );
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// PostgreSQL restarted mid-game under two instances: meanwhile every request that needs
/// it gets 503 `unavailable` (never another 5xx) and `/healthz` says so; then both recover
/// by themselves, live channels get what comes next, and no acknowledged move is lost.
#[tokio::test]
async fn a_database_restart_gets_503_meanwhile_and_loses_no_acknowledged_move() {
    use serde_json::json;
    use server::{Live, Server, client, create, send};
    use std::time::{Duration, Instant};
    // A cluster of its own: the other tests' shared one keeps running.
    let Some(cluster) = Postgres::start() else {
        return;
    };
    let servers = [Server::start(cluster.url()), Server::start(cluster.url())];
    let game = create(&servers[0], json!({})).await;
    let id = game["id"].as_str().unwrap().to_owned();
    let black = game["seats"]["black"]["secret"]
        .as_str()
        .unwrap()
        .to_owned();
    let white = game["seats"]["white"]["secret"]
        .as_str()
        .unwrap()
        .to_owned();
    let play = |server: &Server, secret: &str, square: &str| {
        let request = client()
            .post(server.api(&format!("/games/{id}/moves")))
            .bearer_auth(secret)
            .json(&json!({ "square": square }));
        async move { send(request).await }
    };
    let health = |server: &Server| {
        let request = client().get(format!("{}/healthz", server.url));
        async move { send(request).await }
    };
    let mut white_live = Live::connect(&servers[1], &id, Some(&white)).await;
    white_live.state_where(|_| true).await;
    assert_eq!(play(&servers[0], &black, "d3").await.0, 200);
    assert_eq!(play(&servers[1], &white, "c5").await.0, 200);

    cluster.stop();
    for server in &servers {
        let (status, body) = play(server, &black, "e6").await;
        assert_eq!(status, 503, "{body}");
        assert_eq!(body["error"]["code"], "unavailable", "{body}");
        let (status, body) = health(server).await;
        assert_eq!(
            (status, &body["status"]),
            (503, &json!("failing")),
            "{body}"
        );
        let (status, body) = send(client().get(server.api(&format!("/games/{id}")))).await;
        assert_eq!(status, 503, "{body}");
    }

    cluster.start_server();
    let deadline = Instant::now() + Duration::from_secs(15);
    for server in &servers {
        while health(server).await.0 != 200 {
            assert!(Instant::now() < deadline, "recovers by itself");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let (status, after) = play(&servers[0], &black, "e6").await;
    assert_eq!(status, 200, "{after}");
    // The move made on the first reaches White's channel on the second, reconnected to
    // the database meanwhile.
    let seen = white_live
        .state_where(|s| s["version"] == after["version"])
        .await;
    assert_eq!(seen["moves"], json!(["d3", "c5", "e6"]));
    let (_, stored) = send(client().get(servers[1].api(&format!("/games/{id}")))).await;
    assert_eq!(stored["moves"], json!(["d3", "c5", "e6"]));
}

/// A server's SQLite file moves into PostgreSQL with `othello db copy`: the same games
/// (at the same versions), accounts that log in with their passwords, open challenges,
/// and an engine that was to reply replies from the server on PostgreSQL. A database
/// that holds games already is refused.
#[tokio::test]
async fn db_copy_moves_a_sqlite_server_into_postgresql() {
    use serde_json::json;
    use server::{Server, client, create, send};
    use std::time::{Duration, Instant};
    let Some(cluster) = postgres::shared() else {
        return;
    };
    let sqlite = postgres::TestDb::sqlite();
    let before = Server::start(&sqlite);
    let (status, _) = send(
        client()
            .post(before.api("/accounts"))
            .json(&json!({"name": "Ann", "password": "correct horse"})),
    )
    .await;
    assert_eq!(status, 201);
    let people = create(&before, json!({"black_name": "Bo"})).await;
    let people_id = people["id"].as_str().unwrap().to_owned();
    let black = people["seats"]["black"]["secret"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, played) = send(
        client()
            .post(before.api(&format!("/games/{people_id}/moves")))
            .bearer_auth(&black)
            .json(&json!({"square": "d3"})),
    )
    .await;
    assert_eq!(status, 200, "{played}");
    let (status, _) = send(
        client()
            .post(before.api("/seeks"))
            .json(&json!({"name": "Cy", "color": "W"})),
    )
    .await;
    assert_eq!(status, 201);
    // An engine thinking for seconds when the server stops: its reply is due.
    let engine = create(&before, json!({"white": "mcts:1000000", "time_ms": 5_000})).await;
    let engine_id = engine["id"].as_str().unwrap().to_owned();
    let engine_black = engine["seats"]["black"]["secret"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, _) = send(
        client()
            .post(before.api(&format!("/games/{engine_id}/moves")))
            .bearer_auth(&engine_black)
            .json(&json!({"square": "d3"})),
    )
    .await;
    assert_eq!(status, 200);
    assert!(before.terminate().success());

    let url = cluster.create_database();
    let othello = || {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin!("othello"));
        command.env_remove("DATABASE_URL");
        command
    };
    let output = othello()
        .args(["db", "copy", "--from"])
        .arg(sqlite.path())
        .args(["--to", &url])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("users 1, sessions 1, games 2, moves 2, seeks 1"),
        "{stdout}"
    );

    let after = Server::start(&url);
    let (status, seen) = send(client().get(after.api(&format!("/games/{people_id}")))).await;
    assert_eq!(status, 200);
    assert_eq!(
        (
            &seen["moves"],
            &seen["version"],
            &seen["seats"]["black"]["name"]
        ),
        (&played["moves"], &played["version"], &json!("Bo"))
    );
    let (status, body) = send(
        client()
            .post(after.api("/session"))
            .json(&json!({"name": "ann", "password": "correct horse"})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (_, lobby) = send(client().get(after.api("/lobby"))).await;
    assert_eq!(lobby["seeks"][0]["poster"], "Cy", "{lobby}");
    // A new account is numbered after the copied one.
    let (status, body) = send(
        client()
            .post(after.api("/accounts"))
            .json(&json!({"name": "Dee", "password": "correct horse"})),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, state) = send(client().get(after.api(&format!("/games/{engine_id}")))).await;
        if state["moves"]
            .as_array()
            .is_some_and(|moves| moves.len() == 2)
        {
            break;
        }
        assert!(Instant::now() < deadline, "the engine replies: {state}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    let again = othello()
        .args(["db", "copy", "--from"])
        .arg(sqlite.path())
        .args(["--to", &url])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("holds games or accounts already"),
        "{stderr}"
    );
    let migrated = othello()
        .args(["db", "migrate", "--db", &url])
        .output()
        .unwrap();
    assert!(migrated.status.success());
    assert!(String::from_utf8_lossy(&migrated.stdout).ends_with("up to date\n"));
}

/// Red team (issue 47): a flag that falls while the database is down ended the game in
/// memory but could not store it, and was never tried again: the game stayed "playing"
/// and listed. Now it is tried again until the database is back, with nobody asking.
#[tokio::test]
async fn a_flag_that_falls_during_an_outage_ends_the_game_once_the_database_is_back() {
    use serde_json::json;
    use server::{Server, client, create, send};
    use std::time::{Duration, Instant};
    let Some(cluster) = Postgres::start() else {
        return;
    };
    let server = Server::start(cluster.url());
    let game = create(&server, json!({"clock": {"base_ms": 1_500}})).await;
    let id = game["id"].as_str().unwrap().to_owned();
    for (seat, square) in [("black", "d3"), ("white", "c5")] {
        let secret = game["seats"][seat]["secret"].as_str().unwrap();
        let (status, body) = send(
            client()
                .post(server.api(&format!("/games/{id}/moves")))
                .bearer_auth(secret)
                .json(&json!({ "square": square })),
        )
        .await;
        assert_eq!(status, 200, "{body}");
    }
    // Black's 1.5 s run out while the database is down.
    cluster.stop();
    tokio::time::sleep(Duration::from_secs(3)).await;
    cluster.start_server();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (status, state) = send(client().get(server.api(&format!("/games/{id}")))).await;
        if status == 200 && state["status"] == "over" {
            assert_eq!(
                (&state["ending"], &state["winner"]),
                (&json!("time"), &json!("W")),
                "{state}"
            );
            break;
        }
        assert!(Instant::now() < deadline, "still {status}: {state}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Stored: a fresh server on the same database reads it over.
    drop(server);
    let again = Server::start(cluster.url());
    let (_, state) = send(client().get(again.api(&format!("/games/{id}")))).await;
    assert_eq!(state["status"], "over", "{state}");
}
