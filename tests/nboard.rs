//! `othello nboard` through the binary: scripted sessions piped whole, and a GUI's
//! conversation one line at a time, with `ping`s that interrupt searches.
//!
//! Exact scores come from endgame positions the engine solves (checked against a plain
//! minimax written apart from the library); midgame scores depend on the evaluation's
//! weights, so only their shape is checked.

mod common;

use std::{
    io::{BufRead, BufReader, Read, Write},
    process::{Child, ChildStdin, Command as StdCommand, Stdio},
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use assert_cmd::Command;
use common::{othello, othello_path};
use predicates::prelude::*;

/// `othello nboard` with a timeout, so a hung session fails instead of stalling CI; without
/// the opening book, so that the start is searched like any position (the book's answers
/// are tested in the binary's own tests).
fn nboard() -> Command {
    let mut command = othello();
    command.args(["nboard", "--no-book"]);
    command
}

/// A random game from the standard start to eight empty squares; White's last move (G8)
/// leaves Black without a move.
const MOVES_TO_PASS: &str = "B[C4]W[C3]B[C2]W[F4]B[F6]W[D6]B[D7]W[G7]B[F3]W[B2]B[A2]W[A1]\
    B[E6]W[B4]B[B3]W[C1]B[D1]W[C5]B[B1]W[F5]B[A3]W[B5]B[G4]W[F2]B[C6]W[H4]B[A6]W[D3]B[G2]\
    W[E2]B[E3]W[E7]B[H8]W[G6]B[F1]W[A5]B[F7]W[A4]B[G5]W[H5]B[B6]W[G3]B[H2]W[H3]B[H6]W[C8]\
    B[C7]W[F8]B[E8]W[H7]B[D2]W[G8]";

/// The standard start in GGF.
const START: &str = "BO[8 ---------------------------O*------*O--------------------------- *]";

/// `MOVES_TO_PASS` as NBoard writes a game, with the final pass (`B[PA]`) or without it.
fn game_to_pass(final_pass: bool) -> String {
    format!(
        "(;GM[Othello]PC[NBoard]DT[2026-01-01 10:00:00 GMT]PB[me]PW[othello]RE[?]TI[5:00]TY[8]\
         {START}{MOVES_TO_PASS}{};)",
        if final_pass { "B[PA]" } else { "" }
    )
}

/// The position after `MOVES_TO_PASS` (White to move), then the game to its end, with a
/// pass of Black's in it.
const ENDGAME: &str = "(;GM[Othello]\
    BO[8 O***-*--O*******OOO**OO*OOO*O*O*O*OO*O*****OOOO*--***OOO--O-*OO* O]\
    W[H1]B[G1]W[B8]B[B7]W[E1]B[PA]W[D8]B[A7]W[A8];)";

/// The output with what depends on the machine or on ties left out: `nodestats` alone, `===`
/// without its time, and a `search` line's expected line cut to its first move.
fn steady(output: &str) -> Vec<String> {
    output
        .lines()
        .map(|line| {
            if line.starts_with("nodestats ") {
                let numbers: Vec<&str> = line.split(' ').skip(1).collect();
                assert!(
                    numbers.len() == 2
                        && numbers[0].parse::<u64>().is_ok()
                        && numbers[1].parse::<f64>().is_ok(),
                    "{line}"
                );
                "nodestats".to_owned()
            } else if let Some(chosen) = line.strip_prefix("=== ") {
                let parts: Vec<&str> = chosen.split('/').collect();
                assert!(
                    parts.len() == 3 && parts[2].parse::<f64>().is_ok(),
                    "{line}"
                );
                format!("=== {}/{}", parts[0], parts[1])
            } else if let Some(search) = line.strip_prefix("search ") {
                let words: Vec<&str> = search.split(' ').collect();
                assert_eq!(words.len(), 4, "{line}");
                format!(
                    "search {} {} {} {}",
                    &words[0][..2],
                    words[1],
                    words[2],
                    words[3]
                )
            } else {
                line.to_owned()
            }
        })
        .collect()
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

mod scripted {
    use super::*;

    #[test]
    fn every_command_in_one_session() {
        let input = format!(
            "nboard 2\nping 1\nset depth 10\nset contempt 0\nset game {}\nmove PA\n\
             move H1/38.00/1.5\ngo\nmove G1\nmove b8\nhint 2\ngo\nlearn\nquit\n\
             set game {ENDGAME}\nanalyze\n",
            game_to_pass(true)
        );
        let output = nboard().write_stdin(input).output().unwrap();
        assert_eq!(output.status.code(), Some(0));
        assert_eq!(String::from_utf8_lossy(&output.stderr), "");
        let text = stdout(&output);
        let expected = [
            "set myname othello",
            "pong 1",
            // The GGF wrote Black's pass: White is to move.
            "status move PA refused: White has a legal move",
            // Black's only move after H1.
            "status thinking",
            "nodestats",
            "=== G1/-38.00",
            "status",
            // After B8, Black's two moves, solved.
            "status analyzing",
            "search D8 -30.00 0 100%",
            "search B7 -36.00 0 100%",
            "nodestats",
            "status",
            "status thinking",
            "nodestats",
            "=== D8/-30.00",
            "status",
            "learned",
            // Every position from the end of the game back to the start: 5 is Black's pass,
            // 9 the end (scored for Black, due next).
            "status analyzing the game",
            "analysis 9 -38.00",
            "analysis 8 38.00",
            "analysis 7 -26.00",
            "analysis 6 36.00",
            "analysis 5 -36.00",
            "analysis 4 36.00",
            "analysis 3 -30.00",
            "analysis 2 38.00",
            "analysis 1 -38.00",
            "analysis 0 38.00",
            "nodestats",
            "status",
        ];
        assert_eq!(steady(&text), expected, "{text}");
        assert!(text.ends_with("status\n") && !text.contains('\r'));
    }

    #[test]
    fn a_final_pass_is_applied_whether_the_ggf_writes_it_or_not() {
        let answers: Vec<Vec<String>> = [true, false]
            .into_iter()
            .map(|final_pass| {
                let input = format!("set depth 10\nset game {}\ngo\n", game_to_pass(final_pass));
                let output = nboard().write_stdin(input).output().unwrap();
                assert_eq!(output.status.code(), Some(0));
                steady(&stdout(&output))
            })
            .collect();
        assert_eq!(answers[0], answers[1]);
        // White moves: E1, H1 and A7 all win by 38 discs.
        let chosen = answers[0][2].strip_prefix("=== ").unwrap();
        assert!(
            ["E1/38.00", "H1/38.00", "A7/38.00"].contains(&chosen),
            "{answers:?}"
        );
    }

    #[test]
    fn bad_lines_get_a_status_line_and_the_session_goes_on() {
        let mut input = b"nboard 2\n\x00\x01garbage\x7f\n".to_vec();
        input.extend_from_slice(b"\xff\xfe\xfd\r\n");
        input.extend_from_slice(b"move A1\nmove PA\nmove e3/0.5\nset depth -3\n");
        input.extend_from_slice(b"set game (;GM[Othello]BO[8 --];)\n");
        input.extend_from_slice(b"set game (;GM[Chess];)\nset game (;GM[Othello]B[D4];)\n");
        input.extend(std::iter::repeat_n(b'(', 100_000));
        input.extend_from_slice(b"\nping 5\n");
        let output = nboard().write_stdin(input).output().unwrap();
        assert_eq!(output.status.code(), Some(0));
        assert_eq!(String::from_utf8_lossy(&output.stderr), "");
        assert_eq!(
            stdout(&output),
            "set myname othello\n\
             status ignored a line that is not UTF-8 text\n\
             status move refused: illegal move a1: it flips no disc\n\
             status move PA refused: Black has a legal move\n\
             status move refused: illegal move e3: it flips no disc\n\
             status set depth: expected a depth from 1 to 60, found \"-3\"\n\
             status set game: ggf: expected BO[8 <64 cells of *, O or -> <side to move, * or \
             O>], found BO[8 --]\n\
             status set game: ggf: expected an othello game, found GM[Chess]\n\
             status set game refused: move 1: d4 is already occupied\n\
             status ignored a line longer than 4096 bytes\n\
             pong 5\n"
        );
    }

    #[test]
    fn the_end_of_the_input_ends_the_session_after_its_answers() {
        let output = nboard()
            .write_stdin("set depth 2\nmove f5\ngo")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0));
        let lines = steady(&stdout(&output));
        assert_eq!(lines.len(), 4, "{lines:?}");
        assert_eq!(lines[..2], ["status thinking", "nodestats"]);
        assert!(lines[2].starts_with("=== "), "{lines:?}");
        assert_eq!(lines[3], "status");
        nboard()
            .write_stdin("")
            .assert()
            .success()
            .stdout("")
            .stderr("");
    }

    #[test]
    fn a_ping_after_a_search_cuts_it_short() {
        // A search of the whole game: only the ping ends it.
        nboard()
            .write_stdin("set depth 60\ngo\nping 1\n")
            .assert()
            .success()
            .stdout(predicate::str::contains("\n=== "))
            .stdout(predicate::str::ends_with("status\npong 1\n"));
    }

    #[test]
    fn help_lists_the_command() {
        othello()
            .arg("--help")
            .assert()
            .success()
            .stdout(predicate::str::contains("nboard"));
        nboard().arg("--hash").arg("0").assert().code(1).stdout("");
    }
}

