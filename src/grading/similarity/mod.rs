//! Which submissions' code is suspiciously alike, as MOSS finds it: each program becomes a
//! sequence of normalised tokens ([`tokens`]: names, layout and comments do not count),
//! every run of [`Options::k`] tokens is hashed, and winnowing keeps the smallest hash of
//! every window of [`Options::window`] runs as the program's fingerprints. Two programs
//! that share a passage of at least `k + window - 1` tokens share a fingerprint of it,
//! wherever it sits in either (functions reordered or not). Fingerprints of the starter
//! code, and those most of the class shares (what the task makes everyone write), do not
//! count. A pair's similarity is the share of the smaller program's fingerprints found in
//! the other; the pairs are ranked by it, each with the passages they share.
//!
//! Nothing here reads files or prints: the caller gives the sources.

pub mod tokens;

use std::collections::{BTreeMap, HashMap, HashSet};

use tokens::{Syntax, Token, tokenize};

/// A source file of a submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// Its path in the submission (`src/main.py`).
    pub path: String,
    /// Its text.
    pub text: String,
}

/// A submission's source code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The submission's name.
    pub name: String,
    /// Its source files (those [`Syntax::of`] reads), in path order.
    pub files: Vec<SourceFile>,
    /// Its other files, each with why it is not compared (for the report).
    pub skipped: Vec<String>,
}

/// How alike counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Tokens in a hashed run (the shortest passage that can count is this long).
    pub k: usize,
    /// Runs in a winnowing window: a shared passage of `k + window - 1` tokens is always
    /// found.
    pub window: usize,
    /// A fingerprint found in more than this share of the submissions (and in more than
    /// [`Options::common_least`]) is what everyone writes: it does not count.
    pub common: f64,
    /// The fewest submissions a fingerprint must be in to be common (so that a group
    /// that copied from one another is never common in a small class).
    pub common_least: usize,
    /// Pairs at least this alike are listed.
    pub listed: f64,
    /// Pairs at least this alike are flagged as suspicious.
    pub flagged: f64,
}

impl Default for Options {
    /// Runs of 12 tokens, windows of 8 (passages of 19 tokens, a couple of lines, always
    /// found), fingerprints in more than half the class (and more than 10 submissions)
    /// ignored, as MOSS ignores them, pairs from 20 % listed
    /// and from 50 % flagged (measured on the test class: see docs/grading.md).
    fn default() -> Options {
        Options {
            k: 12,
            window: 8,
            common: 0.5,
            common_least: 10,
            listed: 0.2,
            flagged: 0.5,
        }
    }
}

/// Lines of a file: `first..=last`, 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lines {
    /// The file's index in its submission's [`Source::files`].
    pub file: usize,
    /// The first line.
    pub first: u32,
    /// The last line.
    pub last: u32,
}

/// A passage two submissions share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Passage {
    /// Where it is in the first.
    pub a: Lines,
    /// Where it is in the second.
    pub b: Lines,
    /// Its length in tokens (at least `k`).
    pub tokens: usize,
}

/// Two submissions and how alike they are.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    /// The first's index in the sources given.
    pub a: usize,
    /// The second's.
    pub b: usize,
    /// The share of the smaller one's fingerprints found in the other (0 to 1).
    pub similarity: f64,
    /// The share of the first's fingerprints found in the second.
    pub a_share: f64,
    /// The share of the second's found in the first.
    pub b_share: f64,
    /// Whether it is at least [`Options::flagged`] alike.
    pub flagged: bool,
    /// The passages they share, longest first.
    pub passages: Vec<Passage>,
}

/// What a comparison found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// The pairs at least [`Options::listed`] alike, most alike first.
    pub pairs: Vec<Pair>,
    /// Groups of submissions whose fingerprints are all the same (the same program, names
    /// and layout aside), each in order: listed even where the class shares so much that
    /// the pairs cannot show it.
    pub identical: Vec<Vec<usize>>,
    /// Submissions most of whose fingerprints are common (in more than
    /// [`Comparison::common_above`] submissions), which no pair counts: a mass copy.
    pub crowded: Vec<usize>,
    /// How many submissions a fingerprint must be in to be common.
    pub common_above: usize,
}

