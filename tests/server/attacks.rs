//! Issue 44: a public server attacked from loopback, each test a client against another
//! (other addresses in 127.0.0.0/8), checking what the other visitor gets: the engine's
//! reply within its own time, their game made, their login taken.

use std::time::{Duration, Instant};

use futures_util::future::join_all;
use serde_json::{Value, json};

use super::{database, first_legal, serve_once};
use crate::server::{Live, Server, client, client_from, error_code, id, secret, send};

/// A game made by `http` from `request`: its answer (asserting 201).
async fn create_from(server: &Server, http: &reqwest::Client, request: Value) -> Value {
    let (status, body) = send(http.post(server.api("/games")).json(&request)).await;
    assert_eq!(status, 201, "{body}");
    body
}

/// Plays the first legal move of `game` (its creation's answer) for Black.
async fn first_move(server: &Server, game: &Value) -> (u16, Value) {
    send(
        client()
            .post(server.api(&format!("/games/{}/moves", id(game))))
            .bearer_auth(secret(game, "black"))
            .json(&json!({ "square": first_legal(&game["state"]) })),
    )
    .await
}

/// Issue 44.1: one guest keeps 20 games on the biggest board waiting for the engine at the
/// most a guest may ask (5 s a move; 30 s is refused): another visitor's engine still
/// replies within its own second plus a small bound, their hint and graph are answered, and
/// `/healthz` shows the queue without calling the server saturated (nobody else waits).
#[tokio::test]
async fn one_client_flooding_the_engines_holds_another_up_by_a_small_bound_at_most() {
    let (_dir, db) = database();
    let server = Server::start_with(&db, &["--engines", "2"]);
    let flooder = client_from("127.0.0.10");
    let greedy = json!({"white": "engine:10", "time_ms": 30000, "rows": 16, "columns": 16});
    let (status, body) = send(flooder.post(server.api("/games")).json(&greedy)).await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("for a guest (log in for more)"),
        "{body}"
    );
    let flood = json!({"white": "engine:10", "time_ms": 5000, "rows": 16, "columns": 16});
    let mut games = Vec::new();
    for _ in 0..20 {
        games.push(create_from(&server, &flooder, flood.clone()).await);
    }
    for (status, body) in join_all(games.iter().map(|game| first_move(&server, game))).await {
        assert_eq!(status, 200, "{body}");
    }
    let health = server.url.clone() + "/healthz";
    let (status, before) = send(client().get(&health)).await;
    assert_eq!(status, 200, "{before}");
    assert_eq!(before["status"], "ok");
    assert_eq!(before["engines"]["threads"], 2);
    assert!(
        before["engines"]["waiting"].as_u64() >= Some(15),
        "the flood waits in its own lane: {before}"
    );

    let victim = client_from("127.0.0.11");
    let game = create_from(
        &server,
        &victim,
        json!({"white": "engine:5", "time_ms": 1000, "help": true}),
    )
    .await;
    let mut live = Live::connect(&server, &id(&game), Some(&secret(&game, "black"))).await;
    let asked = Instant::now();
    let (status, body) = first_move(&server, &game).await;
    assert_eq!(status, 200, "{body}");
    live.state_where(|state| state["moves"].as_array().is_some_and(|m| m.len() == 2))
        .await;
    let waited = asked.elapsed();
    assert!(
        waited < Duration::from_secs(1 + 4),
        "the engine's reply took {waited:?} behind another client's 20 searches of 5 s"
    );
    // Their hint and their graph are answered too (behind one search of the flood at most).
    let (status, hint) = send(
        victim
            .get(server.api(&format!("/games/{}/hint?time_ms=200", id(&game))))
            .bearer_auth(secret(&game, "black")),
    )
    .await;
    assert_eq!(status, 200, "{hint}");
    let (status, graph) = send(
        victim
            .get(server.api(&format!("/games/{}/evaluations", id(&game))))
            .bearer_auth(secret(&game, "black")),
    )
    .await;
    assert_eq!(status, 200, "{graph}");
    assert!(!graph["scores"].as_array().unwrap().is_empty(), "{graph}");
    let (status, after) = send(client().get(&health)).await;
    assert_eq!((status, &after["status"]), (200, &json!("ok")), "{after}");
}

