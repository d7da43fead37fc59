//! `othello nboard`: the engine for GUIs (NBoard and others) and match tools, speaking the
//! NBoard protocol on stdin and stdout. The protocol is in `nboard/`; this is its command
//! line.

use std::io::{self, Write};

use clap::Args;

use crate::nboard::{self, NboardOptions};

use super::{CliError, ThreadsArg, hash_megabytes};

/// `othello nboard [--hash MIB] [--threads N]`.
#[derive(Debug, Args)]
pub struct NboardArgs {
    /// Transposition table size in MiB for each search (default: sized to the search).
    #[arg(long, value_name = "MIB", value_parser = hash_megabytes)]
    hash: Option<u64>,
    #[command(flatten)]
    threads: ThreadsArg,
    /// Never answer from the opening book.
    #[arg(long)]
    no_book: bool,
    /// Answer `go` with this player instead of the engine's search: zero:FILE plays a net
    /// from `othello zero train` (hints and analysis stay the engine's).
    #[arg(long, value_name = "SPEC", value_parser = super::player_spec)]
    player: Option<othello::engine::PlayerSpec>,
}

impl NboardArgs {
    /// Speaks the protocol until the input ends.
    ///
    /// # Errors
    /// [`CliError::Nboard`] when reading or writing fails.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        if let Some(spec) = self.player {
            super::check_fits(spec, othello::GameKind::STANDARD)?;
        }
        let options = NboardOptions {
            hash: self.hash.map(|mib| mib as usize),
            threads: self.threads.or_all_cores(),
            book: !self.no_book,
            player: self.player,
        };
        nboard::run(io::stdin(), out, &options)?;
        Ok(())
    }
}
