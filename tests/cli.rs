//! The `othello` binary: arguments, exit statuses, stderr, and the protocol as a harness sees
//! it (piped whole, and driven line by line).

mod common;

use std::{
    io::{BufRead, BufReader, Read, Write},
    path::Path,
    process::{Child, Command as StdCommand, Stdio},
    sync::mpsc,
    thread,
    time::{Duration, Instant},
};

use common::{othello, othello_path};
use othello::protocol;
use predicates::prelude::*;

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/transcripts")
        .join(name)
}

mod arguments {
    use super::*;

    #[test]
    fn help_and_version_succeed_on_stdout() {
        othello()
            .arg("--help")
            .assert()
            .success()
            .stdout(predicate::str::contains("--rules <RULES>"))
            .stdout(predicate::str::contains("Exit status"))
            .stderr(predicate::str::is_empty());
        othello()
            .arg("--version")
            .assert()
            .success()
            .stdout(format!("othello {}\n", env!("CARGO_PKG_VERSION")));
    }

    #[test]
    fn bad_arguments_exit_1_without_touching_stdout() {
        for args in [
            &["--rules", "fast"][..],
            &["--bogus"],
            &["extra"],
            &["--rules"],
        ] {
            othello()
                .args(args)
                .write_stdin("4\n")
                .assert()
                .code(1)
                .stdout(predicate::str::is_empty())
                // One line (issue 44.15).
                .stderr(predicate::str::is_match("^othello: [^\n]+\n$").unwrap());
        }
    }

    #[test]
    fn rules_choose_the_first_line() {
        let start = std::fs::read(fixture("full/spec-full-4x4.in")).unwrap();
        for (args, first) in [
            (&[][..], "FULL\n"),
            (&["--rules", "full"], "FULL\n"),
            (&["--rules", "simple"], "SIMPLE\n"),
            (&["--rules=simple"], "SIMPLE\n"),
        ] {
            othello()
                .args(args)
                .write_stdin(start.clone())
                .assert()
                .stdout(predicate::str::starts_with(first));
        }
        // Spellings the quick path for grader arguments does not take still go to clap.
        for args in [
            &["--rules", "FULL"][..],
            &["--rules"],
            &["--rules=fast"],
            &["-x"],
        ] {
            othello()
                .args(args)
                .write_stdin(start.clone())
                .assert()
                .code(1)
                .stdout("");
        }
    }
}

mod piped {
    use super::*;

    #[test]
    fn every_scenario_through_the_binary_matches_the_library() {
        let scenarios = common::scenarios();
        assert!(scenarios.len() >= 40, "only {} scenarios", scenarios.len());
        for path in scenarios {
            let input = std::fs::read(&path).unwrap();
            let variant = common::rules_of(&path);
            let mut expected = Vec::new();
            let result = protocol::run(&input[..], &mut expected, variant);
            let (status, stderr) = match result {
                Ok(_) => (0, String::new()),
                Err(error) => (error.exit_status(), format!("othello: {error}\n")),
            };
            othello()
                .args(["--rules", variant.name()])
                .write_stdin(input)
                .assert()
                .code(i32::from(status))
                .stdout(expected)
                .stderr(stderr);
        }
    }

    #[test]
    fn spec_examples_byte_for_byte() {
        for (name, rules, status) in [
            ("full/spec-full-4x4", "full", 0),
            ("full/spec-full-first-mover-passes", "full", 0),
            ("full/spec-full-over-before-first-move", "full", 0),
            ("full/spec-full-malformed-moves-then-eof", "full", 3),
            ("simple/spec-simple-4x4", "simple", 0),
        ] {
            let expected = std::fs::read(fixture(&format!("{name}.out"))).unwrap();
            let stderr = if status == 3 {
                "othello: input ended before the game was over\n"
            } else {
                ""
            };
            othello()
                .args(["--rules", rules])
                .pipe_stdin(fixture(&format!("{name}.in")))
                .unwrap()
                .assert()
                .code(status)
                .stdout(expected)
                .stderr(stderr);
        }
    }

    #[test]
    fn spec_example_copies_match_the_shared_contract() {
        let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/spec/examples");
        if !shared.is_dir() {
            eprintln!("skipped: {} is not here", shared.display());
            return;
        }
        for (copy, original) in [
            ("full/spec-full-4x4", "full-4x4"),
            (
                "full/spec-full-first-mover-passes",
                "full-first-mover-passes",
            ),
            (
                "full/spec-full-over-before-first-move",
                "full-over-before-first-move",
            ),
            (
                "full/spec-full-malformed-moves-then-eof",
                "full-malformed-moves-then-eof",
            ),
            ("simple/spec-simple-4x4", "simple-4x4"),
        ] {
            for ext in ["in", "out"] {
                assert_eq!(
                    std::fs::read(fixture(&format!("{copy}.{ext}"))).unwrap(),
                    std::fs::read(shared.join(format!("{original}.{ext}"))).unwrap(),
                    "{copy}.{ext}"
                );
            }
        }
    }

    #[test]
    fn malformed_setup_exits_2_with_one_stderr_line() {
        othello()
            .write_stdin("5\n4\nB\n>\n")
            .assert()
            .code(2)
            .stdout("FULL\n")
            .stderr("othello: line 1: rows must be an even integer from 4 to 16, found \"5\"\n");
        othello()
            .args(["--rules", "simple"])
            .write_stdin("4\n4\nB\n>\n. . . .\n. B W .\n")
            .assert()
            .code(2)
            .stdout("SIMPLE\n")
            .stderr("othello: line 7: expected a board row, found end of input\n");
    }

    #[test]
    fn input_ending_mid_game_exits_3_after_flushing_the_transcript() {
        othello()
            .write_stdin("4\n4\nB\n>\n. . . .\n. B W .\n. W B .\n. . . .\n2 4\n")
            .assert()
            .code(3)
            .stdout(predicate::str::ends_with(
                "VALID\nB: 4  W: 1\n. . . .\n. B B B\n. W B .\n. . . .\nTURN: W\n",
            ))
            .stderr("othello: input ended before the game was over\n");
    }

    #[test]
    fn a_megabyte_move_line_is_one_invalid_line() {
        let mut input = b"4\n4\nW\n>\nB . . .\n. W . .\n. . . .\n. . . .\n".to_vec();
        input.extend(std::iter::repeat_n(b'7', 3 << 20));
        input.extend_from_slice(b"\n3 3\n");
        othello()
            .write_stdin(input)
            .assert()
            .success()
            .stdout(predicate::str::contains("TURN: B\nINVALID\nVALID\n"));
    }

    #[test]
    fn unreadable_input_exits_1() {
        let dir = std::fs::File::open(env!("CARGO_MANIFEST_DIR")).unwrap();
        let output = StdCommand::new(othello_path()).stdin(dir).output().unwrap();
        assert_eq!(output.status.code(), Some(1));
        assert_eq!(output.stdout, b"FULL\n");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.starts_with("othello: cannot read input: "),
            "{stderr}"
        );
        assert_eq!(stderr.lines().count(), 1);
    }

    #[test]
    fn unwritable_output_exits_1() {
        let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
            eprintln!("skipped: no /dev/full here");
            return;
        };
        let output = StdCommand::new(othello_path())
            .stdin(std::fs::File::open(fixture("full/spec-full-4x4.in")).unwrap())
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.starts_with("othello: cannot write output: "),
            "{stderr}"
        );
    }

    #[test]
    fn a_reader_that_goes_away_ends_the_program_quietly() {
        let mut input = std::fs::read(fixture("full/spec-full-4x4.in")).unwrap();
        input.truncate(input.len() - 4); // keep the game going: only invalid lines follow
        for _ in 0..200_000 {
            input.extend_from_slice(b"9 9\n");
        }
        let mut child = StdCommand::new(othello_path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert_eq!(first, "FULL\n");
        // The reader is dropped here: the program's next writes fail with a broken pipe.
        let status = wait_with_timeout(&mut child, Duration::from_secs(20)).expect("it ends");
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        writer.join().unwrap();
        assert_eq!(stderr, "", "no panic message, no error line");
        assert_eq!(status.code(), Some(0));
    }
}

