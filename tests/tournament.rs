//! `othello tournament` through the binary: built-in players with `othello nboard` itself as
//! an external engine, a gauntlet from an openings file, a tournament cut short and resumed,
//! misbehaving engines (small sh scripts) that lose by forfeit while the tournament
//! goes on, and bad arguments.
//!
//! Every run has a generous timeout against hangs; nothing asserts on timing.

mod common;

use std::{
    collections::BTreeSet,
    fs,
    path::{Path, PathBuf},
    time::Duration,
};

use assert_cmd::Command;
use common::{othello, othello_path};
use othello::{Color, Full, Game, MoveList, Setup, Shape};
use predicates::prelude::*;
use serde_json::Value;

/// `othello tournament ...` in `dir`, with a timeout so that a hang fails the test.
fn tournament(dir: &Path) -> Command {
    let mut command = othello();
    command.arg("tournament").current_dir(dir);
    command
}

/// `othello nboard` as an external engine's command line.
fn nboard_command() -> String {
    let binary = othello_path().display().to_string();
    format!("{} nboard", shell_words::quote(&binary))
}

fn json_of(output: &[u8]) -> Value {
    let text = std::str::from_utf8(output).expect("UTF-8");
    assert_eq!(text.matches('\n').count(), 1, "one line: {text}");
    serde_json::from_str(text).expect("JSON")
}

/// Checks that the report adds up: every game of the schedule once, each replaying
/// legally with the result it states; each player's games, results and points agree with
/// the games; the pairings' points sum to their games. Returns the players by name.
fn assert_adds_up(report: &Value, expected_games: usize) -> Vec<(String, Value)> {
    let games = report["games"].as_array().unwrap();
    assert_eq!(games.len(), expected_games);
    assert_eq!(report["games_played"], expected_games);
    let numbers: BTreeSet<u64> = games.iter().map(|g| g["game"].as_u64().unwrap()).collect();
    assert_eq!(numbers, (1..=expected_games as u64).collect());
    for game in games {
        let moves = game["moves"]
            .as_str()
            .unwrap()
            .parse::<MoveList>()
            .unwrap()
            .0;
        assert!(
            game["moves"]
                .as_str()
                .unwrap()
                .starts_with(game["opening"].as_str().unwrap())
        );
        let replayed = Game::<Full>::replay(Setup::standard(Shape::STANDARD), moves).unwrap();
        let discs = [replayed.count(Color::Black), replayed.count(Color::White)];
        assert_eq!(game["discs"], serde_json::json!(discs), "{game}");
        if game["forfeit"].is_null() {
            assert!(replayed.is_over(), "{game}");
            let expected = match discs[0].cmp(&discs[1]) {
                std::cmp::Ordering::Greater => "1-0",
                std::cmp::Ordering::Less => "0-1",
                std::cmp::Ordering::Equal => "1/2-1/2",
            };
            assert_eq!(game["result"], expected, "{game}");
        }
    }
    let players: Vec<(String, Value)> = report["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap().to_owned(), p.clone()))
        .collect();
    let mut total_points = 0.0;
    for (name, player) in &players {
        let as_black: Vec<&Value> = games.iter().filter(|g| g["black"] == **name).collect();
        let as_white: Vec<&Value> = games.iter().filter(|g| g["white"] == **name).collect();
        let played = (as_black.len() + as_white.len()) as u64;
        assert_eq!(player["games"], played, "{name}");
        let count = |key: &str| player[key].as_u64().unwrap();
        assert_eq!(
            count("wins") + count("draws") + count("losses"),
            played,
            "{name}"
        );
        let wins = games.iter().filter(|g| g["winner"] == **name).count() as u64;
        assert_eq!(count("wins"), wins, "{name}");
        let points = player["points"].as_f64().unwrap();
        assert_eq!(points, count("wins") as f64 + count("draws") as f64 / 2.0);
        let forfeits = games
            .iter()
            .filter(|g| g["forfeit"]["player"] == **name)
            .count() as u64;
        assert_eq!(count("forfeits"), forfeits, "{name}");
        let elo = &player["elo"];
        assert!(elo["low"].as_f64().unwrap() <= elo["rating"].as_f64().unwrap());
        assert!(elo["rating"].as_f64().unwrap() <= elo["high"].as_f64().unwrap());
        total_points += points;
    }
    assert_eq!(total_points, expected_games as f64, "points sum to games");
    for pairing in report["pairings"].as_array().unwrap() {
        let points: f64 = pairing["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_f64().unwrap())
            .sum();
        assert_eq!(points, pairing["games"].as_f64().unwrap(), "{pairing}");
    }
    let anchor = report["ratings"]["anchor"].as_str().unwrap();
    let (_, anchor) = players.iter().find(|(name, _)| name == anchor).unwrap();
    assert_eq!(anchor["elo"]["rating"], 0.0);
    players
}

/// The rows of the text crosstable: name, the cells, games, points, forfeits.
fn crosstable(text: &str, players: usize) -> Vec<(String, Vec<String>, u32, f64, u32)> {
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|line| line.starts_with("#  player"))
        .expect("a header row");
    lines[header + 1..=header + players]
        .iter()
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let cells = words[2..2 + players]
                .iter()
                .map(|w| w.to_string())
                .collect();
            let games = words[2 + players].parse().unwrap();
            let points = words[3 + players].parse().unwrap();
            let forfeits = words.last().unwrap().parse().unwrap();
            (words[1].to_owned(), cells, games, points, forfeits)
        })
        .collect()
}

