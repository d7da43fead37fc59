//! `othello train dedup`: positions files joined into one with each position kept once (see
//! [`othello::training::dedup`]).

use std::{
    io::Write,
    path::{Path, PathBuf},
    time::Instant,
};

use clap::Args;
use othello::training::{
    SampleHeader, SampleWriter, Shard,
    dedup::{Dedup, DedupCounts},
};

use super::{fingerprint, open_finished, read_error, stopped, write_error};
use crate::cli::CliError;

#[derive(Debug, Args)]
pub(super) struct DedupArgs {
    /// Positions files (selfplay or label outputs) of one kind of game, read in order.
    #[arg(long = "in", value_name = "FILE", required = true)]
    input: Vec<PathBuf>,
    /// The file to write: each position once, at its first copy's place.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Leave out every position this file holds, and its mirror images: a held-out test
    /// set's, so that no position of it is fitted to (may be given more than once).
    #[arg(long, value_name = "FILE")]
    exclude: Vec<PathBuf>,
    /// Write over an --out file that exists.
    #[arg(long)]
    force: bool,
}

impl DedupArgs {
    pub(super) fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let usage = |message: String| CliError::Usage { message };
        let given: Vec<&Path> = self
            .input
            .iter()
            .chain(&self.exclude)
            .map(PathBuf::as_path)
            .collect();
        if let Some(input) = given
            .iter()
            .find(|input| crate::cli::output::same_file(input, &self.out))
        {
            return Err(usage(format!(
                "--out {} is the input {}: give it a file of its own",
                self.out.display(),
                input.display()
            )));
        }
        super::refuse_irregular(&self.out)?;
        if std::fs::symlink_metadata(&self.out).is_ok() && !self.force {
            return Err(usage(format!(
                "--out {} exists: write to a new file (or give --force to replace it)",
                self.out.display()
            )));
        }
        // Every file's header first: one kind of game, each step finished.
        let mut headers = Vec::new();
        for path in &given {
            let (_, header) = open_finished(path)?;
            if let Some((first, first_path)) = headers
                .first()
                .map(|(h, p): &(SampleHeader, &Path)| (*h, *p))
                && header.kind != first.kind
            {
                return Err(usage(format!(
                    "{} holds positions of {}, {} of {}: keep one kind of game a file",
                    path.display(),
                    header.kind,
                    first_path.display(),
                    first.kind
                )));
            }
            headers.push((header, *path));
        }
        let kind = headers[0].0.kind;
        let start = Instant::now();
        crate::cli::progress::catch_interrupts();
        let mut dedup = Dedup::new(kind);
        for path in &self.exclude {
            let (mut reader, _) = open_finished(path)?;
            while let Some(sample) = reader.next_sample().map_err(read_error(path))? {
                dedup.exclude(&sample);
            }
            stopped()?;
        }
        let mut index = 0u64;
        for path in &self.input {
            let (mut reader, _) = open_finished(path)?;
            while let Some(sample) = reader.next_sample().map_err(read_error(path))? {
                dedup.add(index, &sample);
                index += 1;
                if index.is_multiple_of(1 << 16) {
                    stopped()?;
                }
            }
        }
        // The output names what it was made of, in order: each file's run, shard and length
        // (files of one run differ in their shard, or in how far they go).
        let mut words = vec!["dedup".to_owned(), self.input.len().to_string()];
        for (header, path) in &headers {
            let length = std::fs::metadata(path).map_err(read_error(path))?.len();
            words.extend([
                header.run.to_string(),
                header.shard.to_string(),
                length.to_string(),
            ]);
        }
        let header = SampleHeader {
            kind,
            shard: Shard::WHOLE,
            run: fingerprint(&words, b""),
            complete: false,
        };
        let written = super::write_whole(&self.out, "dedup", |partial| {
            let (mut writer, _) =
                SampleWriter::append(partial, header).map_err(write_error(partial))?;
            let (mut index, mut written) = (0u64, 0u64);
            let mut batch = Vec::with_capacity(4096);
            for path in &self.input {
                let (mut reader, _) = open_finished(path)?;
                while let Some(sample) = reader.next_sample().map_err(read_error(path))? {
                    if let Some(kept) = dedup.keep(index, &sample) {
                        batch.push(kept);
                    }
                    index += 1;
                    if index.is_multiple_of(1 << 16) {
                        stopped()?;
                    }
                    if batch.len() == batch.capacity() {
                        writer.write(&batch).map_err(write_error(partial))?;
                        written += batch.len() as u64;
                        batch.clear();
                    }
                }
            }
            writer.write(&batch).map_err(write_error(partial))?;
            written += batch.len() as u64;
            writer.finish().map_err(write_error(partial))?;
            // Another run may have written --out meanwhile: neither replaces the other.
            if !self.force && std::fs::symlink_metadata(&self.out).is_ok() {
                return Err(usage(format!(
                    "--out {} was written while this dedup ran (by another run?): not replaced",
                    self.out.display()
                )));
            }
            Ok(written)
        })?;
        let DedupCounts {
            read,
            kept,
            merged,
            excluded,
        } = dedup.counts();
        debug_assert_eq!(kept, written);
        writeln!(
            out,
            "{read} positions of {kind}: {kept} kept, {merged} copies merged into them, \
             {excluded} left out (held in --exclude) in {:.1} s -> {}",
            start.elapsed().as_secs_f64(),
            self.out.display()
        )?;
        Ok(())
    }
}