/// Drives a program like the course harness: wait for the rules line before sending
/// anything, send the header and board, then send each move line only once the output before
/// it has arrived, with a timeout on every expected line; after `WINNER:` the program must exit
/// within two seconds.
fn drive_line_by_line(
    mut command: StdCommand,
    input: &[u8],
    expected: &str,
    timeout: Duration,
) -> Result<Option<i32>, String> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdin = child.stdin.take().unwrap();
    let (sender, received) = mpsc::channel();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    thread::spawn(move || {
        for line in stdout.lines() {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    let mut input_lines = input.split_inclusive(|&b| b == b'\n');
    let mut send = |lines: &mut dyn Iterator<Item = &[u8]>, count: usize| {
        for line in lines.take(count) {
            stdin.write_all(line).and_then(|()| stdin.flush()).ok();
        }
    };
    let mut header_sent = false;
    let result = (|| {
        for (n, want) in expected.lines().enumerate() {
            let got = received
                .recv_timeout(timeout)
                .map_err(|_| format!("timed out waiting for line {} {want:?}", n + 1))?
                .map_err(|e| e.to_string())?;
            if got != want {
                return Err(format!("line {}: expected {want:?}, got {got:?}", n + 1));
            }
            if !header_sent {
                // The rules line has arrived: send the header, then as many rows as it names.
                let rows: Vec<&[u8]> = input_lines.by_ref().take(4).collect();
                let count: usize = String::from_utf8_lossy(rows[0]).trim().parse().unwrap();
                send(&mut rows.into_iter(), 4);
                send(&mut input_lines, count);
                header_sent = true;
            } else if want.starts_with("TURN: ") || want == "INVALID" {
                send(&mut input_lines, 1);
            }
        }
        Ok(())
    })();
    // Closing stdin ends the input: a game still in progress must now exit with status 3.
    drop(stdin);
    if let Err(message) = result {
        let _ = child.kill();
        let _ = child.wait();
        return Err(message);
    }
    match wait_with_timeout(&mut child, Duration::from_secs(2)) {
        Some(status) => Ok(status.code()),
        None => {
            let _ = child.kill();
            let _ = child.wait();
            Err("did not exit within 2 s".into())
        }
    }
}

fn wait_with_timeout(child: &mut Child, timeout: Duration) -> Option<std::process::ExitStatus> {
    let start = Instant::now();
    while start.elapsed() < timeout {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        thread::sleep(Duration::from_millis(5));
    }
    None
}

mod line_by_line {
    use super::*;

    fn binary(rules: othello::Variant) -> StdCommand {
        let mut command = StdCommand::new(othello_path());
        command.args(["--rules", rules.name()]);
        command
    }

    #[test]
    fn scenarios_driven_one_line_at_a_time() {
        for name in [
            "full/spec-full-4x4.in",
            "full/spec-full-first-mover-passes.in",
            "full/spec-full-over-before-first-move.in",
            "full/spec-full-malformed-moves-then-eof.in",
            "simple/spec-simple-4x4.in",
            "full/every-malformed-move-line.in",
            "full/16x16-game-with-invalid-lines.in",
            "full/4x16-game.in",
            "simple/6x6-two-passes.in",
        ] {
            let path = fixture(name);
            let input = std::fs::read(&path).unwrap();
            let rules = common::rules_of(&path);
            let mut expected = Vec::new();
            let status = match protocol::run(&input[..], &mut expected, rules) {
                Ok(_) => 0,
                Err(error) => error.exit_status(),
            };
            let expected = String::from_utf8(expected).unwrap();
            let result =
                drive_line_by_line(binary(rules), &input, &expected, Duration::from_secs(10));
            assert_eq!(result, Ok(Some(i32::from(status))), "{name}");
        }
    }

    #[test]
    fn the_driver_catches_a_program_that_waits_for_input_before_answering() {
        // Prints the right first line, but only after reading all of its input: a harness
        // waiting for that line before sending anything would hang.
        let mut command = StdCommand::new("sh");
        command.args(["-c", "cat >/dev/null; echo FULL"]);
        let input = std::fs::read(fixture("full/spec-full-4x4.in")).unwrap();
        let result = drive_line_by_line(command, &input, "FULL\n", Duration::from_millis(300));
        assert_eq!(result, Err("timed out waiting for line 1 \"FULL\"".into()));
    }
}

mod perft {
    use super::*;

    /// The first two columns of each line.
    fn counts(stdout: &[u8]) -> Vec<(u32, u64)> {
        String::from_utf8_lossy(stdout)
            .lines()
            .map(|line| {
                let mut columns = line.split(' ');
                let depth = columns.next().unwrap().parse().unwrap();
                (depth, columns.next().unwrap().parse().unwrap())
            })
            .collect()
    }

    #[test]
    fn one_line_per_depth_from_the_standard_start() {
        let output = othello().args(["perft", "5"]).output().unwrap();
        assert!(output.status.success());
        assert!(output.stderr.is_empty());
        assert_eq!(
            counts(&output.stdout),
            [(1, 4), (2, 12), (3, 56), (4, 244), (5, 1396)]
        );
        let simple = othello()
            .args(["perft", "3", "--rules", "simple"])
            .output()
            .unwrap();
        assert_eq!(counts(&simple.stdout), [(1, 10), (2, 134), (3, 1640)]);
    }

    #[test]
    fn json_lines() {
        let output = othello().args(["perft", "2", "--json"]).output().unwrap();
        let text = String::from_utf8(output.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        for (line, (depth, leaves)) in lines.iter().zip([(1, 4), (2, 12)]) {
            let prefix = format!("{{\"depth\":{depth},\"leaves\":{leaves},\"seconds\":");
            assert!(line.starts_with(&prefix) && line.ends_with('}'), "{line}");
            let seconds = &line[prefix.len()..line.len() - 1];
            assert!(seconds.parse::<f64>().is_ok_and(|s| s >= 0.0), "{line}");
        }
    }

    #[test]
    fn position_from_a_grader_input_file() {
        // The course example: its move lines after the board are ignored.
        let output = othello()
            .args(["perft", "3", "--position"])
            .arg(fixture("full/spec-full-4x4.in"))
            .output()
            .unwrap();
        assert!(output.status.success());
        assert_eq!(counts(&output.stdout), [(1, 4), (2, 12), (3, 44)]);
        // White is named first but has no move: the pass is the first ply.
        let output = othello()
            .args(["perft", "2", "--position"])
            .arg(fixture("full/spec-full-first-mover-passes.in"))
            .output()
            .unwrap();
        assert_eq!(counts(&output.stdout), [(1, 1), (2, 1)]);
    }

    #[test]
    fn bad_positions_and_depths() {
        othello()
            .args(["perft", "3", "--position", "no/such/file.in"])
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::starts_with(
                "othello: cannot read no/such/file.in: ",
            ));
        othello()
            .args(["perft", "3", "--position"])
            .arg(fixture("full/error-rows-odd.in"))
            .assert()
            .code(2)
            .stderr(predicate::str::ends_with(
                "error-rows-odd.in: line 1: rows must be an even integer from 4 to 16, found \"5\"\n",
            ));
        for args in [
            &["perft", "0"][..],
            &["perft"],
            &["perft", "x"],
            &["--rules", "simple", "perft", "2"],
        ] {
            othello().args(args).assert().code(1).stdout("");
        }
    }
}

mod solve_and_hint {
    use super::*;

    const FFO_40: &str = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X";

    fn ffo_suite() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/ffo40-59.obf")
    }

    #[test]
    fn solves_ffo_40() {
        othello()
            .args(["solve", "--obf", FFO_40])
            .assert()
            .success()
            .stdout(predicate::str::starts_with("a2 +38 ("))
            .stderr("");
        let output = othello()
            .args(["solve", "--json", "--obf", FFO_40])
            .output()
            .unwrap();
        let line = String::from_utf8(output.stdout).unwrap();
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            (&value["move"], &value["score"], &value["solved"]),
            (&"a2".into(), &38.into(), &true.into()),
            "{line}"
        );
        assert!(value["nodes"].as_u64().unwrap() > 0, "{line}");
        assert_eq!(line.lines().count(), 1, "{line}");
    }

    #[test]
    fn suite_rows_total_and_exit_status() {
        let dir = tempfile::tempdir().unwrap();
        let suite = dir.path().join("one.obf");
        let wrong = dir.path().join("wrong.obf");
        std::fs::write(
            &suite,
            format!("% a comment\n\n{FFO_40}; a2:+38; % ffo#40, 20 empties\n"),
        )
        .unwrap();
        std::fs::write(&wrong, format!("{FFO_40}; a2:+36; % ffo#40 misprinted\n")).unwrap();
        othello()
            .args(["solve", "--suite"])
            .arg(&suite)
            .assert()
            .success()
            .stdout(predicate::str::contains(
                "ffo#40     a2     +38  expected  +38  ok",
            ))
            .stdout(predicate::str::contains(
                "total: 1 position, 1 right, 0 wrong",
            ));
        othello()
            .args(["solve", "--json", "--suite"])
            .arg(&wrong)
            .assert()
            .code(1)
            .stdout(predicate::str::contains("\"expected\":36,\"ok\":false"))
            .stderr("othello: 1 of 1 scores differ from the suite's or were not found in time\n");
        // FFO #40 needs millions of nodes: never within a millisecond, however loaded the
        // machine (an easy position may finish before the clock is first looked at).
        othello()
            .args(["solve", "--time", "1", "--suite"])
            .arg(&suite)
            .assert()
            .code(1)
            .stdout(predicate::str::contains(
                "ffo#40     -        -  expected  +38  TIMEOUT",
            ))
            .stdout(predicate::str::contains(
                "total: 1 position, 0 right, 0 wrong, 1 not solved in time",
            ));
    }

    #[test]
    fn positions_from_grader_files_and_bad_input() {
        // The course's 4x4 start under SIMPLE rules, and a finished game.
        othello()
            .args(["solve", "--rules", "simple", "--position"])
            .arg(fixture("full/spec-full-4x4.in"))
            .assert()
            .success()
            .stdout(predicate::str::is_match(r"^[a-d][1-4] [+-]\d+ \(").unwrap());
        othello()
            .args(["solve", "--position"])
            .arg(fixture("full/full-board-tie.in"))
            .assert()
            .success()
            .stdout(predicate::str::starts_with("none +0 ("));
        othello()
            .args(["solve", "--obf", "XO X"])
            .assert()
            .code(2)
            .stderr(
                "othello: --obf: expected 64 board cells (a1 to h8, each X, O or -) before the \
                 side to move, found 2\n",
            );
        othello().args(["solve"]).assert().code(1).stdout("");
        othello()
            .args(["solve", "--obf", FFO_40, "--position", "x.in"])
            .assert()
            .code(1);
    }

    #[test]
    fn hint_lists_the_best_moves() {
        let output = othello()
            .args(["hint", "--count", "3", "--depth", "4"])
            .arg("--obf")
            .arg("---------------------------OX------XO--------------------------- X")
            .output()
            .unwrap();
        assert!(output.status.success());
        let text = String::from_utf8(output.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        for (i, line) in lines.iter().enumerate() {
            assert!(line.starts_with(&format!("{}. ", i + 1)), "{line}");
            assert!(line.contains("(depth 4@73%)"), "{line}");
        }
        // Near the end the search sees everything: exact scores.
        let json = othello()
            .args(["hint", "--json", "--count", "1", "--position"])
            .arg(fixture("full/spec-full-4x4.in"))
            .output()
            .unwrap();
        let line = String::from_utf8(json.stdout).unwrap();
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["moves"][0]["rank"], 1, "{line}");
        assert_eq!(value["moves"][0]["score"], -10.0, "{line}");
        assert_eq!(value["moves"][0]["exact"], true, "{line}");
        assert_eq!(value["exact"], true, "{line}");
        othello()
            .args(["hint", "--depth", "3", "--time", "100", "--obf", FFO_40])
            .assert()
            .code(1);
    }

    /// Selective hints say how sure they are (`depth 9@95%`, "selectivity":95); two
    /// threads solve to the same exact score.
    #[test]
    fn selective_hints_and_threads() {
        let midgame = "---------------------------OX------XO--------------------------- X";
        let output = othello()
            .args([
                "hint",
                "--depth",
                "9",
                "--selectivity",
                "95",
                "--threads",
                "2",
                "--obf",
                midgame,
            ])
            .output()
            .unwrap();
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(output.status.success(), "{text}");
        assert!(
            text.lines().all(|line| line.contains("(depth 9@95%)")),
            "{text}"
        );
        let json = othello()
            .args([
                "hint",
                "--json",
                "--depth",
                "6",
                "--selectivity",
                "87%",
                "--obf",
                midgame,
            ])
            .output()
            .unwrap();
        let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(
            (&value["selectivity"], &value["depth"]),
            (&87.into(), &6.into())
        );
        // 73 % by default; full width when asked.
        let json = othello()
            .args(["hint", "--json", "--depth", "6", "--obf", midgame])
            .output()
            .unwrap();
        let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(value["selectivity"], 73);
        let json = othello()
            .args([
                "hint",
                "--json",
                "--depth",
                "6",
                "--selectivity",
                "100",
                "--obf",
                midgame,
            ])
            .output()
            .unwrap();
        let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(
            (&value["selectivity"], &value["exact"]),
            (&100.into(), &false.into())
        );
        // A kind of game with a cut model compiled in for its shipped weights (10 x 10)
        // searches selectively by default; one with none (6 x 6, 12 x 12) stays full width.
        let dir = tempfile::tempdir().unwrap();
        for (size, selectivity) in [(10, 73), (12, 100), (6, 100)] {
            let shape = othello::Shape::new(size, size).unwrap();
            let path = dir.path().join(format!("{size}.txt"));
            std::fs::write(&path, othello::Setup::standard(shape).to_string()).unwrap();
            let json = othello()
                .args(["hint", "--json", "--depth", "4", "--position"])
                .arg(&path)
                .output()
                .unwrap();
            let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
            assert_eq!(
                (&value["selectivity"], &value["depth"]),
                (&selectivity.into(), &4.into()),
                "{size} x {size}: {value}"
            );
            assert_eq!(
                value["evaluation"],
                format!("learned patterns for {size}x{size} FULL most (built in)"),
                "{value}"
            );
        }
        othello()
            .args(["hint", "--selectivity", "90", "--obf", midgame])
            .assert()
            .code(1)
            .stderr(predicate::str::contains("one of 73, 87, 95, 98, 99, 100"));
        for threads in ["1", "2"] {
            othello()
                .args(["solve", "--threads", threads, "--obf", FFO_40])
                .assert()
                .success()
                .stdout(predicate::str::starts_with("a2 +38 ("));
        }
        othello()
            .args(["solve", "--threads", "0", "--obf", FFO_40])
            .assert()
            .code(1);
    }

    /// The FFO suite's positions 40 to 49 must all come out exactly right (about 3.5
    /// minutes here in a release build).
    #[test]
    #[ignore = "slow: cargo test --release --test cli -- --ignored ffo"]
    fn ffo_40_to_49_exact() {
        let text = std::fs::read_to_string(ffo_suite()).expect("../shared/data/ffo40-59.obf");
        let dir = tempfile::tempdir().unwrap();
        let suite = dir.path().join("ffo40-49.obf");
        let first_ten: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with('%'))
            .take(10)
            .collect();
        std::fs::write(&suite, first_ten.join("\n")).unwrap();
        othello()
            .args(["solve", "--suite"])
            .arg(&suite)
            .assert()
            .success()
            .stdout(predicate::str::contains(
                "total: 10 positions, 10 right, 0 wrong",
            ));
    }
}

mod match_command {
    use super::*;