#[test]
fn three_built_in_players_and_othello_nboard_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let engine = format!("nb={}", nboard_command());
    let args = [
        "--player",
        "random=random",
        "--player",
        "greedy=greedy",
        "--player",
        "level1=engine:1",
        "--engine",
        &engine,
        "--engine-depth",
        "1",
        "--time-per-move",
        "5",
        "--save",
        "saved",
    ];
    let output = tournament(dir.path())
        .args(args)
        .arg("--json")
        .assert()
        .success()
        .stderr("");
    let report = json_of(&output.get_output().stdout);
    assert_eq!(report["format"], "round-robin");
    assert_eq!(report["pairings"].as_array().unwrap().len(), 6);
    let players = assert_adds_up(&report, 12);
    assert_eq!(players.len(), 4);
    for (name, player) in &players {
        assert_eq!(player["games"], 6, "{name}");
        assert_eq!(
            player["forfeits"], 0,
            "{name}: well-behaved engines forfeit nothing"
        );
    }
    assert_eq!(players[3].1["command"], nboard_command());
    assert_eq!(report["ratings"]["anchor"], "random");
    let saved = dir.path().join("saved");
    let ggf: Vec<PathBuf> = fs::read_dir(&saved)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "ggf"))
        .collect();
    assert_eq!(ggf.len(), 12);
    assert!(saved.join("0001-random-greedy.ggf").exists());
    assert!(saved.join("0012-nb-level1.ggf").exists());

    // The same command again plays nothing and reports every game, as text.
    let output =
        tournament(dir.path())
            .args(args)
            .assert()
            .success()
            .stderr(predicate::str::contains(
                "12 of 12 games already played in saved; nothing left to play",
            ));
    let text = String::from_utf8(output.get_output().stdout.clone()).unwrap();
    assert!(
        text.starts_with("Round robin: 4 players, 6 pairings of 2 games, 12 games\n"),
        "{text}"
    );
    let rows = crosstable(&text, 4);
    let mut total = 0.0;
    for (name, cells, games, points, forfeits) in &rows {
        assert_eq!(*games, 6, "{name}");
        assert_eq!(*forfeits, 0, "{name}");
        assert_eq!(cells.iter().filter(|c| *c == "·").count(), 1, "{text}");
        let sum: f64 = cells.iter().filter_map(|c| c.parse::<f64>().ok()).sum();
        assert_eq!(sum, *points, "{text}");
        let (_, player) = players.iter().find(|(n, _)| n == name).unwrap();
        assert_eq!(player["points"].as_f64().unwrap(), *points);
        total += points;
    }
    assert_eq!(total, 12.0);
    // Best first.
    assert!(rows.windows(2).all(|pair| pair[0].3 >= pair[1].3), "{text}");
    assert!(text.contains("anchored at 0 on random"), "{text}");
    assert!(text.ends_with("Games saved in saved\n"), "{text}");
}

