//! The SQLite schema, as the migrations that make it.

/// The schema, one migration a step: the database's `user_version` says how many ran.
pub(super) const MIGRATIONS: [&str; 13] = [
    "CREATE TABLE games (
        id TEXT PRIMARY KEY,
        rules TEXT NOT NULL,
        board TEXT NOT NULL,
        first TEXT NOT NULL,
        win TEXT NOT NULL,
        black TEXT NOT NULL,
        black_time_ms INTEGER NOT NULL,
        black_secret TEXT,
        white TEXT NOT NULL,
        white_time_ms INTEGER NOT NULL,
        white_secret TEXT,
        status TEXT NOT NULL,
        resigned TEXT,
        undo_request TEXT,
        undone TEXT NOT NULL DEFAULT '',
        control_secret TEXT,
        paused INTEGER NOT NULL DEFAULT 0,
        speed_ms INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE moves (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        ply INTEGER NOT NULL,
        square TEXT NOT NULL,
        side TEXT NOT NULL,
        played_at INTEGER NOT NULL,
        think_ms INTEGER NOT NULL,
        eval REAL,
        exact INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (game_id, ply)
    ) WITHOUT ROWID;
    CREATE INDEX games_by_status ON games (status, updated_at);",
    // Versions were the time of the last change, which a change within the same
    // millisecond as the one before it outgrew: from now on they are kept.
    "ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
    UPDATE games SET version = updated_at;",
    // Help for seated people between two people: off for new games unless asked for;
    // games from before kept what they had (on).
    "ALTER TABLE games ADD COLUMN help INTEGER NOT NULL DEFAULT 1;",
    // Online play: how a game ended (resignations moved here), clocks, people's names and
    // accounts, rated games.
    "ALTER TABLE games ADD COLUMN ending TEXT;
    UPDATE games SET ending = 'resign:' || resigned WHERE resigned IS NOT NULL;
    ALTER TABLE games ADD COLUMN clock_base_ms INTEGER;
    ALTER TABLE games ADD COLUMN clock_increment_ms INTEGER;
    ALTER TABLE games ADD COLUMN black_clock_ms INTEGER;
    ALTER TABLE games ADD COLUMN white_clock_ms INTEGER;
    ALTER TABLE games ADD COLUMN clock_since INTEGER;
    ALTER TABLE games ADD COLUMN black_name TEXT;
    ALTER TABLE games ADD COLUMN white_name TEXT;
    ALTER TABLE games ADD COLUMN black_user INTEGER;
    ALTER TABLE games ADD COLUMN white_user INTEGER;
    ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;",
    // Accounts and their sessions.
    "CREATE TABLE users (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        password_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL
    );
    CREATE TABLE sessions (
        token_hash TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        csrf TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
    );
    CREATE INDEX games_by_black_user ON games (black_user, updated_at);
    CREATE INDEX games_by_white_user ON games (white_user, updated_at);",
    // The lobby's open challenges.
    "CREATE TABLE seeks (
        id TEXT PRIMARY KEY,
        poster_name TEXT NOT NULL,
        poster_user INTEGER,
        poster_secret TEXT,
        rules TEXT NOT NULL,
        rows INTEGER NOT NULL,
        columns INTEGER NOT NULL,
        first TEXT NOT NULL,
        win TEXT NOT NULL,
        color TEXT NOT NULL,
        clock_base_ms INTEGER,
        clock_increment_ms INTEGER,
        rated INTEGER NOT NULL,
        help INTEGER NOT NULL,
        to_name TEXT,
        private INTEGER NOT NULL,
        created_at INTEGER NOT NULL
    );",
    // Ratings per category, and each one's history.
    "CREATE TABLE ratings (
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        category TEXT NOT NULL,
        rating REAL NOT NULL,
        deviation REAL NOT NULL,
        volatility REAL NOT NULL,
        games INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, category)
    );
    CREATE TABLE rating_history (
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        category TEXT NOT NULL,
        game_id TEXT NOT NULL,
        rating REAL NOT NULL,
        deviation REAL NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (user_id, game_id)
    );",
    // Rematches.
    "ALTER TABLE games ADD COLUMN rematch_offer TEXT;
    ALTER TABLE games ADD COLUMN rematch TEXT;",
    // Bot accounts (upgraded once, for the bot API).
    "ALTER TABLE users ADD COLUMN bot INTEGER NOT NULL DEFAULT 0;",
    // Puzzles, their ratings and the accounts' (with every account's answers).
    "CREATE TABLE puzzles (
        id TEXT PRIMARY KEY,
        position TEXT NOT NULL,
        answer TEXT NOT NULL,
        moves TEXT NOT NULL,
        depth INTEGER,
        source TEXT NOT NULL,
        rating REAL NOT NULL,
        deviation REAL NOT NULL,
        volatility REAL NOT NULL,
        attempts INTEGER NOT NULL,
        solved INTEGER NOT NULL
    );
    CREATE INDEX puzzles_by_rating ON puzzles (rating);
    CREATE TABLE puzzle_ratings (
        user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        rating REAL NOT NULL,
        deviation REAL NOT NULL,
        volatility REAL NOT NULL,
        attempts INTEGER NOT NULL,
        solved INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE puzzle_attempts (
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        puzzle_id TEXT NOT NULL REFERENCES puzzles(id) ON DELETE CASCADE,
        solved INTEGER NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (user_id, puzzle_id)
    );",
    // Correspondence: days a move (the clock's base given back whole after each move),
    // and when the side to move's time runs out, for the sweep that ends such games.
    "ALTER TABLE games ADD COLUMN clock_per_move INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN deadline INTEGER;
    ALTER TABLE seeks ADD COLUMN clock_per_move INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX games_by_deadline ON games (deadline) WHERE deadline IS NOT NULL;",
    // The game database the opening explorer reads (imported WTHOR files).
    "CREATE TABLE library_games (
        key TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        tournament TEXT NOT NULL,
        black TEXT NOT NULL,
        white TEXT NOT NULL,
        year INTEGER NOT NULL,
        size INTEGER NOT NULL,
        moves TEXT NOT NULL,
        result INTEGER NOT NULL
    );
    CREATE INDEX library_games_by_size ON library_games (size);",
    // Tournaments: each one's record (players, pairings, results) as one document under
    // a version, changed whole.
    "CREATE TABLE tournaments (
        id TEXT PRIMARY KEY,
        stage TEXT NOT NULL,
        starts_at INTEGER NOT NULL,
        version INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        body TEXT NOT NULL
    );
    CREATE INDEX tournaments_by_stage ON tournaments (stage, starts_at);",
];
