//! Grades a course can trust (issue 43): what each entry of a class directory becomes,
//! the rules coming from the cases, the exit statuses tested, time budgets, the reports'
//! safety with hostile names and output, the class list and LMS gradebooks, regrading one
//! student, the similarity report, and the run's own housekeeping.

use super::*;

/// A class directory made world-traversable (job users must reach the scratch space,
/// which these tests put under it with TMPDIR).
fn open_class() -> Class {
    let class = Class::new();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(class.dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    class
}

/// `plain.py` with one change.
fn plain_with(from: &str, to: &str) -> Vec<u8> {
    let plain = String::from_utf8(plain_py()).unwrap();
    assert!(plain.contains(from), "{from}");
    plain.replace(from, to).into_bytes()
}

/// The output of the first failed test of a submission's results.json.
fn first_failure(out: &Path, name: &str) -> String {
    let results = assert_gradescope(&out.join("submissions").join(name).join("results.json"));
    results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|test| test["status"] == "failed")
        .map(|test| test["output"].as_str().unwrap().to_owned())
        .unwrap_or_default()
}

/// A tar archive of one file, compressed with xz.
fn tar_xz(path: &str, content: &[u8]) -> Vec<u8> {
    let mut tar = tar::Builder::new(Vec::new());
    let mut header = tar::Header::new_gnu();
    header.set_size(content.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, path, content).unwrap();
    let plain = tar.into_inner().unwrap();
    let mut packed = Vec::new();
    lzma_rs::xz_compress(&mut std::io::Cursor::new(plain), &mut packed).unwrap();
    packed
}

/// Every entry of the class directory gets a row: archives in any letter case and as
/// `.tar.xz`, a macOS Finder zip (with `__MACOSX/` beside the folder), a tarball two folders
/// deep; a `.rar` is a `bad-submission` that says why, and so is a submission without the
/// file its command runs, which says what it found instead.
#[test]
fn every_entry_of_the_class_directory_gets_a_row() {
    if !ready() {
        return;
    }
    let class = Class::new();
    let mut zip =
        zip::ZipWriter::new(fs::File::create(class.submissions().join("ann.ZIP")).unwrap());
    let options = zip::write::SimpleFileOptions::default();
    for (name, content) in [
        ("ann/main.py", plain_py()),
        ("ann/.DS_Store", b"\0\0\0\x01Bud1".to_vec()),
        ("__MACOSX/ann/._main.py", b"\0\x05\x16\x07".to_vec()),
    ] {
        zip.start_file(name, options).unwrap();
        zip.write_all(&content).unwrap();
    }
    zip.finish().unwrap();
    fs::write(
        class.submissions().join("bob.tar.xz"),
        tar_xz("hw3/bob/main.py", &plain_py()),
    )
    .unwrap();
    fs::write(class.submissions().join("cy.rar"), b"Rar!\x1a\x07\0").unwrap();
    class.directory(
        "dee",
        &[
            ("src/main.py", plain_py()),
            ("README.md", b"my work".to_vec()),
        ],
    );
    fs::write(class.submissions().join(".DS_Store"), b"").unwrap();
    fs::create_dir(class.submissions().join("__MACOSX")).unwrap();
    // A clone: its history (more files than a submission may have) beside hw3/main.py.
    let git = class
        .directory("eve", &[("hw3/main.py", plain_py())])
        .join(".git/objects");
    fs::create_dir_all(&git).unwrap();
    for index in 0..10_050 {
        fs::write(git.join(format!("{index:05}")), b"x").unwrap();
    }
    let out = class.out("report");
    grade(&class, &out, &["--generate", "2", "--timeout", "5"]);
    let book = gradebook(&out.join("gradebook.csv"));
    assert_eq!(
        book.keys().collect::<Vec<_>>(),
        ["ann", "bob", "cy.rar", "dee", "eve"],
        "{book:?}"
    );
    let eve = assert_gradescope(&out.join("submissions/eve/results.json"));
    assert!(
        eve["output"]
            .as_str()
            .unwrap()
            .contains(".git: version control history, left out"),
        "{eve}"
    );
    for name in ["ann", "bob", "eve"] {
        assert_eq!(book[name]["score"], "2", "{name}: {:?}", book[name]);
    }
    assert_eq!(book["cy.rar"]["failure_classes"], "bad-submission: 2");
    assert_eq!(book["dee"]["failure_classes"], "bad-submission: 2");
    let rar = assert_gradescope(&out.join("submissions/cy.rar/results.json"));
    assert!(
        rar["output"]
            .as_str()
            .unwrap()
            .contains("\"cy.rar\" is not a folder, .zip, .tar"),
        "{rar}"
    );
    assert_eq!(rar["score"], 0.0);
    let dee = assert_gradescope(&out.join("submissions/dee/results.json"));
    assert!(
        dee["output"]
            .as_str()
            .unwrap()
            .contains("there is no main.py in the submission (the command runs main.py); found: README.md, src/main.py"),
        "{dee}"
    );
}