#[test]
fn a_gauntlet_from_an_openings_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("openings.txt"),
        "% two openings\nf5d6c3\n\n# the other\nF5 F6 E6\n",
    )
    .unwrap();
    let output = tournament(dir.path())
        .args([
            "--player",
            "r=random",
            "--player",
            "g=greedy",
            "--player",
            "m=minimax:1",
        ])
        .args([
            "--gauntlet",
            "g",
            "--games",
            "6",
            "--openings",
            "openings.txt",
        ])
        .args(["--no-save", "--json"])
        .assert()
        .success();
    let report = json_of(&output.get_output().stdout);
    assert_eq!(report["format"], "gauntlet");
    assert_eq!(report["gauntlet"], "g");
    assert_eq!(report["saved"], Value::Null);
    assert_eq!(
        report["openings"],
        serde_json::json!(["f5d6c3", "f5f6e6", "f5d6c3"])
    );
    assert_eq!(report["ratings"]["anchor"], "g");
    let players = assert_adds_up(&report, 12);
    for pairing in report["pairings"].as_array().unwrap() {
        assert_eq!(pairing["players"][0], "g");
        assert_eq!(pairing["games"], 6);
    }
    assert_eq!(players[1].1["games"], 12);
    assert!(
        report["games"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["black"] == "g" || g["white"] == "g")
    );
    assert!(!dir.path().read_dir().unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("tournament-")
    }));
}

#[test]
fn a_tournament_cut_short_resumes_with_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    let players = [
        "--player",
        "r=random",
        "--player",
        "g=greedy",
        "--player",
        "m=minimax:2",
        "--games",
        "4",
    ];
    let args = [&players[..], &["--seed", "11", "--json"]].concat();
    // Issue 23.6: a directory nobody named is named before the first game.
    let whole = tournament(dir.path())
        .args(&args)
        .assert()
        .success()
        .stderr(predicate::str::starts_with(
            "othello tournament: saving the games in tournament-",
        ));
    let whole = json_of(&whole.get_output().stdout);
    let saved = dir.path().join(whole["saved"].as_str().unwrap());
    assert!(
        saved.starts_with(dir.path())
            && saved
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("tournament-")
    );

    // Keep five games and half of the sixth's line, as if stopped while writing it, and
    // remove the later games' GGF files.
    let lines_path = saved.join("games.jsonl");
    let text = fs::read_to_string(&lines_path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 12);
    let mut cut = lines[..5].join("\n");
    cut.push('\n');
    cut.push_str(&lines[5][..lines[5].len() / 2]);
    fs::write(&lines_path, cut).unwrap();
    for entry in fs::read_dir(&saved).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".ggf") && name[..4].parse::<u32>().unwrap() > 5 {
            fs::remove_file(path).unwrap();
        }
    }

    let resumed = tournament(dir.path())
        .args(&args)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "5 of 12 games already played in tournament-",
        ));
    let resumed = json_of(&resumed.get_output().stdout);
    assert_eq!(resumed["games_resumed"], 5);
    for key in ["players", "pairings", "games", "openings", "saved"] {
        assert_eq!(resumed[key], whole[key], "{key}");
    }
    assert_eq!(fs::read_to_string(&lines_path).unwrap(), text);
    assert!(saved.join("0012-m-g.ggf").exists());

    // Other arguments on the same directory are refused, naming what differs.
    let save = saved.display().to_string();
    tournament(dir.path())
        .args(players)
        .args(["--seed", "12", "--save", &save])
        .assert()
        .code(1)
        .stdout("")
        .stderr(
            predicate::str::contains("holds a different tournament")
                .and(predicate::str::contains("seed (saved 11; now 12)")),
        );
}

/// A misbehaving NBoard engine (sh starts in a moment, even on a loaded machine): writes
/// its process id to `pids`, answers the handshake and pings (unless `mute`), then
/// misbehaves at `go` in the way its argument names.
const BAD_ENGINE: &str = r#"
mode=$1
echo $$ >> pids
while read -r word n rest; do
    case $word in
        ping) [ "$mode" = mute ] || printf 'set myname bad\nstatus ready\npong %s\n' "$n" ;;
        go)
            case $mode in
                garbage) printf 'status thinking\nnodestats 1 0.1\nhello there\n' ;;
                illegal) echo '=== A1/0.0/0.1' ;;
                exit) echo 'Traceback: something broke' >&2; exit 3 ;;
                flood) exec yes "$(head -c 100000 /dev/zero | tr '\0' x)" ;;
            esac ;;
    esac
