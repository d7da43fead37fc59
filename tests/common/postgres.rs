//! A throwaway PostgreSQL for tests: a cluster made with `initdb` in a temporary directory,
//! started with `pg_ctl` on a loopback port (and a Unix socket in that directory), stopped
//! (fast, without waiting for clients) when dropped. PostgreSQL refuses to run as root: run
//! as root, the cluster belongs to and runs as the `postgres` user.
//!
//! Needs Debian's `postgresql` (its programs in `/usr/lib/postgresql/VERSION/bin`), which
//! `.ci/run` installs: without it [`Postgres::start`] says so and returns `None`, except
//! under `CI=true`, where it fails.
#![allow(dead_code)]

use std::{
    ffi::OsStr,
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Command, Output},
    sync::{
        OnceLock,
        atomic::{AtomicUsize, Ordering},
    },
};

/// A fresh database for one test: a SQLite file in a temporary directory, or a database of
/// its own on the test binary's PostgreSQL cluster. As an argument it is what
/// `othello serve --db` takes.
pub enum TestDb {
    /// The file, and the directory that holds it (removed when dropped).
    Sqlite(tempfile::TempDir, PathBuf),
    /// The URL.
    Postgres(String),
}

impl TestDb {
    /// A SQLite file that does not exist yet.
    pub fn sqlite() -> TestDb {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.db");
        TestDb::Sqlite(dir, path)
    }

    /// An empty PostgreSQL database (`None` where PostgreSQL is not installed, off CI).
    pub fn postgres() -> Option<TestDb> {
        Some(TestDb::Postgres(shared()?.create_database()))
    }

    /// The SQLite file's path (panics on PostgreSQL).
    pub fn path(&self) -> &Path {
        match self {
            TestDb::Sqlite(_, path) => path,
            TestDb::Postgres(_) => panic!("a SQLite test"),
        }
    }
}

impl AsRef<OsStr> for TestDb {
    fn as_ref(&self) -> &OsStr {
        match self {
            TestDb::Sqlite(_, path) => path.as_os_str(),
            TestDb::Postgres(url) => OsStr::new(url),
        }
    }
}

static SHARED: OnceLock<Option<Postgres>> = OnceLock::new();

/// The test binary's cluster, started on first use, stopped and removed when the binary
/// exits.
pub fn shared() -> Option<&'static Postgres> {
    SHARED
        .get_or_init(|| {
            let cluster = Postgres::start()?;
            // SAFETY: registers a plain function to run at exit.
            unsafe {
                libc::atexit(stop_shared);
            }
            Some(cluster)
        })
        .as_ref()
}

extern "C" fn stop_shared() {
    if let Some(Some(cluster)) = SHARED.get() {
        let data = cluster.data();
        let _ = cluster
            .command("pg_ctl")
            .args(["-D", &data, "-m", "immediate", "-w", "stop"])
            .output();
        let _ = std::fs::remove_dir_all(cluster.dir.path());
    }
}

/// A running cluster with a database `othello` owned by the user `othello` (no password:
/// trust on loopback).
pub struct Postgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    /// The user the server runs as, when this process is root.
    owner: Option<String>,
    /// Whether it waits for the disk (fsync).
    durable: bool,
}

impl Postgres {
    /// Makes and starts a cluster, or says why not (`None` only off CI). It does not
    /// wait for the disk (fsync off): fast, and enough for tests.
    pub fn start() -> Option<Postgres> {
        Postgres::make(false)
    }

    /// [`Postgres::start`], writing to disk as a production server does (for benchmarks).
    pub fn start_durable() -> Option<Postgres> {
        Postgres::make(true)
    }

