//! The default mode: the grader protocol on stdin and stdout.

use std::io;

use othello::{Variant, protocol};

use super::CliError;

/// The rule set, when the arguments are only what the grader mode takes (nothing, or
/// `--rules full|simple`): then the full parser is not built. Harnesses start the grader
/// once per test case, and building every subcommand's options cost more than a short
/// session itself (about 200,000 instructions of the 700,000 an empty input took; see
/// BENCHMARKS.md). Anything else goes through clap, which accepts the same spellings.
pub fn plain_arguments() -> Option<Variant> {
    let mut arguments = std::env::args_os().skip(1);
    let first = arguments.next();
    let second = arguments.next();
    if arguments.next().is_some() {
        return None;
    }
    let rules = match (first.as_ref().and_then(|a| a.to_str()), second.as_ref()) {
        (None, _) => return Some(Variant::Full),
        (Some("--rules"), Some(value)) => value.to_str()?,
        (Some(flag), None) => flag.strip_prefix("--rules=")?,
        _ => return None,
    };
    Variant::ALL
        .into_iter()
        .find(|variant| variant.name() == rules)
}

/// Whether the arguments ask for the grader mode: they name no subcommand (the first word
/// that is not an option is none, or not a subcommand's name).
pub fn is_grader_mode() -> bool {
    let command = <super::Cli as clap::CommandFactory>::command();
    let word = std::env::args_os()
        .skip(1)
        .find(|argument| !argument.to_string_lossy().starts_with('-'));
    word.is_none_or(|word| {
        let word = word.to_string_lossy();
        command
            .get_subcommands()
            .all(|sub| sub.get_name() != word && sub.get_all_aliases().all(|a| a != word))
    })
}

/// A clap error in one line: its first (which names the wrong word), and the values that
/// would do (`invalid value 'x' for '--rules <RULES>' (possible values: full, simple)`).
pub fn one_line(error: &clap::Error) -> String {
    let text = error.to_string();
    let mut lines = text.lines().filter(|line| !line.trim().is_empty());
    let first = lines.next().unwrap_or_default();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let values = lines
        .map(str::trim)
        .find_map(|line| line.strip_prefix('[')?.strip_suffix(']'));
    match values {
        Some(values) => format!("{first} ({values})"),
        None => first.to_owned(),
    }
}

/// Plays one game of the grader protocol on stdin and stdout.
///
/// # Errors
/// [`CliError::Protocol`] with the protocol's exit status.
pub fn run(variant: Variant) -> Result<(), CliError> {
    protocol::run(io::stdin().lock(), io::stdout().lock(), variant)?;
    Ok(())
}
