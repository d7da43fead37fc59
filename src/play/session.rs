//! One rule set's games at the console: the current game, the players, and what the
//! person types.

use std::{
    io::{self, Read, Write},
    path::Path,
    time::{Duration, Instant},
};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use othello::{
    Bitboard, ByColor, Clock, Color, ExportError, Game, LoadSettings, Outcome, Ply, Record,
    RecordFormat, RuleSet, Setup, Status, TimeControl, WinRule, analysis,
    engine::{
        EngineSettings, Limits, Occupant, Player, PlayerSpec, SearchReport, TimeBudget,
        eval::Score, new_player_with, seat_seed,
    },
};

use crate::{files, words};

use super::{
    Console, Input, PlayError, PlayOptions, Style, View, clock_text, command_help, describe,
    help_text, render,
};

/// What to do after a session.
pub(super) enum Next {
    Quit,
    /// A loaded game needs the other rule set.
    Switch(Box<Record>),
}

/// One rule set's games: the current game, the players, and the commands.
pub(super) struct Session<'c, 'o, 'p, R: RuleSet, I, O> {
    console: &'c mut Console<'o, I, O>,
    options: &'p mut PlayOptions,
    game: Game<R>,
    players: ByColor<Option<Box<dyn Player<R>>>>,
    /// Games started in this session: seeds the computer players of each.
    games: u64,
    /// The computer `go` and `mode` seat: the first computer seat's spec, else the engine.
    engine: PlayerSpec,
    /// The game clock (when there is one), on the session's time line ([`Session::now`]).
    clock: Option<Clock>,
    /// Where the session's time line starts.
    epoch: Instant,
    /// The turn being timed: whose, at which move, since when.
    turn: Option<Turn>,
    /// The side that lost on time, if one did.
    flagged: Option<Color>,
    /// Under `--on-time warn`: the sides told they are over time (each once a game).
    warned: ByColor<bool>,
}

/// A turn on the clock.
#[derive(Clone, Copy, Debug)]
struct Turn {
    side: Color,
    ply: usize,
    started: Instant,
}

impl<'c, 'o, 'p, R: RuleSet, I: Read, O: Write> Session<'c, 'o, 'p, R, I, O> {
    pub(super) fn new(
        console: &'c mut Console<'o, I, O>,
        options: &'p mut PlayOptions,
        start: &Record,
    ) -> Self {
        let engine = options
            .seats
            .iter()
            .find_map(|(_, seat)| match seat {
                Occupant::Computer(spec) => Some(*spec),
                Occupant::Human => None,
            })
            .unwrap_or(PlayerSpec::Engine(PlayerSpec::MAX_LEVEL));
        let mut session = Session {
            console,
            options,
            game: Game::new(start.setup),
            players: ByColor::default(),
            games: 0,
            engine,
            clock: None,
            epoch: Instant::now(),
            turn: None,
            flagged: None,
            warned: ByColor::default(),
        };
        session.restart(start.setup);
        // Records are checked when they are loaded (`Record::load`).
        session.game = start
            .replay_as::<R>()
            .unwrap_or_else(|_| Game::new(start.setup));
        session
    }

    /// A new game from `setup` with fresh computer players.
    fn restart(&mut self, setup: Setup) {
        self.game = Game::new(setup);
        self.games += 1;
        self.seat_players();
        self.restart_clocks();
    }

    /// The game clocks as they start (`Session::new` replays a loaded game after
    /// `restart`, so they start with its first turn here).
    fn restart_clocks(&mut self) {
        let now = self.now();
        self.clock = self.options.limits.game.map(|game| {
            let control = TimeControl::new(game.as_millis() as u64, 0);
            Clock::start(control, now)
        });
        self.turn = None;
        self.flagged = None;
        self.warned = ByColor::default();
    }

    /// Whether the game is over: played to its end, or lost on time.
    fn finished(&self) -> bool {
        self.flagged.is_some() || self.game.is_over()
    }

    /// Starts timing `side`'s turn, unless it is already being timed.
    fn start_turn(&mut self, side: Color) {
        let ply = self.game.history().len();
        if self
            .turn
            .is_none_or(|turn| turn.side != side || turn.ply != ply)
        {
            self.turn = Some(Turn {
                side,
                ply,
                started: Instant::now(),
            });
            // Its game clock runs from now (no turn's time is charged until then).
            let now = self.now();
            if let Some(clock) = &mut self.clock {
                clock.charge(None, now, false);
            }
        }
    }

