//! The HTML pages: one for the class (scores, the failure classes across the class, the
//! cases most students fail) and one per submission (every case, and each failure with
//! the transcript up to the first difference, expected and actual with invisible
//! characters shown). Self-contained: the style is inline, nothing is fetched.

use std::collections::BTreeMap;

use maud::{DOCTYPE, Markup, html};

use super::{Scored, ScoredCase, ScoredSubmission, points_text, safe, safe_name};
use crate::grading::{check::visible, class::FailureClass};

const STYLE: &str = "
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#1d2125}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0}
th,td{border-bottom:1px solid #d5d9dd;padding:.3em .7em;text-align:left;vertical-align:top}
th{background:#f1f3f5}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#1b6e2e}.fail{color:#b3261e;font-weight:600}
.sandbox{background:#eef6ee;border-left:4px solid #1b6e2e;padding:.5em 1em}
.sandbox.weak{background:#fff4e5;border-left-color:#c25e00}
pre{background:#f6f8fa;border:1px solid #d5d9dd;padding:.6em;overflow-x:auto;font:13px/1.35 ui-monospace,monospace}
.diff td{font:13px ui-monospace,monospace}
.failure{border:1px solid #e3b4b0;border-radius:4px;padding:0 1em 1em;margin:1em 0}
details summary{cursor:pointer;color:#3b4a57}
table.side{width:100%;table-layout:fixed}table.side td{width:50%}table.side pre{margin:0}
.note{color:#5c4a00}
";

pub(super) fn page(title: &str, body: Markup) -> Vec<u8> {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (maud::PreEscaped(STYLE)) }
            }
            body { (body) }
        }
    };
    markup.into_string().into_bytes()
}

fn sandbox_box(protections: &crate::grading::class::sandbox::Protections) -> Markup {
    let weak = !protections.missing.is_empty();
    html! {
        div class={ "sandbox" @if weak { " weak" } } {
            strong { "Sandbox: " (protections.kind) }
            ul { @for item in &protections.holds { li { (item) } } }
            @if weak {
                p { strong { "Not enforced:" } }
                ul { @for item in &protections.missing { li { (item) } } }
            }
        }
    }
}

fn outcome(class: Option<FailureClass>) -> Markup {
    match class {
        None => html! { span class="pass" { "passed" } },
        Some(class) => html! { span class="fail" title=(class.description()) { (class) } },
    }
}

/// The page of one submission; `linked`: it sits under the class page, linked back.
pub(super) fn submission_page(
    submission: &ScoredSubmission<'_>,
    scored: &Scored<'_>,
    linked: bool,
) -> Vec<u8> {
    let name = safe_name(&submission.graded.name);
    let setup = submission.setup_failure();
    let body = html! {
        @if linked { p { a href="../../index.html" { "← the class" } } }
        h1 { "Submission " (name) }
        p {
            strong { (points_text(submission.score)) " of " (points_text(submission.max_score)) " points" }
            ", " (submission.passed) " of " (submission.cases.len()) " cases passed"
            @if !submission.classes.is_empty() { " (failures: " (submission.classes_text()) ")" }
        }
        (sandbox_box(scored.protections))
        p { (scored.time_limits) }
        @if let Some((class, failure)) = setup {
            div class="failure" {
                h3 { span class="fail" { (class) } " — " (class.description()) ", so no case ran" }
                p { (safe(&failure.note)) }
                @if !failure.stderr.is_empty() { pre { (safe(&failure.stderr)) } }
            }
        }
        @if !submission.graded.skipped.is_empty() {
            p { "Left out when unpacking:" }
            ul { @for skipped in &submission.graded.skipped { li { code { (safe(skipped)) } } } }
        }
        h2 { "Cases" }
        table {
            tr { th { "case" } th { "kind" } th { "result" } th { "points" } th { "visibility" } th { "seconds" } th { "notes" } }
            @for (index, case) in submission.cases.iter().enumerate() {
                tr {
                    td {
                        @if case.result.passed() || setup.is_some() { (case.result.case) }
                        @else { a href={ "#" (anchor(index)) } { (case.result.case) } }
                    }
                    td { (case.kind) }
                    td { (outcome(case.result.class)) }
                    td class="n" { (points_text(case.earned)) " / " (points_text(case.worth.points)) }
                    td { (case.worth.visibility.name()) }
                    td class="n" { (format!("{:.2}", case.result.seconds)) }
                    td class="note" { @for note in &case.result.notes { (safe(note)) br; } }
                }
            }
        }
        @let failures: Vec<(usize, &ScoredCase<'_>)> = submission
            .cases
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.result.passed() && setup.is_none())
            .collect();
        @if !failures.is_empty() {
            h2 { "Failures" }
            @for (index, case) in failures { (failure_section(index, case)) }
        }
    };
    page(&format!("{name}: othello grade"), body)
}

/// The anchor of a submission's case `index`.
fn anchor(index: usize) -> String {
    format!("case-{}", index + 1)
}

/// `name` as one segment of a link: every byte but letters, digits and `-._~`
/// percent-encoded, so that any file name (spaces, `#`, `?`, a newline) links to itself.
fn link_segment(name: &str) -> String {
    name.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(byte).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// A failed case: what differs first, then how it ended, then (folded) the transcript up
/// to the difference, which may be long.
fn failure_section(index: usize, case: &ScoredCase<'_>) -> Markup {
    let Some(class) = case.result.class else {
        return html! {};
    };
    let show = |line: &Option<String>| line.as_deref().map_or("(nothing)".to_owned(), visible);
    html! {
        div class="failure" id=(anchor(index)) {
            h3 { (case.result.case) ": " span class="fail" { (class) } " — " (class.description()) }
            @if let Some(failure) = &case.result.failure {
                p { (safe(&failure.note)) }
                @if failure.expected.is_some() || failure.actual.is_some() {
                    table class="diff" {
                        tr { th { "output line " (failure.line) } th { "" } }
                        tr { td { "expected" } td { (show(&failure.expected)) } }
                        tr { td { "actual" } td { (show(&failure.actual)) } }
                    }
                }
                @if let Some(limit) = &failure.limit { p { "It ran into " (limit) "." } }
                @if let Some(exit) = &failure.exit { p { "It ended with " (exit) "." } }
                @if !failure.moves.is_empty() {
                    p { "Moves so far (" (failure.moves.len()) "): " code { (failure.moves.join(" ")) } }
                }
                @if !failure.stderr.is_empty() {
                    p { "stderr (last lines):" }
                    pre { (safe(&failure.stderr)) }
                }
                @if !failure.transcript.is_empty() {
                    details {
                        summary {
                            "Transcript up to the first difference ("
                            (failure.transcript.lines().count()) " lines; input lines start with "
                            code { "> " } ")"
                        }
                        pre { (failure.transcript) }
                    }
                }
            }
            @for note in &case.result.notes { p class="note" { "Note: " (safe(note)) } }
        }
    }
}

/// The class page; `similar`: what the similarity report found (pairs listed, flagged,
/// groups of identical programs).
pub(super) fn class_page(scored: &Scored<'_>, similar: Option<(usize, usize, usize)>) -> Vec<u8> {
    let count = scored.submissions.len();
    // Per class: submissions with it, cases failed with it.
    let mut classes: BTreeMap<FailureClass, (usize, usize)> = BTreeMap::new();
    // Per case: submissions failing it, and their classes.
    let mut cases: BTreeMap<&str, (usize, BTreeMap<FailureClass, usize>, &str)> = BTreeMap::new();
    for submission in &scored.submissions {
        for (&class, failed) in &submission.classes {
            let entry = classes.entry(class).or_default();
            entry.0 += 1;
            entry.1 += failed;
        }
        for case in &submission.cases {
            let entry =
                cases
                    .entry(case.result.case.as_str())
                    .or_insert((0, BTreeMap::new(), case.kind));
            if let Some(class) = case.result.class {
                entry.0 += 1;
                *entry.1.entry(class).or_default() += 1;
            }
        }
    }
    let mut hardest: Vec<_> = cases
        .into_iter()
        .filter(|(_, (failing, _, _))| *failing > 0)
        .collect();
    hardest.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
    hardest.truncate(20);
    let body = html! {
        h1 { "othello grade: " (count) " submissions" }
        (sandbox_box(scored.protections))
        p { (scored.time_limits) }
        @if let Some((listed, flagged, identical)) = similar {
            p {
                a href="similarity.html" { "Similar code" } ": " (listed) " pairs listed, "
                @if flagged > 0 { span class="fail" { (flagged) " flagged" } } @else { "none flagged" }
                @if identical == 1 { ", " span class="fail" { "1 group of identical programs" } }
                @if identical > 1 { ", " span class="fail" { (identical) " groups of identical programs" } }
                "."
            }
        }
        h2 { "Submissions" }
        @let rows = scored.rows();
        @let listed = scored.roster.is_some();
        table {
            tr {
                @if listed { th { "student" } th { "id" } }
                th { "submission" } th { "score" } th { "passed" } th { "failed" } th { "failure classes" }
            }
            @for row in &rows {
                tr {
                    @if listed {
                        td { (row.student.map_or(String::new(), |s| safe_name(&s.name))) }
                        td { (row.student.map_or(String::new(), |s| safe_name(&s.id))) }
                    }
                    @if let Some(submission) = row.submission {
                        td { a href={ "submissions/" (link_segment(&submission.graded.name)) "/report.html" } { (safe_name(&submission.graded.name)) } }
                        td class="n" { (points_text(submission.score)) " / " (points_text(submission.max_score)) }
                        td class="n" { (submission.passed) }
                        td class="n" { (submission.failed()) }
                        td {
                            (submission.classes_text())
                            @if listed && row.student.is_none() { span class="fail" { " not on the class list" } }
                        }
                    } @else {
                        td { (row.student.map_or(String::new(), |s| safe_name(&s.submission))) }
                        td class="n" { "0 / " (points_text(scored.max_score)) }
                        td {} td {}
                        td { span class="fail" { "missing: nothing handed in" } }
                    }
                }
            }
        }
        h2 { "Failure classes across the class" }
        @if classes.is_empty() { p { "No case failed." } }
        @else {
            table {
                tr { th { "class" } th { "meaning" } th { "submissions" } th { "cases failed" } }
                @for (class, (submissions, failed)) in &classes {
                    tr {
                        td { span class="fail" { (class) } }
                        td { (class.description()) }
                        td class="n" { (submissions) " of " (count) }
                        td class="n" { (failed) }
                    }
                }
            }
        }
        h2 { "The cases most students fail" }
        @if hardest.is_empty() { p { "None." } }
        @else {
            table {
                tr { th { "case" } th { "kind" } th { "failed by" } th { "classes" } }
                @for (case, (failing, by_class, kind)) in &hardest {
                    tr {
                        td { (case) }
                        td { (kind) }
                        td class="n" { (failing) " of " (count) }
                        td { (by_class.iter().map(|(class, n)| format!("{class}: {n}")).collect::<Vec<_>>().join(", ")) }
                    }
                }
            }
        }
    };
    page("othello grade: the class", body)
}