/// A running `othello nboard` driven one line at a time, as a GUI drives it.
struct Gui {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Gui {
    fn start() -> Gui {
        let mut child = StdCommand::new(othello_path())
            .args(["nboard", "--no-book"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Gui {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The lines up to and including `last`, waiting a generous while for each.
    fn until(&self, last: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(30)) {
                Ok(line) => {
                    let done = line == last;
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("no {last:?} after {seen:?}"),
            }
        }
    }

    /// Closes the input and waits for the program to end.
    fn finish(mut self) -> (Option<i32>, String) {
        drop(self.stdin.take());
        let start = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > Duration::from_secs(30) {
                let _ = self.child.kill();
                panic!("still running 30 s after the end of its input");
            }
            thread::sleep(Duration::from_millis(5));
        };
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        (status.code(), stderr)
    }
}

mod live {
    use super::*;

    #[test]
    fn each_answer_comes_before_the_next_question() {
        let mut gui = Gui::start();
        gui.send("nboard 2");
        gui.send("ping 1");
        assert_eq!(gui.until("pong 1"), ["set myname othello", "pong 1"]);
        gui.send("set depth 10");
        gui.send(&format!("set game {}", game_to_pass(true)));
        gui.send("move h1");
        gui.send("go");
        let answer = gui.until("status");
        assert_eq!(answer[0], "status thinking");
        assert!(answer[2].starts_with("=== G1/-38.00/"), "{answer:?}");
        let (code, stderr) = gui.finish();
        assert_eq!((code, stderr.as_str()), (Some(0), ""));
    }

    #[test]
    fn a_ping_interrupts_a_search_and_its_pong_comes_after_the_answer() {
        let mut gui = Gui::start();
        // Depth 40 from the start would take years: only the pings end these searches.
        gui.send("nboard 2");
        gui.send("set depth 40");
        gui.send("go");
        gui.until("status thinking");
        gui.send("ping 1");
        let rest = gui.until("pong 1");
        let answer = rest.iter().position(|line| line.starts_with("=== "));
        assert!(answer.is_some(), "{rest:?}");
        assert_eq!(rest[rest.len() - 2..], ["status", "pong 1"]);

        gui.send("hint 3");
        gui.until("status analyzing");
        gui.send("ping 2");
        let rest = gui.until("pong 2");
        assert!(rest[0].starts_with("search "), "{rest:?}");
        assert_eq!(rest[rest.len() - 2..], ["status", "pong 2"]);

        gui.send(&format!("set game (;GM[Othello]{START}B[F5]W[D6];)"));
        gui.send("analyze");
        gui.until("status analyzing the game");
        gui.send("ping 3");
        let rest = gui.until("pong 3");
        assert_eq!(rest[rest.len() - 2..], ["status", "pong 3"]);

        // The engine is still there, and answers for the position set.
        gui.send(&format!("set game {}", game_to_pass(true)));
        gui.send("set depth 10");
        gui.send("hint 1");
        let hint = gui.until("status");
        assert!(
            hint.iter().any(|line| line.ends_with(" 38.00 0 100%")),
            "{hint:?}"
        );
        let (code, stderr) = gui.finish();
        assert_eq!((code, stderr.as_str()), (Some(0), ""));
    }

    #[test]
    fn a_closed_output_ends_the_program_quietly() {
        let mut child = StdCommand::new(othello_path())
            .args(["nboard", "--no-book"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Nobody reads the output: the program's first write fails.
        drop(child.stdout.take());
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "nboard 2").unwrap();
        stdin.flush().unwrap();
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(start.elapsed() < Duration::from_secs(30), "it must end");
            thread::sleep(Duration::from_millis(5));
        };
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        assert_eq!((status.code(), stderr.as_str()), (Some(0), ""));
        drop(stdin);
    }
}
