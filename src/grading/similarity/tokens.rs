//! Source code as a sequence of normalised tokens: comments and layout dropped, every
//! identifier that is not a keyword the same token, every number, string and character
//! literal one token each. Renaming variables, reformatting or rewording comments then
//! changes nothing; what is left is the program's shape.

/// How a file's comments and strings are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// `#` comments, `'`/`"`/triple-quoted strings (Python).
    Hash,
    /// `//` and `/* */` comments, `"` strings, `'` characters (C, C++, Java, JavaScript...).
    CLike,
}

impl Syntax {
    /// The syntax of a file by its name, if it is source code the report reads.
    pub fn of(path: &str) -> Option<Syntax> {
        let extension = path.rsplit_once('.')?.1.to_ascii_lowercase();
        match extension.as_str() {
            "py" => Some(Syntax::Hash),
            "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "java" | "js" | "ts" | "cs"
            | "go" | "rs" | "kt" | "scala" | "swift" => Some(Syntax::CLike),
            _ => None,
        }
    }
}

/// A token: its normalised text's id, and the line it starts on (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// The same for the same normalised text.
    pub id: u32,
    /// Its line.
    pub line: u32,
}

/// Words kept as themselves: the keywords of the languages read (and a few names every
/// program uses the same way), so that `if` and `while` still tell shapes apart.
const KEYWORDS: &[&str] = &[
    "and",
    "as",
    "assert",
    "async",
    "await",
    "bool",
    "boolean",
    "break",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "def",
    "default",
    "del",
    "do",
    "double",
    "elif",
    "else",
    "enum",
    "except",
    "extends",
    "False",
    "false",
    "final",
    "finally",
    "float",
    "for",
    "from",
    "func",
    "function",
    "global",
    "if",
    "implements",
    "import",
    "in",
    "int",
    "is",
    "lambda",
    "let",
    "long",
    "new",
    "None",
    "nonlocal",
    "not",
    "null",
    "or",
    "package",
    "pass",
    "private",
    "protected",
    "public",
    "raise",
    "return",
    "short",
    "static",
    "struct",
    "super",
    "switch",
    "this",
    "throw",
    "throws",
    "True",
    "true",
    "try",
    "typedef",
    "unsigned",
    "var",
    "void",
    "while",
    "with",
    "yield",
    "fn",
    "mut",
    "impl",
    "match",
    "use",
    "mod",
    "pub",
    "loop",
    "sizeof",
    "include",
    "define",
];

/// The tokens of `text`.
pub fn tokenize(text: &str, syntax: Syntax) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut line: u32 = 1;
    let mut at = 0;
    let push = |tokens: &mut Vec<Token>, word: &str, line: u32| {
        tokens.push(Token {
            id: id_of(word),
            line,
        });
    };
    while at < bytes.len() {
        let byte = bytes[at];
        let rest = &bytes[at..];
        if byte == b'\n' {
            line += 1;
            at += 1;
        } else if byte.is_ascii_whitespace() {
            at += 1;
        } else if (syntax == Syntax::Hash && byte == b'#')
            || rest.starts_with(b"//") && syntax == Syntax::CLike
        {
            while at < bytes.len() && bytes[at] != b'\n' {
                at += 1;
            }
        } else if syntax == Syntax::CLike && rest.starts_with(b"/*") {
            at += 2;
            while at < bytes.len() && !bytes[at..].starts_with(b"*/") {
                line += u32::from(bytes[at] == b'\n');
                at += 1;
            }
            at = (at + 2).min(bytes.len());
        } else if byte == b'"' || byte == b'\'' {
            let start_line = line;
            let triple =
                syntax == Syntax::Hash && rest.len() >= 3 && rest[1] == byte && rest[2] == byte;
            at += if triple { 3 } else { 1 };
            while at < bytes.len() {
                let here = bytes[at];
                if here == b'\\' {
                    line += u32::from(bytes.get(at + 1) == Some(&b'\n'));
                    at += 2;
                    continue;
                }
                if triple {
                    if bytes[at..].starts_with(&[byte, byte, byte]) {
                        at += 3;
                        break;
                    }
                } else if here == byte || here == b'\n' {
                    at += 1;
                    break;
                }
                line += u32::from(here == b'\n');
                at += 1;
            }
            push(
                &mut tokens,
                if byte == b'"' || syntax == Syntax::Hash {
                    "\"S\""
                } else {
                    "'C'"
                },
                start_line,
            );
        } else if byte.is_ascii_digit() {
            while at < bytes.len()
                && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'.' || bytes[at] == b'_')
            {
                at += 1;
            }
            push(&mut tokens, "0", line);
        } else if byte.is_ascii_alphabetic() || byte == b'_' || byte >= 0x80 {
            let start = at;
            while at < bytes.len()
                && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_' || bytes[at] >= 0x80)
            {
                at += 1;
            }
            let word = &text[start..at];
            // A string prefix (r"", b'', f"...") is part of the string that follows.
            if syntax == Syntax::Hash
                && at < bytes.len()
                && (bytes[at] == b'"' || bytes[at] == b'\'')
                && word.len() <= 2
                && word.chars().all(|c| "rRbBfFuU".contains(c))
            {
                continue;
            }
            push(
                &mut tokens,
                if KEYWORDS.contains(&word) { word } else { "I" },
                line,
            );
        } else {
            // Operators: two-character ones whole, the rest a character each.
            const PAIRS: [&[u8]; 18] = [
                b"==", b"!=", b"<=", b">=", b"&&", b"||", b"++", b"--", b"+=", b"-=", b"*=", b"/=",
                b"->", b"::", b"<<", b">>", b"**", b"//",
            ];
            let width = if PAIRS.iter().any(|pair| rest.starts_with(pair)) {
                2
            } else {
                1
            };
            let end = (at + width).min(bytes.len());
            let end = (end..=bytes.len())
                .find(|&end| text.is_char_boundary(end))
                .unwrap_or(bytes.len());
            push(&mut tokens, &text[at..end], line);
            at = end;
        }
    }
    tokens
}

/// A stable id for a token's normalised text (FNV-1a).
fn id_of(text: &str) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in text.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str, syntax: Syntax) -> Vec<u32> {
        tokenize(text, syntax)
            .iter()
            .map(|token| token.id)
            .collect()
    }

    #[test]
    fn names_layout_and_comments_do_not_count() {
        let one = "def flips(board, r, c):  # the discs\n    return board[r][c] == 'B'\n";
        let two = "def turned(grid,row,col):\n\n    return grid[row][col]=='W'   # other\n";
        assert_eq!(ids(one, Syntax::Hash), ids(two, Syntax::Hash));
        let c_one = "int f(int x) { /* a\ncomment */ return x + 1; } // end\n";
        let c_two = "int g(int y){return y+2;}";
        assert_eq!(ids(c_one, Syntax::CLike), ids(c_two, Syntax::CLike));
        // But the shape counts.
        assert_ne!(
            ids("while x: y", Syntax::Hash),
            ids("if x: y", Syntax::Hash)
        );
        let lines: Vec<u32> = tokenize("a\n\"\"\"x\ny\"\"\"\nb", Syntax::Hash)
            .iter()
            .map(|token| token.line)
            .collect();
        assert_eq!(lines, [1, 2, 4]);
        assert_eq!(Syntax::of("src/Main.JAVA"), Some(Syntax::CLike));
        assert_eq!(Syntax::of("notes.txt"), None);
    }
}
