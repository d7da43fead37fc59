//! `othello grade`: a class of submissions (directories and archives; correct ones in
//! Python and C, one per failure class, hostile ones) graded in the sandbox, with every
//! report checked: Gradescope's results.json against its schema, JUnit XML against an XSD
//! (xmllint) and parsed, the gradebook CSV parsed, the HTML self-contained; a run killed
//! with SIGKILL resumes without grading anything twice.

mod common;
#[path = "grade/trust.rs"]
mod trust;

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    io::Write,
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    time::{Duration, Instant},
};

use common::{fixture, othello, othello_path};
use serde_json::Value;
use tempfile::TempDir;

/// Whether what these tests need is here: bubblewrap working, Debian's python3 (the only
/// one in view inside the box) and cc. Under `CI=true` it must be; elsewhere a test
/// without it says so and passes (`bash .ci/run` installs them).
fn ready() -> bool {
    let bubblewrap = Command::new("bwrap")
        .args(["--ro-bind", "/", "/", "--unshare-all", "true"])
        .output()
        .is_ok_and(|output| output.status.success());
    let python = Path::new("/usr/bin/python3").exists();
    let cc = Command::new("cc").arg("--version").output().is_ok();
    if bubblewrap && python && cc {
        return true;
    }
    let missing = format!("bubblewrap working: {bubblewrap}, /usr/bin/python3: {python}, cc: {cc}");
    assert!(
        std::env::var_os("CI").is_none(),
        "the grade tests need them under CI ({missing})"
    );
    eprintln!("skipped: {missing} (bash .ci/run installs them)");
    false
}

/// A class being put together in a temporary directory.
struct Class {
    dir: TempDir,
}

impl Class {
    fn new() -> Class {
        let class = Class {
            dir: tempfile::tempdir().unwrap(),
        };
        fs::create_dir(class.submissions()).unwrap();
        class
    }

    fn submissions(&self) -> PathBuf {
        self.dir.path().join("submissions")
    }

    fn out(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A submission directory `name` holding `files`.
    fn directory(&self, name: &str, files: &[(&str, Vec<u8>)]) -> PathBuf {
        let dir = self.submissions().join(name);
        for (file, content) in files {
            let path = dir.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, content).unwrap();
        }
        dir
    }

    /// A submission whose main.py runs fixtures/students/student.py with `--bug bug`.
    fn with_bug(&self, bug: &str) {
        let main = format!(
            "import runpy, sys\nsys.argv = ['student.py', '--bug', '{bug}']\n\
             runpy.run_path(__file__.rsplit('/', 1)[0] + '/student.py', run_name='__main__')\n"
        );
        self.directory(
            &format!("bug-{bug}"),
            &[
                ("main.py", main.into_bytes()),
                ("student.py", read(&fixture("students/student.py"))),
            ],
        );
    }
}

