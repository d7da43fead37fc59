//! The similarity report: `similarity.csv` (a row per pair listed) and `similarity.html`
//! (the pairs ranked, flagged ones marked), with a page per pair showing the passages they
//! share side by side.

use maud::{Markup, html};

use super::{gradebook::cell, html::page, safe, safe_name};
use crate::grading::similarity::{Comparison, Lines, Pair, Source};

/// Passages shown on a pair's page, longest first.
const SHOWN_PASSAGES: usize = 30;

/// Lines of a passage shown at most (the rest is counted).
const SHOWN_LINES: u32 = 80;

/// Pairs that get a page of their own, the most alike first (a class that all handed in
/// the same code has tens of thousands of pairs; similarity.csv lists them all).
pub(super) const PAGES: usize = 200;

/// Pairs in the table of similarity.html.
const ROWS: usize = 1000;

/// `similarity.csv`.
pub(super) fn csv(sources: &[Source], pairs: &[Pair]) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer
        .write_record([
            "submission_a",
            "submission_b",
            "similarity",
            "a_share",
            "b_share",
            "flagged",
            "passages",
        ])
        .expect("rows serialise into memory");
    for pair in pairs {
        writer
            .write_record([
                cell(&sources[pair.a].name),
                cell(&sources[pair.b].name),
                format!("{:.3}", pair.similarity),
                format!("{:.3}", pair.a_share),
                format!("{:.3}", pair.b_share),
                pair.flagged.to_string(),
                pair.passages.len().to_string(),
            ])
            .expect("rows serialise into memory");
    }
    writer.into_inner().expect("a Vec takes every write")
}

fn percent(share: f64) -> String {
    format!("{:.0} %", share * 100.0)
}

/// The page of the pair `number` (1-based), its file name.
pub(super) fn pair_file(number: usize) -> String {
    format!("pair-{number:04}.html")
}

/// `similarity.html`.
pub(super) fn index(sources: &[Source], comparison: &Comparison, starters: usize) -> Vec<u8> {
    let pairs = &comparison.pairs;
    let flagged = pairs.iter().filter(|pair| pair.flagged).count();
    let names = |indices: &[usize]| -> String {
        indices
            .iter()
            .map(|&index| safe_name(&sources[index].name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let not_compared: Vec<(&Source, &String)> = sources
        .iter()
        .flat_map(|source| source.skipped.iter().map(move |skipped| (source, skipped)))
        .collect();
    let body = html! {
        p { a href="index.html" { "← the class" } }
        h1 { "Similar code" }
        p {
            (sources.len()) " submissions compared; " (pairs.len()) " pairs listed, "
            strong { (flagged) " flagged" } "."
            @if starters > 0 { " The starter code (" (starters) " files) counts in none." }
        }
        p {
            "Names, layout and comments do not count; neither do passages most of the class "
            "shares (more than half of it, and more than 10 submissions). A pair's similarity "
            "is the share of the smaller program's fingerprints found in the other. Similar "
            "code is a reason to look, not a verdict."
        }
        @for group in &comparison.identical {
            p class="fail" {
                "Identical programs (names and layout aside), " (group.len()) " submissions: "
                (names(group))
            }
        }
        @if !comparison.crowded.is_empty() {
            p class="fail" {
                (comparison.crowded.len()) " submissions share most of their code with more than "
                (comparison.common_above) " others, which no pair below counts (code most of the "
                "class shares looks like what the task makes everyone write): "
                (names(&comparison.crowded))
            }
        }
        @if pairs.is_empty() { p { "No pair is alike enough to list." } }
        @else {
            table {
                tr { th { "#" } th { "submission" } th { "submission" } th { "similarity" } th { "of the first" } th { "of the second" } th { "passages" } }
                @for (index, pair) in pairs.iter().enumerate().take(ROWS) {
                    tr {
                        td class="n" {
                            @if index < PAGES { a href={ "similarity/" (pair_file(index + 1)) } { (index + 1) } }
                            @else { (index + 1) }
                        }
                        td { (safe_name(&sources[pair.a].name)) }
                        td { (safe_name(&sources[pair.b].name)) }
                        td class="n" {
                            @if pair.flagged { span class="fail" { (percent(pair.similarity)) } }
                            @else { (percent(pair.similarity)) }
                        }
                        td class="n" { (percent(pair.a_share)) }
                        td class="n" { (percent(pair.b_share)) }
                        td class="n" { (pair.passages.len()) }
                    }
                }
            }
            @if pairs.len() > ROWS {
                p { "And " (pairs.len() - ROWS) " more pairs: see similarity.csv." }
            }
            @if pairs.len() > PAGES {
                p { "The " (PAGES) " most alike have a page with their shared passages." }
            }
        }
    };
    let body = html! {
        (body)
        @if !not_compared.is_empty() {
            details {
                summary { "Files not compared (" (not_compared.len()) ")" }
                ul {
                    @for (source, skipped) in &not_compared {
                        li { (safe_name(&source.name)) ": " code { (safe_name(skipped)) } }
                    }
                }
            }
        }
    };
    page("othello grade: similar code", body)
}

/// The lines of a passage, numbered.
fn excerpt(source: &Source, lines: Lines) -> Markup {
    let Some(file) = source.files.get(lines.file) else {
        return html! {};
    };
    let last = lines.last.min(lines.first + SHOWN_LINES - 1);
    let text: Vec<String> = file
        .text
        .lines()
        .enumerate()
        .skip(lines.first as usize - 1)
        .take((last + 1 - lines.first) as usize)
        .map(|(index, line)| format!("{:>4}  {}", index + 1, safe(line)))
        .collect();
    html! {
        p { code { (safe(&file.path)) } ", lines " (lines.first) "–" (lines.last) }
        pre { (text.join("\n")) @if last < lines.last { "\n…" } }
    }
}

/// The page of pair `number`: the passages side by side.
pub(super) fn pair_page(sources: &[Source], pair: &Pair, number: usize) -> Vec<u8> {
    let (a, b) = (&sources[pair.a], &sources[pair.b]);
    let body = html! {
        p { a href="../similarity.html" { "← all pairs" } }
        h1 { (safe_name(&a.name)) " and " (safe_name(&b.name)) }
        p {
            "Similarity " strong { (percent(pair.similarity)) }
            @if pair.flagged { " (flagged)" }
            ": " (percent(pair.a_share)) " of " (safe_name(&a.name)) "'s fingerprints are in "
            (safe_name(&b.name)) ", " (percent(pair.b_share)) " of " (safe_name(&b.name)) "'s in "
            (safe_name(&a.name)) ". " (pair.passages.len()) " shared passages"
            @if pair.passages.len() > SHOWN_PASSAGES { " (the " (SHOWN_PASSAGES) " longest shown)" }
            "."
        }
        @for (index, passage) in pair.passages.iter().take(SHOWN_PASSAGES).enumerate() {
            h2 { "Passage " (index + 1) " (" (passage.tokens) " tokens)" }
            table class="side" {
                tr { th { (safe_name(&a.name)) } th { (safe_name(&b.name)) } }
                tr {
                    td { (excerpt(a, passage.a)) }
                    td { (excerpt(b, passage.b)) }
                }
            }
        }
    };
    page(&format!("similar code {number}"), body)
}
