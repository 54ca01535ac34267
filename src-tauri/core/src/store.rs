//! The store: the only place with SQL, in rooms, lowest first — `search` (search's own rules on
//! no engine), `rows` (the rows as both engines see them), `postgres` (the second engine),
//! `sqlite` (the SQLite file: opening, checks, the search index), `tables` (sessions, messages,
//! parts, blobs, usage, listings, tokens, leases and search: the surface the floors above use,
//! each function on SQLite or handed to its `postgres` twin), `backups` and `data_folder`. Each
//! room may use the ones before it and the ground: `engine`, `connection_shelf`, `durable_file`,
//! `database_url` and the `Store` handle here (pool, ids, event bus), which assembles the rooms.
//! Every other floor reaches the database through `tables` and the handle, so a second engine
//! implements that surface (see `docs/architecture.md`). It uses only `wire`.

// Without the `postgres` feature the engine handles have one variant, and each function's
// `let pool = match pool { Pool::Sqlite(pool) => pool, Pool::Postgres(…) => return … }` keeps
// only its first arm. Kept as a match, the same code reads the same in both builds.
#![cfg_attr(
    not(feature = "postgres"),
    allow(clippy::infallible_destructuring_match)
)]

// The rooms (their order is above and in `tests/architecture.rs`, which holds them to it), then
// the ground. This file assembles them (`Store::open`), so it may use them all.
pub mod backups;
pub mod data_folder;
/// The second engine, only in builds with the `postgres` feature (dossier-server's).
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod rows;
pub mod search;
pub mod sqlite;
pub mod tables;

pub(crate) mod connection_shelf;
pub mod database_url;
pub(crate) mod durable_file;
pub mod engine;

use crate::wire::error::LedgerError;
use crate::wire::event::EventBus;
use crate::wire::id::{Clock, IdGenerator, IdKind};
use backups::backup_restore;
use backups::manual_backup;
pub use data_folder::process_lock::Occupancy;
use data_folder::process_lock::ProcessLock;
use sqlite::{database, disk_space, read_only_open, search_purge};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tables::{blob_store, message_listing_json, session_listing_cache};

/// The engine's connection pool, one connection and one open transaction (`engine`). Floors
/// above pass these back into the store's functions and never run SQL on them themselves.
pub use engine::{Connect, Connection, Pool, PooledConnection, Transaction};

pub const DATABASE_FILE: &str = "dossier.db";

/// The store handle: the pool, the ids (and their clock) and the event bus, plus the store's own
/// upkeep. Cheap to clone; everything above the store is given one.
#[derive(Clone)]
pub struct Store {
    pub(crate) pool: Pool,
    pub(crate) events: EventBus,
    ids: Arc<IdGenerator>,
    upkeep: Arc<Upkeep>,
}

/// What the store keeps running or cached for as long as it is open.
struct Upkeep {
    pub data_dir: PathBuf,
    /// Held for the store's life: tells other processes on the folder that we are alive. None on
    /// PostgreSQL, where the database itself is shared and no folder holds the ledger.
    pub process_lock: Option<ProcessLock>,
    /// Takes deleted words out of the search index after each deletion (`search_purge`); none
    /// on a read-only ledger, where the purge's own writes would be refused.
    pub search_purge: Option<search_purge::SearchPurge>,
    /// Listings recently built by `messages_json`, with the version they were built from.
    pub message_listings: message_listing_json::ListingCache,
    /// Session listings recently built by `sessions`, with the listing clock's tick then.
    pub session_listings: session_listing_cache::SessionListingCache,
    /// Checkpoints the write-ahead log between requests (`database`); stops when dropped or
    /// closed. None on a read-only ledger: a checkpoint writes to the database file.
    pub checkpoint: Option<database::BackgroundCheckpoint>,
    /// Set when the ledger was opened read-only (`read_only_open`): why, for the facade's refusals.
    pub read_only: Option<read_only_open::ReadOnlyLedger>,
    /// On PostgreSQL, what this server shares with the others on the database.
    pub shared: Option<SharedDatabase>,
    /// A few SQLite connections lent without the pool's hand-back (`connection_shelf`), for
    /// `connection`. None on PostgreSQL.
    pub connection_shelf: Option<Arc<connection_shelf::ConnectionShelf>>,
    /// Whether any access token exists, remembered between requests
    /// (`tables::access_token_presence`). None on PostgreSQL.
    pub access_token_presence: Option<tables::access_token_presence::AccessTokenPresence>,
    /// Sessions as the last prompt in each left them (`tables::prompt_session_memo`). None on a
    /// read-only ledger and on PostgreSQL, where no prompt is written in one command.
    pub prompt_sessions: Option<tables::prompt_session_memo::PromptSessionMemo>,
}

