//! Opening the SQLite database: the checks before anything is written (`integrity_check`, then
//! `schema_upgrade` refusing a newer schema and `upgrade_backup` copying an older one), WAL,
//! foreign keys, a busy timeout, and the embedded forward-only migrations; and the background
//! task that checkpoints the write-ahead log.

use crate::store::sqlite::{integrity_check, schema_upgrade, upgrade_backup};
use crate::wire::error::LedgerError;
use sqlx::migrate::Migration;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::Connection;
use sqlx::SqlitePool;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::task::JoinHandle;

static MIGRATIONS: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// How many connections the pool keeps at most.
const MAX_CONNECTIONS: u32 = 8;

/// Each connection's page cache, in KiB (negative: SQLite reads it as KiB, not pages).
const PAGE_CACHE_KIB: &str = "-256";

/// Opens (creating if needed) the ledger database at `path` and brings its schema up to date,
/// keeping the last `keep_backups` copies written before an upgrade.
pub async fn open(path: &Path, keep_backups: usize) -> Result<SqlitePool, LedgerError> {
    let migrations = migrations();
    let pool = open_with(path, &migrations, keep_backups).await?;
    // sqlx's runner finds nothing left to do; it still verifies that every applied
    // migration's checksum matches the one built in.
    MIGRATIONS.run(&pool).await?;
    crate::store::sqlite::disk_space::convert_if_needed(&pool).await;
    crate::store::sqlite::search_index::rebuild_if_pending(&pool).await?;
    Ok(pool)
}

/// This build's migrations.
pub(crate) fn migrations() -> Vec<Migration> {
    MIGRATIONS.iter().cloned().collect()
}

/// `open` with a given list of migrations (tests add one made to fail).
pub(crate) async fn open_with(
    path: &Path,
    migrations: &[Migration],
    keep_backups: usize,
) -> Result<SqlitePool, LedgerError> {
    let data_dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(data_dir).map_err(|error| LedgerError::io(data_dir, error))?;
    let backup = match std::fs::metadata(path) {
        Ok(metadata) if metadata.len() > 0 => {
            prepare_existing(path, data_dir, migrations, keep_backups).await?
        }
        _ => None,
    };
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        // WAL + NORMAL survives a process crash with no loss of committed data; only an OS
        // crash can lose the last transactions, which is OpenCode's trade-off too.
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(5))
        // Each pooled connection keeps a page cache of its own, and the pool holds up to
        // `MAX_CONNECTIONS`: at 64 MB each that was a ceiling near 512 MB, filled a little with
        // every reply (the soak bench saw anonymous memory grow ~12.5 KB per streamed reply and
        // never level off). 256 KiB each bounds the caches at 2 MB; pages not in them come from
        // the system's file cache, which is shared and which the system can take back. (At 512
        // KiB, heaptrack saw the caches fill to 2.6 MB of a 7.4 MB heap over 2,500 replies, most
        // of the heap's growth; reads from the file cache cost a system call per page.)
        .pragma("cache_size", PAGE_CACHE_KIB)
        // Deleted conversations should not linger in free pages of the file: "fast" zeroes
        // freed content whenever that costs no extra I/O.
        .pragma("secure_delete", "fast")
        // (Not `auto_vacuum` here: setting it runs a write transaction on every new connection,
        // before the busy timeout applies. `disk_space` sets it once, on one connection.)
        // A write-ahead log that once grew large (a big deletion, an import) is cut back to this
        // after each checkpoint instead of keeping its largest size for good.
        .pragma("journal_size_limit", "67108864")
        // SQLite's own checkpoint runs inside the commit that crosses the threshold, so one
        // request in every few dozen paid for copying the log into the file and syncing it: with
        // the default 1,000 pages, 1,000 noReply prompts in a row had a p99 of 9.5 ms against a
        // p50 of 0.8 ms, and 1.6 ms with `BackgroundCheckpoint` doing it between requests. The
        // log starts over only after a checkpoint that finished while no write was under way,
        // which a long unbroken burst of writes never leaves room for; this larger threshold
        // (32 MB of log) is for such a burst.
        .pragma("wal_autocheckpoint", "8192");
    let pool = SqlitePoolOptions::new()
        .max_connections(MAX_CONNECTIONS)
        .min_connections(1)
        // sqlx pings an idle connection before lending it, a round trip to the connection's
        // thread on every request; a SQLite connection is a file handle in this process and
        // does not go stale as a network connection can.
        .test_before_acquire(false)
        .connect_with(options)
        .await?;
    if let Err(error) = schema_upgrade::migrate(&pool, path, migrations, backup.as_deref()).await {
        pool.close().await;
        return Err(error);
    }
    Ok(pool)
}

/// The checks on a database that already holds something, on a read-only connection: sound
/// (`integrity_check`), not from a newer Dossier, and copied to `backups/` when a migration is
/// about to run. Returns that copy.
async fn prepare_existing(
    path: &Path,
    data_dir: &Path,
    migrations: &[Migration],
    keep_backups: usize,
) -> Result<Option<PathBuf>, LedgerError> {
    let mut connection = integrity_check::open_checked(path, data_dir).await?;
    let outcome =
        check_and_back_up(&mut connection, path, data_dir, migrations, keep_backups).await;
    if let Err(error) = connection.close().await {
        tracing::debug!(%error, "closing the read-only check connection");
    }
    outcome
}

