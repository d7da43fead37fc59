use othello::{Setup, Shape, TimeControl, Variant, engine::PlayerSpec};

use super::*;

// The rules, each through `Table::apply` as the hub calls it.

/// A move by `seat` (`None`: the engine to move) at `at`, after `thought_ms`.
fn moves(
    table: &mut Table,
    seat: Option<Color>,
    square: Square,
    at: i64,
    thought_ms: u64,
) -> Result<(), TableError> {
    let action = match seat {
        Some(_) => Action::Play(square),
        None => Action::EngineMove(square),
    };
    let now = Now {
        at,
        thought_ms,
        ..Now::default()
    };
    table.apply(seat, action, now).map(drop)
}

fn play(
    table: &mut Table,
    seat: Color,
    square: Square,
    at: i64,
    ms: u64,
) -> Result<(), TableError> {
    moves(table, Some(seat), square, at, ms)
}

fn engine_plays(table: &mut Table, square: Square, at: i64, ms: u64) -> Result<(), TableError> {
    moves(table, None, square, at, ms)
}

fn undo(table: &mut Table, seat: Color, answer: UndoAction, at: i64) -> Result<(), TableError> {
    table
        .apply(Some(seat), Action::Undo(answer), Now::at(at))
        .map(drop)
}

fn redo(table: &mut Table, seat: Color, at: i64) -> Result<(), TableError> {
    table.apply(Some(seat), Action::Redo, Now::at(at)).map(drop)
}

fn resign(table: &mut Table, seat: Color, at: i64) -> Result<(), TableError> {
    table
        .apply(Some(seat), Action::Resign, Now::at(at))
        .map(drop)
}

fn abort(table: &mut Table, at: i64) -> Result<(), TableError> {
    table
        .apply(Some(Color::Black), Action::Abort, Now::at(at))
        .map(drop)
}

fn control(
    table: &mut Table,
    paused: Option<bool>,
    step: bool,
    speed_ms: Option<u64>,
    at: i64,
) -> Result<(), TableError> {
    let controls = Controls {
        paused,
        step,
        speed_ms,
    };
    table
        .apply(None, Action::Control(controls), Now::at(at))
        .map(drop)
}

/// Whether the flag fell at `at` (the game lost on time).
fn flag(table: &mut Table, at: i64) -> bool {
    table.apply(None, Action::Flag, Now::at(at)).unwrap().ended
}

fn seat(occupant: Occupant) -> Seat {
    Seat {
        occupant,
        time_ms: 100,
        secret_hash: (occupant == Occupant::Human).then(|| "hash".to_owned()),
        name: None,
        user_id: None,
    }
}

fn table(black: Occupant, white: Occupant) -> Table {
    let game = AnyGame::new(Variant::Full, Setup::standard(Shape::STANDARD));
    Table::new(game, ByColor::new(seat(black), seat(white)), 1)
}

fn square(name: &str) -> Square {
    name.parse().unwrap()
}

#[test]
fn moves_are_the_side_to_move_s_and_legal() {
    let mut table = table(Occupant::Human, Occupant::Human);
    assert_eq!(
        play(&mut table, Color::White, square("d3"), 5, 0),
        Err(TableError::NotYourTurn)
    );
    let before = table.clone();
    let Err(TableError::IllegalMove { legal, .. }) =
        play(&mut table, Color::Black, square("a1"), 5, 0)
    else {
        panic!("a1 is not legal")
    };
    assert_eq!(legal.len(), 4);
    assert_eq!(table.game.history().len(), before.game.history().len());
    play(&mut table, Color::Black, square("d3"), 5, 700).unwrap();
    assert_eq!(
        table.meta[0],
        MoveMeta {
            played_at: 5,
            think_ms: 700,
            eval: None
        }
    );
    assert_eq!(table.updated_at, 5);
    resign(&mut table, Color::White, 6).unwrap();
    assert_eq!(
        play(&mut table, Color::White, square("c3"), 7, 0),
        Err(TableError::GameOver)
    );
    assert_eq!(
        resign(&mut table, Color::Black, 7),
        Err(TableError::GameOver)
    );
}

