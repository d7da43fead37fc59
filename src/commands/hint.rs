//! `othello hint`: the best few moves of a position, with scores and expected lines.

use std::{io::Write, time::Duration};

use super::CommandError;
use crate::{
    Full, RuleSet, Setup, Simple, Variant,
    engine::{
        Limits, Node, NodeTask, RankedMove, SearchOptions, SearchReport, TranspositionTable,
        eval::DISC, search,
    },
};

/// Time given to a hint when neither a depth nor a time is asked for.
pub const DEFAULT_TIME: Duration = Duration::from_secs(1);

/// Searches `setup` (its first mover to move) under `variant` within `limits` and ranks its
/// best `count` moves.
pub fn rank(variant: Variant, setup: &Setup, limits: Limits, count: usize) -> SearchReport {
    match variant {
        Variant::Full => rank_with::<Full>(setup, limits, count),
        Variant::Simple => rank_with::<Simple>(setup, limits, count),
    }
}

fn rank_with<R: RuleSet>(setup: &Setup, limits: Limits, count: usize) -> SearchReport {
    struct Task(SearchOptions);
    impl NodeTask for Task {
        type Output = SearchReport;
        fn run<N: Node>(self, node: N) -> SearchReport {
            let mut tt = TranspositionTable::new(64);
            search(&node, &self.0, &mut tt, None, &mut |_| {})
        }
    }
    let options = SearchOptions {
        rule: setup.win_rule,
        limits,
        ranked_moves: count.max(1),
    };
    crate::engine::with_node::<R, _>(&setup.board, setup.first_mover, Task(options))
}

/// A score for people: whole discs when exact (`+6`), else discs to two decimals (`+1.25`).
fn score_text(score: i32, exact: bool) -> String {
    if exact {
        format!("{:+}", score / DISC)
    } else {
        format!("{:+.2}", f64::from(score) / f64::from(DISC))
    }
}

/// One ranked move for people: `1. d3 +1.25 (depth 9) d3 c5 f6`, or with an exact score
/// `1. d3 +6 (exact, depth 12) d3 c5 ...`.
pub fn text_line(rank: usize, ranked: &RankedMove, report: &SearchReport) -> String {
    let pv: Vec<String> = ranked.pv.iter().map(ToString::to_string).collect();
    format!(
        "{rank}. {} {} ({} {}) {}",
        ranked.square,
        score_text(ranked.score, report.exact),
        if report.exact {
            "exact, depth"
        } else {
            "depth"
        },
        report.depth,
        pv.join(" ")
    )
}

/// Prints the best `count` moves of `setup`: one line each, best first.
///
/// Text: `1. d3 +1.25 (depth 9) d3 c5 f6 ...`; JSON lines:
/// `{"rank":1,"move":"d3","score":1.25,"exact":false,"depth":9,"pv":["d3","c5","f6"]}`.
/// When the side to move must pass, a single line says so.
///
/// # Errors
/// [`CommandError::Write`] if the output fails.
pub fn run(
    variant: Variant,
    setup: &Setup,
    limits: Limits,
    count: usize,
    json: bool,
    out: &mut impl Write,
) -> Result<SearchReport, CommandError> {
    let report = rank(variant, setup, limits, count);
    if report.ranked.is_empty() {
        if json {
            writeln!(
                out,
                "{{\"rank\":1,\"move\":null,\"score\":{},\"exact\":{},\"depth\":{},\"pv\":[]}}",
                f64::from(report.score) / f64::from(DISC),
                report.exact,
                report.depth
            )?;
        } else {
            writeln!(
                out,
                "no move: the side to move must pass (or the game is over)"
            )?;
        }
        return Ok(report);
    }
    for (index, ranked) in report.ranked.iter().enumerate() {
        let pv: Vec<String> = ranked.pv.iter().map(ToString::to_string).collect();
        if json {
            let score = if report.exact {
                (ranked.score / DISC).to_string()
            } else {
                format!("{:.2}", f64::from(ranked.score) / f64::from(DISC))
            };
            let pv: Vec<String> = pv.iter().map(|m| format!("\"{m}\"")).collect();
            writeln!(
                out,
                "{{\"rank\":{},\"move\":\"{}\",\"score\":{score},\"exact\":{},\"depth\":{},\"pv\":[{}]}}",
                index + 1,
                ranked.square,
                report.exact,
                report.depth,
                pv.join(",")
            )?;
        } else {
            writeln!(out, "{}", text_line(index + 1, ranked, &report))?;
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Shape;

    #[test]
    fn ranks_the_start_position() {
        let mut out = Vec::new();
        let setup = Setup::standard(Shape::STANDARD);
        let report = run(Variant::Full, &setup, Limits::depth(4), 4, false, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        // The four opening moves are symmetric: all score the same.
        assert_eq!(lines.len(), 4, "{text}");
        assert!(
            lines[0].starts_with("1. ") && lines[3].starts_with("4. "),
            "{text}"
        );
        assert!(report.ranked.windows(2).all(|w| w[0].score == w[1].score));
        let mut json = Vec::new();
        run(Variant::Full, &setup, Limits::depth(2), 2, true, &mut json).unwrap();
        let json = String::from_utf8(json).unwrap();
        assert!(
            json.lines()
                .all(|l| l.starts_with("{\"rank\":") && l.contains("\"pv\":[\"")),
            "{json}"
        );
    }

    #[test]
    fn scores_read_as_discs() {
        assert_eq!(score_text(600, true), "+6");
        assert_eq!(score_text(-125, false), "-1.25");
    }
}