    fn make(durable: bool) -> Option<Postgres> {
        let Some(bin) = programs() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "PostgreSQL is needed: apt-get install postgresql"
            );
            eprintln!("skipped: install postgresql to run the PostgreSQL tests");
            return None;
        };
        // SAFETY: a plain system call.
        let root = unsafe { libc::geteuid() } == 0;
        let dir = tempfile::Builder::new()
            .prefix("othello-pg-")
            .tempdir()
            .unwrap();
        let owner = root.then(|| "postgres".to_owned());
        if let Some(owner) = &owner {
            let status = Command::new("chown")
                .arg(owner)
                .arg(dir.path())
                .status()
                .unwrap();
            assert!(status.success(), "chown {owner}");
        }
        let mut postgres = Postgres {
            port: free_port(),
            dir,
            bin,
            owner,
            durable,
        };
        postgres.run(
            "initdb",
            &[
                "-D",
                &postgres.data(),
                "-U",
                "othello",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        // The port was free a moment ago; another test's process may have taken it
        // since (CI once saw this), so a failed start tries a fresh port.
        for attempt in 1.. {
            match postgres.try_start_server() {
                Ok(()) => break,
                Err(why) if attempt < 3 => {
                    eprintln!("PostgreSQL did not start on port {}: {why}", postgres.port);
                    postgres.port = free_port();
                }
                Err(why) => panic!("PostgreSQL did not start: {why}"),
            }
        }
        postgres.run(
            "createdb",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &postgres.port.to_string(),
                "-U",
                "othello",
                "othello",
            ],
        );
        Some(postgres)
    }

    /// The database's URL, as `othello serve --db` takes it.
    pub fn url(&self) -> String {
        format!("postgres://othello@127.0.0.1:{}/othello", self.port)
    }

    /// Makes a new empty database on this cluster; its URL.
    pub fn create_database(&self) -> String {
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let name = format!("test_{}", MADE.fetch_add(1, Ordering::Relaxed));
        self.query(&format!("CREATE DATABASE {name}"));
        format!("postgres://othello@127.0.0.1:{}/{name}", self.port)
    }

    /// Its port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops the server at once (connections are cut), keeping the cluster.
    pub fn stop(&self) {
        self.run(
            "pg_ctl",
            &["-D", &self.data(), "-m", "immediate", "-w", "stop"],
        );
    }

    /// Starts it again after [`Postgres::stop`], on the same port.
    pub fn start_server(&self) {
        if let Err(why) = self.try_start_server() {
            panic!("PostgreSQL did not start again: {why}");
        }
    }

    /// Starts the server; what pg_ctl and the server's log say where it does not.
    fn try_start_server(&self) -> Result<(), String> {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync={} -c max_connections=300",
            self.port,
            self.dir.path().display(),
            if self.durable { "on" } else { "off" }
        );
        let log = self.dir.path().join("server.log");
        let output = self
            .command("pg_ctl")
            .args(["-D", &self.data(), "-l"])
            .arg(&log)
            .args(["-o", &options, "-w", "start"])
            .output()
            .unwrap();
        if output.status.success() {
            return Ok(());
        }
        Err(format!(
            "pg_ctl start: {}\n{}\n{}\nserver.log:\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
            std::fs::read_to_string(&log).unwrap_or_default()
        ))
    }

    /// Runs `sql` with psql on the database `othello` and returns what it prints
    /// (unaligned, tuples only).
    pub fn query(&self, sql: &str) -> String {
        self.query_in(&self.url(), sql)
    }

    /// [`Postgres::query`] on the database at `url` (one of this cluster's).
    pub fn query_in(&self, url: &str, sql: &str) -> String {
        let output = self.run(
            "psql",
            &["-d", url, "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
        );
        String::from_utf8(output.stdout).unwrap()
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    /// Runs one of PostgreSQL's programs (as its owner when root), which must succeed.
    fn run(&self, program: &str, args: &[&str]) -> Output {
        let output = self.command(program).args(args).output().unwrap();
        assert!(
            output.status.success(),
            "{program} {args:?}: {}\n{}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// One of PostgreSQL's programs, to be run as the cluster's owner, in its directory.
    fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        let mut command = match &self.owner {
            Some(owner) => {
                let mut command = Command::new("setpriv");
                command
                    .args(["--reuid", owner, "--regid", owner, "--init-groups"])
                    .arg(&path);
                command
            }
            None => Command::new(&path),
        };
        command.current_dir(self.dir.path());
        command
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let data = self.data();
        let _ = self
            .command("pg_ctl")
            .args(["-D", &data, "-m", "immediate", "-w", "stop"])
            .output();
    }
}

/// The directory of PostgreSQL's programs, the newest version installed.
fn programs() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .map(|entry| entry.path().join("bin"))
        .filter(|bin| bin.join("initdb").is_file() && bin.join("pg_ctl").is_file())
        .collect();
    found.sort_by_key(|bin| version_of(bin));
    found.pop()
}

fn version_of(bin: &Path) -> u32 {
    bin.parent()
        .and_then(Path::file_name)
        .and_then(|name| name.to_str()?.parse().ok())
        .unwrap_or(0)
}

/// A port on 127.0.0.1 free a moment ago.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Runs each listed test, an `async fn NAME(db: TestDb)` of the file (which imports
/// `TestDb`), on both databases: as `on_sqlite::NAME` and as `on_postgres::NAME`.
#[macro_export]
macro_rules! on_both_databases {
    ($($name:ident),* $(,)?) => {
        mod on_sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    super::$name(super::TestDb::sqlite()).await
                }
            )*
        }
        mod on_postgres {
            $(
                #[tokio::test]
                async fn $name() {
                    let Some(db) = super::TestDb::postgres() else {
                        return;
                    };
                    super::$name(db).await
                }
            )*
        }
    };
}
