use std::collections::HashSet;

use super::{plans::*, *};
use crate::{AnyGame, Board, Color, Full, Simple};

/// Sizes the kind tests run on: the smallest, a rectangle each way, the standard, the largest.
const SIZES: [(u8, u8); 5] = [(4, 4), (4, 10), (12, 6), (8, 8), (16, 16)];

/// Seeds per kind, size and rule set.
const SEEDS: u64 = 20;

fn shape(rows: u8, columns: u8) -> Shape {
    Shape::new(rows, columns).unwrap()
}

fn options(variant: Variant, kind: ScenarioKind, size: Shape, seed: u64) -> GenOptions {
    GenOptions {
        variant,
        sizes: vec![size],
        kinds: vec![kind],
        invalid_rate: 0.2,
        truncate: true,
        seed,
        edge_cases: false,
    }
}

/// The `VALID` and `INVALID` lines of an output, in order.
fn responses(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter(|line| matches!(*line, "VALID" | "INVALID"))
        .collect()
}

/// The colours named by the output's `TURN:` lines, in order.
fn turns(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter_map(|line| line.strip_prefix("TURN: "))
        .collect()
}

/// Whether the side to move at the start of `setup` is not the one named first.
fn first_mover_passes(variant: Variant, setup: Setup) -> bool {
    fn passes<R: RuleSet>(setup: Setup) -> bool {
        Game::<R>::new(setup).side_to_move() == Some(setup.first_mover.opponent())
    }
    crate::on_rules!(variant, |R| passes::<R>(setup))
}

/// Generates a scenario, runs the reference on it and checks what every scenario promises
/// and what its kind promises; returns the reference output.
fn check(options: &GenOptions, index: u64) -> String {
    let (scenario, roles) = build(options, index);
    let context = format!("{options:?} index {index}:\n{}", scenario.input);
    let (output, status) = expected_output(options.variant, scenario.input.as_bytes());
    let output = String::from_utf8(output).unwrap();
    let setup_text = scenario.setup.to_string();
    assert!(scenario.input.starts_with(&setup_text), "{context}");
    assert!(scenario.input.ends_with('\n'), "{context}");
    assert!(options.sizes.contains(&scenario.setup.board.shape()));

    // Every line gets the answer its role promises: each invalid line INVALID.
    let expected: Vec<&str> = roles
        .iter()
        .map(|role| match role {
            LineRole::Move => "VALID",
            LineRole::Invalid(_) => "INVALID",
        })
        .collect();
    assert_eq!(responses(&output), expected, "{context}\n{output}");
    assert_eq!(
        scenario.input[setup_text.len()..].matches('\n').count(),
        roles.len(),
        "{context}"
    );

    let last = output.lines().last().unwrap();
    if scenario.complete {
        assert_eq!(status, 0, "{context}\n{output}");
        assert!(last.starts_with("WINNER: "), "{context}\n{output}");
    } else {
        assert!(options.truncate && scenario.kind.can_truncate());
        assert_eq!(status, 3, "{context}\n{output}");
    }

    let setup = scenario.setup;
    let shape = setup.board.shape();
    match scenario.kind {
        ScenarioKind::Standard => assert_eq!(setup.board, Board::standard(shape)),
        ScenarioKind::Random => {}
        ScenarioKind::StuckFirst => {
            assert!(first_mover_passes(options.variant, setup), "{context}");
            let first = turns(&output)[0];
            assert_eq!(first, setup.first_mover.opponent().to_string(), "{context}");
        }
        ScenarioKind::OverAtStart => {
            assert_eq!(scenario.input, setup_text);
            let state_lines = 1 + 1 + usize::from(shape.rows());
            let lines: Vec<&str> = output.lines().collect();
            assert_eq!(lines.len(), state_lines + 1, "{context}\n{output}");
            assert!(lines[state_lines].starts_with("WINNER: "), "{output}");
            assert!(scenario.complete);
        }
        ScenarioKind::Passes => {
            let turns = turns(&output);
            assert!(
                turns.windows(2).any(|pair| pair[0] == pair[1]),
                "no pass between moves: {context}\n{output}"
            );
        }
        ScenarioKind::NearlyFull => {
            let empty = setup.board.empty_squares().count();
            assert!((1..=6).contains(&empty), "{context}");
        }
        ScenarioKind::Tie => {
            assert!(scenario.complete);
            assert!(output.ends_with("WINNER: NONE\n"), "{context}\n{output}");
            assert!(
                output.contains("\nVALID\n"),
                "a tie with no move: {context}"
            );
        }
    }
    output
}

