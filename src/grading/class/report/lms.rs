//! Gradebooks that learning management systems import as they are, written only with a
//! class list (they need the students' ids):
//!
//! - `canvas.csv`: Canvas's gradebook format (`Student`, `ID`, `SIS User ID`, `SIS Login
//!   ID`, `Section`, then a column per assignment, a `Points Possible` row first): Canvas
//!   matches students by SIS user id or name, and makes the assignment if it is new.
//! - `moodle.csv`: for Moodle's "Import grades: CSV file": an identifier column (`ID number`
//!   or `Email address`, mapped to the user field of that name on import) and the grade.
//!
//! A missing submission scores 0; submissions of nobody on the list are left out (no LMS
//! would know whom they belong to).

use serde::Serialize;

use super::{Scored, gradebook::cell, points_text};

/// Canvas's gradebook CSV.
pub(super) fn canvas(scored: &Scored<'_>) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"];
    let assignment = cell(scored.assignment);
    writer
        .write_record(header.iter().copied().chain([assignment.as_str()]))
        .expect("rows serialise into memory");
    let possible = points_text(scored.max_score);
    writer
        .write_record(["Points Possible", "", "", "", "", &possible])
        .expect("rows serialise into memory");
    for row in scored.rows() {
        let Some(student) = row.student else { continue };
        writer
            .write_record([
                cell(&student.name),
                String::new(),
                cell(&student.id),
                cell(&student.login),
                cell(&student.section),
                points_text(row.score()),
            ])
            .expect("rows serialise into memory");
    }
    writer.into_inner().expect("a Vec takes every write")
}

#[derive(Serialize)]
struct MoodleRow {
    #[serde(rename = "ID number")]
    id: String,
    #[serde(rename = "Email address")]
    email: String,
    #[serde(rename = "Full name")]
    name: String,
    #[serde(rename = "Grade")]
    grade: String,
}

/// Moodle's grade import CSV.
pub(super) fn moodle(scored: &Scored<'_>) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in scored.rows() {
        let Some(student) = row.student else { continue };
        writer
            .serialize(MoodleRow {
                id: cell(&student.id),
                email: cell(&student.email),
                name: cell(&student.name),
                grade: points_text(row.score()),
            })
            .expect("rows serialise into memory");
    }
    writer.into_inner().expect("a Vec takes every write")
}