    /// Time `color` has left on the game clock now (counting the turn under way).
    fn time_left(&self, color: Color) -> Option<Duration> {
        let running = self.turn.map(|turn| turn.side);
        let left = self.clock?.left_at(color, running, self.now());
        Some(Duration::from_millis(left))
    }

    /// Whether the side on turn has gone over its game clock or the limit per move.
    fn over_time(&self) -> bool {
        let Some(turn) = self.turn else {
            return false;
        };
        self.time_left(turn.side).is_some_and(|left| left.is_zero())
            || self
                .options
                .limits
                .per_move
                .is_some_and(|limit| turn.started.elapsed() > limit)
    }

    /// Checks the clock of the side on turn: over time, it loses (said so) or, when the
    /// clock only warns, is told so once a game. True if it lost.
    fn check_clock(&mut self) -> Result<bool, PlayError> {
        let Some(turn) = self.turn else {
            return Ok(false);
        };
        if !self.over_time() {
            return Ok(false);
        }
        let name = self.side_name(turn.side);
        if self.options.limits.warn_only {
            if !self.warned[turn.side] {
                self.warned[turn.side] = true;
                let text = format!("{name} is over time (the clock only warns: play on).");
                self.console.say(&self.style().warn(&text))?;
            }
            return Ok(false);
        }
        self.flagged = Some(turn.side);
        let text = format!(
            "Game over: {name} ran out of time, {} wins on time.",
            self.side_name(turn.side.opponent())
        );
        let text = self.style().strong(&text);
        self.console.say(&text)?;
        Ok(true)
    }

    /// Ends the turn under way: its time comes off the mover's game clock.
    fn end_turn(&mut self) {
        let now = self.now();
        if let Some(turn) = self.turn.take()
            && let Some(clock) = &mut self.clock
        {
            clock.charge(Some(turn.side), now, true);
        }
    }

    /// The computer's time for this move: its time per move, within the limit per move and
    /// a share of its game clock, as the engine's [`TimeBudget`] plans it.
    fn move_time(&self, side: Color) -> Duration {
        let budget = TimeBudget {
            per_move: self.options.time_per_move,
            move_limit: self.options.limits.per_move,
            left: self.time_left(side),
            increment: Duration::ZERO,
        };
        budget.move_time(self.game.board().empty_squares().count())
    }

    /// Milliseconds on the session's time line, for its clock.
    fn now(&self) -> i64 {
        self.epoch.elapsed().as_millis() as i64
    }

    /// What the computer players are told besides their level.
    fn engine_settings(&self) -> EngineSettings {
        EngineSettings {
            threads: Some(self.options.threads),
            no_book: self.options.no_book,
            ..EngineSettings::default()
        }
    }

    /// Computer players for the seats as they are now (the game goes on).
    fn seat_players(&mut self) {
        let (seed, games) = (self.options.seed, self.games);
        let seats = self.options.seats;
        let engine_settings = self.engine_settings();
        self.players = ByColor::from_fn(|color| match seats[color] {
            Occupant::Human => None,
            Occupant::Computer(spec) => Some(new_player_with::<R>(
                spec,
                seat_seed(seed, games, color),
                self.options.hash,
                &engine_settings,
            )),
        });
    }

    /// The legal moves, `d3 c4 f5 e6`.
    fn legal_list(&self) -> String {
        let legal: Vec<String> = self
            .game
            .legal_moves()
            .iter()
            .map(|s| s.to_string())
            .collect();
        legal.join(" ")
    }

    fn style(&self) -> Style {
        self.console.style
    }

    fn seat_of(&self, color: Color) -> Occupant {
        self.options.seats[color]
    }

    fn any_human(&self) -> bool {
        self.options.seats.contains(&Occupant::Human)
    }

    /// `● Black` (or `X Black`).
    fn side_name(&self, color: Color) -> String {
        format!("{} {}", self.style().disc(color), color_name(color))
    }

