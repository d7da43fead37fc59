use proptest::prelude::*;

use super::*;
use crate::{Board, Color, Full, Simple, TimeControl, WinRule};

/// The game where each side always plays its first legal move (top-most, then left-most)
/// from the standard 8 × 8 start: 60 moves, four passes by Black, 19 to 45.
const FIRST_LEGAL_GAME: &str = "d3c3b3b2b1a1c4c1c2d2d1e1a2a3f5e2f1g1f2e3b5b4a5a4c5a6f4f3g3g2\
                                h2h1h3h4g4c6g5h5b6c7d6e6f6g6h6h7a7b7a8d7e7f7g7g8b8c8d8e8f8h8";

/// [`FIRST_LEGAL_GAME`] in GGF, as GGS writes it (upper-case squares, a `PA` for each pass),
/// with a final pass after the last move.
const FIRST_LEGAL_GGF: &str = "(;GM[Othello]PC[test]DT[2026.11.22_10:00:00.UTC]PB[first]\
    PW[legal]RE[-26.000]TI[15:00//02:00]TY[8]\
    BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]\
    B[D3]W[C3]B[B3]W[B2]B[B1]W[A1]B[C4]W[C1]B[C2]W[D2]B[D1]W[E1]B[A2]W[A3]B[F5]W[E2]B[F1]\
    W[G1]B[PA]W[F2]B[PA]W[E3]B[PA]W[B5]B[B4]W[A5]B[A4]W[C5]B[A6]W[F4]B[F3]W[G3]B[G2]W[H2]\
    B[H1]W[H3]B[H4]W[G4]B[C6]W[G5]B[H5]W[B6]B[C7]W[D6]B[E6]W[F6]B[G6]W[H6]B[H7]W[A7]B[PA]\
    W[B7]B[A8]W[D7]B[E7]W[F7]B[G7]W[G8]B[B8]W[C8]B[D8]W[E8]B[F8]W[H8]B[PA];)";

fn shape(rows: u8, columns: u8) -> Shape {
    Shape::new(rows, columns).unwrap()
}

fn squares(moves: &str) -> Vec<Square> {
    moves.parse::<MoveList>().unwrap().0
}

/// The moves of up to `limit` turns where the side to move plays its first legal move.
fn first_legal_moves<R: RuleSet>(setup: Setup, limit: usize) -> Vec<Square> {
    let mut game = Game::<R>::new(setup);
    while game.history().len() < limit {
        let Some(square) = game.legal_moves().first() else {
            break;
        };
        game.play(square).unwrap();
    }
    game.moves().collect()
}

fn assert_round_trip(record: &Record) {
    let text = record.to_string();
    assert_eq!(text.parse::<Record>().as_ref(), Ok(record), "{text}");
}

fn error(text: &str) -> String {
    text.parse::<Record>().unwrap_err().to_string()
}

const EXAMPLE: &str = "\
# othello game record
rules: full
size: 8x8
first: B
win: most
board: ......../......../......../...WB.../...BW.../......../......../........
black: human
white: engine:5
date: 2026-11-22
moves: f5 d6 c3 d3 c4
";

fn example() -> Record {
    Record {
        players: ["human".into(), "engine:5".into()],
        date: Some("2026-11-22".into()),
        ratings: [None, None],
        moves: squares("f5d6c3d3c4"),
        ..Record::new(Variant::Full, Setup::standard(Shape::STANDARD))
    }
}

#[test]
fn writes_and_reads_the_example() {
    assert_eq!(example().to_string(), EXAMPLE);
    assert_eq!(EXAMPLE.parse::<Record>(), Ok(example()));
}