/// A server among possibly several on one PostgreSQL database (issue 16, item 2).
pub struct SharedDatabase {
    /// This process's name in the database: on the events it publishes and the leases it holds.
    pub owner: String,
    /// How long a reply's lease lasts without being renewed (`reply::reply_lease`).
    pub reply_lease: std::time::Duration,
    #[cfg(feature = "postgres")]
    relay: postgres::event_relay::EventRelay,
}

impl Store {
    /// Opens the database in `data_dir` (keeping the last `keep_backups` copies written before a
    /// schema update) and says whether another living process uses the folder
    /// (then replies left open may be its, streaming right now).
    pub async fn open(
        data_dir: &Path,
        clock: Option<Clock>,
        keep_backups: usize,
    ) -> Result<(Self, Occupancy), LedgerError> {
        let (process_lock, occupancy) = ProcessLock::acquire(data_dir)?;
        // A restore staged before the last close takes effect now, unless another process has
        // the ledger open (it then waits for an open that has the folder alone).
        if occupancy == Occupancy::Alone {
            backup_restore::finish_pending(&data_dir.join(DATABASE_FILE)).await?;
        }
        let sqlite = database::open(&data_dir.join(DATABASE_FILE), keep_backups).await?;
        let ids = Arc::new(match clock {
            Some(clock) => IdGenerator::new(clock),
            None => IdGenerator::system(),
        });
        let search_purge = search_purge::SearchPurge::start(sqlite.clone());
        let checkpoint = database::BackgroundCheckpoint::start(sqlite.clone());
        let connection_shelf = connection_shelf::ConnectionShelf::new(sqlite.clone());
        let store = Self {
            events: EventBus::new(ids.clone()),
            ids,
            upkeep: Arc::new(Upkeep {
                data_dir: data_dir.to_path_buf(),
                process_lock: Some(process_lock),
                search_purge: Some(search_purge),
                message_listings: message_listing_json::listing_cache(),
                session_listings: session_listing_cache::session_listing_cache(),
                checkpoint: Some(checkpoint),
                read_only: None,
                shared: None,
                connection_shelf: Some(connection_shelf),
                access_token_presence: Some(
                    tables::access_token_presence::AccessTokenPresence::new(data_dir),
                ),
                prompt_sessions: Some(Default::default()),
            }),
            pool: Pool::Sqlite(sqlite),
        };
        Ok((store, occupancy))
    }

    /// Opens the database in `data_dir` without writing to it (`read_only_open`): for a database
    /// a newer Dossier wrote. The folder's lock is still taken, shared, so a process that starts
    /// meanwhile knows the ledger is in use and puts no staged restore in place under it.
    pub async fn open_read_only(
        data_dir: &Path,
        clock: Option<Clock>,
    ) -> Result<Self, LedgerError> {
        let (process_lock, occupancy) = ProcessLock::acquire(data_dir)?;
        if occupancy == Occupancy::Alone {
            // No sweep runs here (it writes), so there is nothing to keep others out for.
            process_lock.share(data_dir)?;
        }
        let (pool, read_only) = read_only_open::open(&data_dir.join(DATABASE_FILE)).await?;
        let ids = Arc::new(match clock {
            Some(clock) => IdGenerator::new(clock),
            None => IdGenerator::system(),
        });
        Ok(Self {
            events: EventBus::new(ids.clone()),
            ids,
            upkeep: Arc::new(Upkeep {
                data_dir: data_dir.to_path_buf(),
                process_lock: Some(process_lock),
                search_purge: None,
                message_listings: message_listing_json::listing_cache(),
                session_listings: session_listing_cache::session_listing_cache(),
                checkpoint: None,
                read_only: Some(read_only),
                shared: None,
                connection_shelf: None,
                access_token_presence: Some(
                    tables::access_token_presence::AccessTokenPresence::new(data_dir),
                ),
                prompt_sessions: None,
            }),
            pool: Pool::Sqlite(pool),
        })
    }

