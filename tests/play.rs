//! `othello play` driven as a script (stdin piped, fixed seeds, no colours), checked with
//! snapshots, and once in a pseudo-terminal to see the colours and the board as a person
//! does.

mod common;

use std::{path::Path, time::Duration};

use common::{othello, othello_path};
use othello::{
    Color, Full, Game, Record, Setup, Shape, Status,
    engine::{Limits, PlayerSpec, new_player, seat_seed},
};

/// Runs `play` with `args` on `input`; returns stdout, checking the run succeeded, wrote
/// nothing to stderr, and produced text insta cannot vouch for: no `\r`, no trailing spaces,
/// one final newline.
fn play(args: &[&str], input: &str, dir: Option<&Path>) -> String {
    let mut command = othello();
    // One search thread: a parallel search's lines may differ from run to run.
    command
        .arg("play")
        .args(["--threads", "1"])
        .args(args)
        .write_stdin(input);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    assert!(output.status.success(), "{:?}\n{stdout}", output.status);
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    assert_exact(&stdout);
    stdout
}

fn assert_exact(text: &str) {
    assert!(!text.contains('\r'), "a carriage return");
    assert!(
        text.ends_with('\n') && !text.ends_with("\n\n"),
        "one final newline"
    );
    for line in text.lines() {
        assert_eq!(line.trim_end(), line, "trailing spaces");
    }
}

/// The moves a human playing the first legal move each turn makes against `greedy` (seeded
/// as the play mode seeds it) on `setup`, and the final game.
fn first_move_against_greedy(setup: Setup, seed: u64) -> (Vec<String>, Game<Full>) {
    let mut game = Game::<Full>::new(setup);
    let mut greedy = new_player::<Full>(PlayerSpec::Greedy, seat_seed(seed, 1, Color::White), None);
    let mut typed = Vec::new();
    while let Status::ToMove(side) = game.status() {
        let square = if side == Color::Black {
            let square = game.legal_moves().first().unwrap();
            typed.push(square.to_string());
            square
        } else {
            greedy.choose(&game, &Limits::NONE, &mut |_| {}).unwrap()
        };
        game.play(square).unwrap();
    }
    (typed, game)
}

#[test]
fn human_against_greedy_to_the_end() {
    let setup = Setup::standard(Shape::new(6, 6).unwrap());
    let (moves, game) = first_move_against_greedy(setup, 1);
    let input = moves.join("\n") + "\nn\n";
    let stdout = play(
        &["--white", "greedy", "--size", "6x6", "--seed", "1"],
        &input,
        None,
    );
    let (black, white) = (game.count(Color::Black), game.count(Color::White));
    assert!(
        stdout.contains(&format!(" (Black {black}, White {white}).\n")),
        "{stdout}"
    );
    assert!(stdout.ends_with("Play again with colours swapped? (y/n, or a command)> n\n"));
    insta::assert_snapshot!(stdout);
}

#[test]
fn undo_redo_and_history() {
    let stdout = play(
        &["--white", "greedy", "--seed", "1"],
        "d3\nhistory\nundo\nhistory\nundo\nredo\nredo\nhistory\nquit\n",
        None,
    );
    // Undo and redo list the moves in the order they were played.
    assert!(stdout.contains("Took back d3 c5."), "{stdout}");
    assert!(stdout.contains("nothing to undo"), "{stdout}");
    assert!(stdout.contains("Replayed d3 c5."), "{stdout}");
    assert!(stdout.contains("nothing to redo"), "{stdout}");
    insta::assert_snapshot!(stdout);
}

#[test]
fn hints_are_exact_on_a_small_board() {
    // On 4x4 the search sees to the end at once, so the hints do not depend on time.
    let stdout = play(
        &["--white", "greedy", "--size", "4x4", "--seed", "1"],
        "hint 2\nhint\nquit\n",
        None,
    );
    let hints: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("1. ") || l.starts_with("2. "))
        .collect();
    assert_eq!(hints.len(), 4, "{stdout}");
    assert!(
        hints.iter().all(|l| l.contains("(exact, depth ")),
        "{stdout}"
    );
    insta::assert_snapshot!(stdout);
}

