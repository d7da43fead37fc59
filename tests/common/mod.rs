//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use othello::Variant;

/// The longest any one run of the program may take in a test: a run that hangs fails
/// instead of hanging the suite. Generous, because a loaded two-core machine runs several
/// test binaries at once; a test that must see something happen sooner says so itself.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(300);

/// The program as every test runs it: with [`RUN_TIMEOUT`], `SOURCE_DATE_EPOCH=0` (saved
/// records carry that date) and no `NO_COLOR` from the environment (a test that wants no
/// colour sets it).
pub fn othello() -> assert_cmd::Command {
    let mut command = assert_cmd::Command::new(othello_path());
    command
        .timeout(RUN_TIMEOUT)
        .env("SOURCE_DATE_EPOCH", "0")
        .env_remove("NO_COLOR");
    command
}

/// The program's path, for tests that drive it as a [`std::process::Command`] or a pseudo
/// terminal.
pub fn othello_path() -> PathBuf {
    assert_cmd::cargo::cargo_bin!("othello").to_owned()
}

/// A file or folder under `fixtures/`.
pub fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(path)
}

/// The rule set of a scenario file: those under a `simple/` folder use SIMPLE.
pub fn rules_of(path: &Path) -> Variant {
    let parent = path.parent().and_then(Path::file_name);
    if parent.is_some_and(|name| name == "simple") {
        Variant::Simple
    } else {
        Variant::Full
    }
}

