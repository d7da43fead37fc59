//! `othello check` and `othello transcript`: the reference passes its own cases, and each
//! deliberately wrong "student program" (fixtures/students/student.py, one bug each) is
//! caught with the right classification.

mod common;

use std::{path::PathBuf, time::Duration};

use common::othello;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> String {
    root()
        .join("fixtures/transcripts")
        .join(name)
        .display()
        .to_string()
}

fn student(args: &str) -> String {
    let script = root().join("fixtures/students/student.py");
    format!("python3 {} {args}", script.display())
}

/// Runs `othello check --json` with `program` on `cases`; returns the exit status and the
/// report.
fn check(program: &str, extra: &[&str], cases: &[String]) -> (i32, Value) {
    // Two cases at a time unless told otherwise.
    let jobs: &[&str] = if extra.contains(&"--jobs") {
        &[]
    } else {
        &["--jobs", "2"]
    };
    let output = othello()
        .args(["check", "--json", "--program", program])
        .args(jobs)
        .args(extra)
        .args(cases)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "{error}: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code().unwrap(), report)
}

/// The classes of the failing cases.
fn classes(report: &Value) -> Vec<String> {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["ok"] == false)
        .map(|r| r["class"].as_str().unwrap().to_owned())
        .collect()
}

fn all_fixtures(rules: &str) -> Vec<String> {
    let mut paths: Vec<String> = std::fs::read_dir(root().join("fixtures/transcripts").join(rules))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "in"))
        .map(|path| path.display().to_string())
        .collect();
    paths.sort();
    paths
}

#[test]
fn the_reference_and_the_correct_student_pass_every_fixture() {
    let reference = common::othello_path().display().to_string();
    let (status, report) = check(&reference, &[], &all_fixtures("full"));
    assert_eq!(
        (status, &report["failed"]),
        (0, &Value::from(0)),
        "{report:#}"
    );
    let simple = format!("{reference} --rules simple");
    let (status, report) = check(&simple, &["--rules", "simple"], &all_fixtures("simple"));
    assert_eq!(status, 0, "{report:#}");
    let (status, report) = check(&student(""), &["--rules", "auto"], &all_fixtures("full"));
    assert_eq!(status, 0, "{report:#}");
    let (status, report) = check(&student("--simple"), &["--piped"], &all_fixtures("simple"));
    assert_eq!(status, 0, "{report:#}");
}

#[test]
fn the_reference_passes_200_generated_cases_of_both_rule_sets() {
    let reference = common::othello_path().display().to_string();
    for (program, rules) in [
        (reference.clone(), "full"),
        (format!("{reference} --rules simple"), "simple"),
    ] {
        let (status, report) = check(
            &program,
            &["--generate", "200", "--seed", "1", "--rules", rules],
            &[],
        );
        assert_eq!(status, 0, "{report:#}");
        assert_eq!(report["passed"], 200);
    }
    // --rules auto generates for the rules the program names.
    use othello::{
        Variant,
        grading::check::{RulesChoice, generated_cases},
    };
    let simple = vec![reference, "--rules".to_owned(), "simple".to_owned()];
    let cases = |rules| generated_cases(&simple, rules, 30, 2, Duration::from_secs(5)).unwrap();
    let auto = cases(RulesChoice::Auto);
    assert_eq!(auto, cases(RulesChoice::Fixed(Variant::Simple)));
    assert_ne!(auto, cases(RulesChoice::Fixed(Variant::Full)));
}

#[test]
fn each_wrong_student_is_caught_with_its_class() {
    let passes = fixture("full/standard-8x8-three-passes.in");
    let fewest = fixture("full/8x8-fewest-wins.in");
    let full_board = fixture("full/standard-8x8-game.in");
    let spec = fixture("full/spec-full-4x4.in");
    for (bug, case, class) in [
        ("buffer", &spec, "missing-flush"),
        ("trailing-space", &spec, "trailing-whitespace"),
        ("prompt", &spec, "extra-output"),
        ("no-pass-back", &passes, "wrong-pass"),
        ("ignore-fewest", &fewest, "wrong-winner"),
        ("crash-full-board", &full_board, "crash"),
        ("no-exit", &spec, "no-exit"),
        ("wrong-rules-line", &spec, "wrong-rules-line"),
    ] {
        let (status, report) = check(
            &student(&format!("--bug {bug}")),
            &[],
            std::slice::from_ref(case),
        );
        assert_eq!(status, 1, "{bug}: {report:#}");
        assert_eq!(classes(&report), [class], "{bug}: {report:#}");
    }
}

