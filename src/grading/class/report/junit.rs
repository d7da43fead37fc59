//! JUnit XML, as CI systems (GitHub Classroom, GitLab, Jenkins) read it: a `testsuite` per
//! submission, a `testcase` per case, a `failure` (type: the class) for each failed one, the
//! sandbox in the suite's properties.

use serde::Serialize;

use super::{ScoredSubmission, gradescope::case_output};
use crate::grading::class::sandbox::Protections;

#[derive(Serialize)]
#[serde(rename = "testsuites")]
struct Suites {
    #[serde(rename = "@name")]
    name: &'static str,
    #[serde(rename = "@tests")]
    tests: usize,
    #[serde(rename = "@failures")]
    failures: usize,
    #[serde(rename = "@errors")]
    errors: usize,
    #[serde(rename = "@time")]
    time: String,
    testsuite: Vec<Suite>,
}

#[derive(Serialize)]
struct Suite {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@tests")]
    tests: usize,
    #[serde(rename = "@failures")]
    failures: usize,
    #[serde(rename = "@errors")]
    errors: usize,
    #[serde(rename = "@skipped")]
    skipped: usize,
    #[serde(rename = "@time")]
    time: String,
    properties: Properties,
    testcase: Vec<TestCase>,
}

#[derive(Serialize)]
struct Properties {
    property: Vec<Property>,
}

#[derive(Serialize)]
struct Property {
    #[serde(rename = "@name")]
    name: &'static str,
    #[serde(rename = "@value")]
    value: String,
}

#[derive(Serialize)]
struct TestCase {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@classname")]
    classname: String,
    #[serde(rename = "@time")]
    time: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    failure: Option<Failure>,
}

#[derive(Serialize)]
struct Failure {
    #[serde(rename = "@message")]
    message: String,
    #[serde(rename = "@type")]
    kind: String,
    #[serde(rename = "$text")]
    text: String,
}

/// The JUnit document for `submissions` (one suite each).
pub(super) fn document(submissions: &[ScoredSubmission<'_>], protections: &Protections) -> Vec<u8> {
    let seconds = |submission: &ScoredSubmission<'_>| -> f64 {
        submission.cases.iter().map(|c| c.result.seconds).sum()
    };
    let suites = Suites {
        name: "othello grade",
        tests: submissions.iter().map(|s| s.cases.len()).sum(),
        failures: submissions.iter().map(ScoredSubmission::failed).sum(),
        errors: 0,
        time: format!("{:.3}", submissions.iter().map(seconds).sum::<f64>()),
        testsuite: submissions
            .iter()
            .map(|submission| Suite {
                name: xml_safe(&submission.graded.name),
                tests: submission.cases.len(),
                failures: submission.failed(),
                errors: 0,
                skipped: 0,
                time: format!("{:.3}", seconds(submission)),
                properties: Properties {
                    property: vec![
                        Property {
                            name: "sandbox",
                            value: protections.kind.to_string(),
                        },
                        Property {
                            name: "protections",
                            value: xml_safe(&protections.summary()),
                        },
                        Property {
                            name: "score",
                            value: format!("{}/{}", submission.score, submission.max_score),
                        },
                    ],
                },
                testcase: submission
                    .cases
                    .iter()
                    .map(|case| TestCase {
                        name: xml_safe(&case.result.case),
                        classname: xml_safe(&submission.graded.name),
                        time: format!("{:.3}", case.result.seconds),
                        failure: case.result.class.map(|class| Failure {
                            message: xml_safe(
                                case.result
                                    .failure
                                    .as_ref()
                                    .map_or(class.name(), |failure| failure.note.as_str()),
                            ),
                            kind: class.name().to_owned(),
                            text: xml_safe(&case_output(case)),
                        }),
                    })
                    .collect(),
            })
            .collect(),
    };
    let mut text = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let mut serializer = quick_xml::se::Serializer::new(&mut text);
    serializer.indent(' ', 2);
    suites.serialize(serializer).expect("plain data serialises");
    text.push('\n');
    text.into_bytes()
}

/// `text` without the characters XML 1.0 cannot hold even escaped (control characters
/// other than tab and line endings), each shown as `\u{..}`.
fn xml_safe(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c.to_string(),
            c if c.is_control() || c == '\u{fffe}' || c == '\u{ffff}' => {
                format!("\\u{{{:x}}}", c as u32)
            }
            c => c.to_string(),
        })
        .collect()
}