    /// The numbers of a player's row: wins, draws, losses.
    fn row(text: &str, spec: &str) -> [u32; 3] {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(spec))
            .unwrap_or_else(|| panic!("no row for {spec}: {text}"));
        let fields: Vec<u32> = line
            .split_whitespace()
            .skip(1)
            .take(3)
            .map(|f| f.parse().unwrap())
            .collect();
        [fields[0], fields[1], fields[2]]
    }

    #[test]
    fn a_table_of_results_that_repeats_with_the_seed() {
        let args = [
            "match",
            "--black",
            "engine:2",
            "--white",
            "random",
            "--games",
            "6",
            "--size",
            "6x6",
            "--seed",
            "5",
            "--time-per-move",
            "100000", // no time limit can change a move: the test repeats exactly
        ];
        let output = othello().args(args).output().unwrap();
        assert!(output.status.success());
        assert!(output.stderr.is_empty(), "no progress bar off a terminal");
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(
            text.starts_with(
                "6x6 FULL, most discs wins, 6 games, 4 random opening moves, 100000 ms a move, seed 5\n"
            ),
            "{text}"
        );
        let [wins, draws, losses] = row(&text, "engine:2");
        assert_eq!(wins + draws + losses, 6);
        assert_eq!(row(&text, "random"), [losses, draws, wins]);
        assert!(text.contains("Elo engine:2 - random: "), "{text}");
        // engine:2 is bound by depth, not time, and the random player by its seed.
        othello().args(args).assert().success().stdout(text);
    }

    #[test]
    fn json_summary_in_the_order_of_the_first_game() {
        let output = othello()
            .args(["match", "--json", "--black", "greedy", "--white", "random"])
            .args(["--games", "4", "--rules", "simple", "--win", "fewest"])
            .output()
            .unwrap();
        assert!(output.status.success());
        let json = String::from_utf8(output.stdout).unwrap();
        assert!(
            json.starts_with("{\"games\":4,\"players\":[{\"spec\":\"greedy\",\"wins\":"),
            "{json}"
        );
        assert!(json.contains("},{\"spec\":\"random\",\"wins\":"), "{json}");
        assert!(json.contains("\"draws\":"), "{json}");
        assert!(
            json.ends_with("}}\n") && json.lines().count() == 1,
            "{json}"
        );
    }

    /// `--black-odds K`: that player searches K times the nodes (or time) a move, which
    /// shows in its results, and the table and JSON name it; only searching players take
    /// odds.
    #[test]
    fn odds_give_one_player_more_search() {
        let args = |odds: &str| {
            [
                "match",
                "--json",
                "--size",
                "6x6",
                "--black",
                "classic",
                "--white",
                "classic",
                "--games",
                "10",
                "--nodes-per-move",
                "300",
                "--no-book",
                "--seed",
                "3",
                "--white-odds",
                odds,
            ]
            .map(str::to_owned)
        };
        let score = |odds: &str| -> serde_json::Value {
            let output = othello().args(args(odds)).output().unwrap();
            assert!(output.status.success(), "{output:?}");
            serde_json::from_slice(&output.stdout).unwrap()
        };
        let even = score("1");
        let given = score("30");
        assert_eq!(given["players"][1]["odds"], 30, "{given}");
        assert!(given["players"][0].get("odds").is_none(), "{given}");
        // Thirty times the search wins nearly every game; even odds do not.
        let wins = |value: &serde_json::Value| value["players"][1]["wins"].as_u64().unwrap();
        assert!(wins(&given) >= 9, "{given}");
        assert!(wins(&even) < 9, "{even}");
        othello()
            .args(["match", "--black", "engine:3", "--black-odds", "4"])
            .args(["--white", "greedy", "--games", "2", "--size", "6x6"])
            .assert()
            .success()
            .stdout(predicate::str::contains("engine:3 x4 "));
        othello()
            .args(["match", "--black", "greedy", "--black-odds", "4"])
            .args(["--white", "random", "--games", "2"])
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::contains("odds given for greedy"));
        // Found by the red team: the longest time given a thousand times over panicked.
        othello()
            .args(["match", "--black", "classic", "--black-odds", "1000"])
            .args(["--white", "classic", "--games", "2", "--size", "4x4"])
            .args(["--time-per-move", "18446744073709551615"])
            .assert()
            .success()
            .stdout(predicate::str::contains("classic x1000 "));
        othello()
            .args(["match", "--black", "engine", "--white-odds", "0"])
            .args(["--white", "random", "--games", "2"])
            .assert()
            .code(1)
            .stdout("");
    }

    /// 4x4 SIMPLE with most discs winning is a win for White (docs/solved.md: -4): two
    /// engines that solve it split every pair of games, and the table shows that the colour,
    /// not the player, won them.
    #[test]
    fn the_colour_that_wins_is_shown() {
        let args = [
            "match",
            "--rules",
            "simple",
            "--size",
            "4x4",
            "--black",
            "classic",
            "--white",
            "engine",
            "--games",
            "4",
            "--openings",
            "0",
            "--time-per-move",
            "100000", // both solve the board whatever the machine
        ];
        let output = othello().args(args).output().unwrap();
        assert!(output.status.success());
        let text = String::from_utf8(output.stdout).unwrap();
        assert_eq!(row(&text, "classic"), [2, 0, 2], "{text}");
        assert!(
            text.contains("\nby colour: Black won 0, White won 4\n"),
            "{text}"
        );
        let output = othello().args(args).arg("--json").output().unwrap();
        let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(value["wins_by_color"]["black"], 0, "{value}");
        assert_eq!(value["wins_by_color"]["white"], 4, "{value}");
    }

    #[test]
    fn a_progress_bar_only_on_a_terminal() {
        // The engine takes all of its 20 ms a move: the match lasts long enough to draw.
        let args = [
            "match",
            "--black",
            "engine",
            "--white",
            "greedy",
            "--games",
            "6",
            "--size",
            "6x6",
            "--time-per-move",
            "20",
        ];
        let shown = common::in_terminal(&args, true, b"");
        assert!(shown.contains("/6 games"), "{shown}");
        // The table still comes, after the bar is cleared.
        assert!(shown.contains("Elo engine - greedy: "), "{shown}");
    }

    #[test]
    fn from_a_position_file_and_bad_arguments() {
        // The course's 4x4 example: White named first but stuck, so every game is the same.
        let output = othello()
            .args([
                "match", "--black", "random", "--white", "greedy", "--games", "2",
            ])
            .args(["--openings", "0", "--position"])
            .arg(fixture("full/spec-full-4x4.in"))
            .output()
            .unwrap();
        assert!(output.status.success());
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(
            text.starts_with("4x4 FULL, most discs wins, 2 games, 0 random"),
            "{text}"
        );
        for bad in [
            &[
                "match", "--black", "human", "--white", "greedy", "--games", "2",
            ][..],
            &[
                "match",
                "--black",
                "greedy",
                "--white",
                "engine:11",
                "--games",
                "2",
            ],
            &[
                "match", "--black", "greedy", "--white", "random", "--games", "0",
            ],
            &["match", "--black", "greedy", "--white", "random"],
            &[
                "match", "--black", "greedy", "--white", "random", "--games", "1", "--size", "3x8",
            ],
            &[
                "match", "--black", "greedy", "--white", "random", "--games", "1", "--size", "8",
            ],
        ] {
            othello().args(bad).assert().code(1).stdout("");
        }
        othello()
            .args([
                "match", "--black", "greedy", "--white", "random", "--games", "1",
            ])
            .args(["--position", "no-such-file.in"])
            .assert()
            .code(1)
            .stderr(predicate::str::starts_with(
                "othello: cannot read no-such-file.in",
            ));
    }
}

mod analyze_command {
    use super::*;

    /// A whole 4x4 game (exact everywhere: the solver sees to the end at once).
    const GAME: &str = "# othello game record\nrules: full\nsize: 4x4\nfirst: B\nwin: most\n\
                        board: ..../.WB./.BW./....\nmoves: d3 d4 b1 d2 c4 a1 a2 a3 a4 b4 c1 d1\n";

    #[test]
    fn every_move_against_the_best_as_text_and_json() {
        let dir = tempfile::tempdir().unwrap();
        let game = dir.path().join("game.rec");
        std::fs::write(&game, GAME).unwrap();
        let output = othello()
            .args(["analyze", "--time", "200"])
            .arg(&game)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(text.starts_with("  1. Black d3 "), "{text}");
        assert!(text.contains("Black: "), "{text}");
        assert!(text.contains("White: "), "{text}");
        assert!(text.lines().all(|line| !line.ends_with(' ')), "{text}");
        let output = othello()
            .args(["analyze", "--json", "--time", "200"])
            .arg(&game)
            .output()
            .unwrap();
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let moves = report["moves"].as_array().unwrap();
        assert!(!moves.is_empty() && moves.len() <= 12, "{report}");
        for review in moves {
            assert_eq!(review["exact"], true, "{review}");
            let loss = review["loss"].as_f64().unwrap();
            assert_eq!(
                loss,
                review["best_score"].as_f64().unwrap() - review["score"].as_f64().unwrap(),
                "{review}"
            );
            let verdict = review["verdict"].as_str().unwrap();
            let expected = if loss >= 10.0 {
                "blunder"
            } else if loss >= 4.0 {
                "mistake"
            } else {
                "fine"
            };
            assert_eq!(verdict, expected, "{review}");
        }
        let black_moves = moves.iter().filter(|m| m["side"] == "B").count();
        assert_eq!(report["summary"]["black"]["moves"], black_moves);
        // A file that is not a game is an error that names it.
        std::fs::write(dir.path().join("junk.txt"), "hello\n").unwrap();
        othello()
            .args(["analyze", "junk.txt"])
            .current_dir(dir.path())
            .assert()
            .code(2)
            .stderr(predicate::str::contains("junk.txt"));
    }
}

mod train_command {
    use super::*;

