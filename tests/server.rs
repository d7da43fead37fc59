//! `othello serve` through its JSON API and live channel, on a real server on a free
//! loopback port with a real SQLite file: every endpoint and error, games between people
//! with moves crossing live, games against the engine and between engines, secrets, a
//! restart after SIGKILL, and malformed requests of every kind.

#[path = "common/postgres.rs"]
mod postgres;
#[path = "common/server.rs"]
mod server;

use std::time::Duration;

use postgres::TestDb;
use serde_json::{Value, json};
#[path = "server/attacks.rs"]
mod attacks;

use server::{
    Live, Server, client, client_from, create, error_code, id, member, play, secret, send,
};

/// A fresh database in a temporary directory (kept alive by the returned guard).
fn database() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.db");
    (dir, path)
}

fn first_legal(state: &Value) -> String {
    state["legal"][0].as_str().unwrap().to_owned()
}

async fn get(server: &Server, path: &str) -> (u16, Value) {
    send(client().get(server.api(path))).await
}

async fn creating_and_reading_a_game(db: TestDb) {
    let server = Server::start(&db);
    let (status, health) = send(client().get(format!("{}/healthz", server.url))).await;
    assert_eq!((status, &health["status"]), (200, &json!("ok")));

    // Every field is optional: the standard 8x8 FULL game between two people.
    let game = create(&server, json!({})).await;
    let state = &game["state"];
    assert_eq!(state["rules"], "full");
    assert_eq!(
        (state["rows"].as_u64(), state["columns"].as_u64()),
        (Some(8), Some(8))
    );
    assert_eq!(state["board"][3], "...WB...");
    assert_eq!(state["to_move"], "B");
    assert_eq!(state["legal"], json!(["d3", "c4", "f5", "e6"]));
    assert_eq!(state["counts"], json!({"B": 2, "W": 2}));
    assert_eq!(
        (&state["status"], &state["winner"]),
        (&json!("playing"), &Value::Null)
    );
    assert_eq!(state["moves"], json!([]));
    assert_eq!(
        state["exports"],
        json!(["transcript", "ggf", "record", "grader"])
    );
    let (black, white) = (secret(&game, "black"), secret(&game, "white"));
    assert_eq!(black.len(), 32, "128 random bits in hex");
    assert_ne!(black, white);
    assert!(
        game["seats"]["black"]["url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("#secret={black}"))
    );
    assert!(
        game["spectator_url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/g/{}", id(&game)))
    );
    assert!(!game["spectator_url"].as_str().unwrap().contains(&black));
    // The state read back, as a spectator: no secret in it.
    let (status, read) = get(&server, &format!("/games/{}", id(&game))).await;
    assert_eq!(status, 200);
    assert_eq!(read["you"], Value::Null);
    let text = read.to_string();
    assert!(!text.contains(&black) && !text.contains(&white), "{text}");
    // With a seat's secret it says whose it is.
    let (_, mine) = send(
        client()
            .get(server.api(&format!("/games/{}", id(&game))))
            .bearer_auth(&white),
    )
    .await;
    assert_eq!(mine["you"], "W");

    // Every option: SIMPLE, 6x10, White first, fewest wins, an engine seat.
    let game = create(
        &server,
        json!({"rules": "simple", "rows": 6, "columns": 10, "first": "W", "win": "fewest",
               "black": "engine:2", "white": "human", "time_ms": 50}),
    )
    .await;
    let state = &game["state"];
    assert_eq!(
        (&state["rules"], &state["win"], &state["first"]),
        (&json!("simple"), &json!("fewest"), &json!("W"))
    );
    assert_eq!(state["board"].as_array().unwrap().len(), 6);
    assert_eq!(state["board"][0].as_str().unwrap().len(), 10);
    assert!(
        game["seats"]["black"].get("secret").is_none(),
        "no secret for an engine's seat"
    );
    assert_eq!(game["seats"]["black"]["player"], "engine:2");
    assert_eq!(state["seats"]["black"]["kind"], "engine");
    // Only the exports that work for it: GGF is FULL 8x8 only, a transcript is read from
    // the standard start with Black first (the console and the API agree: issue 23.3).
    assert_eq!(state["exports"], json!(["record", "grader"]));
    let (status, body) = get(
        &server,
        &format!("/games/{}/export?format=transcript", id(&game)),
    )
    .await;
    assert_eq!((status, error_code(&body)), (422, "bad_position"), "{body}");

    // Odd sides: no grader input either, and asking for one says why.
    let game = create(&server, json!({"rows": 5, "columns": 7})).await;
    assert_eq!(game["state"]["exports"], json!(["transcript", "record"]));
    let (status, body) = get(
        &server,
        &format!("/games/{}/export?format=grader", id(&game)),
    )
    .await;
    assert_eq!((status, error_code(&body)), (422, "bad_position"), "{body}");

    // A pasted position: a grader board, an OBF position, a transcript.
    let grader = "4\n4\nB\n>\n. . . .\n. B W .\n. W B .\n. . . .\n1 3\n";
    let game = create(&server, json!({"position": grader})).await;
    assert_eq!(game["state"]["moves"], json!(["c1"]));
    assert_eq!(game["state"]["rows"], 4);
    let obf = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X";
    let game = create(&server, json!({"position": obf})).await;
    assert_eq!(
        game["state"]["counts"]["B"].as_u64().unwrap()
            + game["state"]["counts"]["W"].as_u64().unwrap(),
        44
    );
    let game = create(&server, json!({"position": "f5d6c3", "rules": "full"})).await;
    assert_eq!(game["state"]["moves"], json!(["f5", "d6", "c3"]));
    // c3 is legal at the start under SIMPLE only: the transcript follows the rules asked for.
    let game = create(&server, json!({"position": "c3", "rules": "simple"})).await;
    assert_eq!(game["state"]["moves"], json!(["c3"]));
    // Issue 21.8: a grader input's name says its rules.
    let response = client()
        .get(server.api(&format!("/games/{}/export?format=grader", id(&game))))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.headers()["content-disposition"],
        format!("inline; filename=\"othello-{}-simple.in\"", id(&game)).as_str()
    );
}

/// Sends each request; checks its status, its error code and that the error says why.
async fn assert_refused(cases: Vec<(reqwest::RequestBuilder, u16, &str)>) {
    for (index, (request, status, code)) in cases.into_iter().enumerate() {
        let (got, body) = send(request).await;
        assert_eq!(
            (got, error_code(&body)),
            (status, code),
            "case {index}: {body}"
        );
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "case {index}"
        );
    }
}

/// A fresh game between two people: its id and the seats' secrets.
async fn people(server: &Server) -> (String, String, String) {
    let game = create(server, json!({})).await;
    (id(&game), secret(&game, "black"), secret(&game, "white"))
}

