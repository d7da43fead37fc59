//! A tournament's record through its life: joins, plans, results and forfeits.

use othello::{ByColor, Color, Shape, TimeControl, Variant, WinRule};

use super::*;

fn swiss(rounds: u32) -> Tournament {
    Tournament::new(
        "t1".into(),
        "Test".into(),
        System::Swiss { rounds },
        Variant::Full,
        Shape::new(6, 6).unwrap(),
        None,
        WinRule::MostDiscs,
        TimeControl::new(60_000, 0),
        true,
        "ann".into(),
        1_000,
    )
}

fn entrant(user_id: i64) -> Entrant {
    Entrant {
        user_id,
        name: format!("p{user_id}"),
        withdrawn: false,
    }
}

fn pairs(plan: &Plan) -> Vec<ByColor<i64>> {
    match plan {
        Plan::Pair { games, .. } => games.clone(),
        other => panic!("not a pairing: {other:?}"),
    }
}

#[test]
fn a_swiss_takes_players_until_it_starts_then_pairs_round_by_round() {
    let mut t = swiss(2);
    for id in 1..=5 {
        t.join(entrant(id), 0).unwrap();
    }
    assert_eq!(t.join(entrant(3), 0), Err(Refusal::In("p3".into())));
    assert_eq!(t.plan(999), Plan::Wait, "not before its start");
    let plan = t.plan(1_000);
    let Plan::Pair { round, games, bye } = plan.clone() else {
        panic!("{plan:?}")
    };
    assert_eq!((round, games.len(), bye), (1, 2, Some(5)));
    let ids: Vec<(ByColor<i64>, String)> = games
        .iter()
        .enumerate()
        .map(|(i, players)| (*players, format!("g{i}")))
        .collect();
    t.paired(round, &ids, bye);
    assert_eq!(t.stage, Stage::Running);
    assert_eq!(t.join(entrant(9), 2_000), Err(Refusal::Started));
    assert_eq!(t.plan(2_000), Plan::Wait, "games still being played");
    // Black wins the first board; the second is a draw.
    assert!(t.record("g0", Some(Some(Color::Black)), [20, 16], None));
    assert!(!t.record("g0", Some(None), [18, 18], None), "recorded once");
    assert!(t.record("g1", Some(None), [18, 18], None));
    let rows = t.standings();
    assert_eq!(rows[0].points_x2, 2);
    let next = pairs(&t.plan(3_000));
    assert_eq!(next.len(), 2);
    for players in &next {
        assert!(
            !ids.iter().any(|(old, _)| {
                (old.black == players.black && old.white == players.white)
                    || (old.black == players.white && old.white == players.black)
            }),
            "{players:?} met in round 1"
        );
    }
    let ids: Vec<(ByColor<i64>, String)> = next
        .iter()
        .enumerate()
        .map(|(i, players)| (*players, format!("h{i}")))
        .collect();
    let Plan::Pair { bye, .. } = t.plan(3_000) else {
        unreachable!()
    };
    assert_ne!(bye, Some(5), "one bye each while others have none");
    t.paired(2, &ids, bye);
    t.record("h0", Some(Some(Color::White)), [10, 26], None);
    t.record("h1", Some(Some(Color::White)), [10, 26], None);
    assert_eq!(t.plan(4_000), Plan::Finish, "both rounds played");
}

#[test]
fn a_first_move_that_never_comes_forfeits_and_withdraws_the_absent() {
    let mut t = swiss(3);
    t.join(entrant(1), 0).unwrap();
    t.join(entrant(2), 0).unwrap();
    t.paired(1, &[(ByColor::new(1, 2), "g".into())], None);
    assert!(t.record("g", None, [2, 2], Some(Ended::NoFirstMove(Color::Black))));
    let outcome = t.pairings[0].outcome.unwrap();
    assert_eq!(outcome.winner, Some(Color::White));
    assert_eq!(outcome.discs, [0, 18], "half the 6 x 6 board to the winner");
    assert!(t.entrant(1).unwrap().withdrawn);
    // One player left: nobody to pair.
    assert_eq!(t.plan(5_000), Plan::Finish);
}

#[test]
fn a_game_won_before_its_end_gives_the_winner_the_empty_squares() {
    let mut t = swiss(1);
    t.join(entrant(1), 0).unwrap();
    t.join(entrant(2), 0).unwrap();
    t.paired(1, &[(ByColor::new(1, 2), "g".into())], None);
    // Black resigned at 3 - 3 on a 36-square board: White 3 + 30 empties.
    t.record(
        "g",
        Some(Some(Color::White)),
        [3, 3],
        Some(Ended::Resigned(Color::Black)),
    );
    let outcome = t.pairings[0].outcome.unwrap();
    assert_eq!(
        (outcome.winner, outcome.discs),
        (Some(Color::White), [3, 33])
    );
}