/// The rules come from the cases (a folder named `simple`), never from the program's own
/// first line: a FULL-only program fails the SIMPLE cases, one run grades both kinds, and a
/// program whose lines end in `\r\n` fails as trailing whitespace, expected `SIMPLE` (or `FULL`).
#[test]
fn the_cases_say_the_rules_and_the_program_is_told_them() {
    if !ready() {
        return;
    }
    let class = Class::new();
    class.directory("plain", &[("main.py", plain_py())]);
    class.directory(
        "full-only",
        &[(
            "main.py",
            plain_with(
                "simple = \"--simple\" in args or args[-2:] == [\"--rules\", \"simple\"]",
                "simple = False",
            ),
        )],
    );
    class.directory(
        "crlf",
        &[
            (
                "main.py",
                b"import sys, runpy\nsys.stdout.reconfigure(newline='\\r\\n')\n\
              runpy.run_path(__file__.rsplit('/', 1)[0] + '/plain.py', run_name='__main__')\n"
                    .to_vec(),
            ),
            ("plain.py", plain_py()),
        ],
    );
    let cases = class.dir.path().join("cases");
    for (rules, folder) in [("full", "cases/full"), ("simple", "cases/Simple/standard")] {
        let output = othello()
            .args([
                "gen", "--count", "3", "--rules", rules, "--seed", "5", "--out",
            ])
            .arg(class.dir.path().join(folder))
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", text(&output));
    }
    let out = class.out("report");
    grade(
        &class,
        &out,
        &["--cases", cases.to_str().unwrap(), "--timeout", "5"],
    );
    let book = gradebook(&out.join("gradebook.csv"));
    assert_eq!(book["plain"]["score"], "6", "{:?}", book["plain"]);
    assert_eq!(book["full-only"]["score"], "3", "{:?}", book["full-only"]);
    assert_eq!(book["full-only"]["failure_classes"], "wrong-rules-line: 3");
    let results = assert_gradescope(&out.join("submissions/full-only/results.json"));
    for test in results["tests"].as_array().unwrap() {
        let simple = test["name"].as_str().unwrap().starts_with("Simple/");
        assert_eq!(
            test["status"],
            if simple { "failed" } else { "passed" },
            "{test}"
        );
    }
    assert_eq!(book["crlf"]["failure_classes"], "trailing-whitespace: 6");
    let crlf = first_failure(&out, "crlf");
    assert!(
        crlf.contains("expected: \"SIMPLE\"") && crlf.contains("actual:   \"SIMPLE\\r\""),
        "{crlf}"
    );
}

