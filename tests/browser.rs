//! The page in a real browser: Debian's `chromium`, headless, driven through `chromedriver`
//! (WebDriver) against a real `othello serve`. A person plays the engine to the end by
//! clicking; two browsers play each other and see each other's moves; screenshots go to
//! `target/screenshots/`.
//!
//! Needs `chromium` and `chromium-driver` (Debian's packages; `.ci/run` installs them). On a
//! machine without them the tests say so and pass, except under `CI=true`, where a missing
//! browser is a failure.

mod common;
#[path = "common/postgres.rs"]
mod postgres;
#[path = "common/server.rs"]
mod server;

use std::{
    os::unix::process::CommandExt,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use fantoccini::{Client, ClientBuilder, Locator};
use postgres::TestDb;
use serde_json::{Value, json};
use server::{Server, create};

/// Where screenshots go.
fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A program on the PATH (or in /usr/bin).
fn find(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin")])
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// A running chromedriver; killed when dropped.
struct Driver {
    child: Child,
    url: String,
    chromium: PathBuf,
    profiles: tempfile::TempDir,
}

impl Drop for Driver {
    /// Stops chromedriver and every browser it started (its process group): a test that
    /// fails before closing its browser leaves nothing running.
    fn drop(&mut self) {
        // SAFETY: signalling the process group our own child leads (made with
        // `process_group(0)` below), not yet reaped.
        unsafe {
            libc::kill(-(self.child.id() as i32), libc::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A chromedriver on a port of its choosing, and the port; `None` if it exits (or stays
/// silent for 30 s) before naming it.
fn start_chromedriver(chromedriver: &Path) -> Option<(Child, u16)> {
    let mut child = Command::new(chromedriver)
        .arg("--port=0")
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let stdout = child.stdout.take().expect("piped");
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        let mut sender = Some(sender);
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(port) = line
                .split_once("started successfully on port ")
                .and_then(|(_, rest)| rest.trim_end_matches('.').parse::<u16>().ok())
                && let Some(sender) = sender.take()
            {
                let _ = sender.send(port);
            }
        }
    });
    match receiver.recv_timeout(Duration::from_secs(30)) {
        Ok(port) => Some((child, port)),
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            None
        }
    }
}

/// Starts chromedriver, or says why not: `None` only off CI.
fn driver() -> Option<Driver> {
    let (Some(chromedriver), Some(chromium)) = (find("chromedriver"), find("chromium")) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium and chromium-driver are needed: apt-get install chromium chromium-driver"
        );
        eprintln!("skipped: install chromium and chromium-driver to run the browser tests");
        return None;
    };
    // Port 0: chromedriver picks a free port and names it (a port picked here could be
    // taken by a server of another test before chromedriver binds it). With many tests
    // starting at once a chromedriver now and then exits before naming it: another try.
    let (child, port) = (1..=3)
        .find_map(|attempt| {
            let started = start_chromedriver(&chromedriver);
            if started.is_none() {
                eprintln!("chromedriver named no port (try {attempt} of 3)");
            }
            started
        })
        .expect("chromedriver names its port");
    let url = format!("http://127.0.0.1:{port}");
    Some(Driver {
        child,
        url,
        chromium,
        profiles: tempfile::tempdir().unwrap(),
    })
}

/// A new headless browser (its own profile: a context of its own) `width` pixels wide.
async fn browser(driver: &Driver, name: &str, width: u32, height: u32) -> Client {
    let profile = driver.profiles.path().join(name);
    let capabilities = json!({
        "goog:chromeOptions": {
            "binary": driver.chromium,
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-quic",
                format!("--window-size={width},{height}"),
                format!("--user-data-dir={}", profile.display()),
            ],
        }
    });
    let serde_json::Value::Object(capabilities) = capabilities else {
        unreachable!()
    };
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(capabilities)
        .connect(&driver.url)
        .await
        .expect("a browser session")
}

