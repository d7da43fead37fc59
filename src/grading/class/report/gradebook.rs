//! The gradebook: one CSV row per submission.

use serde::Serialize;

use super::{Scored, points_text};

#[derive(Serialize)]
struct Row<'a> {
    submission: &'a str,
    passed: usize,
    failed: usize,
    score: String,
    max_score: String,
    failure_classes: String,
}

/// The gradebook of the class.
pub(super) fn csv(scored: &Scored<'_>) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for submission in &scored.submissions {
        writer
            .serialize(Row {
                submission: &submission.graded.name,
                passed: submission.passed,
                failed: submission.failed(),
                score: points_text(submission.score),
                max_score: points_text(submission.max_score),
                failure_classes: submission.classes_text(),
            })
            .expect("rows serialise into memory");
    }
    writer.into_inner().expect("a Vec takes every write")
}