#[test]
fn between_people_an_undo_is_a_request_the_other_seat_answers() {
    let mut table = table(Occupant::Human, Occupant::Human);
    assert_eq!(
        undo(&mut table, Color::Black, UndoAction::Request, 2),
        Err(TableError::NothingToUndo)
    );
    play(&mut table, Color::Black, square("d3"), 2, 0).unwrap();
    play(&mut table, Color::White, square("c5"), 3, 0).unwrap();
    undo(&mut table, Color::Black, UndoAction::Request, 4).unwrap();
    assert_eq!(table.undo_request, Some(Color::Black));
    // The other's request while one waits: refused, nothing taken back.
    assert_eq!(
        undo(&mut table, Color::White, UndoAction::Request, 5),
        Err(TableError::UndoPending)
    );
    assert_eq!(
        undo(&mut table, Color::Black, UndoAction::Accept, 5),
        Err(TableError::UndoNotPending)
    );
    // Withdrawn, asked again, declined, asked again, accepted: back to Black's turn.
    undo(&mut table, Color::Black, UndoAction::Cancel, 5).unwrap();
    assert_eq!(table.undo_request, None);
    undo(&mut table, Color::Black, UndoAction::Request, 6).unwrap();
    undo(&mut table, Color::White, UndoAction::Decline, 6).unwrap();
    assert_eq!((table.undo_request, table.game.history().len()), (None, 2));
    undo(&mut table, Color::Black, UndoAction::Request, 7).unwrap();
    undo(&mut table, Color::White, UndoAction::Accept, 7).unwrap();
    assert_eq!(table.game.history().len(), 0);
    assert_eq!(table.meta.len(), 0);
    assert_eq!(table.to_move(), Some(Color::Black));
    // A move answers a request.
    play(&mut table, Color::Black, square("d3"), 8, 0).unwrap();
    undo(&mut table, Color::Black, UndoAction::Request, 8).unwrap();
    play(&mut table, Color::White, square("c5"), 9, 0).unwrap();
    assert_eq!(table.undo_request, None);
    assert_eq!(
        redo(&mut table, Color::Black, 9),
        Err(TableError::RedoNeedsEngine)
    );
}

#[test]
fn against_an_engine_undo_and_redo_go_by_the_person_s_turns() {
    let engine = Occupant::Computer(PlayerSpec::Engine(1));
    let mut table = table(Occupant::Human, engine);
    play(&mut table, Color::Black, square("d3"), 2, 0).unwrap();
    assert_eq!(
        table.engine_turn().map(|turn| turn.side),
        Some(Color::White)
    );
    engine_plays(&mut table, square("c5"), 3, 40).unwrap();
    assert_eq!(
        engine_plays(&mut table, square("c3"), 3, 0),
        Err(TableError::NotYourTurn)
    );
    undo(&mut table, Color::Black, UndoAction::Request, 4).unwrap();
    assert_eq!(table.game.history().len(), 0);
    assert_eq!(
        undo(&mut table, Color::Black, UndoAction::Decline, 4),
        Err(TableError::UndoNotPending)
    );
    redo(&mut table, Color::Black, 5).unwrap();
    assert_eq!(table.game.history().len(), 2, "to Black's next turn");
    assert_eq!(
        redo(&mut table, Color::Black, 5),
        Err(TableError::NothingToRedo)
    );
    assert_eq!(
        control(&mut table, Some(true), false, None, 6),
        Err(TableError::NotEngineGame)
    );
}

#[test]
fn engines_are_paused_stepped_and_paced() {
    let engine = Occupant::Computer(PlayerSpec::Greedy);
    let mut table = table(engine, engine);
    assert!(table.engines_only());
    control(&mut table, Some(true), true, Some(300), 2).unwrap();
    assert_eq!(
        (table.paused, table.step, table.speed_ms),
        (true, true, 300)
    );
    engine_plays(&mut table, square("d3"), 3, 10).unwrap();
    assert!(!table.step, "a step is used up by the move");
    assert!(table.paused);
}

