//! `othello zero`'s loop end to end on the 4 × 4 board: self-play, fit, gate and
//! evaluation, resumed part way, with the loss going down and the net beating random.

use othello::engine::zero::Net;
use othello::training::zero::{Run, ZeroSettings, read_iterations};
use othello::{GameKind, Shape, Variant, WinRule};

fn small_settings() -> ZeroSettings {
    let kind = GameKind::new(
        Variant::Full,
        Shape::new(4, 4).expect("a shape"),
        WinRule::MostDiscs,
    );
    ZeroSettings {
        channels: 16,
        blocks: 1,
        games: 48,
        simulations: 24,
        parallel: 48,
        window: 4,
        steps: 80,
        batch: 64,
        gate_pairs: 8,
        eval_pairs: 16,
        match_simulations: 24,
        ..ZeroSettings::for_kind(kind)
    }
}

#[test]
fn the_loop_learns_4x4_from_self_play_and_resumes() {
    let dir = tempfile::tempdir().expect("a directory");
    let mut run = Run::open(dir.path(), Some(small_settings())).expect("a run");
    let mut seen = Vec::new();
    run.run(2, &mut |figures| seen.push(figures.clone()))
        .expect("two iterations");
    assert_eq!(seen.len(), 2);
    drop(run);

    // Resumed with no settings, it goes on from where it stopped.
    let mut run = Run::open(dir.path(), None).expect("the run again");
    assert_eq!(run.done(), 2);
    run.run(5, &mut |figures| seen.push(figures.clone()))
        .expect("three more");
    let rows = read_iterations(&dir.path().join("iterations.csv")).expect("the figures");
    assert_eq!(rows, seen, "the file has every iteration's figures");
    let numbers: Vec<usize> = rows.iter().map(|row| row.iteration).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5]);
    for row in &rows {
        assert!(row.positions > 48 * 4, "{row:?}");
        assert!(row.window >= row.positions, "{row:?}");
    }
    assert!(
        rows[0].loss_after < rows[0].loss_before,
        "the first fit lowers the random net's loss: {:?}",
        rows[0]
    );
    let (first, last) = (&rows[0], &rows[4]);
    assert!(
        last.loss_after < first.loss_before * 0.8,
        "the loss went down: from {} to {}",
        first.loss_before,
        last.loss_after
    );
    assert!(last.vs_random >= 0.7, "the best net beats random: {last:?}");

    // The best net is a file any player can load, for the same game.
    let best = Net::load(&run.best_path()).expect("the best net");
    assert_eq!(best.config().kind.to_string(), "4x4 FULL most");

    // Other settings for the same directory are refused rather than mixed in.
    let other = ZeroSettings {
        games: 10,
        ..small_settings()
    };
    let error = Run::open(dir.path(), Some(other)).expect_err("other settings");
    assert!(error.to_string().contains("other settings"), "{error}");
}

/// `othello zero train` as people run it: a line per iteration, resumed by the same
/// command, other settings for a run's directory refused with a clear error.
#[test]
fn zero_train_prints_a_line_per_iteration_and_resumes() {
    let dir = tempfile::tempdir().expect("a directory");
    let run = dir.path().join("run");
    let train = |extra: &[&str]| {
        let mut command = assert_cmd::Command::cargo_bin("othello").expect("the binary");
        command.arg("zero").arg("train").arg("--dir").arg(&run);
        command.args(extra);
        command.output().expect("it runs")
    };
    let small = [
        "--size",
        "4x4",
        "--channels",
        "8",
        "--blocks",
        "1",
        "--games",
        "8",
        "--simulations",
        "8",
        "--steps",
        "5",
    ];
    let first = train(&[&["--iterations", "1"][..], &small[..]].concat());
    assert!(first.status.success(), "{first:?}");
    let text = String::from_utf8(first.stdout).expect("UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].starts_with("4x4 FULL most: 8 channels, 1 blocks; 8 games of 8 simulations"),
        "{text}"
    );
    assert!(lines[0].ends_with("; 0 done"), "{text}");
    assert!(lines[1].starts_with("iteration 1: "), "{text}");
    assert!(lines[1].contains("against random"), "{text}");
    assert!(lines[2].starts_with("best net: "), "{text}");

    // The same directory with no settings goes on from where it stopped.
    let again = train(&["--iterations", "2"]);
    assert!(again.status.success(), "{again:?}");
    let text = String::from_utf8(again.stdout).expect("UTF-8");
    assert!(
        text.lines().next().expect("a line").ends_with("; 1 done"),
        "{text}"
    );
    assert_eq!(
        text.lines()
            .filter(|line| line.starts_with("iteration "))
            .count(),
        1,
        "{text}"
    );
    assert!(text.contains("\niteration 2: "), "{text}");

    // Other settings for it: refused, the run untouched.
    let other = train(&["--size", "6x6"]);
    assert_eq!(other.status.code(), Some(1), "{other:?}");
    let error = String::from_utf8(other.stderr).expect("UTF-8");
    assert!(error.contains("was started with other settings"), "{error}");
    let csv = std::fs::read_to_string(run.join("iterations.csv")).expect("the figures");
    assert_eq!(
        csv.lines().count(),
        3,
        "a header and two iterations:\n{csv}"
    );

    // A directory that is a file: an error that says so, no panic.
    let file = dir.path().join("file");
    std::fs::write(&file, "x").expect("a file");
    let mut command = assert_cmd::Command::cargo_bin("othello").expect("the binary");
    let output = command
        .args(["zero", "train", "--size", "4x4", "--dir"])
        .arg(&file)
        .output()
        .expect("it runs");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let error = String::from_utf8(output.stderr).expect("UTF-8");
    assert!(!error.contains("panicked"), "{error}");
    assert!(error.contains("file"), "{error}");
}