    pub(super) fn run(mut self) -> Result<Next, PlayError> {
        self.restart_clocks();
        self.show_board()?;
        self.announce_opening_pass()?;
        loop {
            if self.flagged.is_some() {
                if let Some(next) = self.after_game()? {
                    return Ok(next);
                }
                continue;
            }
            match self.game.status() {
                Status::ToMove(side) => {
                    self.start_turn(side);
                    if self.seat_of(side) != Occupant::Human {
                        self.computer_move(side)?;
                        continue;
                    }
                    let clock = self
                        .time_left(side)
                        .map_or_else(String::new, |left| format!(" ({})", clock_text(left)));
                    let prompt = format!("{} to move{clock}>", self.side_name(side));
                    let Some(line) = self.console.ask(&prompt)? else {
                        return Ok(Next::Quit);
                    };
                    if self.check_clock()? {
                        continue;
                    }
                    let input = Input::parse(&line, self.game.board().shape());
                    if let Some(next) = self.during_game(side, input)? {
                        return Ok(next);
                    }
                }
                Status::Over(outcome) => {
                    self.announce_result(outcome)?;
                    if let Some(next) = self.after_game()? {
                        return Ok(next);
                    }
                }
            }
        }
    }

    /// Handles one line typed by the person to move; `Some` ends the session.
    fn during_game(&mut self, side: Color, input: Input) -> Result<Option<Next>, PlayError> {
        match input {
            Input::Nothing => {}
            Input::Move(square) => {
                if self.game.is_legal(square) {
                    let ply = self.game.play(square).expect("a legal move");
                    self.end_turn();
                    self.after_ply(&ply)?;
                } else {
                    let why = if self.game.board().at(square).is_some() {
                        "the square is taken"
                    } else {
                        "it flips nothing"
                    };
                    let text = format!(
                        "{square} is not a legal move for {} ({why}); legal moves: {}",
                        color_name(side),
                        self.legal_list()
                    );
                    self.console.say(&self.style().warn(&text))?;
                }
            }
            Input::Yes | Input::No => {
                self.console
                    .say("the game is on: type a move, or quit to leave")?;
            }
            other => return self.command(other),
        }
        Ok(None)
    }

    /// After the game: play again, a command, or leave; `Some` ends the session.
    fn after_game(&mut self) -> Result<Option<Next>, PlayError> {
        loop {
            let Some(line) = self
                .console
                .ask("Play again with colours swapped? (y/n, or a command)>")?
            else {
                return Ok(Some(Next::Quit));
            };
            match Input::parse(&line, self.game.board().shape()) {
                Input::Nothing => {}
                Input::Yes => {
                    self.options.seats.swap_sides();
                    let ByColor { black, white } = self.options.seats;
                    self.console.say(&format!(
                        "New game: {} is {black}, {} is {white}.",
                        self.side_name(Color::Black),
                        self.side_name(Color::White)
                    ))?;
                    self.restart(*self.game.setup());
                    self.show_board()?;
                    self.announce_opening_pass()?;
                    return Ok(None);
                }
                Input::No | Input::Quit => return Ok(Some(Next::Quit)),
                Input::Move(_) => self
                    .console
                    .say("the game is over: y to play again, n to stop")?,
                other => {
                    let next = self.command(other)?;
                    if next.is_some() || !self.finished() {
                        return Ok(next);
                    }
                }
            }
        }
    }

