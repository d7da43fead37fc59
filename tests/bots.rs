//! The bot API (issue 47, item 10) on a real server: the project's `othello bot` plays the
//! Python example client of docs/api.md a hundred games through it, across a server
//! restart; and what the API refuses, and to whom.

#[path = "common/postgres.rs"]
mod postgres;
#[path = "common/server.rs"]
mod server;

use std::{
    io::{BufRead, BufReader, Read},
    process::{Child, Command, Stdio},
    sync::mpsc,
    time::{Duration, Instant},
};

use postgres::TestDb;
use serde_json::{Value, json};
use server::{Server, Stream, client, error_code, send, token};

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

async fn upgrade(server: &Server, token: &str) {
    let (status, body) = post(server, "/bot/account/upgrade", token, json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["bot"], true);
}

/// A child process killed when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn two_bots_play_a_hundred_games_through_the_api_across_a_server_restart(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    // The bots make a challenge and a game every few milliseconds: beyond the limit a
    // person meets (tested elsewhere), which would make this test wait.
    let limits = ["--games-per-minute", "0"];
    let server = Server::start_with(&db, &limits);
    let address = server.url.trim_start_matches("http://").to_owned();
    let ours = token(&server, "ourbot").await;
    let theirs = token(&server, "pybot").await;
    upgrade(&server, &theirs).await;

    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/examples/bot.py");
    let python_errors = dir.path().join("python.err");
    let python = Killed(
        Command::new("python3")
            .args([example, &server.url, &theirs])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&python_errors).unwrap())
            .spawn()
            .expect("python3 runs"),
    );
    let mut bot = Killed(
        Command::new(assert_cmd::cargo::cargo_bin!("othello"))
            .args(["bot", "--server", &server.url, "--upgrade"])
            .args(["--player", "engine:1", "--time", "10", "--seed", "3"])
            .args(["--challenge", "pybot", "--games", "100", "--size", "6x6"])
            .env("OTHELLO_TOKEN", &ours)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts"),
    );
    let (sender, lines) = mpsc::channel();
    let stdout = bot.0.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    let mut seen: Vec<String> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(300);
    let next = |seen: &mut Vec<String>| {
        let line = lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|_| panic!("the bot goes on; so far:\n{}", seen.join("\n")));
        seen.push(line.clone());
        line
    };
    // A crash of the server a third of the way through, games under way.
    while seen.iter().filter(|line| line.starts_with("game ")).count() < 30 {
        next(&mut seen);
    }
    server.kill();
    std::thread::sleep(Duration::from_millis(500));
    let server = Server::start_command(Server::command_at(&db, &address, &limits));
    while !seen.last().is_some_and(|line| line.starts_with("games ")) {
        next(&mut seen);
    }
    let status = bot.0.wait().unwrap();
    let mut errors = String::new();
    bot.0
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut errors)
        .unwrap();
    assert!(status.success(), "{errors}\n{}", seen.join("\n"));
    drop(python);

    let games: Vec<&String> = seen
        .iter()
        .filter(|line| line.starts_with("game "))
        .collect();
    assert_eq!(games.len(), 100, "{}", seen.join("\n"));
    let totals = seen.last().unwrap();
    assert!(
        totals.starts_with("games 100: ")
            && totals.ends_with("0 aborted; illegal moves 0, desyncs 0"),
        "{totals}"
    );
    // The bot saw the restart, and came back.
    assert!(
        seen.iter().any(|line| line.starts_with("event stream: ")),
        "{}",
        seen.join("\n")
    );
    // The Python client came back too, and never had a move refused.
    let python_errors = std::fs::read_to_string(&python_errors).unwrap();
    assert!(python_errors.contains("reconnecting:"), "{python_errors}");
    assert!(!python_errors.contains(" 422 "), "{python_errors}");
    assert!(!python_errors.contains(" 409 "), "{python_errors}");

    // What each bot line says is what the server has: the game over by play (no flag, no
    // abandon), the same discs, the same winner.
    for line in games {
        assert!(line.contains("; illegal moves 0, desyncs 0, "), "{line}");
        let id = line["game ".len()..].split(':').next().unwrap();
        let (status, state) = send(client().get(server.api(&format!("/games/{id}")))).await;
        assert_eq!(status, 200, "{state}");
        assert_eq!(state["status"], "over", "{state}");
        assert_eq!(state["ending"], Value::Null, "{state}");
        let score = format!("{}-{}", state["counts"]["B"], state["counts"]["W"]);
        assert!(
            line.contains(&format!(" {score} against pybot")),
            "{line}: {score}"
        );
        let names = [&state["seats"]["black"], &state["seats"]["white"]];
        assert!(names.iter().all(|seat| seat["bot"] == true), "{state}");
        let ours_is = if names[0]["name"] == "ourbot" {
            "B"
        } else {
            "W"
        };
        let result = match state["winner"].as_str() {
            Some("none") => "drawn",
            Some(winner) if winner == ours_is => "won",
            _ => "lost",
        };
        assert!(line.contains(&format!(": {result} ")), "{line}: {state}");
    }
}