/// A program's tokens (all its files one after another) and fingerprints.
struct Prints {
    tokens: Vec<Token>,
    /// The file each token is in.
    files: Vec<usize>,
    /// Each fingerprint: its hash and the position of its run's first token.
    prints: Vec<(u64, usize)>,
}

/// The pairs of `sources` at least [`Options::listed`] alike, most alike first, with the
/// passages each shares, and what the pairs cannot show (identical programs, mass copies);
/// the code of `starter` counts in none.
pub fn compare(sources: &[Source], starter: &[SourceFile], options: &Options) -> Comparison {
    let k = options.k.max(1);
    let prints: Vec<Prints> = sources
        .iter()
        .map(|source| fingerprints(&source.files, k, options.window.max(1)))
        .collect();
    // The starter's every run, not only its fingerprints: nothing of it may count.
    let starter_runs: HashSet<u64> = {
        let starter = fingerprints(starter, k, 1);
        starter.prints.iter().map(|&(hash, _)| hash).collect()
    };
    // Which submissions have each fingerprint.
    let mut holders: HashMap<u64, Vec<usize>> = HashMap::new();
    for (index, program) in prints.iter().enumerate() {
        let distinct: HashSet<u64> = program.prints.iter().map(|&(hash, _)| hash).collect();
        for hash in distinct {
            holders.entry(hash).or_default().push(index);
        }
    }
    let most =
        (((sources.len() as f64) * options.common).floor() as usize).max(options.common_least);
    let counted =
        |hash: &u64, holders: &[usize]| holders.len() <= most && !starter_runs.contains(hash);
    let sizes: Vec<usize> = (0..sources.len())
        .map(|index| {
            holders
                .iter()
                .filter(|(hash, holders)| holders.contains(&index) && counted(hash, holders))
                .count()
        })
        .collect();
    let mut shared: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for (hash, holders) in &holders {
        if holders.len() < 2 || !counted(hash, holders) {
            continue;
        }
        for (at, &a) in holders.iter().enumerate() {
            for &b in &holders[at + 1..] {
                *shared.entry((a.min(b), a.max(b))).or_default() += 1;
            }
        }
    }
    let mut pairs: Vec<Pair> = shared
        .into_iter()
        .filter_map(|((a, b), count)| {
            let smaller = sizes[a].min(sizes[b]).max(1);
            let similarity = count as f64 / smaller as f64;
            (similarity >= options.listed).then(|| Pair {
                a,
                b,
                similarity,
                a_share: count as f64 / sizes[a].max(1) as f64,
                b_share: count as f64 / sizes[b].max(1) as f64,
                flagged: similarity >= options.flagged,
                passages: passages(&prints[a], &prints[b], k, &|hash| {
                    holders.get(&hash).is_some_and(|h| counted(&hash, h))
                }),
            })
        })
        .collect();
    pairs.sort_by(|x, y| {
        y.similarity
            .total_cmp(&x.similarity)
            .then(x.a.cmp(&y.a))
            .then(x.b.cmp(&y.b))
    });
    // The same program handed in several times, whether or not its fingerprints count.
    let mut groups: BTreeMap<Vec<u64>, Vec<usize>> = BTreeMap::new();
    for (index, program) in prints.iter().enumerate() {
        let mut set: Vec<u64> = program
            .prints
            .iter()
            .map(|&(hash, _)| hash)
            .filter(|hash| !starter_runs.contains(hash))
            .collect();
        set.sort_unstable();
        set.dedup();
        if !set.is_empty() {
            groups.entry(set).or_default().push(index);
        }
    }
    let mut identical: Vec<Vec<usize>> = groups
        .into_values()
        .filter(|group| group.len() > 1)
        .collect();
    identical.sort();
    let crowded = (0..sources.len())
        .filter(|&index| {
            let mine: Vec<&Vec<usize>> = holders
                .iter()
                .filter(|(hash, holders)| holders.contains(&index) && !starter_runs.contains(hash))
                .map(|(_, holders)| holders)
                .collect();
            let common = mine.iter().filter(|holders| holders.len() > most).count();
            !mine.is_empty() && common * 2 > mine.len()
        })
        .collect();
    Comparison {
        pairs,
        identical,
        crowded,
        common_above: most,
    }
}