#[test]
fn a_pass_before_the_first_move_and_playing_again() {
    // The course's 4x4 example: White is named first but cannot move. After the game,
    // colours are swapped: greedy now plays Black and wins the same way.
    let position = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/transcripts/full/spec-full-first-mover-passes.in");
    let stdout = play(
        &[
            "--black",
            "human",
            "--white",
            "greedy",
            "--position",
            position.to_str().unwrap(),
            "--seed",
            "2",
        ],
        "c3\nhistory\ny\nn\n",
        None,
    );
    assert_eq!(
        stdout
            .matches("○ White has no legal move and passes.")
            .count(),
        2
    );
    assert!(
        stdout.contains("New game: ● Black is greedy, ○ White is human."),
        "{stdout}"
    );
    assert_eq!(
        stdout
            .matches("Game over: ● Black wins (Black 3, White 0).")
            .count(),
        2
    );
    insta::assert_snapshot!(stdout);
}

#[test]
fn bad_input_gets_one_line_each() {
    let stdout = play(
        &["--white", "greedy", "--seed", "1", "--ascii"],
        "foo\nhint 0\nsave\nz9\n9 9\n3 4 5\nundo x\nd4\na1\n\ny\nd3\nquit\n",
        None,
    );
    assert!(stdout.is_ascii(), "--ascii draws only ASCII");
    for expected in [
        "not a move or a command: \"foo\"",
        "hint takes a number of moves from 1 to 64, not \"0\"",
        "save takes a file name",
        "not a move or a command: \"z9\"",
        "9 9 is off the 8x8 board (rows 1-8, columns 1-8)",
        "not a move or a command: \"3 4 5\"",
        "undo takes a number of turns from 1 to 999, not \"x\"",
        "d4 is not a legal move for Black (the square is taken); legal moves: d3 c4 f5 e6",
        "a1 is not a legal move for Black (it flips nothing)",
        "the game is on: type a move, or quit to leave",
        "X Black plays d3 and flips 1.",
    ] {
        assert!(stdout.contains(expected), "{expected:?} not in\n{stdout}");
    }
    insta::assert_snapshot!(stdout);
}

#[test]
fn the_end_of_the_input_ends_the_program_quietly() {
    let stdout = play(&["--white", "greedy", "--seed", "1"], "d3\n", None);
    assert!(stdout.ends_with("● Black to move>\n"), "{stdout}");
    let stdout = play(&["--white", "greedy", "--seed", "1"], "", None);
    assert!(stdout.ends_with("● Black to move>\n"), "{stdout}");
}

#[test]
fn computers_play_each_other_and_input_waits_for_the_end() {
    let stdout = play(
        &[
            "--black", "greedy", "--white", "random", "--size", "4x6", "--seed", "3",
        ],
        "history\nn\n",
        None,
    );
    let moves = stdout.matches(" plays ").count();
    // The board is drawn at the start and after every move.
    assert_eq!(
        stdout.matches("    a b c d e f\n").count(),
        moves + 1,
        "{stdout}"
    );
    let history = stdout.split("> history\n").nth(1).unwrap();
    assert!(history.contains("transcript: "), "{stdout}");
    insta::assert_snapshot!(stdout);
}

#[test]
fn save_load_and_a_grader_input() {
    let dir = tempfile::tempdir().unwrap();
    let stdout = play(
        &["--white", "greedy", "--seed", "1", "--size", "6x6"],
        "c2\nsave game.rec\nsave --grader game.in\nnew\nload game.rec\nhistory\nload missing.txt\nquit\n",
        Some(dir.path()),
    );
    assert!(stdout.contains("Saved the game to game.rec."), "{stdout}");
    assert!(
        stdout.contains("Loaded game.rec (6x6 FULL, most discs wins, 2 moves)."),
        "{stdout}"
    );
    assert!(stdout.contains("cannot read missing.txt: "), "{stdout}");
    insta::assert_snapshot!("save_load_session", stdout);

    let saved = std::fs::read_to_string(dir.path().join("game.rec")).unwrap();
    insta::assert_snapshot!("saved_record", saved);
    let record: Record = saved.parse().unwrap();
    assert_eq!(record.players, ["human".to_owned(), "greedy".to_owned()]);
    assert_eq!(record.date.as_deref(), Some("1970-01-01T00:00:00Z"));

    // The grader input replays the game: the grader answers every move VALID, then waits
    // for more (the game is not over), so it exits 3.
    let grader = std::fs::read(dir.path().join("game.in")).unwrap();
    let output = othello().write_stdin(grader).output().unwrap();
    assert_eq!(output.status.code(), Some(3));
    let transcript = String::from_utf8(output.stdout).unwrap();
    assert_eq!(transcript.matches("VALID").count(), 2, "{transcript}");
    assert!(!transcript.contains("INVALID"), "{transcript}");
}