    fn train(dir: &Path, args: &[&str]) -> String {
        let output = othello()
            .arg("train")
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    /// The pipeline end to end on a tiny scale: every step reproducible, a step stopped
    /// and run again goes on to the same file, the weights load and play.
    #[test]
    fn selfplay_label_fit_resume_and_reproduce() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let selfplay = |out: &str, games: &str| {
            train(
                dir,
                &[
                    "selfplay",
                    "--out",
                    out,
                    "--games",
                    games,
                    "--seed",
                    "5",
                    "--depth",
                    "2",
                    "--weights",
                    "classic",
                ],
            )
        };
        let text = selfplay("all.bin", "24");
        assert!(text.starts_with("games 0..24 of 8x8 FULL most: "), "{text}");
        // Stopped half way (the file cut in a record), then run again: the same file as all
        // at once. (The last game begun is played again: a stop may have cut it short.)
        let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
        let whole = read("all.bin");
        std::fs::write(dir.join("parts.bin"), &whole[..whole.len() / 2 + 5]).unwrap();
        let text = selfplay("parts.bin", "24");
        assert!(text.starts_with("games 1"), "{text}");
        assert_eq!(read("parts.bin"), whole);

        let label = |input: &str, out: &str| {
            train(
                dir,
                &[
                    "label",
                    "--in",
                    input,
                    "--out",
                    out,
                    "--exact",
                    "8",
                    "--depth",
                    "2",
                    "--weights",
                    "classic",
                ],
            )
        };
        let text = label("all.bin", "labelled.bin");
        assert!(text.contains(" solved exactly, "), "{text}");
        // A label step cut short (here: its file truncated mid-record) goes on.
        let whole = read("labelled.bin");
        std::fs::write(dir.join("cut.bin"), &whole[..whole.len() / 2 + 5]).unwrap();
        label("all.bin", "cut.bin");
        assert_eq!(read("cut.bin"), whole);

        let text = train(
            dir,
            &[
                "fit",
                "--in",
                "labelled.bin",
                "--out",
                "w.bin",
                "--epochs",
                "20",
                "--min-count",
                "1",
            ],
        );
        assert!(text.contains("held-out error"), "{text}");
        assert!(text.lines().any(|line| line.starts_with("all ")), "{text}");
        // A phase without positions shows no error rather than NaN.
        assert!(!text.contains("NaN"), "{text}");
        train(
            dir,
            &[
                "fit",
                "--in",
                "labelled.bin",
                "--out",
                "again.bin",
                "--epochs",
                "20",
                "--min-count",
                "1",
            ],
        );
        assert_eq!(read("w.bin"), read("again.bin"), "fits repeat");
        // The weights play: a two-game match with them.
        othello()
            .args([
                "match",
                "--black",
                "engine:2",
                "--black-weights",
                "w.bin",
                "--white",
                "random",
                "--games",
                "2",
                "--time-per-move",
                "5",
            ])
            .current_dir(dir)
            .assert()
            .success()
            .stdout(predicate::str::contains("engine:2 (w.bin)"));
        // Two generations' files of the same name are told apart by their paths.
        for generation in ["gen1", "gen2"] {
            std::fs::create_dir_all(dir.join(generation)).unwrap();
            std::fs::copy(dir.join("w.bin"), dir.join(generation).join("w.bin")).unwrap();
        }
        othello()
            .args([
                "match",
                "--black",
                "engine:2",
                "--black-weights",
                "gen2/w.bin",
                "--white",
                "engine:2",
                "--white-weights",
                "gen1/w.bin",
                "--games",
                "2",
                "--time-per-move",
                "5",
            ])
            .current_dir(dir)
            .assert()
            .success()
            .stdout(predicate::str::contains("engine:2 (gen2/w.bin)"))
            .stdout(predicate::str::contains("engine:2 (gen1/w.bin)"));
        // A file that is not weights is refused with its name.
        std::fs::write(dir.join("junk.bin"), b"nothing").unwrap();
        othello()
            .args([
                "match",
                "--black",
                "engine",
                "--black-weights",
                "junk.bin",
                "--white",
                "random",
                "--games",
                "2",
            ])
            .current_dir(dir)
            .assert()
            .code(1)
            .stderr(predicate::str::contains("junk.bin: not a weights file"));
        // probcut: the selective search's model, fitted and written as JSON.
        let text = train(
            dir,
            &[
                "probcut",
                "--in",
                "all.bin",
                "--out",
                "cut.json",
                "--positions",
                "12",
                "--endgame-positions",
                "10",
                "--depth",
                "6",
                "--exact",
                "13",
                "--weights",
                "classic",
            ],
        );
        assert!(
            text.starts_with("48 midgame and 10 endgame pairs of 8x8 FULL most with classic in "),
            "{text}"
        );
        assert!(text.contains("  depth  pairs  mean  deviation"), "{text}");
        let model: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("cut.json")).unwrap()).unwrap();
        assert_eq!(model["version"], 1);
        assert_eq!(model["evaluation"], "classic");
        assert_eq!(model["midgame"]["samples"], 48);
        assert_eq!(model["endgame"]["samples"], 10);
        assert_eq!(
            model["midgame"]["deviation"]["coefficients"]
                .as_array()
                .unwrap()
                .len(),
            4
        );
        // measure: both evaluations on a few positions.
        let text = train(
            dir,
            &[
                "measure",
                "--positions",
                "3",
                "--depth",
                "2",
                "--deep",
                "3",
                "--endgame",
                "10",
                "--weights",
                "w.bin",
            ],
        );
        assert!(
            text.contains("Move quality: 3 positions of 8x8 FULL most at 10-14 empties"),
            "{text}"
        );
        assert!(text.contains("mean loss"), "{text}");
        assert!(
            text.contains("against the exact score, 3 positions at 10 empties"),
            "{text}"
        );
        // Moves chosen within a number of positions are the same on every run.
        let by_nodes = |more: &[&str]| {
            let mut args = vec![
                "measure",
                "--positions",
                "3",
                "--nodes",
                "3000",
                "--endgame",
                "10",
                "--weights",
                "w.bin",
                "--moves-only",
            ];
            args.extend(more);
            let text = train(dir, &args);
            // All but the time taken.
            text.lines()
                .filter(|line| !line.starts_with('('))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let first = by_nodes(&[]);
        assert!(
            first.contains("the move a 3000-node search chooses"),
            "{first}"
        );
        assert_eq!(first, by_nodes(&[]));
        // The exact scores kept in a file: the same figures when the file is written and
        // when they are read back from it (the engine's tests show it is not solving again).
        assert_eq!(first, by_nodes(&["--solved", "scores.json"]));
        let kept = std::fs::read_to_string(dir.join("scores.json")).unwrap();
        let file: serde_json::Value = serde_json::from_str(&kept).unwrap();
        assert_eq!(file["format"], "othello exact scores");
        assert!(file["scores"].as_array().unwrap().len() >= 3, "{kept}");
        assert_eq!(first, by_nodes(&["--solved", "scores.json"]));
        assert_eq!(
            std::fs::read_to_string(dir.join("scores.json")).unwrap(),
            kept
        );
        // A damaged file is refused, not taken for scores.
        std::fs::write(dir.join("bad.json"), &kept[..kept.len() / 2]).unwrap();
        othello()
            .current_dir(dir)
            .args(["train", "measure", "--positions", "1", "--moves-only"])
            .args(["--solved", "bad.json"])
            .assert()
            .failure()
            .stderr(predicate::str::contains("not a file of exact scores"));
    }

    /// An opening is bounded by the board's own game, not by 8 x 8's: 12 x 12 takes 70-80
    /// random moves (none of them kept, so each game's first position has 60-70 empty
    /// squares), 6 x 6 refuses 2-40 and 8 x 8 refuses 4-60, each naming its bound; the
    /// default opening is cut to fit 4 x 4 rather than refused.
    #[test]
    fn the_opening_is_bounded_by_the_board() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let selfplay = |size: &str, opening: &str| {
            othello()
                .current_dir(dir)
                .args(["train", "selfplay", "--out", "play.bin", "--games", "2"])
                .args(["--size", size, "--opening", opening, "--depth", "1"])
                .args(["--result-labels", "140", "--weights", "classic"])
                .assert()
        };
        selfplay("12x12", "70-80").success();
        let played = samples(&dir.join("play.bin"));
        let mut firsts = std::collections::BTreeMap::new();
        for sample in &played {
            firsts.entry(sample.game).or_insert(sample.empties());
        }
        assert_eq!(firsts.len(), 2, "{firsts:?}");
        assert!(firsts.values().all(|e| (60..=70).contains(e)), "{firsts:?}");
        selfplay("6x6", "2-40").failure().stderr(predicate::str::contains(
            "an opening of up to 40 random moves is longer than a game of 6x6 FULL most allows: at most 31",
        ));
        selfplay("8x8", "4-60")
            .failure()
            .stderr(predicate::str::contains("at most 59"));
        selfplay("8x8", "4-252")
            .failure()
            .stderr(predicate::str::contains("at most 251"));
        // The default (4-20) is cut to a small board's bound, not refused: 4x4 allows 11.
        othello()
            .current_dir(dir)
            .args(["train", "selfplay", "--out", "small.bin", "--games", "20"])
            .args(["--size", "4x4", "--depth", "1", "--weights", "classic"])
            .assert()
            .success();
        assert!(!samples(&dir.join("small.bin")).is_empty());
    }

    fn samples(path: &Path) -> Vec<othello::training::Sample> {
        othello::training::SampleReader::from_file(std::fs::File::open(path).unwrap(), path)
            .unwrap()
            .read_rest()
            .unwrap()
    }

    /// Self-play labelled by its games' results: the opening's positions left out, the
    /// early ones left for `label` (which keeps the results), a stop and a rerun giving the
    /// same file; then `dedup` keeps each position once and leaves out a test set's, and
    /// `error` compares evaluations on that test set.
    #[test]
    fn result_labels_dedup_and_test_error() {
        use othello::training::Label;
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
        let selfplay = |out: &str, games: &str, seed: &str, result: &str| {
            train(
                dir,
                &[
                    "selfplay",
                    "--out",
                    out,
                    "--games",
                    games,
                    "--seed",
                    seed,
                    "--level",
                    "3",
                    "--opening",
                    "0-12",
                    "--result-labels",
                    result,
                    "--weights",
                    "classic",
                ],
            )
        };
        let text = selfplay("all.bin", "30", "3", "44");
        assert!(text.starts_with("games 0..30 of 8x8 FULL most: "), "{text}");
        let whole = read("all.bin");
        std::fs::write(dir.join("parts.bin"), &whole[..whole.len() / 3 + 7]).unwrap();
        selfplay("parts.bin", "30", "3", "44");
        assert_eq!(read("parts.bin"), whole);
        let played = samples(&dir.join("all.bin"));
        let mut games = std::collections::BTreeMap::<u32, Vec<_>>::new();
        for sample in &played {
            games.entry(sample.game).or_default().push(*sample);
        }
        assert_eq!(games.len(), 30);
        for game in games.values() {
            // At most 12 random moves, none of them kept; a result for each side to move.
            assert!(game[0].empties() >= 60 - 12);
            let size = game.last().unwrap().score.abs();
            for sample in game {
                if sample.empties() > 44 {
                    assert_eq!(sample.label, Label::None);
                } else {
                    assert_eq!(sample.label, Label::Result);
                    assert_eq!(sample.score.abs(), size);
                }
            }
        }
        // `label` searches the early positions and keeps every result as it was.
        let text = train(
            dir,
            &[
                "label",
                "--in",
                "all.bin",
                "--out",
                "labelled.bin",
                "--depth",
                "2",
                "--exact",
                "8",
                "--weights",
                "classic",
            ],
        );
        let results = played.iter().filter(|s| s.label == Label::Result).count();
        assert!(
            text.contains(&format!(", {results} kept their games' results in ")),
            "{text}"
        );
        let labelled = samples(&dir.join("labelled.bin"));
        assert_eq!(labelled.len(), played.len());
        for (after, before) in labelled.iter().zip(&played) {
            if before.label == Label::Result {
                assert_eq!(after, before);
            } else {
                assert_eq!(after.label, Label::Searched(2));
            }
        }
        // Every position labelled by its result: the file goes on as self-play's (and is no
        // positions file `label` would be refused to write over).
        selfplay("results-all.bin", "12", "4", "60");
        let whole = read("results-all.bin");
        std::fs::write(dir.join("results.bin"), &whole[..whole.len() / 2 + 3]).unwrap();
        selfplay("results.bin", "12", "4", "60");
        assert_eq!(read("results.bin"), whole);

        // A test set of other games; dedup keeps each position once, the test's out.
        selfplay("test.bin", "10", "9", "60");
        let text = train(
            dir,
            &[
                "dedup",
                "--in",
                "labelled.bin",
                "--in",
                "labelled.bin",
                "--out",
                "d.bin",
                "--exclude",
                "test.bin",
            ],
        );
        let kept = samples(&dir.join("d.bin"));
        assert!(
            text.starts_with(&format!(
                "{} positions of 8x8 FULL most: {} kept, ",
                2 * played.len(),
                kept.len()
            )),
            "{text}"
        );
        // The file twice keeps what it once keeps, and dedup again keeps it all.
        train(
            dir,
            &[
                "dedup",
                "--in",
                "labelled.bin",
                "--out",
                "once.bin",
                "--exclude",
                "test.bin",
            ],
        );
        assert_eq!(samples(&dir.join("once.bin")), kept);
        let text = train(dir, &["dedup", "--in", "d.bin", "--out", "again.bin"]);
        assert!(
            text.contains(&format!(": {} kept, 0 copies merged", kept.len())),
            "{text}"
        );
        // Games from short openings meet the same positions, so some copies were merged;
        // no kept position is a test position or a mirror image of one.
        assert!(kept.len() < labelled.len());
        let text = train(
            dir,
            &[
                "dedup",
                "--in",
                "labelled.bin",
                "--out",
                "none.bin",
                "--exclude",
                "labelled.bin",
            ],
        );
        assert!(
            text.contains(": 0 kept, 0 copies merged into them, "),
            "{text}"
        );
        assert!(samples(&dir.join("none.bin")).is_empty());
        let text = train(
            dir,
            &[
                "dedup",
                "--in",
                "test.bin",
                "--in",
                "d.bin",
                "--out",
                "joined.bin",
            ],
        );
        let test = train(
            dir,
            &["dedup", "--in", "test.bin", "--out", "test-once.bin"],
        );
        let count = |text: &str| -> usize {
            text.split(": ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        assert_eq!(count(&text), count(&test) + kept.len(), "{text} / {test}");
        // Refusals: an --out that exists, one that is an input, two kinds of game.
        assert!(
            fails(dir, &["dedup", "--in", "labelled.bin", "--out", "d.bin"]).contains("exists")
        );
        assert!(
            fails(
                dir,
                &[
                    "dedup",
                    "--in",
                    "labelled.bin",
                    "--out",
                    "labelled.bin",
                    "--force"
                ]
            )
            .contains("is the input")
        );
        train(
            dir,
            &[
                "selfplay",
                "--out",
                "six.bin",
                "--size",
                "6x6",
                "--games",
                "2",
                "--depth",
                "1",
                "--weights",
                "classic",
            ],
        );
        assert!(
            fails(
                dir,
                &[
                    "dedup",
                    "--in",
                    "labelled.bin",
                    "--in",
                    "six.bin",
                    "--out",
                    "x.bin"
                ]
            )
            .contains("6x6")
        );
        assert!(!dir.join("x.bin").exists());

        // Packed as games and unpacked: the same files, byte for byte, in a small part of
        // their size (the labelled games', and the deduplicated positions').
        for (file, packed, again) in [
            ("labelled.bin", "labelled.pack", "labelled-again.bin"),
            ("d.bin", "d.pack", "d-again.bin"),
        ] {
            let text = train(dir, &["pack", "--in", file, "--out", packed]);
            let records = read(file).len();
            let size = read(packed).len();
            let positions = samples(&dir.join(file)).len();
            assert!(
                text.starts_with(&format!(
                    "{positions} positions of 8x8 FULL most: {} bytes of records packed into \
                     {size} (",
                    positions * 24
                )),
                "{text}"
            );
            assert!(
                size * 8 < records,
                "{file}: {size} bytes packed from {records}"
            );
            let text = train(dir, &["unpack", "--in", packed, "--out", again]);
            assert!(text.contains(" unpacked in "), "{text}");
            assert_eq!(read(again), read(file), "{file}");
        }
        // A record cut short at the end is dropped, and the file is unfinished, as a step
        // that stopped there leaves it (to every step).
        let whole = read("labelled.bin");
        assert_eq!(whole[28], 1, "label finished its file");
        std::fs::write(dir.join("cut.bin"), &whole[..32 + 10 * 24 + 7]).unwrap();
        train(dir, &["pack", "--in", "cut.bin", "--out", "cut.pack"]);
        train(
            dir,
            &["unpack", "--in", "cut.pack", "--out", "cut-again.bin"],
        );
        let mut expected = whole[..32 + 10 * 24].to_vec();
        expected[28] = 0;
        assert_eq!(read("cut-again.bin"), expected);
        // Refusals: an --out that exists, the input as --out, a file that is not packed,
        // a packed file damaged; nothing is written for any.
        assert!(
            fails(dir, &["pack", "--in", "labelled.bin", "--out", "d.pack"]).contains("exists")
        );
        assert!(
            fails(
                dir,
                &["unpack", "--in", "d.pack", "--out", "d.pack", "--force"]
            )
            .contains("is the input")
        );
        assert!(
            fails(dir, &["unpack", "--in", "labelled.bin", "--out", "y.bin"])
                .contains("not a packed positions file")
        );
        let mut damaged = read("labelled.pack");
        let middle = damaged.len() / 2;
        damaged[middle] ^= 0x10;
        std::fs::write(dir.join("damaged.pack"), &damaged).unwrap();
        let refused = fails(dir, &["unpack", "--in", "damaged.pack", "--out", "y.bin"]);
        assert!(
            refused.contains("damaged.pack: the packed") && !refused.contains("panicked"),
            "{refused}"
        );
        std::fs::write(dir.join("short.pack"), &damaged[..middle]).unwrap();
        assert!(
            fails(dir, &["unpack", "--in", "short.pack", "--out", "y.bin"]).contains("truncated")
        );
        assert!(!dir.join("y.bin").exists());

        // The test set's error: one column for each evaluation, the held-out games' error.
        let text = train(
            dir,
            &[
                "error",
                "--in",
                "test.bin",
                "--weights",
                "classic",
                "--weights",
                "built-in",
            ],
        );
        let test_positions = samples(&dir.join("test.bin")).len();
        assert!(
            text.starts_with(&format!(
                "{test_positions} labelled positions of 8x8 FULL most in test.bin"
            )),
            "{text}"
        );
        let all = text.lines().last().unwrap();
        let columns: Vec<f64> = all
            .split_whitespace()
            .skip(2)
            .map(|x| x.parse().unwrap())
            .collect();
        assert_eq!(columns.len(), 2, "{all}");
        assert!(columns.iter().all(|e| e.is_finite() && *e > 0.0), "{all}");
        assert!(
            fails(dir, &["error", "--in", "test.bin", "--weights", "six.bin"]).contains("six.bin")
        );
    }

    /// What the red team found in the steps' files: outputs that are not regular files, parts
    /// left by killed runs, standard-board runs resumed under other options, unfinished or
    /// cut files taken as whole.
    #[test]
    fn whole_file_steps_keep_other_files_and_runs_apart() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let selfplay = |out: &str, games: &str, level: &str| {
            train(
                dir,
                &[
                    "selfplay",
                    "--out",
                    out,
                    "--games",
                    games,
                    "--seed",
                    "3",
                    "--level",
                    level,
                    "--opening",
                    "2-8",
                    "--result-labels",
                    "60",
                    "--weights",
                    "classic",
                ],
            )
        };
        selfplay("a.bin", "8", "2");
        // A FIFO or a directory as --out is refused, --force or not, and left as it was.
        let fifo = dir.join("fifo");
        assert!(
            StdCommand::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        for out in ["fifo", "."] {
            let error = fails(dir, &["dedup", "--in", "a.bin", "--out", out, "--force"]);
            assert!(
                error.contains("not a regular file, so not replaced"),
                "{error}"
            );
        }
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::symlink_metadata(&fifo)
                .unwrap()
                .file_type()
                .is_fifo()
        );
        let error = fails(dir, &["merge", "a.bin", "--out", "fifo", "--force"]);
        assert!(error.contains("not a regular file"), "{error}");
        // The part a killed run left beside its output goes; a running one's stays.
        let dead = dir.join(".d.bin.dedup-4000000");
        let running = dir.join(format!(".d.bin.dedup-{}", std::process::id()));
        std::fs::write(&dead, b"part").unwrap();
        std::fs::write(&running, b"part").unwrap();
        train(dir, &["dedup", "--in", "a.bin", "--out", "d.bin"]);
        assert!(!dead.exists() && running.exists());
        let leftovers: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with(".d.bin.dedup-"))
            .collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");

        // A standard-board run's file names its run: another run does not go on with it.
        let error = String::from_utf8(
            othello()
                .args([
                    "train",
                    "selfplay",
                    "--out",
                    "a.bin",
                    "--games",
                    "16",
                    "--seed",
                    "3",
                    "--level",
                    "3",
                    "--opening",
                    "2-8",
                    "--result-labels",
                    "60",
                    "--weights",
                    "classic",
                ])
                .current_dir(dir)
                .output()
                .unwrap()
                .stderr,
        )
        .unwrap();
        assert!(error.contains("another run's positions"), "{error}");
        // A file whose step stopped, or that was cut since it finished, is no input.
        let whole = std::fs::read(dir.join("a.bin")).unwrap();
        std::fs::write(dir.join("cut.bin"), &whole[..whole.len() - 5]).unwrap();
        for args in [
            ["dedup", "--in", "cut.bin", "--out", "x.bin"].as_slice(),
            &["error", "--in", "cut.bin", "--weights", "classic"],
        ] {
            assert!(fails(dir, args).contains("is not finished"), "{args:?}");
        }
        assert!(!dir.join("x.bin").exists());
        // `fit` too, unless told to take positions as far as they go.
        let error = fails(
            dir,
            &["fit", "--in", "cut.bin", "--out", "w.bin", "--epochs", "1"],
        );
        assert!(error.contains("is not finished"), "{error}");
        train(
            dir,
            &[
                "fit",
                "--in",
                "cut.bin",
                "--out",
                "w.bin",
                "--epochs",
                "1",
                "--unfinished",
            ],
        );
        // Files that name no run, or the same (two first-format files, one half the other;
        // their dedups), are other inputs: a label step does not take one's labels for the
        // other's.
        let legacy = |name: &str, records: &[u8]| {
            let mut bytes = b"OTHSAMP1".to_vec();
            bytes.extend_from_slice(records);
            std::fs::write(dir.join(name), bytes).unwrap();
        };
        let records = &whole[32..];
        legacy("old-all.bin", records);
        legacy("old-half.bin", &records[..records.len() / 2 / 24 * 24]);
        let label = |input: &str, out: &str| {
            othello()
                .args([
                    "train", "label", "--in", input, "--out", out, "--exact", "0", "--depth", "1",
                ])
                .current_dir(dir)
                .output()
                .unwrap()
        };
        assert!(label("old-all.bin", "old-l.bin").status.success());
        let second = label("old-half.bin", "old-l.bin");
        assert_eq!(second.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&second.stderr).contains("another run's positions"));
        train(dir, &["dedup", "--in", "old-all.bin", "--out", "d-all.bin"]);
        train(
            dir,
            &["dedup", "--in", "old-half.bin", "--out", "d-half.bin"],
        );
        assert!(label("d-all.bin", "d-l.bin").status.success());
        assert_eq!(label("d-half.bin", "d-l.bin").status.code(), Some(1));
        // A first-format file says nothing of being finished, but one ending part-way
        // through a record was cut: no input either (red team), unless taken knowingly.
        legacy("old-cut.bin", &records[..records.len() / 24 * 24 - 5]);
        for args in [
            ["dedup", "--in", "old-cut.bin", "--out", "x.bin"].as_slice(),
            &["error", "--in", "old-cut.bin", "--weights", "classic"],
            &[
                "fit",
                "--in",
                "old-cut.bin",
                "--out",
                "x.bin",
                "--epochs",
                "1",
            ],
            &[
                "label",
                "--in",
                "old-cut.bin",
                "--out",
                "x.bin",
                "--depth",
                "1",
            ],
        ] {
            let error = fails(dir, args);
            assert!(
                error.contains("ends part-way through a position"),
                "{error}"
            );
        }
        assert!(!dir.join("x.bin").exists());
        train(
            dir,
            &[
                "fit",
                "--in",
                "old-cut.bin",
                "--out",
                "x.bin",
                "--epochs",
                "1",
                "--unfinished",
            ],
        );
        // A fit with every game held out has nothing to fit: refused, nothing written (red
        // team: it wrote weights of zeros and said it had done).
        let refused = othello()
            .args([
                "train",
                "fit",
                "--in",
                "a.bin",
                "--out",
                "h.bin",
                "--holdout",
                "1",
            ])
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(!refused.status.success());
        assert!(String::from_utf8_lossy(&refused.stderr).contains("below 1"));
        let error = fails(
            dir,
            &[
                "fit",
                "--in",
                "a.bin",
                "--out",
                "h.bin",
                "--epochs",
                "1",
                "--holdout",
                "0.999999",
            ],
        );
        assert!(error.contains("no position was left to fit"), "{error}");
        assert!(!dir.join("h.bin").exists());
        // The step run again over the cut file makes it whole.
        let text = selfplay("cut.bin", "8", "2");
        assert!(!text.contains("done before"), "{text}");
        assert_eq!(std::fs::read(dir.join("cut.bin")).unwrap(), whole);
        let text = selfplay("cut.bin", "8", "2");
        assert!(text.contains("done before"), "{text}");

        // Too many evaluations at once are refused before any is read.
        let mut args = vec!["error", "--in", "a.bin"];
        for _ in 0..17 {
            args.extend(["--weights", "classic"]);
        }
        assert!(fails(dir, &args).contains("at most 16"));
        // A merge refusal names the two files it compares.
        train(
            dir,
            &[
                "selfplay",
                "--out",
                "s1.bin",
                "--games",
                "4",
                "--shard",
                "1/2",
                "--depth",
                "1",
                "--weights",
                "classic",
            ],
        );
        let error = fails(dir, &["merge", "a.bin", "s1.bin", "--out", "m.bin"]);
        assert!(
            error.contains("a.bin") && error.contains("s1.bin"),
            "{error}"
        );
    }

    fn fails(dir: &Path, args: &[&str]) -> String {
        let output = othello()
            .arg("train")
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?} should be refused");
        String::from_utf8(output.stderr).unwrap()
    }

    /// Three shards of each step, merged in any order, are the file one run writes, byte
    /// for byte; shards that do not make a whole run are refused.
    #[test]
    fn shards_merge_into_the_file_of_one_run() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
        let selfplay = |out: &str, shard: Option<&str>| {
            let mut args = vec![
                "selfplay",
                "--out",
                out,
                "--size",
                "6x6",
                "--win",
                "fewest",
                "--games",
                "20",
                "--seed",
                "3",
                "--depth",
                "2",
                "--weights",
                "classic",
            ];
            args.extend(shard.iter().flat_map(|shard| ["--shard", shard]));
            train(dir, &args)
        };
        let text = selfplay("one.bin", None);
        assert!(
            text.starts_with("games 0..20 of 6x6 FULL fewest: "),
            "{text}"
        );
        for (k, shard) in ["0/3", "1/3", "2/3"].iter().enumerate() {
            selfplay(&format!("p{k}.bin"), Some(shard));
        }
        // Each shard has its part of the games (6, 7 and 7 of 20).
        assert!(read("p0.bin").len() < read("one.bin").len() / 2);
        let text = train(
            dir,
            &["merge", "p2.bin", "p0.bin", "p1.bin", "--out", "merged.bin"],
        );
        assert!(text.starts_with("3 shards of 6x6 FULL fewest: "), "{text}");
        assert_eq!(read("merged.bin"), read("one.bin"));

        let label = |input: &str, out: &str, shard: Option<&str>| {
            let mut args = vec![
                "label",
                "--in",
                input,
                "--out",
                out,
                "--exact",
                "10",
                "--depth",
                "2",
                "--weights",
                "classic",
            ];
            args.extend(shard.iter().flat_map(|shard| ["--shard", shard]));
            train(dir, &args)
        };
        label("one.bin", "labelled.bin", None);
        // Labels of the whole file cut in three, and labels of each self-play shard.
        for k in 0..3 {
            label("one.bin", &format!("a{k}.bin"), Some(&format!("{k}/3")));
            label(&format!("p{k}.bin"), &format!("b{k}.bin"), None);
        }
        for prefix in ["a", "b"] {
            let parts: Vec<String> = (0..3).map(|k| format!("{prefix}{k}.bin")).collect();
            let merged = format!("all-{prefix}.bin");
            let mut args = vec!["merge", "--out", &merged];
            args.extend(parts.iter().rev().map(String::as_str));
            train(dir, &args);
            assert_eq!(read(&merged), read("labelled.bin"), "{prefix}");
        }
        // A shard missing, one twice, shards of two runs, a shard labelled in shards again.
        for (inputs, why) in [
            (vec!["p0.bin", "p1.bin"], "missing 2/3"),
            (
                vec!["p0.bin", "p0.bin", "p2.bin"],
                "missing 1/3; given twice 0/3",
            ),
            (
                vec!["p0.bin", "a1.bin", "one.bin"],
                "give the shards of one step",
            ),
        ] {
            let mut args = vec!["merge", "--out", "bad.bin"];
            args.extend(inputs);
            let error = fails(dir, &args);
            assert!(error.contains(why), "{error}");
        }
        assert!(!dir.join("bad.bin").exists());
        let error = fails(
            dir,
            &[
                "label", "--in", "p1.bin", "--out", "x.bin", "--shard", "0/2",
            ],
        );
        assert!(error.contains("already shard 1/3"), "{error}");
        // A shard's file is not appended to by another shard or kind of game.
        let error = fails(
            dir,
            &[
                "selfplay",
                "--out",
                "p1.bin",
                "--size",
                "6x6",
                "--win",
                "fewest",
                "--games",
                "20",
                "--seed",
                "3",
                "--depth",
                "2",
                "--weights",
                "classic",
                "--shard",
                "2/3",
            ],
        );
        assert!(
            error.contains("shard 1/3") && error.contains("shard 2/3"),
            "{error}"
        );
    }

    /// The cluster manifests of docs/cluster run here, three shards as three array tasks
    /// (Slurm) and three indexed pods (Kubernetes), and merge to what one machine writes.
    #[test]
    fn the_cluster_manifests_make_the_file_of_one_run() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cluster");
        let yaml = std::fs::read_to_string(docs.join("othello-train-job.yaml")).unwrap();
        let slurm = std::fs::read_to_string(docs.join("othello-train.slurm")).unwrap();
        assert!(yaml.contains("completions: 3") && yaml.contains("completionMode: Indexed"));
        assert!(slurm.contains("#SBATCH --array=0-2"));
        // The pod's command, with the ConfigMap's mount where the script is here.
        let command = yaml
            .lines()
            .find_map(|line| line.trim().strip_prefix("command: [\"sh\", \"-c\", \""))
            .and_then(|rest| rest.strip_suffix("\"]"))
            .expect("the pod's command")
            .replace("/scripts/", &format!("{}/", docs.display()));
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let binary = othello_path();
        let tiny = [
            ("OTHELLO", binary.to_str().unwrap()),
            ("KIND", "--rules simple --size 6x6"),
            ("GAMES", "12"),
            ("EXACT", "10"),
            ("DEPTH", "2"),
        ];
        for (scheduler, run) in [("slurm", "s"), ("kubernetes", "k")] {
            for index in 0..3 {
                let mut task = std::process::Command::new("sh");
                if scheduler == "slurm" {
                    task.arg("othello-train.slurm")
                        .env("SLURM_ARRAY_TASK_ID", index.to_string())
                        .env("SLURM_ARRAY_TASK_COUNT", "3");
                } else {
                    task.args(["-c", &command])
                        .env("JOB_COMPLETION_INDEX", index.to_string());
                }
                let status = task
                    .current_dir(&docs)
                    .envs(tiny)
                    .env("RUN", dir.join(run))
                    .status()
                    .unwrap();
                assert!(status.success(), "{scheduler} task {index}");
            }
            let labelled: Vec<String> = (0..3)
                .map(|k| {
                    dir.join(run)
                        .join(format!("labelled-{k}.bin"))
                        .display()
                        .to_string()
                })
                .collect();
            let merged = format!("{run}.bin");
            let mut args = vec!["merge", "--out", &merged];
            args.extend(labelled.iter().map(String::as_str));
            train(dir, &args);
        }
        train(
            dir,
            &[
                "selfplay",
                "--out",
                "one.bin",
                "--rules",
                "simple",
                "--size",
                "6x6",
                "--games",
                "12",
                "--seed",
                "1",
                "--weights",
                "classic",
            ],
        );
        train(
            dir,
            &[
                "label",
                "--in",
                "one.bin",
                "--out",
                "one-labelled.bin",
                "--exact",
                "10",
                "--depth",
                "2",
                "--weights",
                "classic",
            ],
        );
        let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
        assert_eq!(read("s.bin"), read("one-labelled.bin"), "slurm");
        assert_eq!(read("k.bin"), read("one-labelled.bin"), "kubernetes");
    }

    /// Found by the red team (issue 46): merges that would not be what one run writes, and
    /// weights quietly replaced by `classic`.
    #[test]
    fn merges_of_other_runs_unfinished_shards_or_over_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
        let selfplay = |out: &str, seed: &str, shard: &str| {
            train(
                dir,
                &[
                    "selfplay",
                    "--out",
                    out,
                    "--size",
                    "6x6",
                    "--games",
                    "12",
                    "--depth",
                    "2",
                    "--seed",
                    seed,
                    "--weights",
                    "classic",
                    "--shard",
                    shard,
                ],
            )
        };
        for k in 0..3 {
            selfplay(&format!("p{k}.bin"), "1", &format!("{k}/3"));
        }
        // Run again, a finished shard has nothing to do.
        let text = selfplay("p1.bin", "1", "1/3");
        assert!(text.contains("done before"), "{text}");
        // A shard of another seed, labelled shards with unlabelled ones.
        selfplay("q1.bin", "2", "1/3");
        let error = fails(
            dir,
            &["merge", "p0.bin", "q1.bin", "p2.bin", "--out", "m.bin"],
        );
        assert!(error.contains("shards of different runs"), "{error}");
        train(
            dir,
            &[
                "label", "--in", "p1.bin", "--out", "l1.bin", "--exact", "10", "--depth", "2",
            ],
        );
        let error = fails(
            dir,
            &["merge", "p0.bin", "l1.bin", "p2.bin", "--out", "m.bin"],
        );
        assert!(error.contains("shards of different runs"), "{error}");
        // A missing shard is named.
        let error = fails(dir, &["merge", "p0.bin", "p2.bin", "--out", "m.bin"]);
        assert!(error.contains("missing 1/3"), "{error}");
        // An existing file is not replaced without --force; a new folder is made.
        std::fs::write(dir.join("keep.bin"), b"precious").unwrap();
        let error = fails(
            dir,
            &["merge", "p0.bin", "p1.bin", "p2.bin", "--out", "keep.bin"],
        );
        assert!(error.contains("exists"), "{error}");
        assert_eq!(read("keep.bin"), b"precious");
        train(
            dir,
            &[
                "merge",
                "p0.bin",
                "p1.bin",
                "p2.bin",
                "--out",
                "new/all.bin",
            ],
        );
        assert!(dir.join("new/all.bin").exists());
        assert!(
            std::fs::read_dir(dir.join("new")).unwrap().count() == 1,
            "no temporary file left"
        );
        // A step going on with other options is refused (the file names its run).
        let error = fails(
            dir,
            &[
                "selfplay",
                "--out",
                "p1.bin",
                "--size",
                "6x6",
                "--games",
                "12",
                "--depth",
                "3",
                "--seed",
                "1",
                "--weights",
                "classic",
                "--shard",
                "1/3",
            ],
        );
        assert!(error.contains("another run's positions"), "{error}");
        // A shard stopped before its end (killed) is not merged, nor labelled.
        let shard = |k: u32| {
            let mut command = std::process::Command::new(othello_path());
            command
                .args([
                    "train",
                    "selfplay",
                    "--out",
                    &format!("k{k}.bin"),
                    "--size",
                    "6x6",
                    "--games",
                    "60000",
                    "--depth",
                    "2",
                    "--seed",
                    "1",
                    "--weights",
                    "classic",
                    "--shard",
                    &format!("{k}/3"),
                ])
                .current_dir(dir);
            command
        };
        for k in [0, 2] {
            assert!(shard(k).output().unwrap().status.success());
        }
        let mut killed = shard(1).spawn().unwrap();
        while std::fs::metadata(dir.join("k1.bin")).map_or(true, |m| m.len() < 100) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        killed.kill().unwrap();
        killed.wait().unwrap();
        let error = fails(
            dir,
            &["merge", "k0.bin", "k1.bin", "k2.bin", "--out", "k.bin"],
        );
        assert!(
            error.contains("k1.bin (shard 1/3) is not finished"),
            "{error}"
        );
        let error = fails(
            dir,
            &[
                "label", "--in", "k1.bin", "--out", "lk.bin", "--exact", "10", "--depth", "2",
            ],
        );
        assert!(error.contains("is not finished"), "{error}");
        // Weights of another kind of game are refused by every step, not replaced.
        train(
            dir,
            &[
                "run",
                "--dir",
                "w",
                "--size",
                "4x4",
                "--games",
                "10",
                "--depth",
                "2",
                "--exact",
                "10",
                "--label-depth",
                "2",
            ],
        );
        let weights = "w/weights.bin";
        for args in [
            vec![
                "selfplay",
                "--out",
                "x.bin",
                "--size",
                "6x6",
                "--games",
                "2",
                "--weights",
                weights,
            ],
            vec![
                "label",
                "--in",
                "p0.bin",
                "--out",
                "x.bin",
                "--weights",
                weights,
            ],
            vec![
                "measure",
                "--size",
                "6x6",
                "--empties",
                "10-12",
                "--moves-only",
                "--positions",
                "2",
                "--depth",
                "1",
                "--weights",
                weights,
            ],
            vec![
                "run",
                "--dir",
                "y",
                "--size",
                "6x6",
                "--games",
                "2",
                "--weights",
                weights,
            ],
        ] {
            let error = fails(dir, &args);
            assert!(
                error.contains("the weights are for 4x4 FULL most, not 6x6 FULL most"),
                "{args:?}: {error}"
            );
        }
        // A run whose files were removed makes them again.
        std::fs::remove_file(dir.join("w/weights.bin")).unwrap();
        let text = train(
            dir,
            &[
                "run",
                "--dir",
                "w",
                "--size",
                "4x4",
                "--games",
                "10",
                "--depth",
                "2",
                "--exact",
                "10",
                "--label-depth",
                "2",
            ],
        );
        assert!(text.contains("label: done before"), "{text}");
        assert!(dir.join("w/weights.bin").exists(), "{text}");
        assert!(
            text.contains("probcut: no model on a board of 16 squares"),
            "{text}"
        );
        assert!(!dir.join("w/probcut.json").exists());
        // Move quality on a board too small for the range asked: refused, not searched for
        // ever.
        let error = fails(
            dir,
            &[
                "measure",
                "--size",
                "4x4",
                "--empties",
                "20-24",
                "--moves-only",
                "--positions",
                "5",
            ],
        );
        assert!(
            error.contains("4x4 FULL most has no positions with 20 to 24"),
            "{error}"
        );
    }

    /// The selective search's model of a run: fitted where the data can say something,
    /// refused where it cannot; a run remakes its files that are damaged (and every step
    /// after one that ran again), and refuses what would lose work.
    #[test]
    fn a_run_remakes_what_is_damaged_and_refuses_what_would_lose_work() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let options = [
            "run",
            "--dir",
            "r",
            "--size",
            "6x6",
            "--games",
            "60",
            "--exact",
            "12",
            "--label-depth",
            "4",
            "--depth",
            "2",
            "--probcut-positions",
            "20",
            "--probcut-depth",
            "6",
        ];
        train(dir, &options);
        let read = |name: &str| std::fs::read(dir.join("r").join(name)).unwrap();
        let model = |bytes: &[u8]| serde_json::from_slice::<serde_json::Value>(bytes).unwrap();
        let first = model(&read("probcut.json"));
        assert_eq!(first["kind"], "6x6 FULL most");
        assert_eq!(first["evaluation"], "r/weights.bin");
        // With --exact 12 the run still solves positions at two numbers of empties (12 and
        // 13), so the endgame model is fitted, not a line of zeros.
        for part in ["midgame", "endgame"] {
            assert!(first[part]["samples"].as_u64().unwrap() >= 10, "{first}");
            let deviation = first[part]["deviation"]["coefficients"].as_array().unwrap();
            assert!(deviation.iter().any(|c| c.as_f64() != Some(0.0)), "{first}");
        }
        let (weights, probcut) = (read("weights.bin"), read("probcut.json"));
        // A damaged model is made again.
        std::fs::write(dir.join("r/probcut.json"), "garbage").unwrap();
        let text = train(dir, &options);
        assert!(text.contains("fit: done before"), "{text}");
        assert!(
            text.contains("probcut: r/probcut.json is not this run's"),
            "{text}"
        );
        assert_eq!(read("probcut.json"), probcut);
        // Damaged weights are fitted again, and the model after them.
        std::fs::write(dir.join("r/weights.bin"), "junk").unwrap();
        let text = train(dir, &options);
        assert!(
            text.contains("fit: r/weights.bin is not this run's"),
            "{text}"
        );
        assert!(!text.contains("probcut: done before"), "{text}");
        assert_eq!(
            (read("weights.bin"), read("probcut.json")),
            (weights.clone(), probcut)
        );
        // Weights of another kind of game in the run's place are not its weights either.
        std::fs::write(dir.join("other.txt"), "").unwrap();
        let mut args = options.to_vec();
        args[2] = "o";
        args[4] = "4x6";
        train(dir, &args);
        std::fs::copy(dir.join("o/weights.bin"), dir.join("r/weights.bin")).unwrap();
        let text = train(dir, &options);
        assert!(
            text.contains("fit: r/weights.bin is not this run's"),
            "{text}"
        );
        assert_eq!(read("weights.bin"), weights);
        // The run's own weights as the evaluation of its next run: refused, kept.
        let mut args = options.to_vec();
        args.extend(["--weights", "r/weights.bin"]);
        let error = fails(dir, &args);
        assert!(error.contains("is this run's own weights.bin"), "{error}");
        assert_eq!(read("weights.bin"), weights);
        // A file as the directory.
        let mut args = options.to_vec();
        args[2] = "other.txt";
        assert!(fails(dir, &args).contains("--dir other.txt: not a directory"));
        // Two runs in one directory at once: the second waits for nothing, it refuses.
        let lock = std::fs::File::create(dir.join("r/run.lock")).unwrap();
        lock.try_lock().unwrap();
        let error = fails(dir, &options);
        assert!(
            error.contains("another train run is working in r"),
            "{error}"
        );
        drop(lock);
        // Other options: both lists named.
        let mut args = options.to_vec();
        args[16] = "8";
        let error = fails(dir, &args);
        assert!(
            error.contains("probcut-depth 6), not these (") && error.contains("probcut-depth 8)"),
            "{error}"
        );
        // `train probcut` itself: what it cannot fit is refused, never a model of zeros.
        std::fs::write(dir.join("empty.bin"), "").unwrap();
        let error = fails(dir, &["probcut", "--in", "empty.bin", "--out", "m.json"]);
        assert!(error.contains("empty.bin has no positions"), "{error}");
        for (flag, value) in [("--depth", "5"), ("--exact", "12"), ("--positions", "9")] {
            let error = fails(
                dir,
                &[
                    "probcut",
                    "--in",
                    "r/positions.bin",
                    "--out",
                    "m.json",
                    flag,
                    value,
                ],
            );
            assert!(error.contains(&format!("{value} is not in")), "{error}");
        }
        let mut args = options.to_vec();
        args[2] = "tiny";
        args[4] = "4x4";
        let text = train(dir, &args);
        assert!(
            text.contains("probcut: no model on a board of 16 squares"),
            "{text}"
        );
        let error = fails(
            dir,
            &["probcut", "--in", "tiny/positions.bin", "--out", "m.json"],
        );
        assert!(
            error.contains("4x4 FULL most is too small for a model"),
            "{error}"
        );
        // Fewer positions than asked: said. Without weights on a kind of game with none
        // shipped, the model names the evaluation it was fitted with: classic.
        train(
            dir,
            &[
                "selfplay", "--out", "s.bin", "--rules", "simple", "--size", "6x6", "--games",
                "40", "--depth", "2",
            ],
        );
        let text = train(
            dir,
            &[
                "probcut",
                "--in",
                "s.bin",
                "--out",
                "m.json",
                "--positions",
                "10000",
                "--endgame-positions",
                "10",
                "--exact",
                "14",
                "--depth",
                "6",
            ],
        );
        assert!(text.contains("empty squares, of the 10000 asked"), "{text}");
        let simple = model(&std::fs::read(dir.join("m.json")).unwrap());
        assert_eq!(
            simple["evaluation"],
            "classic (no learned weights for 6x6 SIMPLE with most discs winning)"
        );
        assert_eq!(simple["kind"], "6x6 SIMPLE most");
    }

    /// `train run` on a small kind of game end to end: it resumes, keeps what each step
    /// cost, refuses other options, and its weights play and are named where they apply
    /// and refused where they do not.
    #[test]
    fn a_run_for_another_kind_of_game_trains_weights_that_play() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let options = [
            "run",
            "--dir",
            "r",
            "--rules",
            "simple",
            "--size",
            "4x6",
            "--games",
            "40",
            "--exact",
            "10",
            "--label-depth",
            "2",
            "--depth",
            "2",
            "--probcut-positions",
            "20",
            "--probcut-depth",
            "6",
        ];
        let text = train(dir, &options);
        assert!(text.contains("4x6 SIMPLE most: selfplay "), "{text}");
        assert!(text.contains("held-out error"), "{text}");
        let run: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("r/run.json")).unwrap())
                .unwrap();
        assert_eq!(
            run["finished"],
            serde_json::json!(["selfplay", "label", "fit", "probcut"])
        );
        assert_eq!(run["seconds"].as_array().unwrap().len(), 4);
        // The selective search's model, fitted with the run's weights on its kind of game.
        let model: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("r/probcut.json")).unwrap())
                .unwrap();
        assert_eq!(model["kind"], "4x6 SIMPLE most");
        assert!(
            model["evaluation"]
                .as_str()
                .unwrap()
                .ends_with("weights.bin")
        );
        assert!(model["midgame"]["samples"].as_u64().unwrap() > 0, "{model}");
        let weights = std::fs::read(dir.join("r/weights.bin")).unwrap();
        assert!(weights.starts_with(b"OTHSHAP"));
        // Run again: nothing to do.
        let text = train(dir, &options);
        assert!(text.contains("fit: done before"), "{text}");
        assert!(text.contains("probcut: done before"), "{text}");
        assert_eq!(std::fs::read(dir.join("r/weights.bin")).unwrap(), weights);
        let mut other = options.to_vec();
        other[8] = "41";
        let error = fails(dir, &other);
        assert!(error.contains("holds a run with other options"), "{error}");
        // The weights score 4x6 SIMPLE most-discs positions: a hint names them.
        let position = dir.join("start.txt");
        std::fs::write(
            &position,
            "4\n6\nB\n>\n. . . . . .\n. . W B . .\n. . B W . .\n. . . . . .\n",
        )
        .unwrap();
        let hint = othello()
            .args([
                "hint",
                "--rules",
                "simple",
                "--json",
                "--depth",
                "4",
                "--weights",
                "r/weights.bin",
                "--position",
            ])
            .arg(&position)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            hint.status.success(),
            "{}",
            String::from_utf8_lossy(&hint.stderr)
        );
        let hint: serde_json::Value = serde_json::from_slice(&hint.stdout).unwrap();
        assert_eq!(
            hint["evaluation"],
            "learned patterns for 4x6 SIMPLE most (from a file)"
        );
        // A match with them on their kind of game; refused on another.
        othello()
            .args([
                "match",
                "--rules",
                "simple",
                "--size",
                "4x6",
                "--black",
                "engine:2",
                "--black-weights",
                "r/weights.bin",
                "--white",
                "random",
                "--games",
                "2",
                "--openings",
                "2",
                "--time-per-move",
                "5",
            ])
            .current_dir(dir)
            .assert()
            .success();
        othello()
            .args([
                "match",
                "--size",
                "4x6",
                "--black",
                "engine:2",
                "--black-weights",
                "r/weights.bin",
                "--white",
                "random",
                "--games",
                "2",
            ])
            .current_dir(dir)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(
                "the weights are for 4x6 SIMPLE most, not 4x6 FULL most",
            ));
    }
}

