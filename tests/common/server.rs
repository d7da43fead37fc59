#![allow(dead_code)]
//! A real `othello serve` on a free loopback port, for the API, browser and load tests.

use std::{
    ffi::OsStr,
    io::{BufRead, BufReader},
    process::{Child, Command, Stdio},
    sync::mpsc,
    time::Duration,
};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

/// A running server; stopped (SIGKILL) when dropped.
pub struct Server {
    /// The process.
    pub child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
}

impl Server {
    /// Starts `othello serve --addr 127.0.0.1:0 --db DB` and waits for its address.
    pub fn start(db: impl AsRef<OsStr>) -> Server {
        Server::start_with(db, &[])
    }

    /// [`Server::start`] with more arguments.
    pub fn start_with(db: impl AsRef<OsStr>, extra: &[&str]) -> Server {
        Server::start_command(Server::command(db, extra))
    }

    /// The command that [`Server::start_with`] runs, to adjust before starting it.
    pub fn command(db: impl AsRef<OsStr>, extra: &[&str]) -> Command {
        Server::command_at(db, "127.0.0.1:0", extra)
    }

    /// [`Server::command`] on `addr` (to start again where a server was).
    pub fn command_at(db: impl AsRef<OsStr>, addr: &str, extra: &[&str]) -> Command {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin!("othello"));
        command
            .args(["serve", "--addr", addr, "--db"])
            .arg(db)
            .args(extra)
            .env_remove("DATABASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        command
    }

    /// Starts `command` (from [`Server::command`]) and waits for its address.
    pub fn start_command(mut command: Command) -> Server {
        let mut child = command.spawn().expect("the binary starts");
        let stdout = child.stdout.take().expect("piped");
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            if let Some(Ok(first)) = lines.next() {
                let _ = sender.send(first);
            }
            // Keep reading so the server never blocks on a full pipe.
            for _ in lines {}
        });
        let first = receiver
            .recv_timeout(Duration::from_secs(30))
            .expect("the server prints its address");
        let url = first
            .strip_prefix("othello serve: ")
            .expect("the first line names the address")
            .trim_end_matches('/')
            .to_owned();
        Server { child, url }
    }

    /// `http://127.0.0.1:PORT/api/...`.
    pub fn api(&self, path: &str) -> String {
        format!("{}/api{path}", self.url)
    }

    /// `ws://127.0.0.1:PORT/api/games/{id}/events`.
    pub fn events(&self, id: &str) -> String {
        format!(
            "{}/api/games/{id}/events",
            self.url.replacen("http://", "ws://", 1)
        )
    }

    /// Sends SIGTERM and waits for the exit status.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        // SAFETY: signalling our own child, not yet reaped.
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let status = self.child.wait().expect("it exits");
        std::mem::forget(self);
        status
    }

    /// Kills it at once (SIGKILL), as a crash would.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::mem::forget(self);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP client.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .expect("a client")
}

/// An HTTP client whose connections come from `ip` (any of 127.0.0.0/8 on Linux's
/// loopback): another visitor, as the server counts them.
pub fn client_from(ip: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .local_address(ip.parse::<std::net::IpAddr>().expect("an address"))
        .build()
        .expect("a client")
}