#[test]
fn help_between_people_is_opt_in_and_never_for_spectators_or_the_opponent() {
    let mut table = table(Occupant::Human, Occupant::Human);
    assert!(!table.may_help(Some(Color::Black), Help::Hints));
    table.help = true;
    assert!(table.may_help(Some(Color::Black), Help::Hints));
    assert!(!table.may_help(Some(Color::White), Help::Hints));
    assert!(table.may_help(Some(Color::White), Help::Evaluation));
    assert!(!table.may_help(None, Help::Evaluation));
    resign(&mut table, Color::White, 2).unwrap();
    assert!(table.may_help(None, Help::Hints), "over: everyone's");
    let against = self::table(Occupant::Human, Occupant::Computer(PlayerSpec::Greedy));
    assert!(against.may_help(None, Help::Hints));
}

#[test]
fn the_clock_charges_each_turn_adds_increments_and_flags() {
    let mut table = table(Occupant::Human, Occupant::Human);
    let control = TimeControl::new(10_000, 1_000);
    table.clock = Some(Clock::start(control, 0));
    // Each side's first move is free (its clock starts after it), within FIRST_MOVE_MS.
    assert_eq!(table.running(), None);
    assert_eq!(table.flag_at(), Some(30_000), "Black's first move is due");
    play(&mut table, Color::Black, square("d3"), 3_000, 99).unwrap();
    assert_eq!(table.meta[0].think_ms, 3_000, "the clock's time");
    assert_eq!(table.flag_at(), Some(33_000), "White's first move is due");
    play(&mut table, Color::White, square("c5"), 5_000, 0).unwrap();
    let clock = table.clock.unwrap();
    assert_eq!(
        clock.left_ms,
        ByColor::new(10_000, 10_000),
        "nothing charged"
    );
    assert_eq!(table.running(), Some(Color::Black));
    assert_eq!(table.flag_at(), Some(15_000), "Black's clock runs");
    play(&mut table, Color::Black, square("d6"), 8_000, 0).unwrap();
    let clock = table.clock.unwrap();
    assert_eq!(clock.left_ms, ByColor::new(8_000, 10_000));
    assert_eq!(
        clock.left_at(Color::White, Some(Color::White), 10_000),
        8_000
    );
    // Undo asked and accepted on White's time: White is charged, Black's turn
    // starts again when it is accepted.
    undo(&mut table, Color::Black, UndoAction::Request, 9_000).unwrap();
    undo(&mut table, Color::White, UndoAction::Accept, 10_000).unwrap();
    let clock = table.clock.unwrap();
    assert_eq!(clock.left_ms, ByColor::new(8_000, 8_000));
    assert_eq!(table.flag_at(), Some(18_000));
    assert!(!flag(&mut table, 17_999));
    assert_eq!(table.ended, None);
    assert!(flag(&mut table, 18_000));
    assert_eq!(table.ended, Some(Ended::Time(Color::Black)));
    assert_eq!(table.flag_at(), None, "over: no clock runs");
    assert_eq!(table.result(), Some(Some(Color::White)));
    assert_eq!(
        play(&mut table, Color::Black, square("d6"), 18_001, 0),
        Err(TableError::OutOfTime(Color::Black))
    );
    assert_eq!(
        table.record(None).ending,
        Some(othello::Ending::LostOnTime(Color::Black))
    );
    // Any seat's action after the flag is told so (the red team's: undo, resign and abort
    // said only "game over"); a rematch is still for the asking.
    assert_eq!(
        undo(&mut table, Color::White, UndoAction::Request, 18_002),
        Err(TableError::OutOfTime(Color::Black))
    );
    assert_eq!(
        resign(&mut table, Color::White, 18_002),
        Err(TableError::OutOfTime(Color::Black))
    );
    assert_eq!(
        abort(&mut table, 18_002),
        Err(TableError::OutOfTime(Color::Black))
    );
    let rematch = table.apply(Some(Color::White), Action::Rematch, Now::at(18_003));
    assert!(
        rematch.is_ok_and(|applied| !applied.rematch),
        "an offer waits"
    );
}

