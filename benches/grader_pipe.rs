//! Grader throughput: a 16x16 game buried in 100,000 invalid move lines, piped from a file
//! through the release binary, timed against `cat` on the same file in the same run.
//!
//! ```text
//! cargo bench --bench grader_pipe            # 31 rounds
//! cargo bench --bench grader_pipe -- 101     # more rounds
//! ```
//! Each round runs `cat` and `othello` once each, in alternating order, with stdin from the
//! file; it does so twice, once writing to `/dev/null` and once to a pipe this process drains.
//! Reported: the median wall time of each and the ratio of the medians. Target: within 3x of
//! `cat`.

use std::{
    fs::File,
    io::{Read, Write},
    path::Path,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use othello::{Full, Game, Setup, Shape, Square};
use rand::{RngExt, SeedableRng, rngs::StdRng, seq::IteratorRandom};

/// Invalid lines in the file.
const INVALID_LINES: usize = 100_000;

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(31);
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("grader-16x16-100k-invalid.in");
    let moves = write_input(&path);
    let othello = env!("CARGO_BIN_EXE_othello");

    // The run must be a real, finished game before it is worth timing.
    let output = Command::new(othello)
        .stdin(File::open(&path).unwrap())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "othello failed: {:?}",
        output.status
    );
    let text = String::from_utf8(output.stdout).unwrap();
    let invalid = text.lines().filter(|l| *l == "INVALID").count();
    assert_eq!(invalid, INVALID_LINES);
    assert!(text.ends_with("WINNER: B\n") || text.contains("\nWINNER: "));
    let input_len = std::fs::metadata(&path).unwrap().len();
    println!(
        "input: {} ({} bytes, {moves} moves, {INVALID_LINES} invalid lines); output {} bytes",
        path.display(),
        input_len,
        text.len()
    );

    for sink in [Sink::DevNull, Sink::Pipe] {
        let (mut cat, mut ours) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            let order: [(&str, &mut Vec<Duration>); 2] = if round % 2 == 0 {
                [("cat", &mut cat), (othello, &mut ours)]
            } else {
                [(othello, &mut ours), ("cat", &mut cat)]
            };
            for (program, times) in order {
                times.push(time_run(program, &path, sink));
            }
        }
        let (cat, ours) = (median(&mut cat), median(&mut ours));
        let ratio = ours.as_secs_f64() / cat.as_secs_f64();
        println!(
            "stdout to {:<9} cat {:>8.3} ms   othello {:>8.3} ms   ratio {ratio:.2}x   ({rounds} rounds, medians){}",
            sink.name(),
            cat.as_secs_f64() * 1e3,
            ours.as_secs_f64() * 1e3,
            if ratio <= 3.0 {
                ""
            } else {
                "   ABOVE THE 3x TARGET"
            }
        );
    }
}

#[derive(Clone, Copy)]
enum Sink {
    DevNull,
    Pipe,
}

impl Sink {
    fn name(self) -> &'static str {
        match self {
            Sink::DevNull => "/dev/null",
            Sink::Pipe => "a pipe",
        }
    }
}

/// Wall time of one run of `program < path > sink`, including draining the pipe.
fn time_run(program: &str, path: &Path, sink: Sink) -> Duration {
    let stdout = match sink {
        Sink::DevNull => Stdio::from(File::create("/dev/null").unwrap()),
        Sink::Pipe => Stdio::piped(),
    };
    let start = Instant::now();
    let mut child = Command::new(program)
        .stdin(File::open(path).unwrap())
        .stdout(stdout)
        .spawn()
        .unwrap();
    if let Some(mut out) = child.stdout.take() {
        let mut buf = vec![0; 1 << 16];
        while out.read(&mut buf).unwrap() > 0 {}
    }
    let status = child.wait().unwrap();
    let elapsed = start.elapsed();
    assert!(status.success());
    elapsed
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Writes a random 16x16 FULL game played to its end, with the invalid lines spread evenly
/// between its moves; returns the number of moves.
fn write_input(path: &Path) -> usize {
    let mut rng = StdRng::seed_from_u64(16);
    let setup = Setup::standard(Shape::new(16, 16).unwrap());
    let mut game = Game::<Full>::new(setup);
    let mut moves = Vec::new();
    while let Some(square) = game.legal_moves().iter().choose(&mut rng) {
        moves.push(square);
        game.play(square).unwrap();
    }
    let mut text = setup.to_string();
    let grader = |s: Square| format!("{} {}\n", s.row() + 1, s.column() + 1);
    let mut replay = Game::<Full>::new(setup);
    let per_move = INVALID_LINES / moves.len();
    let mut written = 0;
    for (index, &square) in moves.iter().enumerate() {
        let count = if index + 1 == moves.len() {
            INVALID_LINES - written
        } else {
            per_move
        };
        for _ in 0..count {
            let line = match rng.random_range(0..6) {
                0 => replay
                    .board()
                    .occupied()
                    .iter()
                    .choose(&mut rng)
                    .map(grader),
                1 => (replay.board().empty_squares() & !replay.legal_moves())
                    .iter()
                    .choose(&mut rng)
                    .map(grader),
                2 => Some(format!("{} 3\n", rng.random_range(17..100))),
                3 => Some("0 0\n".to_string()),
                4 => Some("a b\n".to_string()),
                _ => Some("3 4 5\n".to_string()),
            };
            text.push_str(&line.unwrap_or_else(|| "x\n".to_string()));
        }
        written += count;
        text.push_str(&grader(square));
        replay.play(square).unwrap();
    }
    File::create(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .unwrap();
    moves.len()
}