#[test]
fn every_kind_keeps_its_promise_on_every_size_under_both_rule_sets() {
    let mut truncated = 0;
    let mut scenarios = 0;
    for variant in Variant::ALL {
        for kind in ScenarioKind::ALL {
            for (rows, columns) in SIZES {
                for index in 0..SEEDS {
                    // A seed of its own for every combination, so that truncation (decided by
                    // the seed and index alone) varies across them.
                    let seed = scenarios as u64;
                    let options = options(variant, kind, shape(rows, columns), seed);
                    check(&options, index);
                    scenarios += 1;
                    truncated += usize::from(!generate(&options, index).complete);
                }
            }
        }
    }
    // One in four of the five kinds that may be truncated.
    let expected = scenarios * 5 / 7 / 4;
    assert!(
        (expected * 2 / 3..expected * 4 / 3).contains(&truncated),
        "{truncated} of {scenarios} truncated"
    );
}

#[test]
fn a_mixed_run_keeps_every_promise_and_uses_both_win_rules() {
    for variant in Variant::ALL {
        let options = GenOptions {
            variant,
            sizes: parse_all_sizes(),
            kinds: ScenarioKind::ALL.to_vec(),
            invalid_rate: 0.1,
            truncate: false,
            seed: 42,
            edge_cases: false,
        };
        let mut win_rules = HashSet::new();
        let mut kinds = Vec::new();
        for index in 0..70 {
            check(&options, index);
            let scenario = generate(&options, index);
            assert!(scenario.complete);
            win_rules.insert(scenario.setup.win_rule);
            kinds.push(scenario.kind);
        }
        assert_eq!(win_rules.len(), 2);
        // The kinds come in rotation.
        assert_eq!(kinds[..7], ScenarioKind::ALL);
        assert_eq!(kinds[63..], ScenarioKind::ALL);
    }
}

fn parse_all_sizes() -> Vec<Shape> {
    let sides = (4..=16).step_by(2);
    sides
        .clone()
        .flat_map(|rows| sides.clone().map(move |columns| shape(rows, columns)))
        .collect()
}

#[test]
fn every_kind_of_invalid_line_occurs_and_is_refused() {
    let mut seen = HashSet::new();
    for variant in Variant::ALL {
        let options = GenOptions {
            variant,
            sizes: vec![shape(6, 6), shape(8, 8), shape(10, 16)],
            invalid_rate: 0.5,
            truncate: true,
            seed: 3,
            edge_cases: true,
            ..GenOptions::default()
        };
        for index in 0..60 {
            check(&options, index);
            for role in build(&options, index).1 {
                if let LineRole::Invalid(kind) = role {
                    seen.insert(kind);
                }
            }
        }
    }
    for kind in InvalidKind::ALL {
        assert!(seen.contains(&kind), "{kind:?} never generated");
    }
}

#[test]
fn no_invalid_lines_at_rate_zero_and_bounded_runs_at_rate_one() {
    let mut options = GenOptions {
        invalid_rate: 0.0,
        ..GenOptions::default()
    };
    for index in 0..14 {
        let (_, roles) = build(&options, index);
        assert!(roles.iter().all(|role| *role == LineRole::Move));
    }
    options.invalid_rate = 1.0;
    for index in 0..7 {
        check(&options, index);
        let (_, roles) = build(&options, index);
        let moves = roles.iter().filter(|role| **role == LineRole::Move).count();
        assert_eq!(roles.len(), moves * (MAX_INVALID_RUN + 1));
    }
}

#[test]
fn generation_is_deterministic_and_depends_on_the_seed() {
    let options = GenOptions {
        sizes: vec![shape(4, 4), shape(8, 8), shape(16, 10)],
        truncate: true,
        ..GenOptions::default()
    };
    let run = |options: &GenOptions| (0..21).map(|i| generate(options, i)).collect::<Vec<_>>();
    let first = run(&options);
    assert_eq!(first, run(&options));
    // Index by index, not only in order: scenario 5 alone is scenario 5 of the run.
    assert_eq!(generate(&options, 5), first[5]);
    let other = run(&GenOptions {
        seed: 2,
        ..options.clone()
    });
    let differ = first.iter().zip(&other).filter(|(a, b)| a != b).count();
    assert!(differ >= 18, "only {differ} of 21 scenarios differ");
    // The invalid rate does not change the games.
    let quiet = run(&GenOptions {
        invalid_rate: 0.0,
        ..options.clone()
    });
    for (noisy, quiet) in first.iter().zip(&quiet) {
        assert_eq!(noisy.setup, quiet.setup);
        assert_eq!(noisy.complete, quiet.complete);
    }
}

