//! A deliberately naive grader, written straight from the protocol text with a grid of
//! characters and no shared code, to check the real one against on random sessions. It
//! handles well-formed headers and boards only; move lines may be anything.

#![allow(dead_code)]

/// A board as rows of `'B'`, `'W'` and `'.'`.
pub type Grid = Vec<Vec<char>>;

const DIRECTIONS: [(i32, i32); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

fn other(side: char) -> char {
    if side == 'B' { 'W' } else { 'B' }
}

/// The cells `side` turns over by playing at (`r`, `c`), empty if the move is illegal.
pub fn flips(grid: &Grid, simple: bool, side: char, r: usize, c: usize) -> Vec<(usize, usize)> {
    if grid[r][c] != '.' {
        return Vec::new();
    }
    let (rows, cols) = (grid.len() as i32, grid[0].len() as i32);
    let inside = |r: i32, c: i32| r >= 0 && c >= 0 && r < rows && c < cols;
    let mut result = Vec::new();
    for (dr, dc) in DIRECTIONS {
        let (mut rr, mut cc) = (r as i32 + dr, c as i32 + dc);
        if simple {
            if inside(rr, cc) && grid[rr as usize][cc as usize] == other(side) {
                result.push((rr as usize, cc as usize));
            }
            continue;
        }
        let mut run = Vec::new();
        while inside(rr, cc) && grid[rr as usize][cc as usize] == other(side) {
            run.push((rr as usize, cc as usize));
            rr += dr;
            cc += dc;
        }
        if !run.is_empty() && inside(rr, cc) && grid[rr as usize][cc as usize] == side {
            result.extend(run);
        }
    }
    result
}

/// Every legal move of `side`, in reading order.
pub fn legal_moves(grid: &Grid, simple: bool, side: char) -> Vec<(usize, usize)> {
    let mut moves = Vec::new();
    for r in 0..grid.len() {
        for c in 0..grid[0].len() {
            if !flips(grid, simple, side, r, c).is_empty() {
                moves.push((r, c));
            }
        }
    }
    moves
}

/// Who moves after `mover` has moved (or, before the first move, with `mover` the one named
/// first and `first` set); `None` when the game is over.
pub fn next_turn(grid: &Grid, simple: bool, mover: char, first: bool) -> Option<char> {
    let preferred = if first { mover } else { other(mover) };
    [preferred, other(preferred)]
        .into_iter()
        .find(|&side| !legal_moves(grid, simple, side).is_empty())
}

fn state(out: &mut String, grid: &Grid) {
    let count = |ch| grid.iter().flatten().filter(|&&x| x == ch).count();
    out.push_str(&format!("B: {}  W: {}\n", count('B'), count('W')));
    for row in grid {
        let cells: Vec<String> = row.iter().map(|c| c.to_string()).collect();
        out.push_str(&cells.join(" "));
        out.push('\n');
    }
}

fn parse_number(token: &str) -> Option<i64> {
    let digits = token.strip_prefix(['+', '-']).unwrap_or(token);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if digits.trim_start_matches('0').len() > 6 {
        return Some(i64::MAX); // far out of range, whatever the sign
    }
    let value: i64 = digits.parse().ok()?;
    Some(if token.starts_with('-') {
        -value
    } else {
        value
    })
}

/// The move a line names, if it is two in-range integers.
fn parse_move(line: &[u8], rows: usize, cols: usize) -> Option<(usize, usize)> {
    let mut line = line;
    if line.len() > 4096 {
        return None;
    }
    if line.ends_with(b"\r") {
        line = &line[..line.len() - 1];
    }
    let text = std::str::from_utf8(line).ok()?;
    let tokens: Vec<&str> = text
        .trim_matches(|c: char| c.is_ascii_whitespace())
        .split([' ', '\t'])
        .filter(|t| !t.is_empty())
        .collect();
    let [r, c] = tokens[..] else { return None };
    let (r, c) = (parse_number(r)?, parse_number(c)?);
    if r < 1 || c < 1 || r > rows as i64 || c > cols as i64 {
        return None;
    }
    Some((r as usize - 1, c as usize - 1))
}

/// Runs a whole session: the stdout it prints and its exit status (0 or 3).
pub fn run(input: &[u8], simple: bool) -> (String, u8) {
    let mut lines = input.split(|&b| b == b'\n');
    let text = |lines: &mut dyn Iterator<Item = &[u8]>| {
        String::from_utf8(lines.next().unwrap().to_vec())
            .unwrap()
            .trim()
            .to_string()
    };
    let rows: usize = text(&mut lines).parse().unwrap();
    let cols: usize = text(&mut lines).parse().unwrap();
    let first = text(&mut lines).chars().next().unwrap();
    let fewest_wins = text(&mut lines) == "<";
    let mut grid: Grid = (0..rows)
        .map(|_| {
            text(&mut lines)
                .split_whitespace()
                .map(|c| c.chars().next().unwrap())
                .collect()
        })
        .collect();
    let mut out = String::from(if simple { "SIMPLE\n" } else { "FULL\n" });
    // An input ending in "\n" leaves one empty piece after the last line: not a line.
    let mut moves: Vec<&[u8]> = lines.collect();
    if moves.last() == Some(&&b""[..]) {
        moves.pop();
    }
    let mut moves = moves.into_iter();
    let mut turn = next_turn(&grid, simple, first, true);
    loop {
        state(&mut out, &grid);
        let Some(side) = turn else {
            let count = |ch| grid.iter().flatten().filter(|&&x| x == ch).count();
            let (b, w) = (count('B'), count('W'));
            let winner = if b == w {
                "NONE"
            } else if (b > w) != fewest_wins {
                "B"
            } else {
                "W"
            };
            out.push_str(&format!("WINNER: {winner}\n"));
            return (out, 0);
        };
        out.push_str(&format!("TURN: {side}\n"));
        loop {
            let Some(line) = moves.next() else {
                return (out, 3);
            };
            let flipped = parse_move(line, rows, cols)
                .map(|(r, c)| ((r, c), flips(&grid, simple, side, r, c)))
                .filter(|(_, f)| !f.is_empty());
            if let Some(((r, c), flipped)) = flipped {
                out.push_str("VALID\n");
                grid[r][c] = side;
                for (fr, fc) in flipped {
                    grid[fr][fc] = side;
                }
                turn = next_turn(&grid, simple, side, false);
                break;
            }
            out.push_str("INVALID\n");
        }
    }
}
