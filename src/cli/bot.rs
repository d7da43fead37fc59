//! `othello bot`: the project's engine plays on a server through its bot API (the client
//! is [`crate::bot`]).

use std::{io::Write, time::Duration};

use clap::{Args, ValueEnum};
use othello::{
    Shape, TimeControl, WinRule,
    engine::{EngineSettings, PlayerSpec},
};

use super::{CliError, Rules, win_rule};
use crate::bot::{self, Accept, BotError, BotOptions, Client, Series};

/// `othello bot --server URL --token TOKEN [--player SPEC] [--challenge NAME --games N] ...`.
#[derive(Debug, Args)]
#[command(after_help = super::players_help(false))]
pub struct BotArgs {
    /// The server: `http://host:port` or `https://host`.
    #[arg(long, value_name = "URL")]
    server: String,
    /// The account's API token (from `POST /api/tokens`, see docs/api.md).
    #[arg(
        long,
        value_name = "TOKEN",
        env = "OTHELLO_TOKEN",
        hide_env_values = true
    )]
    token: String,
    /// Make the account a bot account first (for good; only an account that has never
    /// played can be made one).
    #[arg(long)]
    upgrade: bool,
    /// The player (a SPEC: the players are listed below).
    #[arg(long, value_name = "SPEC", default_value = "engine", value_parser = super::player_spec)]
    player: PlayerSpec,
    /// The longest the player thinks a move, in milliseconds (less when its clock is
    /// short).
    #[arg(long, value_name = "MS", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    time: u64,
    /// Challenges from others to accept: all, bots (from bot accounts only) or none.
    #[arg(long, value_enum, default_value_t = AcceptArg::All)]
    accept: AcceptArg,
    /// Challenge this member, again after each game, until --games have been played (or
    /// until stopped).
    #[arg(long, value_name = "NAME")]
    challenge: Option<String>,
    /// Stop after this many games (default: play until stopped).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    games: Option<u32>,
    /// The challenges' rule set.
    #[arg(long, value_enum, default_value_t = Rules::Full)]
    rules: Rules,
    /// The challenges' board, rows x columns.
    #[arg(long, value_name = "RxC", default_value = "8x8")]
    size: Shape,
    /// The challenges' win rule.
    #[arg(long, value_name = "most|fewest", value_parser = win_rule, default_value = "most")]
    win: WinRule,
    /// The challenges' clock: minutes per side and seconds added per move (`3+2`).
    #[arg(long, value_name = "MIN+SEC", value_parser = clock)]
    clock: Option<TimeControl>,
    /// The challenges are rated (needs --clock).
    #[arg(long, requires = "clock")]
    rated: bool,
    /// Seed of the player's random choices.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
}

/// Which challenges are accepted.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum AcceptArg {
    /// Every one.
    All,
    /// From bot accounts only.
    Bots,
    /// None: they are declined.
    None,
}

/// `3+2`: three minutes a side, two seconds added per move (`0.5+0`: thirty seconds).
fn clock(text: &str) -> Result<TimeControl, String> {
    let (minutes, seconds) = text.split_once('+').unwrap_or((text, "0"));
    let minutes: f64 = minutes
        .trim()
        .parse()
        .map_err(|_| format!("{text:?}: give minutes+seconds, such as 3+2"))?;
    let seconds: u64 = seconds
        .trim()
        .parse()
        .map_err(|_| format!("{text:?}: give minutes+seconds, such as 3+2"))?;
    if !(minutes.is_finite() && minutes > 0.0 && minutes <= 180.0) || seconds > 60 {
        return Err(format!(
            "{text:?}: from a second to 180 minutes a side, at most 60 seconds added"
        ));
    }
    Ok(TimeControl::new(
        (minutes * 60_000.0).round() as u64,
        seconds * 1000,
    ))
}

impl BotArgs {
    /// Plays until --games games have been played (or for ever): a line per game, then
    /// the totals.
    ///
    /// # Errors
    /// [`CliError::Usage`] when the server refuses the account or a challenge;
    /// [`CliError::Write`] if the output fails.
    pub fn run(self, out: &mut impl Write) -> Result<(), CliError> {
        let client = Client::new(&self.server, &self.token);
        let refused = |error: BotError| CliError::Usage {
            message: format!("{}: {error}", self.server),
        };
        if self.upgrade {
            let (status, answer) = client.post("/bot/account/upgrade", None).map_err(refused)?;
            if status != 200 {
                return Err(CliError::Usage {
                    message: format!("the account cannot be made a bot: {status} {answer}"),
                });
            }
        }
        // Only a bot account may play through the bot API: said now, not after a
        // challenge is taken and its game cannot be played.
        let (status, me) = client.get("/me").map_err(refused)?;
        if status != 200 || me["user"]["bot"] != true {
            let who = me["user"]["name"].as_str().map_or_else(
                || format!("the token is refused ({status} {})", me["error"]["message"]),
                |name| format!("{name} is not a bot account: add --upgrade (for good)"),
            );
            return Err(CliError::Usage { message: who });
        }
        let options = BotOptions {
            player: self.player,
            engine: EngineSettings::default(),
            move_time: Duration::from_millis(self.time),
            accept: match self.accept {
                AcceptArg::All => Accept::All,
                AcceptArg::Bots => Accept::Bots,
                AcceptArg::None => Accept::None,
            },
            series: self.challenge.map(|opponent| Series {
                opponent,
                settings: bot::challenge_settings(
                    self.rules.into(),
                    self.size,
                    self.win,
                    self.clock,
                    self.rated,
                ),
            }),
            games: self.games,
            seed: self.seed,
        };
        super::progress::catch_interrupts();
        let stop = super::progress::interrupt_flag();
        let mut failed = None;
        let totals = bot::run(&client, &options, stop, &mut |line| {
            if failed.is_none()
                && let Err(error) = writeln!(out, "{line}").and_then(|()| out.flush())
            {
                failed = Some(error);
            }
            failed.is_none()
        });
        if let Some(error) = failed {
            return Err(error.into());
        }
        let totals = totals.map_err(refused)?;
        writeln!(out, "{}", totals.line())?;
        if stop.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(CliError::Interrupted);
        }
        Ok(())
    }
}
