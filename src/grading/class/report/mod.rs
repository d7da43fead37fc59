//! The reports of a class run, all from one scored model ([`Scored`]): Gradescope's
//! `results.json` and a JUnit XML file per submission, a JUnit file and a gradebook CSV for
//! the class, and HTML pages (no external assets) per submission and for the class.
//!
//! Layout of the report directory (with `single`, one submission's files go at the top):
//!
//! ```text
//! index.html  gradebook.csv  junit.xml
//! submissions/NAME/report.html  submissions/NAME/results.json  submissions/NAME/junit.xml
//! ```

mod gradebook;
mod gradescope;
mod html;
mod junit;
mod lms;
mod similarity;

use std::{
    collections::BTreeMap,
    fs, io,
    path::{Path, PathBuf},
};

use super::{
    CaseResult, ClassCase, FailureClass, FailureDetail, Graded,
    points::Points,
    roster::{Roster, Student},
};
use crate::grading::{
    check::{printable, printable_line},
    class::{
        points::{Visibility, Worth},
        sandbox::Protections,
    },
    similarity::{Comparison, Source},
};

/// A case's result with what it is worth.
#[derive(Clone, Debug)]
pub struct ScoredCase<'a> {
    /// The result.
    pub result: &'a CaseResult,
    /// Its kind.
    pub kind: &'a str,
    /// What it is worth, and who sees it.
    pub worth: Worth,
    /// The points it earned.
    pub earned: f64,
}

/// A submission, scored.
#[derive(Clone, Debug)]
pub struct ScoredSubmission<'a> {
    /// Its results.
    pub graded: &'a Graded,
    /// Its cases, in case order.
    pub cases: Vec<ScoredCase<'a>>,
    /// Points earned.
    pub score: f64,
    /// Points possible.
    pub max_score: f64,
    /// Cases passed.
    pub passed: usize,
    /// Failed cases per class.
    pub classes: BTreeMap<FailureClass, usize>,
}

impl ScoredSubmission<'_> {
    /// Cases failed.
    pub fn failed(&self) -> usize {
        self.cases.len() - self.passed
    }

    /// The failure classes with their counts: `crash: 3, timeout: 1`.
    pub fn classes_text(&self) -> String {
        classes_text(&self.classes)
    }

    /// The failure that stopped the whole submission before its cases ran (its build
    /// failed, it could not be used), shown once rather than with every case.
    pub fn setup_failure(&self) -> Option<(FailureClass, &FailureDetail)> {
        self.cases.iter().find_map(|case| {
            let class = case.result.class.filter(|class| class.whole_submission())?;
            Some((class, case.result.failure.as_ref()?))
        })
    }

    /// The cases its student may see now (visibility `visible`).
    pub fn visible(&self) -> impl Iterator<Item = &ScoredCase<'_>> {
        self.cases
            .iter()
            .filter(|case| case.worth.visibility == Visibility::Visible)
    }
}

/// Failure classes with their counts: `crash: 3, timeout: 1`.
pub fn classes_text(classes: &BTreeMap<FailureClass, usize>) -> String {
    classes
        .iter()
        .map(|(class, count)| format!("{class}: {count}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Text that came from a submission (its stderr, a build's output), safe to show in any
/// report: see [`printable`].
pub fn safe(text: &str) -> String {
    printable(text)
}

/// A name that came from a submission (its folder's), safe to show on one line: see
/// [`printable_line`].
pub fn safe_name(text: &str) -> String {
    printable_line(text)
}

/// The whole class, scored.
#[derive(Clone, Debug)]
pub struct Scored<'a> {
    /// The submissions, in order.
    pub submissions: Vec<ScoredSubmission<'a>>,
    /// What the sandbox did.
    pub protections: &'a Protections,
    /// The time limits, in a sentence.
    pub time_limits: &'a str,
    /// What every submission could score.
    pub max_score: f64,
    /// The class list, if one was given.
    pub roster: Option<&'a Roster>,
    /// The assignment's name in the LMS's gradebook.
    pub assignment: &'a str,
}

/// A row of a gradebook: a student on the class list, a submission, or both.
#[derive(Clone, Copy, Debug)]
pub struct ClassRow<'a> {
    /// The student, if on the class list.
    pub student: Option<&'a Student>,
    /// Their submission, if there is one.
    pub submission: Option<&'a ScoredSubmission<'a>>,
}

impl ClassRow<'_> {
    /// `graded`, `missing` (on the list, nothing handed in) or `not on the class list`.
    pub fn status(&self) -> &'static str {
        match (self.student, self.submission) {
            (_, None) => "missing",
            (Some(_), Some(_)) => "graded",
            (None, Some(_)) => "not on the class list",
        }
    }

    /// The score: a missing submission's is 0.
    pub fn score(&self) -> f64 {
        self.submission.map_or(0.0, |submission| submission.score)
    }
}