/// Issue 21.1: a correct program that starts slowly (an interpreter on a loaded machine)
/// passes; the slow start is only a note.
/// The seconds a "slow start" note gives, when it is one and says at least the student's
/// 1.5 s wait (a loaded machine may add to it, never take from it).
fn slow_start_seconds(note: &str) -> Option<f64> {
    let seconds: f64 = note
        .strip_prefix("slow start: the rules line came after ")?
        .split(' ')
        .next()?
        .parse()
        .ok()?;
    (1.5..5.0).contains(&seconds).then_some(seconds)
}

#[test]
fn regression_21_1_a_slow_start_is_a_note_not_a_failure() {
    // The student waits 1.5 s before its first line, then plays correctly.
    let (status, report) = check(
        &student("--bug slow-start"),
        &["--timeout", "5"],
        &[fixture("full/spec-full-4x4.in")],
    );
    assert_eq!(status, 0, "{report:#}");
    assert_eq!(report["passed"], 1, "{report:#}");
    let notes = report["results"][0]["notes"].as_array().unwrap();
    let note = notes[0].as_str().unwrap();
    assert!(slow_start_seconds(note).is_some(), "{note}");
    // The text report says so too, and the run still passes.
    let output = othello()
        .args(["check", "--timeout", "5", "--program"])
        .arg(student("--bug slow-start"))
        .arg(fixture("full/spec-full-4x4.in"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.lines().any(
            |line| line.split_once(": slow start").is_some_and(|(_, rest)| {
                slow_start_seconds(&format!("slow start{rest}")).is_some()
            })
        ),
        "{text}"
    );
    assert!(text.ends_with("1 case: 1 passed, 0 failed\n"), "{text}");
    // Beyond the timeout it fails on its first line (the line that came once stdin was
    // closed reads as output held back: missing-flush).
    let (status, report) = check(
        &student("--bug slow-start"),
        &["--timeout", "0.5"],
        &[fixture("full/spec-full-4x4.in")],
    );
    assert_eq!(status, 1);
    assert_eq!(report["results"][0]["line"], 1, "{report:#}");
}

#[test]
fn failures_come_with_context_and_a_minimal_input_that_still_fails() {
    let dir = tempfile::tempdir().unwrap();
    let program = student("--bug no-pass-back");
    let case = fixture("full/standard-8x8-three-passes.in");
    let output = othello()
        .args(["check", "--program", &program, &case, "--save-failures"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("wrong-pass (wrong pass or end-of-game handling) at stdout line "),
        "{text}"
    );
    assert!(text.contains("  expected: \"TURN: "), "{text}");
    assert!(text.contains("  moves so far ("), "{text}");
    assert!(text.contains("  last board printed:\n    B: "), "{text}");
    assert!(
        text.ends_with("wrong-pass           wrong pass or end-of-game handling             1\n"),
        "{text}"
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "othello: 1 of 1 case failed\n"
    );
    // The saved input is shorter and fails the same way.
    let saved = dir.path().join("standard-8x8-three-passes.in");
    let minimal = std::fs::read(&saved).unwrap();
    assert!(minimal.len() < std::fs::read(&case).unwrap().len());
    let (_, report) = check(&program, &[], &[saved.display().to_string()]);
    assert_eq!(classes(&report), ["wrong-pass"], "{report:#}");
}

#[test]
fn invisible_differences_are_shown_and_bad_programs_are_reported() {
    let (_, report) = check(
        &student("--bug trailing-space"),
        &[],
        &[fixture("full/spec-full-4x4.in")],
    );
    assert_eq!(report["results"][0]["actual"], ". . . . ");
    assert_eq!(
        report["results"][0]["note"],
        "the right line with trailing whitespace"
    );
    let text = othello()
        .args(["check", "--program", &student("--bug trailing-space")])
        .arg(fixture("full/spec-full-4x4.in"))
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("  expected: \". . . .\"\n  actual:   \". . . .·\"\n"),
        "{text}"
    );
    othello()
        .args([
            "check",
            "--program",
            "no-such-program-here",
            &fixture("full/spec-full-4x4.in"),
        ])
        .assert()
        .code(1)
        .stderr(predicates::str::starts_with(
            "othello: cannot run no-such-program-here: ",
        ));
    othello()
        .args([
            "check",
            "--program",
            "\"unbalanced",
            &fixture("full/spec-full-4x4.in"),
        ])
        .assert()
        .code(1)
        .stderr(predicates::str::starts_with("othello: --program: "));
}

#[test]
fn transcripts_interleave_input_where_it_is_read() {
    let output = othello()
        .args(["transcript"])
        .arg(fixture("full/spec-full-4x4.in"))
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    // The spec's worked example, as far as it goes.
    let spec = std::fs::read_to_string(root().join("../shared/spec/grader-protocol.md"))
        .unwrap_or_default();
    if let Some(example) = spec.split("input shown with `> `\n```\n").nth(1) {
        let shown: Vec<&str> = example.lines().take_while(|l| *l != "...").collect();
        assert!(text.starts_with(&(shown.join("\n") + "\n")), "{text}");
    }
    // Every output line is there, and every input line read, marked.
    let out = std::fs::read_to_string(fixture("full/spec-full-4x4.out")).unwrap();
    let unmarked: Vec<&str> = text.lines().filter(|l| !l.starts_with("> ")).collect();
    assert_eq!(unmarked, out.lines().collect::<Vec<_>>());
    let truncated = othello()
        .args(["transcript", "--rules", "simple"])
        .write_stdin("4\n4\nB\n>\n. . . .\n. B W .\n. W B .\n. . . .\n")
        .output()
        .unwrap();
    let text = String::from_utf8(truncated.stdout).unwrap();
    assert!(text.starts_with("SIMPLE\n> 4\n"), "{text}");
    assert!(
        text.ends_with(
            "TURN: B\n# othello: input ended before the game was over (exit status 3)\n"
        ),
        "{text}"
    );
}

/// The plain stand-in: reads moves with `split()` and `int()`, nothing stricter.
fn plain_student(args: &str) -> String {
    let script = root().join("fixtures/students/plain.py");
    format!("python3 {} {args}", script.display())
}

/// The plain student on `count` generated cases of each rule set (every kind and size:
/// `--generate` draws them all in rotation).
fn plain_student_passes(full: &str, simple: &str, seed: &str) {
    for (args, rules, count) in [("", "full", full), ("--simple", "simple", simple)] {
        let (status, report) = check(
            &plain_student(args),
            &[
                "--generate",
                count,
                "--seed",
                seed,
                "--rules",
                rules,
                "--jobs",
                "4",
            ],
            &[],
        );
        assert_eq!(status, 0, "{report:#}");
        assert_eq!(report["passed"].to_string(), count);
    }
}

#[test]
fn a_plain_student_passes_every_default_generated_case() {
    plain_student_passes("120", "60", "7");
}

/// The same on many more cases: `cargo test --release --test check -- --ignored`.
#[test]
#[ignore = "long: 2,000 cases; cargo test --release --test check -- --ignored"]
fn a_plain_student_passes_thousands_of_generated_cases() {
    plain_student_passes("1000", "1000", "8");
}

#[test]
fn edge_cases_are_this_programs_choices_which_a_plain_student_may_not_share() {
    let dir = tempfile::tempdir().unwrap();
    othello()
        .args([
            "gen",
            "--count",
            "30",
            "--seed",
            "3",
            "--invalid-rate",
            "0.5",
        ])
        .args(["--sizes", "all", "--edge-cases", "--out"])
        .arg(dir.path())
        .assert()
        .success();
    let mut cases: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().path().display().to_string())
        .collect();
    cases.sort();
    let (status, report) = check(&plain_student(""), &["--rules", "full"], &cases);
    assert_eq!(status, 1, "{report:#}");
    // The plain student answers VALID where the reference says INVALID (or the other way).
    assert!(
        classes(&report).iter().all(|class| class == "wrong-output"),
        "{report:#}"
    );
    // The reference itself agrees with its own edge cases.
    let reference = common::othello_path().display().to_string();
    let (status, report) = check(&reference, &["--rules", "full"], &cases);
    assert_eq!(status, 0, "{report:#}");
}

