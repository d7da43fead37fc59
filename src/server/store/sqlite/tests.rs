use super::*;
use othello::{
    Board, ByColor, Clock, Color, Shape, TimeControl, Variant, WinRule, engine::Occupant,
};

use crate::server::store::{Ended, GameMeta, GameStatus, Store, StoredSeat};

fn square(name: &str) -> othello::Square {
    name.parse().unwrap()
}

/// What loading game `id` says is damaged after `sql` damaged it.
fn damaged(db: &mut Sqlite, sql: &str, id: &str) -> String {
    db.connection.execute(sql, []).unwrap();
    match db.load(id) {
        Err(StoreError::Damaged(what)) => what,
        other => panic!("{sql}: {other:?}"),
    }
}

fn game(id: &str) -> StoredGame {
    StoredGame {
        id: id.to_owned(),
        rules: Variant::Full,
        board: Board::standard(Shape::STANDARD),
        first: Color::Black,
        win: WinRule::MostDiscs,
        seats: [
            StoredSeat {
                player: Occupant::Human,
                time_ms: 100,
                secret_hash: Some("ab".into()),
                name: Some("Ann".into()),
                user_id: Some(3),
            },
            StoredSeat {
                player: "engine:3".parse().unwrap(),
                time_ms: 250,
                secret_hash: None,
                name: None,
                user_id: None,
            },
        ],
        moves: vec![StoredMove {
            square: square("d3"),
            side: Color::Black,
            played_at: 5,
            think_ms: 1200,
            eval: None,
            exact: false,
        }],
        undone: Vec::new(),
        status: GameStatus::Playing,
        ending: None,
        clock: Some(Clock {
            control: TimeControl::new(60_000, 2_000),
            left_ms: ByColor::new(58_000, 60_000),
            since: 5,
        }),
        deadline: Some(58_005),
        rated: true,
        rematch_offer: None,
        rematch: None,
        undo_request: None,
        control_hash: None,
        paused: false,
        speed_ms: 0,
        created_at: 1,
        updated_at: 5,
        version: 7,
        help: false,
    }
}

#[test]
fn days_a_move_read_back_and_games_come_due_by_their_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Sqlite::open(&dir.path().join("games.db")).unwrap();
    let timed = game("g1");
    let mut daily = game("g2");
    daily.clock = Some(Clock::start(TimeControl::correspondence(3), 5));
    daily.deadline = Some(3 * 86_400_000 + 5);
    let mut untimed = game("g3");
    (untimed.clock, untimed.deadline) = (None, None);
    for game in [&timed, &daily, &untimed] {
        db.apply(&[Change::Create(Box::new(game.clone()))]).unwrap();
    }
    assert_eq!(
        db.load("g2").unwrap().unwrap(),
        daily,
        "per move, and its deadline"
    );
    assert!(db.due(58_004, 10).unwrap().is_empty());
    assert_eq!(db.due(58_005, 10).unwrap(), ["g1"]);
    assert_eq!(db.due(i64::MAX, 10).unwrap(), ["g1", "g2"], "soonest first");
    assert_eq!(db.due(i64::MAX, 1).unwrap(), ["g1"]);
    // Over: no longer due.
    db.apply(&[Change::Meta(GameMeta {
        game: "g1".into(),
        expected: 7,
        status: GameStatus::Over,
        ending: Some(Ended::Time(Color::Black)),
        clock: timed.clock,
        deadline: None,
        rematch_offer: None,
        rematch: None,
        undo_request: None,
        undone: Vec::new(),
        paused: false,
        speed_ms: 0,
        updated_at: 58_005,
        version: 8,
    })])
    .unwrap();
    assert_eq!(db.due(i64::MAX, 10).unwrap(), ["g2"]);
}

