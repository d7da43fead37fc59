//! The solved boards (issue 46): the weakly solved line of 8 × 8 Othello is a draw at every
//! position from 24 empty squares on; `docs/solved.md`'s small rows are what `othello solve
//! --table` finds; a stopped solve says what it proved.

mod common;

use std::{collections::HashMap, str::FromStr};

use common::{fixture, othello};
use othello::{
    Full, Game, Obf, Shape, Square, Variant,
    analysis::solve_setup,
    engine::{Limits, TranspositionTable, endgame::SolveOptions},
};

/// The fixture's positions, one per ply of the line, with the move played there.
fn takizawa_line() -> Vec<(Obf, Square)> {
    let text = std::fs::read_to_string(fixture("solved/takizawa-line.obf")).unwrap();
    text.lines()
        .filter(|line| !line.starts_with('%') && !line.trim().is_empty())
        .map(|line| {
            let obf = Obf::from_str(line).unwrap();
            let played = obf.scored_moves[0].0;
            (obf, played)
        })
        .collect()
}

#[test]
fn the_weakly_solved_line_is_a_draw_from_24_empties_on() {
    let line = takizawa_line();
    assert_eq!(line.len(), 60, "one position per move");
    // The fixture was written by another program: replaying its moves here must give its
    // positions.
    let mut game = Game::<Full>::new(othello::Setup::standard(Shape::STANDARD));
    let mut tt = TranspositionTable::new(64);
    let mut solved = 0;
    for (ply, (obf, played)) in line.iter().enumerate() {
        assert_eq!(game.board(), &obf.setup.board, "ply {ply}");
        assert_eq!(
            Some(obf.setup.first_mover),
            game.side_to_move(),
            "ply {ply}"
        );
        if obf.setup.board.empty_squares().count() <= 24 {
            let result = solve_setup(
                Variant::Full,
                &obf.setup,
                &Limits::NONE,
                &mut tt,
                None,
                &SolveOptions::exact(obf.setup.win_rule),
            );
            assert!(result.finished);
            assert_eq!(result.score, 0, "ply {ply} ({obf}) is a draw");
            solved += 1;
        }
        game.play(*played).unwrap();
    }
    assert_eq!(solved, 24);
    assert!(game.is_over());
}

/// The columns of a table row that do not depend on the machine: board, rules, win rule,
/// value, result, best first moves.
fn facts(row: &str) -> Vec<String> {
    row.split('|')
        .map(str::trim)
        .skip(1)
        .take(6)
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_small_rows_of_the_solved_table_are_reproduced() {
    let output = othello()
        .args([
            "solve",
            "--table",
            "4x4,4x6:full,4x4:full",
            "--threads",
            "1",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let found = String::from_utf8(output.stdout).unwrap();
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/solved.md"),
    )
    .unwrap();
    let published: HashMap<Vec<String>, Vec<String>> = page
        .lines()
        .filter(|line| line.starts_with("| 4x"))
        .map(|line| {
            let facts = facts(line);
            (facts[..3].to_vec(), facts)
        })
        .collect();
    let rows: Vec<&str> = found.lines().filter(|l| l.starts_with("| 4x")).collect();
    // 4x4: 2 rule sets x 2 win rules; 4x6 FULL: 2 win rules; 4x4 FULL again: not again.
    assert_eq!(rows.len(), 4 + 2, "{found}");
    for row in rows {
        let facts = facts(row);
        assert_eq!(
            published.get(&facts[..3]),
            Some(&facts),
            "docs/solved.md disagrees with: {row}"
        );
    }
    assert!(found.starts_with("# The small boards, solved"));
    assert!(
        found.contains("Made with `othello solve --table 4x4,4x6:full,4x4:full --threads 1`."),
        "{found}"
    );
}

#[test]
fn the_6x6_start_matches_the_published_anchor_in_the_table() {
    // Feinstein (1993): White wins 20-16; Tothello: Black wins the fewest-discs game.
    let page = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/solved.md"),
    )
    .unwrap();
    let row = |rules: &str, wins: &str| {
        page.lines()
            .map(facts)
            .find(|f| f.len() == 6 && f[0] == "6x6" && f[1] == rules && f[2] == wins)
            .unwrap_or_else(|| panic!("no 6x6 {rules} {wins} row"))
    };
    assert_eq!(row("FULL", "most")[3..5], ["-4", "White 20-16"]);
    // Fewest discs: solved, a win by 2 or more; not solved within the table's time, what
    // was proved must leave room for that.
    let fewest = row("FULL", "fewest");
    match fewest[3].parse::<i32>() {
        Ok(value) => assert!(value >= 2, "Black wins by at least 2"),
        Err(_) => {
            assert_eq!(fewest[3], "?");
            if let Some((_, bounds)) = fewest[4].split_once("proved ")
                && let Some((_, upper)) = bounds.split_once(" to ")
            {
                let upper: i32 = upper.parse().unwrap();
                assert!(upper >= 2, "{fewest:?}");
            } else {
                assert!(fewest[4].ends_with("proved nothing"), "{fewest:?}");
            }
        }
    }
}

#[test]
fn a_stopped_solve_says_what_it_proved() {
    let position = fixture("solved/6x6-start.txt");
    let output = othello()
        .args(["solve", "--time", "1500", "--threads", "1", "--position"])
        .arg(&position)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8(output.stdout).unwrap();
    let rest = text
        .strip_prefix("timeout (")
        .unwrap_or_else(|| panic!("{text}"));
    let (_, proof) = rest.split_once("): ").unwrap();
    let proof = proof.trim_end();
    assert!(
        proof == "nothing proved yet" || proof.starts_with("proved "),
        "{text}"
    );
    let output = othello()
        .args([
            "solve",
            "--time",
            "1500",
            "--threads",
            "1",
            "--json",
            "--position",
        ])
        .arg(&position)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["solved"], false);
    for key in ["lower", "upper", "best_so_far", "nodes"] {
        assert!(json.get(key).is_some(), "{key} in {json}");
    }
}

