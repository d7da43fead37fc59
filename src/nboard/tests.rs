//! Sessions run in memory: scripted input, every line of output checked.
//!
//! Exact scores come from endgame positions the engine solves, checked against a plain
//! minimax written apart from the library; midgame scores depend on the evaluation's weights,
//! so only their shape is checked.

use std::{
    io::{self, Cursor, Write},
    sync::{Arc, Mutex, mpsc},
    thread,
    time::{Duration, Instant},
};

use super::*;

/// A random game from the standard start to eight empty squares, where White's last move
/// (G8) leaves Black without a move: the GGF ends with Black's pass, `B[PA]`.
const MOVES_TO_PASS: &str = "B[C4]W[C3]B[C2]W[F4]B[F6]W[D6]B[D7]W[G7]B[F3]W[B2]B[A2]W[A1]\
    B[E6]W[B4]B[B3]W[C1]B[D1]W[C5]B[B1]W[F5]B[A3]W[B5]B[G4]W[F2]B[C6]W[H4]B[A6]W[D3]B[G2]\
    W[E2]B[E3]W[E7]B[H8]W[G6]B[F1]W[A5]B[F7]W[A4]B[G5]W[H5]B[B6]W[G3]B[H2]W[H3]B[H6]W[C8]\
    B[C7]W[F8]B[E8]W[H7]B[D2]W[G8]";

/// The standard start in GGF.
const START: &str = "BO[8 ---------------------------O*------*O--------------------------- *]";

/// `MOVES_TO_PASS` as a GGF game, with its final pass written or not.
fn game_to_pass(final_pass: bool) -> String {
    let pass = if final_pass { "B[PA]" } else { "" };
    format!("(;GM[Othello]PC[NBoard]PB[me]PW[you]RE[?]TI[5:00]TY[8]{START}{MOVES_TO_PASS}{pass};)")
}

/// White's moves after `MOVES_TO_PASS` and their exact scores (by minimax).
const SCORES_AFTER_PASS: [(&str, &str); 7] = [
    ("E1", "38.00"),
    ("H1", "38.00"),
    ("A7", "38.00"),
    ("B8", "34.00"),
    ("B7", "24.00"),
    ("D8", "24.00"),
    ("G1", "20.00"),
];

/// The position after `MOVES_TO_PASS` (White to move), then the game to its end, with a
/// pass of Black's in it.
const ENDGAME: &str = "(;GM[Othello]\
    BO[8 O***-*--O*******OOO**OO*OOO*O*O*O*OO*O*****OOOO*--***OOO--O-*OO* O]\
    W[H1]B[G1]W[B8]B[B7]W[E1]B[PA]W[D8]B[A7]W[A8];)";

/// Runs a session on `input` and returns its output.
fn session(input: impl Into<Vec<u8>>) -> String {
    let mut out = Vec::new();
    run(
        Cursor::new(input.into()),
        &mut out,
        &NboardOptions::default(),
    )
    .unwrap();
    String::from_utf8(out).unwrap()
}

/// The output with the numbers that depend on the machine left out: `nodestats` alone, and
/// `===` without its time.
fn steady(output: &str) -> Vec<String> {
    output
        .lines()
        .map(|line| {
            if line.starts_with("nodestats ") {
                "nodestats".to_owned()
            } else if let Some(chosen) = line.strip_prefix("=== ") {
                let kept: Vec<&str> = chosen.split('/').take(2).collect();
                format!("=== {}", kept.join("/"))
            } else {
                line.to_owned()
            }
        })
        .collect()
}

/// The `search` lines of `output` as (first move, eval, depth).
fn searched(output: &str) -> Vec<(String, String, String)> {
    output
        .lines()
        .filter_map(|line| line.strip_prefix("search "))
        .map(|rest| {
            let words: Vec<&str> = rest.split(' ').collect();
            assert_eq!(words.len(), 4, "{rest}");
            assert_eq!(words[2], "0", "{rest}");
            (
                words[0][..2].to_owned(),
                words[1].to_owned(),
                words[3].to_owned(),
            )
        })
        .collect()
}

#[test]
fn greets_answers_pings_and_learns() {
    assert_eq!(
        session("nboard 2\nping 1\nlearn\nping 2\n"),
        "set myname othello\npong 1\nlearned\npong 2\n"
    );
    assert_eq!(
        session("nboard 1\n"),
        "status this engine speaks NBoard protocol version 2, not 1; continuing with 2\n\
         set myname othello\n"
    );
}