#[test]
fn a_game_called_off_does_not_count_and_they_may_meet_again() {
    let mut t = swiss(2);
    t.join(entrant(1), 0).unwrap();
    t.join(entrant(2), 0).unwrap();
    t.paired(1, &[(ByColor::new(1, 2), "g".into())], None);
    t.record("g", None, [2, 2], Some(Ended::Aborted));
    assert!(t.pairings[0].outcome.unwrap().called_off);
    assert!(
        t.standings()
            .iter()
            .all(|row| row.points_x2 == 0 && row.games == 0 && row.losses == 0)
    );
    assert_eq!(
        pairs(&t.plan(2_000)).len(),
        1,
        "not a meeting: paired again"
    );
}

#[test]
fn where_the_fewest_discs_win_the_empties_and_a_forfeit_go_to_the_loser() {
    let mut t = swiss(1);
    t.win = WinRule::FewestDiscs;
    for id in 1..=4 {
        t.join(entrant(id), 0).unwrap();
    }
    t.paired(
        1,
        &[
            (ByColor::new(1, 2), "g".into()),
            (ByColor::new(3, 4), "h".into()),
        ],
        None,
    );
    // White resigned at 3 - 3: Black wins, and White takes the 30 empties.
    t.record(
        "g",
        Some(Some(Color::Black)),
        [3, 3],
        Some(Ended::Resigned(Color::White)),
    );
    assert_eq!(t.pairings[0].outcome.unwrap().discs, [3, 33]);
    // Black never moved: White wins by forfeit, Black takes half the board.
    t.record("h", None, [2, 2], Some(Ended::NoFirstMove(Color::Black)));
    let outcome = t.pairings[1].outcome.unwrap();
    assert_eq!(
        (outcome.winner, outcome.discs),
        (Some(Color::White), [18, 0])
    );
    // Both winners have a point; the one with fewer discs is ahead.
    let order: Vec<i64> = t.standings().iter().map(|row| row.id).collect();
    assert_eq!(order[..2], [4, 1]);
}

#[test]
fn fewer_than_two_players_at_the_start_call_it_off() {
    for system in [System::Swiss { rounds: 3 }, System::Arena { minutes: 5 }] {
        let mut t = swiss(3);
        t.system = system;
        t.join(entrant(1), 0).unwrap();
        assert_eq!(t.plan(1_000), Plan::Finish, "{system:?}");
        t.finish(1_000);
        assert!(t.called_off);
    }
}

#[test]
fn before_the_start_a_withdrawal_leaves_no_trace_and_the_maker_may_call_it_off() {
    let mut t = swiss(3);
    t.join(entrant(1), 0).unwrap();
    t.join(entrant(2), 0).unwrap();
    t.withdraw(2, "p2").unwrap();
    assert_eq!(t.players.len(), 1);
    assert_eq!(t.withdraw(2, "p2"), Err(Refusal::NotIn("p2".into())));
    t.join(entrant(2), 0).unwrap();
    t.call_off(500).unwrap();
    assert!(t.called_off && t.stage == Stage::Finished);
    assert_eq!(t.call_off(600), Err(Refusal::Over));
    assert_eq!(t.join(entrant(3), 700), Err(Refusal::Over));
}

#[test]
fn an_arena_pairs_whoever_is_free_until_its_end() {
    let mut t = swiss(1);
    t.system = System::Arena { minutes: 1 };
    for id in 1..=5 {
        t.join(entrant(id), 0).unwrap();
    }
    let games = pairs(&t.plan(1_000));
    assert_eq!(games.len(), 2, "five players: two games, one waits");
    let ids: Vec<(ByColor<i64>, String)> = games
        .iter()
        .enumerate()
        .map(|(i, players)| (*players, format!("a{i}")))
        .collect();
    t.paired(1, &ids, None);
    // Only one free: nobody to pair it with.
    assert_eq!(t.plan(2_000), Plan::Wait);
    t.record("a0", Some(Some(Color::Black)), [20, 16], None);
    let next = pairs(&t.plan(3_000));
    assert_eq!(
        next.len(),
        1,
        "the two just finished and the one waiting: one game"
    );
    // A late joiner comes in while it runs; a withdrawn player comes back.
    t.join(entrant(6), 30_000).unwrap();
    t.withdraw(6, "p6").unwrap();
    t.join(entrant(6), 30_000).unwrap();
    assert!(!t.entrant(6).unwrap().withdrawn);
    // After its end: no new games; finished once the last game is over.
    assert_eq!(t.join(entrant(7), 61_000), Err(Refusal::Over));
    assert_eq!(t.plan(61_000), Plan::Wait, "a1 is still being played");
    t.record("a1", Some(None), [18, 18], None);
    assert_eq!(t.plan(61_000), Plan::Finish);
}

#[test]
fn the_record_round_trips_through_json() {
    let mut t = swiss(2);
    t.first = Some(Color::White);
    t.win = WinRule::FewestDiscs;
    t.join(entrant(1), 0).unwrap();
    t.paired(1, &[], Some(1));
    let json = serde_json::to_string(&t).unwrap();
    let back: Tournament = serde_json::from_str(&json).unwrap();
    assert_eq!(back, t);
}
