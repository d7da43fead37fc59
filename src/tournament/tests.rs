//! The schedule, games between built-in players, saving and resuming, and the report, in
//! memory and in temporary directories (external engines are tested through the binary in
//! `tests/tournament.rs`).

use std::{fs, time::Duration};

use super::{
    report::{Report, Standings},
    *,
};

fn options(specs: &[PlayerSpec], games: u32) -> TournamentOptions {
    let entrants = specs
        .iter()
        .enumerate()
        .map(|(index, spec)| Entrant {
            name: format!("p{index}"),
            kind: EntrantKind::BuiltIn(*spec),
        })
        .collect();
    TournamentOptions {
        entrants,
        games_per_pairing: games,
        gauntlet: None,
        openings: random_openings((games / 2) as usize, 4, 5),
        openings_source: OpeningsSource::Random(4),
        seed: 5,
        time_per_move: Duration::from_millis(5),
        threads: 1,
        no_book: false,
        engine_depth: 1,
        move_timeout: Duration::from_secs(5),
        save: None,
        date: Some("2026-01-01T00:00:00Z".into()),
    }
}

const THREE: [PlayerSpec; 3] = [
    PlayerSpec::Random,
    PlayerSpec::Greedy,
    PlayerSpec::Minimax(2),
];

#[test]
fn a_round_robin_pairs_everyone_and_swaps_colours() {
    let options = options(&THREE, 4);
    assert_eq!(pairings(&options), [(0, 1), (0, 2), (1, 2)]);
    let games = schedule(&options);
    assert_eq!(games.len(), 12);
    assert_eq!(
        games.iter().map(|g| g.number).collect::<Vec<_>>(),
        (1..=12).collect::<Vec<_>>()
    );
    // Opening by opening, each pairing's two games on it in a row, colours swapped.
    assert!(games[..6].iter().all(|g| g.opening == 0));
    assert!(games[6..].iter().all(|g| g.opening == 1));
    for pair in games.chunks(2) {
        assert_eq!(
            (pair[0].black, pair[0].white),
            (pair[1].white, pair[1].black)
        );
        assert_eq!(pair[0].opening, pair[1].opening);
    }
}

#[test]
fn a_gauntlet_pairs_one_player_with_each_other() {
    let mut options = options(&[PlayerSpec::Random; 4], 2);
    options.gauntlet = Some(2);
    assert_eq!(options.anchor(), 2);
    assert_eq!(pairings(&options), [(2, 0), (2, 1), (2, 3)]);
    assert!(
        schedule(&options)
            .iter()
            .all(|g| g.black == 2 || g.white == 2)
    );
}

#[test]
fn games_are_played_from_their_opening_and_repeat() {
    let options = options(&THREE, 2);
    let mut events = Vec::new();
    let played = run(&options, &mut |progress| {
        events.push(match progress {
            Progress::Resumed { played, total } => format!("resumed {played}/{total}"),
            Progress::Started(game) => format!("started {}", game.number),
            Progress::Finished { played, .. } => format!("finished {played}"),
        });
    })
    .unwrap();
    assert_eq!(events[0], "resumed 0/6");
    assert_eq!(events.len(), 13);
    assert_eq!(played.games.len(), 6);
    for game in &played.games {
        let opening = options.openings[game.opening].moves();
        assert!(game.moves.starts_with(opening));
        assert!(game.forfeit.is_none());
        let replayed = othello::Game::<Full>::replay(
            othello::Setup::standard(othello::Shape::STANDARD),
            game.moves.iter().copied(),
        )
        .unwrap();
        assert_eq!(replayed.outcome(), Some(game.outcome));
        assert_eq!(game.discs[0], replayed.count(Color::Black));
    }
    let again = run(&options, &mut |_| {}).unwrap();
    assert_eq!(
        again.games, played.games,
        "the same seed plays the same games"
    );

    let standings = Standings::new(&options, &played);
    let points: f64 = standings.rows.iter().map(|row| row.points).sum();
    assert_eq!(points, 6.0);
    assert!(
        standings
            .rows
            .iter()
            .all(|row| row.games == 4 && row.forfeits == 0)
    );
    assert_eq!(standings.rows[0].rating.unwrap().elo, 0.0);
    let best = standings.ranking[0];
    assert!(
        standings
            .ranking
            .iter()
            .all(|&p| standings.rows[p].points <= standings.rows[best].points)
    );
}