mod book_command {
    use super::*;

    fn book(dir: &Path, args: &[&str]) -> std::process::Output {
        othello()
            .arg("book")
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap()
    }

    fn text(output: &std::process::Output) -> String {
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout.clone()).unwrap()
    }

    /// Grow (saved as it goes, and going on when run again), show, merge; a damaged book
    /// is refused.
    #[test]
    fn grow_show_merge_and_refuse_damage() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let grow = |file: &str, positions: &str| {
            text(&book(
                dir,
                &[
                    "grow",
                    "--book",
                    file,
                    "--positions",
                    positions,
                    "--depth",
                    "2",
                    "--plies",
                    "4",
                    "--save-every",
                    "3",
                    "--selectivity",
                    "100",
                ],
            ))
        };
        let first = grow("a.bin", "5");
        assert!(first.contains("a.bin: 5 positions, 5 new"), "{first}");
        let again = grow("a.bin", "4");
        assert!(again.contains("a.bin: 9 positions, 4 new"), "{again}");

        let start = text(&book(dir, &["show", "--book", "a.bin"]));
        assert!(
            start.starts_with("book: 9 positions\nsearched 2; value "),
            "{start}"
        );
        // The four first moves are one position by symmetry, all in the book.
        assert_eq!(start.matches("  book").count(), 4, "{start}");
        for mv in ["d3", "c4", "f5", "e6"] {
            assert!(start.contains(&format!("  {mv}  ")), "{start}");
        }
        let after = text(&book(dir, &["show", "--book", "a.bin", "--moves", "f5"]));
        assert!(after.contains("searched 2; value"), "{after}");
        let deep = text(&book(
            dir,
            &["show", "--book", "a.bin", "--moves", "f5d6c3d3c4f4"],
        ));
        assert!(deep.contains("not in the book"), "{deep}");
        let illegal = book(dir, &["show", "--book", "a.bin", "--moves", "a1"]);
        assert_eq!(illegal.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&illegal.stderr).contains("a1 is not legal"));

        grow("b.bin", "2");
        let merged = text(&book(dir, &["merge", "--out", "m.bin", "a.bin", "b.bin"]));
        assert_eq!(merged, "m.bin: 9 positions\n");

        let mut bytes = std::fs::read(dir.join("a.bin")).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 1;
        std::fs::write(dir.join("bad.bin"), &bytes).unwrap();
        let refused = book(dir, &["show", "--book", "bad.bin"]);
        assert_eq!(refused.status.code(), Some(1));
        assert!(
            String::from_utf8_lossy(&refused.stderr).contains("bad.bin: the book file is damaged"),
            "{}",
            String::from_utf8_lossy(&refused.stderr)
        );
        let grown_bad = book(dir, &["grow", "--book", "bad.bin", "--positions", "1"]);
        assert_eq!(grown_bad.status.code(), Some(1));
        assert_eq!(
            std::fs::read(dir.join("bad.bin")).unwrap(),
            bytes,
            "left as it was"
        );
    }
}