#[test]
fn games_survive_reopening_and_changes_apply_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.db");
    let mut db = Sqlite::open(&path).unwrap();
    let original = game("g1");
    db.apply(&[Change::Create(Box::new(original.clone()))])
        .unwrap();
    let second = StoredMove {
        square: square("c5"),
        side: Color::White,
        played_at: 9,
        think_ms: 250,
        eval: Some(-1.5),
        exact: false,
    };
    db.apply(&[
        Change::Move {
            game: "g1".into(),
            ply: 1,
            mv: second.clone(),
        },
        Change::Eval {
            game: "g1".into(),
            ply: 0,
            score: 0.5,
            exact: true,
        },
    ])
    .unwrap();
    drop(db);
    let mut db = Sqlite::open(&path).unwrap();
    let loaded = db.load("g1").unwrap().unwrap();
    assert_eq!(loaded.moves.len(), 2);
    assert_eq!(loaded.moves[1], second);
    assert_eq!(
        (loaded.moves[0].eval, loaded.moves[0].exact),
        (Some(0.5), true)
    );
    assert_eq!(loaded.seats, original.seats);
    assert_eq!(loaded.clock, original.clock);
    assert_eq!(db.playing(10, i64::MIN).unwrap(), ["g1"]);
    let changed = loaded.updated_at;
    assert_eq!(db.playing(10, changed).unwrap(), ["g1"]);
    assert!(
        db.playing(10, changed + 1).unwrap().is_empty(),
        "not changed since: not listed"
    );
    // A failing batch changes nothing: the moves cleared, then the same ply twice.
    let again = Change::Move {
        game: "g1".into(),
        ply: 1,
        mv: second,
    };
    assert!(
        db.apply(&[
            Change::Truncate {
                game: "g1".into(),
                keep: 0
            },
            again.clone(),
            again
        ])
        .is_err()
    );
    assert_eq!(db.load("g1").unwrap().unwrap().moves.len(), 2);
    db.apply(&[
        Change::Truncate {
            game: "g1".into(),
            keep: 1,
        },
        Change::Meta(GameMeta {
            game: "g1".into(),
            expected: 7,
            status: GameStatus::Over,
            ending: Some(Ended::Resigned(Color::White)),
            clock: Some(Clock {
                control: TimeControl::new(60_000, 2_000),
                left_ms: ByColor::new(58_000, 41_000),
                since: 10,
            }),
            deadline: None,
            rematch_offer: Some(Color::Black),
            rematch: None,
            undo_request: None,
            undone: vec![square("c5")],
            paused: true,
            speed_ms: 300,
            updated_at: 10,
            version: 12,
        }),
    ])
    .unwrap();
    let loaded = db.load("g1").unwrap().unwrap();
    assert_eq!(loaded.version, 12, "versions are kept");
    assert_eq!(loaded.moves.len(), 1);
    assert_eq!(loaded.undone, [square("c5")]);
    assert_eq!((loaded.status, loaded.paused), (GameStatus::Over, true));
    assert_eq!(loaded.ending, Some(Ended::Resigned(Color::White)));
    assert_eq!(loaded.rematch_offer, Some(Color::Black));
    assert_eq!(
        loaded.clock.map(|clock| clock.left_ms),
        Some(ByColor::new(58_000, 41_000))
    );
    assert!(loaded.rated);
    assert!(db.playing(10, i64::MIN).unwrap().is_empty());
    assert_eq!(db.load("nope").unwrap(), None);
    // A word its column does not read back as: a damaged database, said by column.
    let what = damaged(
        &mut db,
        "UPDATE games SET win = 'less' WHERE id = 'g1'",
        "g1",
    );
    assert_eq!(what, "win holds \"less\"");
}

