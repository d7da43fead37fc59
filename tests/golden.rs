//! Golden transcripts: every scenario under `fixtures/transcripts/` through the grader protocol,
//! compared with its snapshot (stdout, exit status and stderr) and, where a `.out` file sits
//! beside it, byte for byte with that file.
//!
//! Only the `glob!` test lives in this file: insta collects glob failures per process, so a
//! failure elsewhere in the same binary could be counted against it.

mod common;

use othello::protocol;

#[test]
fn transcripts_match_their_snapshots() {
    insta::glob!("../fixtures", "transcripts/**/*.in", |path| {
        let input = std::fs::read(path).unwrap();
        let mut stdout = Vec::new();
        let result = protocol::run(&input[..], &mut stdout, common::rules_of(path));
        common::assert_well_formed(&stdout);
        if let Ok(expected) = std::fs::read(path.with_extension("out")) {
            assert!(
                stdout == expected,
                "{} differs from its .out file",
                path.display()
            );
        }
        let (status, stderr) = match &result {
            Ok(_) => (0, String::new()),
            Err(error) => (error.exit_status(), format!("othello: {error}\n")),
        };
        let stdout = String::from_utf8(stdout).unwrap();
        insta::assert_snapshot!(format!(
            "{stdout}--- exit status {status}\n--- stderr\n{stderr}"
        ));
    });
}