async fn a_move_is_refused_by_the_rule_it_breaks_and_changes_nothing(db: TestDb) {
    let server = Server::start(&db);
    let (game_id, black, white) = people(&server).await;
    let moves = server.api(&format!("/games/{game_id}/moves"));
    assert_refused(vec![
        (
            client().post(&moves).json(&json!({"square": "d3"})),
            401,
            "unauthorized",
        ),
        (
            client()
                .post(&moves)
                .bearer_auth("f".repeat(32))
                .json(&json!({"square": "d3"})),
            403,
            "forbidden",
        ),
        (
            client()
                .post(&moves)
                .bearer_auth(&white)
                .json(&json!({"square": "d3"})),
            409,
            "not_your_turn",
        ),
        (
            client()
                .post(&moves)
                .bearer_auth(&black)
                .json(&json!({"square": "a1"})),
            422,
            "illegal_move",
        ),
        (
            client()
                .post(server.api(&format!("/games/{game_id}/undo")))
                .bearer_auth(&black)
                .json(&json!({})),
            409,
            "nothing_to_undo",
        ),
        (
            client()
                .post(server.api(&format!("/games/{game_id}/undo")))
                .bearer_auth(&black)
                .json(&json!({"action": "accept"})),
            409,
            "no_undo_request",
        ),
        (
            client()
                .post(server.api(&format!("/games/{game_id}/redo")))
                .bearer_auth(&black),
            409,
            "redo_needs_engine",
        ),
        (
            client()
                .post(server.api(&format!("/games/{game_id}/control")))
                .bearer_auth(&black)
                .json(&json!({"paused": true})),
            409,
            "not_engine_game",
        ),
    ])
    .await;
    // The illegal move's error lists the legal ones.
    let (_, body) = play(&server, &game_id, &black, "a1").await;
    assert_eq!(body["error"]["legal"], json!(["d3", "c4", "f5", "e6"]));
    // The game is still as it was.
    let (_, state) = get(&server, &format!("/games/{game_id}")).await;
    assert_eq!(state["moves"], json!([]));
}

async fn a_body_that_is_not_the_json_asked_for_is_refused(db: TestDb) {
    let server = Server::start(&db);
    let (game_id, black, _) = people(&server).await;
    let moves = server.api(&format!("/games/{game_id}/moves"));
    assert_refused(vec![
        (
            client()
                .post(&moves)
                .bearer_auth(&black)
                .json(&json!({"square": "z99"})),
            400,
            "bad_request",
        ),
        (
            client()
                .post(&moves)
                .bearer_auth(&black)
                .header("content-type", "application/json")
                .body("{\"square\":"),
            400,
            "malformed_json",
        ),
        (
            client()
                .post(&moves)
                .bearer_auth(&black)
                .body("{\"square\": \"d3\"}"),
            415,
            "unsupported_media_type",
        ),
        (
            client()
                .post(&moves)
                .bearer_auth(&black)
                .json(&json!({"square": "d3", "extra": 1})),
            400,
            "invalid_json",
        ),
        (
            client()
                .post(&moves)
                .bearer_auth(&black)
                .json(&json!({"square": 3})),
            400,
            "invalid_json",
        ),
        (
            client()
                .post(&moves)
                .bearer_auth(&black)
                .body(vec![b' '; 70_000]),
            413,
            "body_too_large",
        ),
    ])
    .await;
    let (_, state) = get(&server, &format!("/games/{game_id}")).await;
    assert_eq!(state["moves"], json!([]));
}

async fn a_game_is_created_only_from_settings_that_make_sense(db: TestDb) {
    let server = Server::start(&db);
    assert_refused(vec![
        (
            client()
                .post(server.api("/games"))
                .json(&json!({"rows": 3})),
            400,
            "bad_request",
        ),
        (
            client()
                .post(server.api("/games"))
                .json(&json!({"columns": 17})),
            400,
            "bad_request",
        ),
        (
            client()
                .post(server.api("/games"))
                .json(&json!({"rules": "chess"})),
            400,
            "bad_request",
        ),
        (
            client()
                .post(server.api("/games"))
                .json(&json!({"black": "wizard"})),
            400,
            "bad_request",
        ),
        (
            client()
                .post(server.api("/games"))
                .json(&json!({"time_ms": 0})),
            400,
            "bad_request",
        ),
        (
            client()
                .post(server.api("/games"))
                .json(&json!({"time_ms": 30_001})),
            400,
            "bad_request",
        ),
        (
            client()
                .post(server.api("/games"))
                .json(&json!({"rows": -8})),
            400,
            "invalid_json",
        ),
        (
            client()
                .post(server.api("/games"))
                .json(&json!({"colour": "B"})),
            400,
            "invalid_json",
        ),
        (
            client()
                .post(server.api("/games"))
                .json(&json!({"position": "hello"})),
            422,
            "bad_position",
        ),
        (
            client()
                .post(server.api("/games"))
                .json(&json!({"position": "f5f5"})),
            422,
            "bad_position",
        ),
        // A grader board that states 4x4 against the size asked for.
        (
            client().post(server.api("/games")).json(
                &json!({"rows": 6, "position": "4\n4\nB\n>\n. . . .\n. B W .\n. W B .\n. . . .\n"}),
            ),
            422,
            "bad_position",
        ),
    ])
    .await;
    let (_, listing) = get(&server, "/games").await;
    assert_eq!(listing["games"], json!([]), "{listing}");
}

async fn unknown_paths_methods_and_parameters_are_refused(db: TestDb) {
    let server = Server::start(&db);
    let (game_id, _, _) = people(&server).await;
    assert_refused(vec![
        (
            client().delete(server.api("/games")),
            405,
            "method_not_allowed",
        ),
        (
            client().get(server.api("/games/0123456789abcdef")),
            404,
            "not_found",
        ),
        (client().get(server.api("/nowhere")), 404, "no_route"),
        // The live channel over plain HTTP.
        (
            client().get(server.api(&format!("/games/{game_id}/events"))),
            400,
            "bad_request",
        ),
        (
            client().get(server.api(&format!("/games/{game_id}/hint?count=0"))),
            400,
            "bad_request",
        ),
        (
            client().get(server.api(&format!("/games/{game_id}/hint?count=65"))),
            400,
            "bad_request",
        ),
        (
            client().get(server.api(&format!("/games/{game_id}/hint?time_ms=10001"))),
            400,
            "bad_request",
        ),
        (
            client().get(server.api(&format!("/games/{game_id}/hint?depth=3"))),
            400,
            "bad_request",
        ),
        (
            client().get(server.api(&format!("/games/{game_id}/export?format=pdf"))),
            400,
            "bad_request",
        ),
        (
            client().get(server.api(&format!("/games/{game_id}?ply=1"))),
            400,
            "bad_request",
        ),
    ])
    .await;
}