    /// A command other than a move, at any time; `Some` ends the session.
    fn command(&mut self, input: Input) -> Result<Option<Next>, PlayError> {
        if self.flagged.is_some()
            && matches!(
                input,
                Input::Undo(_) | Input::Redo(_) | Input::PlayMoves(_) | Input::Go | Input::Hint(_)
            )
        {
            let text = "the game was lost on time: new, init or load starts another";
            self.console.say(&self.style().warn(text))?;
            return Ok(None);
        }
        match input {
            Input::Hint(count) => self.hint(count)?,
            Input::Undo(times) => self.undo(times)?,
            Input::Redo(times) => self.redo(times)?,
            Input::PlayMoves(squares) => self.play_moves(&squares)?,
            Input::SetBoard { cells, side } => self.set_board(&cells, side)?,
            Input::Go => self.go()?,
            Input::Mode(mode) => self.mode(mode)?,
            Input::Level(level) => self.level(level)?,
            Input::Time(time) => {
                self.options.time_per_move = time;
                self.console.say(&format!(
                    "The computer now takes {} a move.",
                    humantime::format_duration(time)
                ))?;
            }
            Input::Init => {
                let setup = Setup {
                    board: othello::Board::standard(self.game.board().shape()),
                    ..*self.game.setup()
                };
                self.restart(setup);
                self.console.say("New game from the standard start.")?;
                self.show_board()?;
                self.announce_opening_pass()?;
            }
            Input::Analyze => self.analyze()?,
            Input::History => self.history()?,
            Input::Save {
                path,
                grader,
                force,
            } => self.save(&path, grader, force)?,
            Input::Load(path) => return self.load(&path),
            Input::New => {
                self.restart(*self.game.setup());
                self.console.say("New game.")?;
                self.show_board()?;
                self.announce_opening_pass()?;
            }
            Input::Help(None) => self.console.say(help_text().trim_end())?,
            Input::Help(Some(topic)) => match command_help(&topic) {
                Some(text) => self.console.say(&text)?,
                None => self.console.say(
                    &self
                        .style()
                        .warn(&format!("no command {topic:?}: type help for the list")),
                )?,
            },
            Input::Quit => return Ok(Some(Next::Quit)),
            Input::Unknown(why) => self.console.say(&self.style().warn(&why))?,
            Input::Pass => {
                let text = match self.game.status() {
                    Status::ToMove(side) => format!(
                        "passes are automatic: a side with no legal move passes by itself, and \
                         {} has moves ({})",
                        color_name(side),
                        self.legal_list()
                    ),
                    Status::Over(_) => "the game is over: nobody moves or passes".to_owned(),
                };
                self.console.say(&self.style().warn(&text))?;
            }
            Input::Nothing | Input::Move(_) | Input::Yes | Input::No => {}
        }
        Ok(None)
    }

