//! Inputs that test a program's exit status rather than its game: a header or board that
//! breaks one of the spec's stated rules (status 2), and a game whose input ends before it
//! is over (status 3). Each is made from a scenario's input, and each is something every
//! reading of the spec refuses: the spec states both statuses.

use rand::{RngExt, rngs::StdRng};

/// How a header or board breaks the spec, one per kind of mistake.
const BREAKS: usize = 8;

/// `input` (a scenario's: four header lines, the board, moves) with one header or board
/// line broken: an odd or out-of-range size, a size that is not a number, a first mover or
/// win rule that is neither, a board cell that is none, a short board row, or the input
/// ending inside the board.
pub fn malformed(input: &str, rng: &mut StdRng) -> String {
    let mut lines: Vec<String> = input.lines().map(str::to_owned).collect();
    let rows: usize = lines[0].trim().parse().expect("a scenario's own header");
    let board = 4..4 + rows;
    let row = rng.random_range(board.clone());
    match rng.random_range(0..BREAKS) {
        0 => {
            // An odd size, still in range.
            let side: usize = lines[1].trim().parse().expect("a scenario's own header");
            lines[1] = if side < 16 { side + 1 } else { side - 1 }.to_string();
        }
        1 => lines[0] = ["2", "18", "0", "-4"][rng.random_range(0..4)].to_owned(),
        2 => lines[1] = ["eight", "8.5", "8x8"][rng.random_range(0..3)].to_owned(),
        3 => lines[2] = ["X", "BW", "black"][rng.random_range(0..3)].to_owned(),
        4 => lines[3] = ["=", "><", "most"][rng.random_range(0..3)].to_owned(),
        5 => {
            let mut cells: Vec<&str> = lines[row].split(' ').collect();
            let at = rng.random_range(0..cells.len());
            cells[at] = ["X", "0", "b", "BW"][rng.random_range(0..4)];
            lines[row] = cells.join(" ");
        }
        6 => {
            let mut cells: Vec<&str> = lines[row].split(' ').collect();
            cells.pop();
            lines[row] = cells.join(" ");
        }
        _ => lines.truncate(row),
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// `input` (a scenario's that plays at least one move) cut after the board and some of
/// its move lines, never the last: the game is not over when the input ends.
pub fn cut_short(input: &str, rng: &mut StdRng) -> String {
    let lines: Vec<&str> = input.lines().collect();
    let rows: usize = lines[0].trim().parse().expect("a scenario's own header");
    let setup = 4 + rows;
    let moves = lines.len() - setup;
    let kept = setup + rng.random_range(0..moves.max(1));
    let mut text = lines[..kept].join("\n");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::{
        Variant,
        grading::scenario::{GenOptions, ScenarioKind, expected_output, generate},
    };

    #[test]
    fn broken_headers_end_with_status_2_and_cut_games_with_3() {
        for variant in Variant::ALL {
            let options = GenOptions {
                variant,
                kinds: vec![ScenarioKind::Standard],
                sizes: crate::grading::scenario::parse_sizes("4x4,16x16,6x12").unwrap(),
                ..GenOptions::default()
            };
            for index in 0..200 {
                let input = generate(&options, index).input;
                let mut rng = StdRng::seed_from_u64(index);
                let broken = malformed(&input, &mut rng);
                let (output, status) = expected_output(variant, broken.as_bytes());
                assert_eq!(status, 2, "{broken}");
                let rules_line = format!("{}\n", variant.name().to_uppercase());
                assert_eq!(output, rules_line.into_bytes());
                let cut = cut_short(&input, &mut rng);
                assert_eq!(expected_output(variant, cut.as_bytes()).1, 3, "{cut}");
            }
        }
    }
}