#[test]
fn round_trips_shapes_rule_sets_win_rules_and_players() {
    for (rows, columns) in [(8, 8), (6, 10), (5, 7), (16, 16), (4, 4), (13, 4)] {
        for variant in Variant::ALL {
            for win_rule in [WinRule::MostDiscs, WinRule::FewestDiscs] {
                for first_mover in Color::ALL {
                    let setup = Setup {
                        board: Board::standard(shape(rows, columns)),
                        first_mover,
                        win_rule,
                    };
                    let moves = crate::on_rules!(variant, |R| first_legal_moves::<R>(setup, 12));
                    let mut record = Record {
                        moves,
                        ..Record::new(variant, setup)
                    };
                    assert_round_trip(&record);
                    record.players = ["human".into(), String::new()];
                    assert_round_trip(&record);
                    record.players = [String::new(), "engine:5".into()];
                    record.date = Some("2026-11-22 10:00".into());
                    assert_round_trip(&record);
                    record.date = Some(String::new());
                    assert_round_trip(&record);
                }
            }
        }
    }
}

#[test]
fn round_trips_a_game_played_to_its_end() {
    let game = Game::<Full>::replay(
        Setup::standard(Shape::STANDARD),
        first_legal_moves::<Full>(Setup::standard(Shape::STANDARD), usize::MAX),
    )
    .unwrap();
    assert!(game.is_over());
    let record = Record::from_game(&game);
    assert_eq!(record.moves.len(), 60);
    assert_round_trip(&record);
    assert_eq!(record.replay_as::<Full>().unwrap(), game);
    let game = Game::<Simple>::replay(
        Setup::standard(shape(6, 10)),
        first_legal_moves::<Simple>(Setup::standard(shape(6, 10)), usize::MAX),
    )
    .unwrap();
    let record = Record::from_game(&game);
    assert_eq!(record.variant, Variant::Simple);
    assert_round_trip(&record);
    assert_eq!(record.replay_as::<Simple>().unwrap(), game);
}

#[test]
fn free_text_with_backslashes_line_breaks_and_edge_spaces_round_trips() {
    let mut record = example();
    for text in [
        " spaced ",
        "two\nlines\r\n",
        "C:\\games\\u{41}",
        "\\",
        "tab\tin",
        "\u{3000}ideographic space\u{3000}",
        "é ü 漢字",
        "# not a comment",
        "moves: a1",
    ] {
        record.players = [text.into(), text.into()];
        record.date = Some(text.into());
        assert_round_trip(&record);
        assert_eq!(record.to_string().lines().count(), EXAMPLE.lines().count());
    }
    // A backslash written by hand that starts no escape stays as it is.
    let text = "black: C:\\games \\u{zz} \\u{110000} \\n\ndate: \\u{41}\\\\\n";
    let record: Record = text.parse().unwrap();
    assert_eq!(record.players[0], "C:\\games \\u{zz} \\u{110000} \\n");
    assert_eq!(record.date.as_deref(), Some("A\\"));
}

#[test]
fn reads_comments_any_order_crlf_and_defaults() {
    let text = "\r\n# a comment\r\n  moves: f5 d6  \r\n\r\nwhite:  engine:3 \r\n\
                # othello\r\nmoves:c3d3\r\nmoves:\r\nmoves: c4\r\n";
    let record: Record = text.parse().unwrap();
    assert_eq!(record.moves, squares("f5d6c3d3c4"));
    assert_eq!(record.players, [String::new(), "engine:3".to_owned()]);
    assert_eq!(record.date, None);
    assert_eq!(
        record.setup,
        Setup::standard(Shape::STANDARD),
        "defaults: 8x8, standard start, Black first, most discs"
    );
    assert_eq!(record.variant, Variant::Full);

    // A size without a board means the standard start for that size.
    let record: Record = "# othello\nsize: 6x10\nrules: SIMPLE\nwin: fewest\nfirst: W\n"
        .parse()
        .unwrap();
    assert_eq!(record.setup.board, Board::standard(shape(6, 10)));
    assert_eq!(record.setup.first_mover, Color::White);
    assert_eq!(record.setup.win_rule, WinRule::FewestDiscs);
    assert_eq!(record.variant, Variant::Simple);

    // A board without a size gives its own size.
    let record: Record = "board: B..../...../...../....W\n".parse().unwrap();
    assert_eq!(record.setup.board.shape(), shape(4, 5));
    assert_eq!(record.setup.board.at(Square::new(0, 0)), Some(Color::Black));
    assert_eq!(record.setup.board.at(Square::new(3, 4)), Some(Color::White));
    assert_eq!(record.setup.board.occupied().count(), 2);
}