/// Issue 22.8: a passing program's background children do not outlive its case.
#[test]
fn regression_22_8_background_children_die_with_the_case() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("sleeper.pid");
    let reference = common::othello_path().display().to_string();
    let program = format!(
        "sh -c 'sleep 300 & echo $! > {}; exec {reference}'",
        pid_file.display()
    );
    let (status, report) = check(&program, &[], &[fixture("full/spec-full-4x4.in")]);
    assert_eq!(status, 0, "{report:#}");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let proc_status = std::fs::read_to_string(format!("/proc/{}/status", pid.trim()));
    // Gone, or a zombie waiting for init to reap it: dead either way.
    let alive = proc_status.is_ok_and(|text| {
        text.lines()
            .any(|line| line.starts_with("State:") && !line.contains('Z'))
    });
    assert!(!alive, "the background sleep {pid} survived the case");
}

/// Issue 22.8: a program that dies at start (a missing script) is a crash.
#[test]
fn regression_22_8_a_program_that_dies_at_start_is_a_crash() {
    let (status, report) = check(
        "python3 /no/such/student.py",
        &[],
        &[fixture("full/spec-full-4x4.in")],
    );
    assert_eq!(status, 1);
    assert_eq!(classes(&report), ["crash"], "{report:#}");
    let note = report["results"][0]["note"].as_str().unwrap();
    assert!(
        note.starts_with("it ended with exit status 2 before printing its rules line"),
        "{note}"
    );
    assert!(
        report["results"][0]["stderr"]
            .as_str()
            .unwrap()
            .contains("No such file"),
        "{report:#}"
    );
}