/// Waits until `script` (a JavaScript expression) is true on the page. A script that
/// throws (an element not drawn yet, a page still loading) is not true yet.
async fn wait_for(client: &Client, script: &str, what: &str) {
    let start = Instant::now();
    loop {
        let value = client
            .execute(
                &format!(
                    "try {{ return Boolean({script}); }} catch (error) {{ return String(error); }}"
                ),
                vec![],
            )
            .await
            .expect("the script runs");
        if value == Value::Bool(true) {
            return;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let name = format!("failed-{}.png", what.replace(' ', "-"));
            screenshot(client, &name).await;
            let state = client
                .execute(
                    "const id = location.pathname.split('/')[2]; if (!id) return null; \
                     const request = new XMLHttpRequest(); \
                     request.open('GET', '/api/games/' + id, false); request.send(); \
                     return request.responseText;",
                    vec![],
                )
                .await
                .ok();
            panic!(
                "never: {what} (see target/screenshots/{name}); the script's last answer: \
                 {value}; the game: {state:?}"
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The text an element shows, read in one step in the page (a list the page draws again
/// meanwhile leaves no stale element behind).
async fn text_of(client: &Client, selector: &str) -> String {
    let script = format!(
        "const element = document.querySelector({}); return element ? element.innerText : null;",
        serde_json::to_string(selector).unwrap()
    );
    let text = client
        .execute(&script, vec![])
        .await
        .expect("the script runs");
    // Table cells apart by a space, as WebDriver's text has them (innerText: a tab).
    text.as_str()
        .unwrap_or_else(|| panic!("no element {selector}"))
        .replace('\t', " ")
}

async fn screenshot(client: &Client, name: &str) {
    let png = client.screenshot().await.expect("a screenshot");
    std::fs::write(screenshots().join(name), png).unwrap();
}

/// Waits for the evaluation graph (where this viewer gets one) and for the discs to stop
/// turning, for a screenshot.
async fn settle(client: &Client) {
    wait_for(
        client,
        "document.querySelector('#evaluation').hidden || document.querySelector('#graph svg')",
        "the graph",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(600)).await;
}

/// The value of the JavaScript expression `script` on the page.
async fn eval(client: &Client, script: &str) -> Value {
    client
        .execute(&format!("return {script};"), vec![])
        .await
        .expect("the script runs")
}

/// Clicks the square `name` of the board.
async fn click_square(client: &Client, name: &str) {
    client
        .find(Locator::Css(&format!("g.cell[data-square='{name}']")))
        .await
        .expect("the square is drawn")
        .click()
        .await
        .expect("the square takes a click");
}

async fn a_person_plays_the_engine_to_the_end_by_clicking(db: TestDb) {
    let Some(driver) = driver() else {
        return;
    };
    let server = Server::start(&db);
    let client = browser(&driver, "solo", 1280, 1000).await;
    client.goto(&format!("{}/", server.url)).await.unwrap();
    wait_for(
        &client,
        "!document.querySelector('#new-game').hidden",
        "the form",
    )
    .await;
    screenshot(&client, "new-game.png").await;
    // A 6x6 game against the engine at level 2, 50 ms a move.
    for (name, value) in [
        ("rows", "6"),
        ("columns", "6"),
        ("white-level", "2"),
        ("white-time", "50"),
    ] {
        let input = client
            .find(Locator::Css(&format!(
                "#new-game-form input[name='{name}']"
            )))
            .await
            .unwrap();
        input.clear().await.unwrap();
        input.send_keys(value).await.unwrap();
    }
    client
        .find(Locator::Css("#new-game-form button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &client,
        "location.pathname.startsWith('/g/')",
        "the game page",
    )
    .await;
    wait_for(
        &client,
        "document.querySelector('svg.interactive g.cell.legal')",
        "Black's turn",
    )
    .await;
    // Issue 47: the page says what is played; what cannot be used yet is hidden; a
    // click on an illegal square says so.
    assert_eq!(
        text_of(&client, "#game-line").await,
        "Othello \u{b7} most discs wins \u{b7} 6\u{d7}6 \u{b7} untimed casual"
    );
    for (control, hidden) in [
        ("#undo-button", true),
        ("#redo-button", true),
        ("#after-end", true),
        ("#resign-button", false),
    ] {
        assert_eq!(
            eval(
                &client,
                &format!("document.querySelector('{control}').hidden")
            )
            .await,
            hidden,
            "{control} before the first move"
        );
    }
    click_square(&client, "a1").await;
    assert_eq!(text_of(&client, "#notice").await, "a1 is not a legal move");
    wait_for(
        &client,
        "document.querySelector('#notice').textContent === ''",
        "the notice to go by itself",
    )
    .await;
    // Click the first legal square each turn until the banner says the game is over.
    let mut clicks = 0;
    loop {
        wait_for(
            &client,
            "!document.querySelector('#banner').hidden || document.querySelector('svg.interactive g.cell.legal')",
            "a legal square or the end",
        )
        .await;
        let over = client
            .execute("return !document.querySelector('#banner').hidden;", vec![])
            .await
            .unwrap();
        if over == Value::Bool(true) {
            break;
        }
        let square = client
            .execute(
                "return document.querySelector('svg.interactive g.cell.legal').dataset.square;",
                vec![],
            )
            .await
            .unwrap();
        let square = square.as_str().unwrap().to_owned();
        click_square(&client, &square).await;
        clicks += 1;
        if clicks == 3 {
            screenshot(&client, "against-the-engine.png").await;
        }
        // The square is taken once the move is made.
        wait_for(
            &client,
            &format!("!document.querySelector(\"g.cell[data-square='{square}']\").classList.contains('empty')"),
            "the move to show",
        )
        .await;
        assert!(clicks < 40, "a 6x6 game has at most 32 moves each");
    }
    let banner = text_of(&client, "#banner").await;
    assert!(banner.starts_with("Game over: "), "{banner}");
    assert!(
        banner.contains("wins") || banner.contains("Draw"),
        "{banner}"
    );
    let (black, white): (u32, u32) = (
        text_of(&client, "#player-B .count").await.parse().unwrap(),
        text_of(&client, "#player-W .count").await.parse().unwrap(),
    );
    let expected = match black.cmp(&white) {
        std::cmp::Ordering::Greater => "Black wins",
        std::cmp::Ordering::Less => "White wins",
        std::cmp::Ordering::Equal => "Draw",
    };
    assert!(banner.contains(expected), "{banner} with {black}-{white}");
    // Over: what cannot be used is hidden, a rematch and a new game lead.
    for (control, hidden) in [
        ("#hint-button", true),
        ("#undo-button", true),
        ("#redo-button", true),
        ("#resign-button", true),
        ("#after-end", false),
        ("#rematch-button", false),
        ("#new-game-link", false),
    ] {
        assert_eq!(
            eval(
                &client,
                &format!("document.querySelector('{control}').hidden")
            )
            .await,
            hidden,
            "{control} after the end"
        );
    }
    // The exports offered are those the server writes for a 6x6 game: no GGF.
    let offered = client
        .execute(
            "return [...document.querySelectorAll('#export a')].filter(a => !a.hidden).map(a => a.dataset.format);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        offered,
        serde_json::json!(["transcript", "record", "grader"])
    );
    settle(&client).await;
    screenshot(&client, "game-over.png").await;
    client.close().await.unwrap();
}

#[tokio::test]
async fn two_browsers_play_each_other_and_see_each_others_moves() {
    let db = TestDb::sqlite();
    two_browsers_play_each_other(&[Server::start(&db)], true).await;
}

/// The same on two servers sharing PostgreSQL: Black's browser on one, White's on the
/// other.
#[tokio::test]
async fn two_browsers_on_two_servers_sharing_postgresql_play_each_other() {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    two_browsers_play_each_other(&[Server::start(&db), Server::start(&db)], false).await;
}

/// Black's browser on the first server, White's on the last; screenshots when `shots`.
async fn two_browsers_play_each_other(servers: &[Server], shots: bool) {
    let Some(driver) = driver() else {
        return;
    };
    let (server, other) = (&servers[0], &servers[servers.len() - 1]);
    let game = create(server, json!({})).await;
    let black_url = game["seats"]["black"]["url"].as_str().unwrap().to_owned();
    let white_url =
        game["seats"]["white"]["url"]
            .as_str()
            .unwrap()
            .replacen(&server.url, &other.url, 1);
    let black = browser(&driver, "black", 1280, 1000).await;
    let white = browser(&driver, "white", 390, 900).await;
    black.goto(&black_url).await.unwrap();
    white.goto(&white_url).await.unwrap();
    for client in [&black, &white] {
        wait_for(client, "document.querySelector('.board svg')", "the board").await;
    }
    // Each sees the other connected.
    wait_for(
        &black,
        "document.querySelector('#player-W .presence').textContent === 'connected'",
        "White connected",
    )
    .await;
    wait_for(
        &white,
        "document.querySelector('#player-B .presence').textContent === 'connected'",
        "Black connected",
    )
    .await;
    // Black plays d3 by clicking; it appears in White's browser.
    wait_for(
        &black,
        "document.querySelector('svg.interactive')",
        "Black's turn",
    )
    .await;
    click_square(&black, "d3").await;
    wait_for(
        &white,
        "document.querySelector(\"g.cell[data-square='d3']\").classList.contains('black')",
        "Black's move in White's browser",
    )
    .await;
    // White answers with the keyboard: arrows to c5, Enter.
    wait_for(
        &white,
        "document.querySelector('svg.interactive')",
        "White's turn",
    )
    .await;
    // Focused as Tab would focus it (a click would put the cursor where it clicked).
    let board = white.find(Locator::Css(".board svg")).await.unwrap();
    let keys = "\u{E015}\u{E015}\u{E015}\u{E015}\u{E014}\u{E014}"; // down x4 (row 5), right x2 (c)
    white
        .execute("document.querySelector('.board svg').focus();", vec![])
        .await
        .unwrap();
    board.send_keys(keys).await.unwrap();
    let cursor = white
        .execute(
            "return document.querySelector('.board svg').getAttribute('aria-activedescendant');",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(cursor, "c5");
    board.send_keys("\u{E007}").await.unwrap(); // Enter
    wait_for(
        &black,
        "document.querySelector(\"g.cell[data-square='c5']\").classList.contains('white')",
        "White's move in Black's browser",
    )
    .await;
    assert!(
        text_of(&black, "#status")
            .await
            .starts_with("Black to move (you)")
    );
    settle(&black).await;
    if shots {
        screenshot(&black, "two-players-black.png").await;
        screenshot(&white, "two-players-white-phone.png").await;
    }
    // The move list and the review of a position.
    black
        .find(Locator::Css("#moves li button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &black,
        "!document.querySelector('#review').hidden",
        "the review",
    )
    .await;
    wait_for(
        &black,
        "document.querySelector(\"g.cell[data-square='c5']\").classList.contains('empty')",
        "the position after move 1",
    )
    .await;
    black.close().await.unwrap();
    white.close().await.unwrap();
}

async fn engines_play_each_other_and_the_watcher_pauses_and_steps_them(db: TestDb) {
    let Some(driver) = driver() else {
        return;
    };
    let server = Server::start(&db);
    let client = browser(&driver, "engines", 1280, 1000).await;
    client.goto(&format!("{}/", server.url)).await.unwrap();
    wait_for(
        &client,
        "!document.querySelector('#new-game').hidden",
        "the form",
    )
    .await;
    // Engines on both seats: level 1, 20 ms a move, 300 ms between moves.
    for (name, value) in [("black-kind", "engine"), ("white-kind", "engine")] {
        client
            .execute(
                &format!(
                    "const s = document.querySelector(\"select[name='{name}']\"); s.value = '{value}'; \
                     s.dispatchEvent(new Event('change', {{bubbles: true}}));"
                ),
                vec![],
            )
            .await
            .unwrap();
    }
    wait_for(
        &client,
        "!document.querySelector('#speed-label').hidden",
        "the pace field",
    )
    .await;
    for (name, value) in [
        ("black-level", "1"),
        ("white-level", "1"),
        ("black-time", "20"),
        ("white-time", "20"),
        ("speed", "300"),
    ] {
        let input = client
            .find(Locator::Css(&format!(
                "#new-game-form input[name='{name}']"
            )))
            .await
            .unwrap();
        input.clear().await.unwrap();
        input.send_keys(value).await.unwrap();
    }
    client
        .find(Locator::Css("#new-game-form button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &client,
        "location.hash.startsWith('#control=')",
        "the control link",
    )
    .await;
    // It plays while watched.
    wait_for(
        &client,
        "document.querySelectorAll('#moves button').length >= 2",
        "moves",
    )
    .await;
    wait_for(
        &client,
        "!document.querySelector('#bot-controls').hidden",
        "the controls",
    )
    .await;
    client
        .find(Locator::Css("#pause-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &client,
        "document.querySelector('#pause-button').textContent === 'Resume'",
        "paused",
    )
    .await;
    // Paused: a step plays exactly one move.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let count = "document.querySelectorAll('#moves button').length";
    let before = client
        .execute(&format!("return {count};"), vec![])
        .await
        .unwrap();
    let before = before.as_u64().unwrap();
    client
        .find(Locator::Css("#step-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &client,
        &format!("{count} === {}", before + 1),
        "one more move",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    let after = client
        .execute(&format!("return {count};"), vec![])
        .await
        .unwrap();
    assert_eq!(
        after.as_u64(),
        Some(before + 1),
        "still paused after the step"
    );
    settle(&client).await;
    screenshot(&client, "engines.png").await;
    // Resumed without pauses between moves, it plays to the end.
    client
        .execute(
            "const pace = document.querySelector('#speed-input'); pace.value = 0; \
             pace.dispatchEvent(new Event('change'));",
            vec![],
        )
        .await
        .unwrap();
    wait_for(
        &client,
        "document.querySelector('#speed-output').textContent === '0 ms'",
        "no pause between moves",
    )
    .await;
    client
        .find(Locator::Css("#pause-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &client,
        "!document.querySelector('#banner').hidden",
        "the end",
    )
    .await;
    // Issue 21.12: nothing to pause once over; the spectators' link is offered; the
    // controller alone is not counted as watching.
    assert_eq!(
        eval(&client, "document.querySelector('#watching').hidden").await,
        true
    );
    for control in ["#pause-button", "#step-button", "#pace-label"] {
        assert_eq!(
            eval(
                &client,
                &format!("document.querySelector('{control}').hidden")
            )
            .await,
            true,
            "{control} once over"
        );
    }
    let link = eval(&client, "document.querySelector('#invite input').value").await;
    let path = eval(&client, "location.pathname").await;
    assert!(
        link.as_str().unwrap().ends_with(path.as_str().unwrap()),
        "{link} for {path}"
    );
    client.close().await.unwrap();
}

async fn between_two_browsers_an_undo_waits_for_the_other_player(db: TestDb) {
    let Some(driver) = driver() else {
        return;
    };
    let server = Server::start(&db);
    let game = create(&server, json!({"rows": 6, "columns": 6})).await;
    let black = browser(&driver, "undo-black", 1280, 1000).await;
    let white = browser(&driver, "undo-white", 1280, 1000).await;
    black
        .goto(game["seats"]["black"]["url"].as_str().unwrap())
        .await
        .unwrap();
    white
        .goto(game["seats"]["white"]["url"].as_str().unwrap())
        .await
        .unwrap();
    wait_for(
        &black,
        "document.querySelector('svg.interactive')",
        "Black's turn",
    )
    .await;
    click_square(&black, "c2").await;
    wait_for(
        &white,
        "document.querySelector(\"g.cell[data-square='c2']\").classList.contains('black')",
        "c2 at White's",
    )
    .await;
    // Black asks to take it back; White sees the request and accepts.
    black
        .find(Locator::Css("#undo-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &black,
        "document.querySelector('#undo-request .text').textContent.startsWith('Waiting')",
        "the request sent",
    )
    .await;
    wait_for(
        &white,
        "!document.querySelector('#undo-request').hidden",
        "the request shown",
    )
    .await;
    let asked = text_of(&white, "#undo-request .text").await;
    assert_eq!(asked, "Black asks to take back a move.");
    white
        .find(Locator::Css("#undo-request button[data-action='accept']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    for client in [&black, &white] {
        wait_for(
            client,
            "document.querySelector(\"g.cell[data-square='c2']\").classList.contains('empty')",
            "c2 taken back",
        )
        .await;
    }
    wait_for(
        &black,
        "document.querySelector('svg.interactive')",
        "Black's turn again",
    )
    .await;
    black.close().await.unwrap();
    white.close().await.unwrap();
}

/// Issues 21.9 and 21.10: boards of every shape fit a 1280 x 900 window both ways; hints
/// are marks on the board's squares, gone when the position changes.
#[tokio::test]
async fn regression_21_9_and_10_boards_fit_the_window_and_hints_sit_on_the_board() {
    let Some(driver) = driver() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path().join("games.db"));
    let client = browser(&driver, "shapes", 1280, 900).await;
    for (rows, columns) in [(10, 6), (16, 4), (4, 16), (16, 16)] {
        let game = create(
            &server,
            json!({"rows": rows, "columns": columns, "white": "engine:1", "time_ms": 20}),
        )
        .await;
        client
            .goto(game["seats"]["black"]["url"].as_str().unwrap())
            .await
            .unwrap();
        wait_for(&client, "document.querySelector('.board svg')", "the board").await;
        let fits = eval(
            &client,
            "(() => { const board = document.querySelector('#game .board svg').getBoundingClientRect(); \
             const column = document.querySelector('#game .board-wrap').getBoundingClientRect(); \
             return [board.width, board.height, board.bottom, window.innerHeight, \
                     board.right <= column.right + 1, board.width > 100]; })()",
        )
        .await;
        let (height, bottom, window) = (
            fits[1].as_f64().unwrap(),
            fits[2].as_f64().unwrap(),
            fits[3].as_f64().unwrap(),
        );
        assert!(
            bottom <= window && height <= window,
            "{rows}x{columns}: the board is {height} px tall and ends at {bottom} in a {window} px window"
        );
        assert_eq!(
            fits[4], true,
            "{rows}x{columns} is wider than its column: {fits}"
        );
        assert_eq!(fits[5], true, "{rows}x{columns} is drawn too small: {fits}");
        screenshot(&client, &format!("board-{rows}x{columns}.png")).await;
    }

    // Hints on the board: the best moves' squares are marked, with their scores.
    let game = create(&server, json!({"white": "engine:1", "time_ms": 20})).await;
    client
        .goto(game["seats"]["black"]["url"].as_str().unwrap())
        .await
        .unwrap();
    wait_for(
        &client,
        "document.querySelector('svg.interactive')",
        "Black's turn",
    )
    .await;
    client
        .find(Locator::Css("#hint-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &client,
        "document.querySelectorAll('g.cell.hint').length === 3",
        "three hints on the board",
    )
    .await;
    let marked = eval(
        &client,
        "[...document.querySelectorAll('g.cell.hint')].map(cell => cell.classList.contains('legal') && cell.querySelector('.hint-text').textContent !== '')",
    )
    .await;
    assert_eq!(
        marked,
        json!([true, true, true]),
        "hints sit on legal squares, scored"
    );
    assert_eq!(
        eval(&client, "document.querySelectorAll('g.cell.best').length").await,
        1
    );
    screenshot(&client, "hints-on-the-board.png").await;
    // A move: the hints were for the position before it.
    let best = eval(
        &client,
        "document.querySelector('g.cell.best').dataset.square",
    )
    .await;
    click_square(&client, best.as_str().unwrap()).await;
    wait_for(
        &client,
        "document.querySelectorAll('g.cell.hint').length === 0 && document.querySelector('#hints').hidden",
        "the hints cleared",
    )
    .await;
    client.close().await.unwrap();
}

/// Issues 21.8, 21.11 and 21.12 on the page: between people the seats get no help unless
/// the game was made with it, spectators are told they watch and counted, an undo request
/// can be withdrawn, the invite outlives its tab, a server that went away is said plainly
/// and the page recovers when it is back, the grader export says its rules, "1 move".
async fn regression_21_11_and_12_the_page_between_people(db: TestDb) {
    let Some(driver) = driver() else {
        return;
    };
    let server = Server::start(&db);
    let black = browser(&driver, "people-black", 1280, 1000).await;
    // Black makes the game on the page (a SIMPLE one, two people, no help).
    black.goto(&format!("{}/", server.url)).await.unwrap();
    wait_for(
        &black,
        "!document.querySelector('#new-game').hidden",
        "the form",
    )
    .await;
    black
        .execute(
            "const form = document.querySelector('#new-game-form'); \
             form.elements.rules.value = 'simple'; \
             form.elements['white-kind'].value = 'human'; \
             form.dispatchEvent(new Event('change', {bubbles: true}));",
            vec![],
        )
        .await
        .unwrap();
    wait_for(
        &black,
        "!document.querySelector('#help-label').hidden",
        "the help option",
    )
    .await;
    black
        .find(Locator::Css("#new-game-form button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &black,
        "document.querySelector('svg.interactive')",
        "Black's turn",
    )
    .await;
    assert_eq!(
        eval(&black, "document.querySelector('#hint-button').hidden").await,
        true
    );
    assert_eq!(
        eval(&black, "document.querySelector('#evaluation').hidden").await,
        true
    );
    let note = text_of(&black, "#help-note").await;
    assert_eq!(note, "No engine help in this game while it is played.");
    let export = text_of(&black, "#export-note").await;
    assert!(
        export.contains("othello --rules simple < othello-"),
        "{export}"
    );
    // The invite is there in another tab of the same browser.
    let game_url = eval(&black, "location.href")
        .await
        .as_str()
        .unwrap()
        .to_owned();
    let first = black.window().await.unwrap();
    let tab = black.new_window(true).await.unwrap();
    black.switch_to_window(tab.handle).await.unwrap();
    black.goto(&game_url).await.unwrap();
    wait_for(
        &black,
        "!document.querySelector('#invite').hidden",
        "the invite in a new tab",
    )
    .await;
    let invite = eval(&black, "document.querySelector('#invite input').value").await;
    assert!(invite.as_str().unwrap().contains("#secret="), "{invite}");
    black.close_window().await.unwrap();
    black.switch_to_window(first).await.unwrap();

    // A spectator: told it watches; Black sees it counted.
    let spectator = browser(&driver, "people-spectator", 1280, 1000).await;
    let id = game_url
        .split("/g/")
        .nth(1)
        .unwrap()
        .split('#')
        .next()
        .unwrap()
        .to_owned();
    spectator
        .goto(&format!("{}/g/{id}", server.url))
        .await
        .unwrap();
    wait_for(
        &spectator,
        "!document.querySelector('#watching').hidden",
        "watching",
    )
    .await;
    assert_eq!(
        text_of(&spectator, "#watching").await,
        "You are watching this game."
    );
    wait_for(
        &black,
        "document.querySelector('#watching').textContent === '1 person is watching.'",
        "the count at Black's",
    )
    .await;
    assert_eq!(
        eval(&spectator, "document.querySelector('#hint-button').hidden").await,
        true
    );

    // Black moves, asks to undo, and withdraws the request.
    let square = eval(
        &black,
        "document.querySelector('svg.interactive g.cell.legal').dataset.square",
    )
    .await;
    click_square(&black, square.as_str().unwrap()).await;
    wait_for(&black, "document.querySelector('#undo-button').textContent === 'Ask to undo' && !document.querySelector('#undo-button').disabled && !document.querySelector('#undo-button').hidden", "undo possible").await;
    black
        .find(Locator::Css("#undo-button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &black,
        "!document.querySelector(\"#undo-request button[data-action='cancel']\").hidden",
        "Withdraw",
    )
    .await;
    black
        .find(Locator::Css("#undo-request button[data-action='cancel']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &black,
        "document.querySelector('#undo-request').hidden",
        "the request withdrawn",
    )
    .await;
    // The home page lists the game, once (issue 47.6: one list), its people as guests.
    spectator.goto(&format!("{}/", server.url)).await.unwrap();
    wait_for(
        &spectator,
        "!document.querySelector('#playing-list').parentElement.hidden",
        "the list",
    )
    .await;
    let listed = text_of(&spectator, "#playing-list").await;
    assert!(
        listed.contains("guest") && !listed.contains("human"),
        "{listed}"
    );
    let path = eval(&black, "location.pathname").await;
    let links = format!(
        "document.querySelectorAll(\"a[href='{}']\").length",
        path.as_str().unwrap()
    );
    assert_eq!(eval(&spectator, &links).await, 1, "listed once");

    // The server goes away: the page says so plainly, then recovers when it is back.
    let address = server.url.trim_start_matches("http://").to_owned();
    server.kill();
    wait_for(
        &black,
        "document.querySelector('#connection').textContent.includes('unreachable')",
        "the server gone",
    )
    .await;
    black.find(Locator::Css("#resign-button")).await.unwrap();
    black
        .execute(
            "window.confirm = () => true; document.querySelector('#resign-button').click();",
            vec![],
        )
        .await
        .unwrap();
    wait_for(
        &black,
        "document.querySelector('#notice').textContent !== ''",
        "a notice",
    )
    .await;
    let notice = text_of(&black, "#notice").await;
    assert!(
        notice.starts_with("The server cannot be reached"),
        "{notice}"
    );
    assert!(!notice.contains("Failed to fetch"), "{notice}");
    assert_eq!(
        text_of(&black, "#player-B .presence").await,
        "",
        "no stale presence"
    );
    screenshot(&black, "server-unreachable.png").await;
    let server = Server::start_command(Server::command_at(&db, &address, &[]));
    wait_for(
        &black,
        "document.querySelector('#connection').textContent === 'live'",
        "live again",
    )
    .await;
    wait_for(
        &black,
        "document.querySelector('#notice').textContent === ''",
        "the notice gone",
    )
    .await;
    drop(server);
    black.close().await.unwrap();
    spectator.close().await.unwrap();
}

/// Sets a form control by script and tells the page (as a person changing it would).
async fn set_value(client: &Client, selector: &str, value: &str) {
    client
        .execute(
            "const control = document.querySelector(arguments[0]); control.value = arguments[1]; \
             control.dispatchEvent(new Event('change', {bubbles: true}));",
            vec![json!(selector), json!(value)],
        )
        .await
        .expect("the control is there");
}

/// Issue 25: a guest posts a timed challenge in the lobby; another, in a second browser,
/// sees it arrive without reloading and accepts it; both pages go to the game, whose
/// clocks run on the side to move.
#[tokio::test]
async fn a_challenge_posted_in_the_lobby_is_taken_from_another_browser() {
    let db = TestDb::sqlite();
    a_challenge_taken_from_another_browser(&[Server::start(&db)], true).await;
}

/// The same on two servers sharing PostgreSQL: Ann's lobby on one, Bob's on the other.
#[tokio::test]
async fn a_challenge_posted_on_one_server_is_taken_from_a_browser_on_another() {
    let Some(db) = TestDb::postgres() else {
        return;
    };
    a_challenge_taken_from_another_browser(&[Server::start(&db), Server::start(&db)], false).await;
}

/// Ann's browser on the first server, Bob's on the last; screenshots when `shots`.
async fn a_challenge_taken_from_another_browser(servers: &[Server], shots: bool) {
    let Some(driver) = driver() else {
        return;
    };
    let (server, other) = (&servers[0], &servers[servers.len() - 1]);
    let ann = browser(&driver, "lobby-ann", 1100, 900).await;
    let bob = browser(&driver, "lobby-bob", 1100, 900).await;
    for (client, server) in [(&ann, server), (&bob, other)] {
        client.goto(&server.url).await.unwrap();
        wait_for(
            client,
            "document.querySelector('#connection').textContent === 'live'",
            "the lobby is live",
        )
        .await;
    }
    set_value(&ann, "#seek-form input[name='name']", "Ann").await;
    set_value(&ann, "#seek-form select[name='control']", "3+2").await;
    set_value(&ann, "#seek-form select[name='color']", "B").await;
    ann.find(Locator::Css("#seek-form button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &bob,
        "document.querySelectorAll('#seeks tbody tr').length === 1",
        "the challenge reaches the other lobby",
    )
    .await;
    let row = text_of(&bob, "#seeks tbody tr").await;
    assert!(
        // The name is isolated (first strong isolate ... pop): a direction mark in it
        // cannot turn the text around it (issue 44.6).
        row.contains("\u{2068}Ann\u{2069} (guest)")
            && row.contains("3+2")
            && row.contains("plays Black"),
        "{row}"
    );
    wait_for(
        &ann,
        "document.querySelector('#seeks tbody tr button')?.textContent === 'Withdraw'",
        "the poster sees it as theirs",
    )
    .await;
    if shots {
        screenshot(&bob, "lobby.png").await;
    }
    // Clicked in the page: the lobby may be drawn again at any moment (an element found
    // first could be gone by the click).
    bob.execute(
        "document.querySelector('#seeks tbody tr button').click();",
        vec![],
    )
    .await
    .unwrap();
    for client in [&ann, &bob] {
        wait_for(
            client,
            "location.pathname.startsWith('/g/') && document.querySelector('#clock-B') && !document.querySelector('#clock-B').hidden",
            "the game with its clocks",
        )
        .await;
    }
    assert_eq!(
        eval(&ann, "location.pathname").await,
        eval(&bob, "location.pathname").await
    );
    // No clock runs before a side's first move (issue 47): a line counts down the time
    // left to make it.
    wait_for(
        &ann,
        "!document.querySelector('#first-move').hidden && document.querySelector('#first-move').textContent.includes(\"Black's first move: \") && document.querySelector('#first-move').textContent.includes(' s left, or the game is aborted') && !document.querySelector('#clock-B').classList.contains('running') && document.querySelector('#player-B .name').textContent.includes('\u{2068}Ann\u{2069} (you)')",
        "Black's first move is awaited, Ann's seat",
    )
    .await;
    if shots {
        screenshot(&ann, "first-move.png").await;
    }
    click_square(&ann, "d3").await;
    wait_for(
        &bob,
        "document.querySelector('#first-move').textContent.includes(\"White's first move\") && !document.querySelector('#clock-W').classList.contains('running')",
        "White's first move is awaited",
    )
    .await;
    click_square(&bob, "c5").await;
    for client in [&ann, &bob] {
        wait_for(
            client,
            "document.querySelector('#first-move').hidden && document.querySelector('#clock-B').classList.contains('running')",
            "Black's clock runs after both first moves",
        )
        .await;
    }
    click_square(&ann, "d6").await;
    wait_for(
        &bob,
        "document.querySelector('#clock-W').classList.contains('running')",
        "White's clock runs after Black's move",
    )
    .await;
    let black = text_of(&bob, "#clock-B").await;
    assert!(
        black.starts_with("3:0") || black.starts_with("2:5"),
        "{black}"
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    if shots {
        screenshot(&bob, "game-with-clocks.png").await;
    }
    // Red team (issue 47): back at the lobby, the poster stays there (the taken challenge
    // led to its game once, not every time).
    ann.goto(&server.url).await.unwrap();
    wait_for(
        &ann,
        "document.querySelector('#connection').textContent === 'live'",
        "the lobby again",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(eval(&ann, "location.pathname").await, "/");
}

/// Registers `name` through the page's dialog; the page comes back signed in.
async fn register(client: &Client, name: &str) {
    wait_for(
        client,
        "[...document.querySelectorAll('#account button')].some(b => b.textContent === 'Register')",
        "the account box",
    )
    .await;
    client
        .execute(
            "[...document.querySelectorAll('#account button')].find(b => b.textContent === 'Register').click();",
            vec![],
        )
        .await
        .unwrap();
    for (field, value) in [("name", name), ("password", "a good password")] {
        client
            .find(Locator::Css(&format!("#login input[name='{field}']")))
            .await
            .unwrap()
            .send_keys(value)
            .await
            .unwrap();
    }
    client
        .find(Locator::Css("#login button[value='ok']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        client,
        &format!("document.querySelector('#account').textContent.includes('Signed in as {name}')"),
        "signed in",
    )
    .await;
}

/// Two browsers (profiles `PREFIX-ann` and `PREFIX-bob`) registered as ann and bob, each
/// on the lobby with its live channel up.
async fn ann_and_bob_in_the_lobby(
    driver: &Driver,
    server: &Server,
    prefix: &str,
) -> (Client, Client) {
    let ann = browser(driver, &format!("{prefix}-ann"), 1100, 900).await;
    let bob = browser(driver, &format!("{prefix}-bob"), 1100, 900).await;
    for (client, name) in [(&ann, "ann"), (&bob, "bob")] {
        client.goto(&server.url).await.unwrap();
        register(client, name).await;
        wait_for(
            client,
            "document.querySelector('#connection').textContent === 'live'",
            "the lobby is live",
        )
        .await;
    }
    (ann, bob)
}

/// Issue 25: two members in two browsers; one posts a rated timed challenge, the other
/// takes it from the lobby; the game is lost on time; both ratings move and both player
/// pages show the game. A guest plays the computer from the lobby in one click.
async fn members_play_a_rated_timed_game_and_their_pages_show_it(db: TestDb) {
    let Some(driver) = driver() else {
        return;
    };
    let server = Server::start(&db);
    let (ann, bob) = ann_and_bob_in_the_lobby(&driver, &server, "member").await;
    // A three-second game: a time control the form does not offer, added to its list.
    ann.execute(
        "const control = document.querySelector(\"#seek-form select[name='control']\"); \
         control.add(new Option('3 s', '0.05+0')); control.value = '0.05+0'; \
         document.querySelector(\"#seek-form input[name='rated']\").checked = true;",
        vec![],
    )
    .await
    .unwrap();
    set_value(&ann, "#seek-form select[name='color']", "B").await;
    ann.find(Locator::Css("#seek-form button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &bob,
        "document.querySelectorAll('#seeks tbody tr').length === 1",
        "the challenge reaches the other lobby",
    )
    .await;
    let row = text_of(&bob, "#seeks tbody tr").await;
    assert!(
        row.contains("ann (1500?)") && row.contains("rated"),
        "{row}"
    );
    // Clicked in the page: the lobby may be drawn again at any moment (an element found
    // first could be gone by the click).
    bob.execute(
        "document.querySelector('#seeks tbody tr button').click();",
        vec![],
    )
    .await
    .unwrap();
    for client in [&ann, &bob] {
        wait_for(
            client,
            "location.pathname.startsWith('/g/') && document.querySelector('#status').textContent.includes('rated')",
            "the rated game",
        )
        .await;
    }
    wait_for(
        &ann,
        "document.querySelector('#player-B .name').textContent.includes('ann\u{2069} (1500?) (you)') && document.querySelector('#player-W .name').textContent.includes('bob\u{2069} (1500?)')",
        "ann's seat",
    )
    .await;
    click_square(&ann, "d3").await;
    wait_for(
        &bob,
        "document.querySelector('#first-move').textContent.includes(\"White's first move\")",
        "bob's turn",
    )
    .await;
    click_square(&bob, "c5").await;
    // Ann does not answer: her three seconds run out.
    for client in [&ann, &bob] {
        wait_for(
            client,
            "document.querySelector('#banner').textContent.includes(\"Black's time ran out: White wins\")",
            "the loss on time",
        )
        .await;
    }
    assert_eq!(text_of(&bob, "#clock-B").await, "0:00.0");
    // The rating change at the end (issue 47.4).
    wait_for(
        &bob,
        "!document.querySelector('#player-W .change').hidden",
        "the rating changes",
    )
    .await;
    let (lost, won) = (
        text_of(&bob, "#player-B .change").await,
        text_of(&bob, "#player-W .change").await,
    );
    assert!(
        lost.starts_with('\u{2212}') && won.starts_with('+'),
        "{lost} {won}"
    );
    screenshot(&bob, "lost-on-time.png").await;
    let today = eval(
        &ann,
        "((d) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`)(new Date())",
    )
    .await
    .as_str()
    .unwrap()
    .to_owned();
    for (client, name, result, higher) in [
        (&ann, "ann", "lost on time", false),
        (&bob, "bob", "won on time", true),
    ] {
        client
            .goto(&format!("{}/u/{name}", server.url))
            .await
            .unwrap();
        wait_for(
            client,
            "document.querySelectorAll('#player-games tbody tr').length === 1",
            "the player page's games",
        )
        .await;
        let rating = text_of(client, "#player-ratings tbody tr").await;
        assert!(rating.contains("full-8x8-bullet"), "{rating}");
        let number = rating_in_row(&rating);
        assert_eq!(number > 1500, higher, "{rating}");
        // A date per game (ISO), the result in words (issue 47).
        let game = text_of(client, "#player-games tbody tr").await;
        assert!(
            game.starts_with(&today) && game.contains(result) && game.contains("rated"),
            "{game}"
        );
        let since = text_of(client, "#player-since").await;
        assert_eq!(since, format!("Member since {today}."));
        wait_for(
            client,
            "document.querySelector('#player-graph svg')",
            "the graph",
        )
        .await;
    }
    screenshot(&ann, "player-page.png").await;
    // A guest plays the computer from the lobby, in one click.
    let guest = browser(&driver, "guest", 1100, 900).await;
    guest.goto(&server.url).await.unwrap();
    wait_for(
        &guest,
        "document.querySelector('#play-computer')",
        "the lobby",
    )
    .await;
    guest
        .find(Locator::Css("#play-computer"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &guest,
        "location.pathname.startsWith('/g/') && document.querySelector('#player-W .name').textContent.includes('engine:5')",
        "a game against the engine",
    )
    .await;
    // Another board and rule from the same box (issue 47.16): 10 x 10, fewest discs 6 x 6.
    for (game, cells, rule) in [
        ("full:10:10:most", 100, "most discs"),
        ("full:6:6:fewest", 36, "fewest discs"),
    ] {
        guest.goto(&server.url).await.unwrap();
        wait_for(
            &guest,
            "document.querySelector('#computer-game')",
            "the lobby again",
        )
        .await;
        set_value(&guest, "#computer-game", game).await;
        guest
            .find(Locator::Css("#play-computer"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_for(
            &guest,
            &format!("location.pathname.startsWith('/g/') && document.querySelectorAll('#board g.cell').length === {cells}"),
            "a game on another board",
        )
        .await;
        let line = text_of(&guest, "#game-line").await;
        assert!(line.contains(rule), "{line}");
    }
    // Every computer level has a page, rated games or not (issue 44.8).
    guest
        .goto(&format!("{}/u/engine:9", server.url))
        .await
        .unwrap();
    wait_for(
        &guest,
        "document.querySelector('#player-since').textContent.startsWith('A computer player')",
        "a computer level's page",
    )
    .await;
    assert_eq!(text_of(&guest, "#player-name").await, "engine:9");
    for client in [ann, bob, guest] {
        client.close().await.unwrap();
    }
}

/// The class grader's HTML reports, opened as files: the class page lists the submissions
/// and the failure classes, a submission's page shows a failure with the expected and
/// actual lines first (trailing spaces made visible) and the transcript folded, and the
/// similarity report flags the copies with their shared code side by side.
#[tokio::test]
async fn the_class_reports_open_in_a_browser() {
    let Some(driver) = driver() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let submissions = dir.path().join("submissions");
    let student = common::fixture("students/student.py");
    for (name, bug) in [
        ("ann", None),
        ("ben", Some("trailing-space")),
        ("cy", Some("prompt")),
    ] {
        let folder = submissions.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::copy(&student, folder.join("student.py")).unwrap();
        let argv = match bug {
            Some(bug) => format!("['student.py', '--bug', '{bug}']"),
            None => "['student.py']".to_owned(),
        };
        let main = format!(
            "import runpy, sys\nsys.argv = {argv}\n\
             runpy.run_path(__file__.rsplit('/', 1)[0] + '/student.py', run_name='__main__')\n"
        );
        std::fs::write(folder.join("main.py"), main).unwrap();
    }
    let out = dir.path().join("report");
    let output = common::othello()
        .arg("grade")
        .arg(&submissions)
        .args(["--generate", "5", "--timeout", "3"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let client = browser(&driver, "class-report", 1100, 900).await;
    client
        .goto(&format!("file://{}", out.join("index.html").display()))
        .await
        .unwrap();
    let body = text_of(&client, "body").await;
    for expected in [
        "3 submissions",
        "ann",
        "trailing-whitespace",
        "extra-output",
    ] {
        assert!(body.contains(expected), "{expected}: {body}");
    }
    screenshot(&client, "grade-class.png").await;
    client
        .find(Locator::LinkText("ben"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &client,
        "document.querySelector('.failure pre') !== null",
        "a failure with its transcript",
    )
    .await;
    let page = text_of(&client, "body").await;
    assert!(
        page.contains("Submission ben") && page.contains("expected"),
        "{page}"
    );
    assert!(page.contains("·\""), "a trailing space shown: {page}");
    // The difference is shown first; the transcript is folded until opened.
    let folded: bool = client
        .execute(
            "return !document.querySelector('.failure details').open",
            vec![],
        )
        .await
        .unwrap()
        .as_bool()
        .unwrap();
    assert!(folded, "the transcript starts folded");
    screenshot(&client, "grade-submission.png").await;
    // All three hand in the same student.py: the similarity report flags every pair and
    // shows the shared code side by side.
    client
        .goto(&format!("file://{}", out.join("similarity.html").display()))
        .await
        .unwrap();
    let similar = text_of(&client, "body").await;
    assert!(similar.contains("3 pairs listed, 3 flagged"), "{similar}");
    screenshot(&client, "grade-similarity.png").await;
    client
        .find(Locator::LinkText("1"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &client,
        "document.querySelector('table.side pre') !== null",
        "a passage",
    )
    .await;
    screenshot(&client, "grade-similar-pair.png").await;
    client.close().await.unwrap();
}

/// Issue 47.11: a correspondence challenge from the lobby's form ("3 days a move"), taken
/// in another browser; each member finds the game under "Your turn" on the home page when
/// it waits for them (with the days left), plays from there, and the player page lists it.
async fn members_play_a_correspondence_game_from_their_turn_lists(db: TestDb) {
    let Some(driver) = driver() else {
        return;
    };
    let server = Server::start(&db);
    let (ann, bob) = ann_and_bob_in_the_lobby(&driver, &server, "daily").await;
    set_value(&ann, "#seek-form select[name='control']", "days:3").await;
    set_value(&ann, "#seek-form select[name='color']", "B").await;
    ann.find(Locator::Css("#seek-form button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &bob,
        "document.querySelectorAll('#seeks tbody tr').length === 1",
        "the challenge reaches the other lobby",
    )
    .await;
    let row = text_of(&bob, "#seeks tbody tr").await;
    assert!(row.contains("3 days a move casual"), "{row}");
    bob.execute(
        "document.querySelector('#seeks tbody tr button').click();",
        vec![],
    )
    .await
    .unwrap();
    for client in [&ann, &bob] {
        wait_for(
            client,
            "location.pathname.startsWith('/g/') && document.querySelector('#game-line').textContent.includes('3 days a move casual')",
            "the correspondence game",
        )
        .await;
    }
    wait_for(
        &ann,
        "document.querySelector('#first-move').textContent === \"Black's first move: 2d 23h left, or the game is aborted\"",
        "the days for the first move",
    )
    .await;
    let game = eval(&ann, "location.pathname")
        .await
        .as_str()
        .unwrap()
        .to_owned();
    // Before any move: Ann's home page lists the game as waiting for her, three days left.
    ann.goto(&server.url).await.unwrap();
    wait_for(
        &ann,
        "document.querySelectorAll('#turn-list li').length === 1",
        "ann's turn list",
    )
    .await;
    let listed = text_of(&ann, "#turn-list li").await;
    assert!(
        listed.contains("vs \u{2068}bob\u{2069}")
            && listed.contains("3 days a move")
            && listed.contains("move 1")
            && listed.contains("2d 23h left"),
        "{listed}"
    );
    screenshot(&ann, "your-turn.png").await;
    ann.execute("document.querySelector('#turn-list a').click();", vec![])
        .await
        .unwrap();
    // The board's squares are drawn once the game's state has come (the page's `#board` is
    // there before): wait for the square itself.
    wait_for(
        &ann,
        &format!(
            "location.pathname === '{game}' && document.querySelector(\"g.cell[data-square='d3']\")"
        ),
        "the game from the list",
    )
    .await;
    click_square(&ann, "d3").await;
    wait_for(
        &ann,
        "document.querySelector('#first-move').textContent.includes(\"White's first move\")",
        "bob's turn",
    )
    .await;
    // Bob was on the game page all along; his home page now lists it, and Ann's is empty.
    bob.goto(&server.url).await.unwrap();
    wait_for(
        &bob,
        "document.querySelectorAll('#turn-list li').length === 1",
        "bob's turn list",
    )
    .await;
    assert!(text_of(&bob, "#turn-list li").await.contains("move 2"));
    ann.goto(&server.url).await.unwrap();
    wait_for(
        &ann,
        "document.querySelector('#connection').textContent === 'live'",
        "ann's lobby",
    )
    .await;
    assert!(eval(&ann, "document.querySelector('#turn').hidden").await == json!(true));
    // Anyone sees on Bob's page that the game waits for his move.
    ann.goto(&format!("{}/u/bob", server.url)).await.unwrap();
    wait_for(
        &ann,
        "document.querySelectorAll('#player-turn-list li').length === 1",
        "bob's page",
    )
    .await;
    assert_eq!(
        text_of(&ann, "#player-turn-title").await,
        "Waiting for bob's move"
    );
    screenshot(&ann, "player-turn.png").await;
}

/// Issue 47.12: a member makes a Swiss from the lobby's form; another sees it in their
/// lobby, opens it and joins; its maker starts it; both pages show round 1 and the game
/// being played, live; one resigns; both pages show it over with the standings.
async fn members_make_join_and_play_a_tournament_from_the_lobby(db: TestDb) {
    let Some(driver) = driver() else {
        return;
    };
    let server = Server::start(&db);
    let (ann, bob) = ann_and_bob_in_the_lobby(&driver, &server, "swiss").await;
    ann.execute(
        "document.querySelector('#tournament-new').open = true;",
        vec![],
    )
    .await
    .unwrap();
    set_value(&ann, "#tournament-form input[name='name']", "Friday Swiss").await;
    set_value(&ann, "#tournament-form input[name='rounds']", "1").await;
    set_value(&ann, "#tournament-form input[name='rows']", "6").await;
    set_value(&ann, "#tournament-form input[name='columns']", "6").await;
    set_value(&ann, "#tournament-form input[name='starts']", "60").await;
    ann.find(Locator::Css("#tournament-form button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &ann,
        "location.pathname.startsWith('/t/') && document.querySelector('#tournament-name').textContent === 'Friday Swiss'",
        "the tournament's page",
    )
    .await;
    let about = text_of(&ann, "#tournament-about").await;
    assert!(
        about.contains("Swiss, 1 round") && about.contains("6×6") && about.contains("3+2 rated"),
        "{about}"
    );
    let state = text_of(&ann, "#tournament-state").await;
    assert!(
        state.contains("starts in 59:5") && state.contains("1 player"),
        "{state}"
    );
    // Bob's lobby lists it, live; he opens it and joins.
    wait_for(
        &bob,
        "document.querySelector('#tournament-list').textContent.includes('Friday Swiss')",
        "the tournament in the other lobby",
    )
    .await;
    bob.execute(
        "document.querySelector('#tournament-list a').click();",
        vec![],
    )
    .await
    .unwrap();
    wait_for(
        &bob,
        "location.pathname.startsWith('/t/') && !document.querySelector('#tournament-join').hidden",
        "the join button",
    )
    .await;
    assert!(
        eval(&bob, "document.querySelector('#tournament-start').hidden").await == Value::Bool(true)
    );
    bob.execute(
        "document.querySelector('#tournament-join').click();",
        vec![],
    )
    .await
    .unwrap();
    wait_for(
        &ann,
        "document.querySelectorAll('#tournament-standings tbody tr').length === 2",
        "bob in ann's standings, live",
    )
    .await;
    ann.execute(
        "document.querySelector('#tournament-start').click();",
        vec![],
    )
    .await
    .unwrap();
    for client in [&ann, &bob] {
        wait_for(
            client,
            "document.querySelector('#tournament-state').textContent.startsWith('round 1 of 1') && document.querySelector('#tournament-rounds').textContent.includes('playing')",
            "round 1 being played",
        )
        .await;
    }
    screenshot(&ann, "tournament-running.png").await;
    // Bob goes to his game from the standings and resigns. The standings may be drawn a
    // moment after the rounds: wait for the link before clicking it.
    wait_for(
        &bob,
        "document.querySelector('#tournament-standings a[href^=\"/g/\"]') !== null",
        "a link to Bob's game in the standings",
    )
    .await;
    bob.execute(
        "document.querySelector('#tournament-standings a[href^=\"/g/\"]').click();",
        vec![],
    )
    .await
    .unwrap();
    wait_for(
        &bob,
        "location.pathname.startsWith('/g/') && document.querySelector('#resign-button') && !document.querySelector('#resign-button').hidden",
        "bob's tournament game",
    )
    .await;
    bob.execute(
        "window.confirm = () => true; document.querySelector('#resign-button').click();",
        vec![],
    )
    .await
    .unwrap();
    wait_for(
        &ann,
        "document.querySelector('#tournament-state').textContent.startsWith('over')",
        "the tournament over, on ann's page",
    )
    .await;
    let first = text_of(&ann, "#tournament-standings tbody tr").await;
    assert!(first.contains("ann") && first.contains("1–0–0"), "{first}");
    let rounds = text_of(&ann, "#tournament-rounds").await;
    // Bob resigned at the start: ann has the empty squares too (34 of 36).
    assert!(
        rounds.contains("Round 1")
            && (rounds.contains("1-0 (34–2)") || rounds.contains("0-1 (2–34)")),
        "{rounds}"
    );
    screenshot(&ann, "tournament.png").await;
}

/// Issue 47.13: the analysis board. A move list pasted in its form; the engine's lines
/// deepen with their depth@probability and every legal move's value on its square; the
/// graph; the explorer (with the server's own finished game); a move chosen in the list, a
/// variation played on the board, the link that comes back to the same position; and a
/// finished game's "Analyse this game".
async fn the_analysis_board_shows_the_engine_s_lines_the_graph_and_the_explorer(db: TestDb) {
    let Some(driver) = driver() else {
        return;
    };
    // The explorer's games: a WTHOR file imported (a guest's game of the server's does
    // not count: anyone could make them up).
    let dir = tempfile::tempdir().unwrap();
    let wtb = dir.path().join("games.wtb");
    let mut games = othello::wthor::WthorGames::new(othello::Shape::STANDARD, 2026).unwrap();
    let mut record = othello::Record::new(
        othello::Variant::Full,
        othello::Setup::standard(othello::Shape::STANDARD),
    );
    record.moves = "f5f6e6f4".parse::<othello::MoveList>().unwrap().0;
    games.push(&record, 0, 0, 1).unwrap();
    std::fs::write(&wtb, games.to_bytes()).unwrap();
    let imported = std::process::Command::new(env!("CARGO_BIN_EXE_othello"))
        .args(["db", "import"])
        .arg(&wtb)
        .arg("--db")
        .arg(&db)
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    assert!(imported.status.success(), "{imported:?}");
    let server = Server::start(&db);
    // A finished game of the server's: two people, f5 f6, then Black resigns.
    let game = server::create(&server, serde_json::json!({})).await;
    let (id, black, white) = (
        server::id(&game),
        server::secret(&game, "black"),
        server::secret(&game, "white"),
    );
    server::play(&server, &id, &black, "f5").await;
    server::play(&server, &id, &white, "f6").await;
    server::send(
        server::client()
            .post(server.api(&format!("/games/{id}/resign")))
            .bearer_auth(&black)
            .json(&serde_json::json!({})),
    )
    .await;
    let client = browser(&driver, "analysis", 1280, 1000).await;
    client
        .goto(&format!("{}/analysis", server.url))
        .await
        .unwrap();
    wait_for(
        &client,
        "document.querySelectorAll('#analysis-board g.cell').length === 64",
        "the empty board",
    )
    .await;
    set_value(
        &client,
        "#analysis-form textarea[name='position']",
        "f5d6c3d3c4",
    )
    .await;
    client
        .find(Locator::Css("#analysis-form button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &client,
        "document.querySelector('#analysis-status').textContent.startsWith('Move 6: White to move') && /\\d+@\\d+%/.test(document.querySelector('#analysis-depth').textContent)",
        "the position and the engine's depth@probability",
    )
    .await;
    // Every legal move's value on its square (six for White here).
    wait_for(
        &client,
        "document.querySelectorAll('#analysis-board g.cell.hint').length === 6 && document.querySelectorAll('#analysis-lines li').length === 6",
        "every legal move valued",
    )
    .await;
    wait_for(
        &client,
        "document.querySelectorAll('#analysis-graph svg circle, #analysis-graph svg polyline, #analysis-graph svg path').length > 0",
        "the graph",
    )
    .await;
    // The explorer knows f5 from the imported game.
    client
        .execute("document.querySelector('#analysis-first').click();", vec![])
        .await
        .unwrap();
    wait_for(
        &client,
        "!document.querySelector('#analysis-explorer-box').hidden && document.querySelector('#analysis-explorer tbody').textContent.includes('f5')",
        "the explorer at the start",
    )
    .await;
    // The third move in the list; then a variation on the board.
    client
        .execute(
            "document.querySelectorAll('#analysis-moves button')[2].click();",
            vec![],
        )
        .await
        .unwrap();
    wait_for(
        &client,
        "document.querySelector('#analysis-status').textContent.startsWith('Move 4: White to move') && location.search.includes('ply=3')",
        "the position after c3, in the link",
    )
    .await;
    wait_for(
        &client,
        "document.querySelectorAll('#analysis-lines li').length === 4 && /\\d+@\\d+%/.test(document.querySelector('#analysis-depth').textContent)",
        "the engine's lines after c3",
    )
    .await;
    client
        .execute("window.scrollTo(0, 0);", vec![])
        .await
        .unwrap();
    screenshot(&client, "analysis.png").await;
    click_square(&client, "f4").await;
    wait_for(
        &client,
        "document.querySelectorAll('#analysis-moves button').length === 4 && document.querySelector('#analysis-moves button.current').textContent === 'f4'",
        "the variation f5 d6 c3 f4",
    )
    .await;
    let link = eval(&client, "document.querySelector('#analysis-link').value")
        .await
        .as_str()
        .unwrap()
        .to_owned();
    let other = browser(&driver, "analysis-link", 1100, 900).await;
    other.goto(&link).await.unwrap();
    wait_for(
        &other,
        "document.querySelector('#analysis-status').textContent.startsWith('Move 5: Black to move') && document.querySelectorAll('#analysis-moves button').length === 4",
        "the same position from the link",
    )
    .await;
    // The finished game's page leads to it.
    other.goto(&format!("{}/g/{id}", server.url)).await.unwrap();
    wait_for(
        &other,
        "!document.querySelector('#analyse-game').hidden",
        "Analyse this game",
    )
    .await;
    other
        .execute("document.querySelector('#analyse-link').click();", vec![])
        .await
        .unwrap();
    wait_for(
        &other,
        "location.pathname === '/analysis' && document.querySelectorAll('#analysis-moves button').length === 2",
        "the finished game on the analysis board",
    )
    .await;
}

/// The rating in a row of a player page's ratings (`full-8x8-bullet 1662? ...`).
fn rating_in_row(row: &str) -> i64 {
    row.split_whitespace()
        .nth(1)
        .unwrap()
        .trim_end_matches('?')
        .parse()
        .unwrap()
}

/// Issue 47.16: variants in the lobby: a rated challenge on another board and win rule
/// (6 x 6, fewest discs winning) is posted, taken and played from the pages, which say what
/// is played; its result moves the players' ratings in that pool only, as their pages show.
async fn a_rated_variant_from_the_lobby_is_rated_in_its_own_pool(db: TestDb) {
    let Some(driver) = driver() else {
        return;
    };
    let server = Server::start(&db);
    let (ann, bob) = ann_and_bob_in_the_lobby(&driver, &server, "variant").await;
    set_value(&ann, "#seek-form input[name='rows']", "6").await;
    set_value(&ann, "#seek-form input[name='columns']", "6").await;
    ann.execute(
        "const control = document.querySelector(\"#seek-form select[name='control']\"); \
         control.add(new Option('3 s', '0.05+0')); control.value = '0.05+0'; \
         document.querySelector(\"#seek-form select[name='win']\").value = 'fewest'; \
         document.querySelector(\"#seek-form input[name='rated']\").checked = true;",
        vec![],
    )
    .await
    .unwrap();
    set_value(&ann, "#seek-form select[name='color']", "B").await;
    ann.find(Locator::Css("#seek-form button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &bob,
        "document.querySelectorAll('#seeks tbody tr').length === 1",
        "the variant's challenge in the other lobby",
    )
    .await;
    let row = text_of(&bob, "#seeks tbody tr").await;
    assert!(
        row.contains("fewest discs wins") && row.contains("6×6") && row.contains("rated"),
        "{row}"
    );
    bob.execute(
        "document.querySelector('#seeks tbody tr button').click();",
        vec![],
    )
    .await
    .unwrap();
    for client in [&ann, &bob] {
        wait_for(
            client,
            "location.pathname.startsWith('/g/') && document.querySelector('#game-line').textContent.includes('fewest discs wins · 6×6')",
            "the variant's game, said",
        )
        .await;
    }
    let path = eval(&bob, "location.pathname").await;
    let id = path.as_str().unwrap().trim_start_matches("/g/").to_owned();
    // Black's first move on 6 x 6 (c2, b3, e4 or d5), then White's first legal one.
    click_square(&ann, "c2").await;
    let mut reply = None;
    for _ in 0..100 {
        let (_, state) =
            server::send(server::client().get(server.api(&format!("/games/{id}")))).await;
        if state["to_move"] == "W" {
            reply = state["legal"][0].as_str().map(str::to_owned);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    click_square(&bob, &reply.expect("White's turn")).await;
    // Ann does not answer: her three seconds run out.
    for client in [&ann, &bob] {
        wait_for(
            client,
            "document.querySelector('#banner').textContent.includes(\"Black's time ran out: White wins\")",
            "the loss on time",
        )
        .await;
    }
    screenshot(&bob, "variant-rated.png").await;
    for (client, name, higher) in [(&ann, "ann", false), (&bob, "bob", true)] {
        client
            .goto(&format!("{}/u/{name}", server.url))
            .await
            .unwrap();
        wait_for(
            client,
            "document.querySelectorAll('#player-ratings tbody tr').length === 1",
            "the player page's ratings",
        )
        .await;
        let rating = text_of(client, "#player-ratings tbody tr").await;
        assert!(rating.contains("full-fewest-6x6-bullet"), "{rating}");
        let number = rating_in_row(&rating);
        assert_eq!(number > 1500, higher, "{rating}");
    }
}

crate::on_both_databases!(
    a_private_challenge_stays_listed_for_its_poster_with_its_link,
    a_rated_variant_from_the_lobby_is_rated_in_its_own_pool,
    the_analysis_board_shows_the_engine_s_lines_the_graph_and_the_explorer,
    members_make_join_and_play_a_tournament_from_the_lobby,
    a_person_plays_the_engine_to_the_end_by_clicking,
    engines_play_each_other_and_the_watcher_pauses_and_steps_them,
    between_two_browsers_an_undo_waits_for_the_other_player,
    members_play_a_rated_timed_game_and_their_pages_show_it,
    regression_21_11_and_12_the_page_between_people,
    bots_are_marked_bot_in_the_lobby_at_the_table_and_on_their_page,
    a_member_solves_puzzles_and_sees_every_move_scored_and_the_rating_move,
    members_play_a_correspondence_game_from_their_turn_lists,
);

/// Issue 47.7: a guest's "by link only" challenge stays in its poster's lobby after a
/// reload, marked, with its link and Withdraw; nobody else sees it.
async fn a_private_challenge_stays_listed_for_its_poster_with_its_link(db: TestDb) {
    let Some(driver) = driver() else {
        return;
    };
    let server = Server::start(&db);
    let ann = browser(&driver, "private-ann", 1100, 900).await;
    let bob = browser(&driver, "private-bob", 1100, 900).await;
    for client in [&ann, &bob] {
        client.goto(&server.url).await.unwrap();
        wait_for(
            client,
            "document.querySelector('#connection').textContent === 'live'",
            "the lobby is live",
        )
        .await;
    }
    set_value(&ann, "#seek-form input[name='name']", "Ann").await;
    // Any shape and rule (issue 47.16).
    set_value(&ann, "#seek-form input[name='rows']", "10").await;
    set_value(&ann, "#seek-form input[name='columns']", "6").await;
    ann.execute(
        "document.querySelector(\"#seek-form input[name='private']\").checked = true; \
         document.querySelector(\"#seek-form select[name='rules']\").value = 'simple'; \
         document.querySelector(\"#seek-form select[name='win']\").value = 'fewest'; \
         document.querySelector(\"#seek-form select[name='first']\").value = 'W';",
        vec![],
    )
    .await
    .unwrap();
    ann.find(Locator::Css("#seek-form button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &ann,
        "!document.querySelector('#seek-link-box').hidden",
        "the link to send",
    )
    .await;
    let link = eval(&ann, "document.querySelector('#seek-link').value").await;
    let link = link.as_str().unwrap().to_owned();
    assert!(link.contains("/s/"), "{link}");
    ann.refresh().await.unwrap();
    wait_for(
        &ann,
        "document.querySelectorAll('#seeks tbody tr').length === 1",
        "the poster's own challenge after a reload",
    )
    .await;
    let row = text_of(&ann, "#seeks tbody tr").await;
    assert!(row.contains("by link") && row.contains("Withdraw"), "{row}");
    assert!(
        row.contains("SIMPLE") && row.contains("fewest discs wins") && row.contains("10×6"),
        "{row}"
    );
    let shown = eval(
        &ann,
        "document.querySelector('#seeks tbody tr input.seek-url').value",
    )
    .await;
    assert_eq!(shown.as_str(), Some(link.as_str()), "its link, to copy");
    screenshot(&ann, "private-challenge.png").await;
    // Nobody else sees it.
    bob.refresh().await.unwrap();
    wait_for(
        &bob,
        "document.querySelector('#connection').textContent === 'live'",
        "the other lobby",
    )
    .await;
    assert_eq!(
        eval(&bob, "document.querySelectorAll('#seeks tbody tr').length").await,
        0
    );
    // Withdrawn from the list.
    ann.execute(
        "document.querySelector('#seeks tbody tr button').click();",
        vec![],
    )
    .await
    .unwrap();
    wait_for(
        &ann,
        "document.querySelectorAll('#seeks tbody tr').length === 0",
        "withdrawn",
    )
    .await;
}

/// Issue 47.8: while the database is down, a move is refused in plain words (it was not
/// played, try again) and the header says the server is in trouble, not "live"; once the
/// database is back the page says "live" again and the move goes through.
#[tokio::test]
async fn a_database_outage_is_said_plainly_and_passes() {
    let Some(driver) = driver() else {
        return;
    };
    // A cluster of its own: stopping it touches no other test.
    let Some(cluster) = postgres::Postgres::start() else {
        return;
    };
    let db = TestDb::Postgres(cluster.create_database());
    let server = Server::start(&db);
    let game = create(&server, json!({"black_name": "Ann", "white_name": "Bob"})).await;
    let (id, black) = (
        game["id"].as_str().unwrap().to_owned(),
        game["seats"]["black"]["secret"]
            .as_str()
            .unwrap()
            .to_owned(),
    );
    let client = browser(&driver, "outage", 1100, 900).await;
    client
        .goto(&format!("{}/g/{id}#secret={black}", server.url))
        .await
        .unwrap();
    wait_for(
        &client,
        "document.querySelector('#connection').textContent === 'live' && document.querySelector('svg.interactive')",
        "Black's turn, live",
    )
    .await;
    cluster.stop();
    click_square(&client, "d3").await;
    wait_for(
        &client,
        "document.querySelector('#notice').textContent !== ''",
        "a notice",
    )
    .await;
    assert_eq!(
        text_of(&client, "#notice").await,
        "The server is having trouble: your move was not played. Try again in a moment."
    );
    assert_eq!(text_of(&client, "#connection").await, "server in trouble");
    assert_eq!(text_of(&client, "#player-B .presence").await, "");
    screenshot(&client, "database-outage.png").await;
    cluster.start_server();
    wait_for(
        &client,
        "document.querySelector('#connection').textContent === 'live' && document.querySelector('#notice').textContent === ''",
        "live again",
    )
    .await;
    click_square(&client, "d3").await;
    wait_for(
        &client,
        "!document.querySelector(\"g.cell[data-square='d3']\").classList.contains('empty')",
        "the move played",
    )
    .await;
}

/// Issue 47.10: a bot account is marked BOT wherever it is shown: its challenge in the
/// lobby, its seat at a game's table, its page.
async fn bots_are_marked_bot_in_the_lobby_at_the_table_and_on_their_page(db: TestDb) {
    let Some(driver) = driver() else {
        return;
    };
    let server = Server::start(&db);
    let http = server::client();
    let mut tokens = Vec::new();
    for name in ["annbot", "bobbot"] {
        let credentials = json!({"name": name, "password": "a good password"});
        let (status, _) = server::send(http.post(server.api("/accounts")).json(&credentials)).await;
        assert_eq!(status, 201);
        let (_, body) = server::send(http.post(server.api("/tokens")).json(&credentials)).await;
        let token = body["token"].as_str().unwrap().to_owned();
        let (status, body) = server::send(
            http.post(server.api("/bot/account/upgrade"))
                .bearer_auth(&token),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        tokens.push(token);
    }
    // An open challenge from a bot, in the lobby.
    let (status, seek) = server::send(
        http.post(server.api("/seeks"))
            .bearer_auth(&tokens[0])
            .json(&json!({"rows": 6, "columns": 6})),
    )
    .await;
    assert_eq!(status, 201, "{seek}");
    let person = browser(&driver, "bot-watcher", 1100, 900).await;
    person.goto(&server.url).await.unwrap();
    wait_for(
        &person,
        "document.querySelectorAll('#seeks tbody tr').length === 1",
        "the bot's challenge",
    )
    .await;
    let row = text_of(&person, "#seeks tbody tr").await;
    assert!(row.starts_with("BOT annbot"), "{row}");
    // Taken by the other bot: its table names both as bots.
    let id = seek["seek"]["id"].as_str().unwrap();
    let (status, game) = server::send(
        http.post(server.api(&format!("/challenge/{id}/accept")))
            .bearer_auth(&tokens[1]),
    )
    .await;
    assert_eq!(status, 201, "{game}");
    let game = game["game"].as_str().unwrap();
    person
        .goto(&format!("{}/g/{game}", server.url))
        .await
        .unwrap();
    wait_for(
        &person,
        "document.querySelector('#player-W .name').textContent.includes('BOT')",
        "the seats",
    )
    .await;
    // Names are isolated (U+2068, U+2069) so that a right-to-left name cannot reorder the
    // line.
    let plain = |text: String| text.replace(['\u{2068}', '\u{2069}'], "");
    let black = plain(text_of(&person, "#player-B .name").await);
    let white = plain(text_of(&person, "#player-W .name").await);
    assert!(
        [&black, &white]
            .iter()
            .all(|name| name.contains(": BOT annbot") || name.contains(": BOT bobbot")),
        "{black} / {white}"
    );
    screenshot(&person, "bot-game.png").await;
    person
        .goto(&format!("{}/u/annbot", server.url))
        .await
        .unwrap();
    wait_for(
        &person,
        "document.querySelector('#player-since').textContent.startsWith('A bot')",
        "the bot's page",
    )
    .await;
    assert_eq!(text_of(&person, "#player-name").await, "BOT annbot");
    person.close().await.unwrap();
}

/// Issue 47, item 14: the puzzle page. A member misses one puzzle (the answer and every
/// move's exact score appear on the board, the rating goes down), then solves the next
/// (up); a shared link opens the same puzzle; the scores are the shipped file's.
async fn a_member_solves_puzzles_and_sees_every_move_scored_and_the_rating_move(db: TestDb) {
    let Some(driver) = driver() else {
        return;
    };
    let shipped: std::collections::HashMap<String, Value> = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/puzzles.jsonl"),
    )
    .unwrap()
    .lines()
    .map(|line| serde_json::from_str::<Value>(line).unwrap())
    .map(|record| (record["id"].as_str().unwrap().to_owned(), record))
    .collect();
    let server = Server::start(&db);
    let client = browser(&driver, "puzzler", 1100, 800).await;
    client.goto(&server.url).await.unwrap();
    register(&client, "puzzler").await;
    client
        .find(Locator::Css("#puzzles-link"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &client,
        "location.pathname.startsWith('/p/') && document.querySelector('#puzzle-task').textContent.includes('to move')",
        "a puzzle",
    )
    .await;
    let id = eval(&client, "location.pathname.slice(3)").await;
    let record = &shipped[id.as_str().unwrap()];
    let answer = record["answer"].as_str().unwrap();
    let moves = record["moves"].as_array().unwrap();
    let wrong = &moves[1];
    let you = text_of(&client, "#puzzle-you").await;
    assert!(you.contains("Your puzzle rating: 1500?"), "{you}");
    click_square(&client, wrong["square"].as_str().unwrap()).await;
    wait_for(
        &client,
        "!document.querySelector('#puzzle-result').hidden",
        "the verdict",
    )
    .await;
    let verdict = text_of(&client, "#puzzle-result").await;
    let words = |score: i64| match score {
        0 => "draws".to_owned(),
        s if s > 0 => format!("wins by {s}"),
        s => format!("loses by {}", -s),
    };
    let best = moves[0]["score"].as_i64().unwrap();
    assert!(
        verdict.starts_with(&format!(
            "Not this one: {} {}; {answer} {}.",
            wrong["square"].as_str().unwrap(),
            words(wrong["score"].as_i64().unwrap()),
            words(best)
        )),
        "{verdict}"
    );
    assert!(
        verdict.contains("Your rating: 1500 \u{2192} 1"),
        "{verdict}"
    );
    // Every legal move's exact score is on its square, the answer's first.
    for scored in moves {
        let square = scored["square"].as_str().unwrap();
        let score = scored["score"].as_i64().unwrap();
        let shown = eval(
            &client,
            &format!(
                "document.querySelector(\"g.cell[data-square='{square}'] .hint-text\").textContent"
            ),
        )
        .await;
        let expected = match score {
            0 => "\u{b1}0".to_owned(),
            s if s > 0 => format!("+{s}"),
            s => format!("\u{2212}{}", -s),
        };
        assert_eq!(shown, expected, "{square}");
    }
    assert_eq!(
        text_of(&client, "#puzzle-moves li:first-child").await,
        format!("{answer}: {} (the answer)", words(best))
    );
    screenshot(&client, "puzzle-missed.png").await;
    // The next one, solved.
    client
        .find(Locator::Css("#puzzle-next"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &client,
        &format!(
            "location.pathname !== '/p/{}' && document.querySelector('#puzzle-result').hidden",
            id.as_str().unwrap()
        ),
        "the next puzzle",
    )
    .await;
    let next = eval(&client, "location.pathname.slice(3)").await;
    let next_record = &shipped[next.as_str().unwrap()];
    let you = text_of(&client, "#puzzle-you").await;
    assert!(you.contains("(1 answered, 0 right)"), "{you}");
    click_square(&client, next_record["answer"].as_str().unwrap()).await;
    wait_for(
        &client,
        "!document.querySelector('#puzzle-result').hidden",
        "the second verdict",
    )
    .await;
    let verdict = text_of(&client, "#puzzle-result").await;
    assert!(verdict.starts_with("Right: "), "{verdict}");
    let numbers: Vec<i64> = verdict
        .split("Your rating: ")
        .nth(1)
        .unwrap()
        .split(|c: char| !c.is_ascii_digit())
        .filter(|part| !part.is_empty())
        .map(|part| part.parse().unwrap())
        .collect();
    assert!(numbers[1] > numbers[0] && numbers[0] < 1500, "{verdict}");
    screenshot(&client, "puzzle.png").await;
    // The shared link opens the first puzzle; it says it was answered.
    client
        .goto(&format!("{}/p/{}", server.url, id.as_str().unwrap()))
        .await
        .unwrap();
    wait_for(
        &client,
        "document.querySelector('#puzzle-you').textContent.includes('answered this one before')",
        "the shared puzzle",
    )
    .await;
    // The player's page lists the puzzle rating with the others.
    client
        .goto(&format!("{}/u/puzzler", server.url))
        .await
        .unwrap();
    wait_for(
        &client,
        "!document.querySelector('#player-ratings').hidden",
        "the ratings table",
    )
    .await;
    let row = text_of(&client, "#player-ratings tbody tr").await;
    assert!(
        row.starts_with(&format!("puzzles {}?", numbers[1])) && row.ends_with("2 (1 right)"),
        "{row}"
    );
}

/// Issue 48: a seat set to zero shows, beside it, how the net for the chosen board learned
/// (its curve and its last figures, those of the shipped record), says so where no net is
/// shipped, and the net then answers a move.
#[tokio::test]
async fn the_zero_seat_shows_how_its_net_learned_and_the_net_plays() {
    let Some(driver) = driver() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path().join("games.db"));
    let client = browser(&driver, "zero", 1280, 1100).await;
    client.goto(&format!("{}/", server.url)).await.unwrap();
    wait_for(
        &client,
        "!document.querySelector('#new-game').hidden",
        "the form",
    )
    .await;
    let caption = ".seat[data-seat='white'] .zero-net figcaption";
    set_value(&client, "select[name='white-kind']", "zero").await;
    // A board no net is shipped for.
    set_value(&client, "#new-game-form input[name='rows']", "10").await;
    set_value(&client, "#new-game-form input[name='columns']", "10").await;
    wait_for(
        &client,
        &format!("document.querySelector(\"{caption}\").textContent.startsWith('No net is shipped for 10x10')"),
        "the caption for 10x10",
    )
    .await;
    let refusal = text_of(&client, caption).await;
    assert!(
        refusal.starts_with("No net is shipped for 10x10 FULL most: zero plays ")
            && refusal.contains("6x6 FULL most"),
        "{refusal}"
    );
    assert_eq!(
        eval(
            &client,
            "document.querySelector(\".seat[data-seat='white'] .zero-curve-link\").hidden"
        )
        .await,
        true
    );
    // Black's seat, still a person, shows no net.
    assert_eq!(
        eval(
            &client,
            "document.querySelector(\".seat[data-seat='black'] .zero-net\").hidden"
        )
        .await,
        true
    );

    // A size being typed names no board yet: nothing said (the red team saw "0x6").
    set_value(&client, "#new-game-form input[name='rows']", "").await;
    wait_for(
        &client,
        &format!("document.querySelector(\"{caption}\").textContent === ''"),
        "no caption for an empty size",
    )
    .await;
    set_value(&client, "#new-game-form input[name='rows']", "6").await;
    set_value(&client, "#new-game-form input[name='columns']", "6").await;
    set_value(
        &client,
        "#new-game-form input[name='white-simulations']",
        "50",
    )
    .await;
    set_value(&client, "#new-game-form input[name='white-time']", "200").await;
    wait_for(
        &client,
        "(() => { const image = document.querySelector(\".seat[data-seat='white'] img.zero-curve\"); \
         return image.complete && image.naturalWidth === 960 && image.getBoundingClientRect().width > 200; })()",
        "the curve drawn beside the seat",
    )
    .await;
    // The figures shown are the shipped run's own: its last iteration and exact share.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let last_row = |file: &str| -> Vec<String> {
        let text = std::fs::read_to_string(data.join(file)).unwrap();
        let line = text.lines().last().unwrap().to_owned();
        line.split(',').map(str::to_owned).collect()
    };
    // Percentages as the command line prints them: to a tenth, halves up.
    let tenths = |share: f64| (share * 1000.0 + 1e-6).round() / 10.0;
    let iterations = last_row("zero-6x6.iterations.csv");
    let exact = last_row("zero-6x6.exact.csv");
    let share: f64 = exact[4].parse().unwrap();
    let vs_random: f64 = iterations[11].parse().unwrap();
    // And its scores against the levels at the last iteration measured.
    let levels = std::fs::read_to_string(data.join("zero-6x6.levels.csv")).unwrap();
    let levels: Vec<Vec<&str>> = levels
        .lines()
        .skip(1)
        .map(|line| line.split(',').collect())
        .collect();
    let last_measured = levels
        .iter()
        .map(|row| row[0])
        .max_by_key(|n| n.parse::<u32>().unwrap());
    let mut level_figures: Vec<String> = levels
        .iter()
        .filter(|row| Some(row[0]) == last_measured)
        .map(|row| {
            let score: f64 = row[9].parse().unwrap();
            format!("{:.1} % against classic:{}", tenths(score), row[3])
        })
        .collect();
    assert!(
        !level_figures.is_empty(),
        "the shipped net was measured against the levels"
    );
    let shown = text_of(&client, caption).await;
    for expected in [
        format!("a 32 × 3 residual net, {} iterations", iterations[0]),
        format!("the net it plays is iteration {}'s", iterations[10]),
        format!("{:.1} % against random", tenths(vs_random)),
        format!(
            "{:.1} % of its moves keep the exact game value ({} positions solved)",
            tenths(share),
            exact[3]
        ),
    ]
    .into_iter()
    .chain(level_figures.drain(..))
    {
        assert!(shown.contains(&expected), "{expected:?} in {shown:?}");
    }
    eval(
        &client,
        "document.querySelector('#new-game .seats').scrollIntoView() ?? true",
    )
    .await;
    screenshot(&client, "zero-seat.png").await;

    // The net plays: a move of Black's gets its answer.
    client
        .find(Locator::Css("#new-game-form button[type='submit']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        &client,
        "document.querySelector('svg.interactive g.cell.legal')",
        "Black's turn",
    )
    .await;
    let square = eval(
        &client,
        "document.querySelector('svg.interactive g.cell.legal').dataset.square",
    )
    .await;
    click_square(&client, square.as_str().unwrap()).await;
    wait_for(
        &client,
        "Number(document.querySelector('#player-B .count').textContent) + \
         Number(document.querySelector('#player-W .count').textContent) === 6 && \
         document.querySelector('svg.interactive g.cell.legal')",
        "zero's answer",
    )
    .await;
    assert!(
        text_of(&client, "#player-W .name").await.contains("zero"),
        "{}",
        text_of(&client, "#player-W .name").await
    );
    client.close().await.unwrap();
}