    /// Opens the ledger on the PostgreSQL database at `url` (`store::postgres`), bringing its
    /// schema up to date. `data_dir` still holds what is this process's own (its config beside
    /// it, MCP servers' files), never the ledger. The database is shared by design: its events
    /// go through the database to every server on it (`postgres::event_relay`), and replies are
    /// leased (`reply::reply_lease`), so it is reported `Shared`: the restart sweep, which would
    /// close replies another living server is streaming, never runs; expired leases take its
    /// place.
    #[cfg(feature = "postgres")]
    pub async fn open_postgres(
        url: &str,
        data_dir: &Path,
        clock: Option<Clock>,
        reply_lease: Option<std::time::Duration>,
    ) -> Result<(Self, Occupancy), LedgerError> {
        let pool = postgres::open(url).await?;
        let ids = Arc::new(match clock {
            Some(clock) => IdGenerator::new(clock),
            None => IdGenerator::system(),
        });
        // Unique among the servers on the database, and telling in a `reply_lease` row.
        let owner = format!(
            "{}-{}-{:08x}",
            hostname(),
            std::process::id(),
            rand::random::<u32>()
        );
        let (events, outbox) = EventBus::relayed(ids.clone());
        let relay = match postgres::event_relay::EventRelay::start(
            pool.clone(),
            events.clone(),
            outbox,
            owner.clone(),
        )
        .await
        {
            Ok(relay) => relay,
            Err(error) => {
                pool.close().await;
                return Err(error);
            }
        };
        let store = Self {
            events,
            ids,
            upkeep: Arc::new(Upkeep {
                data_dir: data_dir.to_path_buf(),
                process_lock: None,
                search_purge: None,
                message_listings: message_listing_json::listing_cache(),
                session_listings: session_listing_cache::session_listing_cache(),
                checkpoint: None,
                read_only: None,
                shared: Some(SharedDatabase {
                    owner,
                    reply_lease: reply_lease.unwrap_or(tables::reply_lease::DEFAULT_LEASE),
                    relay,
                }),
                connection_shelf: None,
                access_token_presence: None,
                prompt_sessions: None,
            }),
            pool: Pool::Postgres(pool),
        };
        Ok((store, Occupancy::Shared))
    }

    /// A build without the `postgres` feature (the desktop app's) has no second engine: the
    /// same call refuses with `PostgresNotInThisBuild`, so a database setting that reaches it
    /// says which program has the engine instead of failing to compile or being ignored.
    #[cfg(not(feature = "postgres"))]
    pub async fn open_postgres(
        url: &str,
        _data_dir: &Path,
        _clock: Option<Clock>,
        _reply_lease: Option<std::time::Duration>,
    ) -> Result<(Self, Occupancy), LedgerError> {
        Err(LedgerError::PostgresNotInThisBuild {
            database: database_url::printable(url),
        })
    }

    /// What this server shares with others on its database; none on SQLite.
    pub fn shared(&self) -> Option<&SharedDatabase> {
        self.upkeep.shared.as_ref()
    }

    /// Asks the other servers on the database to stop the reply in `session_id` (the one
    /// replying there does). Nothing to ask on SQLite.
    pub async fn ask_others_to_abort(&self, session_id: &str) -> Result<(), LedgerError> {
        #[cfg(feature = "postgres")]
        if let (Pool::Postgres(pool), Some(_)) = (&self.pool, self.shared()) {
            return postgres::event_relay::EventRelay::ask_to_abort(pool, session_id).await;
        }
        // Without the feature nothing is shared, and there is nobody to ask.
        #[cfg(not(feature = "postgres"))]
        let _ = session_id;
        Ok(())
    }