/// The session cookie a response sets, as a `Cookie` header value, and the whole header.
pub fn session_cookie(response: &reqwest::Response) -> (String, String) {
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

/// Registers `name`: its cookie and CSRF token.
pub async fn member(server: &Server, name: &str) -> (String, String) {
    member_with(&client(), server, name).await
}

/// Registers `name` through `http` (from another address, say): its cookie and CSRF token.
pub async fn member_with(http: &reqwest::Client, server: &Server, name: &str) -> (String, String) {
    let response = http
        .post(server.api("/accounts"))
        .json(&json!({"name": name, "password": "a good password"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 201);
    let cookie = session_cookie(&response).0;
    let body: Value = response.json().await.unwrap();
    (cookie, body["csrf"].as_str().unwrap().to_owned())
}

/// A request's status and JSON body (`Value::Null` for a body that is not JSON).
pub async fn send(request: reqwest::RequestBuilder) -> (u16, Value) {
    let response = request.send().await.expect("the server answers");
    let status = response.status().as_u16();
    let text = response.text().await.expect("a body");
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// A seat's secret in a created game's answer (`black` or `white`).
pub fn secret(game: &Value, seat: &str) -> String {
    game["seats"][seat]["secret"].as_str().unwrap().to_owned()
}

/// A game's id in a created game's answer.
pub fn id(game: &Value) -> String {
    game["id"].as_str().unwrap().to_owned()
}

/// An error answer's code.
pub fn error_code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("(no error code)")
}

/// Plays `square` in `game` with a seat's `secret`: the status and the answer.
pub async fn play(server: &Server, game: &str, secret: &str, square: &str) -> (u16, Value) {
    send(
        client()
            .post(server.api(&format!("/games/{game}/moves")))
            .bearer_auth(secret)
            .json(&json!({ "square": square })),
    )
    .await
}

/// Creates a game from `request`; returns the answer.
pub async fn create(server: &Server, request: Value) -> Value {
    let (status, body) = send(client().post(server.api("/games")).json(&request)).await;
    assert_eq!(status, 201, "{body}");
    body
}

/// A live channel.
pub struct Live {
    socket: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
    /// Every text message received, as it came.
    pub raw: Vec<String>,
    /// How long a message may take before the channel is taken as hung.
    patience: Duration,
}

impl Live {
    /// The channel, waiting up to `patience` for each message (a load generator short of
    /// CPU waits longer than a test).
    pub fn patient(self, patience: Duration) -> Live {
        Live { patience, ..self }
    }

    /// Connects to game `id`'s live channel with `secret` (or as a spectator).
    pub async fn connect(server: &Server, id: &str, secret: Option<&str>) -> Live {
        let (mut socket, _) = tokio_tungstenite::connect_async(server.events(id))
            .await
            .expect("the live channel opens");
        let hello = json!({"type": "hello", "secret": secret}).to_string();
        socket
            .send(Message::text(hello))
            .await
            .expect("hello is sent");
        Live {
            socket,
            raw: Vec::new(),
            patience: Duration::from_secs(30),
        }
    }

    /// The next message (within a generous limit: a guard against hangs, not a timing).
    pub async fn next(&mut self) -> Value {
        loop {
            let message = tokio::time::timeout(self.patience, self.socket.next())
                .await
                .expect("a message in time")
                .expect("the channel is open")
                .expect("a message");
            if let Message::Text(text) = message {
                self.raw.push(text.to_string());
                return serde_json::from_str(&text).expect("JSON");
            }
        }
    }

    /// The next state that satisfies `wanted`.
    pub async fn state_where(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            let message = self.next().await;
            if message["type"] == "state" && wanted(&message["state"]) {
                return message["state"].clone();
            }
        }
    }
}

/// Registers `name` and returns an API token for it.
pub async fn token(server: &Server, name: &str) -> String {
    token_with(&client(), server, name).await
}

/// Registers `name` through `http` (from an address of its own: registrations are limited
/// per address) and returns an API token for it.
pub async fn token_with(http: &reqwest::Client, server: &Server, name: &str) -> String {
    let credentials = json!({"name": name, "password": "a good password"});
    let (status, body) = send(http.post(server.api("/accounts")).json(&credentials)).await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = send(http.post(server.api("/tokens")).json(&credentials)).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["name"], name);
    let token = body["token"].as_str().expect("a token").to_owned();
    assert!(token.starts_with("oat_"), "{token}");
    token
}

/// Registers `name` from `ip`, makes it a bot account, and returns its API token.
pub async fn bot_token(server: &Server, ip: &str, name: &str) -> String {
    let token = token_with(&client_from(ip), server, name).await;
    let (status, body) = send(
        client()
            .post(server.api("/bot/account/upgrade"))
            .bearer_auth(&token)
            .json(&json!({})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    token
}

/// A newline-delimited JSON stream, read line by line.
pub struct Stream {
    response: reqwest::Response,
    buffer: Vec<u8>,
}

impl Stream {
    pub async fn open(server: &Server, path: &str, token: &str) -> Stream {
        let response = reqwest::Client::new()
            .get(server.api(path))
            .bearer_auth(token)
            .send()
            .await
            .expect("the server answers");
        assert_eq!(response.status().as_u16(), 200, "GET {path}");
        assert_eq!(
            response.headers()["content-type"],
            "application/x-ndjson",
            "GET {path}"
        );
        Stream {
            response,
            buffer: Vec::new(),
        }
    }

    /// The next line with something in it (keep-alive lines skipped); `None` at the
    /// stream's end. Fails the test after 20 s of nothing.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=end).collect();
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                return Some(serde_json::from_slice(&line).expect("a JSON line"));
            }
            let chunk = tokio::time::timeout(Duration::from_secs(20), self.response.chunk())
                .await
                .expect("a line within 20 s")
                .expect("the stream reads");
            match chunk {
                Some(bytes) => self.buffer.extend_from_slice(&bytes),
                None => return None,
            }
        }
    }

    /// The next line of type `kind`, skipping others; fails the test after 30 s without
    /// one.
    pub async fn next_of(&mut self, kind: &str) -> Value {
        let wait = async {
            loop {
                let line = self.next().await.expect("the stream goes on");
                if line["type"] == kind {
                    return line;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(30), wait)
            .await
            .unwrap_or_else(|_| panic!("no {kind} line within 30 s"))
    }
}