/// Issue 47, item 14: puzzles made, checked and solved again.
mod puzzles {
    use super::*;

    fn shipped() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/puzzles.jsonl")
    }

    #[test]
    fn the_shipped_puzzles_hold_and_a_sample_solved_again_gives_the_same_answers() {
        let lines = std::fs::read_to_string(shipped()).unwrap().lines().count();
        assert!(lines >= 1000, "{lines} puzzles shipped");
        othello()
            .args(["puzzles", "check", "--sample", "12", "--max-empties", "18"])
            .arg(shipped())
            .assert()
            .success()
            .stdout(predicate::str::contains(format!(
                "{lines} puzzles, 12 solved again"
            )))
            .stdout(predicate::str::contains(", 0 wrong"))
            .stdout(predicate::str::contains("solved again, the same").count(12));
    }

    #[test]
    fn a_puzzle_with_a_wrong_score_or_answer_fails_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let text = std::fs::read_to_string(shipped()).unwrap();
        // The first few puzzles of at most 16 empty squares (quick to solve again).
        let mut records: Vec<serde_json::Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .filter(|record: &serde_json::Value| {
                record["position"].as_str().unwrap().matches('-').count() <= 16
            })
            .take(3)
            .collect();
        // A score off by two on a move that is not the answer: only solving finds it.
        let id = records[0]["id"].as_str().unwrap().to_owned();
        let last = records[0]["moves"].as_array().unwrap().len() - 1;
        let score = records[0]["moves"][last]["score"].as_i64().unwrap();
        records[0]["moves"][last]["score"] = (score - 2).into();
        let write = |records: &[serde_json::Value]| {
            let path = dir.path().join("puzzles.jsonl");
            let lines: Vec<String> = records.iter().map(ToString::to_string).collect();
            std::fs::write(&path, lines.join("\n") + "\n").unwrap();
            path
        };
        othello()
            .args(["puzzles", "check", "--sample", "3"])
            .arg(write(&records))
            .assert()
            .failure()
            .code(1)
            .stdout(
                predicate::str::contains(format!("{id} "))
                    .and(predicate::str::contains("the scores are")),
            )
            .stdout(predicate::str::contains(", 1 wrong"));
        // An answer that is not the best move: refused without solving.
        records[0]["moves"][last]["score"] = score.into();
        let other = records[1]["moves"][1]["square"].clone();
        records[1]["answer"] = other;
        let second = records[1]["id"].as_str().unwrap().to_owned();
        othello()
            .args(["puzzles", "check", "--sample", "0"])
            .arg(write(&records))
            .assert()
            .failure()
            .stdout(predicate::str::contains(format!(
                "puzzle {second}: the answer is not the first move"
            )));
    }

    #[test]
    fn a_missing_file_an_empty_one_or_an_opening_position_fails_the_check() {
        let dir = tempfile::tempdir().unwrap();
        othello()
            .args(["puzzles", "check"])
            .arg(dir.path().join("typo.jsonl"))
            .assert()
            .failure()
            .code(1)
            .stderr(predicate::str::contains("cannot read"));
        let empty = dir.path().join("empty.jsonl");
        std::fs::write(&empty, "").unwrap();
        othello()
            .args(["puzzles", "check"])
            .arg(&empty)
            .assert()
            .failure()
            .stderr(predicate::str::contains("no puzzles in it"));
        // The start: 60 empty squares, whatever the scores say.
        let start = "---------------------------OX------XO--------------------------- X";
        let setup = start.parse::<othello::Obf>().unwrap().setup;
        let record = serde_json::json!({
            "id": othello::analysis::puzzle::position_id(&setup), "position": start,
            "answer": "d3", "goal": "win",
            "moves": [{"square": "d3", "score": 2}, {"square": "c4", "score": -2},
                {"square": "f5", "score": -2}, {"square": "e6", "score": -2}],
            "depth": 1, "source": "made up"});
        let path = dir.path().join("start.jsonl");
        std::fs::write(&path, format!("{record}\n")).unwrap();
        othello()
            .args(["puzzles", "check"])
            .arg(&path)
            .assert()
            .failure()
            .stdout(predicate::str::contains("60 empty squares, not 14 to 24"));
        othello()
            .args(["puzzles", "make", "--threads", "1000", "--out"])
            .arg(dir.path().join("x.jsonl"))
            .assert()
            .failure()
            .stderr(predicate::str::contains("--threads"));
        othello()
            .args(["puzzles", "make", "--from-db"])
            .arg(dir.path().join("nope.db"))
            .arg("--out")
            .arg(dir.path().join("x.jsonl"))
            .assert()
            .failure()
            .stderr(predicate::str::contains("no such file"));
        assert!(
            !dir.path().join("nope.db").exists(),
            "a database made where one was only read"
        );
    }

    #[test]
    fn puzzles_are_made_from_self_play_resumed_and_hold() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("made.jsonl");
        let make = |games: &str| {
            othello()
                .args([
                    "puzzles",
                    "make",
                    "--threads",
                    "2",
                    "--seed",
                    "3",
                    "--empties",
                    "14-15",
                ])
                .args(["--games", games, "--out"])
                .arg(&out)
                .assert()
                .success()
                .get_output()
                .stdout
                .clone()
        };
        make("6");
        let progress = std::fs::read_to_string(dir.path().join("made.jsonl.progress")).unwrap();
        assert_eq!(progress, r#"{"seed":3,"next_game":6}"#);
        let first = std::fs::read_to_string(&out).unwrap_or_default();
        let stdout = String::from_utf8(make("12")).unwrap();
        assert!(stdout.contains("games 0..12"), "{stdout}");
        let all = std::fs::read_to_string(&out).unwrap();
        assert!(all.starts_with(&first), "a resumed run appends");
        let made = all.lines().count();
        assert!(made >= 1, "no puzzle in 12 games");
        othello()
            .args(["puzzles", "check", "--sample", "100"])
            .arg(&out)
            .assert()
            .success()
            .stdout(predicate::str::contains(format!(
                "{made} puzzles, {made} solved again"
            )));
        // Another seed into the same file is refused, not mixed in.
        othello()
            .args(["puzzles", "make", "--seed", "4", "--games", "1", "--out"])
            .arg(&out)
            .assert()
            .failure()
            .stderr(predicate::str::contains("--seed 3"));
    }
}