async fn two_people_play_a_whole_game_with_moves_crossing_live(db: TestDb) {
    let server = Server::start(&db);
    let game = create(&server, json!({"rows": 6, "columns": 6})).await;
    let (game_id, black, white) = (id(&game), secret(&game, "black"), secret(&game, "white"));
    let mut black_live = Live::connect(&server, &game_id, Some(&black)).await;
    let mut white_live = Live::connect(&server, &game_id, Some(&white)).await;
    let mut watcher = Live::connect(&server, &game_id, None).await;
    // Each sees who is connected.
    let seen = black_live
        .state_where(|s| s["seats"]["white"]["connected"] == true && s["spectators"] == 1)
        .await;
    assert_eq!(seen["you"], "B");
    white_live
        .state_where(|s| s["seats"]["black"]["connected"] == true)
        .await;

    let mut state = seen;
    let mut played = Vec::new();
    while state["status"] == "playing" {
        let (mover, mover_secret, other) = match state["to_move"].as_str().unwrap() {
            "B" => ("B", &black, &mut white_live),
            _ => ("W", &white, &mut black_live),
        };
        let square = first_legal(&state);
        let (status, after) = play(&server, &game_id, mover_secret, &square).await;
        assert_eq!(status, 200, "{after}");
        played.push(square.clone());
        // The move crosses to the other seat over its live channel.
        let version = after["version"].as_u64().unwrap();
        let crossed = other
            .state_where(|s| s["version"].as_u64() >= Some(version))
            .await;
        assert_eq!(
            crossed["last_move"],
            json!(square),
            "{mover} played {square}"
        );
        assert_eq!(crossed["board"], after["board"]);
        state = crossed;
    }
    assert_eq!(state["status"], "over");
    assert!(["B", "W", "none"].contains(&state["winner"].as_str().unwrap()));
    let without_passes: Vec<&str> = state["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|m| *m != "pass")
        .collect();
    assert_eq!(without_passes, played);
    let final_view = watcher.state_where(|s| s["status"] == "over").await;
    assert_eq!(final_view["you"], Value::Null);
    // No secret ever reached the spectator, nor one seat the other's.
    for text in &watcher.raw {
        assert!(!text.contains(&black) && !text.contains(&white));
    }
    for text in &black_live.raw {
        assert!(!text.contains(&white));
    }
    for text in &white_live.raw {
        assert!(!text.contains(&black));
    }
    // The game over: no more moves.
    let (status, body) = play(&server, &game_id, &black, "a1").await;
    assert_eq!((status, error_code(&body)), (409, "game_over"));
}

async fn between_people_undo_needs_the_other_seat(db: TestDb) {
    let server = Server::start(&db);
    let game = create(&server, json!({})).await;
    let (game_id, black, white) = (id(&game), secret(&game, "black"), secret(&game, "white"));
    let undo = |secret: &str, action: &str| {
        client()
            .post(server.api(&format!("/games/{game_id}/undo")))
            .bearer_auth(secret)
            .json(&json!({ "action": action }))
    };
    assert_eq!(play(&server, &game_id, &black, "d3").await.0, 200);
    let (status, state) = send(undo(&black, "request")).await;
    assert_eq!((status, &state["undo_request"]), (200, &json!("B")));
    assert_eq!(state["moves"], json!(["d3"]), "nothing is taken back yet");
    // White declines: the move stays.
    let (status, state) = send(undo(&white, "decline")).await;
    assert_eq!((status, &state["undo_request"]), (200, &Value::Null));
    // Black asks again; White accepts: back to Black's turn.
    send(undo(&black, "request")).await;
    let (status, state) = send(undo(&white, "accept")).await;
    assert_eq!(status, 200);
    assert_eq!(
        (&state["moves"], &state["to_move"]),
        (&json!([]), &json!("B"))
    );
    // A spectator cannot undo; a stale answer is refused.
    let (status, body) = send(undo(&white, "accept")).await;
    assert_eq!((status, error_code(&body)), (409, "no_undo_request"));
    // Resigning ends the game for the seat's colour.
    let (status, state) = send(
        client()
            .post(server.api(&format!("/games/{game_id}/resign")))
            .bearer_auth(&white),
    )
    .await;
    assert_eq!(
        (
            status,
            &state["status"],
            &state["winner"],
            &state["resigned"]
        ),
        (200, &json!("over"), &json!("B"), &json!("W"))
    );
}

async fn against_the_engine_it_replies_by_itself_and_undo_goes_back_to_the_person(db: TestDb) {
    let server = Server::start(&db);
    let game = create(&server, json!({"white": "engine:2", "time_ms": 50})).await;
    let (game_id, black) = (id(&game), secret(&game, "black"));
    let mut live = Live::connect(&server, &game_id, Some(&black)).await;
    assert_eq!(play(&server, &game_id, &black, "d3").await.0, 200);
    let replied = live
        .state_where(|s| s["moves"].as_array().is_some_and(|m| m.len() == 2))
        .await;
    assert_eq!(replied["to_move"], "B");
    assert_eq!(replied["seats"]["white"]["player"], "engine:2");
    // Undo takes back the engine's reply and the person's move: the person's turn again.
    let (status, state) = send(
        client()
            .post(server.api(&format!("/games/{game_id}/undo")))
            .bearer_auth(&black),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(
        (&state["moves"], &state["to_move"], &state["can_redo"]),
        (&json!([]), &json!("B"), &json!(true))
    );
    // Redo plays both again.
    let (status, state) = send(
        client()
            .post(server.api(&format!("/games/{game_id}/redo")))
            .bearer_auth(&black),
    )
    .await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["moves"], replied["moves"]);
    // Hints, the evaluation graph and the exports.
    let (status, hint) = get(
        &server,
        &format!("/games/{game_id}/hint?count=2&time_ms=200"),
    )
    .await;
    assert_eq!(status, 200, "{hint}");
    assert_eq!(hint["moves"].as_array().unwrap().len(), 2);
    // Issue 46: the hint names what scored it: the shipped weights of its kind of game.
    assert_eq!(hint["evaluation"], "learned patterns (built in)", "{hint}");
    for (rules, evaluation) in [
        ("full", "learned patterns for 6x6 FULL most (built in)"),
        (
            "simple",
            "classic (no learned weights for 5x7 SIMPLE with most discs winning)",
        ),
    ] {
        let (rows, columns) = if rules == "full" { (6, 6) } else { (5, 7) };
        let other = create(
            &server,
            json!({"rules": rules, "rows": rows, "columns": columns, "white": "engine:1"}),
        )
        .await;
        let (status, hint) = get(
            &server,
            &format!("/games/{}/hint?count=1&time_ms=50", id(&other)),
        )
        .await;
        assert_eq!(
            (status, &hint["evaluation"]),
            (200, &json!(evaluation)),
            "{hint}"
        );
    }
    assert!(
        state["legal"]
            .as_array()
            .unwrap()
            .contains(&hint["moves"][0]["move"])
    );
    let (status, graph) = get(&server, &format!("/games/{game_id}/evaluations")).await;
    assert_eq!(status, 200, "{graph}");
    assert_eq!(graph["scores"].as_array().unwrap().len(), 2);
    assert!(graph["scores"][0]["score"].as_f64().unwrap().abs() < 64.0);
    for (format, start) in [
        ("transcript", "d3"),
        ("ggf", "(;GM[Othello]"),
        ("record", "# othello game record"),
        ("grader", "8\n8\nB\n>\n"),
    ] {
        let response = client()
            .get(server.api(&format!("/games/{game_id}/export?format={format}")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let text = response.text().await.unwrap();
        assert!(text.starts_with(start), "{format}: {text}");
    }
    // A review of an earlier position.
    let (status, review) = get(&server, &format!("/games/{game_id}?ply=1")).await;
    assert_eq!(
        (status, &review["review"], &review["ply"]),
        (200, &json!(1), &json!(1))
    );
    assert_eq!(review["to_move"], "W");
}

async fn engines_play_each_other_while_watched_and_can_be_paused_and_stepped(db: TestDb) {
    let server = Server::start(&db);
    let game = create(
        &server,
        json!({"black": "greedy", "white": "random", "rows": 4, "columns": 4, "speed_ms": 0}),
    )
    .await;
    let game_id = id(&game);
    let control = game["control"]["secret"].as_str().unwrap().to_owned();
    assert!(game["seats"]["black"].get("secret").is_none());
    // Nobody watches yet: it waits.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, state) = get(&server, &format!("/games/{game_id}")).await;
    assert_eq!(
        state["moves"],
        json!([]),
        "a game between engines waits for a watcher"
    );
    let mut live = Live::connect(&server, &game_id, None).await;
    let over = live.state_where(|s| s["status"] == "over").await;
    assert!(over["winner"].is_string());

    // Another, paused at once; then one step at a time.
    let game = create(
        &server,
        json!({"black": "greedy", "white": "greedy", "speed_ms": 60_000}),
    )
    .await;
    let (game_id, control2) = (
        id(&game),
        game["control"]["secret"].as_str().unwrap().to_owned(),
    );
    let control_request = |secret: &str, body: Value| {
        client()
            .post(server.api(&format!("/games/{game_id}/control")))
            .bearer_auth(secret)
            .json(&body)
    };
    let (status, state) = send(control_request(&control2, json!({"paused": true}))).await;
    assert_eq!(
        (status, &state["paused"], &state["control"]),
        (200, &json!(true), &json!(true))
    );
    let (status, body) = send(control_request(&control, json!({"paused": false}))).await;
    assert_eq!(
        (status, error_code(&body)),
        (403, "forbidden"),
        "another game's control secret"
    );
    let (status, body) = send(control_request(&control2, json!({"speed_ms": 60_001}))).await;
    assert_eq!((status, error_code(&body)), (400, "bad_request"));
    let mut live = Live::connect(&server, &game_id, Some(&control2)).await;
    let first = live.next().await;
    assert_eq!(first["state"]["control"], true);
    send(control_request(&control2, json!({"step": true}))).await;
    let stepped = live.state_where(|s| s["ply"] == 1).await;
    assert_eq!(stepped["paused"], true);
    send(control_request(&control2, json!({"step": true}))).await;
    live.state_where(|s| s["ply"] == 2).await;
    // Unpaused with no pause between moves, it plays to the end.
    send(control_request(
        &control2,
        json!({"paused": false, "speed_ms": 0}),
    ))
    .await;
    live.state_where(|s| s["status"] == "over").await;
}

/// Issue 45's red team: a step, or a new pace, asked while a game between engines waits
/// out a long pause between moves, applies at once (it used to wait out the old pause).
async fn a_step_or_a_new_pace_cuts_the_pause_short(db: TestDb) {
    let server = Server::start(&db);
    let game = create(
        &server,
        json!({"black": "greedy", "white": "greedy", "speed_ms": 60_000}),
    )
    .await;
    let (game_id, control) = (
        id(&game),
        game["control"]["secret"].as_str().unwrap().to_owned(),
    );
    let control_request = |body: Value| {
        client()
            .post(server.api(&format!("/games/{game_id}/control")))
            .bearer_auth(&control)
            .json(&body)
    };
    // Watched: the first move waits its minute.
    let mut live = Live::connect(&server, &game_id, Some(&control)).await;
    live.state_where(|s| s["thinking"] == true).await;
    // A third of the pause at most, for what used to take all of it.
    let soon = Duration::from_secs(20);
    let (status, _) = send(control_request(json!({"paused": true}))).await;
    assert_eq!(status, 200);
    send(control_request(json!({"step": true}))).await;
    let stepped = tokio::time::timeout(soon, live.state_where(|s| s["ply"] == 1)).await;
    assert!(stepped.is_ok(), "the step waited out the pause");
    // Resumed at a minute a move, then the pace set to none: the next moves come at once.
    send(control_request(json!({"paused": false}))).await;
    live.state_where(|s| s["thinking"] == true && s["ply"] == 1)
        .await;
    send(control_request(json!({"speed_ms": 0}))).await;
    // (At no pause the moves may come faster than the channel's states: any past the step.)
    let moved_on = |s: &Value| s["ply"].as_u64().is_some_and(|ply| ply >= 3);
    let paced = tokio::time::timeout(soon, live.state_where(moved_on)).await;
    assert!(paced.is_ok(), "the new pace waited out the old one");
}

async fn a_server_killed_mid_game_keeps_every_acknowledged_move(db: TestDb) {
    let server = Server::start(&db);
    let game = create(&server, json!({})).await;
    let (game_id, black, white) = (id(&game), secret(&game, "black"), secret(&game, "white"));
    let mut state = game["state"].clone();
    let mut acknowledged = Vec::new();
    let mut newest = 0;
    for _ in 0..20 {
        let secret = if state["to_move"] == "B" {
            &black
        } else {
            &white
        };
        let square = first_legal(&state);
        let (status, after) = play(&server, &game_id, secret, &square).await;
        assert_eq!(status, 200);
        acknowledged.push(square);
        state = after;
        newest = newest.max(state["version"].as_u64().unwrap());
        // Changes in quick succession (issue 21.7: two in one millisecond): an undo
        // request and its withdrawal.
        let mover = if state["to_move"] == "B" {
            &white
        } else {
            &black
        };
        for action in ["request", "cancel"] {
            let (status, after) = send(
                client()
                    .post(server.api(&format!("/games/{game_id}/undo")))
                    .bearer_auth(mover)
                    .json(&json!({ "action": action })),
            )
            .await;
            assert_eq!(status, 200, "{after}");
            newest = newest.max(after["version"].as_u64().unwrap());
        }
    }
    // No warning, no flush: SIGKILL right after the last acknowledgement.
    server.kill();
    let server = Server::start(&db);
    let (status, state) = get(&server, &format!("/games/{game_id}")).await;
    assert_eq!(status, 200);
    // Issue 21.7: versions never go back, so pages keep the newest state.
    assert!(
        state["version"].as_u64().unwrap() >= newest,
        "{} < {newest}",
        state["version"]
    );
    let moves: Vec<&str> = state["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|m| *m != "pass")
        .collect();
    assert_eq!(moves, acknowledged);
    // The seats' secrets still work after the restart.
    let secret = if state["to_move"] == "B" {
        &black
    } else {
        &white
    };
    assert_eq!(
        play(&server, &game_id, secret, &first_legal(&state))
            .await
            .0,
        200
    );
    // SIGTERM stops it gracefully (status 0); the game is there once more.
    assert!(server.terminate().success());
    let server = Server::start(&db);
    let (_, state) = get(&server, &format!("/games/{game_id}")).await;
    assert_eq!(state["ply"].as_u64(), Some(acknowledged.len() as u64 + 1));
}

/// Random and malformed requests: never a server error, never a crash.
async fn random_and_malformed_requests_get_4xx_and_never_break_the_server(db: TestDb) {
    use rand::{RngExt, SeedableRng, rngs::StdRng};
    let server = Server::start(&db);
    let game = create(&server, json!({})).await;
    let game_id = id(&game);
    let black = secret(&game, "black");
    let mut rng = StdRng::seed_from_u64(12);
    let paths = [
        "/api/games".to_owned(),
        format!("/api/games/{game_id}"),
        format!("/api/games/{game_id}/moves"),
        format!("/api/games/{game_id}/undo"),
        format!("/api/games/{game_id}/redo"),
        format!("/api/games/{game_id}/resign"),
        format!("/api/games/{game_id}/control"),
        format!("/api/games/{game_id}/hint"),
        format!("/api/games/{game_id}/export"),
        "/api/games/%FF%FE".to_owned(),
        "/api/games/..%2F..%2Fetc".to_owned(),
        format!("/api/games/{}", "9".repeat(500)),
        "/api/games/ünïcode/moves".to_owned(),
        "/assets/..%2Fmain.rs".to_owned(),
        "/g/%00".to_owned(),
    ];
    let bodies = |rng: &mut StdRng| -> Vec<u8> {
        match rng.random_range(0..9) {
            0 => Vec::new(),
            1 => (0..rng.random_range(1..200))
                .map(|_| rng.random::<u8>())
                .collect(),
            2 => b"null".to_vec(),
            3 => b"[1,2,3]".to_vec(),
            4 => format!(
                "{{\"square\":\"{}\"}}",
                ["a1", "d3", "", "q99", "\u{0}"][rng.random_range(0..5)]
            )
            .into_bytes(),
            5 => "{\"rows\":1e400}".into(),
            6 => format!("{}{}", "[".repeat(1000), "]".repeat(1000)).into_bytes(),
            7 => "{\"position\":\"4\\n4\\nB\\n>\\n\",\"rules\":\"simple\"}".into(),
            _ => serde_json::to_vec(&json!({"action": "accept", "paused": "yes", "speed_ms": -1}))
                .unwrap(),
        }
    };
    for round in 0..300 {
        let path = &paths[rng.random_range(0..paths.len())];
        let query = [
            "",
            "?count=x",
            "?time_ms=-5",
            "?ply=99999999999999999999",
            "?format=%00",
            "?count=3&count=4",
        ][rng.random_range(0..6)];
        let url = format!("{}{path}{query}", server.url);
        let body = bodies(&mut rng);
        let request = match rng.random_range(0..4) {
            0 => client().get(&url),
            1 => client().post(&url).body(body),
            2 => client().put(&url).body(body),
            _ => client().post(&url).bearer_auth(&black).body(body),
        };
        let request = if rng.random_bool(0.3) {
            request.header(
                "Content-Type",
                ["application/json", "text/plain", "x/\u{7f}"][rng.random_range(0..3)],
            )
        } else {
            request
        };
        let Ok(response) = request.send().await else {
            continue; // a request the client itself refuses to send
        };
        let status = response.status().as_u16();
        assert!(status < 500, "round {round}: {url} answered {status}");
    }
    let (status, _) = send(client().get(format!("{}/healthz", server.url))).await;
    assert_eq!(status, 200);
    // A live channel fed junk stays up or closes; the server stays up.
    let mut junk = Live::connect(&server, &game_id, Some("not a secret")).await;
    let first = junk.next().await;
    assert_eq!(first["error"]["code"], "forbidden");
    let (status, _) = send(client().get(format!("{}/healthz", server.url))).await;
    assert_eq!(status, 200);
}

async fn an_undo_stops_the_engine_search_it_makes_useless(db: TestDb) {
    // One engine thread, and an engine given 30 s a move (by a member: a guest may ask
    // for 5 s).
    let server = Server::start_with(&db, &["--engines", "1"]);
    let (cookie, csrf) = member(&server, "undoer").await;
    let (status, game) = send(
        client()
            .post(server.api("/games"))
            .header("cookie", cookie)
            .header("x-csrf-token", csrf)
            .json(&json!({"white": "engine", "time_ms": 30_000})),
    )
    .await;
    assert_eq!(status, 201, "{game}");
    let (game_id, black) = (id(&game), secret(&game, "black"));
    let (_, state) = play(&server, &game_id, &black, "d3").await;
    assert_eq!(state["thinking"], true, "{state}");
    let (status, state) = send(
        client()
            .post(server.api(&format!("/games/{game_id}/undo")))
            .bearer_auth(&black),
    )
    .await;
    assert_eq!((status, &state["moves"]), (200, &json!([])));
    // The only engine thread is free again: a hint gets it long before the 30 s search
    // would have ended (the limit here only guards against a hang).
    let hint = client()
        .get(server.api(&format!("/games/{game_id}/hint?time_ms=100")))
        .timeout(Duration::from_secs(20))
        .send()
        .await
        .expect("the hint comes: the stale search was stopped");
    assert_eq!(hint.status(), 200);
    let (_, state) = get(&server, &format!("/games/{game_id}")).await;
    assert_eq!(
        (&state["moves"], &state["thinking"]),
        (&json!([]), &json!(false))
    );
}

/// Hints cannot pile up without end: with the one engine thread busy, a client has two
/// wait and the rest are told the engines are busy (503), another client's still waits,
/// and the engine's own reply is not held up.
#[tokio::test]
async fn hints_beyond_what_can_wait_are_refused_as_busy() {
    let (_dir, db) = database();
    let server = Server::start_with(&db, &["--engines", "1"]);
    // Black is the engine, to move first, with 3 s: the one thread is taken at once.
    let game = create(
        &server,
        json!({"black": "engine:10", "time_ms": 3000, "rows": 10, "columns": 10}),
    )
    .await;
    let hint = server.api(&format!("/games/{}/hint?time_ms=20", id(&game)));
    let (answers, (status, other)) = tokio::join!(
        futures_util::future::join_all((0..12).map(|_| send(client().get(&hint)))),
        send(client_from("127.0.0.2").get(&hint))
    );
    let busy = answers
        .iter()
        .filter(|(status, body)| *status == 503 && error_code(body) == "busy")
        .count();
    let served = answers.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(busy + served, 12, "{answers:?}");
    assert_eq!(served, 2, "two wait per client: {answers:?}");
    assert_eq!(status, 200, "another client's hint waits its turn: {other}");
    // The engine's move still comes.
    let mut live = Live::connect(&server, &id(&game), None).await;
    let state = live
        .state_where(|state| state["moves"].as_array().is_some_and(|m| !m.is_empty()))
        .await;
    assert_eq!(state["to_move"], "W");
}

/// Issue 48: the net trained by `othello zero` takes an engine seat on a board it has a
/// net for (the page offers it), answers the person's move with a legal one within the
/// seat's time, and a board without a net is refused when the game is asked for, with the
/// reason, rather than left with a seat that never moves.
#[tokio::test]
async fn a_zero_seat_plays_its_board_and_is_refused_where_it_has_no_net() {
    let (_dir, db) = database();
    let server = Server::start(&db);
    let page = client()
        .get(format!("{}/", server.url))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("<option value=\"zero\">zero (neural net)</option>"),
        "the seats' menus offer it"
    );
    let game = create(
        &server,
        json!({"rows": 6, "columns": 6, "white": "zero:50", "time_ms": 500}),
    )
    .await;
    let (game_id, black) = (id(&game), secret(&game, "black"));
    let mut live = Live::connect(&server, &game_id, Some(&black)).await;
    assert_eq!(play(&server, &game_id, &black, "c2").await.0, 200);
    let replied = live
        .state_where(|s| s["moves"].as_array().is_some_and(|m| m.len() == 2))
        .await;
    assert_eq!(replied["seats"]["white"]["player"], "zero:50");
    assert_eq!(replied["to_move"], "B", "{replied}");

    let (status, body) = send(
        client()
            .post(server.api("/games"))
            .json(&json!({"rows": 10, "columns": 10, "white": "zero"})),
    )
    .await;
    assert_eq!((status, error_code(&body)), (400, "bad_request"), "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("no net is shipped for 10x10 FULL most"),
        "{message}"
    );
    // The shipped nets, as the page shows them beside the seat: the 6x6 one with its
    // record's figures and its curve.
    let (status, nets) = get(&server, "/zero/nets").await;
    assert_eq!(status, 200, "{nets}");
    let six = nets["nets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|net| net["game"] == "6x6 FULL most")
        .unwrap_or_else(|| panic!("the 6x6 net in {nets}"));
    let record = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/zero-6x6.iterations.csv"),
    )
    .unwrap();
    assert_eq!(
        six["iterations"].as_u64().unwrap() as usize,
        record.lines().count() - 1,
        "{six}"
    );
    assert_eq!(
        (six["rows"].as_u64(), six["win"].as_str()),
        (Some(6), Some("most"))
    );
    // Its scores against the levels: the record's rows of the last iteration measured.
    let levels = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/zero-6x6.levels.csv"),
    )
    .unwrap();
    let last = levels.lines().last().unwrap().split(',').next().unwrap();
    let expected: Vec<(u64, f64)> = levels
        .lines()
        .skip(1)
        .map(|line| line.split(',').collect::<Vec<_>>())
        .filter(|row| row[0] == last)
        .map(|row| (row[3].parse().unwrap(), row[9].parse().unwrap()))
        .collect();
    let shown: Vec<(u64, f64)> = six["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["level"].as_u64().unwrap(),
                row["score"].as_f64().unwrap(),
            )
        })
        .collect();
    assert!(!shown.is_empty(), "{six}");
    assert_eq!(shown, expected, "{six}");
    let curve = client()
        .get(format!("{}{}", server.url, six["curve"].as_str().unwrap()))
        .send()
        .await
        .unwrap();
    assert_eq!(curve.status(), 200);
    assert_eq!(curve.headers()["content-type"], "image/svg+xml");
    let svg = curve.text().await.unwrap();
    assert!(
        svg.contains("<svg") && svg.contains("6x6 FULL most"),
        "{svg:.200}"
    );
    let (status, body) = get(&server, "/zero/nets/10x10-full-most/curve").await;
    assert_eq!((status, error_code(&body)), (404, "no_route"), "{body}");
    // A visitor cannot make the server read a file as a net.
    let (status, body) = send(
        client()
            .post(server.api("/games"))
            .json(&json!({"rows": 6, "columns": 6, "white": "zero:/etc/passwd"})),
    )
    .await;
    assert_eq!((status, error_code(&body)), (400, "bad_request"), "{body}");
}

