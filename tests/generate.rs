//! `othello gen` into a temporary directory: the first inputs of a fixed seed as snapshots,
//! and every written output against the reference.

mod common;

use std::{fs, path::Path};

use insta::assert_snapshot;
use othello::{
    Variant,
    grading::scenario::{GenOptions, expected_output, parse_kinds, parse_sizes},
};

/// The options `othello gen --seed S` uses when nothing else is given.
fn default_options(seed: u64) -> GenOptions {
    GenOptions {
        variant: Variant::Full,
        sizes: parse_sizes("8x8").unwrap(),
        kinds: parse_kinds("all").unwrap(),
        invalid_rate: 0.1,
        truncate: false,
        seed,
        edge_cases: false,
    }
}

/// Runs `othello gen --expect` with the flags that make `options` (sizes and kinds as
/// `sizes` and `kinds` name them); returns the summary it printed.
fn generate(options: &GenOptions, sizes: &str, kinds: &str, count: u32, dir: &Path) -> String {
    let mut command = common::othello();
    command
        .args(["gen", "--expect", "--count", &count.to_string()])
        .args(["--seed", &options.seed.to_string()])
        .args([
            "--rules",
            options.variant.name(),
            "--sizes",
            sizes,
            "--kind",
            kinds,
        ])
        .args(["--invalid-rate", &options.invalid_rate.to_string()])
        .arg("--out")
        .arg(dir);
    if options.truncate {
        command.arg("--truncate");
    }
    if options.edge_cases {
        command.arg("--edge-cases");
    }
    let output = command.output().unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// Every `.in` file has its `.out` beside it, equal to what the reference prints; returns
/// the inputs by name.
fn check_outputs(options: &GenOptions, dir: &Path, count: usize) -> Vec<(String, String)> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2 * count, "{names:?}");
    let mut inputs = Vec::new();
    for pair in names.chunks(2) {
        let (input_name, output_name) = (&pair[0], &pair[1]);
        let stem = input_name.strip_suffix(".in").expect("an input");
        assert_eq!(output_name, &format!("{stem}.out"));
        let input = fs::read_to_string(dir.join(input_name)).unwrap();
        let output = fs::read(dir.join(output_name)).unwrap();
        let (expected, status) = expected_output(options.variant, input.as_bytes());
        assert_eq!(output, expected, "{input_name}");
        assert!(
            status == 0 || (options.truncate && status == 3),
            "{input_name}"
        );
        // insta ignores trailing whitespace and line endings: check them here.
        assert!(
            !input.contains('\r') && input.ends_with('\n'),
            "{input_name}"
        );
        assert!(
            !output.contains(&b'\r') && output.ends_with(b"\n"),
            "{output_name}"
        );
        inputs.push((input_name.clone(), input));
    }
    inputs
}

#[test]
fn seed_1_with_default_options() {
    let dir = tempfile::tempdir().unwrap();
    let options = default_options(1);
    let summary = generate(&options, "8x8", "all", 14, dir.path());
    let summary = summary.replace(&dir.path().display().to_string(), "DIR");
    let inputs = check_outputs(&options, dir.path(), 14);
    assert_snapshot!("seed_1_summary", summary);
    for (name, input) in &inputs[..3] {
        assert_snapshot!(format!("seed_1_{}", name.replace('.', "_")), input);
    }
}

#[test]
fn every_size_both_rule_sets_truncated_and_noisy() {
    for variant in Variant::ALL {
        let dir = tempfile::tempdir().unwrap();
        let options = GenOptions {
            variant,
            sizes: parse_sizes("all").unwrap(),
            invalid_rate: 0.3,
            truncate: true,
            seed: 99,
            edge_cases: true,
            ..default_options(99)
        };
        generate(&options, "all", "all", 42, dir.path());
        check_outputs(&options, dir.path(), 42);
    }
}
