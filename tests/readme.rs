//! The README's examples, run as a newcomer would run them, so they stay true: every
//! command of every `sh` block (blocks marked `sh no_run` start servers or prompts, or run
//! for minutes) must succeed, and the scripted `play` session must print what the README
//! shows (but for its hint lines, which depend on the machine's speed).

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use assert_cmd::cargo::cargo_bin;

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The fenced blocks of `text`: their info string and their lines.
fn blocks(text: &str) -> Vec<(String, Vec<String>)> {
    let mut found = Vec::new();
    // The block open, and the indentation of its fence (a block inside a list item is
    // indented, its lines too).
    let mut open: Option<(String, Vec<String>, usize)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            match open.take() {
                Some((info, lines, _)) => found.push((info, lines)),
                None => {
                    let indent = line.len() - trimmed.len();
                    open = Some((info.trim().to_owned(), Vec::new(), indent));
                }
            }
        } else if let Some((_, lines, indent)) = &mut open {
            let prefix = " ".repeat(*indent);
            lines.push(line.strip_prefix(&prefix).unwrap_or(line).to_owned());
        }
    }
    found
}

/// `line` with the README's ways of calling the program replaced by the binary built for
/// the tests.
fn with_binary(line: &str) -> String {
    let binary = shell_words::quote(&cargo_bin!("othello").display().to_string()).into_owned();
    for prefix in [
        "cargo run --release -- ",
        "target/release/othello ",
        "othello ",
    ] {
        if let Some(rest) = line.strip_prefix(prefix) {
            return format!("{binary} {rest}");
        }
    }
    line.replace("| othello ", &format!("| {binary} "))
}

/// A directory to run the examples in, with the repository's `fixtures` and `data` at hand.
fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for name in ["fixtures", "data"] {
        std::os::unix::fs::symlink(root.join(name), dir.path().join(name)).unwrap();
    }
    dir
}