#[test]
fn a_saved_tournament_resumes_where_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = options(&THREE, 4);
    options.save = Some(dir.path().join("t"));
    let full = run(&options, &mut |_| {}).unwrap();
    let saved = dir.path().join("t");
    let ggf = fs::read_to_string(saved.join("0001-p0-p1.ggf")).unwrap();
    assert!(
        ggf.starts_with("(;GM[Othello]PB[p0]PW[p1]DT[2026-01-01T00:00:00Z]"),
        "{ggf}"
    );
    assert!(
        ggf.trim_end().ends_with("];)") && ggf.contains("RE["),
        "{ggf}"
    );
    assert!(
        fs::read_to_string(saved.join("tournament.json"))
            .unwrap()
            .contains("\"seed\": 5")
    );

    // Keep seven games and half of the eighth's line.
    let lines_path = saved.join("games.jsonl");
    let text = fs::read_to_string(&lines_path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 12);
    let mut cut = lines[..7].join("\n");
    cut.push('\n');
    cut.push_str(&lines[7][..lines[7].len() / 2]);
    fs::write(&lines_path, cut).unwrap();

    let mut resumed_from = None;
    let resumed = run(&options, &mut |progress| {
        if let Progress::Resumed { played, .. } = progress {
            resumed_from = Some(played);
        }
    })
    .unwrap();
    assert_eq!(resumed_from, Some(7));
    assert_eq!(resumed.resumed, 7);
    assert_eq!(resumed.games, full.games);
    assert_eq!(fs::read_to_string(&lines_path).unwrap(), text);

    // Everything played: nothing more to do.
    let done = run(&options, &mut |_| {}).unwrap();
    assert_eq!(done.resumed, 12);
    assert_eq!(done.games, full.games);
}

#[test]
fn a_directory_of_another_tournament_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = options(&THREE, 2);
    options.save = Some(dir.path().to_owned());
    run(&options, &mut |_| {}).unwrap();
    let mut other = options.clone();
    other.seed = 6;
    other.openings = random_openings(1, 4, 6);
    other.entrants[2].kind = EntrantKind::BuiltIn(PlayerSpec::Minimax(3));
    // The first run's lock is an flock: a process another test forks at that moment holds
    // it until it execs (seen once in CI), so the lock may take a moment to come free.
    let mut message = String::new();
    for _ in 0..50 {
        message = run(&other, &mut |_| {}).unwrap_err().to_string();
        if !message.contains("is in use by another othello tournament") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(
        message.contains("holds a different tournament"),
        "{message}"
    );
    assert!(message.contains("seed (saved 5; now 6)"), "{message}");
    assert!(
        message.contains("players (saved p0=random, p1=greedy, p2=minimax:2;"),
        "{message}"
    );
    assert!(message.contains("openings"), "{message}");
    assert!(!message.contains("time per move"), "{message}");
    // Another move timeout is the same tournament.
    let mut patient = options.clone();
    patient.move_timeout = Duration::from_secs(60);
    assert_eq!(run(&patient, &mut |_| {}).unwrap().resumed, 6);
}

/// Issue 22.2: a second run saving into the same directory is refused while the first
/// runs (both would write every game), and the directory is free again once it ends.
#[test]
fn regression_22_2_one_run_at_a_time_saves_into_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = options(&THREE, 2);
    options.save = Some(dir.path().to_owned());
    let mut second = None;
    run(&options, &mut |_| {
        if second.is_none() {
            second = Some(run(&options, &mut |_| {}).map(drop));
        }
    })
    .unwrap();
    let message = second.unwrap().unwrap_err().to_string();
    assert!(
        message.contains(&format!(
            "is in use by another othello tournament (process {})",
            std::process::id()
        )),
        "{message}"
    );
    let lines = fs::read_to_string(dir.path().join("games.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 6, "each game once");
    assert_eq!(run(&options, &mut |_| {}).unwrap().resumed, 6);
}

#[test]
fn damaged_games_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = options(&THREE, 2);
    options.save = Some(dir.path().to_owned());
    run(&options, &mut |_| {}).unwrap();
    let path = dir.path().join("games.jsonl");
    let text = fs::read_to_string(&path).unwrap();
    let damage = |from: &str, to: &str| {
        let changed = text.replacen(from, to, 1);
        assert_ne!(changed, text, "{from}");
        fs::write(&path, changed).unwrap();
        run(&options, &mut |_| {}).unwrap_err().to_string()
    };
    let first: GameLineProbe = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let message = damage("\"black\":\"p0\"", "\"black\":\"p2\"");
    assert!(
        message.contains("line 1: game 1 is p2 against p1"),
        "{message}"
    );
    let message = damage(&format!("\"moves\":\"{}", first.moves), "\"moves\":\"a1");
    assert!(message.contains("line 1: game 1: "), "{message}");
    let first_line = text.lines().next().unwrap();
    let message = damage(first_line, &format!("{first_line}\n{first_line}"));
    assert!(
        message.contains("line 2: game 1 is there twice"),
        "{message}"
    );
    let message = damage("{\"game\":1,", "{\"gam");
    assert!(message.contains("games.jsonl: line 1: "), "{message}");
}