#[test]
fn unknown_commands_and_blank_lines_are_ignored() {
    assert_eq!(
        session("nboard 2\nquit\n\nset myname other\nF5\n   \nmode 2\nping 3\n"),
        "set myname othello\npong 3\n"
    );
}

#[test]
fn bad_lines_get_a_status_line_and_change_nothing() {
    let mut input = b"nboard 2\nmove A1\nmove D4\nmove Z9\nmove F5/x\n".to_vec();
    input.extend_from_slice(b"bad \xff\xfe bytes\n");
    input.extend(std::iter::repeat_n(b'x', 5000));
    input.extend_from_slice(b"\nset game f5d6\nset game (;GM[Othello]B[A1];)\n");
    input.extend_from_slice(b"set game (;GM[Othello]BO[8 ***];)\nset depth 0\nhint 0\n");
    input.extend_from_slice(b"ping x\nset contempt 0\nset contempt 2.5\nmove PA\n");
    // The position is still the start: F5 is legal, and Black's four moves are there.
    input.extend_from_slice(b"set depth 1\nmove F5\nmove F5\nhint 4\n");
    let output = session(input);
    let lines = steady(&output);
    let expected = [
        "set myname othello",
        "status move refused: illegal move a1: it flips no disc",
        "status move refused: d4 is already occupied",
        "status move: expected a square from A1 to H8 or PA, then optionally /eval/time, \
         found \"Z9\"",
        "status move: expected a square from A1 to H8 or PA, then optionally /eval/time, \
         found \"F5/x\"",
        "status ignored a line that is not UTF-8 text",
        "status ignored a line longer than 4096 bytes",
        "status set game: expected a GGF game (;GM[Othello]...;), found \"f5d6\"",
        "status set game refused: move 1: illegal move a1: it flips no disc",
        "status set game: ggf: expected BO[8 <64 cells of *, O or -> <side to move, * or O>], \
         found BO[8 ***]",
        "status set depth: expected a depth from 1 to 60, found \"0\"",
        "status hint: expected a number of moves from 1, found \"0\"",
        "status ping: expected an integer, found \"x\"",
        "status contempt ignored: this engine values every draw at 0",
        "status move PA refused: Black has a legal move",
        "status move refused: f5 is already occupied",
        "status analyzing",
    ];
    assert_eq!(lines[..expected.len()], expected, "{output}");
    // White to move after F5: its three replies at depth 1.
    let replies: Vec<String> = searched(&output)
        .into_iter()
        .map(|(mv, _, depth)| {
            assert_eq!(depth, "1");
            mv
        })
        .collect();
    let mut sorted = replies.clone();
    sorted.sort();
    assert_eq!(sorted, ["D6", "F4", "F6"], "{output}");
    assert_eq!(
        lines[lines.len() - 2..],
        ["nodestats", "status"],
        "{output}"
    );
}

#[test]
fn a_final_pass_in_the_ggf_is_applied_written_or_not() {
    for final_pass in [true, false] {
        let input = format!(
            "nboard 2\nset depth 10\nset game {}\nhint 7\n",
            game_to_pass(final_pass)
        );
        let output = session(input);
        let mut found = searched(&output);
        assert_eq!(found.len(), 7, "{output}");
        // Best first; ties in any order.
        assert!(found.windows(2).all(|pair| {
            pair[0].1.parse::<f64>().unwrap() >= pair[1].1.parse::<f64>().unwrap()
        }));
        found.sort();
        let mut expected: Vec<(String, String, String)> = SCORES_AFTER_PASS
            .iter()
            .map(|&(mv, eval)| (mv.to_owned(), eval.to_owned(), "100%".to_owned()))
            .collect();
        expected.sort();
        assert_eq!(found, expected, "{output}");
        assert!(output.starts_with("set myname othello\nstatus analyzing\nsearch "));
        assert!(output.ends_with("status\n"), "{output}");
    }
}

#[test]
fn a_ggf_states_its_passes() {
    // Written or not, Black's final pass is made: a `move PA` now would be White's.
    for final_pass in [true, false] {
        let input = format!(
            "set game {}\nmove PA\nmove H1\nmove PA\n",
            game_to_pass(final_pass)
        );
        assert_eq!(
            session(input),
            "status move PA refused: White has a legal move\n\
             status move PA refused: Black has a legal move\n"
        );
    }
}

