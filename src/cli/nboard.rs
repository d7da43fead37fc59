//! `othello nboard`: the engine for GUIs (NBoard and others) and match tools, speaking the
//! NBoard protocol on stdin and stdout. The protocol is in `nboard/`; this is its command
//! line.

use std::io::{self, Write};

use clap::Args;

use crate::nboard::{self, NboardOptions};

use super::{CliError, hash_megabytes};

/// `othello nboard [--hash MIB]`.
#[derive(Debug, Args)]
pub struct NboardArgs {
    /// Transposition table size in MiB for each search (default: sized to the search).
    #[arg(long, value_name = "MIB", value_parser = hash_megabytes)]
    hash: Option<u64>,
}

impl NboardArgs {
    /// Speaks the protocol until the input ends.
    ///
    /// # Errors
    /// [`CliError::Nboard`] when reading or writing fails.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let options = NboardOptions {
            hash: self.hash.map(|mib| mib as usize),
        };
        nboard::run(io::stdin(), out, &options)?;
        Ok(())
    }
}