#[test]
fn a_finished_game_saved_for_the_grader_replays_to_its_winner() {
    let dir = tempfile::tempdir().unwrap();
    let setup = Setup::standard(Shape::new(4, 4).unwrap());
    let (moves, game) = first_move_against_greedy(setup, 5);
    let input = moves.join("\n") + "\nsave --grader done.in\nn\n";
    play(
        &["--white", "greedy", "--size", "4x4", "--seed", "5"],
        &input,
        Some(dir.path()),
    );
    let grader = std::fs::read(dir.path().join("done.in")).unwrap();
    let output = othello().write_stdin(grader).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let transcript = String::from_utf8(output.stdout).unwrap();
    let winner = match game.outcome().unwrap().winner() {
        Some(Color::Black) => "B",
        Some(Color::White) => "W",
        None => "NONE",
    };
    assert!(
        transcript.ends_with(&format!("WINNER: {winner}\n")),
        "{transcript}"
    );
}

#[test]
fn loading_transcripts_ggf_and_other_rules_at_start_and_during_a_game() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("opening.txt"), "f5d6c3d3c4\n").unwrap();
    std::fs::write(
        dir.path().join("game.ggf"),
        "(;GM[Othello]PB[alice]PW[bob]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[f5]W[f6];)\n",
    )
    .unwrap();
    let simple = "# othello game record\nrules: simple\nsize: 6x6\nmoves: b2\n";
    std::fs::write(dir.path().join("simple.txt"), simple).unwrap();
    std::fs::write(dir.path().join("illegal.txt"), "f5f5\n").unwrap();

    let stdout = play(
        &["--white", "greedy", "--seed", "1", "--load", "opening.txt"],
        "history\nload game.ggf\nhistory\nload simple.txt\nhistory\nload illegal.txt\nquit\n",
        Some(dir.path()),
    );
    // Loaded at the start: White (greedy) is to move and plays at once.
    assert!(stdout.contains("transcript: f5d6c3d3c4"), "{stdout}");
    assert!(stdout.contains("transcript: f5f6\n"), "{stdout}");
    assert!(
        stdout.contains("switching to SIMPLE rules for the loaded game"),
        "{stdout}"
    );
    assert!(stdout.contains("transcript: b2"), "{stdout}");
    assert!(stdout.contains("cannot load illegal.txt: "), "{stdout}");

    // A record that cannot be replayed is refused at the start.
    othello()
        .args(["play", "--load", "illegal.txt"])
        .current_dir(dir.path())
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::starts_with("othello: illegal.txt: move 2"));
}

/// The play mode in a pseudo-terminal: colours, the board drawing, no echo of its own.
#[test]
fn in_a_terminal_it_draws_in_colour() {
    let run = |no_color: bool, white: &str| -> String {
        let args = ["play", "--white", white, "--seed", "1", "--size", "6x6"];
        let args = [&args[..], &["--time-per-move", "400"]].concat();
        common::in_terminal(&args, no_color, b"c2\nquit\n")
    };
    let coloured = run(false, "greedy");
    assert!(
        coloured.contains("\u{1b}["),
        "no colours on a terminal:\n{coloured}"
    );
    assert!(coloured.contains("● Black"), "{coloured}");
    // The last move is painted, not framed with brackets.
    assert!(!coloured.contains("[●]"), "{coloured}");
    let plain = run(true, "greedy");
    assert!(!plain.contains("\u{1b}[1m"), "NO_COLOR is set:\n{plain}");
    assert!(plain.contains("    a b c d e f"), "{plain}");
    // The terminal echoes what is typed; the program itself does not.
    assert_eq!(plain.matches("c2").count(), coloured.matches("c2").count());
    // While the engine thinks, a spinner says so (on stderr, the same terminal here).
    let thinking = run(true, "engine");
    assert!(
        thinking.contains("White (engine) is thinking"),
        "{thinking}"
    );
}

