//! `othello train merge`: the shards of a step (`--shard I/N`, one a machine) joined into
//! the file one whole run writes.

use std::{
    io::Write,
    path::{Path, PathBuf},
};

use clap::Args;
use othello::training::{SampleHeader, SampleReader, SampleWriter, Shard};

use super::{open_samples, read_error, write_error};
use crate::cli::CliError;

#[derive(Debug, Args)]
pub(super) struct MergeArgs {
    /// The shards' files, in any order: all N shards of one step, none missing.
    #[arg(value_name = "SHARD", required = true)]
    inputs: Vec<PathBuf>,
    /// The whole file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Write over an --out file that holds something else.
    #[arg(long)]
    force: bool,
}

impl MergeArgs {
    pub(super) fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let usage = |message: String| CliError::Usage { message };
        super::refuse_irregular(&self.out)?;
        let mut shards = Vec::new();
        for path in &self.inputs {
            let reader = open_samples(path).map_err(read_error(path))?;
            let header = reader
                .header()
                .ok_or_else(|| usage(format!("{} has no positions yet", path.display())))?;
            shards.push((header, path.as_path(), reader));
        }
        shards.sort_by_key(|(header, _, _)| header.shard.index);
        let (first, first_path, _) = &shards[0];
        let (first, first_path): (SampleHeader, &Path) = (*first, first_path);
        let count = first.shard.count;
        for (header, path, _) in &shards {
            if header.kind != first.kind {
                return Err(usage(format!(
                    "{} holds positions of {}, {} of {}",
                    path.display(),
                    header.kind,
                    first_path.display(),
                    first.kind
                )));
            }
            if header.shard.count != count || header.shard == Shard::WHOLE {
                // Named beside another file, if there is one.
                let beside = shards
                    .iter()
                    .find(|(_, other, _)| other != path)
                    .map_or_else(String::new, |(other, other_path, _)| {
                        format!(" and {} shard {}", other_path.display(), other.shard)
                    });
                return Err(usage(format!(
                    "{} is shard {}{beside}: give the shards of one step",
                    path.display(),
                    header.shard,
                )));
            }
            if header.run != first.run || header.run == 0 {
                return Err(usage(format!(
                    "{} and {} are shards of different runs (other options, or another \
                     input): give the shards of one step",
                    path.display(),
                    first_path.display()
                )));
            }
            if !header.complete {
                return Err(usage(format!(
                    "{} (shard {}) is not finished: run its step again to the end first",
                    path.display(),
                    header.shard
                )));
            }
        }
        let given: Vec<u32> = shards
            .iter()
            .map(|(header, _, _)| header.shard.index)
            .collect();
        let missing: Vec<String> = (0..count)
            .filter(|index| !given.contains(index))
            .map(|index| format!("{index}/{count}"))
            .collect();
        if given.len() != count as usize || !missing.is_empty() {
            let twice: Vec<String> = given
                .windows(2)
                .filter(|pair| pair[0] == pair[1])
                .map(|pair| format!("{}/{count}", pair[0]))
                .collect();
            return Err(usage(format!(
                "shards of {count} are merged whole: {}{}",
                if missing.is_empty() {
                    String::new()
                } else {
                    format!("missing {}", missing.join(", "))
                },
                if twice.is_empty() {
                    String::new()
                } else {
                    format!(
                        "{}given twice {}",
                        if missing.is_empty() { "" } else { "; " },
                        twice.join(", ")
                    )
                }
            )));
        }
        let inputs: Vec<&Path> = self.inputs.iter().map(PathBuf::as_path).collect();
        if inputs
            .iter()
            .any(|input| crate::cli::output::same_file(input, &self.out))
        {
            return Err(usage(format!(
                "--out {} is one of the shards",
                self.out.display()
            )));
        }
        if self.out.exists() && !self.force {
            return Err(usage(format!(
                "--out {} exists: merge into a new file (or give --force to replace it)",
                self.out.display()
            )));
        }
        let total = super::write_whole(&self.out, "merging", |partial| {
            merge(shards, partial, first)
        })?;
        writeln!(
            out,
            "{} shards of {}: {total} positions -> {}",
            self.inputs.len(),
            first.kind,
            self.out.display()
        )?;
        Ok(())
    }
}

/// Writes the shards' samples, in order, to `partial` as one whole run's file; returns how
/// many.
fn merge(
    shards: Vec<(SampleHeader, &Path, SampleReader)>,
    partial: &Path,
    first: SampleHeader,
) -> Result<u64, CliError> {
    let header = SampleHeader {
        shard: Shard::WHOLE,
        complete: false,
        ..first
    };
    let (mut writer, _) = SampleWriter::append(partial, header).map_err(write_error(partial))?;
    let mut total = 0u64;
    for (_, path, mut reader) in shards {
        let mut batch = Vec::with_capacity(4096);
        while let Some(sample) = reader.next_sample().map_err(read_error(path))? {
            batch.push(sample);
            if batch.len() == batch.capacity() {
                super::stopped()?;
                writer.write(&batch).map_err(write_error(partial))?;
                total += batch.len() as u64;
                batch.clear();
            }
        }
        writer.write(&batch).map_err(write_error(partial))?;
        total += batch.len() as u64;
    }
    writer.finish().map_err(write_error(partial))?;
    Ok(total)
}
