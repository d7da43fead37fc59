//! `othello train pack` and `unpack`: a positions file kept as the games it comes from,
//! and made again byte for byte (see [`othello::training::pack`]).

use std::{io::Write, path::PathBuf, time::Instant};

use clap::Args;
use othello::training::{
    SampleHeader, SampleWriter,
    pack::{PackError, Packed, Packer, UnpackError},
};

use super::{open_samples, read_error, stopped, write_error, write_whole};
use crate::cli::CliError;

#[derive(Debug, Args)]
pub(super) struct PackArgs {
    /// The positions file (a selfplay, label, merge or dedup output).
    #[arg(long = "in", value_name = "FILE")]
    input: PathBuf,
    /// The packed file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Write over an --out file that exists.
    #[arg(long)]
    force: bool,
}

#[derive(Debug, Args)]
pub(super) struct UnpackArgs {
    /// The packed file (a `train pack` output).
    #[arg(long = "in", value_name = "FILE")]
    input: PathBuf,
    /// The positions file to write: the file that was packed, byte for byte.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Write over an --out file that exists.
    #[arg(long)]
    force: bool,
}

/// Refuses an --out that is an input, or that exists without --force.
fn check_out(input: &std::path::Path, out: &std::path::Path, force: bool) -> Result<(), CliError> {
    let usage = |message: String| CliError::Usage { message };
    if crate::cli::output::same_file(input, out) {
        return Err(usage(format!(
            "--out {} is the input: give it a file of its own",
            out.display()
        )));
    }
    super::refuse_irregular(out)?;
    if std::fs::symlink_metadata(out).is_ok() && !force {
        return Err(usage(format!(
            "--out {} exists: write to a new file (or give --force to replace it)",
            out.display()
        )));
    }
    Ok(())
}

fn packed_error(path: &std::path::Path, error: PackError) -> CliError {
    CliError::Usage {
        message: format!("{}: {error}", path.display()),
    }
}

impl PackArgs {
    pub(super) fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        check_out(&self.input, &self.out, self.force)?;
        let start = Instant::now();
        crate::cli::progress::catch_interrupts();
        let mut reader = open_samples(&self.input).map_err(read_error(&self.input))?;
        let Some(header) = reader.header() else {
            return Err(CliError::Usage {
                message: format!("{} has no positions yet", self.input.display()),
            });
        };
        let mut packer = Packer::new(header);
        while let Some(sample) = reader.next_sample().map_err(read_error(&self.input))? {
            packer
                .add(sample)
                .map_err(|error| packed_error(&self.input, error))?;
            if packer.positions().is_multiple_of(1 << 16) {
                stopped()?;
            }
        }
        let positions = packer.positions();
        let bytes = packer
            .finish()
            .map_err(|error| packed_error(&self.input, error))?;
        // The records packed (a file still being written may have grown since).
        let read = positions * header.record() as u64;
        write_whole(&self.out, "pack", |partial| {
            std::fs::write(partial, &bytes).map_err(write_error(partial))
        })?;
        writeln!(
            out,
            "{positions} positions of {}: {read} bytes of records packed into {} ({:.2} bytes a \
             position) in {:.1} s -> {}",
            header.kind,
            bytes.len(),
            bytes.len() as f64 / positions.max(1) as f64,
            start.elapsed().as_secs_f64(),
            self.out.display()
        )?;
        Ok(())
    }
}

impl UnpackArgs {
    pub(super) fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        check_out(&self.input, &self.out, self.force)?;
        let start = Instant::now();
        let bytes = crate::files::read_limited(&self.input, crate::files::PACKED_FILE)
            .map_err(read_error(&self.input))?;
        let packed =
            Packed::from_bytes(&bytes).map_err(|error| packed_error(&self.input, error))?;
        drop(bytes);
        let header = packed.header();
        write_whole(&self.out, "unpack", |partial| {
            // Finished only once every position is written, as the step that wrote it.
            let writing = SampleHeader {
                complete: false,
                ..header
            };
            let (mut writer, _) =
                SampleWriter::append(partial, writing).map_err(write_error(partial))?;
            let mut written = 0u64;
            packed
                .unpack(|samples| {
                    writer.write(samples)?;
                    written += samples.len() as u64;
                    if crate::cli::progress::interrupted() {
                        return Err(std::io::Error::other("stopped"));
                    }
                    Ok(())
                })
                .map_err(|error| match error {
                    UnpackError::Packed(error) => packed_error(&self.input, error),
                    UnpackError::Write(_) if crate::cli::progress::interrupted() => {
                        CliError::Usage {
                            message: "stopped (Ctrl-C): nothing written".to_owned(),
                        }
                    }
                    UnpackError::Write(source) => CliError::WriteFile {
                        path: partial.to_owned(),
                        source,
                    },
                })?;
            if header.complete {
                writer.finish().map_err(write_error(partial))?;
            } else {
                writer.flush().map_err(write_error(partial))?;
            }
            Ok(written)
        })?;
        writeln!(
            out,
            "{} positions of {} unpacked in {:.1} s -> {}",
            packed.positions(),
            header.kind,
            start.elapsed().as_secs_f64(),
            self.out.display()
        )?;
        Ok(())
    }
}