fn run(command: &str, dir: &Path) -> std::process::Output {
    Command::new("sh")
        .args(["-c", command])
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn every_command_of_the_readme_runs() {
    let dir = workdir();
    let mut ran = 0;
    for (info, lines) in blocks(&readme()) {
        if info != "sh" {
            continue;
        }
        // Continued lines (ending in `\`) are one command.
        let mut commands = Vec::new();
        let mut current = String::new();
        for line in lines {
            let line = line.trim();
            if let Some(start) = line.strip_suffix('\\') {
                current.push_str(start);
                continue;
            }
            current.push_str(line);
            commands.push(std::mem::take(&mut current));
        }
        for command in commands {
            // The set-up commands: building is what this test runs on.
            if command.is_empty()
                || command.starts_with('#')
                || command.starts_with("cargo test")
                || command.starts_with("cargo install")
                || command.starts_with("cargo build")
            {
                continue;
            }
            let output = run(&with_binary(&command), dir.path());
            assert!(
                output.status.success(),
                "{command}\nstdout: {}\nstderr: {}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 10, "only {ran} commands found");
}

/// A hint line of the play mode: `1. f6 -0.58 (depth 15@73%) f6 e3 ...`.
fn is_hint(line: &str) -> bool {
    let mut words = line.split_whitespace();
    matches!(
        (words.next(), words.next(), words.next()),
        (Some(rank), Some(_), Some(score))
            if rank.ends_with('.')
                && rank[..rank.len() - 1].bytes().all(|b| b.is_ascii_digit())
                && score.starts_with(['+', '-'])
    )
}

/// A hint line's shape: its rank, and how it says how deep it looked, with every number
/// a `#` (`1. (depth #@#%)`): the moves and scores depend on the search's time, the form
/// does not.
fn hint_shape(line: &str) -> String {
    let rank = line.split_whitespace().next().unwrap_or_default();
    let depth = line
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .map_or("", |(depth, _)| depth);
    let mut shape = String::new();
    for c in format!("{rank} ({depth})").chars() {
        if !c.is_ascii_digit() {
            shape.push(c);
        } else if !shape.ends_with('#') {
            shape.push('#');
        }
    }
    shape
}

#[test]
fn the_scripted_play_session_prints_what_the_readme_shows() {
    let readme = readme();
    let (_, lines) = blocks(&readme)
        .into_iter()
        .find(|(info, lines)| {
            info == "text" && lines.first().is_some_and(|l| l.starts_with("$ printf"))
        })
        .expect("the scripted session is in the README");
    let command = lines[0].strip_prefix("$ ").unwrap();
    let dir = workdir();
    let output = run(&with_binary(command), dir.path());
    assert!(output.status.success());
    let shown: Vec<&str> = lines[1..]
        .iter()
        .map(String::as_str)
        .filter(|l| !is_hint(l))
        .collect();
    let printed = String::from_utf8(output.stdout).unwrap();
    // The hint lines as the program writes them today (issue 44.17: the README showed
    // `(depth 14)` after the program wrote `(depth 15@73%)`).
    let shapes = |lines: &mut dyn Iterator<Item = &str>| -> Vec<String> {
        lines.filter(|l| is_hint(l)).map(hint_shape).collect()
    };
    let shown_hints = shapes(&mut lines[1..].iter().map(String::as_str));
    assert!(!shown_hints.is_empty());
    assert_eq!(shapes(&mut printed.lines()), shown_hints);
    let printed: Vec<&str> = printed.lines().filter(|l| !is_hint(l)).collect();
    assert_eq!(printed, shown);
    assert!(dir.path().join("game.rec").exists());
}

#[test]
fn the_quick_start_prints_the_course_example() {
    let dir = workdir();
    let output = run(
        &with_binary("cargo run --release -- < fixtures/transcripts/full/spec-full-4x4.in"),
        dir.path(),
    );
    let expected = std::fs::read(
        dir.path()
            .join("fixtures/transcripts/full/spec-full-4x4.out"),
    )
    .unwrap();
    assert_eq!(output.stdout, expected);
}

/// The README says which input rules the spec states and which are this program's own
/// choices: the 4096-byte line rule is the spec's (its contract says so), never listed as
/// a choice where the spec is silent.
#[test]
fn the_input_rules_the_spec_states_are_not_called_its_silences() {
    let readme = readme();
    let silent = readme
        .split_once("Where the spec is silent, this program's choices")
        .expect("the README lists the program's own choices")
        .1;
    let silent = &silent[..silent.find("## Commands").unwrap()];
    let stated = readme
        .split_once("What the spec states, and the program does")
        .expect("the README lists what the spec states")
        .1;
    assert!(!silent.contains("4096"), "{silent}");
    assert!(stated[..stated.find("Where the spec is silent").unwrap()].contains("4096 bytes"));
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/spec/grader-protocol.md");
    if let Ok(spec) = std::fs::read_to_string(spec) {
        assert!(
            spec.contains("longer than 4096 bytes"),
            "the spec states the rule"
        );
    }
}

/// Issue 44.17: the Commands table names every subcommand `othello --help` lists.
#[test]
fn the_commands_table_names_every_subcommand() {
    let text = readme();
    let help = Command::new(cargo_bin("othello"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let commands = &help[help.find("Commands:").unwrap()..];
    let names: Vec<&str> = commands
        .lines()
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|&name| name != "help")
        .collect();
    assert!(names.len() > 10, "{names:?}");
    for name in names {
        assert!(
            text.contains(&format!("| `othello {name}")),
            "the README's Commands table leaves out {name}"
        );
    }
}

/// docs/nboard.md's example of a search out of the book is what the program answers: the
/// session its example shows, at its depth, with `--no-book` (issue 44.17: it was stale).
#[test]
fn the_nboard_guide_shows_a_search_as_the_program_answers_it() {
    let guide =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/nboard.md"))
            .unwrap();
    let example = guide
        .split_once("`hint` searches: `")
        .and_then(|(_, rest)| rest.split_once('`'))
        .expect("the guide shows a search line")
        .0;
    let mut session: Vec<&str> = guide
        .lines()
        .filter_map(|line| line.strip_prefix("> "))
        .take_while(|line| *line != "go")
        .collect();
    session.push("hint 2\n");
    let session = session.join("\n");
    assert!(session.contains("set game"), "{session}");
    let output = assert_cmd::Command::new(cargo_bin("othello"))
        .args(["nboard", "--no-book", "--threads", "1"])
        .write_stdin(session)
        .output()
        .unwrap();
    let printed = String::from_utf8(output.stdout).unwrap();
    assert!(
        printed.lines().any(|line| line == example),
        "the guide shows {example:?}; the program answers:\n{printed}"
    );
}

/// Every step of `train` explains itself in one layout (issue 44.17: `fit` alone packed its
/// options without the blank lines its siblings have), and `train --help` names each.
#[test]
fn the_training_steps_help_has_one_layout() {
    let help = |args: &[&str]| {
        let output = Command::new(cargo_bin("othello"))
            .args(args)
            .output()
            .unwrap();
        String::from_utf8(output.stdout).unwrap()
    };
    let listing = help(&["train", "--help"]);
    for step in ["selfplay", "label", "fit", "measure", "probcut"] {
        assert!(listing.contains(&format!("\n  {step}\n")), "{listing}");
        let text = help(&["train", step, "--help"]);
        let options = text.split_once("Options:\n").expect("options").1;
        let lines: Vec<&str> = options.lines().collect();
        for (index, line) in lines.iter().enumerate().skip(1) {
            if line.starts_with("      --") || line.starts_with("  -") {
                assert_eq!(lines[index - 1], "", "{step}: {line:?} packed:\n{text}");
            }
        }
    }
}