#[test]
fn a_correspondence_move_gets_its_days_back_whole_and_a_missed_one_loses() {
    const DAY: i64 = 86_400_000;
    let mut table = table(Occupant::Human, Occupant::Human);
    table.clock = Some(Clock::start(TimeControl::correspondence(2), 0));
    // The first move may take the move's days (not the 30 s of a game clock).
    assert_eq!(table.flag_at(), Some(2 * DAY), "Black's first move is due");
    play(&mut table, Color::Black, square("d3"), DAY + 5, 0).unwrap();
    assert_eq!(
        table.flag_at(),
        Some(3 * DAY + 5),
        "White's first, two days on"
    );
    play(&mut table, Color::White, square("c5"), 2 * DAY, 0).unwrap();
    // Black's clock runs: nothing banked, however fast the moves came.
    assert_eq!(table.flag_at(), Some(4 * DAY));
    play(&mut table, Color::Black, square("d6"), 2 * DAY + 1_000, 0).unwrap();
    assert_eq!(table.meta[2].think_ms, 1_000);
    assert_eq!(
        table.clock.unwrap().left_ms,
        ByColor::new(2 * DAY as u64, 2 * DAY as u64),
        "a move gives the whole two days back"
    );
    // White takes a day and a half: two days again for the next move, not a half.
    play(&mut table, Color::White, square("e3"), 3 * DAY + DAY / 2, 0).unwrap();
    assert_eq!(table.clock.unwrap().left_ms.white, 2 * DAY as u64);
    // Black lets the two days pass: lost on time.
    let due = 5 * DAY + DAY / 2;
    assert_eq!(table.flag_at(), Some(due));
    assert!(!flag(&mut table, due - 1));
    assert!(flag(&mut table, due));
    assert_eq!(table.ended, Some(Ended::Time(Color::Black)));
    assert_eq!(table.result(), Some(Some(Color::White)));
}

#[test]
fn a_first_move_that_does_not_come_in_time_aborts_the_game_unrated() {
    let control = TimeControl::new(60_000, 0);
    let timed = || {
        let mut table = table(Occupant::Human, Occupant::Human);
        table.rated = true;
        table.clock = Some(Clock::start(control, 0));
        table
    };
    // Black never moves: aborted at 30 s, no result, nobody's time charged.
    let mut table = timed();
    assert!(!flag(&mut table, 29_999));
    assert!(flag(&mut table, 30_000));
    assert_eq!(table.ended, Some(Ended::NoFirstMove(Color::Black)));
    assert_eq!(table.result(), None, "no result: no rating moves");
    assert_eq!(table.clock.unwrap().left_ms, ByColor::new(60_000, 60_000));
    assert_eq!(table.record(None).ending, None);
    assert_eq!(
        play(&mut table, Color::Black, square("d3"), 30_001, 0),
        Err(TableError::NoFirstMove(Color::Black))
    );
    assert_eq!(
        resign(&mut table, Color::White, 30_001),
        Err(TableError::NoFirstMove(Color::Black))
    );
    // A move that arrives late finds the game aborted: it is stored, the move refused.
    let mut late = timed();
    let applied = late
        .apply(
            Some(Color::Black),
            Action::Play(square("d3")),
            Now::at(45_000),
        )
        .unwrap();
    assert_eq!(applied.flagged, Some(Ended::NoFirstMove(Color::Black)));
    assert!(applied.changed && applied.ended);
    assert_eq!(late.game.history().len(), 0);
    // White's window opens with Black's first move.
    let mut table = timed();
    play(&mut table, Color::Black, square("d3"), 20_000, 0).unwrap();
    assert_eq!(table.flag_at(), Some(50_000));
    assert!(!flag(&mut table, 49_999));
    assert!(flag(&mut table, 50_000));
    assert_eq!(table.ended, Some(Ended::NoFirstMove(Color::White)));
    assert_eq!(
        TableError::NoFirstMove(Color::White).to_string(),
        "the game was aborted: White did not make a first move in the time given for it"
    );
    // An untimed game waits.
    let mut untimed = self::table(Occupant::Human, Occupant::Human);
    assert!(!flag(&mut untimed, 1_000_000));
}