/// Just what a test needs of a saved line.
#[derive(serde::Deserialize)]
struct GameLineProbe {
    moves: String,
}

#[test]
fn the_text_report_adds_up() {
    let mut options = options(&THREE, 2);
    options.gauntlet = Some(1);
    let played = run(&options, &mut |_| {}).unwrap();
    let standings = Standings::new(&options, &played);
    let text = report::text(Report {
        options: &options,
        played: &played,
        standings: &standings,
        saved: None,
    });
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("Gauntlet of p1: 3 players, 2 pairings of 2 games, 4 games"),
        "{text}"
    );
    assert!(lines[3].starts_with("#  player"), "{text}");
    // A row per player: the crosstable cells and games add up.
    let mut total_points = 0.0;
    for line in &lines[4..7] {
        let words: Vec<&str> = line.split_whitespace().collect();
        let cells: f64 = words[2..5]
            .iter()
            .filter_map(|w| w.parse::<f64>().ok())
            .sum();
        let points: f64 = words[6].parse().unwrap();
        assert_eq!(cells, points, "{line}");
        total_points += points;
        if words[1] == "p1" {
            assert_eq!(words[8], "0", "{line}");
            assert!(line.contains("anchor"), "{line}");
        } else {
            assert!(words.contains(&"-"), "p0 and p2 never meet: {line}");
        }
    }
    assert_eq!(total_points, 4.0);
    assert!(text.contains("anchored at 0 on p1"), "{text}");
    assert!(!text.contains("Forfeits"), "{text}");

    let json: serde_json::Value = serde_json::from_str(&report::json(Report {
        options: &options,
        played: &played,
        standings: &standings,
        saved: None,
    }))
    .unwrap();
    assert_eq!(json["format"], "gauntlet");
    assert_eq!(json["ratings"]["anchor"], "p1");
    assert_eq!(json["games"].as_array().unwrap().len(), 4);
    assert_eq!(json["pairings"].as_array().unwrap().len(), 2);
}

#[test]
fn forfeits_are_reported_with_their_reason() {
    let options = options(&THREE, 2);
    let mut played = run(&options, &mut |_| {}).unwrap();
    let game = &mut played.games[0];
    let opening = options.openings[game.opening].moves().len();
    game.moves.truncate(opening);
    let side = options.openings[game.opening]
        .game()
        .side_to_move()
        .unwrap();
    game.forfeit = Some(Forfeit {
        side,
        kind: ForfeitKind::Timeout,
        reason: "no move within 5 ms".into(),
    });
    game.outcome = Outcome::Win(side.opponent());
    let standings = Standings::new(&options, &played);
    let loser = game_forfeiter(&played);
    assert_eq!(standings.rows[loser].forfeits, 1);
    let text = report::text(Report {
        options: &options,
        played: &played,
        standings: &standings,
        saved: None,
    });
    assert!(text.contains("Forfeits:\n  game 1 (p"), "{text}");
    assert!(
        text.contains(&format!("move {}): no move within 5 ms", opening + 1)),
        "{text}"
    );
    let json = report::json(Report {
        options: &options,
        played: &played,
        standings: &standings,
        saved: None,
    });
    assert!(json.contains("\"forfeit\":{\"player\":\"p"), "{json}");
    assert!(
        json.contains("\"kind\":\"timeout\",\"reason\":\"no move within 5 ms\""),
        "{json}"
    );
}

fn game_forfeiter(played: &Played) -> usize {
    played.games[0].forfeiter().unwrap()
}
