//! A few SQLite connections kept beside the pool and lent without its hand-back.
//!
//! A connection handed back to sqlx's pool is first pinged, from a task spawned for it: one more
//! trip to the connection's thread and back on every request that borrowed one, which on this
//! two-core machine was about a tenth of a `noReply` prompt (docs/benchmarks.md). The shelf's
//! connections go back onto it at once, in `Drop`. That ping is there for network databases,
//! whose connection may have gone stale or be left mid-reply by a dropped future; a SQLite
//! connection is a file handle in this process, and its thread runs what it was sent in order,
//! so a rollback queued by a dropped transaction runs before the next borrower's first statement.
//!
//! The shelf holds at most `SHELF_CONNECTIONS`, taken out of the pool once (`detach`, so the pool
//! may open others in their place) and kept for the store's life. While all are lent, a borrower
//! takes a connection from the pool as before. `close` closes them all and waits for those
//! still lent, so that no file handle outlives the store.

use crate::wire::error::LedgerError;
use sqlx::{Connection as _, SqliteConnection, SqlitePool};
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// How many connections the shelf keeps: one per core of a small machine covers a desktop
/// window's requests; more borrowers at once take pooled connections.
const SHELF_CONNECTIONS: usize = 2;

/// How long `close` waits for lent connections to come back, and how often it looks.
const CLOSE_PATIENCE: Duration = Duration::from_secs(30);
const CLOSE_LOOK_INTERVAL: Duration = Duration::from_millis(2);

pub struct ConnectionShelf {
    pool: SqlitePool,
    state: Mutex<ShelfState>,
}

#[derive(Default)]
struct ShelfState {
    idle: Vec<SqliteConnection>,
    /// Connections lent, or on their way to being closed: counted until they are.
    out: usize,
    closed: bool,
}

impl ConnectionShelf {
    pub fn new(pool: SqlitePool) -> Arc<Self> {
        Arc::new(Self {
            pool,
            state: Mutex::new(ShelfState::default()),
        })
    }

    fn state(&self) -> MutexGuard<'_, ShelfState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A connection from the shelf, or `None` when every one is lent or the shelf is closed (the
    /// caller then borrows from the pool).
    pub async fn take(self: &Arc<Self>) -> Result<Option<ShelvedConnection>, LedgerError> {
        let idle = {
            let mut state = self.state();
            if state.closed {
                return Ok(None);
            }
            let idle = state.idle.pop();
            if idle.is_none() && state.out >= SHELF_CONNECTIONS {
                return Ok(None);
            }
            // Counted before the pool answers, so that borrowers at once open no more than the
            // shelf holds.
            state.out += 1;
            idle
        };
        // Given back if the pool fails, or if the caller stops waiting for it (a client gone).
        let reservation = Reservation { shelf: self };
        let connection = match idle {
            Some(connection) => connection,
            None => self.pool.acquire().await?.detach(),
        };
        std::mem::forget(reservation);
        Ok(Some(ShelvedConnection {
            connection: Some(connection),
            shelf: self.clone(),
            keep: true,
        }))
    }

    /// Closes every connection on the shelf and waits until the lent ones are back and closed
    /// too; the shelf lends none afterwards.
    pub async fn close(&self) {
        let idle = {
            let mut state = self.state();
            state.closed = true;
            std::mem::take(&mut state.idle)
        };
        for connection in idle {
            if let Err(error) = connection.close().await {
                tracing::debug!(%error, "closing a shelved connection");
            }
        }
        let deadline = tokio::time::Instant::now() + CLOSE_PATIENCE;
        loop {
            let out = self.state().out;
            if out == 0 {
                return;
            }
            if tokio::time::Instant::now() >= deadline {
                tracing::warn!(
                    connections = out,
                    "shelved connections are still lent after closing"
                );
                return;
            }
            tokio::time::sleep(CLOSE_LOOK_INTERVAL).await;
        }
    }

    /// Takes back a connection: onto the shelf, or closed when it must not be lent again or the
    /// shelf is closed. It stays counted as lent until it is closed.
    fn give_back(self: Arc<Self>, connection: SqliteConnection, keep: bool) {
        {
            let mut state = self.state();
            if keep && !state.closed {
                state.out -= 1;
                state.idle.push(connection);
                return;
            }
        }
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    if let Err(error) = connection.close().await {
                        tracing::debug!(%error, "closing a shelved connection");
                    }
                    self.state().out -= 1;
                });
            }
            Err(_) => {
                // No runtime to wait on: its thread closes the file once it sees the handle go.
                drop(connection);
                self.state().out -= 1;
            }
        }
    }
}

/// A place on the shelf counted as lent while its connection is being opened: given back when
/// dropped, which only happens if no connection came of it.
struct Reservation<'shelf> {
    shelf: &'shelf ConnectionShelf,
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.shelf.state().out -= 1;
    }
}

/// A connection lent by the shelf: back onto it when dropped, unless `close_on_drop` was called.
pub struct ShelvedConnection {
    connection: Option<SqliteConnection>,
    shelf: Arc<ConnectionShelf>,
    keep: bool,
}

impl ShelvedConnection {
    /// Closes the connection when it is dropped instead of shelving it (one left inside a
    /// transaction that sqlx does not know of).
    pub fn close_on_drop(&mut self) {
        self.keep = false;
    }
}

impl Deref for ShelvedConnection {
    type Target = SqliteConnection;

    fn deref(&self) -> &SqliteConnection {
        self.connection
            .as_ref()
            .expect("a shelved connection is present until dropped")
    }
}

