//! How a live game is stored and rebuilt: its table as a stored game, the changes from one
//! table to the next, and the table back from what was stored.

use othello::{AnyGame, ByColor, Color, Setup, Square};

use super::super::{
    store::{Change, GameMeta, StoredGame, StoredMove, StoredSeat},
    table::{MoveMeta, Seat, Table},
};

/// A move as stored.
fn stored_move(square: Square, side: Color, meta: &MoveMeta) -> StoredMove {
    StoredMove {
        square,
        side,
        played_at: meta.played_at,
        think_ms: meta.think_ms,
        eval: meta.eval.map(|(score, _)| score),
        exact: meta.eval.is_some_and(|(_, exact)| exact),
    }
}

/// `table` as stored under `id` at `version`.
pub fn stored(id: &str, table: &Table, version: u64) -> StoredGame {
    let setup = table.game.setup();
    StoredGame {
        id: id.to_owned(),
        rules: table.game.variant(),
        board: setup.board,
        first: setup.first_mover,
        win: setup.win_rule,
        seats: table
            .seats
            .as_ref()
            .map(|seat| StoredSeat {
                player: seat.occupant,
                time_ms: seat.time_ms,
                secret_hash: seat.secret_hash.clone(),
                name: seat.name.clone(),
                user_id: seat.user_id,
            })
            .into_array(),
        moves: table
            .game
            .history()
            .iter()
            .zip(&table.meta)
            .map(|(ply, meta)| stored_move(ply.square(), ply.side(), meta))
            .collect(),
        undone: table.game.undone().collect(),
        status: table.status(),
        ending: table.ended,
        clock: table.clock,
        deadline: table.flag_at(),
        rated: table.rated,
        rematch_offer: table.rematch_offer,
        rematch: table.rematch.clone(),
        undo_request: table.undo_request,
        control_hash: table.control_hash.clone(),
        paused: table.paused,
        speed_ms: table.speed_ms,
        created_at: table.created_at,
        updated_at: table.updated_at,
        version,
        help: table.help,
    }
}

/// The changes that take game `id`'s stored table from `before` to `after`, at `version`:
/// the moves taken back, the moves added, and the table's own fields.
pub fn changes(id: &str, before: (&Table, u64), after: &Table, version: u64) -> Vec<Change> {
    let (before, expected) = before;
    let kept = before
        .game
        .moves()
        .zip(after.game.moves())
        .take_while(|(a, b)| a == b)
        .count();
    // The game's own row first: its version check comes before any move is written (on a
    // shared database, a second writer waits for the first here, then finds the version
    // moved).
    let mut changes = vec![Change::Meta(GameMeta {
        game: id.to_owned(),
        expected,
        status: after.status(),
        ending: after.ended,
        clock: after.clock,
        deadline: after.flag_at(),
        rematch_offer: after.rematch_offer,
        rematch: after.rematch.clone(),
        undo_request: after.undo_request,
        undone: after.game.undone().collect(),
        paused: after.paused,
        speed_ms: after.speed_ms,
        updated_at: after.updated_at,
        version,
    })];
    if kept < before.game.history().len() {
        changes.push(Change::Truncate {
            game: id.to_owned(),
            keep: kept,
        });
    }
    for (ply, played) in after.game.history().iter().enumerate().skip(kept) {
        changes.push(Change::Move {
            game: id.to_owned(),
            ply,
            mv: stored_move(played.square(), played.side(), &after.meta[ply]),
        });
    }
    changes
}

/// The table of a stored game and its version; `None` for one that cannot be rebuilt (an
/// unknown rule set or win rule, a move that does not replay: a damaged game).
pub fn revive(stored: StoredGame) -> Option<(Table, u64)> {
    let variant = stored.rules;
    let setup = Setup {
        board: stored.board,
        first_mover: stored.first,
        win_rule: stored.win,
    };
    let squares: Vec<Square> = stored.moves.iter().map(|mv| mv.square).collect();
    let undone = stored.undone;
    // Replay the redo list too, then take it back: the game remembers it for redo.
    let mut game = AnyGame::replay(variant, setup, squares.iter().chain(&undone).copied()).ok()?;
    for _ in &undone {
        game.undo();
    }
    let seats = ByColor::from(stored.seats.map(|seat| Seat {
        occupant: seat.player,
        time_ms: seat.time_ms,
        secret_hash: seat.secret_hash,
        name: seat.name,
        user_id: seat.user_id,
    }));
    let table = Table {
        game,
        meta: stored
            .moves
            .iter()
            .map(|mv| MoveMeta {
                played_at: mv.played_at,
                think_ms: mv.think_ms,
                eval: mv.eval.map(|score| (score, mv.exact)),
            })
            .collect(),
        seats,
        ended: stored.ending,
        clock: stored.clock,
        rated: stored.rated,
        rematch_offer: stored.rematch_offer,
        rematch: stored.rematch,
        undo_request: stored.undo_request,
        paused: stored.paused,
        step: false,
        speed_ms: stored.speed_ms,
        help: stored.help,
        control_hash: stored.control_hash,
        created_at: stored.created_at,
        updated_at: stored.updated_at,
    };
    // The stored version as it is: the next change is checked against it.
    Some((table, stored.version))
}

#[cfg(test)]
mod tests {
    use othello::{Setup, Shape, TimeControl, Variant};

    use super::*;
    use othello::engine::Occupant;

    use crate::server::table::Ended;

    #[test]
    fn a_table_survives_storing_and_reviving() {
        let game = AnyGame::replay(
            Variant::Simple,
            Setup::standard(Shape::new(6, 6).unwrap()),
            ["c2".parse().unwrap()],
        )
        .unwrap();
        let human = Seat {
            occupant: Occupant::Human,
            time_ms: 100,
            secret_hash: Some("h".into()),
            name: Some("Ann".into()),
            user_id: None,
        };
        let member = Seat {
            name: Some("bob".into()),
            user_id: Some(7),
            ..human.clone()
        };
        let mut table = Table::new(game, ByColor::new(human, member), 3);
        table.help = true;
        table.rated = true;
        table.undo_request = Some(Color::Black);
        table.clock = Some(othello::Clock {
            control: TimeControl::new(60_000, 1_000),
            left_ms: ByColor::new(50_000, 61_000),
            since: 4,
        });
        let (revived, version) = revive(stored("g", &table, 42)).unwrap();
        assert_eq!(version, 42);
        assert_eq!(
            revived.game.moves().collect::<Vec<_>>(),
            ["c2".parse().unwrap()]
        );
        assert_eq!(
            (revived.help, revived.undo_request),
            (true, Some(Color::Black))
        );
        assert_eq!(revived.seats, table.seats);
        assert_eq!((revived.clock, revived.rated), (table.clock, true));
        let mut ended = table.clone();
        let resign = crate::server::table::Action::Resign;
        let now = crate::server::table::Now::at(9);
        ended.apply(Some(Color::White), resign, now).unwrap();
        let (revived, _) = revive(stored("g", &ended, 43)).unwrap();
        assert_eq!(revived.ended, Some(Ended::Resigned(Color::White)));
        assert_eq!(revived.clock, ended.clock, "stopped where it was");
        let mut damaged = stored("g", &table, 42);
        damaged.moves[0].square = "a1".parse().unwrap();
        assert!(revive(damaged).is_none(), "a move that does not replay");
    }
}