#[test]
fn until_the_gui_writes_a_pass_its_side_to_move_must_pass() {
    let before_pass = MOVES_TO_PASS.strip_suffix("W[G8]").unwrap();
    let input = format!(
        "set depth 10\nset game (;GM[Othello]{START}{before_pass};)\nmove G8\ngo\nhint 3\n\
         move PA\nmove PA\ngo\n"
    );
    let output = session(input);
    let lines = steady(&output);
    assert_eq!(
        lines[..4],
        ["status thinking", "nodestats", "=== PA/-38.00", "status"],
        "{output}"
    );
    // The pass is Black's only move: one line, the pass then White's best reply.
    assert_eq!(
        searched(&output),
        [("PA".to_owned(), "-38.00".to_owned(), "100%".to_owned())]
    );
    let pv = output
        .lines()
        .find(|line| line.starts_with("search "))
        .unwrap();
    assert!(pv.starts_with("search PA-"), "{pv}");
    // One `move PA` is the pass; a second one would be White's. Then White chooses.
    assert_eq!(lines.len(), 13, "{output}");
    assert_eq!(
        lines[8..11],
        [
            "status move PA refused: White has a legal move",
            "status thinking",
            "nodestats",
        ]
    );
    let best: Vec<String> = SCORES_AFTER_PASS[..3]
        .iter()
        .map(|&(mv, eval)| format!("=== {mv}/{eval}"))
        .collect();
    assert!(best.contains(&lines[11]), "{output}");
    assert_eq!(lines[12], "status");
}

#[test]
fn go_names_a_best_move_and_does_not_play_it() {
    let input = format!(
        "set depth 10\nset game {}\ngo\ngo\nhint 1\n",
        game_to_pass(true)
    );
    let output = session(input);
    let lines = steady(&output);
    let best: Vec<&str> = SCORES_AFTER_PASS[..3].iter().map(|&(mv, _)| mv).collect();
    assert_eq!(lines[0], "status thinking", "{output}");
    assert_eq!(lines[1], "nodestats", "{output}");
    let chosen = lines[2].strip_prefix("=== ").unwrap();
    let (mv, eval) = chosen.split_once('/').unwrap();
    assert!(best.contains(&mv) && eval == "38.00", "{output}");
    assert_eq!(lines[3], "status");
    // Still White to move in the same position: the same answer, and a hint for White.
    assert_eq!(lines[4..8], lines[..4], "{output}");
    assert_eq!(searched(&output)[0].1, "38.00");
    // Its time is seconds to the millisecond.
    let time = output.lines().nth(2).unwrap().rsplit('/').next().unwrap();
    assert!(time.parse::<f64>().is_ok() && time.len() >= 5, "{time}");
}

#[test]
fn go_and_hint_in_the_midgame() {
    let output = session("nboard 2\nset depth 3\ngo\nmove F5\nhint 2\n");
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines[..2], ["set myname othello", "status thinking"]);
    assert!(lines[2].starts_with("nodestats "), "{output}");
    let nodes: Vec<&str> = lines[2].split(' ').collect();
    assert!(nodes[1].parse::<u64>().is_ok() && nodes[2].parse::<f64>().is_ok());
    let chosen = lines[3].strip_prefix("=== ").unwrap();
    let parts: Vec<&str> = chosen.split('/').collect();
    assert!(["F5", "E6", "D3", "C4"].contains(&parts[0]), "{output}");
    assert!(parts[1].parse::<f64>().is_ok() && parts[2].parse::<f64>().is_ok());
    assert_eq!(lines[4..6], ["status", "status analyzing"]);
    let found = searched(&output);
    assert_eq!(found.len(), 2, "{output}");
    for (mv, eval, depth) in found {
        assert!(["D6", "F4", "F6"].contains(&mv.as_str()), "{output}");
        assert!(eval.parse::<f64>().is_ok());
        assert_eq!(depth, "3");
    }
    assert!(output.ends_with("status\n"));
}

#[test]
fn a_pv_is_one_word_of_moves() {
    let output = session("set depth 4\nhint 1\n");
    let line = output
        .lines()
        .find(|line| line.starts_with("search "))
        .unwrap();
    let pv = line.split(' ').nth(1).unwrap();
    assert!(
        pv.split('-')
            .all(|mv| mv == "PA" || mv.parse::<othello::Square>().is_ok() && mv.len() == 2),
        "{line}"
    );
}