/// Issue 44.2: one address makes games and challenges only so fast (429 with
/// `Retry-After`), and guests from one address keep only a few challenges open, however
/// many secrets they make up; another address is not held up by it.
#[tokio::test]
async fn one_address_cannot_flood_games_or_challenges() {
    let (_dir, db) = database();
    let server = Server::start(&db);
    let flooder = client_from("127.0.0.20");
    for _ in 0..30 {
        create_from(&server, &flooder, json!({})).await;
    }
    let response = flooder
        .post(server.api("/games"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    let wait: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    let body: Value = response.json().await.unwrap();
    assert_eq!(error_code(&body), "too_fast", "{body}");
    create_from(&server, &client_from("127.0.0.21"), json!({})).await;

    let guest = client_from("127.0.0.22");
    for n in 0..3 {
        // No secret sent: each is a new guest, as a flooder would be.
        let (status, body) = send(
            guest
                .post(server.api("/seeks"))
                .json(&json!({"name": format!("g{n}")})),
        )
        .await;
        assert_eq!(status, 201, "{body}");
    }
    let (status, body) = send(guest.post(server.api("/seeks")).json(&json!({}))).await;
    assert_eq!(
        (status, error_code(&body)),
        (409, "too_many_seeks"),
        "{body}"
    );
    let (status, lobby) = send(client().get(server.api("/lobby"))).await;
    assert_eq!(status, 200);
    assert_eq!(lobby["seeks"].as_array().unwrap().len(), 3, "{lobby}");
    let (status, body) = send(
        client_from("127.0.0.23")
            .post(server.api("/seeks"))
            .json(&json!({})),
    )
    .await;
    assert_eq!(status, 201, "another address posts: {body}");
}

/// Logs in as `name` from `http`: the status and the `Retry-After`, if any.
async fn log_in(
    server: &Server,
    http: &reqwest::Client,
    name: &str,
    password: &str,
) -> (u16, Option<u64>) {
    let response = http
        .post(server.api("/session"))
        .json(&json!({"name": name, "password": password}))
        .send()
        .await
        .unwrap();
    let wait = response
        .headers()
        .get("retry-after")
        .map(|value| value.to_str().unwrap().parse().unwrap());
    (response.status().as_u16(), wait)
}

/// Issue 44.3: someone guessing a member's password from one address is slowed more and
/// more, and the member logs in from another address all the while.
#[tokio::test]
async fn a_password_guesser_is_slowed_and_the_owner_still_logs_in() {
    let (_dir, db) = database();
    let server = Server::start(&db);
    let owner = client_from("127.0.0.30");
    let (status, body) = send(
        owner
            .post(server.api("/accounts"))
            .json(&json!({"name": "alice", "password": "correct horse"})),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let guesser = client_from("127.0.0.31");
    for _ in 0..3 {
        assert_eq!(
            log_in(&server, &guesser, "alice", "wrong guess").await,
            (401, None)
        );
    }
    // The fourth comes too soon: the guesser waits, whatever the password.
    let (status, wait) = log_in(&server, &guesser, "alice", "another guess").await;
    assert_eq!(status, 429);
    let first_wait = wait.expect("a Retry-After");
    assert_eq!(
        log_in(&server, &guesser, "alice", "correct horse").await.0,
        429
    );
    // The owner, elsewhere, is not locked out.
    assert_eq!(
        log_in(&server, &owner, "alice", "correct horse").await,
        (200, None)
    );
    // Once the wait is over the guesser gets one more try, then waits longer.
    tokio::time::sleep(Duration::from_millis(first_wait * 1000 + 300)).await;
    assert_eq!(
        log_in(&server, &guesser, "alice", "wrong again").await,
        (401, None)
    );
    let (status, wait) = log_in(&server, &guesser, "alice", "and again").await;
    assert_eq!(status, 429);
    assert!(wait.expect("a Retry-After") > first_wait, "{wait:?}");
    assert_eq!(
        log_in(&server, &owner, "alice", "correct horse").await,
        (200, None)
    );
}

/// Issue 44.5: no login, registration or change from another site's page (its `Origin`),
/// no body that is not JSON (a form or plain text needs no permission to send), no live
/// channel for another site; the page forbids framing, inline script and sniffing.
#[tokio::test]
async fn another_sites_page_can_neither_log_in_nor_change_anything() {
    let (_dir, db) = database();
    let server = Server::start(&db);
    let http = client();
    let credentials = json!({"name": "bob", "password": "correct horse"}).to_string();
    // Cross-site registration as a form, and as text/plain: refused, no account made.
    let (status, body) = send(
        http.post(server.api("/accounts"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body("name=bob&password=correct+horse"),
    )
    .await;
    assert_eq!((status, error_code(&body)), (415, "unsupported_media_type"));
    let (status, body) = send(
        http.post(server.api("/accounts"))
            .header("content-type", "text/plain")
            .body(credentials.clone()),
    )
    .await;
    assert_eq!((status, error_code(&body)), (415, "unsupported_media_type"));
    let (status, _) = send(http.get(server.api("/users/bob"))).await;
    assert_eq!(status, 404, "no account was made");
    // JSON from another site's page: refused, and no cookie set.
    for path in ["/accounts", "/session"] {
        let response = http
            .post(server.api(path))
            .header("origin", "http://evil.example")
            .header("content-type", "application/json")
            .body(credentials.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "{path}");
        assert!(response.headers().get("set-cookie").is_none(), "{path}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(error_code(&body), "cross_origin");
    }
    // The same from this site's own page works.
    let response = http
        .post(server.api("/accounts"))
        .header("origin", &server.url)
        .json(&json!({"name": "bob", "password": "correct horse"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
    assert!(response.headers().get("set-cookie").is_some());
    // A move from another site's page, even with the seat's secret.
    let game = create_from(&server, &http, json!({})).await;
    let (status, body) = send(
        http.post(server.api(&format!("/games/{}/moves", id(&game))))
            .header("origin", "https://evil.example")
            .bearer_auth(secret(&game, "black"))
            .json(&json!({"square": first_legal(&game["state"])})),
    )
    .await;
    assert_eq!((status, error_code(&body)), (403, "cross_origin"));
    // A live channel opened by another site's page is refused at the handshake.
    let mut request =
        tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(
            server.events(&id(&game)),
        )
        .unwrap();
    request
        .headers_mut()
        .insert("origin", "http://evil.example".parse().unwrap());
    let refused = tokio_tungstenite::connect_async(request).await;
    match refused {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 403);
        }
        other => panic!(
            "a foreign page's live channel opened: {:?}",
            other.map(|_| ())
        ),
    }
    // The page's own headers.
    let page = http.get(&server.url).send().await.unwrap();
    let headers = page.headers();
    let policy = headers["content-security-policy"].to_str().unwrap();
    for part in [
        "default-src 'self'",
        "frame-ancestors 'none'",
        "script-src 'self'",
    ] {
        assert!(policy.contains(part), "{policy}");
    }
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(headers["referrer-policy"], "same-origin");
}

/// Issue 44.6: names with control or formatting characters (a right-to-left override
/// showed "(tseug) live") are refused wherever a guest names themselves.
#[tokio::test]
async fn names_that_hide_or_turn_text_are_refused() {
    let (_dir, db) = database();
    let server = Server::start(&db);
    let http = client();
    for name in [
        "evil\u{202E}",
        "a\u{200B}b",
        "x\u{2066}y",
        "tag\u{E0041}",
        "li\u{2028}ne",
        // Found by the red team: blanks that are letters, private use, accents piled up.
        "\u{3164}\u{3164}",
        "\u{2800}",
        "pua\u{E000}",
        "non\u{FFFF}",
        "a\u{0301}\u{0302}\u{0303}\u{0304}",
    ] {
        let (status, body) = send(
            http.post(server.api("/games"))
                .json(&json!({"black_name": name})),
        )
        .await;
        assert_eq!(status, 400, "{name:?}: {body}");
        let (status, body) =
            send(http.post(server.api("/seeks")).json(&json!({"name": name}))).await;
        assert_eq!(status, 400, "{name:?}: {body}");
    }
    // Letters of any script are names.
    let game = create_from(
        &server,
        &http,
        json!({"black_name": "שלום", "white_name": "Zoe\u{0308} Ng"}),
    )
    .await;
    assert_eq!(game["state"]["seats"]["black"]["name"], "שלום", "{game}");
}

/// Issue 44.8: an unknown file is no route (not "no such game"); every computer player
/// has a page before its first rated game, and no member may take a computer player's
/// name.
#[tokio::test]
async fn unknown_files_and_computer_players_pages() {
    let (_dir, db) = database();
    let server = Server::start(&db);
    let http = client();
    let (status, body) = send(http.get(format!("{}/assets/index.html", server.url))).await;
    assert_eq!((status, error_code(&body)), (404, "no_route"), "{body}");
    let (status, page) = send(http.get(server.api("/users/engine:7"))).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["name"], "engine:7");
    assert_eq!(page["computer"], true);
    assert_eq!(page["games"], json!([]));
    let (status, body) = send(http.get(server.api("/users/nobody-here"))).await;
    assert_eq!(
        (status, error_code(&body)),
        (404, "no_such_player"),
        "{body}"
    );
    // A computer player's name, in any case (the red team registered `Engine` and took
    // the bare engine's rating), is no member's.
    for name in ["greedy", "Greedy", "ENGINE", "rAndom", "Human"] {
        let (status, body) = send(
            http.post(server.api("/accounts"))
                .json(&json!({"name": name, "password": "correct horse"})),
        )
        .await;
        assert_eq!(
            (status, error_code(&body)),
            (409, "name_taken"),
            "{name}: {body}"
        );
    }
    let (status, page) = send(http.get(server.api("/users/Engine"))).await;
    assert_eq!((status, &page["computer"]), (200, &json!(true)), "{page}");
}

/// Issue 44.4 and 44.13: a path that is not a regular file, a file that is not a
/// database, or a database gone from beside its live server's log is refused before
/// anything is made beside it (the links to a live database: `regression_21_5`).
#[tokio::test]
async fn a_database_path_that_is_not_one_is_refused_first() {
    let (dir, db) = database();
    let first = Server::start(&db);
    // The database moved away while its server runs: a server started on the old name
    // must not take the log left there (SQLite would delete it, and the games in it).
    create_from(&first, &client(), json!({})).await;
    let wal = dir.path().join("games.db-wal");
    assert!(wal.metadata().unwrap().len() > 0);
    let moved = dir.path().join("moved.db");
    std::fs::rename(&db, &moved).unwrap();
    let output = serve_once(&db, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("games.db-wal is there without its database"),
        "{stderr}"
    );
    assert!(!db.exists(), "nothing made in its place");
    assert!(
        wal.metadata().unwrap().len() > 0,
        "the live server's log is whole"
    );
    let (status, _) = send(client().get(format!("{}/healthz", first.url))).await;
    assert_eq!(status, 200);
    drop(first);
    let text = dir.path().join("notes.md");
    std::fs::write(&text, "# my notes\n").unwrap();
    let fifo = dir.path().join("fifo");
    let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a plain system call with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    for (path, says) in [
        (text.as_path(), "not a SQLite database"),
        (fifo.as_path(), "not a regular file (a FIFO)"),
        (
            std::path::Path::new("/dev/zero"),
            "not a regular file (a device)",
        ),
        (dir.path(), "not a regular file (a directory)"),
    ] {
        for command in [&[][..], &["db", "migrate", "--db"]] {
            let output = serve_once(path, command);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(1), "{path:?}: {stderr}");
            assert!(stderr.contains(says), "{path:?}: {stderr}");
        }
    }
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "# my notes\n");
    let made: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("notes") || name.starts_with("fifo"))
        .collect();
    assert_eq!(made.len(), 2, "nothing made beside them: {made:?}");
}

/// A TCP connection to `server` from `ip`.
async fn connect_from(server: &Server, ip: &str) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{ip}:0").parse().unwrap()).unwrap();
    let address = server.url.trim_start_matches("http://").parse().unwrap();
    socket.connect(address).await.unwrap()
}

/// Red team of issue 44: one address opening connections and sending nothing held every
/// one the server takes. It now holds a quarter of them at most (16 of 64 here), and
/// another visitor is still answered.
#[tokio::test]
async fn one_address_holds_a_quarter_of_the_connections_at_most() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (_dir, db) = database();
    let server = Server::start_with(&db, &["--max-connections", "64"]);
    let mut held = Vec::new();
    for _ in 0..16 {
        held.push(connect_from(&server, "127.0.0.40").await);
    }
    // The server counts a connection once it has accepted it: let it catch up.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut refused = connect_from(&server, "127.0.0.40").await;
    refused
        .write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    let _ =
        tokio::time::timeout(Duration::from_secs(10), refused.read_to_string(&mut answer)).await;
    assert!(
        answer.starts_with("HTTP/1.1 503") && answer.contains("too_many_connections"),
        "{answer}"
    );
    let (status, health) =
        send(client_from("127.0.0.41").get(server.url.clone() + "/healthz")).await;
    assert_eq!(status, 200, "another visitor is answered: {health}");
    drop(held);
}