done
"#;

#[test]
fn misbehaving_engines_lose_by_forfeit_and_the_tournament_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("bad.sh"), BAD_ENGINE).unwrap();
    let modes = ["garbage", "illegal", "silent", "exit", "flood", "mute"];
    let mut command = tournament(dir.path());
    command.args([
        "--player",
        "r=random",
        "--gauntlet",
        "r",
        "--move-timeout",
        "500",
    ]);
    for mode in modes {
        command.args(["--engine", &format!("{mode}=sh bad.sh {mode}")]);
    }
    let output = command
        .args(["--no-save", "--json"])
        .assert()
        .success()
        .stderr("");
    let report = json_of(&output.get_output().stdout);
    let players = assert_adds_up(&report, 12);
    assert_eq!(players[0].1["points"], 12.0);
    let expected = [
        (
            "garbage",
            "garbage",
            "not an NBoard answer: \"hello there\"",
        ),
        (
            "illegal",
            "illegal-move",
            "answered A1/0.0/0.1: illegal move a1: it flips no disc",
        ),
        ("silent", "timeout", "no move within 500 ms"),
        (
            "exit",
            "exited",
            "exited (exit status: 3); its stderr ended \"Traceback: something broke\"",
        ),
        ("flood", "garbage", "a line longer than 4096 bytes"),
        (
            "mute",
            "timeout",
            "no answer to the handshake (pong 0) within 500 ms",
        ),
    ];
    let games = report["games"].as_array().unwrap();
    for (name, kind, reason) in expected {
        let lost: Vec<&Value> = games
            .iter()
            .filter(|g| g["black"] == name || g["white"] == name)
            .collect();
        assert_eq!(lost.len(), 2, "{name}");
        for game in lost {
            assert_eq!(game["winner"], "r", "{game}");
            assert_eq!(game["forfeit"]["player"], name, "{game}");
            assert_eq!(game["forfeit"]["kind"], kind, "{game}");
            assert_eq!(game["forfeit"]["reason"], reason, "{game}");
        }
        let (_, player) = players.iter().find(|(n, _)| n == name).unwrap();
        assert_eq!(player["forfeits"], 2, "{name}");
    }
    // Each engine was started again for its second game, and none is left running.
    let pids = fs::read_to_string(dir.path().join("pids")).unwrap();
    assert_eq!(pids.lines().count(), 12, "{pids}");
    #[cfg(target_os = "linux")]
    for pid in pids.lines() {
        let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        assert!(
            status.is_empty() || status.contains("State:\tZ"),
            "engine {pid} still runs"
        );
    }
}

#[test]
fn an_engine_that_cannot_start_is_an_error_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    tournament(dir.path())
        .args([
            "--player",
            "r=random",
            "--engine",
            "ghost=/no/such/engine -x",
            "--no-save",
        ])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::starts_with(
            "othello: cannot start engine ghost (/no/such/engine -x): ",
        ));
}

#[test]
fn bad_arguments_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("illegal.txt"), "f5d6\nf5a1\n").unwrap();
    let cases: [(&[&str], &str); 9] = [
        (
            &["--player", "a=random", "--player", "a=greedy"],
            "two players are named a: names must differ",
        ),
        (
            &["--player", "a=genius", "--player", "b=greedy"],
            "unknown player \"genius\"",
        ),
        (
            &["--player", "a=random"],
            "a tournament needs at least two players",
        ),
        (&[], "a tournament needs at least two players"),
        (
            &[
                "--player", "a=random", "--player", "b=greedy", "--games", "3",
            ],
            "--games 3: must be even",
        ),
        (
            &[
                "--player",
                "a=random",
                "--player",
                "b=greedy",
                "--openings",
                "missing.txt",
            ],
            "cannot read openings file missing.txt: ",
        ),
        (
            &[
                "--player",
                "a=random",
                "--player",
                "b=greedy",
                "--openings",
                "illegal.txt",
            ],
            "openings file illegal.txt: line 2: move 2: illegal move a1: it flips no disc",
        ),
        (
            &[
                "--player",
                "a=random",
                "--player",
                "b=greedy",
                "--gauntlet",
                "c",
            ],
            "--gauntlet c: no player has that name (the players are a, b)",
        ),
        (
            &["--player", "a b=random", "--player", "b=greedy"],
            "is not a word",
        ),
    ];
    for (args, message) in cases {
        tournament(dir.path())
            .args(args)
            .arg("--no-save")
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::contains(message));
    }
    // Nothing was saved by the failed runs.
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["illegal.txt"]);
}