/// `--generate` makes cases whose input ends mid-game and cases with a broken header: a
/// program that always exits 0 fails them (exit-status bugs no longer score full marks),
/// and a correct one passes them all.
#[test]
fn generated_cases_test_the_exit_statuses() {
    if !ready() {
        return;
    }
    let class = Class::new();
    class.directory("plain", &[("main.py", plain_py())]);
    class.directory("always-0", &[("main.py", plain_py_exiting_0())]);
    // The right output, then a status of its own choosing: a wrong exit status (with its
    // partial credit), not a crash.
    class.directory(
        "exits-4",
        &[(
            "main.py",
            plain_with("            return\n", "            sys.exit(4)\n"),
        )],
    );
    let points = class.dir.path().join("points.toml");
    fs::write(&points, "[partial]\nwrong-exit-status = 0.25\n").unwrap();
    let out = class.out("report");
    let points = points.to_str().unwrap();
    grade(
        &class,
        &out,
        &["--generate", "18", "--timeout", "5", "--points", points],
    );
    let book = gradebook(&out.join("gradebook.csv"));
    assert_eq!(book["plain"]["score"], "18", "{:?}", book["plain"]);
    let results = assert_gradescope(&out.join("submissions/always-0/results.json"));
    let failed: BTreeSet<String> = results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|test| test["status"] == "failed")
        .map(|test| test["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        failed,
        [
            "0008-truncated.in",
            "0009-bad-header.in",
            "0017-truncated.in",
            "0018-bad-header.in"
        ]
        .map(str::to_owned)
        .into()
    );
    assert_eq!(book["always-0"]["failure_classes"], "wrong-exit-status: 4");
    assert_eq!(book["always-0"]["score"], "15", "14 passed, 4 at a quarter");
    let exits_4 = &book["exits-4"];
    assert!(
        exits_4["failure_classes"].starts_with("wrong-exit-status: "),
        "{exits_4:?}"
    );
    let failed: f64 = exits_4["failed"].parse().unwrap();
    let score: f64 = exits_4["score"].parse().unwrap();
    assert_eq!(score, 18.0 - failed * 0.75, "{exits_4:?}");
}

/// plain.py with every exit status turned into 0.
fn plain_py_exiting_0() -> Vec<u8> {
    let plain = String::from_utf8(plain_py()).unwrap();
    plain
        .replace("sys.exit(2)", "sys.exit(0)")
        .replace("sys.exit(3)", "sys.exit(0)")
        .into_bytes()
}