    /// Sends the answer to permission question `request_id` to the other servers on the
    /// database (the one that asked takes it). Nothing to send on SQLite.
    pub async fn send_permission_answer(
        &self,
        request_id: &str,
        reply: crate::wire::permission::PermissionReply,
    ) -> Result<(), LedgerError> {
        #[cfg(feature = "postgres")]
        if let (Pool::Postgres(pool), Some(_)) = (&self.pool, self.shared()) {
            let answer = serde_json::json!({"requestID": request_id, "reply": reply});
            return postgres::event_relay::EventRelay::ask_to_answer(pool, &answer.to_string())
                .await;
        }
        // Without the feature nothing is shared, and there is nobody to send it to.
        #[cfg(not(feature = "postgres"))]
        let _ = (request_id, reply);
        Ok(())
    }

    /// Answers to permission questions given on other servers (`{"requestID", "reply"}`); none
    /// on SQLite.
    #[cfg(feature = "postgres")]
    pub fn permission_answers(&self) -> Option<tokio::sync::broadcast::Receiver<String>> {
        self.shared()
            .map(|shared| shared.relay.permission_answers())
    }

    /// Without the `postgres` feature no ledger is shared: no answers from elsewhere.
    #[cfg(not(feature = "postgres"))]
    pub fn permission_answers(&self) -> Option<tokio::sync::broadcast::Receiver<String>> {
        None
    }

    /// The sessions other servers asked this one to stop replying in; none on SQLite.
    #[cfg(feature = "postgres")]
    pub fn abort_requests(&self) -> Option<tokio::sync::broadcast::Receiver<String>> {
        self.shared().map(|shared| shared.relay.abort_requests())
    }

    /// Without the `postgres` feature no ledger is shared: nobody asks this one to stop.
    #[cfg(not(feature = "postgres"))]
    pub fn abort_requests(&self) -> Option<tokio::sync::broadcast::Receiver<String>> {
        None
    }

    /// Why the ledger is read-only, when it is.
    pub fn read_only(&self) -> Option<&read_only_open::ReadOnlyLedger> {
        self.upkeep.read_only.as_ref()
    }