/// Whether process `pid` is gone (or a zombie waiting to be reaped), waiting a moment for
/// it to go.
#[cfg(target_os = "linux")]
fn gone(pid: &str) -> bool {
    for _ in 0..250 {
        let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        if status.is_empty() || status.contains("State:\tZ") {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Plays a tournament against the engine `script` runs (`sh -c` with the engine's command
/// line as `ENGINE`), kills it with SIGKILL once `script` has written the file `pids`
/// (in the tournament's directory), and returns the process ids written there.
#[cfg(target_os = "linux")]
fn pids_after_a_killed_tournament(script: &str) -> Vec<String> {
    use std::{process::Command as StdCommand, thread, time::Instant};
    let dir = tempfile::tempdir().unwrap();
    let engine = format!(
        "slow=sh -c '{}'",
        script.replace("ENGINE", &nboard_command())
    );
    let mut child = StdCommand::new(othello_path())
        .args(["tournament", "--player", "r=random", "--engine", &engine])
        .args(["--engine-depth", "60", "--no-save"])
        .current_dir(dir.path())
        .spawn()
        .unwrap();
    let pids = dir.path().join("pids");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !pids.exists() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
    thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    let pids: Vec<String> = fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert!(!pids.is_empty());
    pids
}

/// Issue 22.9: a tournament killed with SIGKILL (no chance to stop anything) takes its
/// engines with it, even one deep in a search that would not notice its input closing.
#[cfg(target_os = "linux")]
#[test]
fn regression_22_9_a_killed_tournament_takes_its_engines_with_it() {
    for pid in pids_after_a_killed_tournament("echo $$ >> pids; exec ENGINE") {
        assert!(gone(&pid), "engine {pid} outlived the tournament");
    }
}

/// Issue 44.12: what an engine's script starts besides the engine (`sleep &`) goes with a
/// tournament killed with SIGKILL too.
#[cfg(target_os = "linux")]
#[test]
fn regression_44_12_a_killed_tournament_takes_its_engines_children_with_it() {
    let script = "sleep 1000 </dev/null >/dev/null 2>&1 & echo $! >> pids; exec ENGINE";
    for pid in pids_after_a_killed_tournament(script) {
        assert!(
            gone(&pid),
            "the engine's child {pid} outlived the tournament"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn an_interrupted_tournament_stops_its_engines() {
    use std::{
        process::{Command as StdCommand, Stdio},
        thread,
        time::Instant,
    };
    let dir = tempfile::tempdir().unwrap();
    // An engine that thinks for a long time, started through a shell that records its
    // process id (exec keeps it), so that the test can see it go.
    let engine = format!("slow=sh -c 'echo $$ >> pids; exec {}'", nboard_command());
    let args = [
        "tournament",
        "--player",
        "r=random",
        "--engine",
        &engine,
        "--engine-depth",
        "60",
        "--save",
        "saved",
    ];
    let mut child = StdCommand::new(othello_path())
        .args(args)
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let pids = dir.path().join("pids");
    while !pids.exists() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
    // Let the engine get to its search (or not: the interruption works either way).
    thread::sleep(Duration::from_millis(300));
    let status = StdCommand::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the tournament did not stop");
        thread::sleep(Duration::from_millis(20));
    };
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted; the games finished are saved in saved"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
    for pid in fs::read_to_string(&pids).unwrap().lines() {
        let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        assert!(
            status.is_empty() || status.contains("State:\tZ"),
            "engine {pid} still runs: {status}"
        );
    }
    assert!(dir.path().join("saved/tournament.json").exists());
}
