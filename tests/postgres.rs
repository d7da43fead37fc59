//! The throwaway PostgreSQL the server's PostgreSQL tests run on (tests/common/postgres.rs):
//! made, started, queried, stopped and started again with its data kept, removed at the end.

#[path = "common/postgres.rs"]
mod postgres;

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