/// The guaranteed constructions, on every even size and both rule sets.
#[test]
fn the_fallback_constructions_work_on_every_size() {
    fn check_rules<R: RuleSet>(shape: Shape, seed: u64) {
        let mut rng = StdRng::seed_from_u64(seed);
        let (board, first) = stuck_construction(shape, &mut rng);
        assert!(!R::can_move(&board, first) && R::can_move(&board, first.opponent()));
        let game = pass_construction::<R>(shape, &mut rng);
        assert_eq!(first_pass(&game), Some(1), "{shape}");
        let game = tie_construction::<R>(shape, &mut rng);
        assert!(game.is_over());
        assert_eq!(
            game.count(Color::Black),
            game.count(Color::White),
            "{shape}"
        );
        assert_eq!(game.history().len(), 1);
    }
    for shape in parse_all_sizes() {
        for seed in 0..4 {
            check_rules::<Full>(shape, seed);
            check_rules::<Simple>(shape, seed);
        }
    }
}

#[test]
fn kind_names_round_trip() {
    for kind in ScenarioKind::ALL {
        assert_eq!(kind.name().parse(), Ok(kind));
        assert_eq!(kind.to_string(), kind.name());
    }
    assert_eq!("Stuck-First".parse(), Ok(ScenarioKind::StuckFirst));
    assert_eq!(
        "draw".parse::<ScenarioKind>().unwrap_err().to_string(),
        "scenario kind must be one of standard, random, stuck-first, over-at-start, passes, \
         nearly-full, tie, found \"draw\""
    );
}

#[test]
#[should_panic(expected = "only even board sizes, not 5x8")]
fn odd_sizes_are_refused() {
    let options = GenOptions {
        sizes: vec![shape(5, 8)],
        ..GenOptions::default()
    };
    generate(&options, 0);
}

/// How plain student programs read a move line, each as lenient as its language's usual
/// calls are: the row and column they would try, or `None` where they would refuse it.
mod readers {
    /// Python: `r, c = line.split()` then `int()` (which takes signs, surrounding
    /// whitespace, underscores between digits and any Unicode decimal digits).
    pub fn python(line: &str) -> Option<(i64, i64)> {
        let is_space = |c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c);
        let tokens: Vec<&str> = line.split(is_space).filter(|t| !t.is_empty()).collect();
        let [row, column] = tokens[..] else {
            return None;
        };
        let int = |token: &str| -> Option<i64> {
            let (sign, digits) = match token.strip_prefix(['+', '-']) {
                Some(rest) => (if token.starts_with('-') { -1 } else { 1 }, rest),
                None => (1, token),
            };
            let digits: String = digits.chars().filter(|&c| c != '_').collect();
            if digits.is_empty() || !digits.chars().all(char::is_numeric) {
                return None;
            }
            let ascii: String = digits
                .chars()
                .map(|c| c.to_digit(10).map_or('0', |d| char::from(b'0' + d as u8)))
                .collect();
            ascii.parse::<i64>().ok().map(|value| sign * value)
        };
        Some((int(row)?, int(column)?))
    }

    /// Java: `line.trim().split(" ")` with exactly two parts, then `Integer.parseInt` (a
    /// sign, then digits of any script, within 32 bits).
    pub fn java(line: &str) -> Option<(i64, i64)> {
        let trimmed = line.trim_matches(|c: char| c <= ' ');
        let parts: Vec<&str> = trimmed.split(' ').collect();
        let [row, column] = parts[..] else {
            return None;
        };
        let parse_int = |token: &str| -> Option<i64> {
            let digits = token.strip_prefix(['+', '-']).unwrap_or(token);
            if digits.is_empty() || !digits.chars().all(char::is_numeric) {
                return None;
            }
            let ascii: String = token
                .chars()
                .map(|c| c.to_digit(10).map_or(c, |d| char::from(b'0' + d as u8)))
                .collect();
            ascii.parse::<i32>().ok().map(i64::from)
        };
        Some((parse_int(row)?, parse_int(column)?))
    }

    /// C++: `std::istringstream in(line); in >> row >> column;` both must succeed and
    /// nothing but whitespace may follow (`in >> std::ws; in.eof()`).
    pub fn cpp(line: &str) -> Option<(i64, i64)> {
        let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r');
        let bytes = line.as_bytes();
        let mut at = 0;
        let number = |at: &mut usize| -> Option<i64> {
            while *at < bytes.len() && is_space(bytes[*at]) {
                *at += 1;
            }
            let start = *at;
            if *at < bytes.len() && matches!(bytes[*at], b'+' | b'-') {
                *at += 1;
            }
            let digits = *at;
            while *at < bytes.len() && bytes[*at].is_ascii_digit() {
                *at += 1;
            }
            if *at == digits {
                return None;
            }
            line[start..*at].parse::<i32>().ok().map(i64::from)
        };
        let row = number(&mut at)?;
        let column = number(&mut at)?;
        bytes[at..]
            .iter()
            .all(|&b| is_space(b))
            .then_some((row, column))
    }
}

