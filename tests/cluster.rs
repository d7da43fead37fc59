//! Several `othello serve` instances on one PostgreSQL (a throwaway cluster the test
//! starts): any instance serves any request, moves made on one reach the live channels of
//! the others, and two instances never apply two moves to the same position.

#[path = "common/postgres.rs"]
mod postgres;
#[path = "common/server.rs"]
mod server;

use std::time::{Duration, Instant};

use postgres::TestDb;
use serde_json::{Value, json};
use server::{Live, Server, client, create, error_code, id, play, secret, send};

/// Three servers on one fresh database.
fn three(db: &TestDb) -> [Server; 3] {
    [(); 3].map(|()| Server::start(db))
}

#[tokio::test]
async fn two_people_on_different_instances_play_a_whole_game_live() {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let servers = three(&db);
    // Made on the third; Black plays on the first, White on the second.
    let game = create(&servers[2], json!({})).await;
    let (game_id, black, white) = (id(&game), secret(&game, "black"), secret(&game, "white"));
    let mut black_live = Live::connect(&servers[0], &game_id, Some(&black)).await;
    let mut white_live = Live::connect(&servers[1], &game_id, Some(&white)).await;
    let mut state = black_live.state_where(|_| true).await;
    white_live.state_where(|_| true).await;
    let mut crossings = Vec::new();
    let mut played = Vec::new();
    while state["status"] == "playing" {
        let black_moves = state["to_move"] == "B";
        let (server, mover, other) = if black_moves {
            (&servers[0], &black, &mut white_live)
        } else {
            (&servers[1], &white, &mut black_live)
        };
        let square = state["legal"][0].as_str().unwrap().to_owned();
        let sent = Instant::now();
        let (status, after) = play(server, &game_id, mover, &square).await;
        assert_eq!(status, 200, "{after}");
        played.push(square.clone());
        // The move reaches the other person's live channel, on the other instance.
        let version = after["version"].as_u64().unwrap();
        let crossed = other
            .state_where(|s| s["version"].as_u64() >= Some(version))
            .await;
        crossings.push(sent.elapsed());
        assert_eq!(crossed["last_move"], json!(square));
        assert_eq!(crossed["board"], after["board"]);
        state = crossed;
    }
    assert_eq!(state["status"], "over");
    // Every instance tells the same finished game, with every move.
    for server in &servers {
        let (status, seen) = send(client().get(server.api(&format!("/games/{game_id}")))).await;
        assert_eq!(status, 200);
        assert_eq!(seen["status"], "over");
        let moves: Vec<&str> = seen["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .filter(|m| *m != "pass")
            .collect();
        assert_eq!(moves, played);
    }
    crossings.sort();
    let slowest = crossings.last().unwrap();
    eprintln!(
        "{} moves crossed instances: median {:?}, slowest {slowest:?} (request to the other's channel)",
        crossings.len(),
        crossings[crossings.len() / 2]
    );
    // A guard against moves that only arrive by chance (a later read), not a benchmark:
    // the bench measures the latency.
    assert!(*slowest < Duration::from_secs(5), "{slowest:?}");
}

#[tokio::test]
async fn the_same_move_sent_to_two_instances_at_once_is_applied_once() {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let servers = three(&db);
    let game = create(&servers[0], json!({})).await;
    let (game_id, black, white) = (id(&game), secret(&game, "black"), secret(&game, "white"));
    // Both instances hold the game in memory before the race.
    for server in &servers[..2] {
        let (status, _) = send(client().get(server.api(&format!("/games/{game_id}")))).await;
        assert_eq!(status, 200);
    }
    for round in 0..20 {
        let (status, now) =
            send(client().get(server_for(&servers, round).api(&format!("/games/{game_id}")))).await;
        assert_eq!(status, 200);
        if now["status"] != "playing" {
            break;
        }
        let mover = if now["to_move"] == "B" {
            &black
        } else {
            &white
        };
        let square = now["legal"][0].as_str().unwrap().to_owned();
        let (first, second) = tokio::join!(
            play(&servers[0], &game_id, mover, &square),
            play(&servers[1], &game_id, mover, &square)
        );
        let mut statuses = [first.0, second.0];
        statuses.sort_unstable();
        // The loser's move came to a game that had moved: not its turn (409), or, where
        // the other side passed, a square taken (422).
        assert!(
            statuses == [200, 409] || statuses == [200, 422],
            "round {round}: {first:?} {second:?}"
        );
        let (won, lost) = if first.0 == 200 {
            (first.1, second.1)
        } else {
            (second.1, first.1)
        };
        // The loser is answered with the game as it is now: the move made once.
        let code = error_code(&lost);
        assert!(
            ["not_your_turn", "stale", "illegal_move", "game_over"].contains(&code),
            "{lost}"
        );
        assert_eq!(lost["error"]["state"]["version"], won["version"], "{lost}");
        assert_eq!(lost["error"]["state"]["moves"], won["moves"]);
        let moves: Vec<&Value> = won["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|mv| *mv != "pass")
            .collect();
        assert_eq!(
            moves.last(),
            Some(&&json!(square)),
            "round {round}: the move is there"
        );
        assert_eq!(
            moves.iter().filter(|mv| ***mv == json!(square)).count(),
            1,
            "round {round}: once"
        );
    }
    // The database holds each move once, in order, as every instance says.
    let (_, final_state) = send(client().get(servers[2].api(&format!("/games/{game_id}")))).await;
    let stored: u64 = postgres::shared()
        .unwrap()
        .query_in(
            match &db {
                TestDb::Postgres(url) => url,
                TestDb::Sqlite(..) => unreachable!(),
            },
            &format!("SELECT count(*) FROM moves WHERE game_id = '{game_id}'"),
        )
        .trim()
        .parse()
        .unwrap();
    let played = final_state["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|mv| *mv != "pass")
        .count();
    assert_eq!(
        stored, played as u64,
        "passes are not stored, moves once each"
    );
}

fn server_for(servers: &[Server; 3], round: usize) -> &Server {
    &servers[round % 3]
}

#[tokio::test]
async fn a_challenge_taken_on_two_instances_at_once_makes_one_game_and_a_logout_ends_everywhere() {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let servers = three(&db);
    // A challenge posted on the first appears in the lobby of the third.
    let guest = |server: &Server| {
        let server_api = server.api("/seeks");
        async move {
            send(
                client()
                    .post(server_api)
                    .json(&json!({ "name": "Ann", "color": "B" })),
            )
            .await
        }
    };
    let (status, posted) = guest(&servers[0]).await;
    assert_eq!(status, 201, "{posted}");
    let seek_id = posted["seek"]["id"].as_str().unwrap().to_owned();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (_, lobby) = send(client().get(servers[2].api("/lobby"))).await;
        if lobby.to_string().contains(&seek_id) {
            break;
        }
        assert!(Instant::now() < deadline, "the challenge reaches the third");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let take = |server: &Server, name: &str| {
        let url = server.api(&format!("/seeks/{seek_id}/accept"));
        let body = json!({ "name": name });
        async move { send(client().post(url).json(&body)).await }
    };
    let (first, second) = tokio::join!(take(&servers[1], "Bob"), take(&servers[2], "Cy"));
    let mut statuses = [first.0, second.0];
    statuses.sort_unstable();
    assert_eq!(statuses, [201, 409], "{first:?} {second:?}");
    let (lost, won) = if first.0 == 409 {
        (&first.1, &second.1)
    } else {
        (&second.1, &first.1)
    };
    assert_eq!(error_code(lost), "seek_gone");
    // The poster's lobby, on the first, learns the game made on another instance.
    let ann = posted["secret"].as_str().unwrap().to_owned();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (_, lobby) = send(client().get(servers[0].api("/lobby")).bearer_auth(&ann)).await;
        if let Some(matched) = lobby["matched"].as_array().and_then(|m| m.first()) {
            assert_eq!(matched["seek"], json!(seek_id));
            assert_eq!(matched["game"], won["game"]);
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the poster learns the game: {lobby}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // An account registered on the first, logged out on the second: its cookie opens
    // nothing on the third.
    let response = client()
        .post(servers[0].api("/accounts"))
        .json(&json!({ "name": "Dora", "password": "correct horse" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 201);
    let cookie = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find(|value| value.starts_with("othello_session="))
        .and_then(|value| value.split(';').next())
        .unwrap()
        .to_owned();
    let registered: Value = response.json().await.unwrap();
    let csrf = registered["csrf"].as_str().unwrap().to_owned();
    let me = |server: &Server| {
        let request = client().get(server.api("/me")).header("cookie", &cookie);
        async move {
            let (status, body) = send(request).await;
            assert_eq!(status, 200, "{body}");
            body["user"].clone()
        }
    };
    assert_eq!(me(&servers[2]).await["name"], "Dora");
    let response = client()
        .delete(servers[1].api("/session"))
        .header("cookie", &cookie)
        .header("x-csrf-token", &csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 204);
    let deadline = Instant::now() + Duration::from_secs(5);
    while me(&servers[2]).await != Value::Null {
        assert!(Instant::now() < deadline, "logged out on the third too");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The engine's reply is leased to the instance that made it due; when that instance
/// dies (SIGKILL) or stops (SIGTERM) while the engine thinks, another one replies, and
/// every move the dead one acknowledged is there.
async fn an_engine_reply_outlives_its_instance(kill: bool) {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let [first, second, third] = three(&db);
    let game = create(&first, json!({"white": "mcts:1000000", "time_ms": 2_000})).await;
    let (game_id, black) = (id(&game), secret(&game, "black"));
    let mut live = Live::connect(&second, &game_id, Some(&black)).await;
    live.state_where(|_| true).await;
    let (status, after) = play(&first, &game_id, &black, "d3").await;
    assert_eq!(status, 200, "{after}");
    assert_eq!(after["thinking"], true, "the first replies: {after}");
    // The second, where Black watches, says so too.
    live.state_where(|s| {
        s["moves"].as_array().is_some_and(|m| m.len() == 1) && s["thinking"] == true
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let stopped = Instant::now();
    if kill {
        first.kill();
    } else {
        assert!(first.terminate().success());
    }
    let replied = live
        .state_where(|s| s["moves"].as_array().is_some_and(|m| m.len() == 2))
        .await;
    eprintln!(
        "the reply came {:?} after the instance {}",
        stopped.elapsed(),
        if kill { "died" } else { "stopped" }
    );
    assert_eq!(replied["moves"][0], "d3", "the acknowledged move is kept");
    assert_eq!(replied["to_move"], "B");
    // Exactly one reply: the third sees the same two moves.
    let (_, seen) = send(client().get(third.api(&format!("/games/{game_id}")))).await;
    assert_eq!(seen["moves"], replied["moves"]);
    let (status, after) = play(
        &third,
        &game_id,
        &black,
        replied["legal"][0].as_str().unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{after}");
}

#[tokio::test]
async fn an_engine_reply_is_taken_over_when_its_instance_is_killed() {
    an_engine_reply_outlives_its_instance(true).await;
}

#[tokio::test]
async fn an_engine_reply_is_handed_over_when_its_instance_stops() {
    an_engine_reply_outlives_its_instance(false).await;
}

/// Who is connected is known across instances: a seat connected on one is "connected" on
/// the other, the win cannot be claimed against it there, and once its page closes the
/// other sees it away and may claim.
#[tokio::test]
async fn a_seat_connected_on_one_instance_is_present_on_the_others() {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let first = Server::start_with(&db, &["--abandon-after", "1s"]);
    let second = Server::start_with(&db, &["--abandon-after", "1s"]);
    let game = create(&first, json!({})).await;
    let (game_id, ann, bob) = (id(&game), secret(&game, "black"), secret(&game, "white"));
    let mut ann_live = Live::connect(&first, &game_id, Some(&ann)).await;
    let bob_live = Live::connect(&second, &game_id, Some(&bob)).await;
    // Ann's page, on the first, sees Bob connected to the second.
    ann_live
        .state_where(|s| s["seats"]["white"]["connected"] == true)
        .await;
    // Long enough to be claimable, were Bob away.
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    let claim = || {
        client()
            .post(first.api(&format!("/games/{game_id}/claim")))
            .bearer_auth(&ann)
            .json(&json!({}))
    };
    let (status, body) = send(claim()).await;
    assert_eq!(
        (status, error_code(&body)),
        (409, "not_abandoned"),
        "{body}"
    );
    drop(bob_live);
    let away = ann_live
        .state_where(|s| s["seats"]["white"]["connected"] == false)
        .await;
    assert!(
        away["seats"]["white"]["away_ms"].as_u64().unwrap() < 1_000,
        "{away}"
    );
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let (status, claimed) = send(claim()).await;
    assert_eq!(status, 200, "{claimed}");
    assert_eq!(
        (&claimed["winner"], &claimed["ending"]),
        (&json!("B"), &json!("abandon"))
    );
}

/// The login limits count across instances (five failures for a name, wherever they were
/// tried), and behind a trusted proxy by the client's address from X-Forwarded-For, which
/// a client cannot forge past the proxy's own entry.
#[tokio::test]
async fn login_limits_hold_across_instances_and_behind_a_trusted_proxy() {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let servers = [(); 3].map(|()| Server::start_with(&db, &["--trusted-proxy", "127.0.0.1"]));
    let account = |server: &Server, path: &str, name: &str, password: &str, from: &str| {
        let request = client()
            .post(server.api(path))
            .header("x-forwarded-for", from)
            .json(&json!({ "name": name, "password": password }));
        async move { send(request).await }
    };
    let (status, body) = account(
        &servers[0],
        "/accounts",
        "carol",
        "a good password",
        "192.0.2.1",
    )
    .await;
    assert_eq!(status, 201, "{body}");
    // Three failures for the name from one address, one on each instance: the next try
    // from that address is slowed on every instance, whatever the password; the owner,
    // from another address, logs in on each.
    for attempt in 0..3 {
        let (status, body) = account(
            &servers[attempt % 3],
            "/session",
            "carol",
            "not her password",
            "198.51.100.7",
        )
        .await;
        assert_eq!((status, error_code(&body)), (401, "wrong_login"));
    }
    for server in &servers {
        let (status, body) = account(
            server,
            "/session",
            "carol",
            "a good password",
            "198.51.100.7",
        )
        .await;
        assert_eq!(
            (status, error_code(&body)),
            (429, "too_many_attempts"),
            "{body}"
        );
        let (status, body) = account(
            server,
            "/session",
            "carol",
            "a good password",
            "203.0.113.9",
        )
        .await;
        assert_eq!(status, 200, "the owner elsewhere: {body}");
    }
    // Ten registrations from one address, spread over the instances: the eleventh is
    // refused, also when the client writes another address before the proxy's entry;
    // another address may still register.
    for n in 1..10 {
        let (status, body) = account(
            &servers[n % 3],
            "/accounts",
            &format!("user{n}"),
            "long enough",
            "192.0.2.1",
        )
        .await;
        assert_eq!(status, 201, "{n}: {body}");
    }
    for (server, from) in [
        (&servers[1], "192.0.2.1"),
        (&servers[2], "192.0.2.77, 192.0.2.1"),
    ] {
        let (status, body) = account(server, "/accounts", "user10", "long enough", from).await;
        assert_eq!(
            (status, error_code(&body)),
            (429, "too_many_attempts"),
            "{from}: {body}"
        );
    }
    let (status, body) = account(
        &servers[2],
        "/accounts",
        "user10",
        "long enough",
        "192.0.2.2",
    )
    .await;
    assert_eq!(status, 201, "{body}");
}

/// nginx with the configuration of docs/deploy/nginx.conf (its instances and port filled
/// in) in front of three instances: requests and live channels (the WebSocket upgrade)
/// go through it round robin, and two people play through it, each seeing the other's
/// moves. Needs Debian's nginx (`.ci/run` installs it).
#[tokio::test]
async fn two_people_play_through_nginx_with_the_documented_configuration() {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let Some(nginx) = ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .into_iter()
        .map(std::path::Path::new)
        .find(|path| path.is_file())
    else {
        assert!(
            std::env::var_os("CI").is_none(),
            "nginx is needed: apt-get install nginx"
        );
        eprintln!("skipped: install nginx to test the proxy configuration");
        return;
    };
    let servers = [(); 3].map(|()| Server::start_with(&db, &["--trusted-proxy", "127.0.0.1"]));
    let documented = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/deploy/nginx.conf"),
    )
    .unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // The documented file, with this test's instances and port.
    let mut upstreams = servers
        .iter()
        .map(|server| server.url.trim_start_matches("http://").to_owned());
    let site: String = documented
        .lines()
        .map(|line| {
            if line.trim_start().starts_with("server 127.0.0.1:") {
                let rest = line.trim_start().split_once(' ').unwrap().1;
                let options = rest.split_once(' ').map_or("", |(_, options)| options);
                format!("    server {} {options}", upstreams.next().unwrap())
            } else if line.trim() == "listen 8080;" {
                format!("    listen 127.0.0.1:{port};")
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        upstreams.next().is_none(),
        "three instances in the documented upstream"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    std::fs::write(path("othello.conf"), site).unwrap();
    // SAFETY: a plain system call.
    let root = unsafe { libc::geteuid() } == 0;
    let main = format!(
        "{user}daemon off; master_process off; pid {pid}; error_log {log};
         events {{ worker_connections 256; }}
         http {{ access_log off; client_body_temp_path {temp}/body; proxy_temp_path {temp}/proxy;
             fastcgi_temp_path {temp}/fastcgi; uwsgi_temp_path {temp}/uwsgi;
             scgi_temp_path {temp}/scgi; include {site}; }}",
        user = if root { "user root; " } else { "" },
        pid = path("nginx.pid"),
        log = path("error.log"),
        temp = dir.path().display(),
        site = path("othello.conf"),
    );
    // One process (no workers), so killing it at the end leaves nothing behind.
    std::fs::write(path("nginx.conf"), main).unwrap();
    let child = std::process::Command::new(nginx)
        .args([
            "-p",
            &dir.path().display().to_string(),
            "-c",
            &path("nginx.conf"),
        ])
        .stdin(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let proxy = Server {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while client()
        .get(format!("{}/healthz", proxy.url))
        .send()
        .await
        .map_or(true, |response| response.status() != 200)
    {
        let log = std::fs::read_to_string(path("error.log")).unwrap_or_default();
        assert!(Instant::now() < deadline, "nginx answers: {log}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let game = create(&proxy, json!({})).await;
    let (game_id, black, white) = (id(&game), secret(&game, "black"), secret(&game, "white"));
    assert!(
        game["seats"]["white"]["url"]
            .as_str()
            .unwrap()
            .starts_with(&proxy.url),
        "links name the address the browser asked for: {game}"
    );
    let mut black_live = Live::connect(&proxy, &game_id, Some(&black)).await;
    let mut white_live = Live::connect(&proxy, &game_id, Some(&white)).await;
    let mut state = black_live
        .state_where(|s| s["seats"]["white"]["connected"] == true)
        .await;
    white_live.state_where(|_| true).await;
    for _ in 0..12 {
        let black_moves = state["to_move"] == "B";
        let (mover, other) = if black_moves {
            (&black, &mut white_live)
        } else {
            (&white, &mut black_live)
        };
        let square = state["legal"][0].as_str().unwrap().to_owned();
        let (status, after) = play(&proxy, &game_id, mover, &square).await;
        assert_eq!(status, 200, "{after}");
        let version = after["version"].as_u64().unwrap();
        state = other
            .state_where(|s| s["version"].as_u64() >= Some(version))
            .await;
        assert_eq!(state["last_move"], json!(square));
    }
    // Every instance served some of it (round robin), and each knows the game.
    for server in &servers {
        let (status, seen) = send(client().get(server.api(&format!("/games/{game_id}")))).await;
        assert_eq!((status, &seen["moves"]), (200, &state["moves"]));
    }
}

/// Both people ask for a rematch at the same moment on two instances: one rematch game,
/// which the finished game points to, and no other game made (the new game and the
/// pointer are one commit).
#[tokio::test]
async fn a_rematch_asked_on_two_instances_at_once_makes_one_game() {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let servers = three(&db);
    let url = match &db {
        TestDb::Postgres(url) => url.clone(),
        TestDb::Sqlite(..) => unreachable!(),
    };
    let count = || {
        postgres::shared()
            .unwrap()
            .query_in(&url, "SELECT count(*) FROM games")
            .trim()
            .parse::<u64>()
            .unwrap()
    };
    for round in 0..5 {
        let before = count();
        let game = create(&servers[0], json!({})).await;
        let (game_id, black, white) = (id(&game), secret(&game, "black"), secret(&game, "white"));
        let ask = |server: &Server, secret: &str, path: &str| {
            let request = client()
                .post(server.api(&format!("/games/{game_id}/{path}")))
                .bearer_auth(secret);
            async move { send(request).await }
        };
        assert_eq!(ask(&servers[0], &black, "resign").await.0, 200);
        let (first, second) = tokio::join!(
            ask(&servers[1], &black, "rematch"),
            ask(&servers[2], &white, "rematch")
        );
        assert!(
            [first.0, second.0]
                .iter()
                .all(|status| [200, 409].contains(status)),
            "round {round}: {first:?} {second:?}"
        );
        // Whatever the order, both want it: the game points to its one rematch.
        let (_, now) = send(client().get(servers[0].api(&format!("/games/{game_id}")))).await;
        let rematch = now["rematch"]
            .as_str()
            .unwrap_or_else(|| panic!("round {round}: a rematch: {now} {first:?} {second:?}"));
        let (status, _) = send(client().get(servers[1].api(&format!("/games/{rematch}")))).await;
        assert_eq!(status, 200);
        assert_eq!(
            count(),
            before + 2,
            "round {round}: the game and one rematch"
        );
    }
}

/// Two rated games of one player end at the same moment on two instances: both move her
/// rating, one after the other (neither starts from the rating the other replaced).
#[tokio::test]
async fn two_rated_games_ending_at_once_on_two_instances_both_count() {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let servers = three(&db);
    let member = |server: &Server, name: &str| {
        let request = client()
            .post(server.api("/accounts"))
            .json(&json!({"name": name, "password": "a good password"}));
        async move {
            let response = request.send().await.unwrap();
            assert_eq!(response.status().as_u16(), 201);
            let cookie = response
                .headers()
                .get_all("set-cookie")
                .iter()
                .filter_map(|value| value.to_str().ok()?.split(';').next())
                .find(|value| value.starts_with("othello_session="))
                .unwrap()
                .to_owned();
            let body: Value = response.json().await.unwrap();
            (cookie, body["csrf"].as_str().unwrap().to_owned())
        }
    };
    let signed = |request: reqwest::RequestBuilder, member: &(String, String)| {
        request
            .header("cookie", &member.0)
            .header("x-csrf-token", &member.1)
    };
    let ann = member(&servers[0], "ann").await;
    let mut games = Vec::new();
    for (n, name) in ["bob", "cyd"].into_iter().enumerate() {
        let opponent = member(&servers[n + 1], name).await;
        let (status, posted) = send(signed(
            client().post(servers[0].api("/seeks")).json(
                &json!({"rated": true, "color": "B", "clock": {"base_ms": 600_000}, "to": name}),
            ),
            &ann,
        ))
        .await;
        assert_eq!(status, 201, "{posted}");
        let seek = posted["seek"]["id"].as_str().unwrap().to_owned();
        let (status, taken) = send(signed(
            client().post(servers[n + 1].api(&format!("/seeks/{seek}/accept"))),
            &opponent,
        ))
        .await;
        assert_eq!(status, 201, "{taken}");
        let game = taken["game"].as_str().unwrap().to_owned();
        for (player, square) in [(&ann, "d3"), (&opponent, "c5")] {
            let (status, body) = send(signed(
                client()
                    .post(servers[n + 1].api(&format!("/games/{game}/moves")))
                    .json(&json!({ "square": square })),
                player,
            ))
            .await;
            assert_eq!(status, 200, "{body}");
        }
        games.push((game, opponent, n + 1));
    }
    // Bob resigns on the second instance as Cyd resigns on the third.
    let resign = |(game, opponent, server): &(String, (String, String), usize)| {
        send(signed(
            client().post(servers[*server].api(&format!("/games/{game}/resign"))),
            opponent,
        ))
    };
    let (first, second) = tokio::join!(resign(&games[0]), resign(&games[1]));
    assert_eq!((first.0, second.0), (200, 200), "{first:?} {second:?}");
    let (_, page) = send(client().get(servers[0].api("/users/ann"))).await;
    assert_eq!(page["ratings"][0]["games"], 2, "{page}");
    assert_eq!(
        page["history"].as_array().map(Vec::len),
        Some(2),
        "both games in her history: {page}"
    );
}

/// The bot API across instances (issue 47.10): an account made a bot on one instance is a
/// bot on the others at once; a bot following its events on one instance hears of a
/// challenge posted and a game started on another, and its game's stream on the first
/// carries the moves made on the second.
#[tokio::test]
async fn a_bot_on_one_instance_plays_a_game_made_and_moved_on_another() {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    let first = Server::start(&db);
    let second = Server::start(&db);
    let ann = server::token(&first, "annbot").await;
    let bob = server::token(&second, "bobbot").await;
    let post = |server: &Server, path: &str, token: &str| {
        client()
            .post(server.api(path))
            .bearer_auth(token)
            .json(&json!({}))
    };
    // Seen as no bot on the second (its session read and kept there), then made one on
    // the first: the second knows at once.
    let (status, body) = send(post(&second, "/bot/game/x/resign", &ann)).await;
    assert_eq!((status, error_code(&body)), (403, "not_bot"), "{body}");
    for (server, token) in [(&first, &ann), (&second, &bob)] {
        let (status, body) = send(post(server, "/bot/account/upgrade", token)).await;
        assert_eq!(status, 200, "{body}");
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (status, body) = send(post(&second, "/bot/game/x/resign", &ann)).await;
        if status == 404 {
            break;
        }
        assert_eq!(error_code(&body), "not_bot", "{body}");
        assert!(
            Instant::now() < deadline,
            "the upgrade reaches the second instance"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut events = server::Stream::open(&first, "/stream/event", &ann).await;
    let (status, posted) = send(
        client()
            .post(second.api("/challenge/annbot"))
            .bearer_auth(&bob)
            .json(&json!({"rows": 4, "columns": 4, "color": "W"})),
    )
    .await;
    assert_eq!(status, 201, "{posted}");
    let challenge = events.next_of("challenge").await;
    assert_eq!(challenge["challenge"]["poster"], "bobbot", "{challenge}");
    let id = challenge["challenge"]["id"].as_str().unwrap();
    let (status, body) = send(post(&second, &format!("/challenge/{id}/accept"), &ann)).await;
    assert_eq!(status, 201, "{body}");
    let start = events.next_of("gameStart").await;
    assert_eq!(start["game"]["color"], "B", "{start}");
    let game = start["game"]["id"].as_str().unwrap().to_owned();
    let mut stream = server::Stream::open(&first, &format!("/bot/game/stream/{game}"), &ann).await;
    let full = stream.next().await.unwrap();
    assert_eq!(full["type"], "gameFull", "{full}");
    let square = full["state"]["legal"][0].as_str().unwrap().to_owned();
    let (status, body) = send(post(
        &second,
        &format!("/bot/game/{game}/move/{square}"),
        &ann,
    ))
    .await;
    assert_eq!(status, 200, "{body}");
    let moved = stream.next().await.unwrap();
    assert_eq!(moved["moves"], json!([square]), "{moved}");
    let (status, body) = send(post(&second, &format!("/bot/game/{game}/resign"), &bob)).await;
    assert_eq!(status, 200, "{body}");
    let last = stream.next().await.unwrap();
    assert_eq!(
        (&last["status"], &last["winner"]),
        (&json!("over"), &json!("B")),
        "{last}"
    );
    let finish = events.next_of("gameFinish").await;
    assert_eq!(finish["game"]["id"], game.as_str(), "{finish}");
}
