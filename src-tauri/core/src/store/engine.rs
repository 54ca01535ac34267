//! Which database the store runs on: SQLite, the embedded default, or PostgreSQL, for a ledger a
//! team shares (`docs/postgres.md`). Every store function takes one of these handles and
//! dispatches on the engine at its top, so the floors above pass transactions and connections
//! through without knowing which engine answers; the SQLite bodies stay as they were, and each
//! Postgres body lives in its twin under `store/postgres/`. Every Postgres variant and arm is
//! compiled only with the `postgres` feature (dossier-server's); without it the handles hold
//! SQLite alone.

use crate::store::connection_shelf::ShelvedConnection;
use crate::wire::error::LedgerError;
use sqlx::pool::PoolConnection;
#[cfg(feature = "postgres")]
use sqlx::{PgConnection, PgPool, Postgres};
use sqlx::{Sqlite, SqliteConnection, SqlitePool};

/// The engine's connection pool.
#[derive(Clone, Debug)]
pub enum Pool {
    Sqlite(SqlitePool),
    #[cfg(feature = "postgres")]
    Postgres(PgPool),
}

/// One open transaction. Dropped without `commit`, it rolls back (sqlx's own rule).
pub enum Transaction {
    Sqlite(sqlx::Transaction<'static, Sqlite>),
    #[cfg(feature = "postgres")]
    Postgres(sqlx::Transaction<'static, Postgres>),
}

/// One connection taken from the pool (or from the shelf beside it, `connection_shelf`), for
/// reads that must see one snapshot.
pub enum PooledConnection {
    Sqlite(PoolConnection<Sqlite>),
    SqliteShelved(ShelvedConnection),
    #[cfg(feature = "postgres")]
    Postgres(PoolConnection<Postgres>),
}

/// A borrowed connection of either engine: what a store function matches on.
pub enum Connection<'connection> {
    Sqlite(&'connection mut SqliteConnection),
    #[cfg(feature = "postgres")]
    Postgres(&'connection mut PgConnection),
}

/// Anything a store function can run its statements on: a transaction, a pooled connection, or a
/// bare connection of either engine. Store functions take `&mut impl Connect`, so a caller passes
/// `&mut transaction` whatever the engine.
pub trait Connect: Send {
    fn connection(&mut self) -> Connection<'_>;
}

impl Connect for SqliteConnection {
    fn connection(&mut self) -> Connection<'_> {
        Connection::Sqlite(self)
    }
}

#[cfg(feature = "postgres")]
impl Connect for PgConnection {
    fn connection(&mut self) -> Connection<'_> {
        Connection::Postgres(self)
    }
}

impl Connect for sqlx::Transaction<'_, Sqlite> {
    fn connection(&mut self) -> Connection<'_> {
        Connection::Sqlite(self)
    }
}

#[cfg(feature = "postgres")]
impl Connect for sqlx::Transaction<'_, Postgres> {
    fn connection(&mut self) -> Connection<'_> {
        Connection::Postgres(self)
    }
}

impl Connect for PoolConnection<Sqlite> {
    fn connection(&mut self) -> Connection<'_> {
        Connection::Sqlite(self)
    }
}

#[cfg(feature = "postgres")]
impl Connect for PoolConnection<Postgres> {
    fn connection(&mut self) -> Connection<'_> {
        Connection::Postgres(self)
    }
}

impl Connect for Transaction {
    fn connection(&mut self) -> Connection<'_> {
        match self {
            Self::Sqlite(transaction) => Connection::Sqlite(transaction),
            #[cfg(feature = "postgres")]
            Self::Postgres(transaction) => Connection::Postgres(transaction),
        }
    }
}

impl Connect for PooledConnection {
    fn connection(&mut self) -> Connection<'_> {
        match self {
            Self::Sqlite(connection) => Connection::Sqlite(connection),
            Self::SqliteShelved(connection) => Connection::Sqlite(connection),
            #[cfg(feature = "postgres")]
            Self::Postgres(connection) => Connection::Postgres(connection),
        }
    }
}