fn read(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn plain_py() -> Vec<u8> {
    read(&fixture("students/plain.py"))
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&read(path)).unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The gradebook, by submission.
fn gradebook(path: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    let expected = [
        "submission",
        "passed",
        "failed",
        "score",
        "max_score",
        "failure_classes",
    ];
    assert_eq!(headers.iter().collect::<Vec<_>>(), expected);
    reader
        .records()
        .map(|record| {
            let record = record.unwrap();
            let row: BTreeMap<String, String> = headers
                .iter()
                .zip(record.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect();
            (row["submission"].clone(), row)
        })
        .collect()
}

/// Checks `results.json` against Gradescope's schema.
fn assert_gradescope(path: &Path) -> Value {
    let schema = json(&fixture("class/schemas/gradescope-results.schema.json"));
    let validator = jsonschema::validator_for(&schema).unwrap();
    let results = json(path);
    let errors: Vec<String> = validator
        .iter_errors(&results)
        .map(|error| error.to_string())
        .collect();
    assert!(errors.is_empty(), "{}: {errors:?}", path.display());
    results
}

/// Checks a JUnit file against the XSD (with xmllint, where installed) and returns its
/// test cases: (suite, case, failure type).
fn junit_cases(path: &Path) -> Vec<(String, String, Option<String>)> {
    if Command::new("xmllint").arg("--version").output().is_ok() {
        let output = Command::new("xmllint")
            .args(["--noout", "--schema"])
            .arg(fixture("class/schemas/junit.xsd"))
            .arg(path)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", text(&output));
    } else {
        eprintln!("xmllint is not installed: {} only parsed", path.display());
    }
    use quick_xml::events::Event;
    let xml = String::from_utf8(read(path)).unwrap();
    let mut reader = quick_xml::Reader::from_str(&xml);
    let (mut suite, mut cases) = (String::new(), Vec::new());
    let attribute = |element: &quick_xml::events::BytesStart<'_>, name: &str| {
        element
            .attributes()
            .map(Result::unwrap)
            .find(|a| a.key.as_ref() == name)
            .map(|a| {
                a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .unwrap()
                    .into_owned()
            })
    };
    loop {
        match reader.read_event().unwrap() {
            Event::Eof => break,
            Event::Start(element) | Event::Empty(element) => match element.name().as_ref() {
                "testsuite" => suite = attribute(&element, "name").unwrap(),
                "testcase" => {
                    cases.push((suite.clone(), attribute(&element, "name").unwrap(), None));
                }
                "failure" => cases.last_mut().unwrap().2 = attribute(&element, "type"),
                _ => {}
            },
            _ => {}
        }
    }
    cases
}

/// Runs `othello grade` on the class with `args`; its output, asserted successful.
fn grade(class: &Class, out: &Path, args: &[&str]) -> Output {
    let output = othello()
        .arg("grade")
        .arg(class.submissions())
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    output
}

/// Checks that an HTML page loads nothing from elsewhere.
fn assert_self_contained(path: &Path) -> String {
    let html = String::from_utf8(read(path)).unwrap();
    for outside in ["<script", "<link", "src=", "@import", "url("] {
        assert!(!html.contains(outside), "{} has {outside}", path.display());
    }
    html
}

#[test]
fn a_class_is_graded_with_every_report() {
    if !ready() {
        return;
    }
    let class = Class::new();
    class.directory("alice", &[("main.py", plain_py())]);
    // bob hands in a zip of a folder, carol a .tar.gz.
    let zip_path = class.submissions().join("bob.zip");
    let mut zip = zip::ZipWriter::new(fs::File::create(&zip_path).unwrap());
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("bob/main.py", options).unwrap();
    zip.write_all(&plain_py()).unwrap();
    zip.finish().unwrap();
    let tar_path = class.submissions().join("carol.tar.gz");
    let encoder = flate2::write::GzEncoder::new(
        fs::File::create(&tar_path).unwrap(),
        flate2::Compression::default(),
    );
    let mut tar = tar::Builder::new(encoder);
    let mut header = tar::Header::new_gnu();
    header.set_size(plain_py().len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, "main.py", plain_py().as_slice())
        .unwrap();
    tar.into_inner().unwrap().finish().unwrap();
    let bugs = [
        ("buffer", "missing-flush"),
        ("trailing-space", "trailing-whitespace"),
        ("prompt", "extra-output"),
        ("no-pass-back", "wrong-pass"),
        ("ignore-fewest", "wrong-winner"),
        ("crash-full-board", "crash"),
        ("no-exit", "no-exit"),
        ("wrong-rules-line", "wrong-rules-line"),
    ];
    for (bug, _) in bugs {
        class.with_bug(bug);
    }
    // The classes student.py has no bug for: plain.py changed in one place each.
    let plain = String::from_utf8(plain_py()).unwrap();
    let variants = [
        (
            "counts-swapped",
            r#"print(f"B: {black}  W: {white}")"#,
            r#"print(f"B: {white}  W: {black}")"#,
            "wrong-output",
        ),
        (
            "stops-after-a-move",
            r#"print("VALID")"#,
            r#"print("VALID"); sys.exit(0)"#,
            "early-exit",
        ),
        (
            "exits-with-1",
            "            return\n",
            "            sys.exit(1)\n",
            "wrong-exit-status",
        ),
    ];
    for (name, from, to, _) in variants {
        assert!(plain.contains(from), "{from}");
        class.directory(name, &[("main.py", plain.replace(from, to).into_bytes())]);
    }
    // An archive that is not one, a program that does not compile, one that hangs.
    fs::write(
        class.submissions().join("damaged.zip"),
        b"PK\x03\x04 not really",
    )
    .unwrap();
    class.directory("syntax-error", &[("main.py", b"print('FULL'\n".to_vec())]);
    class.directory("hangs", &[("main.py", hostile("sleep_forever.py", &[]))]);
    let points = class.dir.path().join("points.toml");
    fs::write(
        &points,
        "points = 1\n[partial]\ntrailing-whitespace = 0.5\nbuild-failed = 0.25\n\
         [kinds.passes]\npoints = 2\nvisibility = \"hidden\"\n",
    )
    .unwrap();
    let grade = |submissions: &Path, out: &Path, jobs: &str| {
        othello()
            .arg("grade")
            .arg(submissions)
            .args(["--generate", "7", "--timeout", "2", "--jobs", jobs])
            .args(["--build", "python3 -m py_compile {dir}/main.py"])
            .arg("--points")
            .arg(&points)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap()
    };
    let out = class.out("report");
    let output = grade(&class.submissions(), &out, "2");
    assert!(output.status.success(), "{}", text(&output));
    let stdout = String::from_utf8(output.stdout.clone()).unwrap();
    let names: Vec<&str> = stdout
        .lines()
        .skip(1)
        .take_while(|line| !line.starts_with("Sandbox: "))
        .map(|line| line.split_whitespace().next().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "in name order:\n{stdout}");
    assert_eq!(names.len(), 17, "{stdout}");
    assert!(stdout.contains("Sandbox: "), "{stdout}");

    // The gradebook: correct ones full marks (a case of each kind, passes at 2 points), each bug
    // caught with its class.
    let book = gradebook(&out.join("gradebook.csv"));
    for name in ["alice", "bob", "carol"] {
        let row = &book[name];
        assert_eq!(
            (
                row["passed"].as_str(),
                row["score"].as_str(),
                row["max_score"].as_str()
            ),
            ("7", "8", "8"),
            "{name}: {row:?}"
        );
    }
    for (bug, class_name) in bugs {
        let row = &book[&format!("bug-{bug}")];
        assert!(
            row["failure_classes"].contains(class_name),
            "bug {bug}: {row:?}"
        );
        assert_ne!(row["failed"], "0");
    }
    for (name, _, _, class_name) in variants {
        assert!(
            book[name]["failure_classes"].contains(class_name),
            "{name}: {:?}",
            book[name]
        );
    }
    assert_eq!(book["damaged"]["failure_classes"], "bad-submission: 7");
    assert_eq!(book["syntax-error"]["failure_classes"], "build-failed: 7");
    assert_eq!(book["hangs"]["failure_classes"], "timeout: 7");
    // What each failure earns: nothing, or exactly the share its class keeps. A build
    // that failed keeps a quarter (the points file says so), a damaged archive nothing.
    assert_eq!(book["damaged"]["score"], "0");
    assert_eq!(book["hangs"]["score"], "0");
    assert_eq!(book["syntax-error"]["score"], "2", "a quarter of 8");
    let partial = |class: &str| match class {
        "trailing-whitespace" => 0.5,
        "build-failed" => 0.25,
        _ => 0.0,
    };
    let mut classes_seen = BTreeSet::new();
    for name in book.keys() {
        let results = json(&out.join("submissions").join(name).join("results.json"));
        for test in results["tests"].as_array().unwrap() {
            let max = test["max_score"].as_f64().unwrap();
            let expected = match test["status"].as_str().unwrap() {
                "passed" => max,
                _ => {
                    let class = test["tags"][1].as_str().unwrap().to_owned();
                    let share = partial(&class);
                    classes_seen.insert(class);
                    max * share
                }
            };
            assert_eq!(test["score"].as_f64().unwrap(), expected, "{name}: {test}");
        }
    }
    // Every failure class there is was met and scored.
    let every: BTreeSet<String> = [
        "bad-submission",
        "build-failed",
        "crash",
        "early-exit",
        "extra-output",
        "missing-flush",
        "no-exit",
        "timeout",
        "trailing-whitespace",
        "wrong-exit-status",
        "wrong-output",
        "wrong-pass",
        "wrong-rules-line",
        "wrong-winner",
    ]
    .map(str::to_owned)
    .into();
    assert_eq!(classes_seen, every);

    // Gradescope: valid, one test per case, points and visibility from the file.
    for name in book.keys() {
        let results = assert_gradescope(&out.join("submissions").join(name).join("results.json"));
        let tests = results["tests"].as_array().unwrap();
        assert_eq!(tests.len(), 7);
        let total: f64 = tests.iter().map(|t| t["score"].as_f64().unwrap()).sum();
        assert_eq!(total, results["score"].as_f64().unwrap());
        assert_eq!(
            format!("{}", results["score"].as_f64().unwrap()),
            book[name]["score"]
        );
        for test in tests {
            let passes = test["name"].as_str().unwrap().ends_with("-passes.in");
            assert_eq!(test["max_score"], if passes { 2.0 } else { 1.0 });
            assert_eq!(
                test["visibility"],
                if passes { "hidden" } else { "visible" }
            );
        }
    }
    // The top-level output, which the student always sees, counts only the visible cases
    // (here all but the hidden `passes` one) and their classes.
    for (name, row) in &book {
        let results = json(&out.join("submissions").join(name).join("results.json"));
        let summary = results["output"].as_str().unwrap();
        let visible: Vec<&Value> = results["tests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|test| test["visibility"] == "visible")
            .collect();
        let passed = visible
            .iter()
            .filter(|test| test["status"] == "passed")
            .count();
        let shown = format!(
            "Of the cases shown here, {passed} of {} passed",
            visible.len()
        );
        assert!(summary.starts_with(&shown), "{name}: {summary}");
        let hidden_failed = results["tests"]
            .as_array()
            .unwrap()
            .iter()
            .any(|test| test["visibility"] == "hidden" && test["status"] == "failed");
        if hidden_failed && visible.iter().all(|test| test["status"] == "passed") {
            assert!(!summary.contains("Failures:"), "{name}: {summary}");
        }
        let _ = row;
    }
    let prompt = json(&out.join("submissions/bug-prompt/results.json"));
    let failed = prompt["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["status"] == "failed")
        .unwrap();
    let output_text = failed["output"].as_str().unwrap();
    assert!(
        output_text.contains("Transcript up to the first difference")
            && output_text.contains("expected: \"VALID\"")
            && output_text.contains("actual:   \"Enter move:·\""),
        "{output_text}"
    );

    // JUnit: valid, one test case per case, failures typed by class, as the gradebook says.
    let cases = junit_cases(&out.join("junit.xml"));
    assert_eq!(cases.len(), 17 * 7);
    for (name, row) in &book {
        let failed = cases
            .iter()
            .filter(|(suite, _, failure)| suite == name && failure.is_some())
            .count();
        assert_eq!(failed.to_string(), row["failed"], "{name}");
    }
    assert_eq!(
        junit_cases(&out.join("submissions/alice/junit.xml")).len(),
        7
    );

    // HTML: self-contained, the class page links every submission and names the classes;
    // each page states the score the gradebook has.
    let index = assert_self_contained(&out.join("index.html"));
    for (name, row) in &book {
        assert!(index.contains(&format!("submissions/{name}/report.html")));
        let page = assert_self_contained(&out.join("submissions").join(name).join("report.html"));
        let stated = format!("{} of {} points", row["score"], row["max_score"]);
        assert!(page.contains(&stated), "{name}: {stated}");
    }
    // The printed table too.
    for (name, row) in &book {
        let line = stdout
            .lines()
            .find(|line| line.split_whitespace().next() == Some(name.as_str()))
            .unwrap();
        let score = format!("{}/{}", row["score"], row["max_score"]);
        assert_eq!(
            line.split_whitespace().nth(1),
            Some(score.as_str()),
            "{line}"
        );
    }
    assert!(index.contains("The cases most students fail"));
    assert!(index.contains("missing-flush"));
    let page = String::from_utf8(read(
        &out.join("submissions/bug-trailing-space/report.html"),
    ))
    .unwrap();
    assert!(page.contains("·"), "trailing spaces are shown");

    // Another run, one job at a time, reports the same (apart from the times taken), for
    // the submissions that end by themselves (the ones that wait out their time limits
    // took most of the test's time run again one at a time, for nothing new).
    let subset = class.out("subset");
    let kept = [
        "alice",
        "bob.zip",
        "carol.tar.gz",
        "bug-buffer",
        "counts-swapped",
        "damaged.zip",
        "syntax-error",
    ];
    for name in kept {
        let from = class.submissions().join(name);
        let to = subset.join(name);
        if from.is_dir() {
            fs::create_dir_all(&to).unwrap();
            for entry in fs::read_dir(&from).unwrap() {
                let entry = entry.unwrap();
                fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
            }
        } else {
            fs::copy(&from, &to).unwrap();
        }
    }
    let again = class.out("again");
    let output = grade(&subset, &again, "1");
    assert!(output.status.success(), "{}", text(&output));
    let stem = |name: &str| name.split('.').next().unwrap().to_owned();
    let kept: Vec<String> = kept.iter().map(|name| stem(name)).collect();
    let mut expected = book.clone();
    expected.retain(|name, _| kept.contains(name));
    assert_eq!(expected.len(), kept.len(), "{expected:?}");
    assert_eq!(gradebook(&again.join("gradebook.csv")), expected);
    let expected: Vec<_> = cases
        .iter()
        .filter(|(suite, _, _)| kept.contains(suite))
        .cloned()
        .collect();
    assert_eq!(junit_cases(&again.join("junit.xml")), expected);
}

#[test]
fn a_c_submission_is_built_in_the_sandbox_and_a_broken_one_fails_its_build() {
    if !ready() {
        return;
    }
    let class = Class::new();
    class.directory("dana", &[("main.c", read(&fixture("class/plain.c")))]);
    class.directory(
        "eve",
        &[("main.c", b"int main(void) { return missing; }\n".to_vec())],
    );
    let out = class.out("report");
    let output = othello()
        .arg("grade")
        .arg(class.submissions())
        .args(["--generate", "7", "--timeout", "2"])
        .args(["--build", "cc -O2 -o {dir}/othello {dir}/main.c"])
        .args(["--command", "{dir}/othello"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    let book = gradebook(&out.join("gradebook.csv"));
    assert_eq!(book["dana"]["passed"], "7", "{:?}", book["dana"]);
    assert_eq!(book["eve"]["failure_classes"], "build-failed: 7");
    // The compiler's message, once for the submission, not with each of its cases.
    let results = assert_gradescope(&out.join("submissions/eve/results.json"));
    let summary = results["output"].as_str().unwrap();
    assert!(
        summary.contains("undeclared"),
        "the compiler's message: {summary}"
    );
    for test in results["tests"].as_array().unwrap() {
        let output = test["output"].as_str().unwrap();
        assert!(!output.contains("undeclared"), "{output}");
        assert_eq!(test["score"], 0.0);
    }
    let page = String::from_utf8(read(&out.join("submissions/eve/report.html"))).unwrap();
    assert_eq!(
        page.matches("first use in this function").count(),
        1,
        "{page}"
    );
    // The originals are untouched: the build wrote into the grader's copy.
    assert!(!class.submissions().join("dana/othello").exists());
}

#[test]
fn one_submission_graded_as_gradescope_runs_it() {
    if !ready() {
        return;
    }
    let class = Class::new();
    let dir = class.directory("only", &[("main.py", plain_py())]);
    let out = class.out("results");
    let output = othello()
        .arg("grade")
        .arg(&dir)
        .args(["--single", "--generate", "3", "--timeout", "2"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    let results = assert_gradescope(&out.join("results.json"));
    assert_eq!(results["score"], 3.0);
    assert!(out.join("report.html").exists() && out.join("junit.xml").exists());
    assert!(!out.join("index.html").exists());
}

/// Replaces the `@NAME@` placeholders of a hostile fixture.
fn hostile(name: &str, values: &[(&str, String)]) -> Vec<u8> {
    let mut script = String::from_utf8(read(&fixture(&format!("class/hostile/{name}")))).unwrap();
    for (key, value) in values {
        script = script.replace(&format!("@{key}@"), value);
    }
    script.into_bytes()
}

/// Processes whose command line contains `needle`.
fn processes_with(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmdline) = fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(needle) {
                found.push(cmdline);
            }
        }
    }
    found
}

#[test]
fn hostile_submissions_end_as_failed_cases_and_harm_nothing() {
    if !ready() {
        return;
    }
    let class = Class::new();
    let alice = class.directory("alice", &[("main.py", plain_py())]);
    let out = class.out("report");
    let cases = class.dir.path().join("cases");
    fs::create_dir(&cases).unwrap();
    fs::write(
        cases.join("secret.in"),
        b"4\n4\nB\n>\n. . . .\n. W B .\n. B W .\n. . . .\n3 1\n",
    )
    .unwrap();
    // The grader's home, with something in it to lose.
    let home = class.dir.path().join("home");
    fs::create_dir(&home).unwrap();
    fs::write(home.join("precious"), b"keep me").unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let values = [
        ("OTHER_DIR", alice.display().to_string()),
        ("OTHER_FILE", alice.join("main.py").display().to_string()),
        ("REPORTS", out.display().to_string()),
        ("CASES", cases.display().to_string()),
        ("GRADER_HOME", home.display().to_string()),
        ("PORT", listener.local_addr().unwrap().port().to_string()),
    ];
    let scripts = [
        "fork_bomb.py",
        "rm_home.py",
        "read_other.py",
        "open_socket.py",
        "fill_disk.py",
        "sleep_forever.py",
    ];
    for script in scripts {
        let name = script.trim_end_matches(".py").replace('_', "-");
        class.directory(&name, &[("main.py", hostile(script, &values))]);
    }
    // Every program the grader starts carries this in its command line.
    let marker = format!("marker-{}", std::process::id());
    let output = othello()
        .env("HOME", &home)
        .arg("grade")
        .arg(class.submissions())
        .arg("--cases")
        .arg(&cases)
        .args(["--command", &format!("python3 {{dir}}/main.py {marker}")])
        .args(["--timeout", "2", "--jobs", "2", "--sandbox", "bubblewrap"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    let book = gradebook(&out.join("gradebook.csv"));
    assert_eq!(book["alice"]["passed"], "1", "{book:?}");
    let classes: BTreeMap<&str, &str> = book
        .iter()
        .map(|(name, row)| (name.as_str(), row["failure_classes"].as_str()))
        .collect();
    assert_eq!(
        classes,
        BTreeMap::from([
            ("alice", ""),
            ("fill-disk", "crash: 1"),
            ("fork-bomb", "timeout: 1"),
            ("open-socket", "crash: 1"),
            ("read-other", "crash: 1"),
            ("rm-home", "crash: 1"),
            ("sleep-forever", "timeout: 1"),
        ])
    );
    let stderr_of = |name: &str| -> String {
        let results = assert_gradescope(&out.join("submissions").join(name).join("results.json"));
        results["tests"][0]["output"].as_str().unwrap().to_owned()
    };
    let leaks = stderr_of("read-other");
    assert!(!leaks.contains("LEAKED"), "{leaks}");
    assert_eq!(leaks.matches("blocked").count(), 3, "{leaks}");
    let socket = stderr_of("open-socket");
    assert!(
        socket.contains("blocked") && !socket.contains("CONNECTED"),
        "{socket}"
    );
    assert!(listener.accept().is_err(), "nobody connected");
    let disk = stderr_of("fill-disk");
    assert!(disk.contains("blocked in its directory"), "{disk}");
    // SAFETY: a plain system call.
    if unsafe { libc::geteuid() } == 0 {
        assert!(disk.contains("No space left on device"), "{disk}");
    }
    // Nothing of anyone else's was lost, and nothing was left running.
    assert_eq!(read(&home.join("precious")), b"keep me");
    assert_eq!(read(&alice.join("main.py")), plain_py());
    assert!(out.join("gradebook.csv").exists() && cases.join("secret.in").exists());
    assert_eq!(processes_with(&marker), Vec::<String>::new());
    let protections = json(&out.join("submissions/alice/results.json"))["output"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(protections.contains("Sandbox: bubblewrap"), "{protections}");
}

/// The results in a journal file, one per case line (the header left out).
fn journal_lines(out: &Path, submission: &str) -> Vec<String> {
    let path = out.join(".grade").join(format!("{submission}.jsonl"));
    let text = fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .skip(1)
        .filter(|line| line.ends_with('}'))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_killed_run_resumes_without_grading_anything_twice() {
    if !ready() {
        return;
    }
    let class = Class::new();
    class.directory("slow", &[("main.py", hostile("sleep_forever.py", &[]))]);
    let out = class.out("report");
    let marker = format!("slow-{}", std::process::id());
    let template = format!("python3 {{dir}}/main.py {marker}");
    let args = |command: &mut Command| {
        command
            .arg("grade")
            .arg(class.submissions())
            .args(["--generate", "6", "--timeout", "1", "--jobs", "1"])
            .args(["--command", &template])
            .arg("--out")
            .arg(&out);
    };
    let mut command = Command::new(othello_path());
    args(&mut command);
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while journal_lines(&out, "slow").len() < 2 {
        assert!(Instant::now() < deadline, "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = journal_lines(&out, "slow");
    assert!((2..6).contains(&before.len()), "{before:?}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !processes_with(&marker).is_empty() {
        assert!(Instant::now() < deadline, "the case died with the grader");
        std::thread::sleep(Duration::from_millis(20));
    }

    // Other settings into the same directory are refused.
    let refused = othello()
        .arg("grade")
        .arg(class.submissions())
        .args(["--generate", "6", "--timeout", "3", "--command", &template])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        text(&refused).contains("other settings"),
        "{}",
        text(&refused)
    );

    let mut command = Command::new(othello_path());
    args(&mut command);
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", text(&output));
    let after = journal_lines(&out, "slow");
    assert_eq!(after.len(), 6);
    // The cases graded before the kill are the same lines, not graded again.
    assert_eq!(&after[..before.len()], before.as_slice());
    let names: BTreeSet<String> = after
        .iter()
        .map(|line| serde_json::from_str::<Value>(line).unwrap()["case"].to_string())
        .collect();
    assert_eq!(names.len(), 6, "each case once");
    let results = assert_gradescope(&out.join("submissions/slow/results.json"));
    assert_eq!(results["tests"].as_array().unwrap().len(), 6);
}

/// Regression: programs killed at a failure left their processes to the system to reap, so
/// that the next cases of the same job ran out of processes ("bwrap: Can't fork") and a
/// correct submission after a failing one crashed. Now the grader reaps them itself.
#[test]
fn regression_26_a_correct_submission_after_many_killed_cases_passes() {
    if !ready() {
        return;
    }
    let class = Class::new();
    class.with_bug("prompt");
    class.directory("zz-correct", &[("main.py", plain_py())]);
    let out = class.out("report");
    let output = othello()
        .arg("grade")
        .arg(class.submissions())
        .args(["--generate", "24", "--timeout", "2", "--jobs", "1"])
        .args(["--processes", "16"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    let book = gradebook(&out.join("gradebook.csv"));
    assert_eq!(
        book["zz-correct"]["passed"], "24",
        "{:?}",
        book["zz-correct"]
    );
    assert!(book["bug-prompt"]["failure_classes"].starts_with("extra-output"));
}

/// Run as root in a container that forbids mounting and changing user (no CAP_SYS_ADMIN,
/// CAP_SETUID, CAP_SETGID: dropped here with setpriv), the grader still grades, and every
/// report says what it could not enforce.
#[test]
fn where_root_may_not_mount_or_change_user_the_reports_say_so() {
    // SAFETY: a plain system call.
    let root = unsafe { libc::geteuid() } == 0;
    if !ready() || !root || Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("skipped: needs root and setpriv");
        return;
    }
    let class = Class::new();
    class.directory("alice", &[("main.py", plain_py())]);
    let out = class.out("report");
    let caps = "-sys_admin,-setuid,-setgid";
    let output = Command::new("setpriv")
        .args(["--bounding-set", caps, "--inh-caps", caps])
        .arg(othello_path())
        .arg("grade")
        .arg(class.submissions())
        .args(["--generate", "3", "--timeout", "2", "--sandbox", "limits"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(
        gradebook(&out.join("gradebook.csv"))["alice"]["passed"],
        "3"
    );
    let results = assert_gradescope(&out.join("submissions/alice/results.json"));
    let summary = results["output"].as_str().unwrap();
    for missing in [
        "Sandbox: limits only (weaker fallback)",
        "the user cannot be changed here",
        "no tmpfs may be mounted here",
        "network isolation",
    ] {
        assert!(summary.contains(missing), "{missing}: {summary}");
    }
}

/// SIGTERM (or Ctrl-C) stops a run at once: its programs killed, its scratch copies
/// removed, what was graded kept for the next run, exit status 143.
#[test]
fn a_terminated_run_stops_cleanly() {
    if !ready() {
        return;
    }
    let class = Class::new();
    class.directory("slow", &[("main.py", hostile("sleep_forever.py", &[]))]);
    let out = class.out("report");
    let marker = format!("terminated-{}", std::process::id());
    let child = Command::new(othello_path())
        .arg("grade")
        .arg(class.submissions())
        .args(["--generate", "6", "--timeout", "1", "--jobs", "1"])
        .args(["--command", &format!("python3 {{dir}}/main.py {marker}")])
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while journal_lines(&out, "slow").is_empty() {
        assert!(Instant::now() < deadline, "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: signalling our own child, not yet reaped.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(143));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(!journal_lines(&out, "slow").is_empty());
    let deadline = Instant::now() + Duration::from_secs(5);
    while !processes_with(&marker).is_empty() {
        assert!(Instant::now() < deadline, "its programs were killed");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A command whose program is not there (a missing interpreter) stops the run before any
/// case: it would fail every student for the grader's mistake.
#[test]
fn a_missing_interpreter_fails_the_run_not_the_students() {
    if !ready() {
        return;
    }
    let class = Class::new();
    class.directory("alice", &[("main.py", plain_py())]);
    let out = class.out("report");
    let output = othello()
        .arg("grade")
        .arg(class.submissions())
        .args(["--generate", "2", "--command", "python9 {dir}/main.py"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output).contains("python9 is not found"),
        "{}",
        text(&output)
    );
    assert!(!out.join("gradebook.csv").exists());
}

/// The sha-256 of a file, in hex.
fn sha256_hex(path: &Path) -> String {
    let output = Command::new("sha256sum").arg(path).output().unwrap();
    String::from_utf8(output.stdout).unwrap()[..64].to_owned()
}

/// A submission that searches everything it can see for the grader's program (by name on
/// PATH, by name, size and content under any name, and any other build of it among the
/// programs it can see) and for the cases (by name and content) finds nothing, even where
/// all sit in a directory the box shows (`--allow-read`) and the grader runs from there;
/// the same search without bubblewrap finds them all, so it is a search that would have
/// found them.
#[test]
fn the_grader_and_its_cases_are_nowhere_in_view() {
    if !ready() {
        return;
    }
    let class = Class::new();
    let visible = class.dir.path().join("visible");
    fs::create_dir_all(visible.join("bin")).unwrap();
    fs::create_dir_all(visible.join("course/cases")).unwrap();
    let program = visible.join("bin/othello");
    fs::copy(othello_path(), &program).unwrap();
    // A second copy under another name; another build (a byte more: not the same file);
    // something named like it.
    fs::copy(othello_path(), visible.join("tool")).unwrap();
    let mut build = fs::read(othello_path()).unwrap();
    build.push(0);
    fs::create_dir(visible.join("old")).unwrap();
    fs::write(visible.join("old/reference"), &build).unwrap();
    fs::write(visible.join("othello-1.2.txt"), b"release notes").unwrap();
    let marker = format!("marker-{}", std::process::id());
    let case = visible.join(format!("course/cases/secret-{marker}.in"));
    // Input after the end of the game is never read: the marker rides along.
    let input = format!("4\n4\nB\n>\n. . . .\n. W B .\n. B W .\n. . . .\n3 1\n{marker}\n");
    fs::write(&case, &input).unwrap();
    let points = visible.join("course/points.toml");
    fs::write(&points, "points = 1\n").unwrap();
    let values = [
        (
            "PROGRAM_SIZE",
            fs::metadata(&program).unwrap().len().to_string(),
        ),
        ("PROGRAM_SHA256", sha256_hex(&program)),
        ("CASE_NAME", format!("secret-{marker}")),
        ("CASE_SIZE", input.len().to_string()),
        ("CASE_MARKER", marker.clone()),
        ("ALLOWED", visible.display().to_string()),
    ];
    class.directory("spy", &[("main.py", hostile("find_reference.py", &values))]);
    let search = |sandbox: &str| -> String {
        let out = class.out(sandbox);
        let output = Command::new(&program)
            .arg("grade")
            .arg(class.submissions())
            .arg("--cases")
            .arg(visible.join("course/cases"))
            .arg("--points")
            .arg(&points)
            .arg("--allow-read")
            .arg(&visible)
            .args(["--timeout", "120", "--cpu", "120", "--sandbox", sandbox])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", text(&output));
        let results = assert_gradescope(&out.join("submissions/spy/results.json"));
        assert_eq!(results["score"], 0.0);
        results["tests"][0]["output"].as_str().unwrap().to_owned()
    };
    let boxed = search("bubblewrap");
    assert!(boxed.contains("searched "), "the search ran: {boxed}");
    assert!(!boxed.contains("FOUND"), "{boxed}");
    let open = search("limits");
    for found in [
        "FOUND the grader's program: ",
        "FOUND the cases' name: ",
        "FOUND a case: ",
        "FOUND a build of the grader: ",
        "FOUND a file named like the grader: ",
    ] {
        assert!(open.contains(found), "{found}: {open}");
    }
    assert!(
        open.contains(&visible.join("tool").display().to_string()),
        "{open}"
    );
}

/// Whether a JDK is here; under CI it must be (`.ci/run` installs default-jdk-headless).
fn java_ready() -> bool {
    let javac = Command::new("javac").arg("-version").output().is_ok();
    assert!(
        javac || std::env::var_os("CI").is_none(),
        "the Java test needs javac under CI"
    );
    if !javac {
        eprintln!("skipped: no javac (bash .ci/run installs default-jdk-headless)");
    }
    javac
}

/// A Java submission, built with javac in the box and run with java, passes every case
/// under the default limits; where no control group can be had (hidden here by a mount
/// namespace of the test's own), it still passes under the per-process fallback, and the
/// reports say which limit held.
#[test]
fn a_java_submission_passes_under_the_default_limits() {
    if !ready() || !java_ready() {
        return;
    }
    let class = Class::new();
    class.directory("jan", &[("Main.java", read(&fixture("class/Main.java")))]);
    let grade = |out: &Path, wrapper: &[&str]| {
        let mut command = Command::new(
            wrapper
                .first()
                .copied()
                .unwrap_or(othello_path().to_str().unwrap()),
        );
        if !wrapper.is_empty() {
            command.args(&wrapper[1..]).arg(othello_path());
        }
        let output = command
            .arg("grade")
            .arg(class.submissions())
            .args(["--generate", "6", "--timeout", "10"])
            .args(["--build", "javac -d {dir} {dir}/Main.java"])
            .args(["--command", "java -cp {dir} Main"])
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", text(&output));
        let results = assert_gradescope(&out.join("submissions/jan/results.json"));
        assert_eq!(results["score"], 6.0, "{results}");
        results["output"].as_str().unwrap().to_owned()
    };
    let summary = grade(&class.out("report"), &[]);
    // SAFETY: a plain system call.
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        assert!(
            summary.contains("of memory for the whole case"),
            "{summary}"
        );
    }
    let hide_cgroups = [
        "unshare",
        "--mount",
        "sh",
        "-c",
        "mount -t tmpfs none /sys/fs/cgroup && exec \"$@\"",
        "sh",
    ];
    if root && Command::new("unshare").arg("--version").output().is_ok() {
        let summary = grade(&class.out("no-cgroups"), &hide_cgroups);
        assert!(
            summary.contains("Not enforced: a memory limit for the whole case")
                && summary.contains("MiB of address space per process"),
            "{summary}"
        );
    }
}

/// The memory limit holds for a whole case: of six children that each try to hold 200 MiB
/// for 3 s under a limit of 256 MiB, one at most keeps it (with a limit per process, all
/// six did), and the report names the limit.
#[test]
fn six_large_children_share_one_memory_limit() {
    if !ready() {
        return;
    }
    let class = Class::new();
    class.directory("hog", &[("main.py", hostile("memory_hog.py", &[]))]);
    let out = class.out("report");
    grade(
        &class,
        &out,
        &["--generate", "1", "--timeout", "20", "--memory", "256"],
    );
    let results = assert_gradescope(&out.join("submissions/hog/results.json"));
    let case = results["tests"][0]["output"].as_str().unwrap();
    let held = case.matches("kept 200 MiB for 3 s").count();
    if results["output"]
        .as_str()
        .unwrap()
        .contains("of memory for the whole case")
    {
        assert!(held <= 1, "{held} children held 200 MiB at once: {case}");
        assert!(
            case.contains("It ran into the memory limit (256 MiB for the whole case)"),
            "{case}"
        );
    } else {
        // Without a control group (not root, or none here) each process has 256 MiB of
        // address space: the reports say the whole case is not limited.
        eprintln!("no control group here: the per-process fallback was used");
        assert!(
            results["output"]
                .as_str()
                .unwrap()
                .contains("Not enforced: a memory limit for the whole case"),
            "{results}"
        );
    }
}

/// Run as root, a daemon that leaves its process group and session (a double fork with
/// setsid) does not outlive its case, even with the limits alone (no PID namespace).
#[test]
fn a_detached_daemon_does_not_outlive_its_case() {
    // SAFETY: a plain system call.
    let root = unsafe { libc::geteuid() } == 0;
    if !ready() || !root {
        eprintln!("skipped: needs root (a user of its own per job)");
        return;
    }
    let class = Class::new();
    let marker = format!("{}.25", std::process::id());
    class.directory(
        "daemon",
        &[(
            "main.py",
            hostile("daemon.py", &[("SECONDS", marker.clone())]),
        )],
    );
    let out = class.out("report");
    grade(
        &class,
        &out,
        &["--generate", "2", "--timeout", "2", "--sandbox", "limits"],
    );
    assert_eq!(
        processes_with(&format!("sleep {marker}")),
        Vec::<String>::new()
    );
    let results = assert_gradescope(&out.join("submissions/daemon/results.json"));
    let summary = results["output"].as_str().unwrap();
    assert!(
        summary.contains("processes that left its group"),
        "{summary}"
    );
}
