//! The handlers in process, through the router (no sockets): each rule's refusal reaches
//! the client as its status and code. `tests/server.rs` drives a real server over TCP.

use std::{sync::Arc, time::Duration};

use axum::body::Body as HttpBody;
use serde_json::{Value, json};
use tower::ServiceExt;

use super::*;
use crate::server::{
    accounts::Accounts, engine_pool::EnginePool, live::Hub, lobby::Lobby, store::Store,
};

struct Fixture {
    router: Router,
    _dir: tempfile::TempDir,
}

impl Fixture {
    async fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let (store, _writer) = Store::sqlite(&dir.path().join("games.db")).unwrap();
        let (_stop, stopping) = tokio::sync::watch::channel(false);
        let hub = Arc::new(Hub::new(store.clone(), EnginePool::new(1)));
        let app = App {
            accounts: Arc::new(Accounts::new(store.clone(), Duration::from_secs(60))),
            lobby: Arc::new(Lobby::open(store).await.unwrap()),
            lobby_lists: Arc::default(),
            tournaments: crate::server::director::Director::new(Arc::clone(&hub)),
            hub,
            origin: "http://127.0.0.1:1".into(),
            stopping,
            client_timeout: Duration::from_secs(5),
            trusted_proxies: Arc::from([]),
            admission: Arc::new(Admission::new(30)),
            bots: Default::default(),
            explorers: Default::default(),
        };
        Fixture {
            router: router(app),
            _dir: dir,
        }
    }

    /// Sends a request; answers the status and the JSON body.
    async fn send(
        &self,
        method: &str,
        path: &str,
        secret: Option<&str>,
        body: Value,
    ) -> (StatusCode, Value) {
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header(header::CONTENT_TYPE, "application/json");
        if let Some(secret) = secret {
            request = request.header(header::AUTHORIZATION, format!("Bearer {secret}"));
        }
        let request = request.body(HttpBody::from(body.to_string())).unwrap();
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    /// `POST path` with `body` as the holder of `secret`: the status and the error code.
    async fn refusal(&self, path: &str, secret: Option<&str>, body: Value) -> (StatusCode, String) {
        let (status, body) = self.send("POST", path, secret, body).await;
        (status, code(&body).to_owned())
    }

    /// Each request (`POST path` with `body` as the holder of the secret) refused with its
    /// status and code.
    async fn all_refused(
        &self,
        requests: impl IntoIterator<Item = (&String, Option<&String>, Value, (StatusCode, String))>,
    ) {
        for (path, secret, body, expected) in requests {
            let secret = secret.map(String::as_str);
            assert_eq!(self.refusal(path, secret, body).await, expected, "{path}");
        }
    }

    /// A game between two people: its id and the seats' secrets.
    async fn people(&self) -> (String, String, String) {
        let (status, game) = self.send("POST", "/api/games", None, json!({})).await;
        assert_eq!(status, StatusCode::CREATED, "{game}");
        let secret = |seat: &str| game["seats"][seat]["secret"].as_str().unwrap().to_owned();
        let id = game["id"].as_str().unwrap().to_owned();
        (id, secret("black"), secret("white"))
    }
}

fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn each_rule_refusal_has_its_status_and_code() {
    let fixture = Fixture::new().await;
    let (id, black, white) = fixture.people().await;
    let moves = format!("/api/games/{id}/moves");
    let undo = format!("/api/games/{id}/undo");

    let (status, body) = fixture
        .send("POST", &moves, Some(&black), json!({"square": "a1"}))
        .await;
    assert_eq!(
        (status, code(&body)),
        (StatusCode::UNPROCESSABLE_ENTITY, "illegal_move")
    );
    assert_eq!(body["error"]["legal"], json!(["d3", "c4", "f5", "e6"]));
    let (redo, control) = (
        format!("/api/games/{id}/redo"),
        format!("/api/games/{id}/control"),
    );
    // Refused at the start, then after a move and its undo request.
    let refused =
        |path, secret, body, status, code: &str| (path, secret, body, (status, code.to_owned()));
    let at_start = [
        refused(
            &moves,
            None,
            json!({"square": "d3"}),
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        ),
        refused(
            &moves,
            Some(&white),
            json!({"square": "d3"}),
            StatusCode::CONFLICT,
            "not_your_turn",
        ),
        refused(
            &undo,
            Some(&black),
            json!({}),
            StatusCode::CONFLICT,
            "nothing_to_undo",
        ),
        refused(
            &undo,
            Some(&white),
            json!({"action": "accept"}),
            StatusCode::CONFLICT,
            "no_undo_request",
        ),
    ];
    let after_a_request = [
        refused(
            &undo,
            Some(&white),
            json!({}),
            StatusCode::CONFLICT,
            "undo_request_pending",
        ),
        refused(
            &redo,
            Some(&black),
            json!({}),
            StatusCode::CONFLICT,
            "redo_needs_engine",
        ),
        refused(
            &control,
            Some(&black),
            json!({"paused": true}),
            StatusCode::CONFLICT,
            "not_engine_game",
        ),
    ];
    fixture.all_refused(at_start).await;
    let (status, body) = fixture
        .send("POST", &moves, Some(&black), json!({"square": "d3"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["moves"].as_array().map(Vec::len), Some(1), "{body}");
    let (status, _) = fixture.send("POST", &undo, Some(&black), json!({})).await;
    assert_eq!(status, StatusCode::OK);
    fixture.all_refused(after_a_request).await;

    let resign = format!("/api/games/{id}/resign");
    let (status, _) = fixture.send("POST", &resign, Some(&white), json!({})).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        fixture
            .refusal(&moves, Some(&black), json!({"square": "c3"}))
            .await,
        (StatusCode::CONFLICT, "game_over".to_owned())
    );
}

#[tokio::test]
async fn a_seat_is_known_by_its_secret_and_a_stranger_only_watches() {
    let fixture = Fixture::new().await;
    let (id, black, _white) = fixture.people().await;
    let path = format!("/api/games/{id}");
    let (status, seated) = fixture.send("GET", &path, Some(&black), Value::Null).await;
    assert_eq!(status, StatusCode::OK);
    let (status, watching) = fixture.send("GET", &path, None, Value::Null).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(seated["you"], json!("B"), "{seated}");
    assert_eq!(watching["you"], Value::Null, "{watching}");
    // Watching is open to all: a secret that opens no seat reads as a spectator's.
    let (status, stranger) = fixture
        .send("GET", &path, Some("not-a-secret"), Value::Null)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(stranger, watching);
    let moves = format!("/api/games/{id}/moves");
    let (status, body) = fixture
        .send(
            "POST",
            &moves,
            Some("not-a-secret"),
            json!({"square": "d3"}),
        )
        .await;
    assert_eq!((status, code(&body)), (StatusCode::FORBIDDEN, "forbidden"));
}