impl DerefMut for ShelvedConnection {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        self.connection
            .as_mut()
            .expect("a shelved connection is present until dropped")
    }
}

impl Drop for ShelvedConnection {
    fn drop(&mut self) {
        if let Some(connection) = self.connection.take() {
            self.shelf.clone().give_back(connection, self.keep);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ConnectionShelf, ShelvedConnection, SHELF_CONNECTIONS};
    use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
    use sqlx::SqlitePool;
    use std::sync::Arc;
    use std::time::Duration;

    async fn pool(folder: &tempfile::TempDir) -> SqlitePool {
        let options = SqliteConnectOptions::new()
            .filename(folder.path().join("ledger.db"))
            .create_if_missing(true)
            .busy_timeout(Duration::from_millis(200));
        SqlitePoolOptions::new()
            .max_connections(2)
            .connect_with(options)
            .await
            .expect("pool")
    }

    /// A connection off the shelf, which the test expects to have one.
    async fn lent(shelf: &Arc<ConnectionShelf>) -> ShelvedConnection {
        shelf
            .take()
            .await
            .expect("take")
            .expect("a shelved connection")
    }

    /// A temporary table lives on one connection alone: finding it says which one was lent.
    async fn marked(connection: &mut sqlx::SqliteConnection) -> bool {
        sqlx::query_scalar::<_, i64>(
            "SELECT count(*) FROM sqlite_temp_master WHERE name = 'marked'",
        )
        .fetch_one(connection)
        .await
        .expect("the temporary schema")
            == 1
    }

    #[tokio::test]
    async fn a_connection_given_back_is_lent_again_and_the_pool_lends_beyond_the_shelf() {
        let folder = tempfile::tempdir().expect("temp dir");
        let pool = pool(&folder).await;
        let shelf = ConnectionShelf::new(pool.clone());
        let mut first = lent(&shelf).await;
        sqlx::query("CREATE TEMP TABLE marked (value INTEGER)")
            .execute(&mut *first)
            .await
            .expect("mark it");
        drop(first);
        let mut again = lent(&shelf).await;
        assert!(
            marked(&mut again).await,
            "the same connection, off the shelf"
        );

        let mut all_lent = vec![again];
        while all_lent.len() < SHELF_CONNECTIONS {
            all_lent.push(lent(&shelf).await);
        }
        assert!(
            shelf.take().await.expect("take").is_none(),
            "with every shelved connection lent, the caller goes to the pool"
        );
        // The shelf's connections left the pool, which still lends its own.
        let mut pooled = pool.acquire().await.expect("a pooled connection");
        assert!(!marked(&mut pooled).await);
        drop(pooled);
        drop(all_lent);
        shelf.close().await;
        assert!(
            shelf.take().await.expect("take").is_none(),
            "closed: lends none"
        );
        pool.close().await;
    }

    #[tokio::test]
    async fn a_borrower_that_stops_waiting_for_the_pool_gives_its_place_back() {
        let folder = tempfile::tempdir().expect("temp dir");
        let options = SqliteConnectOptions::new()
            .filename(folder.path().join("ledger.db"))
            .create_if_missing(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(30))
            .connect_with(options)
            .await
            .expect("pool");
        let shelf = ConnectionShelf::new(pool.clone());
        // The pool's one connection is out: the shelf's first borrower waits for it.
        let held = pool.acquire().await.expect("the pool's connection");
        let waiting = tokio::time::timeout(Duration::from_millis(50), shelf.take()).await;
        assert!(waiting.is_err(), "the borrower was still waiting");
        assert_eq!(shelf.state().out, 0, "its place is free again");
        drop(held);
        let connection = lent(&shelf).await;
        assert_eq!(shelf.state().out, 1);
        drop(connection);
        shelf.close().await;
        pool.close().await;
    }

    #[tokio::test]
    async fn one_left_inside_a_transaction_is_closed_and_close_waits_for_the_lent() {
        let folder = tempfile::tempdir().expect("temp dir");
        let pool = pool(&folder).await;
        sqlx::query("CREATE TABLE kept (value INTEGER)")
            .execute(&pool)
            .await
            .expect("table");
        let shelf = ConnectionShelf::new(pool.clone());
        let mut connection = lent(&shelf).await;
        sqlx::query("BEGIN; INSERT INTO kept VALUES (1); CREATE TEMP TABLE marked (value INTEGER)")
            .execute(&mut *connection)
            .await
            .expect("the transaction's first write");
        connection.close_on_drop();
        drop(connection);
        // Closing rolled the transaction back and let go of the write lock.
        sqlx::query("INSERT INTO kept VALUES (2)")
            .execute(&pool)
            .await
            .expect("a write afterwards");
        let kept: Vec<i64> = sqlx::query_scalar("SELECT value FROM kept")
            .fetch_all(&pool)
            .await
            .expect("rows");
        assert_eq!(kept, [2], "the unfinished transaction is rolled back");
        let mut fresh = lent(&shelf).await;
        assert!(
            !marked(&mut fresh).await,
            "a new connection, not the closed one"
        );

        // `close` returns only once the lent connection came back and was closed.
        let closing = {
            let shelf = shelf.clone();
            tokio::spawn(async move { shelf.close().await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(
            !closing.is_finished(),
            "close waits for the lent connection"
        );
        drop(fresh);
        closing.await.expect("close");
        assert_eq!(shelf.state().out, 0);
        pool.close().await;
    }
}
