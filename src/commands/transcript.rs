//! `othello transcript`: a grader session as a person reads it, input lines interleaved with
//! the output where they are read.

use std::io::Write;

use super::CommandError;
use crate::{Variant, check::reference::Reference};

/// Prints the interleaved transcript of `input` under `variant`: the output, each input line
/// prefixed with `> ` where it is read, and a final `# othello: ...` line if the grader would
/// fail (input lines it never reads are not shown). Returns the grader's exit status.
///
/// ```
/// use othello::{Variant, commands::transcript};
///
/// let input = "4\n4\nW\n>\nB . . .\n. W . .\n. . . .\n. . . .\n3 3\n";
/// let mut out = Vec::new();
/// transcript::run(Variant::Full, input.as_bytes(), &mut out)?;
/// let text = String::from_utf8(out)?;
/// assert!(text.starts_with("FULL\n> 4\n> 4\n> W\n"));
/// assert!(text.contains("TURN: B\n> 3 3\nVALID\n"));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`CommandError::Write`] if the output fails.
pub fn run(variant: Variant, input: &[u8], out: &mut impl Write) -> Result<u8, CommandError> {
    let reference = Reference::run(variant, input);
    out.write_all(&reference.transcript())?;
    out.flush()?;
    Ok(reference.status)
}