/// A case that runs past its budget is a timeout that says so; a submission whose cases
/// have used up its budget gets the rest as timeouts without running them; the reports say
/// the limits; a program merely slow (computing, or sleeping) is a timeout, not a missing
/// flush, while one that holds its output back still is.
#[test]
fn time_budgets_hold_and_slow_is_not_missing_flush() {
    if !ready() {
        return;
    }
    let class = Class::new();
    // 0.4 s a move: each wait is well within --timeout, the whole case is not.
    let slow_moves = b"import builtins, runpy, time\nreal = builtins.input\n\
        def slow(*args):\n    line = real(*args)\n    if len(line.split()) == 2:\n        time.sleep(0.4)\n    return line\n\
        builtins.input = slow\nrunpy.run_path(__file__.rsplit('/', 1)[0] + '/plain.py', run_name='__main__')\n";
    class.directory(
        "slow-moves",
        &[("main.py", slow_moves.to_vec()), ("plain.py", plain_py())],
    );
    class.directory("hangs", &[("main.py", hostile("sleep_forever.py", &[]))]);
    // Busy for 3 s before its first answer, once.
    let busy = b"import builtins, runpy, time\nreal = builtins.input\nslow = [True]\n\
        def busy(*args):\n    line = real(*args)\n    if slow[0] and len(line.split()) == 2:\n        slow[0] = False\n        end = time.time() + 3\n        while time.time() < end:\n            pass\n    return line\n\
        builtins.input = busy\nrunpy.run_path(__file__.rsplit('/', 1)[0] + '/plain.py', run_name='__main__')\n";
    class.directory(
        "busy",
        &[("main.py", busy.to_vec()), ("plain.py", plain_py())],
    );
    // Asleep for 2.5 s before its first answer.
    let asleep = String::from_utf8(busy.to_vec()).unwrap().replace(
        "end = time.time() + 3\n        while time.time() < end:\n            pass",
        "time.sleep(2.5)",
    );
    class.directory(
        "asleep",
        &[("main.py", asleep.into_bytes()), ("plain.py", plain_py())],
    );
    class.with_bug("buffer");
    let out = class.out("report");
    grade(
        &class,
        &out,
        &[
            "--generate",
            "4",
            "--timeout",
            "1.5",
            "--case-timeout",
            "2",
            "--submission-timeout",
            "6",
            "--jobs",
            "1",
        ],
    );
    let slow = first_failure(&out, "slow-moves");
    assert!(
        slow.starts_with("Failed: timeout")
            && slow.contains("took longer than its time budget of 2.0 s"),
        "{slow}"
    );
    let hangs = assert_gradescope(&out.join("submissions/hangs/results.json"));
    let outputs: Vec<&str> = hangs["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|test| test["output"].as_str().unwrap())
        .collect();
    assert!(
        outputs.iter().all(|o| o.starts_with("Failed: timeout")),
        "{outputs:?}"
    );
    assert!(
        outputs
            .last()
            .unwrap()
            .contains("not run: the submission's cases had used up its time budget of 6 s"),
        "{outputs:?}"
    );
    let summary = hangs["output"].as_str().unwrap();
    assert!(
        summary
            .contains("Time limits: 1.5 s for each wait for output, 2 s for a case, 6 s for all"),
        "{summary}"
    );
    for name in ["busy", "asleep"] {
        let failure = first_failure(&out, name);
        assert!(
            failure.starts_with("Failed: timeout") && failure.contains("too slow"),
            "{name}: {failure}"
        );
    }
    let book = gradebook(&out.join("gradebook.csv"));
    assert!(
        book["bug-buffer"]["failure_classes"].starts_with("missing-flush"),
        "{book:?}"
    );
}

/// Names and output from a submission are shown, never run or obeyed: a name that is a
/// spreadsheet formula is neutralised in the gradebook, one with a newline links to its own
/// page, NUL and ESC from stderr are escaped in JSON and HTML; the HTML shows the difference
/// before the (folded) transcript, a slow start's note, and a segmentation fault by name.
#[test]
fn hostile_names_and_output_are_shown_safely() {
    if !ready() {
        return;
    }
    let class = Class::new();
    class.directory("=1+2;@SUM(A1)", &[("main.py", plain_py())]);
    class.directory("two\nlines", &[("main.py", plain_py())]);
    class.directory(
        "noisy",
        &[(
            "main.py",
            b"import sys\nsys.stderr.write('NUL\\0 ESC\\x1b[2J\\x1b[31m red\\n')\nsys.exit(1)\n"
                .to_vec(),
        )],
    );
    class.directory(
        "segfault",
        &[(
            "main.py",
            b"import os, signal\nprint('FULL', flush=True)\nos.kill(os.getpid(), signal.SIGSEGV)\n"
                .to_vec(),
        )],
    );
    class.with_bug("slow-start");
    class.with_bug("prompt");
    let out = class.out("report");
    grade(&class, &out, &["--generate", "2", "--timeout", "5"]);
    let csv = String::from_utf8(read(&out.join("gradebook.csv"))).unwrap();
    assert!(csv.contains("\n'=1+2;@SUM(A1),"), "{csv}");
    let book = gradebook(&out.join("gradebook.csv"));
    assert_eq!(book["'=1+2;@SUM(A1)"]["score"], "2");
    // The page of the name with a newline is where its link leads.
    let index = String::from_utf8(read(&out.join("index.html"))).unwrap();
    assert!(
        index.contains("href=\"submissions/two%0Alines/report.html\""),
        "{index}"
    );
    assert!(out.join("submissions/two\nlines/report.html").exists());
    // NUL and ESC reach no report raw.
    let json_text = String::from_utf8(read(&out.join("submissions/noisy/results.json"))).unwrap();
    assert!(
        !json_text.contains("\\u0000") && !json_text.contains("\\u001b"),
        "{json_text}"
    );
    assert!(
        json_text.contains("NUL\\\\u{0} ESC\\\\u{1b}[2J"),
        "{json_text}"
    );
    let page = String::from_utf8(read(&out.join("submissions/noisy/report.html"))).unwrap();
    assert!(
        !page.contains('\0') && !page.contains('\x1b'),
        "raw control characters"
    );
    // The difference first, the transcript folded after it.
    let prompt = String::from_utf8(read(&out.join("submissions/bug-prompt/report.html"))).unwrap();
    let diff = prompt.find("class=\"diff\"").unwrap();
    let details = prompt.find("<details>").unwrap();
    assert!(diff < details, "the difference comes first");
    let slow =
        String::from_utf8(read(&out.join("submissions/bug-slow-start/report.html"))).unwrap();
    assert!(
        slow.contains("slow start: the rules line came after"),
        "the note is shown"
    );
    let segfault = first_failure(&out, "segfault");
    assert!(
        segfault.contains("killed by SIGSEGV, a segmentation fault"),
        "{segfault}"
    );
}

/// With a class list every student has a row (a missing submission scores 0 and is listed),
/// a submission of nobody on it is said so, and canvas.csv and moodle.csv are what those
/// systems import: Canvas's columns and Points Possible row, Moodle's identifier columns.
#[test]
fn a_class_list_gives_every_student_a_row_and_lms_gradebooks() {
    if !ready() {
        return;
    }
    let class = Class::new();
    // "Cy" as well as "cy": the list names "cy", so "Cy" is nobody's, and still a row.
    for name in ["ann", "cy", "Cy", "zed"] {
        class.directory(name, &[("main.py", plain_py())]);
    }
    let roster = class.dir.path().join("roster.csv");
    fs::write(
        &roster,
        "Name,ID,Email,Submission,Section\n\
         Ann Lee,1001,ann@u.edu,ann,A\n\
         Bob Gone,1002,bob@u.edu,bob,A\n\
         \"=HYPERLINK(\"\"x\"\")\",1003,c@u.edu,cy,B\n",
    )
    .unwrap();
    let out = class.out("report");
    let output = grade(
        &class,
        &out,
        &[
            "--generate",
            "2",
            "--timeout",
            "5",
            "--roster",
            roster.to_str().unwrap(),
            "--assignment",
            "HW3",
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("Missing (on the class list, nothing graded, 0 points): Bob Gone (1002)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Graded but not on the class list: Cy, zed"),
        "{stdout}"
    );
    let mut reader = csv::Reader::from_path(out.join("gradebook.csv")).unwrap();
    let rows: Vec<Vec<String>> = reader
        .records()
        .map(|record| record.unwrap().iter().map(str::to_owned).collect())
        .collect();
    let summary: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|row| (row[3].as_str(), row[4].as_str(), row[7].as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            ("ann", "graded", "2"),
            ("bob", "missing", "0"),
            ("cy", "graded", "2"),
            ("Cy", "not on the class list", "2"),
            ("zed", "not on the class list", "2"),
        ]
    );
    assert_eq!(rows[2][1], "'=HYPERLINK(\"x\")");
    let canvas = String::from_utf8(read(&out.join("canvas.csv"))).unwrap();
    assert_eq!(
        canvas,
        "Student,ID,SIS User ID,SIS Login ID,Section,HW3\n\
         Points Possible,,,,,2\n\
         Ann Lee,,1001,ann@u.edu,A,2\n\
         Bob Gone,,1002,bob@u.edu,A,0\n\
         \"'=HYPERLINK(\"\"x\"\")\",,1003,c@u.edu,B,2\n"
    );
    let moodle = String::from_utf8(read(&out.join("moodle.csv"))).unwrap();
    assert!(
        moodle.starts_with("ID number,Email address,Full name,Grade\n1001,ann@u.edu,Ann Lee,2\n"),
        "{moodle}"
    );
    let index = String::from_utf8(read(&out.join("index.html"))).unwrap();
    assert!(
        index.contains("missing: nothing handed in") && index.contains("not on the class list")
    );
}

/// `--only NAME` grades that submission again from nothing and leaves every other
/// submission's journal and reports as they were; it refuses a run that is not finished.
#[test]
fn one_student_is_regraded_alone() {
    if !ready() {
        return;
    }
    let class = Class::new();
    class.directory("ann", &[("main.py", plain_py())]);
    class.directory("bob", &[("main.py", plain_py())]);
    let out = class.out("report");
    let args = ["--generate", "3", "--timeout", "5"];
    grade(&class, &out, &args);
    let bob_journal = read(&out.join(".grade/bob.jsonl"));
    let bob_report = read(&out.join("submissions/bob/results.json"));
    let ann_before = read(&out.join(".grade/ann.jsonl"));
    // Ann fixes her program; a plain rerun would notice, --only regrades her now.
    class.directory(
        "ann",
        &[(
            "main.py",
            plain_with("print(\"VALID\")", "print(\"VALID \")"),
        )],
    );
    grade(&class, &out, &[&args[..], &["--only", "ann"]].concat());
    assert_eq!(read(&out.join(".grade/bob.jsonl")), bob_journal);
    assert_eq!(read(&out.join("submissions/bob/results.json")), bob_report);
    assert_ne!(read(&out.join(".grade/ann.jsonl")), ann_before);
    let book = gradebook(&out.join("gradebook.csv"));
    assert!(
        book["ann"]["failure_classes"].starts_with("trailing-whitespace"),
        "{book:?}"
    );
    assert_eq!(book["bob"]["score"], "3");
    // An unknown name, and a run whose others are not all graded, are refused.
    let unknown = othello()
        .arg("grade")
        .arg(class.submissions())
        .args(args)
        .args(["--only", "cy", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        text(&unknown).contains("--only \"cy\": no such submission"),
        "{}",
        text(&unknown)
    );
    let fresh = othello()
        .arg("grade")
        .arg(class.submissions())
        .args(args)
        .args(["--only", "ann", "--out"])
        .arg(class.out("fresh"))
        .output()
        .unwrap();
    assert_eq!(fresh.status.code(), Some(1));
    assert!(
        text(&fresh).contains("\"bob\" is not fully graded"),
        "{}",
        text(&fresh)
    );
}

/// The similarity report on a test class: copies with every name changed, or with the
/// functions in another order, are flagged; independent solutions of the same task are not
/// listed; code given as the starter counts for nothing; each pair's page shows the shared
/// passages side by side.
#[test]
fn copies_are_flagged_and_independent_work_is_not() {
    if !ready() {
        return;
    }
    let class = Class::new();
    let plain = String::from_utf8(plain_py()).unwrap();
    let mut renamed = plain.clone();
    for (from, to) in [
        ("board", "grid"),
        ("flips", "captured"),
        ("turned", "taken"),
        ("rows", "height"),
        ("cols", "width"),
        ("has_move", "can_play"),
        ("show", "display"),
        ("black", "dark"),
        ("white", "light"),
    ] {
        renamed = renamed.replace(from, to);
    }
    // The functions in reverse order (main() called last, as before).
    let (head, body) = plain.split_at(plain.find("\ndef ").unwrap() + 1);
    let body = body.trim_end().strip_suffix("main()").unwrap();
    let mut functions: Vec<&str> = body.split("\ndef ").collect();
    functions.reverse();
    let reordered = format!(
        "{head}{}\n\n\nmain()\n",
        functions
            .iter()
            .map(|f| format!("def {}", f.trim_start_matches("def ")))
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    class.directory("original", &[("main.py", plain.clone().into_bytes())]);
    class.directory("renamed", &[("main.py", renamed.into_bytes())]);
    class.directory("reordered", &[("main.py", reordered.into_bytes())]);
    class.directory(
        "student",
        &[("main.py", read(&fixture("students/student.py")))],
    );
    for name in ["oop", "functional", "procedural"] {
        let source = read(&fixture(&format!("students/independent/{name}.py")));
        class.directory(name, &[("main.py", source)]);
    }
    // A copy padded with a comment of 600 KB, and one that hides its code in a .txt file
    // (found by nobody: the report says that file was not compared).
    let padded = format!("{plain}\n# {}\n", "x".repeat(600 << 10));
    class.directory("padded", &[("main.py", padded.into_bytes())]);
    let exec = b"exec(open(__file__.rsplit('/', 1)[0] + '/solution.txt').read())\n";
    class.directory(
        "hidden",
        &[
            ("main.py", exec.to_vec()),
            ("solution.txt", plain.clone().into_bytes()),
        ],
    );
    let out = class.out("report");
    grade(&class, &out, &["--generate", "1", "--timeout", "5"]);
    let book = gradebook(&out.join("gradebook.csv"));
    for (name, row) in &book {
        assert_eq!(row["score"], "1", "{name} is correct: {row:?}");
    }
    let pairs = |out: &Path| -> Vec<(String, String, bool)> {
        let mut reader = csv::Reader::from_path(out.join("similarity.csv")).unwrap();
        reader
            .records()
            .map(|record| {
                let record = record.unwrap();
                (
                    record[0].to_owned(),
                    record[1].to_owned(),
                    &record[5] == "true",
                )
            })
            .collect()
    };
    let mut found: Vec<(String, String, bool)> = pairs(&out)
        .into_iter()
        .map(|(a, b, flagged)| (a.clone().min(b.clone()), a.max(b), flagged))
        .collect();
    found.sort();
    let expected: Vec<(String, String, bool)> = [
        ("original", "padded"),
        ("original", "renamed"),
        ("original", "reordered"),
        ("padded", "renamed"),
        ("padded", "reordered"),
        ("renamed", "reordered"),
    ]
    .map(|(a, b)| (a.to_owned(), b.to_owned(), true))
    .to_vec();
    assert_eq!(found, expected);
    let pair_page = assert_self_contained(&out.join("similarity/pair-0001.html"));
    assert!(
        pair_page.contains("class=\"side\"") && pair_page.contains("def "),
        "passages shown"
    );
    let index = assert_self_contained(&out.join("index.html"));
    assert!(
        index.contains("href=\"similarity.html\"") && index.contains("6 flagged"),
        "{index}"
    );
    assert!(index.contains("1 group of identical programs"), "{index}");
    let report = assert_self_contained(&out.join("similarity.html"));
    let identical =
        "Identical programs (names and layout aside), 3 submissions: original, padded, renamed";
    assert!(report.contains(identical), "{report}");
    assert!(
        report.contains("solution.txt: not source code the report reads"),
        "{report}"
    );
    // Run again without the report: none is left to be taken for this run's.
    grade(
        &class,
        &out,
        &["--generate", "1", "--timeout", "5", "--no-similarity"],
    );
    assert!(!out.join("similarity.html").exists() && !out.join("similarity").exists());
    // The same code handed out as the starter: nothing of it counts.
    let starter = class.dir.path().join("starter.py");
    fs::write(&starter, &plain).unwrap();
    let again = class.out("with-starter");
    grade(
        &class,
        &again,
        &[
            "--generate",
            "1",
            "--timeout",
            "5",
            "--starter",
            starter.to_str().unwrap(),
        ],
    );
    assert_eq!(pairs(&again), Vec::new());
    // A starter that gives nothing (a FIFO, a folder without code) is refused, not left
    // out silently with everything it should have taken out of the report (red team of
    // issue 44).
    let fifo = class.dir.path().join("starter.fifo");
    let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a plain system call with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let empty = class.dir.path().join("empty-starter");
    fs::create_dir(&empty).unwrap();
    for (starter, says) in [
        (&fifo, "not a regular file or a folder"),
        (&empty, "no source code the report reads"),
    ] {
        let output = Command::new(othello_path())
            .arg("grade")
            .arg(class.submissions())
            .args(["--generate", "1", "--starter"])
            .arg(starter)
            .arg("--out")
            .arg(class.out("refused"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains(&format!("--starter {}: {says}", starter.display())),
            "{stderr}"
        );
    }
}

/// A second run into a report directory in use is refused; the scratch space a killed run
/// left is removed by the next run; `--allow-read` below `/tmp` shows inside the box, and
/// one the box's user cannot read is named as such, not blamed on bubblewrap.
#[test]
fn runs_keep_house_and_say_what_is_wrong() {
    if !ready() {
        return;
    }
    let class = open_class();
    let temp = class.dir.path().join("temp");
    fs::create_dir(&temp).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&temp, fs::Permissions::from_mode(0o1777)).unwrap();
    // What a run killed with SIGKILL left: named with a process id nobody has.
    let stale = temp.join("othello-grade-999999999-abc");
    fs::create_dir_all(stale.join("submission-0")).unwrap();
    class.directory("slow", &[("main.py", hostile("sleep_forever.py", &[]))]);
    let out = class.out("report");
    let mut first = Command::new(othello_path())
        .env("TMPDIR", &temp)
        .arg("grade")
        .arg(class.submissions())
        .args(["--generate", "4", "--timeout", "1", "--jobs", "1", "--out"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while journal_lines(&out, "slow").is_empty() {
        assert!(Instant::now() < deadline, "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!stale.exists(), "the dead run's scratch space was removed");
    let second = othello()
        .env("TMPDIR", &temp)
        .arg("grade")
        .arg(class.submissions())
        .args(["--generate", "4", "--timeout", "1", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(1));
    assert!(
        text(&second).contains("is being graded into by process"),
        "{}",
        text(&second)
    );
    first.kill().unwrap();
    first.wait().unwrap();

    // --allow-read below /tmp.
    let shared = class.dir.path().join("shared");
    fs::create_dir(&shared).unwrap();
    fs::write(shared.join("data.txt"), "SHARED-DATA-42").unwrap();
    let reader = format!(
        "import sys\nsys.stderr.write(open('{}').read())\nsys.exit(1)\n",
        shared.join("data.txt").display()
    );
    let view = open_class();
    view.directory("reader", &[("main.py", reader.into_bytes())]);
    let out = view.out("report");
    grade(
        &view,
        &out,
        &[
            "--generate",
            "1",
            "--sandbox",
            "bubblewrap",
            "--allow-read",
            shared.to_str().unwrap(),
        ],
    );
    assert!(first_failure(&out, "reader").contains("SHARED-DATA-42"));
    // Showing the whole file system would cover what the box needs: refused, named.
    let everything = othello()
        .arg("grade")
        .arg(view.submissions())
        .args(["--generate", "1", "--allow-read", "/", "--out"])
        .arg(view.out("everything"))
        .output()
        .unwrap();
    assert_eq!(everything.status.code(), Some(1));
    assert!(
        text(&everything).contains("--allow-read /: it would cover /tmp"),
        "{}",
        text(&everything)
    );
    // SAFETY: a plain system call.
    if unsafe { libc::geteuid() } == 0 {
        // Without bubblewrap, a program that writes into the system's shared folders
        // leaves nothing there: /var/tmp and /dev/shm are its own, /tmp is swept.
        let marker = format!("fill-{}", std::process::id());
        let fill = format!(
            "import os\nfor folder in ['/tmp', '/var/tmp', '/dev/shm']:\n    \
             open(os.path.join(folder, '{marker}'), 'wb').write(b'x' * 4096)\n\
             print('FULL', flush=True)\n"
        );
        let limits = open_class();
        limits.directory("fill", &[("main.py", fill.into_bytes())]);
        let out = limits.out("report");
        grade(&limits, &out, &["--generate", "2", "--sandbox", "limits"]);
        for folder in ["/tmp", "/var/tmp", "/dev/shm"] {
            assert!(
                !Path::new(folder).join(&marker).exists(),
                "left in {folder}"
            );
        }
        let summary = assert_gradescope(&out.join("submissions/fill/results.json"));
        assert!(
            summary["output"]
                .as_str()
                .unwrap()
                .contains("private /var/tmp and /dev/shm"),
            "{summary}"
        );
        let closed = class.dir.path().join("closed");
        fs::create_dir_all(closed.join("jdk")).unwrap();
        fs::set_permissions(&closed, fs::Permissions::from_mode(0o700)).unwrap();
        let refused = othello()
            .arg("grade")
            .arg(view.submissions())
            .args(["--generate", "1", "--allow-read"])
            .arg(closed.join("jdk"))
            .arg("--out")
            .arg(view.out("closed"))
            .output()
            .unwrap();
        assert_eq!(refused.status.code(), Some(1));
        let message = text(&refused);
        assert!(
            message.contains(&format!("--allow-read {}", closed.join("jdk").display()))
                && message.contains("is not open to others")
                && !message.contains("install"),
            "{message}"
        );
    }
}

/// A wait shorter than a program needs to start is refused, not used to blame a correct
/// program.
#[test]
fn a_timeout_too_short_to_start_a_program_is_refused() {
    for command in [
        &["check", "--program", "true", "--generate", "1"][..],
        &["grade", ".", "--generate", "1", "--out", "x"][..],
    ] {
        let output = othello()
            .args(command)
            .args(["--timeout", "0.0001"])
            .output()
            .unwrap();
        assert!(!output.status.success(), "{}", text(&output));
        assert!(text(&output).contains("too short"), "{}", text(&output));
    }
}