#[test]
fn default_lines_mean_the_same_to_every_plain_reading_of_the_spec() {
    for variant in Variant::ALL {
        let options = GenOptions {
            variant,
            sizes: parse_all_sizes(),
            invalid_rate: 0.5,
            truncate: true,
            seed: 11,
            ..GenOptions::default()
        };
        for index in 0..80 {
            let (scenario, roles) = build(&options, index);
            let rows = usize::from(scenario.setup.board.shape().rows());
            let lines: Vec<&str> = scenario.input.lines().skip(4 + rows).collect();
            assert_eq!(lines.len(), roles.len());
            let mut game = AnyGame::new(variant, scenario.setup);
            for (line, role) in lines.iter().zip(&roles) {
                for (name, reader) in [
                    ("python", readers::python as fn(&str) -> Option<(i64, i64)>),
                    ("java", readers::java),
                    ("c++", readers::cpp),
                ] {
                    let read = reader(line).and_then(|(row, column)| {
                        let row = usize::try_from(row.checked_sub(1)?).ok()?;
                        let column = usize::try_from(column.checked_sub(1)?).ok()?;
                        scenario.setup.board.shape().square(row, column)
                    });
                    let accepted = read.is_some_and(|square| game.is_legal(square));
                    assert_eq!(
                        accepted,
                        *role == LineRole::Move,
                        "{name} reads {line:?} ({role:?}) differently"
                    );
                }
                if let Some(square) = readers::python(line)
                    .filter(|_| *role == LineRole::Move)
                    .and_then(|(row, column)| {
                        scenario
                            .setup
                            .board
                            .shape()
                            .square(row as usize - 1, column as usize - 1)
                    })
                {
                    game.play(square).unwrap();
                }
            }
        }
    }
}

#[test]
fn edge_cases_come_only_when_asked_for() {
    let mut options = GenOptions {
        sizes: parse_all_sizes(),
        invalid_rate: 0.6,
        ..GenOptions::default()
    };
    let kinds = |options: &GenOptions| -> HashSet<InvalidKind> {
        (0..60)
            .flat_map(|index| build(options, index).1)
            .filter_map(|role| match role {
                LineRole::Invalid(kind) => Some(kind),
                LineRole::Move => None,
            })
            .collect()
    };
    assert!(!kinds(&options).iter().any(|kind| kind.is_edge_case()));
    options.edge_cases = true;
    let with = kinds(&options);
    assert!(with.contains(&InvalidKind::Overlong));
    assert!(with.contains(&InvalidKind::UnicodeDigits));
    assert!(with.contains(&InvalidKind::UnusualWhitespace));
    // Some legal moves are written other than "row column", and the reference takes them.
    let padded = (0..20).any(|index| {
        let (scenario, roles) = build(&options, index);
        let rows = usize::from(scenario.setup.board.shape().rows());
        let lines = scenario.input.lines().skip(4 + rows);
        lines.zip(roles).any(|(line, role)| {
            let canonical = line
                .split(' ')
                .all(|number| number.parse::<u8>().is_ok_and(|n| n.to_string() == number));
            role == LineRole::Move && !canonical
        })
    });
    assert!(padded, "some legal moves are padded");
    for index in 0..20 {
        check(&options, index);
    }
}

#[test]
fn sizes() {
    let all = parse_sizes("ALL").unwrap();
    assert_eq!(all.len(), 49);
    assert!(
        all.iter()
            .all(|s| s.rows() % 2 == 0 && s.columns() % 2 == 0)
    );
    assert_eq!(all[0], Shape::new(4, 4).unwrap());
    assert_eq!(all[48], Shape::new(16, 16).unwrap());
    assert_eq!(parse_sizes("8x8").unwrap(), [Shape::new(8, 8).unwrap()]);
    let message = |text: &str| parse_sizes(text).unwrap_err().to_string();
    assert_eq!(
        message("4x6,9x8"),
        "board size 9x8 has an odd side: the grader accepts only even sizes from 4 to 16"
    );
    assert_eq!(
        message("18x8"),
        "a board needs 4 to 16 rows and 4 to 16 columns, not 18x8"
    );
    assert!(message("8").contains("8x8 or 6x10"));
    assert!(message("8x8,").contains("or all"));
    assert!(parse_sizes("").is_err());
}

#[test]
fn kinds() {
    assert_eq!(
        parse_kinds("standard, nearly-full").unwrap(),
        [ScenarioKind::Standard, ScenarioKind::NearlyFull]
    );
    assert!(
        parse_kinds("tie,draw")
            .unwrap_err()
            .to_string()
            .contains("found \"draw\"")
    );
    assert!(parse_kinds("").is_err());
}