/// Issue 45's red team: a damaged challenge is left out (the lobby and the server still
/// start), and a number's column holding text, or a count below zero, is a damaged game.
#[test]
fn damaged_rows_are_said_so_and_a_damaged_challenge_is_left_out() {
    use crate::server::store::{ColorChoice, StoredSeek};
    let dir = tempfile::tempdir().unwrap();
    let mut db = Sqlite::open(&dir.path().join("games.db")).unwrap();
    let seek = |id: &str| StoredSeek {
        id: id.to_owned(),
        poster_name: "ann".into(),
        poster_user: None,
        poster_secret: Some("ab".into()),
        rules: Variant::Full,
        shape: Shape::STANDARD,
        first: Color::Black,
        win: WinRule::MostDiscs,
        color: ColorChoice::Random,
        clock: Some(TimeControl::new(60_000, 0)),
        rated: false,
        help: false,
        to_name: None,
        private: false,
        created_at: 1,
    };
    db.apply(&[
        Change::NewSeek(seek("s1")),
        Change::NewSeek(seek("s2")),
        Change::Create(Box::new(game("g1"))),
        Change::Create(Box::new(game("g2"))),
    ])
    .unwrap();
    db.connection
        .execute("UPDATE seeks SET color = 'purple' WHERE id = 's1'", [])
        .unwrap();
    assert_eq!(db.seeks().unwrap(), [seek("s2")]);
    db.connection
        .execute(
            "UPDATE games SET black_time_ms = 'soon' WHERE id = 'g1'",
            [],
        )
        .unwrap();
    let Err(StoreError::Damaged(what)) = db.load("g1") else {
        panic!("text in a number's column")
    };
    assert!(what.starts_with("black_time_ms does not read"), "{what}");
    db.connection
        .execute("UPDATE games SET speed_ms = -1 WHERE id = 'g2'", [])
        .unwrap();
    let Err(StoreError::Damaged(what)) = db.load("g2") else {
        panic!("a negative pace")
    };
    assert_eq!(what, "speed_ms holds -1");
}

/// Issue 21.7: a database of the first schema gets versions, from the time of the
/// last change, and keeps its games.
#[test]
fn regression_21_7_the_first_schema_is_migrated_with_versions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.db");
    let connection = Connection::open(&path).unwrap();
    connection.execute_batch(MIGRATIONS[0]).unwrap();
    connection.pragma_update(None, "user_version", 1).unwrap();
    connection
        .execute(
            "INSERT INTO games (id, rules, board, first, win, black, black_time_ms, white,
                white_time_ms, status, created_at, updated_at)
             VALUES ('old', 'full', '..../.WB./.BW./....', 'B', 'most', 'human', 0, 'human', 0,
                'playing', 1, 1234)",
            [],
        )
        .unwrap();
    drop(connection);
    let mut db = Sqlite::open(&path).unwrap();
    let old = db.load("old").unwrap().unwrap();
    assert_eq!((old.updated_at, old.version), (1234, 1234));
    assert_eq!((old.ending, old.clock, old.rated), (None, None, false));
}

#[test]
fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.db");
    let connection = Connection::open(&path).unwrap();
    connection.pragma_update(None, "user_version", 99).unwrap();
    drop(connection);
    assert!(matches!(
        Sqlite::open(&path),
        Err(StoreError::NewerSchema { found: 99, .. })
    ));
}

#[tokio::test]
async fn the_store_commits_batches_and_reads_them_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.db");
    let (store, writer) = Store::sqlite(&path).unwrap();
    let mut waits = Vec::new();
    for index in 0..20 {
        let store = store.clone();
        waits.push(tokio::spawn(async move {
            store
                .commit(vec![Change::Create(Box::new(game(&format!("g{index}"))))])
                .await
        }));
    }
    for wait in waits {
        wait.await.unwrap().unwrap();
    }
    assert_eq!(store.playing(100, i64::MIN).await.unwrap().len(), 20);
    assert!(store.load("g7").await.unwrap().is_some());
    // A failing change fails its whole commit, and is reported to its caller.
    let duplicate = store
        .commit(vec![Change::Create(Box::new(game("g1")))])
        .await;
    assert!(duplicate.is_err());
    drop(store);
    writer.join().unwrap();
}