#[test]
fn games_abort_only_before_the_second_move_and_endings_read_back() {
    let mut table = table(Occupant::Human, Occupant::Human);
    play(&mut table, Color::Black, square("d3"), 2, 0).unwrap();
    let mut early = table.clone();
    abort(&mut early, 3).unwrap();
    assert_eq!(early.ended, Some(Ended::Aborted));
    assert_eq!(abort(&mut early, 4), Err(TableError::GameOver));
    play(&mut table, Color::White, square("c5"), 3, 0).unwrap();
    assert_eq!(abort(&mut table, 4), Err(TableError::TooLateToAbort));
    for ended in [
        Ended::Resigned(Color::Black),
        Ended::Time(Color::White),
        Ended::Abandoned(Color::Black),
        Ended::Aborted,
        Ended::NoFirstMove(Color::White),
    ] {
        assert_eq!(Ended::from_text(&ended.to_text()), Some(ended));
    }
    assert_eq!(Ended::from_text("time"), None);
    assert_eq!(Ended::from_text("abort:B"), None);
    assert_eq!(Ended::from_text("no_first_move"), None);
}

#[test]
fn an_engine_on_a_clock_shares_its_time_among_its_moves() {
    let engine = Occupant::Computer(PlayerSpec::Engine(5));
    let mut table = table(engine, Occupant::Human);
    let turn = table.engine_turn().unwrap();
    assert_eq!(
        table.engine_budget(&turn, 0),
        100,
        "untimed: its time per move"
    );
    table.seats.black.time_ms = 30_000;
    let turn = table.engine_turn().unwrap();
    table.clock = Some(Clock::start(TimeControl::new(60_000, 2_000), 0));
    // An engine's clock runs from its first turn (it is there from the start, and is
    // never aborted for a missing first move): 60 empty squares, about 30 moves of its
    // own; most of the increment on top.
    assert_eq!(table.running(), Some(Color::Black));
    assert_eq!(table.engine_budget(&turn, 0), 2_000 + 1_500);
    engine_plays(&mut table, square("d3"), 1_000, 0).unwrap();
    assert_eq!(
        table.clock.unwrap().left_ms.black,
        61_000,
        "charged, incremented"
    );
    play(&mut table, Color::White, square("c5"), 1_000, 0).unwrap();
    let turn = table.engine_turn().unwrap();
    assert_eq!(table.engine_budget(&turn, 1_000), 61_000 / 29 + 1_500);
    // With a second left it never plans more than half of it.
    assert_eq!(table.engine_budget(&turn, 61_000), 500);
}

#[test]
fn red_team_47_a_rated_game_takes_nothing_back_and_a_pasted_start_waits_for_first_moves() {
    // Undone to its start, a lost rated game could be aborted, unrated.
    let engine = Occupant::Computer(PlayerSpec::Engine(1));
    let mut rated = table(Occupant::Human, engine);
    rated.rated = true;
    play(&mut rated, Color::Black, square("d3"), 2, 0).unwrap();
    engine_plays(&mut rated, square("c5"), 3, 0).unwrap();
    assert_eq!(
        undo(&mut rated, Color::Black, UndoAction::Request, 4),
        Err(TableError::NoUndoWhenRated)
    );
    assert_eq!(rated.game.history().len(), 2);
    // Moves pasted with the start are nobody's first move here: the clock waits for
    // the side to move's, and the game can still be called off.
    let game = AnyGame::replay(
        Variant::Full,
        Setup::standard(Shape::STANDARD),
        ["f5", "d6", "c3"].map(square),
    )
    .unwrap();
    let people = ByColor::new(seat(Occupant::Human), seat(Occupant::Human));
    let mut pasted = Table::new(game, people, 100);
    pasted.clock = Some(Clock::start(TimeControl::new(5_000, 0), 100));
    assert_eq!(pasted.running(), None);
    assert_eq!(pasted.flag_at(), Some(30_100), "White's first move is due");
    assert!(!flag(&mut pasted, 5_100), "no flag before a first move");
    abort(&mut pasted, 6_000).unwrap();
    assert_eq!(pasted.ended, Some(Ended::Aborted));
    // A move made in the millisecond the game was created is a first move all the same
    // (a fast machine's test once saw Black's clock never start).
    let mut quick = table(Occupant::Human, Occupant::Human);
    let created = quick.created_at;
    play(&mut quick, Color::Black, square("d3"), created, 0).unwrap();
    assert!(quick.has_moved(Color::Black) && !quick.has_moved(Color::White));
    assert_eq!(quick.moves_here(), 1);
}