    /// The computer moves for `side`.
    fn computer_move(&mut self, side: Color) -> Result<(), PlayError> {
        let time = self.move_time(side);
        let player = self.players[side]
            .as_mut()
            .expect("a computer seat has a player");
        let spinner = if self.options.thinking {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"),
            );
            bar.set_message(format!(
                "{} ({}) is thinking",
                color_name(side),
                player.spec()
            ));
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        } else {
            ProgressBar::hidden()
        };
        let name = color_name(side);
        let mut progress = |report: &SearchReport| {
            spinner.set_message(format!(
                "{name} is thinking: depth {}, score {}",
                report.depth,
                Score(report.score)
            ));
        };
        let choice = player.choose(&self.game, &Limits::time(time), &mut progress);
        spinner.finish_and_clear();
        let square = choice.expect("a computer player moves whenever it has a move");
        if self.check_clock()? {
            return Ok(());
        }
        self.end_turn();
        let ply = self
            .game
            .play(square)
            .expect("computer players play legal moves");
        if !self.options.delay.is_zero() {
            self.console.out.flush()?;
            std::thread::sleep(self.options.delay);
        }
        self.after_ply(&ply)
    }

    /// Announces a move just played (and a pass it forces), then shows the board when a
    /// person is about to move, in computer-only games after every move, and at the end.
    fn after_ply(&mut self, ply: &Ply) -> Result<(), PlayError> {
        let flipped = ply.flips().count();
        self.console.say(&format!(
            "{} plays {} and flips {flipped}.",
            self.side_name(ply.side()),
            ply.square(),
        ))?;
        if self.game.side_to_move() == Some(ply.side()) {
            let opponent = ply.side().opponent();
            self.console.say(&format!(
                "{} has no legal move and passes.",
                self.side_name(opponent)
            ))?;
        }
        let next_is_human = self
            .game
            .side_to_move()
            .is_some_and(|side| self.seat_of(side) == Occupant::Human);
        if next_is_human || !self.any_human() || self.game.is_over() {
            self.show_board()?;
        }
        Ok(())
    }

    /// A pass before the first move (the first mover has no legal move).
    fn announce_opening_pass(&mut self) -> Result<(), PlayError> {
        let first = self.game.setup().first_mover;
        if self.game.history().is_empty() && self.game.side_to_move() == Some(first.opponent()) {
            self.console.say(&format!(
                "{} has no legal move and passes.",
                self.side_name(first)
            ))?;
        }
        Ok(())
    }

    /// The board with the score, the players and whose move it is beside it.
    fn show_board(&mut self) -> Result<(), PlayError> {
        let last = self.game.history().last().copied();
        let board = *self.game.board();
        let mut panel = Vec::new();
        for color in Color::ALL {
            let clock = self
                .time_left(color)
                .map_or_else(String::new, |left| format!("  {:>7}", clock_text(left)));
            panel.push(format!(
                "{} {:<12} {:>3}{clock}",
                self.side_name(color),
                self.seat_of(color).to_string(),
                board.count(color)
            ));
        }
        panel.push(String::new());
        panel.push(match self.game.status() {
            Status::ToMove(side) => format!(
                "move {}: {} to move",
                self.game.history().len() + 1,
                color_name(side)
            ),
            Status::Over(_) => format!(
                "game over after {}",
                words::count(self.game.history().len() as u64, "move")
            ),
        });
        let view = View {
            board: &board,
            legal: self.game.legal_moves(),
            last: last.map(|ply| ply.square()),
            flipped: last.map_or(Bitboard::EMPTY, |ply| ply.flips()),
            panel,
            width: self.console.width(),
        };
        let text = render::draw_board(&view, self.style());
        write!(self.console.out, "{text}")?;
        Ok(())
    }

    fn announce_result(&mut self, outcome: Outcome) -> Result<(), PlayError> {
        let board = self.game.board();
        let (black, white) = (board.count(Color::Black), board.count(Color::White));
        // Both counts named: "0 to 33" after "White wins" reads as White's 0.
        let score = format!("Black {black}, White {white}");
        let text = match (outcome, self.game.setup().win_rule) {
            (Outcome::Draw, _) => format!("Game over: a draw ({score})."),
            (Outcome::Win(color), WinRule::MostDiscs) => {
                format!("Game over: {} wins ({score}).", self.side_name(color))
            }
            (Outcome::Win(color), WinRule::FewestDiscs) => format!(
                "Game over: {} wins with fewer discs ({score}).",
                self.side_name(color)
            ),
        };
        let text = self.style().strong(&text);
        self.console.say(&text)?;
        Ok(())
    }

    fn hint(&mut self, count: usize) -> Result<(), PlayError> {
        let Status::ToMove(side) = self.game.status() else {
            return Ok(self.console.say("the game is over: no hints")?);
        };
        let setup = Setup {
            board: *self.game.board(),
            first_mover: side,
            win_rule: self.game.setup().win_rule,
        };
        let options = analysis::RankOptions {
            limits: Limits::time(self.options.time_per_move),
            hash: self.options.hash,
            threads: self.options.threads,
            ..analysis::RankOptions::new(R::VARIANT, count)
        };
        let hint = analysis::rank(&setup, &options, None, &mut |_| {});
        for line in super::hint_lines(&hint) {
            self.console.say(&line)?;
        }
        Ok(())
    }

    /// Takes moves back: to the previous turn of a person when a computer plays, `times`
    /// times.
    fn undo(&mut self, times: usize) -> Result<(), PlayError> {
        if !self.any_human() {
            return Ok(self.console.say("undo is for games a person plays")?);
        }
        let mut undone = Vec::new();
        for _ in 0..times {
            let human_moved = self
                .game
                .history()
                .iter()
                .any(|ply| self.seat_of(ply.side()) == Occupant::Human);
            if !human_moved {
                break;
            }
            while let Some(ply) = self.game.undo() {
                undone.push(ply.square().to_string());
                if self.seat_of(ply.side()) == Occupant::Human {
                    break;
                }
            }
        }
        if undone.is_empty() {
            return Ok(self.console.say("nothing to undo")?);
        }
        // In the order they were played, as redo lists them.
        undone.reverse();
        self.console
            .say(&format!("Took back {}.", undone.join(" ")))?;
        self.show_board()
    }

    /// Replays undone moves, up to the next turn of a person, `times` times.
    fn redo(&mut self, times: usize) -> Result<(), PlayError> {
        let mut redone = Vec::new();
        'turns: for _ in 0..times {
            while let Some(ply) = self.game.redo() {
                redone.push(ply.square().to_string());
                let next_is_human = self
                    .game
                    .side_to_move()
                    .is_some_and(|side| self.seat_of(side) == Occupant::Human);
                if next_is_human {
                    continue 'turns;
                }
            }
            break;
        }
        if redone.is_empty() {
            return Ok(self.console.say("nothing to redo")?);
        }
        self.console
            .say(&format!("Replayed {}.", redone.join(" ")))?;
        self.show_board()
    }

    /// The moves so far: numbered, Black and White side by side (`--` for a pass), and as
    /// one transcript string.
    fn history(&mut self) -> Result<(), PlayError> {
        if self.game.history().is_empty() {
            return Ok(self.console.say("no moves yet")?);
        }
        // Black's column first: a side that passed (or did not move first) gets `--`.
        let mut cells: Vec<String> = Vec::new();
        let mut expected = Color::Black;
        for ply in self.game.history() {
            if ply.side() != expected {
                cells.push("--".into());
            }
            cells.push(ply.square().to_string());
            expected = ply.side().opponent();
        }
        let mut text = String::new();
        for (number, pair) in cells.chunks(2).enumerate() {
            let line = format!("{:>3}. {}", number + 1, pair.join(" "));
            text.push_str(line.trim_end());
            text.push('\n');
        }
        let transcript: String = self.game.moves().map(|s| s.to_string()).collect();
        text.push_str(&format!("transcript: {transcript}"));
        self.console.say(&text)?;
        Ok(())
    }

    /// `play f5d6c3`: all the moves, or none if one is not legal.
    fn play_moves(&mut self, squares: &[othello::Square]) -> Result<(), PlayError> {
        let mut trial = self.game.clone();
        for (index, &square) in squares.iter().enumerate() {
            if trial.is_over() {
                let text = format!(
                    "the game is over after {}: nothing played",
                    squares[..index]
                        .iter()
                        .map(|s| s.to_string())
                        .collect::<String>()
                );
                return Ok(self.console.say(&self.style().warn(&text))?);
            }
            if let Err(error) = trial.play(square) {
                let text = format!(
                    "{square} (move {} of the {}) is not legal there ({}): nothing played",
                    index + 1,
                    squares.len(),
                    reason(&error)
                );
                return Ok(self.console.say(&self.style().warn(&text))?);
            }
        }
        self.game = trial;
        let played: Vec<String> = squares.iter().map(|s| s.to_string()).collect();
        self.console.say(&format!("Played {}.", played.join(" ")))?;
        self.show_board()
    }

    /// `setboard`: a new game from the position given.
    fn set_board(&mut self, cells: &str, side: Color) -> Result<(), PlayError> {
        let shape = self.game.board().shape();
        let mut board = othello::Board::empty(shape);
        for (square, cell) in shape.squares().zip(cells.chars()) {
            let disc = match cell {
                'x' | 'X' | 'b' | 'B' | '*' => Some(Color::Black),
                'o' | 'O' | 'w' | 'W' => Some(Color::White),
                _ => None,
            };
            board.set(square, disc);
        }
        let setup = Setup {
            board,
            first_mover: side,
            win_rule: self.game.setup().win_rule,
        };
        self.restart(setup);
        self.console.say(&format!(
            "New game from this position, {} to move first (new starts again from it).",
            color_name(side)
        ))?;
        self.show_board()?;
        self.announce_opening_pass()
    }

    /// `go`: the computer plays the side to move, whoever's seat it is.
    fn go(&mut self) -> Result<(), PlayError> {
        let Status::ToMove(side) = self.game.status() else {
            return Ok(self.console.say("the game is over: nothing to play")?);
        };
        if self.players[side].is_none() {
            let seed =
                seat_seed(self.options.seed, self.games, side) ^ self.game.history().len() as u64;
            self.players[side] = Some(new_player_with::<R>(
                self.engine,
                seed,
                self.options.hash,
                &self.engine_settings(),
            ));
            let result = self.computer_move(side);
            // The seat stays a person's.
            self.players[side] = None;
            return result;
        }
        self.computer_move(side)
    }

    /// `mode`: who the computer plays, as Edax numbers it.
    fn mode(&mut self, mode: u8) -> Result<(), PlayError> {
        let computer = Occupant::Computer(self.engine);
        self.options.seats = match mode {
            0 => ByColor::new(Occupant::Human, computer),
            1 => ByColor::new(computer, Occupant::Human),
            2 => ByColor::new(computer, computer),
            _ => ByColor::new(Occupant::Human, Occupant::Human),
        };
        self.seat_players();
        let ByColor { black, white } = self.options.seats;
        self.console.say(&format!(
            "{} is {black}, {} is {white}.",
            self.side_name(Color::Black),
            self.side_name(Color::White)
        ))?;
        Ok(())
    }

    /// `level`: the engine's level, for its seats now and for go.
    fn level(&mut self, level: u8) -> Result<(), PlayError> {
        let spec = match self.engine {
            PlayerSpec::Classic(_) => PlayerSpec::Classic(level),
            _ => PlayerSpec::Engine(level),
        };
        self.engine = spec;
        let mut changed = Vec::new();
        let mut others = Vec::new();
        for color in Color::ALL {
            let seat = &mut self.options.seats[color];
            match seat {
                Occupant::Computer(PlayerSpec::Engine(_) | PlayerSpec::Classic(_)) => {
                    *seat = Occupant::Computer(spec);
                    changed.push(color_name(color));
                }
                Occupant::Computer(other) => {
                    others.push(format!("{} stays {other}", color_name(color)))
                }
                Occupant::Human => {}
            }
        }
        self.seat_players();
        let mut text = match changed.as_slice() {
            [] => format!("The engine is now {spec}, for go and mode"),
            seats => format!("{} now plays as {spec}", seats.join(" and ")),
        };
        if !others.is_empty() {
            text.push_str(&format!(" ({})", others.join(", ")));
        }
        text.push('.');
        self.console.say(&text)?;
        Ok(())
    }

    /// `analyze`: every move so far against the best the engine finds.
    fn analyze(&mut self) -> Result<(), PlayError> {
        let moves: Vec<othello::Square> = self.game.moves().collect();
        if moves.is_empty() {
            return Ok(self.console.say("no moves to analyze yet")?);
        }
        let options = analysis::RankOptions {
            limits: Limits::time(self.options.time_per_move),
            hash: self.options.hash,
            threads: self.options.threads,
            ..analysis::RankOptions::new(R::VARIANT, 1)
        };
        let bar = if self.options.thinking {
            let bar = ProgressBar::with_draw_target(
                Some(moves.len() as u64),
                ProgressDrawTarget::stderr(),
            );
            bar.set_style(
                ProgressStyle::with_template("analyzing {bar:30} {pos}/{len} moves")
                    .expect("a valid template"),
            );
            bar
        } else {
            ProgressBar::hidden()
        };
        let reviews = analysis::review_game(
            R::VARIANT,
            self.game.setup(),
            &moves,
            &options,
            &mut |done| bar.set_position(done as u64),
        );
        bar.finish_and_clear();
        for line in super::review_lines(&reviews) {
            self.console.say(&line)?;
        }
        Ok(())
    }

    fn record(&self) -> Record {
        Record {
            players: self.options.seats.map(|seat| seat.to_string()).into_array(),
            date: self.options.date.clone(),
            ..Record::from_game(&self.game)
        }
    }

    /// Saves the game in the format its extension names (`.ggf` GGF, `.txt` a transcript,
    /// `.in` a grader input, anything else the game record; `grader` forces the grader
    /// input): written to a temporary file beside `path`, then renamed over it, so a failed
    /// save leaves what was there. A file there that is not a saved game (in any format a
    /// game loads from) is kept unless `force`.
    fn save(&mut self, path: &Path, grader: bool, force: bool) -> Result<(), PlayError> {
        let record = self.record();
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        let format = match extension.as_deref() {
            _ if grader => RecordFormat::Grader,
            Some("in") => RecordFormat::Grader,
            Some("ggf") => RecordFormat::Ggf,
            Some("txt") => RecordFormat::Transcript,
            _ => RecordFormat::Record,
        };
        let text = match record.export(format) {
            Ok(text) => text,
            Err(ExportError::Transcript) => {
                let text = "cannot save: a transcript (.txt) only holds games from the standard start with Black first; save it as FILE.rec (the game record) instead";
                return Ok(self.console.say(&self.style().warn(text))?);
            }
            Err(error) => {
                return Ok(self
                    .console
                    .say(&self.style().warn(&format!("cannot save: {error}")))?);
            }
        };
        let grader = format == RecordFormat::Grader;
        if files::is_irregular(path) {
            let text = format!(
                "cannot save {}: it is not a regular file (a directory, a FIFO or a device); saves go to files",
                path.display()
            );
            return Ok(self.console.say(&self.style().warn(&text))?);
        }
        let replacing = match files::read_text(path, files::GAME_FILE) {
            Ok(old) => Some(old.parse::<Record>().is_ok()),
            Err(error) if error.kind() == io::ErrorKind::NotFound => None,
            // A file we cannot read, or far too large to be a game: not one we may replace.
            Err(_) => Some(false),
        };
        if replacing == Some(false) && !force {
            let text = format!(
                "{} exists and is not a saved game: not replaced (save! {} replaces it)",
                path.display(),
                shell_words::quote(&path.display().to_string())
            );
            return Ok(self.console.say(&self.style().warn(&text))?);
        }
        let replaced = if replacing.is_some() {
            " (replacing what was there)"
        } else {
            ""
        };
        let message = match files::write_bytes(path, text.as_bytes()) {
            Ok(()) if grader => format!(
                "Saved a grader input to {}{replaced}: its expected output is `othello --rules {} < {}`.",
                path.display(),
                R::VARIANT.name(),
                path.display()
            ),
            Ok(()) => format!(
                "Saved the game to {}{replaced}{}.",
                path.display(),
                match format {
                    RecordFormat::Ggf => " (GGF)",
                    RecordFormat::Transcript => " (a transcript)",
                    _ => "",
                }
            ),
            Err(error) => self
                .style()
                .warn(&format!("cannot save {}: {error}", path.display())),
        };
        self.console.say(&message)?;
        Ok(())
    }

    fn load(&mut self, path: &Path) -> Result<Option<Next>, PlayError> {
        // A file that does not state its rules or start (a bare transcript, say) is loaded
        // under this game's.
        let settings = LoadSettings::defaults(R::VARIANT, *self.game.setup());
        let record = match super::read_record(path, &settings) {
            Ok(record) => record,
            Err(error) => {
                let text = match error {
                    super::LoadFileError::Read { .. } => error.to_string(),
                    super::LoadFileError::Load { .. } => format!("cannot load {error}"),
                };
                self.console.say(&self.style().warn(&text))?;
                return Ok(None);
            }
        };
        if record.variant != R::VARIANT {
            return Ok(Some(Next::Switch(Box::new(record))));
        }
        let game = record
            .replay_as::<R>()
            .unwrap_or_else(|_| Game::new(record.setup));
        self.restart(record.setup);
        self.game = game;
        self.console.say(&format!(
            "Loaded {} ({}, {}).",
            path.display(),
            describe(R::VARIANT, &record.setup),
            words::count(record.moves.len() as u64, "move")
        ))?;
        // A seat whose player cannot play this board (a net of another board) is told, and
        // who moves for it.
        let kind = othello::GameKind::new(
            R::VARIANT,
            record.setup.board.shape(),
            record.setup.win_rule,
        );
        for color in Color::ALL {
            if let Occupant::Computer(spec) = self.seat_of(color)
                && let Err(unfit) = spec.fits(kind)
            {
                let text = format!(
                    "{} {spec}: {unfit}; the engine with the hand-written evaluation moves for \
                     it in this game.",
                    color_name(color)
                );
                self.console.say(&self.style().warn(&text))?;
            }
        }
        self.show_board()?;
        Ok(None)
    }
}

/// Why a move was refused, in a few words: `the square is taken`.
fn reason(error: &othello::MoveError) -> String {
    let text = error.to_string();
    // "illegal move a1: it flips no disc" -> "it flips no disc"
    text.split_once(": ")
        .map_or(text.clone(), |(_, why)| why.to_owned())
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::Black => "Black",
        Color::White => "White",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_save_that_fails_halfway_leaves_the_old_file_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.txt");
        std::fs::write(&path, "the old game\n").unwrap();
        let failed = files::write_replacing(&path, |file| {
            file.write_all(b"half of the new")?;
            Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"))
        });
        assert_eq!(failed.unwrap_err().to_string(), "disk full");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "the old game\n");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file left behind");
        files::write_bytes(&path, b"the new game\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "the new game\n");
    }
}
