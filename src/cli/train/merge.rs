//! `othello train merge`: the shards of a step (`--shard I/N`, one a machine) joined into
//! the file one whole run writes.

use std::{
    io::Write,
    path::{Path, PathBuf},
};

use clap::Args;
use othello::training::{SampleHeader, SampleWriter, Shard};

use super::{OutputKind, check_step_output, open_samples, read_error, write_error};
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
        for (k, (header, path, _)) in shards.iter().enumerate() {
            if header.kind != first.kind {
                return Err(usage(format!(
                    "{} holds positions of {}, {} of {}",
                    path.display(),
                    header.kind,
                    first_path.display(),
                    first.kind
                )));
            }
            let expected = Shard {
                index: k as u32,
                count: shards.len() as u32,
            };
            if header.shard != expected {
                return Err(usage(format!(
                    "{} is shard {}: the files given are not shards 0 to {} of {} (one file \
                     each)",
                    path.display(),
                    header.shard,
                    shards.len() - 1,
                    shards.len()
                )));
            }
        }
        // Written through a temporary file: a stop leaves no part of a merge behind.
        let inputs: Vec<&Path> = self.inputs.iter().map(PathBuf::as_path).collect();
        if self.out.exists() && !self.force {
            check_step_output(&self.out, &inputs, OutputKind::Positions, false)
                .or_else(|_| check_step_output(&self.out, &inputs, OutputKind::Labelled, false))?;
        }
        if inputs.contains(&self.out.as_path()) {
            return Err(usage(format!(
                "--out {} is one of the shards",
                self.out.display()
            )));
        }
        let partial = self.out.with_extension("merging");
        let _ = std::fs::remove_file(&partial);
        let (mut writer, _) = SampleWriter::append(&partial, SampleHeader::whole(first.kind))
            .map_err(write_error(&partial))?;
        let mut total = 0u64;
        for (_, path, mut reader) in shards {
            let mut batch = Vec::with_capacity(4096);
            while let Some(sample) = reader.next_sample().map_err(read_error(path))? {
                batch.push(sample);
                if batch.len() == batch.capacity() {
                    writer.write(&batch).map_err(write_error(&partial))?;
                    total += batch.len() as u64;
                    batch.clear();
                }
            }
            writer.write(&batch).map_err(write_error(&partial))?;
            total += batch.len() as u64;
        }
        writer.flush().map_err(write_error(&partial))?;
        drop(writer);
        std::fs::rename(&partial, &self.out).map_err(write_error(&self.out))?;
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