/// The tokens and fingerprints of a program's files (runs never span two files).
fn fingerprints(files: &[SourceFile], k: usize, window: usize) -> Prints {
    let mut tokens = Vec::new();
    let mut file_of = Vec::new();
    let mut runs: Vec<(u64, usize)> = Vec::new();
    for (index, file) in files.iter().enumerate() {
        let Some(syntax) = Syntax::of(&file.path) else {
            continue;
        };
        let start = tokens.len();
        let file_tokens = tokenize(&file.text, syntax);
        file_of.extend(std::iter::repeat_n(index, file_tokens.len()));
        tokens.extend(file_tokens);
        for first in start..tokens.len().saturating_sub(k - 1) {
            if first + k > tokens.len() {
                break;
            }
            runs.push((run_hash(&tokens[first..first + k]), first));
        }
    }
    // Winnowing: in every window of `window` runs the smallest hash (the rightmost of
    // equals), each chosen once.
    let mut prints = Vec::new();
    let mut last: Option<usize> = None;
    for start in 0..runs.len().saturating_sub(window - 1) {
        let chosen = (start..start + window)
            .rev()
            .min_by_key(|&at| runs[at].0)
            .expect("a full window");
        if last != Some(chosen) {
            prints.push(runs[chosen]);
            last = Some(chosen);
        }
    }
    if runs.len() < window {
        // A program shorter than a window: its runs are its fingerprints.
        prints = runs;
    }
    Prints {
        tokens,
        files: file_of,
        prints,
    }
}

