//! The gradebook: one CSV row per submission. Every text cell is made safe to open in a
//! spreadsheet, which would run a cell that starts like a formula ([`cell`]).

use serde::Serialize;

use super::{Scored, ScoredSubmission, points_text, safe_name};

/// `text` as a spreadsheet shows it rather than runs it: a cell that starts with `=`, `+`,
/// `-`, `@`, a tab or a carriage return (a formula, to Excel, LibreOffice and Google
/// Sheets) gets a `'` in front, as OWASP recommends; control characters and direction
/// marks are written as escapes ([`safe_name`]).
pub(super) fn cell(text: &str) -> String {
    let shown = if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_owned()
    };
    safe_name(&shown)
}

#[derive(Serialize)]
struct Row {
    submission: String,
    passed: usize,
    failed: usize,
    score: String,
    max_score: String,
    failure_classes: String,
}

/// A row with the class list: the student first.
#[derive(Serialize)]
struct StudentRow {
    student_id: String,
    name: String,
    email: String,
    submission: String,
    status: &'static str,
    passed: usize,
    failed: usize,
    score: String,
    max_score: String,
    failure_classes: String,
}

/// The gradebook of the class: a row per submission, or with a class list a row per
/// student (in its order; a missing submission scores 0), then the submissions of nobody
/// on it.
pub(super) fn csv(scored: &Scored<'_>) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    if scored.roster.is_none() {
        for submission in &scored.submissions {
            writer
                .serialize(Row {
                    submission: cell(&submission.graded.name),
                    passed: submission.passed,
                    failed: submission.failed(),
                    score: points_text(submission.score),
                    max_score: points_text(submission.max_score),
                    failure_classes: submission.classes_text(),
                })
                .expect("rows serialise into memory");
        }
    } else {
        for row in scored.rows() {
            let student = row.student.cloned().unwrap_or_default();
            let submission = row.submission;
            writer
                .serialize(StudentRow {
                    student_id: cell(&student.id),
                    name: cell(&student.name),
                    email: cell(&student.email),
                    submission: cell(submission.map_or(&student.submission, |s| &s.graded.name)),
                    status: row.status(),
                    passed: submission.map_or(0, |s| s.passed),
                    failed: submission.map_or(0, ScoredSubmission::failed),
                    score: points_text(row.score()),
                    max_score: points_text(scored.max_score),
                    failure_classes: submission.map_or_else(String::new, |s| s.classes_text()),
                })
                .expect("rows serialise into memory");
        }
    }
    writer.into_inner().expect("a Vec takes every write")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_shown_not_run() {
        for formula in ["=1+2", "+1", "-1", "@SUM(A1)"] {
            assert_eq!(cell(formula), format!("'{formula}"));
        }
        assert_eq!(cell("\tx"), "'\\tx");
        assert_eq!(cell("\rx"), "'\\u{d}x");
        assert_eq!(cell("esc\x1b[31m"), "esc\\u{1b}[31m");
        assert_eq!(cell("alice"), "alice");
        assert_eq!(cell("a=b"), "a=b");
    }
}
