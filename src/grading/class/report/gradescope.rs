//! Gradescope's `results.json`: the score, and one test per case with its score, status,
//! output and visibility (Gradescope hides each from students as its visibility says).
//! The top-level `output` is always shown to the student: it counts only the cases the
//! student may see.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Scored, ScoredCase, ScoredSubmission, classes_text, points_text, safe};
use crate::grading::check::visible;

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
pub(super) fn results(submission: &ScoredSubmission<'_>, scored: &Scored<'_>) -> Vec<u8> {
    let seconds: f64 = submission.cases.iter().map(|c| c.result.seconds).sum();
    let shown: Vec<&ScoredCase<'_>> = submission.visible().collect();
    let passed = shown.iter().filter(|case| case.result.passed()).count();
    let mut classes = BTreeMap::new();
    for case in &shown {
        if let Some(class) = case.result.class {
            *classes.entry(class).or_default() += 1;
        }
    }
    let points = |pick: fn(&ScoredCase<'_>) -> f64| shown.iter().map(|case| pick(case)).sum();
    let mut output = if shown.len() == submission.cases.len() {
        format!(
            "{passed} of {} cases passed: {} of {} points.\n",
            shown.len(),
            points_text(points(|case| case.earned)),
            points_text(points(|case| case.worth.points))
        )
    } else {
        format!(
            "Of the cases shown here, {passed} of {} passed: {} of {} points.\n",
            shown.len(),
            points_text(points(|case| case.earned)),
            points_text(points(|case| case.worth.points))
        )
    };
    if !classes.is_empty() {
        output.push_str(&format!("Failures: {}.\n", classes_text(&classes)));
    }
    if let Some((class, failure)) = submission.setup_failure() {
        output.push_str(&format!(
            "\n{} ({class}): {}\n",
            class.description(),
            safe(&failure.note)
        ));
        if !failure.stderr.is_empty() {
            output.push_str(&format!("{}\n", safe(&failure.stderr)));
        }
        output.push('\n');
    }
    for skipped in &submission.graded.skipped {
        output.push_str(&format!("Left out of the submission: {}\n", safe(skipped)));
    }
    output.push_str(scored.time_limits);
    output.push('\n');
    output.push_str(&scored.protections.summary());
    let results = Results {
        score: rounded(submission.score),
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
                score: rounded(case.earned),
                max_score: rounded(case.worth.points),
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

/// Points to a millionth: sums of shares stay what a person would write (`0.3`, not
/// `0.30000000000000004`).
fn rounded(points: f64) -> f64 {
    (points * 1e6).round() / 1e6 + 0.0
}

/// The text of one case: passed, or the failure, the difference first, then the
/// transcript up to it. A failure of the whole submission (its build) points to the one
/// place its output is shown.
pub(super) fn case_output(case: &ScoredCase<'_>) -> String {
    let result = case.result;
    let Some(class) = result.class else {
        let mut text = "Passed.".to_owned();
        for note in &result.notes {
            text.push_str(&format!("\nNote: {}", safe(note)));
        }
        return text;
    };
    let mut text = format!("Failed: {class} ({}).", class.description());
    let Some(failure) = &result.failure else {
        return text;
    };
    text.push_str(&format!("\n{}", safe(&failure.note)));
    if class.whole_submission() {
        if !failure.stderr.is_empty() {
            text.push_str("\n(Its output is shown once, with the submission's results.)");
        }
        return text;
    }
    if let Some(limit) = &failure.limit {
        text.push_str(&format!("\nIt ran into {limit}."));
    }
    if failure.expected.is_some() || failure.actual.is_some() {
        let show = |line: &Option<String>| line.as_deref().map_or("(nothing)".to_owned(), visible);
        text.push_str(&format!(
            "\nAt output line {}:\n  expected: {}\n  actual:   {}",
            failure.line,
            show(&failure.expected),
            show(&failure.actual)
        ));
    }
    if !failure.moves.is_empty() {
        text.push_str(&format!(
            "\nMoves so far ({}): {}",
            failure.moves.len(),
            failure.moves.join(" ")
        ));
    }
    if let Some(exit) = &failure.exit {
        text.push_str(&format!("\nIt ended with {exit}."));
    }
    if !failure.stderr.is_empty() {
        text.push_str(&format!(
            "\nstderr (last lines):\n{}",
            safe(&failure.stderr)
        ));
    }
    if !failure.transcript.is_empty() {
        text.push_str(&format!(
            "\n\nTranscript up to the first difference (input lines start with \"> \"):\n{}",
            failure.transcript
        ));
    }
    for note in &result.notes {
        text.push_str(&format!("\nNote: {}", safe(note)));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{super::points_text, rounded};

    #[test]
    fn points_read_as_a_person_writes_them() {
        assert_eq!(rounded(0.1 + 0.2), 0.3);
        assert_eq!(rounded(-0.0).to_string(), "0");
        assert_eq!(points_text(-0.0), "0");
        assert_eq!(points_text(2.0 / 3.0), "0.67");
    }
}