#[test]
fn record_errors_name_the_line_and_the_input() {
    let cases = [
        (
            "rules: full\nsize: 8x8\nrules: simple\n",
            "line 3: rules was already given on line 1",
        ),
        (
            "# othello\n\nrules: fast\n",
            "line 3: unknown rules \"fast\": expected full or simple",
        ),
        (
            "rules: full\nspeed: 3\n",
            "line 2: unknown key \"speed\": expected rules, size, first, win, board, black, white, date or moves",
        ),
        (
            "rules: full\nfull rules\n",
            "line 2: expected \"key: value\", found \"full rules\"",
        ),
        (
            "size: 3x8\n",
            "line 1: bad size \"3x8\": expected rows x columns from 4x4 to 16x16, such as 8x8",
        ),
        (
            "size: eight\n",
            "line 1: bad size \"eight\": expected rows x columns from 4x4 to 16x16, such as 8x8",
        ),
        (
            "rules: full\nfirst: b\n",
            "line 2: bad first mover \"b\": expected B or W",
        ),
        (
            "win: >\n",
            "line 1: bad win rule \">\": expected most or fewest",
        ),
        (
            "size: 8x8\nboard: ..../..../..../....\n",
            "line 2: board is 4x4, but size is 8x8",
        ),
        (
            "board: ..../..../..../....\nsize: 4x6\n",
            "line 1: board is 4x4, but size is 4x6",
        ),
        (
            "board: ..../..x./..../....\n",
            "line 1: board row 2, cell 3 must be ., B or W, found 'x'",
        ),
        (
            "board: ..../..../.../....\n",
            "line 1: board row 3 has 3 cells, but row 1 has 4",
        ),
        (
            "board: ../..\n",
            "line 1: board is 2x2: it needs 4 to 16 rows and 4 to 16 columns",
        ),
        (
            "board:\n",
            "line 1: board is 1x0: it needs 4 to 16 rows and 4 to 16 columns",
        ),
        (
            "moves: f5 d6\nmoves: c3 z9\n",
            "line 2: move 4: expected a square from a1 to p16, found \"z9\"",
        ),
        (
            "moves: f5 d6\nmoves: c3 i9\n",
            "line 2: move 4: i9 is not on the 8x8 board",
        ),
        (
            "moves: e5\nsize: 4x4\n",
            "line 1: move 1: e5 is not on the 4x4 board",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(error(text), expected, "{text:?}");
    }
    let long = format!("black: x\n{}: y\n", "k".repeat(100));
    assert_eq!(
        error(&long),
        format!(
            "line 2: unknown key \"{}...\": expected rules, size, first, win, board, black, \
             white, date or moves",
            "k".repeat(40)
        )
    );
}

#[test]
fn a_known_game_as_a_bare_transcript() {
    let record: Record = FIRST_LEGAL_GAME.parse().unwrap();
    assert_eq!(
        record,
        Record {
            moves: squares(FIRST_LEGAL_GAME),
            ..Record::new(Variant::Full, Setup::standard(Shape::STANDARD))
        }
    );
    let game = record.replay_as::<Full>().unwrap();
    assert!(game.is_over());
    assert_eq!(
        (game.count(Color::Black), game.count(Color::White)),
        (19, 45)
    );
    // It is the first-legal-move game, and spaces and line breaks are fine too.
    let moves = first_legal_moves::<Full>(Setup::standard(Shape::STANDARD), usize::MAX);
    assert_eq!(record.moves, moves);
    let spaced = format!(
        "\n {} \n",
        record
            .moves
            .iter()
            .map(Square::to_string)
            .collect::<Vec<_>>()
            .join(" \n")
    );
    assert_eq!(spaced.parse::<Record>(), Ok(record));
    // A bare transcript's board is whatever it is loaded on: off-board moves are found then
    // (see `commands::fit_record`).
    let (record, stated) = Record::parse_stated("f5d6i9").unwrap();
    assert_eq!(stated.format, crate::RecordFormat::Transcript);
    assert_eq!(record.moves.len(), 3);
}

#[test]
fn the_known_game_with_passes_as_ggf() {
    let record: Record = FIRST_LEGAL_GGF.parse().unwrap();
    let transcript: Record = FIRST_LEGAL_GAME.parse().unwrap();
    assert_eq!(record.setup, transcript.setup);
    assert_eq!(record.moves, transcript.moves);
    assert_eq!(record.variant, Variant::Full);
    assert_eq!(record.players, ["first".to_owned(), "legal".to_owned()]);
    assert_eq!(record.date.as_deref(), Some("2026.11.22_10:00:00.UTC"));
    let game = record.replay_as::<Full>().unwrap();
    assert!(game.is_over());
    assert_eq!(
        (game.count(Color::Black), game.count(Color::White)),
        (19, 45)
    );

    // Writing it puts the passes back (the final one only where the game goes on).
    let written = record.to_ggf().unwrap();
    assert_eq!(written.matches("[PA]").count(), 4);
    assert!(written.starts_with(
        "(;GM[Othello]PB[first]PW[legal]DT[2026.11.22_10:00:00.UTC]TY[8]BO[8 \
         ---------------------------O*------*O--------------------------- *]B[D3]W[C3]"
    ));
    assert!(written.ends_with("B[F1]W[G1]B[PA]W[F2]B[PA]W[E3]B[PA]W[B5]B[B4]W[A5]B[A4]W[C5]B[A6]W[F4]B[F3]W[G3]B[G2]W[H2]B[H1]W[H3]B[H4]W[G4]B[C6]W[G5]B[H5]W[B6]B[C7]W[D6]B[E6]W[F6]B[G6]W[H6]B[H7]W[A7]B[PA]W[B7]B[A8]W[D7]B[E7]W[F7]B[G7]W[G8]B[B8]W[C8]B[D8]W[E8]B[F8]W[H8]RE[-26];)"));
    assert_eq!(written.parse::<Record>(), Ok(record));
}

#[test]
fn ggf_from_a_mid_game_position_with_lower_case_moves_times_and_escapes() {
    // The position after f5 d6 c3, White to move, rows separated by spaces or not.
    let text = " (;GM[othello]PC[NIOS]DT[2003.12.15_13:24:03.MST]PB[Saio\\]1200]PW[Saio3000]\n\
                RE[+18.000]TI[15:00//02:00]TY[8]KM[0]RB[2000]RW[2100]\
                CO[a \\] bracket and \\\\ a backslash; even ;) inside]\n\
                BO[8 ---------------- --*-----  ---**--- ---O**-- ---O---- -------- -------- O]\n\
                W[d3//1.5] B[c4/0.52/2.01]\n;) \n";
    let record: Record = text.parse().unwrap();
    let after = Game::<Full>::replay(Setup::standard(Shape::STANDARD), squares("f5d6c3")).unwrap();
    assert_eq!(record.setup.board, *after.board());
    assert_eq!(record.setup.first_mover, Color::White);
    assert_eq!(record.moves, squares("d3c4"));
    assert_eq!(
        record.players,
        ["Saio]1200".to_owned(), "Saio3000".to_owned()]
    );
    assert_eq!(record.ratings, [Some(2000), Some(2100)]);
    assert!(record.to_ggf().unwrap().contains("RB[2000]RW[2100]"));
    let decimal: Record = text
        .replace("RB[2000]RW[2100]", "RB[1999.6]RW[n/a]")
        .parse()
        .unwrap();
    assert_eq!(
        decimal.ratings,
        [Some(2000), None],
        "rounded; not a number: left out"
    );
    let game = record.replay_as::<Full>().unwrap();
    assert_eq!(game.moves().count(), 2);
    assert_eq!(record.to_ggf().unwrap().parse::<Record>(), Ok(record));
}

#[test]
fn ggf_exports_passes_first_movers_and_the_win_rule() {
    // White is named first but cannot move on this board: the game opens with W[PA].
    let setup: Setup = "4\n4\nW\n<\nB . . .\n. W . .\n. . . .\n. . . .\n"
        .parse()
        .unwrap();
    let mut board = Board::empty(Shape::STANDARD);
    for square in setup.board.occupied().iter() {
        board.set(square, setup.board.at(square));
    }
    let record = Record {
        moves: squares("c3"),
        ..Record::new(Variant::Full, Setup { board, ..setup })
    };
    let ggf = record.to_ggf().unwrap();
    assert!(
        ggf.ends_with(
            "TY[8a]BO[8 *-------\
         -O------------------------------------------------------ O]W[PA]B[C3]RE[+3];)"
        ),
        "{ggf}"
    );
    assert_eq!(ggf.parse::<Record>(), Ok(record));

    let simple = Record::new(Variant::Simple, Setup::standard(Shape::STANDARD));
    assert_eq!(
        simple.to_ggf().unwrap_err().to_string(),
        "ggf holds only games under full rules, not simple"
    );
    let small = Record::new(Variant::Full, Setup::standard(shape(6, 6)));
    assert_eq!(
        small.to_ggf().unwrap_err().to_string(),
        "ggf holds only 8x8 games, not 6x6"
    );
    let illegal = Record {
        moves: squares("f5a1"),
        ..example()
    };
    assert_eq!(
        illegal.to_ggf().unwrap_err().to_string(),
        "cannot write the game as ggf: move 2: illegal move a1: it flips no disc"
    );
}

#[test]
fn ggf_errors() {
    let start = "BO[8 ---------------------------O*------*O--------------------------- *]";
    let cases = [
        (
            "(;GM[Othello]TY[10];)".to_owned(),
            "ggf: only 8x8 boards are supported, found TY[10]",
        ),
        (
            "(;GM[Othello]BO[10 * -];)".to_owned(),
            "ggf: only 8x8 boards are supported, found BO[10 * -]",
        ),
        (
            "(;GM[Chess];)".to_owned(),
            "ggf: expected an othello game, found GM[Chess]",
        ),
        (
            "(;BO[8 ---- *];)".to_owned(),
            "ggf: expected BO[8 <64 cells of *, O or -> <side to move, * or O>], found BO[8 ---- *]",
        ),
        (
            format!("(;{start}B[F5]W[Z9];)"),
            "ggf: move 2: expected a square from a1 to h8 or PA, found \"Z9\"",
        ),
        (
            format!("(;{start}B[F5]W[PA]B[i1//3];)"),
            "ggf: move 3: expected a square from a1 to h8 or PA, found \"i1//3\"",
        ),
        (
            "(;GM[Othello]PB[open".to_owned(),
            "ggf: PB[ is not closed with ]",
        ),
        (
            "(;GM[Othello]PB[x\\]".to_owned(),
            "ggf: PB[ is not closed with ]",
        ),
        (
            "(;GM[Othello]".to_owned(),
            "ggf: the game does not end with ;)",
        ),
        (
            "(;GM[Othello] ) ;)".to_owned(),
            "ggf: expected a tag such as PB[name] or the final ;), found \") ;)\"",
        ),
        (
            "(;GM[Othello];)(;GM[Othello];)".to_owned(),
            "ggf: expected one game, found more after its end: \"(;GM[Othello];)\"",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(error(&text), expected, "{text}");
    }
    // Game types with options other than the size, and GM[Reversi].
    let anti: Record = "(;GM[Reversi]TY[s8r20a];)".parse().unwrap();
    assert_eq!(anti.setup.win_rule, WinRule::FewestDiscs);
    let plain: Record = "(;TY[8kr];)".parse().unwrap();
    assert_eq!(
        plain,
        Record::new(Variant::Full, Setup::standard(Shape::STANDARD))
    );
}

#[test]
fn grader_input_of_a_short_game() {
    let record = Record {
        moves: squares("f5d6c3"),
        ..example()
    };
    let expected = "8\n8\nB\n>\n\
                    . . . . . . . .\n. . . . . . . .\n. . . . . . . .\n. . . W B . . .\n\
                    . . . B W . . .\n. . . . . . . .\n. . . . . . . .\n. . . . . . . .\n\
                    5 6\n6 4\n3 3\n";
    assert_eq!(record.to_grader_input().unwrap(), expected);
    let setup = Setup::from_grader_input(expected.as_bytes()).unwrap();
    assert_eq!(setup, record.setup);

    let wide = Record {
        moves: squares("p16"),
        ..Record::new(Variant::Simple, Setup::standard(shape(16, 16)))
    };
    assert!(wide.to_grader_input().unwrap().ends_with("\n16 16\n"));
    let odd = Record::new(Variant::Full, Setup::standard(shape(5, 8)));
    assert_eq!(
        odd.to_grader_input().unwrap_err().to_string(),
        "the grader protocol needs an even number of rows and columns, not 5x8"
    );
    assert!(
        Record::new(Variant::Full, Setup::standard(shape(8, 7)))
            .to_grader_input()
            .is_err()
    );
}

#[test]
fn obf_positions() {
    let start = "---------------------------OX------XO--------------------------- X";
    let record: Record = start.parse().unwrap();
    assert_eq!(
        record,
        Record::new(Variant::Full, Setup::standard(Shape::STANDARD))
    );
    let ffo = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- O; a2:+38; \
               bad scored move % ffo#40\n\n";
    let record: Record = ffo.parse().unwrap();
    assert_eq!(record.setup.first_mover, Color::White);
    assert_eq!(record.setup.board.empty_squares().count(), 20);
    assert!(record.moves.is_empty());
    assert_eq!(
        error(&start.replace(" X", " Z")),
        "obf: the side to move must be X or O, found \"Z\""
    );
    assert_eq!(
        error(&start.replace(" X", "")),
        "obf: expected the side to move (X or O) after the 64 cells"
    );
    // Two positions are not one game.
    assert!(error(&format!("{start}\n{start}\n")).starts_with("expected a game record"));
}

#[test]
fn unrecognized_text_names_the_formats() {
    for text in ["", "  \n", "hello", "f5 d6 pass"] {
        assert_eq!(
            error(text),
            format!(
                "expected a game record (# othello game record), a GGF game, a grader input, \
                 an OBF position or a move list such as f5d6c3, found {:?}",
                text.trim()
            )
        );
    }
    assert_eq!(
        error("8\n8\nB\n>\n"),
        "grader input: line 5: expected a board row, found end of input"
    );
}

#[test]
fn garbage_never_panics() {
    let garbage = [
        "(;",
        "(;;)",
        "(;]",
        "(;[",
        "(;B[",
        "(;B[\\",
        "(;BO[];)",
        "(;BO[8];)",
        "(;BO[8 *];)",
        "(;BO[8 - *];)",
        "(;BO[999999999999999999999 *];)",
        "(;TY[];)",
        "(;TY[00000000000000000000008];)",
        "(;B[];)",
        "(;B[/];)",
        "(;B[é];)",
        "(;é[x];)",
        "(;\u{0}",
        "#",
        "# othello",
        ":",
        "moves:",
        "moves: ::::",
        "moves: é1",
        "moves: a",
        "moves: a17",
        "moves: a1a",
        "board: ////////////////////////",
        "board: é",
        "size: 255x255",
        "size: 99999999999999999999x8",
        "size: x",
        "size: ×",
        "size: 8×8\nboard:",
        "first:",
        "win:",
        "date: \\u{",
        "date: \\u{}",
        "date: \\u{d800}",
        "date: \\u{ffffffffffff}",
        "black: \\",
        "black: é\\",
        "é",
        "\u{feff}f5",
        "\u{feff}",
        "\u{feff}(;",
        "a1a1a1a1a1a1a1a1a1",
        "p16",
        "q1",
        "X",
        "---------------------------------------------------------------- ",
        "----------------------------------------------------------------",
    ];
    for text in garbage {
        let _ = text.parse::<Record>();
        let _ = format!("{text}\r\n{text}").parse::<Record>();
        let _ = format!("# othello\n{text}").parse::<Record>();
    }
}

/// A record with any shape, discs, rules, players, date and moves on the board (not
/// necessarily legal ones).
fn any_record() -> impl Strategy<Value = Record> {
    (
        (
            4u8..=16,
            4u8..=16,
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        ),
        proptest::collection::vec(0u8..3, 256),
        (
            any::<String>(),
            any::<String>(),
            proptest::option::of(any::<String>()),
        ),
        proptest::collection::vec((0u8..16, 0u8..16), 0..40),
    )
        .prop_map(
            |(
                (rows, columns, simple, white, fewest),
                cells,
                (black_player, white_player, date),
                moves,
            )| {
                let shape = shape(rows, columns);
                let mut board = Board::empty(shape);
                for (square, cell) in shape.squares().zip(cells) {
                    board.set(
                        square,
                        [None, Some(Color::Black), Some(Color::White)][cell as usize],
                    );
                }
                Record {
                    variant: if simple {
                        Variant::Simple
                    } else {
                        Variant::Full
                    },
                    setup: Setup {
                        board,
                        first_mover: if white { Color::White } else { Color::Black },
                        win_rule: if fewest {
                            WinRule::FewestDiscs
                        } else {
                            WinRule::MostDiscs
                        },
                    },
                    players: [black_player, white_player],
                    date,
                    ratings: [None, None],
                    moves: moves
                        .into_iter()
                        .map(|(row, column)| Square::new(row % rows, column % columns))
                        .collect(),
                    ending: None,
                    clock: None,
                    times: Vec::new(),
                }
            },
        )
}

proptest! {
    #[test]
    fn every_record_round_trips(record in any_record()) {
        let text = record.to_string();
        prop_assert_eq!(text.parse::<Record>(), Ok(record));
    }

    #[test]
    fn every_full_8x8_game_round_trips_through_ggf(
        choices in proptest::collection::vec(any::<u8>(), 0..70),
        players in (any::<String>(), any::<String>()),
        date in proptest::option::of(any::<String>()),
        white_first in any::<bool>(),
        fewest in any::<bool>(),
    ) {
        let setup = Setup {
            board: Board::standard(Shape::STANDARD),
            first_mover: if white_first { Color::White } else { Color::Black },
            win_rule: if fewest { WinRule::FewestDiscs } else { WinRule::MostDiscs },
        };
        let mut game = Game::<Full>::new(setup);
        for choice in choices {
            let legal: Vec<Square> = game.legal_moves().iter().collect();
            if legal.is_empty() {
                break;
            }
            game.play(legal[usize::from(choice) % legal.len()]).unwrap();
        }
        let record = Record {
            players: [players.0, players.1],
            date,
            ..Record::from_game(&game)
        };
        let ggf = record.to_ggf().unwrap();
        prop_assert_eq!(ggf.parse::<Record>(), Ok(record));
    }

    #[test]
    fn any_text_parses_or_fails_without_panicking(text in any::<String>()) {
        let _ = text.parse::<Record>();
    }

    #[test]
    fn record_like_text_parses_or_fails_without_panicking(
        text in "(# othello game record\n)?((rules|size|first|win|board|black|white|date|moves|x): ?[-./BWx0-9a-q \\\\{}u]{0,90}\r?\n){0,8}"
    ) {
        let _ = text.parse::<Record>();
    }

    #[test]
    fn ggf_like_text_parses_or_fails_without_panicking(
        text in "\\(;(([A-Z]{1,2}|BO|TY|B|W)\\[[-*O8 a-hA-P0-9/\\\\]{0,70}\\]){0,12}(;\\))?"
    ) {
        let _ = text.parse::<Record>();
    }

    #[test]
    fn mutated_records_parse_or_fail_without_panicking(
        record in any_record(),
        cut in any::<prop::sample::Index>(),
        insert in any::<String>(),
    ) {
        let text = record.to_string();
        let mut at = cut.index(text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let _ = format!("{}{insert}{}", &text[..at], &text[at..]).parse::<Record>();
        let _ = text[..at].parse::<Record>();
    }
}

#[test]
fn a_grader_input_loads_with_the_moves_the_grader_accepts() {
    let mut record = Record::new(Variant::Full, Setup::standard(Shape::new(4, 6).unwrap()));
    record.moves = "c1d1".parse::<MoveList>().unwrap().0;
    let saved = record.to_grader_input().unwrap();
    let (loaded, stated) = Record::parse_stated(&saved).unwrap();
    assert_eq!(loaded, record, "{saved}");
    assert_eq!(stated.format, crate::RecordFormat::Grader);
    assert!(stated.board && stated.first && stated.win && !stated.rules);
    // Lines the grader answers INVALID are not moves; illegal ones go when replayed.
    let noisy = saved.replace("1 3\n", "x y\n1 3 5\n\n+1 +3\r\n99 1\n1 1\n");
    let (mut loaded, _) = Record::parse_stated(&noisy).unwrap();
    assert_eq!(loaded.moves.len(), 3, "{noisy}");
    loaded.keep_playable();
    assert_eq!(loaded.moves, record.moves, "{noisy}");
}

/// Issue 21.12: GGF names the result of a finished game, and a resignation or a loss on
/// time, as GGS writes them; reading it back keeps the moves.
#[test]
fn regression_21_12_ggf_writes_the_result() {
    let mut game = crate::Game::<crate::Full>::new(Setup::standard(Shape::STANDARD));
    while let Some(square) = game.legal_moves().first() {
        game.play(square).unwrap();
    }
    let finished = Record::from_game(&game);
    let ggf = finished.to_ggf().unwrap();
    let board = game.board();
    let lead = i64::from(board.count(Color::Black)) - i64::from(board.count(Color::White));
    let result = if lead == 0 {
        "RE[0]".to_owned()
    } else {
        format!("RE[{lead:+}]")
    };
    assert!(ggf.ends_with(&format!("{result};)")), "{ggf}");
    assert_eq!(ggf.parse::<Record>().unwrap().moves, finished.moves);
    let playing = Record {
        moves: squares("f5d6"),
        ..example()
    };
    assert!(!playing.to_ggf().unwrap().contains("RE["));
    for (ending, written) in [
        (Ending::Resigned(Color::White), "RE[+64:r]"),
        (Ending::Resigned(Color::Black), "RE[-64:r]"),
        (Ending::LostOnTime(Color::Black), "RE[-64:t]"),
    ] {
        let record = Record {
            ending: Some(ending),
            clock: None,
            times: Vec::new(),
            ..playing.clone()
        };
        assert!(record.to_ggf().unwrap().ends_with(&format!("{written};)")));
    }
}

/// Issue 22.10: move tags must be of the side to move, and a PA a pass the game needs.
#[test]
fn regression_22_10_ggf_colours_must_follow_the_game() {
    let start =
        "(;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]";
    let error = |moves: &str| {
        format!("{start}{moves};)")
            .parse::<Record>()
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        error("B[F5]W[PA]"),
        "ggf: move 2: W[PA], but White has a move to play"
    );
    assert_eq!(
        error("B[F5]B[F6]"),
        "ggf: move 2: B[F6], but White is to move"
    );
    assert_eq!(error("W[F5]"), "ggf: move 1: W[F5], but Black is to move");
    assert_eq!(
        error("B[PA]"),
        "ggf: move 1: B[PA], but Black has a move to play"
    );
    // Right colours, with and without the optional final PA, still read.
    let good = format!("{start}B[F5]W[F6];)").parse::<Record>().unwrap();
    assert_eq!(good.moves, squares("f5f6"));
}

#[test]
fn ggf_writes_the_time_control_and_each_move_s_time() {
    use std::time::Duration;
    let mut record = Record::new(Variant::Full, Setup::standard(Shape::STANDARD));
    record.moves = "f5d6c3".parse::<MoveList>().unwrap().0;
    record.clock = Some(TimeControl::new(300_000, 3_000));
    record.times = [1250, 30, 61_000].map(Duration::from_millis).to_vec();
    let ggf = record.to_ggf().unwrap();
    assert!(ggf.contains("TI[05:00/00:03/00:00]TY[8]"), "{ggf}");
    assert!(ggf.contains("B[F5//1.25]W[D6//0.03]B[C3//61.00]"), "{ggf}");
    // Read back: the moves (the times are not kept).
    assert_eq!(ggf.parse::<Record>().unwrap().moves, record.moves);
    record.clock = Some(TimeControl::new((2 * 3600 + 5) * 1000, 0));
    assert!(record.to_ggf().unwrap().contains("TI[2:00:05/00:00/00:00]"));
    record.clock = Some(TimeControl::correspondence(3));
    assert!(
        !record.to_ggf().unwrap().contains("TI["),
        "no bank of time to write"
    );
}
