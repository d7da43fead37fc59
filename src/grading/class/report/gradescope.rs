//! Gradescope's `results.json`: the score, and one test per case with its score, status,
//! output and visibility (Gradescope hides each from students as its visibility says).

use serde::Serialize;

use super::{ScoredCase, ScoredSubmission, points_text};
use crate::grading::{check::visible, class::sandbox::Protections};

#[derive(Serialize)]
struct Results<'a> {
    score: f64,
    execution_time: u64,
    output: String,
    output_format: &'static str,
    stdout_visibility: &'static str,
    tests: Vec<Test<'a>>,
}

#[derive(Serialize)]
struct Test<'a> {
    name: &'a str,
    number: String,
    score: f64,
    max_score: f64,
    status: &'static str,
    output: String,
    output_format: &'static str,
    tags: Vec<&'a str>,
    visibility: &'static str,
}

/// The `results.json` of one submission.
pub(super) fn results(submission: &ScoredSubmission<'_>, protections: &Protections) -> Vec<u8> {
    let seconds: f64 = submission.cases.iter().map(|c| c.result.seconds).sum();
    let mut output = format!(
        "{} of {} cases passed: {} of {} points.\n",
        submission.passed,
        submission.cases.len(),
        points_text(submission.score),
        points_text(submission.max_score)
    );
    if !submission.classes.is_empty() {
        output.push_str(&format!("Failures: {}.\n", submission.classes_text()));
    }
    for skipped in &submission.graded.skipped {
        output.push_str(&format!("Left out of the submission: {skipped}\n"));
    }
    output.push_str(&protections.summary());
    let results = Results {
        score: submission.score,
        execution_time: seconds.ceil() as u64,
        output,
        output_format: "text",
        stdout_visibility: "hidden",
        tests: submission
            .cases
            .iter()
            .enumerate()
            .map(|(index, case)| Test {
                name: &case.result.case,
                number: (index + 1).to_string(),
                score: case.earned,
                max_score: case.worth.points,
                status: if case.result.passed() {
                    "passed"
                } else {
                    "failed"
                },
                output: case_output(case),
                output_format: "text",
                tags: [Some(case.kind), case.result.class.map(|class| class.name())]
                    .into_iter()
                    .flatten()
                    .filter(|tag| !tag.is_empty())
                    .collect(),
                visibility: case.worth.visibility.name(),
            })
            .collect(),
    };
    let mut bytes = serde_json::to_vec_pretty(&results).expect("plain data");
    bytes.push(b'\n');
    bytes
}

/// The text of one case: passed, or the failure with the transcript up to it.
pub(super) fn case_output(case: &ScoredCase<'_>) -> String {
    let result = case.result;
    let Some(class) = result.class else {
        let mut text = "Passed.".to_owned();
        for note in &result.notes {
            text.push_str(&format!("\nNote: {note}"));
        }
        return text;
    };
    let mut text = format!("Failed: {class} ({}).", class.description());
    let Some(failure) = &result.failure else {
        return text;
    };
    text.push_str(&format!("\n{}", failure.note));
    if let Some(limit) = &failure.limit {
        text.push_str(&format!("\nIt ran into {limit}."));
    }
    if !failure.transcript.is_empty() || failure.expected.is_some() || failure.actual.is_some() {
        text.push_str(&format!(
            "\n\nTranscript up to the first difference (input lines start with \"> \"):\n{}",
            failure.transcript
        ));
        let show = |line: &Option<String>| line.as_deref().map_or("(nothing)".to_owned(), visible);
        text.push_str(&format!(
            "At output line {}:\n  expected: {}\n  actual:   {}",
            failure.line,
            show(&failure.expected),
            show(&failure.actual)
        ));
    }
    if let Some(exit) = &failure.exit {
        text.push_str(&format!("\nIt ended with {exit}."));
    }
    if !failure.stderr.is_empty() {
        text.push_str(&format!("\nstderr (last lines):\n{}", failure.stderr));
    }
    text
}