#[test]
fn analyze_counts_passes_and_scores_each_side_to_move() {
    let output = session(format!("set depth 10\nset game {ENDGAME}\nanalyze\n"));
    let lines = steady(&output);
    // Exact values by minimax, from the end back to the start; 5 is Black's pass, 9 the end
    // of the game (scored for Black, due next).
    let values = [-38, 38, -26, 36, -36, 36, -30, 38, -38, 38];
    let mut expected = vec!["status analyzing the game".to_owned()];
    for (index, value) in values.iter().enumerate() {
        expected.push(format!("analysis {} {value}.00", 9 - index));
    }
    expected.extend(["nodestats".to_owned(), "status".to_owned()]);
    assert_eq!(lines, expected, "{output}");
}

#[test]
fn analyze_from_the_start_numbers_every_move() {
    let output = session("set depth 1\nmove F5\nmove D6\nanalyze\n");
    let numbers: Vec<&str> = output
        .lines()
        .filter_map(|line| line.strip_prefix("analysis "))
        .map(|rest| rest.split(' ').next().unwrap())
        .collect();
    assert_eq!(numbers, ["2", "1", "0"], "{output}");
}

#[test]
fn nothing_to_search_once_the_game_is_over() {
    let input = format!("set game {ENDGAME}\ngo\nhint 3\nmove PA\nmove A1\n");
    assert_eq!(
        session(input),
        "status the game is over: no move to search\n\
         status the game is over: no move to search\n\
         status move PA refused: the game is over\n\
         status move refused: the game is over\n"
    );
}

#[test]
fn the_end_of_the_input_comes_after_every_answer() {
    // No newline after the last command.
    let output = session("set depth 2\nmove F5\ngo");
    assert!(
        output.starts_with("status thinking\nnodestats "),
        "{output}"
    );
    assert!(output.contains("\n=== "), "{output}");
    assert!(output.ends_with("\nstatus\n"), "{output}");
    assert_eq!(session(""), "");
}

#[test]
fn a_ping_after_a_search_stops_it() {
    // Depth 60 from the start is a solve of 60 empty squares: it ends only because the ping
    // stops it (whether the ping is read before the search starts or while it runs).
    for search in ["go", "hint 2", "analyze"] {
        let output = session(format!("set depth 60\n{search}\nping 1\n"));
        assert!(output.ends_with("status\npong 1\n"), "{search}: {output}");
        if search == "go" {
            assert!(output.contains("\n=== "), "{output}");
        }
    }
}