/// A run's hash: FNV-1a over its tokens' ids, mixed.
fn run_hash(run: &[Token]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for token in run {
        hash ^= u64::from(token.id);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash ^ (hash >> 29)
}

/// The passages `a` and `b` share: their fingerprints in common (those `counts` accepts),
/// matched in `a`'s order and joined while both go on together, as line ranges.
fn passages(a: &Prints, b: &Prints, k: usize, counts: &dyn Fn(u64) -> bool) -> Vec<Passage> {
    let mut in_b: HashMap<u64, Vec<usize>> = HashMap::new();
    for &(hash, at) in &b.prints {
        in_b.entry(hash).or_default().push(at);
    }
    // (start in a, start in b) of each shared run, in a's order.
    let mut matches: Vec<(usize, usize)> = Vec::new();
    for &(hash, at) in &a.prints {
        if !counts(hash) {
            continue;
        }
        if let Some(starts) = in_b.get(&hash) {
            // Where in b this run would be if it followed on from the last match.
            let expected = matches
                .last()
                .map_or(0, |&(a_last, b_last)| b_last + (at - a_last));
            let b_at = starts
                .iter()
                .copied()
                .min_by_key(|&start| start.abs_diff(expected))
                .expect("listed");
            matches.push((at, b_at));
        }
    }
    // Join matches that follow on in both (allowing the gap winnowing leaves).
    let mut spans: Vec<(usize, usize, usize, usize)> = Vec::new(); // a from..to, b from..to
    for (a_at, b_at) in matches {
        if let Some(last) = spans.last_mut()
            && a_at >= last.0
            && a_at <= last.1 + k
            && b_at >= last.2
            && b_at <= last.3 + k
            && a.files[a_at] == a.files[last.1 - 1]
            && b.files[b_at] == b.files[last.3 - 1]
        {
            last.1 = last.1.max(a_at + k);
            last.3 = last.3.max(b_at + k);
            continue;
        }
        spans.push((a_at, a_at + k, b_at, b_at + k));
    }
    let lines = |prints: &Prints, from: usize, to: usize| Lines {
        file: prints.files[from],
        first: prints.tokens[from].line,
        last: prints.tokens[to - 1].line,
    };
    let mut found: Vec<Passage> = spans
        .into_iter()
        .map(|(a_from, a_to, b_from, b_to)| Passage {
            a: lines(a, a_from, a_to),
            b: lines(b, b_from, b_to),
            tokens: (a_to - a_from).min(b_to - b_from),
        })
        .collect();
    found.sort_by(|x, y| y.tokens.cmp(&x.tokens).then(x.a.first.cmp(&y.a.first)));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(name: &str, text: &str) -> Source {
        Source {
            name: name.to_owned(),
            files: vec![SourceFile {
                path: "main.py".to_owned(),
                text: text.to_owned(),
            }],
            skipped: Vec::new(),
        }
    }

    const ORIGINAL: &str = "
def flips(board, rows, cols, r, c, me):
    them = 'W' if me == 'B' else 'B'
    turned = []
    for dr, dc in [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]:
        rr, cc = r + dr, c + dc
        run = []
        while 0 <= rr < rows and 0 <= cc < cols and board[rr][cc] == them:
            run.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        if run and 0 <= rr < rows and 0 <= cc < cols and board[rr][cc] == me:
            turned.extend(run)
    return turned

def count(board):
    black = sum(row.count('B') for row in board)
    white = sum(row.count('W') for row in board)
    print(f'B: {black}  W: {white}')
    for row in board:
        print(' '.join(row))
";

    #[test]
    fn a_renamed_and_reordered_copy_is_found_and_other_code_is_not() {
        let renamed = ORIGINAL
            .replace("flips", "captured")
            .replace("board", "grid")
            .replace("turned", "result")
            .replace("run", "line");
        let (first, second) = renamed.split_at(renamed.find("def count").unwrap());
        let reordered = format!("# my own work\n{second}\n\n{first}");
        let other = "
import sys
def main():
    data = sys.stdin.read().split()
    total = 0
    for word in data:
        if word.isdigit():
            total += int(word)
        else:
            print('skip', word)
    print(total)
main()
";
        let sources = [
            source("original", ORIGINAL),
            source("copy", &reordered),
            source("other", other),
        ];
        let found = compare(&sources, &[], &Options::default());
        let pairs = &found.pairs;
        assert_eq!(pairs.len(), 1, "{pairs:?}");
        // Reordered, the copy's fingerprints are not all the same: no identical group.
        assert!(found.identical.is_empty(), "{:?}", found.identical);
        let pair = &pairs[0];
        assert_eq!((pair.a, pair.b), (0, 1));
        assert!(pair.similarity > 0.9 && pair.flagged, "{pair:?}");
        assert!(!pair.passages.is_empty());
        // Given as starter code, the same text counts for nothing.
        let starter = [SourceFile {
            path: "starter.py".to_owned(),
            text: ORIGINAL.to_owned(),
        }];
        assert!(
            compare(&sources, &starter, &Options::default())
                .pairs
                .is_empty()
        );
    }

    #[test]
    fn a_mass_copy_is_shown_though_no_pair_counts_it() {
        let mut sources: Vec<Source> = (0..12)
            .map(|index| source(&format!("copy-{index}"), ORIGINAL))
            .collect();
        sources.push(source(
            "own",
            "print('my own')\nx = [1, 2, 3]\nprint(sum(x) * 2)\n",
        ));
        let found = compare(&sources, &[], &Options::default());
        // Twelve hold every fingerprint: more than 10 and half the class, so common.
        assert!(found.pairs.is_empty(), "{:?}", found.pairs);
        assert_eq!(found.identical, [(0..12).collect::<Vec<_>>()]);
        assert_eq!(found.crowded, (0..12).collect::<Vec<_>>());
        assert_eq!(found.common_above, 10);
    }
}