async fn check_and_back_up(
    connection: &mut sqlx::SqliteConnection,
    path: &Path,
    data_dir: &Path,
    migrations: &[Migration],
    keep_backups: usize,
) -> Result<Option<PathBuf>, LedgerError> {
    let applied = schema_upgrade::applied_versions(connection).await?;
    schema_upgrade::refuse_newer(connection, path, &applied, migrations).await?;
    let Some(&old_version) = applied.iter().max() else {
        // A file with no migrations applied holds no sessions: nothing to keep.
        return Ok(None);
    };
    if schema_upgrade::pending(migrations, &applied).is_empty() {
        return Ok(None);
    }
    let backup = upgrade_backup::write(connection, data_dir, old_version, keep_backups).await?;
    tracing::info!(backup = %backup.display(), "backed up the ledger before a schema update");
    Ok(Some(backup))
}

/// How every write transaction starts. A deferred `BEGIN` takes the write lock only at its first
/// write; if another connection wrote in between (a reply's checkpoint, a title), SQLite cannot
/// wait and fails at once with "database is locked". `IMMEDIATE` takes the write lock up front,
/// where the busy timeout applies.
pub const BEGIN_WRITE: &str = "BEGIN IMMEDIATE";

/// A write transaction on `connection`: `BEGIN IMMEDIATE` when it has none, a savepoint inside
/// the caller's transaction otherwise.
pub async fn begin_write(
    connection: &mut sqlx::SqliteConnection,
) -> Result<sqlx::Transaction<'_, sqlx::Sqlite>, sqlx::Error> {
    use sqlx::Connection;
    if connection.is_in_transaction() {
        connection.begin().await
    } else {
        connection.begin_with(BEGIN_WRITE).await
    }
}

/// How often the background task looks at the write-ahead log while writes keep coming, and
/// while nothing was written.
const CHECKPOINT_BUSY: Duration = Duration::from_millis(250);
const CHECKPOINT_IDLE: Duration = Duration::from_secs(1);

/// How long `close_pool` waits for the pool's last connections before it gives up (and says
/// so), and how often it looks meanwhile.
const CLOSE_PATIENCE: Duration = Duration::from_secs(30);
const CLOSE_LOOK_INTERVAL: Duration = Duration::from_millis(2);

/// Copies committed pages from the write-ahead log into the database file off the request
/// path, for as long as it is held (the ledger holds it). PASSIVE never waits for readers or
/// writers, so it blocks no request; pages a reader still needs stay for the next run. A run
/// with nothing new to copy costs a read of the log's header. It looks on a timer rather than
/// being woken by writes: how fast the log grows is what it watches, and a look costs little.
pub(crate) struct BackgroundCheckpoint {
    /// The switch that ends the task and the task itself, taken by `stop`.
    running: std::sync::Mutex<Option<(tokio::sync::oneshot::Sender<()>, JoinHandle<()>)>>,
}

impl BackgroundCheckpoint {
    pub(crate) fn start(pool: SqlitePool) -> Self {
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let mut pause = CHECKPOINT_IDLE;
            let mut frames_seen = 0;
            loop {
                tokio::select! {
                    () = tokio::time::sleep(pause) => {}
                    _ = &mut stopped => return,
                }
                if pool.is_closed() {
                    return;
                }
                let outcome: Result<(i64, i64, i64), sqlx::Error> =
                    sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
                        .fetch_one(&pool)
                        .await;
                pause = match outcome {
                    // (busy, frames in the log, frames copied): a log that changed since the
                    // last look is being written to, so look again soon.
                    Ok((_, frames, _)) => {
                        let written = frames != frames_seen;
                        frames_seen = frames;
                        if written {
                            CHECKPOINT_BUSY
                        } else {
                            CHECKPOINT_IDLE
                        }
                    }
                    Err(error) => {
                        if pool.is_closed() {
                            return;
                        }
                        tracing::warn!(
                            "background checkpoint failed; SQLite's own still runs: {error}"
                        );
                        CHECKPOINT_IDLE
                    }
                };
            }
        });
        Self {
            running: std::sync::Mutex::new(Some((stop, task))),
        }
    }

    /// Ends the task and waits for it: a checkpoint under way finishes first, so when this
    /// returns the task holds no connection and starts none.
    pub(crate) async fn stop(&self) {
        let running = self
            .running
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        let Some((stop, task)) = running else {
            return;
        };
        // The task ends at its next pause; one sleeping ends at once.
        drop(stop);
        if let Err(error) = task.await {
            tracing::warn!(%error, "the background checkpoint ended abnormally");
        }
    }
}

/// Closes `pool` and returns once the pool counts no connection, i.e. every one is closed and
/// its file handles let go. sqlx's own `close` does not promise that (sqlx issue 3217): a
/// connection whose last query just finished is handed back by a task of its own, and `close`
/// (1) can stop waiting for it, because closing an idle connection gives its permit back a
/// second time, so the permits it waits for add up early; and (2) can miss it for good when
/// that task, having found the pool still open and pinged the connection, puts it among the idle
/// ones after `close` emptied them for the last time. So: close, and while the pool still counts
/// connections, wait a moment (a handed-back one closes itself) and close again (which closes
/// any idle one). A closed pool hands out no new connection, so the count only goes down.
pub(crate) async fn close_pool(pool: &SqlitePool) {
    let deadline = tokio::time::Instant::now() + CLOSE_PATIENCE;
    loop {
        pool.close().await;
        if pool.size() == 0 {
            return;
        }
        if tokio::time::Instant::now() >= deadline {
            tracing::warn!(
                connections = pool.size(),
                "the database pool still counts open connections after closing"
            );
            return;
        }
        tokio::time::sleep(CLOSE_LOOK_INTERVAL).await;
    }
}