/// Output that another thread can read while the session writes.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Shared {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }

    /// Waits (at most a generous while) until the output holds `wanted`.
    fn wait_for(&self, wanted: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self.text().contains(wanted) {
            assert!(
                Instant::now() < deadline,
                "no {wanted:?} in {:?}",
                self.text()
            );
            thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Write for Shared {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_ping_interrupts_a_running_search() {
    for (search, started) in [
        ("go", "status thinking\n"),
        ("hint 3", "status analyzing\n"),
    ] {
        let (reader, mut writer) = io::pipe().unwrap();
        let out = Shared::default();
        let (done, finished) = mpsc::channel();
        let mut session_out = out.clone();
        thread::spawn(move || {
            let result = run(reader, &mut session_out, &NboardOptions::default());
            let _ = done.send(result.is_ok());
        });
        writeln!(writer, "nboard 2\nset depth 40\n{search}").unwrap();
        out.wait_for(started);
        writeln!(writer, "ping 7").unwrap();
        out.wait_for("pong 7\n");
        drop(writer);
        assert_eq!(finished.recv_timeout(Duration::from_secs(30)), Ok(true));
        let text = out.text();
        let answer = if search == "go" {
            "\n=== "
        } else {
            "\nsearch "
        };
        let answered = text.find(answer).expect(&text);
        let cleared = text.rfind("status\n").expect(&text);
        let pong = text.find("pong 7\n").expect(&text);
        assert!(answered < cleared && cleared < pong, "{text}");
        assert!(text.ends_with("status\npong 7\n"), "{text}");
    }
}

/// A writer whose reader has gone away.
struct Closed;

impl Write for Closed {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::ErrorKind::BrokenPipe.into())
    }

    fn flush(&mut self) -> io::Result<()> {
        Err(io::ErrorKind::BrokenPipe.into())
    }
}

#[test]
fn a_closed_output_ends_the_session_as_a_broken_pipe() {
    let error = run(
        Cursor::new(b"nboard 2\ngo\n".to_vec()),
        &mut Closed,
        &NboardOptions::default(),
    )
    .unwrap_err();
    assert!(error.is_broken_pipe(), "{error}");
    // Nothing to write: nothing fails.
    run(
        Cursor::new(b"set depth 3\n".to_vec()),
        &mut Closed,
        &NboardOptions::default(),
    )
    .unwrap();
}

#[test]
fn positions_number_passes_as_moves() {
    let record: othello::Record = ENDGAME.parse().unwrap();
    let game = record.replay_as::<Full>().unwrap();
    let sides: String = positions(&game)
        .iter()
        .map(|(made, setup)| format!("{made}{}", setup.first_mover))
        .collect();
    assert_eq!(sides, "0W1B2W3B4W5B6W7B8W9B");
    assert!(!pass_owed(&game));
    let record: othello::Record = game_to_pass(false).parse().unwrap();
    let game = record.replay_as::<Full>().unwrap();
    assert!(pass_owed(&game));
    let last = positions(&game);
    assert_eq!(last.len(), 54);
    assert_eq!(last[52].1.first_mover, Color::Black, "Black's pass");
    assert_eq!(last[53].1.first_mover, Color::White);
}

/// With the book on, the start is answered from it: `book` lines for `hint`, the best book
/// move for `go`, no search; off the book's lines, the search as ever.
#[test]
fn book_positions_are_answered_from_the_book() {
    let options = NboardOptions {
        book: true,
        ..NboardOptions::default()
    };
    let mut out = Vec::new();
    let input = format!(
        "nboard 2\nset depth 4\nset game (;GM[Othello]TY[8]{START};)\nhint 2\ngo\n\
         set game (;GM[Othello]TY[8]{START}{MOVES_TO_PASS};)\nhint 1\n"
    );
    run(Cursor::new(input), &mut out, &options).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let book: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("book "))
        .collect();
    assert_eq!(book.len(), 2, "{text}");
    for line in &book {
        let fields: Vec<&str> = line.split(' ').collect();
        assert!(["D3", "C4", "F5", "E6"].contains(&fields[1]), "{line}");
        assert_eq!(fields[3], "0", "{line}");
        assert!(
            fields[4].contains('@') || fields[4].parse::<u32>().is_ok(),
            "{line}"
        );
    }
    let chosen = lines.iter().find(|l| l.starts_with("=== ")).unwrap();
    assert!(
        ["D3", "C4", "F5", "E6"]
            .iter()
            .any(|mv| chosen.starts_with(&format!("=== {mv}/"))),
        "{chosen}"
    );
    // Deep in a game: a search line.
    assert!(lines.iter().any(|l| l.starts_with("search ")), "{text}");
}

/// The `nodestats` counts of a session's output, in order.
fn node_counts(output: &str) -> Vec<u64> {
    output
        .lines()
        .filter_map(|line| line.strip_prefix("nodestats "))
        .map(|rest| rest.split(' ').next().unwrap().parse().unwrap())
        .collect()
}

/// Issue 44.16: the table is kept between the searches of a game (a search again of the
/// same position finds it: far fewer nodes), and emptied by `set game` of another game.
#[test]
fn regression_44_16_the_table_is_kept_between_searches_of_a_game() {
    let game = "(;GM[Othello]PC[NBoard]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[D6]B[C3]W[D3]B[C4];)";
    let other = "(;GM[Othello]PC[NBoard]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[D3]W[C5];)";
    let script = format!(
        "nboard 2\nset depth 9\nset game {game}\ngo\ngo\nset game {other}\ngo\ngo\nset game {game}\ngo\n"
    );
    let counts = node_counts(&session(script));
    assert_eq!(counts.len(), 5, "{counts:?}");
    // The same position again: answered mostly from the table.
    assert!(counts[1] * 4 < counts[0], "{counts:?}");
    assert!(counts[3] * 4 < counts[2], "{counts:?}");
    // Back to the first game: a new game, so a table emptied, not the one of before.
    assert!(counts[4] * 4 > counts[0], "{counts:?}");
}