/// Issue 47.15: the opening explorer over WTHOR files the test writes.
mod explore {
    use super::*;
    use othello::{MoveList, Record, Setup, Shape, Variant, wthor::WthorGames};

    /// A `.wtb` file of these games (played out as far as given).
    fn wtb(dir: &Path, name: &str, shape: Shape, games: &[&str]) -> std::path::PathBuf {
        let mut file = WthorGames::new(shape, 2026).unwrap();
        for moves in games {
            let mut record = Record::new(Variant::Full, Setup::standard(shape));
            record.moves = moves.parse::<MoveList>().unwrap().0;
            file.push(&record, 0, 0, 1).unwrap();
        }
        let path = dir.join(name);
        std::fs::write(&path, file.to_bytes()).unwrap();
        path
    }

    #[test]
    fn each_next_move_with_its_games_results_and_discs() {
        let dir = tempfile::tempdir().unwrap();
        // Two f5 d6 games (one turned: e6 f4), one f5 f6, each stopped early and scored
        // with the empty squares going to whoever leads: f5 d6 c3 is 5-2 (Black +60),
        // e6 f4 3-3 (a draw), f5 f6 e6 5-2 (Black +60).
        let one = wtb(dir.path(), "one.wtb", Shape::STANDARD, &["f5d6c3", "e6f4"]);
        let two = wtb(dir.path(), "two.wtb", Shape::STANDARD, &["f5f6e6"]);
        let output = othello()
            .args(["explore", "--after", "f5"])
            .arg(&one)
            .arg(&two)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let text = String::from_utf8(output.stdout).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "after f5: 3 games of 3", "{text}");
        assert!(lines[1].starts_with("move"), "{text}");
        let d6: Vec<&str> = lines[2].split_whitespace().collect();
        assert_eq!(
            d6,
            ["d6", "2", "50.0%", "50.0%", "0.0%", "75.0%", "+30.0"],
            "{text}"
        );
        let f6: Vec<&str> = lines[3].split_whitespace().collect();
        assert_eq!(
            f6,
            ["f6", "1", "100.0%", "0.0%", "0.0%", "100.0%", "+60.0"],
            "{text}"
        );
        assert_eq!(lines.len(), 4, "{text}");
        // The same line asked the other way round answers the other way round.
        let turned = othello()
            .args(["explore", "--after", "e6"])
            .arg(&one)
            .arg(&two)
            .output()
            .unwrap();
        let turned = String::from_utf8(turned.stdout).unwrap();
        assert!(
            turned.lines().nth(2).unwrap().starts_with("f4 "),
            "{turned}"
        );
        // The same file twice counts its games once (as an import keeps them once), and
        // the line is written as moves are (found by the red team of item 47.15).
        othello()
            .args(["explore", "--after", " F5 "])
            .arg(&one)
            .arg(&one)
            .assert()
            .success()
            .stdout(predicate::str::starts_with(
                "after f5: 2 games of 2 (2 games given again, counted once)\n",
            ));
    }

    #[test]
    fn files_that_are_not_wthor_or_disagree_are_refused_plainly() {
        let dir = tempfile::tempdir().unwrap();
        let eight = wtb(dir.path(), "eight.wtb", Shape::STANDARD, &["f5"]);
        let ten = wtb(dir.path(), "ten.wtb", Shape::new(10, 10).unwrap(), &["g6"]);
        let junk = dir.path().join("junk.wtb");
        std::fs::write(&junk, b"not a database").unwrap();
        for (args, said) in [
            (vec![junk.clone()], "16-byte header"),
            (vec![eight.clone(), ten.clone()], "the files before on 8x8"),
            (vec![dir.path().to_path_buf()], "cannot read"),
        ] {
            othello()
                .arg("explore")
                .args(&args)
                .assert()
                .failure()
                .stdout("")
                .stderr(predicate::str::contains(said));
        }
        othello()
            .args(["explore", "--after", "f5a1"])
            .arg(&eight)
            .assert()
            .failure()
            .stderr(predicate::str::contains(
                "--after: move 2, a1, is not legal there",
            ));
    }
}