/// Every `.in` scenario under `fixtures/transcripts`, sorted.
pub fn scenarios() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/transcripts");
    let mut found = Vec::new();
    for rules in ["full", "simple"] {
        for entry in std::fs::read_dir(root.join(rules)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "in") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Checks what insta's text snapshots cannot see, and the transcript's grammar: UTF-8, no
/// `\r`, no trailing or blank lines, exactly one final newline, only protocol lines, disc
/// counts that match the board printed under them, and nothing after `WINNER:`.
pub fn assert_well_formed(stdout: &[u8]) {
    let text = std::str::from_utf8(stdout).expect("stdout is UTF-8");
    assert!(!text.contains('\r'), "stdout holds a carriage return");
    assert!(text.ends_with('\n'), "stdout does not end with a newline");
    let mut lines = text.split_terminator('\n').enumerate().peekable();
    let (_, rules) = lines.next().expect("a rules line");
    assert!(rules == "FULL" || rules == "SIMPLE", "rules line {rules:?}");
    let mut shape = None;
    while let Some((n, line)) = lines.next() {
        assert!(
            !line.is_empty() && line.trim_end() == line,
            "line {}: blank or trailing whitespace: {line:?}",
            n + 1
        );
        if let Some(counts) = line.strip_prefix("B: ") {
            let (black, white) = counts.split_once("  W: ").expect("two spaces before W:");
            let (black, white): (usize, usize) = (black.parse().unwrap(), white.parse().unwrap());
            let mut rows = Vec::new();
            while let Some(&(_, row)) = lines.peek() {
                let cells: Vec<&str> = row.split(' ').collect();
                if !cells.iter().all(|c| ["B", "W", "."].contains(c)) {
                    break;
                }
                rows.push(cells);
                lines.next();
            }
            let this_shape = (rows.len(), rows[0].len());
            assert!(rows.iter().all(|r| r.len() == this_shape.1), "ragged board");
            assert_eq!(
                *shape.get_or_insert(this_shape),
                this_shape,
                "board changed shape"
            );
            let count = |c| rows.iter().flatten().filter(|&&x| x == c).count();
            assert_eq!(
                (count("B"), count("W")),
                (black, white),
                "counts at line {}",
                n + 1
            );
        } else if line.starts_with("WINNER: ") {
            assert!(["WINNER: B", "WINNER: W", "WINNER: NONE"].contains(&line));
            assert!(lines.next().is_none(), "output after {line}");
        } else {
            assert!(
                ["VALID", "INVALID", "TURN: B", "TURN: W"].contains(&line),
                "line {}: not a protocol line: {line:?}",
                n + 1
            );
        }
    }
}

/// Runs the `othello` binary with `args` in a pseudo-terminal (stdin, stdout and stderr all
/// the terminal, `TERM=xterm-256color`; `NO_COLOR` set only if `no_color`), types `input`,
/// and returns everything the terminal showed once the program has exited successfully.
///
/// Input is typed a line at a time, each once the program has gone quiet (it waits at its
/// prompt): a line editor reads only what is typed after its prompt, as a person types.
pub fn in_terminal(args: &[&str], no_color: bool, input: &[u8]) -> String {
    in_terminal_sized(args, no_color, input, 100)
}

/// [`in_terminal`] with a terminal `columns` wide.
pub fn in_terminal_sized(args: &[&str], no_color: bool, input: &[u8], columns: u16) -> String {
    use std::{
        io::{Read, Write},
        sync::{Arc, Mutex},
        time::{Duration, Instant},
    };

    use portable_pty::{CommandBuilder, PtySize, native_pty_system};

    /// How long the program must print nothing before the next line is typed.
    const QUIET: Duration = Duration::from_millis(300);
    /// The longest wait for a prompt, against a program that never goes quiet.
    const LONGEST: Duration = Duration::from_secs(60);

    let pty = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: columns,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut command = CommandBuilder::new(assert_cmd::cargo::cargo_bin!("othello"));
    command.args(args);
    command.env("TERM", "xterm-256color");
    if no_color {
        command.env("NO_COLOR", "1");
    } else {
        command.env_remove("NO_COLOR");
    }
    let mut child = pty.slave.spawn_command(command).unwrap();
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().unwrap();
    let mut writer = pty.master.take_writer().unwrap();
    // Read in the background: the terminal's buffer is small.
    let shown = Arc::new(Mutex::new((Vec::new(), Instant::now())));
    let output = {
        let shown = Arc::clone(&shown);
        std::thread::spawn(move || {
            let mut buffer = [0; 4096];
            while let Ok(n @ 1..) = reader.read(&mut buffer) {
                let mut shown = shown.lock().unwrap();
                shown.0.extend_from_slice(&buffer[..n]);
                shown.1 = Instant::now();
            }
        })
    };
    for line in input.split_inclusive(|&b| b == b'\n') {
        let asked = Instant::now();
        loop {
            std::thread::sleep(Duration::from_millis(50));
            let (printed, last) = {
                let shown = shown.lock().unwrap();
                (shown.0.len(), shown.1)
            };
            let quiet = printed > 0 && last.elapsed() >= QUIET;
            if quiet || asked.elapsed() >= LONGEST || child.try_wait().unwrap().is_some() {
                break;
            }
        }
        // Keys as a terminal sends them: Enter is a carriage return.
        let typed: Vec<u8> = line
            .iter()
            .map(|&b| if b == b'\n' { b'\r' } else { b })
            .collect();
        if writer
            .write_all(&typed)
            .and_then(|()| writer.flush())
            .is_err()
        {
            break;
        }
        // The next line waits for new output.
        shown.lock().unwrap().1 = Instant::now();
    }
    let status = child.wait().unwrap();
    assert!(status.success());
    drop(writer);
    drop(pty.master);
    output.join().unwrap();
    let bytes = shown.lock().unwrap().0.clone();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Runs the `othello` binary with `args` in a pseudo-terminal (as [`in_terminal`], without
/// colours) until the terminal shows `marker` (or `longest` passes), then stops it; returns
/// what the terminal showed.
pub fn in_terminal_until(args: &[&str], marker: &str, longest: std::time::Duration) -> String {
    use std::{
        io::Read,
        sync::{Arc, Mutex},
        time::{Duration, Instant},
    };

    use portable_pty::{CommandBuilder, PtySize, native_pty_system};

    let pty = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 100,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut command = CommandBuilder::new(assert_cmd::cargo::cargo_bin!("othello"));
    command.args(args);
    command.env("TERM", "xterm-256color");
    command.env("NO_COLOR", "1");
    let mut child = pty.slave.spawn_command(command).unwrap();
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().unwrap();
    let shown = Arc::new(Mutex::new(Vec::new()));
    let output = {
        let shown = Arc::clone(&shown);
        std::thread::spawn(move || {
            let mut buffer = [0; 4096];
            while let Ok(n @ 1..) = reader.read(&mut buffer) {
                shown.lock().unwrap().extend_from_slice(&buffer[..n]);
            }
        })
    };
    let start = Instant::now();
    while start.elapsed() < longest {
        std::thread::sleep(Duration::from_millis(50));
        let text = String::from_utf8_lossy(&shown.lock().unwrap()).into_owned();
        if text.contains(marker) || child.try_wait().unwrap().is_some() {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    drop(pty.master);
    output.join().unwrap();
    let bytes = shown.lock().unwrap().clone();
    String::from_utf8_lossy(&bytes).into_owned()
}