/// The Edax-style commands and the clock in a pseudo-terminal, as a person types them: the
/// line editor takes each command, and the prompt shows the time left.
#[test]
fn in_a_terminal_the_commands_and_the_clock_work() {
    let args = [
        "play",
        "--white",
        "human",
        "--seed",
        "1",
        "--game-time",
        "10m",
        "--ascii",
    ];
    let screen = common::in_terminal(
        &args,
        true,
        b"play f5d6c3\nhelp level\nlevel 3\nmode 0\ngo\nundo\nhistory\nquit\n",
    );
    assert!(screen.contains("Played f5 d6 c3."), "{screen}");
    assert!(
        screen.contains("level N: the engine's level, 1 (weakest) to 10"),
        "{screen}"
    );
    assert!(
        screen.contains("The engine is now engine:3, for go and mode."),
        "{screen}"
    );
    assert!(screen.contains("O White is engine:3."), "{screen}");
    // mode 0: the computer takes White, to move after c3, and plays at once; go plays
    // Black's move for the person, and White replies again.
    assert!(screen.matches("O White plays ").count() >= 2, "{screen}");
    assert!(screen.contains("X Black plays "), "{screen}");
    assert!(screen.contains("Took back "), "{screen}");
    // The clock: ten minutes, counting down, in the prompt and the panel.
    assert!(screen.contains("to move (9:5"), "{screen}");
    assert!(
        screen.contains("10:00") || screen.contains("9:59"),
        "{screen}"
    );
}