impl<'a> Scored<'a> {
    /// Scores `graded` on `cases` with `points`.
    pub fn new(
        graded: &'a [Graded],
        cases: &'a [ClassCase],
        points: &Points,
        protections: &'a Protections,
        time_limits: &'a str,
    ) -> Scored<'a> {
        let kinds: BTreeMap<&str, &str> = cases
            .iter()
            .map(|case| (case.case.name.as_str(), case.kind.as_str()))
            .collect();
        let submissions = graded
            .iter()
            .map(|graded| {
                let cases: Vec<ScoredCase<'_>> = graded
                    .results
                    .iter()
                    .map(|result| {
                        let kind = kinds.get(result.case.as_str()).copied().unwrap_or("");
                        let worth = points.worth(&result.case, kind);
                        ScoredCase {
                            result,
                            kind,
                            worth,
                            earned: points.earned(worth, result.class),
                        }
                    })
                    .collect();
                let mut classes = BTreeMap::new();
                for case in &cases {
                    if let Some(class) = case.result.class {
                        *classes.entry(class).or_default() += 1;
                    }
                }
                ScoredSubmission {
                    graded,
                    score: cases.iter().map(|case| case.earned).sum(),
                    max_score: cases.iter().map(|case| case.worth.points).sum(),
                    passed: cases.iter().filter(|case| case.result.passed()).count(),
                    cases,
                    classes,
                }
            })
            .collect();
        Scored {
            submissions,
            protections,
            time_limits,
            max_score: cases
                .iter()
                .map(|case| points.worth(&case.case.name, &case.kind).points)
                .sum(),
            roster: None,
            assignment: "Othello",
        }
    }

    /// With a class list, and the assignment's name for the LMS's gradebook.
    pub fn with_roster(mut self, roster: Option<&'a Roster>, assignment: &'a str) -> Scored<'a> {
        self.roster = roster;
        self.assignment = assignment;
        self
    }

    /// The rows of the gradebooks: without a class list, a row per submission; with one,
    /// a row per student in its order, then a row per submission of nobody on it.
    pub fn rows(&self) -> Vec<ClassRow<'_>> {
        let Some(roster) = self.roster else {
            return self
                .submissions
                .iter()
                .map(|submission| ClassRow {
                    student: None,
                    submission: Some(submission),
                })
                .collect();
        };
        let names: Vec<&str> = self
            .submissions
            .iter()
            .map(|submission| submission.graded.name.as_str())
            .collect();
        let owners = roster.assign(&names);
        let mut rows: Vec<ClassRow<'_>> = roster
            .students
            .iter()
            .enumerate()
            .map(|(index, student)| ClassRow {
                student: Some(student),
                submission: owners
                    .iter()
                    .position(|owner| *owner == Some(index))
                    .map(|at| &self.submissions[at]),
            })
            .collect();
        rows.extend(
            self.submissions
                .iter()
                .zip(&owners)
                .filter(|(_, owner)| owner.is_none())
                .map(|(submission, _)| ClassRow {
                    student: None,
                    submission: Some(submission),
                }),
        );
        rows
    }
}

/// Points for people: `2`, `2.5`, `0.33` (never `-0`).
pub fn points_text(points: f64) -> String {
    let text = format!("{:.2}", points + 0.0);
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// What the similarity report found: the sources compared, what the comparison found, and
/// how many starter files were left out of the count.
#[derive(Clone, Copy, Debug)]
pub struct Similar<'a> {
    /// The submissions' code.
    pub sources: &'a [Source],
    /// The pairs listed, the identical groups, the mass copies.
    pub comparison: &'a Comparison,
    /// Starter code files.
    pub starters: usize,
}

/// Writes every report into `out`; with `single`, the one submission's files at the top;
/// with `similar`, the similarity report too.
///
/// # Errors
/// The [`io::Error`] of a file that cannot be written, with its path.
pub fn write_all(
    out: &Path,
    scored: &Scored<'_>,
    single: bool,
    similar: Option<Similar<'_>>,
) -> Result<(), (PathBuf, io::Error)> {
    let write = |path: PathBuf, bytes: Vec<u8>| {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|error| (parent.to_owned(), error))?;
        }
        let temporary = path.with_extension("partial");
        fs::write(&temporary, &bytes)
            .and_then(|()| fs::rename(&temporary, &path))
            .map_err(|error| (path.clone(), error))?;
        Ok::<(), (PathBuf, io::Error)>(())
    };
    for submission in &scored.submissions {
        let dir = if single {
            out.to_owned()
        } else {
            out.join("submissions").join(&submission.graded.name)
        };
        write(
            dir.join("results.json"),
            gradescope::results(submission, scored),
        )?;
        write(
            dir.join("junit.xml"),
            junit::document(std::slice::from_ref(submission), scored.protections),
        )?;
        write(
            dir.join("report.html"),
            html::submission_page(submission, scored, !single),
        )?;
    }
    write(out.join("gradebook.csv"), gradebook::csv(scored))?;
    if scored.roster.is_some() {
        write(out.join("canvas.csv"), lms::canvas(scored))?;
        write(out.join("moodle.csv"), lms::moodle(scored))?;
    }
    if !single {
        write(
            out.join("junit.xml"),
            junit::document(&scored.submissions, scored.protections),
        )?;
        let counts = similar.map(|similar| {
            let pairs = &similar.comparison.pairs;
            let flagged = pairs.iter().filter(|pair| pair.flagged).count();
            (pairs.len(), flagged, similar.comparison.identical.len())
        });
        write(out.join("index.html"), html::class_page(scored, counts))?;
    }
    let dir = out.join("similarity");
    if dir.is_dir() {
        // Pages of an earlier run's pairs would be left over.
        let _ = fs::remove_dir_all(&dir);
    }
    if let Some(similar) = similar.filter(|_| !single) {
        let Similar {
            sources,
            comparison,
            starters,
        } = similar;
        let pairs = &comparison.pairs;
        write(out.join("similarity.csv"), similarity::csv(sources, pairs))?;
        write(
            out.join("similarity.html"),
            similarity::index(sources, comparison, starters),
        )?;
        for (index, pair) in pairs.iter().enumerate().take(similarity::PAGES) {
            write(
                dir.join(similarity::pair_file(index + 1)),
                similarity::pair_page(sources, pair, index + 1),
            )?;
        }
    } else {
        // An earlier run's report would be taken for this one's.
        for old in ["similarity.html", "similarity.csv"] {
            let _ = fs::remove_file(out.join(old));
        }
    }
    Ok(())
}