/// Issue 21.4: seats whose specs ask for more than their time (minimax:60, a million
/// playouts) stop at their time per move, so two of them cannot hold both engine threads
/// and everyone else's engine work still gets done.
async fn regression_21_4_no_engine_seat_outlives_its_time(db: TestDb) {
    let server = Server::start_with(&db, &["--engines", "2"]);
    let mut games = Vec::new();
    for (spec, rows) in [("minimax:60", 8), ("mcts:1000000", 16), ("minimax:60", 16)] {
        let game = create(
            &server,
            json!({"black": spec, "time_ms": 300, "rows": rows, "columns": rows}),
        )
        .await;
        games.push(id(&game));
    }
    // Each engine's first move comes (it would take hours at full depth).
    for game in &games {
        let mut live = Live::connect(&server, game, None).await;
        let state = live
            .state_where(|state| state["moves"].as_array().is_some_and(|m| !m.is_empty()))
            .await;
        assert_eq!(state["to_move"], "W", "{game}");
    }
    // And a person's hint is answered meanwhile.
    let other = create(&server, json!({"white": "engine:1"})).await;
    let (status, hint) = get(&server, &format!("/games/{}/hint?time_ms=50", id(&other))).await;
    assert_eq!(status, 200, "{hint}");
    // mcts above its maximum is refused.
    let (status, body) = send(
        client()
            .post(server.api("/games"))
            .json(&json!({"black": "mcts:100000000"})),
    )
    .await;
    assert_eq!(status, 400, "{body}");
}

