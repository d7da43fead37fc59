//! `othello gen`: writes reproducible grader inputs (and with `--expect` the reference
//! outputs) covering every situation of the grader protocol (see [`crate::scenario`]).

use std::{
    fs,
    io::Write,
    path::{Path, PathBuf},
};

use super::CommandError;
use crate::{
    Shape,
    scenario::{GenOptions, ScenarioKind, expected_output, generate},
};

/// Writes `count` scenarios of the run described by `options` into `out_dir` (created if
/// missing): `0001.in`, `0002.in`, ... (more digits when `count` exceeds 9999), file `N`
/// holding scenario `N - 1` of [`generate`]. With `expect`, writes beside each input the
/// reference's stdout for it as `NNNN.out` (exactly what the grader protocol prints; the exit
/// status is 0, or 3 for a scenario that stops before the end of the game). Then prints a
/// summary to `out`: one line per kind of `options.kinds` with its count (and how many were
/// truncated, when truncation is on), then `wrote N scenarios to DIR`.
///
/// # Errors
/// [`CommandError::WriteFile`] if the directory or a file cannot be written,
/// [`CommandError::Write`] if `out` fails.
///
/// # Panics
/// As [`generate`]: if `options` has no sizes or no kinds, or an odd size.
pub fn run(
    options: &GenOptions,
    count: u32,
    out_dir: &Path,
    expect: bool,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    fs::create_dir_all(out_dir).map_err(|source| CommandError::WriteFile {
        path: out_dir.to_owned(),
        source,
    })?;
    let width = count.to_string().len().max(4);
    let mut made = [0u32; ScenarioKind::ALL.len()];
    let mut truncated = [0u32; ScenarioKind::ALL.len()];
    for number in 1..=count {
        let scenario = generate(options, u64::from(number - 1));
        let name = format!("{number:0width$}");
        write_file(
            &out_dir.join(format!("{name}.in")),
            scenario.input.as_bytes(),
        )?;
        if expect {
            let (output, _status) = expected_output(options.variant, scenario.input.as_bytes());
            write_file(&out_dir.join(format!("{name}.out")), &output)?;
        }
        let slot = kind_index(scenario.kind);
        made[slot] += 1;
        truncated[slot] += u32::from(!scenario.complete);
    }
    let name_width = ScenarioKind::ALL
        .iter()
        .map(|kind| kind.name().len())
        .max()
        .unwrap_or(0);
    for kind in ScenarioKind::ALL {
        if !options.kinds.contains(&kind) {
            continue;
        }
        let slot = kind_index(kind);
        write!(out, "{:name_width$}  {:>5}", kind.name(), made[slot])?;
        if options.truncate && kind.can_truncate() {
            write!(out, "  ({} truncated)", truncated[slot])?;
        }
        writeln!(out)?;
    }
    let noun = if count == 1 { "scenario" } else { "scenarios" };
    writeln!(out, "wrote {count} {noun} to {}", out_dir.display())?;
    out.flush()?;
    Ok(())
}

fn kind_index(kind: ScenarioKind) -> usize {
    ScenarioKind::ALL
        .iter()
        .position(|&k| k == kind)
        .expect("every kind is in ALL")
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CommandError> {
    fs::write(path, bytes).map_err(|source| CommandError::WriteFile {
        path: PathBuf::from(path),
        source,
    })
}

/// Parses `--sizes`: a comma-separated list of `ROWSxCOLUMNS` (`4x4,8x8,16x12`), or `all`
/// for every even size from 4 × 4 to 16 × 16 (49 shapes). A size listed twice is chosen
/// twice as often.
///
/// ```
/// use othello::{Shape, commands::generate::parse_sizes};
///
/// assert_eq!(parse_sizes("4x4, 16x12")?, [Shape::new(4, 4)?, Shape::new(16, 12)?]);
/// assert_eq!(parse_sizes("all")?.len(), 49);
/// assert!(parse_sizes("5x8").unwrap_err().contains("even"));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// A message naming the first size that is malformed, out of range or odd.
pub fn parse_sizes(text: &str) -> Result<Vec<Shape>, String> {
    if text.trim().eq_ignore_ascii_case("all") {
        let sides = (Shape::MIN_SIDE..=Shape::MAX_SIDE).step_by(2);
        return Ok(sides
            .clone()
            .flat_map(|rows| {
                sides
                    .clone()
                    .map(move |columns| Shape::new(rows, columns).expect("in range"))
            })
            .collect());
    }
    text.split(',')
        .map(|item| {
            let item = item.trim();
            if item.is_empty() {
                return Err(format!(
                    "expected a list of board sizes such as 4x4,8x8,16x12 or all, found {text:?}"
                ));
            }
            let shape: Shape = item.parse().map_err(|e| format!("{e}"))?;
            if shape.rows() % 2 == 1 || shape.columns() % 2 == 1 {
                return Err(format!(
                    "board size {shape} has an odd side: the grader accepts only even sizes \
                     from 4 to 16"
                ));
            }
            Ok(shape)
        })
        .collect()
}

/// Parses `--kind`: a comma-separated list of [`ScenarioKind`] names (`standard,tie`), or
/// `all`.
///
/// ```
/// use othello::{commands::generate::parse_kinds, scenario::ScenarioKind};
///
/// assert_eq!(parse_kinds("tie,passes")?, [ScenarioKind::Tie, ScenarioKind::Passes]);
/// assert_eq!(parse_kinds("all")?, ScenarioKind::ALL);
/// # Ok::<_, String>(())
/// ```
///
/// # Errors
/// A message naming the first unknown kind.
pub fn parse_kinds(text: &str) -> Result<Vec<ScenarioKind>, String> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(ScenarioKind::ALL.to_vec());
    }
    text.split(',')
        .map(|item| item.trim().parse().map_err(|e| format!("{e}")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

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
        assert_eq!(
            parse_sizes("4x6,9x8").unwrap_err(),
            "board size 9x8 has an odd side: the grader accepts only even sizes from 4 to 16"
        );
        assert_eq!(
            parse_sizes("18x8").unwrap_err(),
            "a board needs 4 to 16 rows and 4 to 16 columns, not 18x8"
        );
        assert!(parse_sizes("8").unwrap_err().contains("8x8 or 6x10"));
        assert!(parse_sizes("8x8,").unwrap_err().contains("or all"));
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
                .contains("found \"draw\"")
        );
        assert!(parse_kinds("").is_err());
    }

    #[test]
    fn writes_numbered_files_and_a_summary() {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("new").join("dir");
        let options = GenOptions {
            variant: Variant::Simple,
            kinds: vec![ScenarioKind::Tie, ScenarioKind::Passes],
            truncate: true,
            ..GenOptions::default()
        };
        let mut out = Vec::new();
        run(&options, 3, &out_dir, false, &mut out).unwrap();
        let mut names: Vec<String> = fs::read_dir(&out_dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["0001.in", "0002.in", "0003.in"]);
        let passes_truncated = u32::from(!generate(&options, 1).complete);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "passes             1  ({passes_truncated} truncated)\n\
                 tie                2\n\
                 wrote 3 scenarios to {}\n",
                out_dir.display()
            )
        );
    }

    #[test]
    fn an_unwritable_directory_is_an_error_with_status_1() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        fs::write(&file, "").unwrap();
        let error = run(&GenOptions::default(), 1, &file, false, &mut Vec::new()).unwrap_err();
        assert_eq!(error.exit_status(), 1);
        assert!(
            error
                .to_string()
                .starts_with(&format!("cannot write {}: ", file.display()))
        );
    }
}