async fn the_bot_api_streams_a_challenge_its_game_and_each_move_and_refuses_what_it_should(
    db: TestDb,
) {
    let server = Server::start(&db);
    let ann = token(&server, "annbot").await;
    let bob = token(&server, "bobbot").await;
    let person = token(&server, "carol").await;

    // Not a bot yet: the bot endpoints say so; a made-up token is no one's.
    let (status, body) = post(&server, "/bot/game/x/resign", &ann, json!({})).await;
    assert_eq!((status, error_code(&body)), (403, "not_bot"), "{body}");
    let (status, body) = get(&server, "/stream/event", "oat_0123").await;
    assert_eq!((status, error_code(&body)), (401, "bad_token"), "{body}");
    let (status, body) = post(&server, "/bot/account/upgrade", "", json!({})).await;
    assert_eq!((status, error_code(&body)), (401, "no_account"), "{body}");
    upgrade(&server, &ann).await;
    upgrade(&server, &bob).await;
    // Upgrading twice is harmless; /api/me says it.
    upgrade(&server, &ann).await;
    let (_, me) = get(&server, "/me", &ann).await;
    assert_eq!(me["user"]["bot"], true, "{me}");

    // A challenge to nobody, or to oneself, is refused at once.
    let (status, body) = post(&server, "/challenge/nobody", &ann, json!({})).await;
    assert_eq!(
        (status, error_code(&body)),
        (404, "no_such_player"),
        "{body}"
    );
    let (status, body) = post(&server, "/challenge/ANNBOT", &ann, json!({})).await;
    assert_eq!((status, error_code(&body)), (400, "bad_request"), "{body}");

    // Bob follows his events; Ann challenges him; he sees it, from a bot.
    let mut bob_events = Stream::open(&server, "/stream/event", &bob).await;
    let settings = json!({"rows": 6, "columns": 6, "color": "B", "clock": {"base_ms": 60000}});
    let (status, posted) = post(&server, "/challenge/bobbot", &ann, settings.clone()).await;
    assert_eq!(status, 201, "{posted}");
    let challenge = bob_events.next_of("challenge").await;
    assert_eq!(challenge["challenge"]["poster"], "annbot");
    assert_eq!(challenge["challenge"]["bot"], true);
    assert_eq!(challenge["challenge"]["mine"], false);
    let challenge_id = challenge["challenge"]["id"].as_str().unwrap().to_owned();
    assert_eq!(posted["seek"]["id"], challenge_id.as_str());
    // Only Bob may decline or take it.
    let path = format!("/challenge/{challenge_id}/decline");
    let (status, body) = post(&server, &path, &person, json!({})).await;
    assert_eq!((status, error_code(&body)), (403, "not_for_you"), "{body}");

    // Declined: Ann hears it is gone.
    let mut ann_events = Stream::open(&server, "/stream/event", &ann).await;
    let own = ann_events.next_of("challenge").await;
    assert_eq!(own["challenge"]["mine"], true);
    let (status, body) = post(&server, &path, &bob, json!({})).await;
    assert_eq!((status, body.clone()), (200, json!({"ok": true})), "{body}");
    let gone = ann_events.next_of("challengeCanceled").await;
    assert_eq!(gone["challenge"]["id"], challenge_id.as_str());

    // Again, accepted: both hear the game start, each with its colour.
    let (status, posted) = post(&server, "/challenge/bobbot", &ann, settings).await;
    assert_eq!(status, 201, "{posted}");
    let id = bob_events.next_of("challenge").await["challenge"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, body) = post(&server, &format!("/challenge/{id}/accept"), &bob, json!({})).await;
    assert_eq!(status, 201, "{body}");
    let start = bob_events.next_of("gameStart").await;
    assert_eq!(start["game"]["color"], "W", "{start}");
    assert_eq!(start["game"]["opponent"]["name"], "annbot");
    assert_eq!(start["game"]["opponent"]["bot"], true);
    let game = start["game"]["id"].as_str().unwrap().to_owned();
    let ann_start = ann_events.next_of("gameStart").await;
    assert_eq!(ann_start["game"]["id"], game.as_str());
    assert_eq!(ann_start["game"]["color"], "B");

    // The game's stream: the full game first (Ann's seat, the BOT marks), then a state per
    // move; a person may not open it, nor a bot of another game.
    let stream_path = format!("/bot/game/stream/{game}");
    let (status, body) = get(&server, &stream_path, &person).await;
    assert_eq!((status, error_code(&body)), (403, "not_bot"), "{body}");
    let mut ann_game = Stream::open(&server, &stream_path, &ann).await;
    let full = ann_game.next().await.unwrap();
    assert_eq!(full["type"], "gameFull", "{full}");
    assert_eq!(full["you"], "B");
    assert_eq!(full["seats"]["white"]["bot"], true, "{full}");
    assert_eq!(full["state"]["to_move"], "B");
    assert_eq!(full["state"]["moves"], json!([]));
    let legal = full["state"]["legal"].clone();
    assert_eq!(legal, json!(["c2", "b3", "e4", "d5"]), "{full}");

    // A move that is not legal is refused with the legal ones; one out of turn too.
    let (status, body) = post(
        &server,
        &format!("/bot/game/{game}/move/a1"),
        &ann,
        json!({}),
    )
    .await;
    assert_eq!((status, error_code(&body)), (422, "illegal_move"), "{body}");
    assert_eq!(body["error"]["legal"], legal);
    let (status, body) = post(
        &server,
        &format!("/bot/game/{game}/move/c2"),
        &bob,
        json!({}),
    )
    .await;
    assert_eq!(status, 409, "{body}");
    let (status, body) = post(
        &server,
        &format!("/bot/game/{game}/move/c2"),
        &ann,
        json!({}),
    )
    .await;
    assert_eq!((status, body.clone()), (200, json!({"ok": true})), "{body}");
    let state = ann_game.next().await.unwrap();
    assert_eq!(state["type"], "gameState", "{state}");
    assert_eq!(state["moves"], json!(["c2"]));
    assert_eq!(state["to_move"], "W");
    // Black's clock runs from its first move's end (White's first move is still to come).
    assert!(state["clock"]["B"].as_u64().unwrap() <= 60_000, "{state}");

    // Bob resigns: the state says over, the stream ends, the event streams say finished.
    let (status, body) = post(
        &server,
        &format!("/bot/game/{game}/resign"),
        &bob,
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let last = ann_game.next().await.unwrap();
    assert_eq!(last["status"], "over", "{last}");
    assert_eq!(last["winner"], "B");
    assert_eq!(last["ending"], "resign");
    assert!(
        ann_game.next().await.is_none(),
        "the stream ends with the game"
    );
    let finish = ann_events.next_of("gameFinish").await;
    assert_eq!(finish["game"]["id"], game.as_str());
    assert_eq!(finish["game"]["winner"], "B");
    assert_eq!(finish["game"]["ending"], "resign");

    // An account that has played cannot become a bot.
    let dave = token(&server, "dave").await;
    let seek = post(
        &server,
        "/challenge/dave",
        &ann,
        json!({"rows": 4, "columns": 4}),
    )
    .await
    .1;
    let seek_id = seek["seek"]["id"].as_str().unwrap().to_owned();
    let (status, body) = post(
        &server,
        &format!("/challenge/{seek_id}/accept"),
        &dave,
        json!({}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = post(&server, "/bot/account/upgrade", &dave, json!({})).await;
    assert_eq!((status, error_code(&body)), (409, "has_played"), "{body}");

    // Two event streams an account, no more; a third is refused until one closes.
    let second = Stream::open(&server, "/stream/event", &ann).await;
    let (status, body) = get(&server, "/stream/event", &ann).await;
    assert_eq!(
        (status, error_code(&body)),
        (429, "too_many_streams"),
        "{body}"
    );
    drop(second);
    drop(ann_events);
    // Given back at once (red team: it took up to 5 s, and a client reconnecting at once
    // was refused).
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let response = reqwest::Client::new()
            .get(server.api("/stream/event"))
            .bearer_auth(&ann)
            .send()
            .await
            .unwrap();
        if response.status().as_u16() == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "a closed stream's place is given back"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // A bot that has lost track, sending moves to a game over, is refused; after sixty
    // refusals in a minute it is told to wait.
    let path = format!("/bot/game/{game}/move/c2");
    // (Its illegal a1 above was the first refusal.)
    for _ in 1..60 {
        let (status, body) = post(&server, &path, &ann, json!({})).await;
        assert_eq!(status, 409, "{body}");
    }
    let (status, body) = post(&server, &path, &ann, json!({})).await;
    assert_eq!((status, error_code(&body)), (429, "too_fast"), "{body}");
    // Another bot is not held back by it.
    let (status, body) = post(&server, &path, &bob, json!({})).await;
    assert_eq!(status, 409, "{body}");

    // Nor through the game endpoints (red team: they were a way round it).
    let (status, body) = post(
        &server,
        &format!("/games/{game}/moves"),
        &ann,
        json!({"square": "c2"}),
    )
    .await;
    assert_eq!((status, error_code(&body)), (429, "too_fast"), "{body}");

    // A token is no session: as the cookie it names no one.
    let (_, me) = send(
        client()
            .get(server.api("/me"))
            .header("cookie", format!("othello_session={bob}")),
    )
    .await;
    assert_eq!(me["user"], Value::Null, "{me}");
    // Only a challenge addressed to one is declined.
    let (_, open) = post(&server, "/seeks", &person, json!({})).await;
    let path = format!(
        "/challenge/{}/decline",
        open["seek"]["id"].as_str().unwrap()
    );
    let (status, body) = post(&server, &path, &bob, json!({})).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("open to all"),
        "{body}"
    );

    // A token ends when its holder says so, and its streams with it (red team: they went
    // on).
    let mut bob_events = Stream::open(&server, "/stream/event", &bob).await;
    let response = client()
        .delete(server.api("/tokens"))
        .bearer_auth(&bob)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 204);
    let (status, body) = get(&server, "/me", &bob).await;
    assert_eq!((status, error_code(&body)), (401, "bad_token"), "{body}");
    let ended = Instant::now();
    while bob_events.next().await.is_some() {}
    assert!(
        ended.elapsed() < Duration::from_secs(8),
        "{:?}",
        ended.elapsed()
    );
}

crate::on_both_databases!(
    two_bots_play_a_hundred_games_through_the_api_across_a_server_restart,
    the_bot_api_streams_a_challenge_its_game_and_each_move_and_refuses_what_it_should,
);

/// `othello bot` as the red team of issue 47.10 found it: it needs a bot account; a game
/// won by resignation is no desync; a server restart while it thinks does not leave its
/// move unmade; Ctrl-C (SIGTERM) withdraws its open challenge and prints its totals.
#[tokio::test]
async fn othello_bot_keeps_to_its_games_through_restarts_resignations_and_interrupts() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("client.db");
    let server = Server::start(&db);
    let address = server.url.trim_start_matches("http://").to_owned();
    let ours = token(&server, "ourbot").await;
    let theirs = token(&server, "theirbot").await;
    let url = server.url.clone();
    let bot = |args: &[&str]| {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin!("othello"));
        command
            .args(["bot", "--server", &url])
            .args(args)
            .env("OTHELLO_TOKEN", &ours)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    };
    // Not a bot: said at once.
    let output = bot(&["--games", "1"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(errors.contains("ourbot is not a bot account"), "{errors}");
    upgrade(&server, &ours).await;
    upgrade(&server, &theirs).await;

    // A series of one game, which the other side resigns: one line, no desync.
    let mut events = Stream::open(&server, "/stream/event", &theirs).await;
    let child = bot(&["--challenge", "theirbot", "--games", "1", "--size", "6x6"])
        .spawn()
        .unwrap();
    let challenge = events.next_of("challenge").await;
    let id = challenge["challenge"]["id"].as_str().unwrap();
    let (status, body) = post(
        &server,
        &format!("/challenge/{id}/accept"),
        &theirs,
        json!({}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let game = body["game"].as_str().unwrap().to_owned();
    let (status, body) = post(
        &server,
        &format!("/bot/game/{game}/resign"),
        &theirs,
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let output = child.wait_with_output().unwrap();
    let lines = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{lines}");
    assert!(
        lines.contains(&format!("game {game}: won 2-2 against theirbot"))
            && lines.contains("(resign); illegal moves 0, desyncs 0"),
        "{lines}"
    );

    // It thinks three seconds a move; the server is killed while it does, and restarted.
    let mut child = Killed(
        bot(&["--player", "mcts:1000000", "--time", "3000", "--games", "1"])
            .spawn()
            .unwrap(),
    );
    let mut own = Stream::open(&server, "/stream/event", &ours).await;
    let settings = json!({"rows": 6, "columns": 6, "color": "B"});
    let (status, posted) = post(&server, "/challenge/ourbot", &theirs, settings).await;
    assert_eq!(status, 201, "{posted}");
    let start = own.next_of("gameStart").await;
    let game = start["game"]["id"].as_str().unwrap().to_owned();
    drop(own);
    let (status, body) = post(
        &server,
        &format!("/bot/game/{game}/move/c2"),
        &theirs,
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    server.kill();
    // Down when its move is sent (red team: it was never sent again).
    tokio::time::sleep(Duration::from_millis(4000)).await;
    let server = Server::start_command(Server::command_at(&db, &address, &[]));
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, state) = get(&server, &format!("/games/{game}"), &theirs).await;
        if state["moves"]
            .as_array()
            .is_some_and(|moves| moves.len() == 2)
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the bot moves after the restart: {state}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (status, body) = post(
        &server,
        &format!("/bot/game/{game}/resign"),
        &theirs,
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let status = child.0.wait().unwrap();
    let mut out = String::new();
    child
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(status.success(), "{out}");
    assert!(out.contains("desyncs 0, reconnects 1"), "{out}");

    // Interrupted while its challenge waits: withdrawn, the totals printed, status 130.
    let mut child = Killed(
        bot(&["--challenge", "theirbot", "--games", "3"])
            .spawn()
            .unwrap(),
    );
    let mut events = Stream::open(&server, "/stream/event", &theirs).await;
    let open = events.next_of("challenge").await;
    // SAFETY: signalling our own child, not yet reaped.
    unsafe {
        libc::kill(child.0.id() as i32, libc::SIGTERM);
    }
    let gone = events.next_of("challengeCanceled").await;
    assert_eq!(gone["challenge"]["id"], open["challenge"]["id"]);
    let status = child.0.wait().unwrap();
    let mut out = String::new();
    child
        .0
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(status.code(), Some(130), "{out}");
    assert!(
        out.ends_with("games 0: 0 won, 0 drawn, 0 lost, 0 aborted; illegal moves 0, desyncs 0\n"),
        "{out}"
    );
}