/// `othello serve` started on `db` with `args` (`serve --addr 127.0.0.1:0 --db DB` by
/// default), for a start that is refused: its output once it has exited.
fn serve_once(db: &std::path::Path, command: &[&str]) -> std::process::Output {
    let command = if command.is_empty() {
        &["serve", "--addr", "127.0.0.1:0", "--db"][..]
    } else {
        command
    };
    std::process::Command::new(assert_cmd::cargo::cargo_bin!("othello"))
        .args(command)
        .arg(db)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// Issue 21.5: a second server on the same database is refused, naming the first, also
/// through a symbolic or a hard link to its file (issue 44.4); once the first is gone (even
/// killed), the database opens again.
#[tokio::test]
async fn regression_21_5_a_database_serves_one_server_at_a_time() {
    let (dir, db) = database();
    let first = Server::start(&db);
    let symlink = dir.path().join("link.db");
    std::os::unix::fs::symlink(&db, &symlink).unwrap();
    let hard = dir.path().join("hard.db");
    std::fs::hard_link(&db, &hard).unwrap();
    for other in [&db, &symlink, &hard] {
        let output = serve_once(other, &[]);
        assert_eq!(output.status.code(), Some(1), "{other:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!(
                "is in use by another othello serve (process {}): stop that server, or give another --db",
                first.child.id()
            )),
            "{other:?}: {stderr}"
        );
        assert!(output.stdout.is_empty(), "it never served");
    }
    first.kill();
    let again = Server::start(&db);
    let (status, _) = send(client().get(format!("{}/healthz", again.url))).await;
    assert_eq!(status, 200);
}