/// Plays whole games through the binary as a person would: waits for each prompt, then
/// types the first legal move marked (`*`) on the last board drawn, after the commands
/// `script` gives for that turn. Returns everything the program wrote.
fn drive(args: &[&str], dir: &Path, mut script: impl FnMut(usize) -> Vec<String>) -> String {
    use std::{
        io::{Read, Write},
        process::{Command as StdCommand, Stdio},
        sync::mpsc,
    };
    let mut child = StdCommand::new(othello_path())
        .arg("play")
        .args(args)
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (sender, chunks) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buffer = [0; 8192];
        while let Ok(n @ 1..) = stdout.read(&mut buffer) {
            if sender.send(buffer[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut output = String::new();
    let mut turn = 0;
    loop {
        let chunk = chunks
            .recv_timeout(Duration::from_secs(60))
            .expect("the program answers");
        output.push_str(&String::from_utf8(chunk).unwrap());
        if output.ends_with("(y/n, or a command)>") {
            stdin.write_all(b"n\n").unwrap();
            break;
        }
        if !output.ends_with("to move>") {
            continue;
        }
        let header = output.rfind("\n    a").expect("a board was drawn");
        let rows = output[header + 1..].lines().skip(1);
        let legal = rows
            .take_while(|line| line.starts_with(|c: char| c == ' ' || c.is_ascii_digit()))
            .enumerate()
            .find_map(|(row, line)| {
                let cells: Vec<char> = line.chars().skip(4).step_by(2).collect();
                let column = cells.iter().position(|&c| c == '*')?;
                Some(format!("{}{}", char::from(b'a' + column as u8), row + 1))
            })
            .expect("a legal move is marked");
        for command in script(turn) {
            stdin.write_all(format!("{command}\n").as_bytes()).unwrap();
        }
        stdin.write_all(format!("{legal}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
        turn += 1;
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    while let Ok(chunk) = chunks.recv_timeout(Duration::from_secs(10)) {
        output.push_str(&String::from_utf8(chunk).unwrap());
    }
    assert_exact(&output);
    output
}

#[test]
fn full_games_against_every_computer_player_on_square_and_other_boards() {
    let dir = tempfile::tempdir().unwrap();
    for level in 1..=10 {
        for (size, rules) in [("8x8", "full"), ("6x10", "simple"), ("4x6", "full")] {
            let engine = format!("engine:{level}");
            let args = [
                "--white",
                &engine,
                "--size",
                size,
                "--rules",
                rules,
                "--time-per-move",
                "5",
                "--seed",
                "1",
            ];
            let output = drive(&args, dir.path(), |_| Vec::new());
            assert!(
                output.contains("Game over: "),
                "{engine} {size} {rules}:\n{output}"
            );
            assert!(!output.contains("is not a legal move"), "{output}");
        }
    }
    for other in ["random", "greedy", "minimax:3", "mcts:50"] {
        let args = ["--white", other, "--size", "6x4", "--seed", "2"];
        let output = drive(&args, dir.path(), |_| Vec::new());
        assert!(output.contains("Game over: "), "{other}:\n{output}");
    }
}

#[test]
fn hints_undo_save_and_reload_in_a_driven_game() {
    let dir = tempfile::tempdir().unwrap();
    let output = drive(
        &[
            "--white",
            "engine:3",
            "--size",
            "6x8",
            "--rules",
            "simple",
            "--time-per-move",
            "5",
        ],
        dir.path(),
        |turn| match turn {
            2 => vec!["hint 2".into(), "undo".into()],
            4 => vec!["save game.txt".into(), "new".into(), "load game.txt".into()],
            _ => Vec::new(),
        },
    );
    assert_eq!(output.matches("(depth ").count(), 2, "{output}");
    assert!(output.contains("Took back "), "{output}");
    assert!(
        output.contains("Loaded game.txt (6x8 SIMPLE, most discs wins, "),
        "{output}"
    );
    assert!(output.contains("Game over: "), "{output}");
}

/// The commands Edax users type: play, undo/redo with a count, level, mode, go, time,
/// setboard, new, init, save by extension, help for one command, analyze.
#[test]
fn edax_style_commands() {
    let dir = tempfile::tempdir().unwrap();
    let start = "---------------------------OX------XO---------------------------";
    let corner = "X-------OO------O--------------------------------------------OOX";
    let input = [
        "play f5d6c3",
        "play a1",
        "play f5 zz",
        "undo 2",
        "redo",
        "history",
        "save g.ggf",
        "save g.txt",
        "save g.rec",
        "level 2",
        "time 50ms",
        "mode 0",
        "go",
        "history",
        "mode 3",
        "help mode",
        "analyze",
        &format!("setboard {corner} W"),
        "new",
        "init",
        &format!("setboard {start}X"),
        "quit",
    ]
    .join("\n")
        + "\n";
    let stdout = play(
        &["--white", "human", "--seed", "3", "--time-per-move", "50"],
        &input,
        Some(dir.path()),
    );
    let expect = |text: &str| assert!(stdout.contains(text), "{text:?} missing in:\n{stdout}");
    expect("Played f5 d6 c3.");
    expect("a1 (move 1 of the 1) is not legal there (it flips no disc): nothing played");
    expect("play: ");
    expect("Took back d6 c3.");
    expect("Replayed d6.");
    expect("transcript: f5d6\n");
    expect("Saved the game to g.ggf (GGF).");
    expect("Saved the game to g.txt (a transcript).");
    expect("Saved the game to g.rec.");
    expect("The engine is now engine:2, for go and mode.");
    expect("The computer now takes 50ms a move.");
    expect("● Black is human, ○ White is engine:2.");
    // go: the computer plays Black's move, then White (the computer in mode 0) replies.
    let after_go = stdout.split("> go\n").nth(1).unwrap();
    assert!(after_go.starts_with("● Black plays "), "{after_go}");
    assert!(after_go.contains("○ White plays "), "{after_go}");
    expect("mode N: who the computer plays: 0 White, 1 Black, 2 both, 3 neither");
    expect("● Black is human, ○ White is human.");
    // analyze: a line per move and a summary per side.
    let analysis = stdout.split("> analyze\n").nth(1).unwrap();
    assert!(analysis.starts_with("  1. Black f5 "), "{analysis}");
    assert!(analysis.contains("Black: 2 moves, lost "), "{analysis}");
    assert!(analysis.contains("White: 2 moves, lost "), "{analysis}");
    expect("New game from this position, White to move first (new starts again from it).");
    expect("New game.");
    expect("New game from the standard start.");
    // The saved files, each in its format, load again.
    let ggf = std::fs::read_to_string(dir.path().join("g.ggf")).unwrap();
    assert!(
        ggf.starts_with("(;GM[Othello]") && ggf.contains("B[F5]W[D6]"),
        "{ggf}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("g.txt")).unwrap(),
        "f5d6\n"
    );
    let record: Record = std::fs::read_to_string(dir.path().join("g.rec"))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(record.moves.len(), 2);
    for file in ["g.ggf", "g.txt", "g.rec"] {
        let stdout = play(
            &["--white", "human", "--load", file],
            "history\nquit\n",
            Some(dir.path()),
        );
        assert!(stdout.contains("transcript: f5d6\n"), "{file}: {stdout}");
    }
}

/// Runs `play` with `args`, typing `first`, then after `pause` the rest: the second part
/// comes when the clock of the side on turn has run.
fn play_with_a_pause(args: &[&str], first: &str, pause: Duration, rest: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new(othello_path())
        .arg("play")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(first.as_bytes()).unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(pause);
    stdin.write_all(rest.as_bytes()).unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_exact(&stdout);
    stdout
}

#[test]
fn clocks_count_down_and_running_out_loses_or_warns() {
    // White (a person) has 300 ms for the game and answers after a second: White loses.
    let stdout = play_with_a_pause(
        &["--white", "human", "--game-time", "300ms"],
        "d3\n",
        Duration::from_secs(1),
        "c3\nd2\nquit\n",
    );
    assert!(stdout.contains("● Black to move (0:00."), "{stdout}");
    assert!(
        stdout.contains("Game over: ○ White ran out of time, ● Black wins on time."),
        "{stdout}"
    );
    assert!(
        stdout.contains("the game is over: y to play again, n to stop"),
        "the next move is refused: {stdout}"
    );
    // Only a warning: the move is played and the game goes on.
    let stdout = play_with_a_pause(
        &[
            "--white",
            "human",
            "--move-limit",
            "300ms",
            "--on-time",
            "warn",
        ],
        "d3\n",
        Duration::from_secs(1),
        "c3\nquit\n",
    );
    assert!(
        stdout.contains("○ White is over time (the clock only warns: play on)."),
        "{stdout}"
    );
    assert!(stdout.contains("○ White plays c3 and flips 1."), "{stdout}");
    // Over its game clock, a side is told once a game, not after every move (issue 45's
    // red team).
    let stdout = play_with_a_pause(
        &[
            "--white",
            "human",
            "--game-time",
            "500ms",
            "--on-time",
            "warn",
        ],
        "d3\n",
        Duration::from_secs(1),
        "c3\nc4\nc5\nd6\nquit\n",
    );
    assert!(stdout.contains("○ White plays c5 and flips 2."), "{stdout}");
    assert_eq!(
        stdout.matches("○ White is over time").count(),
        1,
        "{stdout}"
    );
    // The computer plans within its clock: a whole game on 6x6 in 2 s each.
    let stdout = play(
        &[
            "--black",
            "engine",
            "--white",
            "engine",
            "--size",
            "6x6",
            "--game-time",
            "2s",
            "--seed",
            "1",
        ],
        "",
        None,
    );
    assert!(stdout.contains("Game over: "), "{stdout}");
    assert!(!stdout.contains("ran out of time"), "{stdout}");
    for bad in ["0", "forever", "25h", "1:75"] {
        othello()
            .args(["play", "--game-time", bad])
            .assert()
            .code(1)
            .stderr(predicates::str::contains("--game-time"));
    }
}
