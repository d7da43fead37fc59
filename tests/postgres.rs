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
            .query_in(&url, "SELECT count(*) FROM othello_schema")
            .trim(),
        "1",
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