/// Reads from `stream` until the server closes it (or the guard runs out): true if closed.
async fn closed_by_server(stream: &mut tokio::net::TcpStream) -> bool {
    use tokio::io::AsyncReadExt;
    let mut buffer = [0u8; 4096];
    let read = async {
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), read)
        .await
        .is_ok()
}

/// Issue 21.6: idle, half-header and half-body connections are closed after the client
/// timeout; beyond the cap a connection gets a 503 that says why; a live channel that
/// stops answering pings is dropped.
#[tokio::test]
async fn regression_21_6_no_connection_outstays_its_welcome() {
    use tokio::{io::AsyncWriteExt, net::TcpStream};
    let (_dir, db) = database();
    let server = Server::start_with(&db, &["--client-timeout", "1"]);
    let address = server.url.trim_start_matches("http://").to_owned();
    // Silent from the start.
    let mut idle = TcpStream::connect(&address).await.unwrap();
    assert!(
        closed_by_server(&mut idle).await,
        "an idle connection stays open"
    );
    // Half a header.
    let mut half = TcpStream::connect(&address).await.unwrap();
    half.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    assert!(
        closed_by_server(&mut half).await,
        "a half header stays open"
    );
    // Half a body: 408, then closed.
    let mut body = TcpStream::connect(&address).await.unwrap();
    body.write_all(
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"rows\":",
    )
    .await
    .unwrap();
    let mut answer = Vec::new();
    let read = async {
        use tokio::io::AsyncReadExt;
        let _ = body.read_to_end(&mut answer).await;
    };
    tokio::time::timeout(Duration::from_secs(20), read)
        .await
        .unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"code\":\"body_timeout\""), "{answer}");
    // A kept-alive connection idle after a request is closed too.
    let mut kept = TcpStream::connect(&address).await.unwrap();
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    assert!(closed_by_server(&mut kept).await);

    // A live channel whose peer stops answering pings is dropped: its seat shows as gone.
    let game = create(&server, json!({})).await;
    let black = secret(&game, "black");
    let mut silent = Live::connect(&server, &id(&game), Some(&black)).await;
    let state = silent.next().await;
    assert_eq!(state["state"]["seats"]["black"]["connected"], true);
    // Not reading: no pong goes back.
    let mut watcher = Live::connect(&server, &id(&game), None).await;
    watcher
        .state_where(|state| state["seats"]["black"]["connected"] == false)
        .await;
    drop(silent);

    // The cap: five open connections, the sixth is refused with a reason.
    let capped = Server::start_with(
        db.with_file_name("capped.db"),
        &["--client-timeout", "30", "--max-connections", "5"],
    );
    let address = capped.url.trim_start_matches("http://").to_owned();
    let mut open = Vec::new();
    for _ in 0..5 {
        open.push(TcpStream::connect(&address).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let response = client()
        .get(format!("{}/healthz", capped.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 503);
    assert_eq!(response.headers()["retry-after"], "5");
    let body: Value = response.json().await.unwrap();
    assert_eq!(error_code(&body), "too_many_connections");
    drop(open);
    // Once they are gone, it serves again.
    let mut served = false;
    for _ in 0..100 {
        if let Ok(response) = client().get(format!("{}/healthz", capped.url)).send().await
            && response.status() == 200
        {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(served);
}

/// Issue 21.12, the server's part: an engine that was thinking resumes after a restart
/// without a live channel; an undo request while the other's waits is refused; errors do
/// not name command-line flags; 503s say when to retry; GGF names the result.
#[tokio::test]
async fn regression_21_12_small_server_defects() {
    let (_dir, db) = database();
    let server = Server::start(&db);
    // White is the engine, with a long think; Black's move sets it thinking.
    let game = create(&server, json!({"white": "engine:10", "time_ms": 3000})).await;
    let game_id = id(&game);
    let (status, _) = play(&server, &game_id, &secret(&game, "black"), "d3").await;
    assert_eq!(status, 200);
    server.kill();
    let server = Server::start(&db);
    // Only the API is asked: the reply comes all the same (the restart resumed it).
    let mut replied = false;
    for _ in 0..150 {
        let (_, state) = get(&server, &format!("/games/{game_id}")).await;
        if state["ply"] == 2 {
            replied = true;
            break;
        }
        assert_eq!(state["thinking"], true, "{state}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(replied, "the engine never replied after the restart");

    // Two people: Black asks to undo; White asking too does not take two moves back.
    let people = create(&server, json!({})).await;
    let (people_id, black, white) = (
        id(&people),
        secret(&people, "black"),
        secret(&people, "white"),
    );
    play(&server, &people_id, &black, "d3").await;
    play(&server, &people_id, &white, "c5").await;
    let undo = |secret: String, action: &'static str| {
        let url = server.api(&format!("/games/{people_id}/undo"));
        async move {
            send(
                client()
                    .post(url)
                    .bearer_auth(secret)
                    .json(&json!({ "action": action })),
            )
            .await
        }
    };
    assert_eq!(undo(black.clone(), "request").await.0, 200);
    let (status, body) = undo(white.clone(), "request").await;
    assert_eq!(
        (status, error_code(&body)),
        (409, "undo_request_pending"),
        "{body}"
    );
    let (_, state) = get(&server, &format!("/games/{people_id}")).await;
    assert_eq!(state["ply"], 2, "nothing taken back");
    // Withdrawn by the one who asked.
    let (status, state) = undo(black.clone(), "cancel").await;
    assert_eq!((status, &state["undo_request"]), (200, &Value::Null));

    // A pasted game that contradicts the rules asked for: no command-line flags named.
    let (status, body) = send(client().post(server.api("/games")).json(&json!({
        "rules": "simple",
        "position": "rules: full\nmoves: d3\n",
    })))
    .await;
    assert_eq!(status, 422, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(!message.contains("--"), "{message}");
    assert!(message.contains("simple was asked for"), "{message}");

    // GGF of a resigned game names the result.
    let (status, _) = send(
        client()
            .post(server.api(&format!("/games/{people_id}/resign")))
            .bearer_auth(&white),
    )
    .await;
    assert_eq!(status, 200);
    let ggf = client()
        .get(server.api(&format!("/games/{people_id}/export?format=ggf")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(ggf.trim_end().ends_with("RE[+64:r];)"), "{ggf}");

    // The page's icon.
    let icon = client()
        .get(format!("{}/favicon.ico", server.url))
        .send()
        .await
        .unwrap();
    assert_eq!(icon.status(), 200);
    assert_eq!(icon.headers()["content-type"], "image/svg+xml");
}

/// Issue 21.12: a 503 says when to try again.
#[tokio::test]
async fn regression_21_12_busy_says_when_to_retry() {
    let (_dir, db) = database();
    let server = Server::start_with(&db, &["--engines", "1"]);
    let game = create(
        &server,
        json!({"black": "engine:10", "time_ms": 3000, "rows": 10, "columns": 10}),
    )
    .await;
    let hint = server.api(&format!("/games/{}/hint?time_ms=20", id(&game)));
    let answers = futures_util::future::join_all((0..12).map(|_| client().get(&hint).send())).await;
    let busy: Vec<_> = answers
        .into_iter()
        .map(Result::unwrap)
        .filter(|response| response.status() == 503)
        .collect();
    assert!(!busy.is_empty());
    assert!(
        busy.iter()
            .all(|response| response.headers()["retry-after"] == "2")
    );
}

/// Issue 21.12: healthz says when the database cannot be written (here its files may not
/// grow, as on a full disk), and a damaged database is refused at the start.
#[tokio::test]
async fn regression_21_12_health_tells_a_failing_database() {
    use std::os::unix::process::CommandExt;
    let (_dir, db) = database();
    // Many games from one address, as fast as they go.
    let mut command = Server::command(&db, &["--games-per-minute", "0"]);
    // SAFETY: async-signal-safe calls between fork and exec, on the child's own limits.
    unsafe {
        command.pre_exec(|| {
            // Writes past 1 MiB (room for the schema's migrations and the shipped puzzles,
            // not for many games) fail (EFBIG) instead of killing the process.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: 1024 * 1024,
                rlim_max: 1024 * 1024,
            };
            libc::setrlimit(libc::RLIMIT_FSIZE, &limit);
            Ok(())
        });
    }
    let server = Server::start_command(command);
    let (status, health) = send(client().get(format!("{}/healthz", server.url))).await;
    assert_eq!((status, &health["status"]), (200, &json!("ok")), "{health}");
    // Games until a commit fails for want of room.
    let mut failed = None;
    for _ in 0..200 {
        let (status, body) = send(client().post(server.api("/games")).json(&json!({}))).await;
        if status != 201 {
            failed = Some((status, body));
            break;
        }
    }
    let (status, body) = failed.expect("the file limit is reached");
    assert_eq!((status, error_code(&body)), (500, "storage"), "{body}");
    let (status, health) = send(client().get(format!("{}/healthz", server.url))).await;
    assert_eq!(
        (status, &health["status"]),
        (503, &json!("failing")),
        "{health}"
    );
    assert!(
        health["error"]
            .as_str()
            .unwrap()
            .starts_with("the latest commit failed"),
        "{health}"
    );
    server.kill();

    // Damage pages in the middle of the file: the server will not start on it.
    let (_dir, db) = database();
    let server = Server::start_with(&db, &["--games-per-minute", "0"]);
    for _ in 0..40 {
        create(&server, json!({"position": "f5d6c3d3c4f4f6f3e6e7"})).await;
    }
    assert!(server.terminate().success());
    let mut bytes = std::fs::read(&db).unwrap();
    assert!(bytes.len() > 3 * 4096, "{}", bytes.len());
    for byte in &mut bytes[2 * 4096..3 * 4096] {
        *byte = 0xA5;
    }
    std::fs::write(&db, bytes).unwrap();
    let mut child = Server::command(&db, &[])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut exited = None;
    for _ in 0..200 {
        exited = child.try_wait().unwrap();
        if exited.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    if exited.is_none() {
        let _ = child.kill();
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(1), "it served on a damaged file");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("the database is damaged"), "{stderr}");
}

/// Issue 21.11: between two people, hints and the graph are off for the seats unless the
/// game was created with help, never for spectators while it is played, and hints never
/// on the opponent's turn; once over, the graph is everyone's. Games with an engine help
/// everyone, as before.
async fn regression_21_11_help_between_people_is_opt_in_and_never_for_the_opponent(db: TestDb) {
    let server = Server::start(&db);
    let ask = |game: &str, what: &str, secret: Option<&str>| {
        let mut request = client().get(server.api(&format!("/games/{game}/{what}")));
        if let Some(secret) = secret {
            request = request.bearer_auth(secret);
        }
        send(request)
    };
    // Without help: nobody gets any while it is played.
    let plain = create(&server, json!({})).await;
    let (plain_id, black) = (id(&plain), secret(&plain, "black"));
    assert_eq!(
        plain["state"]["help"],
        json!({"hints": false, "evaluation": false})
    );
    assert_eq!(plain["state"]["help_on"], false);
    for secret in [None, Some(black.as_str())] {
        for what in ["hint", "evaluations"] {
            let (status, body) = ask(&plain_id, what, secret).await;
            assert_eq!(
                (status, error_code(&body)),
                (403, "no_help"),
                "{what}: {body}"
            );
        }
    }
    // With help: the side to move gets hints, both seats the graph, spectators nothing.
    let helped = create(&server, json!({"help": true})).await;
    let (helped_id, black, white) = (
        id(&helped),
        secret(&helped, "black"),
        secret(&helped, "white"),
    );
    assert_eq!(ask(&helped_id, "hint", Some(&black)).await.0, 200);
    let (status, body) = ask(&helped_id, "hint", Some(&white)).await;
    assert_eq!(
        (status, body["error"]["message"].as_str()),
        (403, Some("hints are for the side to move"))
    );
    assert_eq!(ask(&helped_id, "evaluations", Some(&white)).await.0, 200);
    assert_eq!(ask(&helped_id, "hint", None).await.0, 403);
    assert_eq!(ask(&helped_id, "evaluations", None).await.0, 403);
    let (_, mine) = send(
        client()
            .get(server.api(&format!("/games/{helped_id}")))
            .bearer_auth(&white),
    )
    .await;
    assert_eq!(mine["help"], json!({"hints": false, "evaluation": true}));
    // Over: the graph is everyone's.
    send(
        client()
            .post(server.api(&format!("/games/{helped_id}/resign")))
            .bearer_auth(&white),
    )
    .await;
    assert_eq!(ask(&helped_id, "evaluations", None).await.0, 200);
    // Against the engine: as before, everyone.
    let engine = create(&server, json!({"white": "engine:1"})).await;
    assert_eq!(ask(&id(&engine), "hint", None).await.0, 200);
    assert_eq!(ask(&id(&engine), "evaluations", None).await.0, 200);
}

/// Issue 22.15: on all interfaces the address printed is one to open, and the line after
/// says it serves every interface (with this machine's addresses where it has some).
#[tokio::test]
async fn regression_22_15_all_interfaces_print_an_address_to_open() {
    use std::io::{BufRead, BufReader};
    let (_dir, db) = database();
    let mut child = Server::command_at(&db, "0.0.0.0:0", &[]).spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let second = lines.next().unwrap().unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        first.starts_with("othello serve: http://127.0.0.1:"),
        "{first}"
    );
    assert!(
        second.starts_with("listening on all interfaces (0.0.0.0:"),
        "{second}"
    );
    assert!(!first.contains("0.0.0.0"), "{first}");
}

on_both_databases!(
    creating_and_reading_a_game,
    a_move_is_refused_by_the_rule_it_breaks_and_changes_nothing,
    a_body_that_is_not_the_json_asked_for_is_refused,
    a_game_is_created_only_from_settings_that_make_sense,
    unknown_paths_methods_and_parameters_are_refused,
    two_people_play_a_whole_game_with_moves_crossing_live,
    between_people_undo_needs_the_other_seat,
    against_the_engine_it_replies_by_itself_and_undo_goes_back_to_the_person,
    engines_play_each_other_while_watched_and_can_be_paused_and_stepped,
    a_step_or_a_new_pace_cuts_the_pause_short,
    a_server_killed_mid_game_keeps_every_acknowledged_move,
    random_and_malformed_requests_get_4xx_and_never_break_the_server,
    an_undo_stops_the_engine_search_it_makes_useless,
    regression_21_4_no_engine_seat_outlives_its_time,
    regression_21_11_help_between_people_is_opt_in_and_never_for_the_opponent,
);