/// `othello solve --threads 1 FLAG FIXTURE`, sent SIGINT (as Ctrl-C sends) after 1.5 s.
#[cfg(unix)]
fn interrupted(source: &[&str; 2]) -> std::process::Output {
    use std::{process::Stdio, thread, time::Duration};
    let child = std::process::Command::new(common::othello_path())
        .args(["solve", "--threads", "1", source[0]])
        .arg(fixture(source[1]))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    thread::sleep(Duration::from_millis(1500));
    // SAFETY: a plain kill(2) of our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    child.wait_with_output().unwrap()
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_solve_which_then_reports() {
    let output = interrupted(&["--position", "solved/6x6-start.txt"]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.starts_with("interrupted ("), "{text}");
    assert_eq!(output.status.code(), Some(130));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "othello: interrupted\n"
    );
}

#[test]
fn the_table_refuses_what_it_would_ignore() {
    for args in [
        &["solve", "--table", "4x4", "--json"][..],
        &["solve", "--table", "4x4", "--rules", "simple"],
        &["solve", "--table", "5x4"],
        &["solve", "--table", "4x4:hard"],
    ] {
        // Bad command-line arguments: status 1, as everywhere (the grader protocol's rule).
        let output = othello().args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        assert!(!output.stderr.is_empty(), "{args:?}");
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_suite_which_then_totals() {
    let output = interrupted(&["--suite", "solved/takizawa-line.obf"]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(130), "{text}");
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("total: 1 position, 0 right, 0 wrong, 1 stopped"),
        "{text}"
    );
    assert!(text.lines().next().unwrap().contains("STOPPED"), "{text}");
}

#[test]
fn hints_and_solves_name_their_evaluation() {
    let json = |args: &[&str]| -> serde_json::Value {
        let output = othello().args(args).output().unwrap();
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let six = fixture("solved/6x6-start.txt");
    let six = six.to_str().unwrap();
    assert_eq!(
        json(&["hint", "--position", six, "--depth", "2", "--json"])["evaluation"],
        "learned patterns for 6x6 FULL most (built in)"
    );
    assert_eq!(
        json(&[
            "hint",
            "--position",
            six,
            "--depth",
            "2",
            "--json",
            "--rules",
            "simple"
        ])["evaluation"],
        "classic (no learned weights for 6x6 SIMPLE with most discs winning)"
    );
    let fewest = fixture("solved/6x6-fewest-start.txt");
    assert_eq!(
        json(&[
            "hint",
            "--position",
            fewest.to_str().unwrap(),
            "--depth",
            "2",
            "--json"
        ])["evaluation"],
        "learned patterns for 6x6 FULL fewest (built in)"
    );
    let near_end = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X";
    assert_eq!(
        json(&["solve", "--obf", near_end, "--json", "--threads", "1"])["evaluation"],
        "learned patterns (built in)"
    );
    assert_eq!(
        json(&[
            "solve",
            "--obf",
            near_end,
            "--json",
            "--threads",
            "1",
            "--weights",
            "classic"
        ])["evaluation"],
        "classic"
    );
}
