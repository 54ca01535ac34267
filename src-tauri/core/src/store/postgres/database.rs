//! Opening the Postgres ledger: connect, refuse a database a newer Dossier migrated, run the
//! embedded forward-only migrations and record which Dossier version applied each. The twin of
//! `store::sqlite::database` and `store::sqlite::schema_upgrade`.
//!
//! Unlike SQLite's, the migrations run through sqlx's own runner: on Postgres it holds an
//! advisory lock while it works (so several servers starting on one database migrate it once)
//! and each migration is one transaction (Postgres's schema changes are transactional), so a
//! failed one leaves nothing half-done. There is no file to copy before an upgrade: backing up
//! a shared database is its operator's job (`pg_dump`).

use super::database_connection::ConnectionSettings;
use super::database_error::from_postgres;
use crate::store::database_url::printable;
use crate::wire::error::LedgerError;
use sqlx::migrate::{MigrateError, Migrator};
use sqlx::PgPool;

static MIGRATIONS: Migrator = sqlx::migrate!("./src/store/postgres/migrations");

/// The version written beside each migration this build applies.
const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Connects to the database at `url` (`postgres://user:password@host:port/database`, with
/// libpq's `sslmode`, `sslrootcert` and `connect_timeout` if wanted: `database_connection`) and
/// brings its schema up to this build's. A database that cannot be reached is reported at once
/// when it refuses the connection, and after the connect timeout (10 s unless the URL says)
/// when it does not answer.
pub async fn open(url: &str) -> Result<PgPool, LedgerError> {
    let settings = ConnectionSettings::from_url(url)?;
    let database = printable(url);
    let pool = settings.connect(&database).await?;
    let outcome = migrate(&pool, &database).await;
    if let Err(error) = outcome {
        pool.close().await;
        return Err(error);
    }
    Ok(pool)
}

/// This build's schema version: its newest migration.
pub fn known_version() -> i64 {
    MIGRATIONS
        .iter()
        .map(|migration| migration.version)
        .max()
        .unwrap_or(0)
}

async fn migrate(pool: &PgPool, database: &str) -> Result<(), LedgerError> {
    let applied = applied_versions(pool).await?;
    refuse_newer(pool, database, &applied).await?;
    MIGRATIONS.run(pool).await.map_err(|error| {
        let reason = match error {
            MigrateError::Execute(inner) => from_postgres(inner).to_string(),
            other => other.to_string(),
        };
        LedgerError::MigrationFailed {
            database: database.to_string(),
            from_version: applied.iter().copied().max().unwrap_or(0),
            to_version: known_version(),
            backup: None,
            reason,
        }
    })?;
    // Recorded after sqlx's runner, which commits each migration itself. A crash in between
    // leaves a version unrecorded; an older build then refuses the database all the same, only
    // without naming the version that made it.
    for migration in MIGRATIONS.iter() {
        if applied.contains(&migration.version) {
            continue;
        }
        sqlx::query(
            "INSERT INTO migration_app_version (version, app_version) VALUES ($1, $2) \
             ON CONFLICT (version) DO NOTHING",
        )
        .bind(migration.version)
        .bind(APP_VERSION)
        .execute(pool)
        .await
        .map_err(from_postgres)?;
    }
    Ok(())
}

/// The migrations the database has applied, oldest first (none for a new, empty database).
async fn applied_versions(pool: &PgPool) -> Result<Vec<i64>, LedgerError> {
    let exists: bool = sqlx::query_scalar("SELECT to_regclass('_sqlx_migrations') IS NOT NULL")
        .fetch_one(pool)
        .await
        .map_err(from_postgres)?;
    if !exists {
        return Ok(Vec::new());
    }
    sqlx::query_scalar("SELECT version FROM _sqlx_migrations ORDER BY version")
        .fetch_all(pool)
        .await
        .map_err(from_postgres)
}

/// Refuses a database that a newer Dossier migrated, with the error SQLite's side gives
/// (`LedgerError::NewerDatabase`): nothing here may write to it.
async fn refuse_newer(pool: &PgPool, database: &str, applied: &[i64]) -> Result<(), LedgerError> {
    let Some(newest_unknown) = applied
        .iter()
        .copied()
        .filter(|version| MIGRATIONS.iter().all(|ours| ours.version != *version))
        .max()
    else {
        return Ok(());
    };
    // The table may be missing when the migrations are another program's, not Dossier's.
    let recorded: bool =
        sqlx::query_scalar("SELECT to_regclass('migration_app_version') IS NOT NULL")
            .fetch_one(pool)
            .await
            .map_err(from_postgres)?;
    let made_by: Option<String> = if recorded {
        sqlx::query_scalar("SELECT app_version FROM migration_app_version WHERE version = $1")
            .bind(newest_unknown)
            .fetch_optional(pool)
            .await
            .map_err(from_postgres)?
    } else {
        None
    };
    Err(LedgerError::NewerDatabase {
        database: database.to_string(),
        schema_version: applied.iter().copied().max().unwrap_or(newest_unknown),
        known_version: known_version(),
        made_by,
    })
}
