//! The class grader on a class: SUBMISSIONS stand-ins (three in four the plain correct
//! program, the others `student.py` with a bug that shows at once: trailing spaces, a
//! prompt, a missed pass, the wrong winner, a crash, a wrong rules line) on CASES generated
//! cases, `--jobs 2`, through the release binary, all run by Debian's `/usr/bin/python3`.
//!
//! ```text
//! cargo bench --bench grade_class                  # 200 submissions x 40 cases, then the overhead
//! cargo bench --bench grade_class -- 20 40 3       # SUBMISSIONS CASES ROUNDS
//! ```
//!
//! First the whole class in bubblewrap (the wall time). Then the similarity report's cost:
//! the same command again into the same report directory (the journal has every case:
//! only the reports are written), ROUNDS times each with and without `--no-similarity`,
//! alternating. Then the sandbox's cost: a tenth of
//! the class (at least 10 submissions), ROUNDS times each way in alternating order, in
//! bubblewrap and with the limits alone (`--sandbox limits`: rlimits, a process group and a
//! clean environment, which cost nothing measurable: as good as unsandboxed); reported: the
//! median wall time of each way, the ratio, and the cost a case of the difference.

use std::{
    fs,
    path::{Path, PathBuf},
    process::Command,
    time::Instant,
};

/// The bugs that fail a case at once (no waiting on a timeout).
const FAST_BUGS: [&str; 6] = [
    "trailing-space",
    "prompt",
    "no-pass-back",
    "ignore-fewest",
    "crash-full-board",
    "wrong-rules-line",
];

fn main() {
    let numbers: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let submissions = numbers.first().copied().unwrap_or(200);
    let cases = numbers.get(1).copied().unwrap_or(40);
    let rounds = numbers.get(2).copied().unwrap_or(3);
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("grade-class");
    let _ = fs::remove_dir_all(&root);
    let class = make_class(&root.join("class"), submissions);
    println!("{submissions} submissions x {cases} cases, --jobs 2");

    let whole = root.join("whole");
    let seconds = grade(&class, &whole, cases, "bubblewrap", &[]);
    println!(
        "whole class in bubblewrap: {seconds:.1} s ({:.1} ms a case per job)",
        seconds * 2.0 * 1000.0 / (submissions * cases) as f64
    );
    let mut reports: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut pairs = 0;
    for round in 0..rounds {
        for step in 0..2 {
            let way = (round + step) % 2;
            let extra: &[&str] = [&[][..], &["--no-similarity"][..]][way];
            reports[way].push(grade(&class, &whole, cases, "bubblewrap", extra));
            if way == 0 {
                pairs = fs::read_to_string(whole.join("similarity.csv"))
                    .map_or(0, |csv| csv.lines().count().saturating_sub(1));
            }
        }
    }
    let [with, without] = reports.map(median);
    println!(
        "reports again, median of {rounds}: with the similarity report {with:.2} s, without \
         {without:.2} s: the similarity report takes {:.2} s ({pairs} pairs listed)",
        with - without
    );

    let part = (submissions / 10).max(10).min(submissions);
    let sample = make_class(&root.join("sample"), part);
    let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for round in 0..rounds {
        for step in 0..2 {
            // Alternate which goes first.
            let way = (round + step) % 2;
            let sandbox = ["bubblewrap", "limits"][way];
            let out = root.join(format!("sample-{sandbox}-{round}"));
            times[way].push(grade(&sample, &out, cases, sandbox, &[]));
        }
    }
    let [boxed, bare] = times.map(median);
    let per_case = (boxed - bare) * 2.0 * 1000.0 / (part * cases) as f64;
    println!(
        "{part} submissions, median of {rounds}: bubblewrap {boxed:.2} s, limits only {bare:.2} s \
         ({:.2}x): the sandbox costs {per_case:.1} ms a case",
        boxed / bare
    );
}

/// A class of `count` submissions under `dir`.
fn make_class(dir: &Path, count: usize) -> PathBuf {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/students");
    let plain = fs::read(fixtures.join("plain.py")).unwrap();
    let student = fs::read(fixtures.join("student.py")).unwrap();
    for index in 0..count {
        let folder = dir.join(format!("s{index:04}"));
        fs::create_dir_all(&folder).unwrap();
        if index % 4 == 3 {
            let bug = FAST_BUGS[(index / 4) % FAST_BUGS.len()];
            let main = format!(
                "import runpy, sys\nsys.argv = ['student.py', '--bug', '{bug}']\n\
                 runpy.run_path(__file__.rsplit('/', 1)[0] + '/student.py', run_name='__main__')\n"
            );
            fs::write(folder.join("main.py"), main).unwrap();
            fs::write(folder.join("student.py"), &student).unwrap();
        } else {
            fs::write(folder.join("main.py"), &plain).unwrap();
        }
    }
    dir.to_owned()
}

/// The median of `times`.
fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Grades `class` into `out` (with `extra` arguments) and returns the wall time in seconds.
fn grade(class: &Path, out: &Path, cases: usize, sandbox: &str, extra: &[&str]) -> f64 {
    let start = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_othello"))
        .arg("grade")
        .arg(class)
        .args(["--generate", &cases.to_string(), "--jobs", "2"])
        .args(["--sandbox", sandbox])
        // The same interpreter both ways (the caller's PATH may find another outside the box).
        .args(["--command", "/usr/bin/python3 {dir}/main.py"])
        .args(extra)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    let seconds = start.elapsed().as_secs_f64();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    seconds
}
