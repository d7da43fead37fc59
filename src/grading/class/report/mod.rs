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

use std::{
    collections::BTreeMap,
    fs, io,
    path::{Path, PathBuf},
};

use super::{CaseResult, ClassCase, FailureClass, Graded, points::Points};
use crate::grading::class::{points::Worth, sandbox::Protections};

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
        self.classes
            .iter()
            .map(|(class, count)| format!("{class}: {count}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The whole class, scored.
#[derive(Clone, Debug)]
pub struct Scored<'a> {
    /// The submissions, in order.
    pub submissions: Vec<ScoredSubmission<'a>>,
    /// What the sandbox did.
    pub protections: &'a Protections,
}

impl<'a> Scored<'a> {
    /// Scores `graded` on `cases` with `points`.
    pub fn new(
        graded: &'a [Graded],
        cases: &'a [ClassCase],
        points: &Points,
        protections: &'a Protections,
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
        }
    }
}

/// Points for people: `2`, `2.5`, `0.33`.
pub fn points_text(points: f64) -> String {
    let text = format!("{points:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Writes every report into `out`; with `single`, the one submission's files at the top.
///
/// # Errors
/// The [`io::Error`] of a file that cannot be written, with its path.
pub fn write_all(
    out: &Path,
    scored: &Scored<'_>,
    single: bool,
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
            gradescope::results(submission, scored.protections),
        )?;
        write(
            dir.join("junit.xml"),
            junit::document(std::slice::from_ref(submission), scored.protections),
        )?;
        write(
            dir.join("report.html"),
            html::submission_page(submission, scored.protections, !single),
        )?;
    }
    write(out.join("gradebook.csv"), gradebook::csv(scored))?;
    if !single {
        write(
            out.join("junit.xml"),
            junit::document(&scored.submissions, scored.protections),
        )?;
        write(out.join("index.html"), html::class_page(scored))?;
    }
    Ok(())
}