impl Connect for Connection<'_> {
    fn connection(&mut self) -> Connection<'_> {
        match self {
            Self::Sqlite(connection) => Connection::Sqlite(connection),
            #[cfg(feature = "postgres")]
            Self::Postgres(connection) => Connection::Postgres(connection),
        }
    }
}

impl PooledConnection {
    /// The SQLite connection, when the pool is SQLite's.
    pub fn sqlite(&mut self) -> Option<&mut SqliteConnection> {
        match self {
            Self::Sqlite(connection) => Some(connection),
            Self::SqliteShelved(connection) => Some(connection),
            #[cfg(feature = "postgres")]
            Self::Postgres(_) => None,
        }
    }

    /// Closes the connection when it is dropped instead of lending it again.
    pub fn close_on_drop(&mut self) {
        match self {
            Self::Sqlite(connection) => connection.close_on_drop(),
            Self::SqliteShelved(connection) => connection.close_on_drop(),
            #[cfg(feature = "postgres")]
            Self::Postgres(connection) => connection.close_on_drop(),
        }
    }
}

impl Transaction {
    pub async fn commit(self) -> Result<(), LedgerError> {
        match self {
            Self::Sqlite(transaction) => transaction.commit().await?,
            #[cfg(feature = "postgres")]
            Self::Postgres(transaction) => transaction.commit().await?,
        }
        Ok(())
    }

    pub async fn rollback(self) -> Result<(), LedgerError> {
        match self {
            Self::Sqlite(transaction) => transaction.rollback().await?,
            #[cfg(feature = "postgres")]
            Self::Postgres(transaction) => transaction.rollback().await?,
        }
        Ok(())
    }
}

impl Pool {
    /// The SQLite pool, for what only a file database has (backups, integrity checks, the
    /// write-ahead log) and for tests that look at the file's rows directly.
    pub fn sqlite(&self) -> Option<&SqlitePool> {
        match self {
            Self::Sqlite(pool) => Some(pool),
            #[cfg(feature = "postgres")]
            Self::Postgres(_) => None,
        }
    }

    /// Whether the pool was closed (the store is closing): background work stops then.
    pub fn is_closed(&self) -> bool {
        match self {
            Self::Sqlite(pool) => pool.is_closed(),
            #[cfg(feature = "postgres")]
            Self::Postgres(pool) => pool.is_closed(),
        }
    }

    /// One connection from the pool.
    pub async fn acquire(&self) -> Result<PooledConnection, LedgerError> {
        Ok(match self {
            Self::Sqlite(pool) => PooledConnection::Sqlite(pool.acquire().await?),
            #[cfg(feature = "postgres")]
            Self::Postgres(pool) => PooledConnection::Postgres(pool.acquire().await?),
        })
    }
}

/// The refusal of an operation that the PostgreSQL engine does not have yet. No person can open
/// a Postgres ledger until every operation has its twin (`docs/postgres.md`), so this is for the
/// engine's own tests and for the work in progress, never a path of the app.
pub fn not_on_postgres(operation: &str) -> LedgerError {
    LedgerError::NotOnPostgres(operation.to_string())
}

/// Runs `$body` with `$connection` bound to the borrowed connection of whichever engine the
/// handle holds. The body is compiled once per engine, so it suits statements both engines read
/// the same way: numbered parameters (`$1`, which SQLite accepts too), `RETURNING`, `ON CONFLICT`,
/// BIGINT/TEXT/bytea columns. Where the dialects differ, the function matches on `Connection`
/// itself and calls its twin under `store/postgres/`.
macro_rules! on_either_engine {
    ($handle:expr, |$connection:ident| $body:expr) => {
        match $crate::store::engine::Connect::connection($handle) {
            $crate::store::engine::Connection::Sqlite($connection) => $body,
            #[cfg(feature = "postgres")]
            $crate::store::engine::Connection::Postgres($connection) => $body,
        }
    };
}
pub(crate) use on_either_engine;