    /// Refuses a write to a read-only ledger with `LedgerError::ReadOnly`, before it reaches
    /// SQLite (whose own refusal would read as a data folder whose permissions changed).
    pub fn writable(&self) -> Result<(), LedgerError> {
        match &self.upkeep.read_only {
            Some(read_only) => Err(LedgerError::ReadOnly {
                made_by: read_only.made_by.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Tells other processes that this one is past its start-up sweep (see `process_lock`).
    pub fn share_folder(&self) -> Result<(), LedgerError> {
        match &self.upkeep.process_lock {
            Some(process_lock) => process_lock.share(&self.upkeep.data_dir),
            None => Ok(()),
        }
    }

    pub fn events(&self) -> &EventBus {
        &self.events
    }

    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    pub fn data_dir(&self) -> &Path {
        &self.upkeep.data_dir
    }

    pub fn new_id(&self, kind: IdKind) -> String {
        self.ids.next(kind)
    }

    pub fn now(&self) -> i64 {
        self.ids.now_millis()
    }

    /// A write transaction (on SQLite `BEGIN IMMEDIATE`, see `database::BEGIN_WRITE`).
    pub async fn begin_write(&self) -> Result<Transaction, LedgerError> {
        Ok(match &self.pool {
            Pool::Sqlite(pool) => {
                Transaction::Sqlite(pool.begin_with(database::BEGIN_WRITE).await?)
            }
            #[cfg(feature = "postgres")]
            Pool::Postgres(pool) => Transaction::Postgres(pool.begin().await?),
        })
    }

    /// A write transaction whose first statement is a write: on SQLite a plain (deferred)
    /// `BEGIN`, which takes the write lock at that first statement, where the busy timeout
    /// applies as it does for `BEGIN IMMEDIATE`. sqlx sends a plain `BEGIN` as one hand-off to
    /// the connection's thread; `begin_write`'s custom statement costs two (sqlx then asks the
    /// connection whether it is in a transaction). Only for a caller whose first statement
    /// writes: one that reads first could not upgrade once another connection wrote.
    pub async fn begin_with_a_write_first(&self) -> Result<Transaction, LedgerError> {
        Ok(match &self.pool {
            Pool::Sqlite(pool) => Transaction::Sqlite(pool.begin().await?),
            #[cfg(feature = "postgres")]
            Pool::Postgres(pool) => Transaction::Postgres(pool.begin().await?),
        })
    }

    /// One connection, for reads that must see one snapshot: from the shelf while it has one
    /// (`connection_shelf`), else from the pool.
    pub async fn connection(&self) -> Result<PooledConnection, LedgerError> {
        if let Some(shelf) = &self.upkeep.connection_shelf {
            if let Some(connection) = shelf.take().await? {
                return Ok(PooledConnection::SqliteShelved(connection));
            }
        }
        self.pool.acquire().await
    }

    /// The SQLite pool, for what only a database file has (backups, restores); on Postgres
    /// `NotOnPostgres` naming `operation`.
    pub(crate) fn sqlite_pool(&self, operation: &str) -> Result<&sqlx::SqlitePool, LedgerError> {
        self.pool
            .sqlite()
            .ok_or_else(|| engine::not_on_postgres(operation))
    }

    /// Asks the search purge for a run after text was deleted or rewritten (`search_purge`).
    pub fn wake_search_purge(&self) {
        if let Some(search_purge) = &self.upkeep.search_purge {
            search_purge.wake();
        }
    }

    /// After a deletion, gives the freed pages of the database file back to the file system
    /// (`disk_space`). Nothing on PostgreSQL, whose own vacuum does that.
    pub async fn give_back_free_pages(&self) -> Result<(), LedgerError> {
        match self.pool.sqlite() {
            Some(pool) => disk_space::give_back_free_pages(pool).await,
            None => Ok(()),
        }
    }

    /// Attachment bytes by hash, for adapters that serve previews.
    pub async fn blob(&self, hash: &str) -> Result<Option<rows::blob_address::Blob>, LedgerError> {
        blob_store::get(&self.pool, hash).await
    }

    /// "Back up now": a consistent copy of the ledger at `target` (`manual_backup`).
    pub async fn back_up_to(&self, target: &Path) -> Result<(), LedgerError> {
        manual_backup::write_to(self.sqlite_pool("Backing up")?, target).await
    }

    /// Restoring, step one (`backup_restore::stage`): checks `backup`, backs up the ledger in use
    /// and leaves a verified copy ready; it replaces the ledger when the store opens next.
    pub async fn stage_restore(
        &self,
        backup: &Path,
        keep_backups: usize,
    ) -> Result<backup_restore::RestoreStaged, LedgerError> {
        let database = self.upkeep.data_dir.join(DATABASE_FILE);
        let pool = self.sqlite_pool("Restoring a backup")?;
        backup_restore::stage(pool, &database, backup, keep_backups).await
    }

    /// Closes the pool, finishing in-flight writes, and lets go of the folder; used on shutdown
    /// and before a restore takes effect. When it returns, no connection to the database is
    /// open any more (a caller may then change the file's journal mode, or move it): the
    /// background tasks are stopped first, so none hands a connection back while the pool
    /// closes, and the pool is closed until it counts none (`database::close_pool`).
    pub async fn close(&self) {
        if let Some(checkpoint) = &self.upkeep.checkpoint {
            checkpoint.stop().await;
        }
        if let Some(search_purge) = &self.upkeep.search_purge {
            search_purge.stop().await;
        }
        #[cfg(feature = "postgres")]
        if let Some(shared) = &self.upkeep.shared {
            // Before the pool closes: what was published last is still written for the others.
            shared.relay.stop().await;
        }
        if let Some(shelf) = &self.upkeep.connection_shelf {
            shelf.close().await;
        }
        match &self.pool {
            Pool::Sqlite(pool) => database::close_pool(pool).await,
            #[cfg(feature = "postgres")]
            Pool::Postgres(pool) => pool.close().await,
        }
        if let Some(process_lock) = &self.upkeep.process_lock {
            if let Err(error) = process_lock.release(&self.upkeep.data_dir) {
                tracing::warn!(%error, "could not let go of the data folder's lock");
            }
        }
    }
}

/// The machine's name, for telling servers apart in the database; "server" when unknown.
#[cfg(feature = "postgres")]
fn hostname() -> String {
    std::fs::read_to_string("/etc/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "server".to_string())
}
