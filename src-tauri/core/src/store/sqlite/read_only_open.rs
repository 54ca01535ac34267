//! Opening a ledger read-only: what an older Dossier does with a database a newer one wrote, so
//! its sessions can still be read. Nothing here may change the file: every connection is opened
//! with SQLite's `mode=ro` and `PRAGMA query_only`, and none of what a normal open does runs — no
//! migration, no staged restore put in place, no backup written or pruned, no write-ahead-log
//! checkpoint, no search purge. The facade refuses each write with `LedgerError::ReadOnly`
//! before it reaches SQLite; `mode=ro` is the floor under that, should a write slip past.

use crate::store::sqlite::{database, integrity_check, schema_upgrade, upgrade_backup};
use crate::wire::error::LedgerError;
use serde::Serialize;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::SqlitePool;
use std::path::Path;
use std::time::Duration;
use ts_rs::TS;

/// Why a ledger is open read-only, for the window's banner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ReadOnlyLedger {
    /// The Dossier version that last changed the database's format, when it recorded one.
    pub made_by: Option<String>,
    /// The database's newest migration, and this build's.
    #[ts(type = "number")]
    pub schema_version: i64,
    #[ts(type = "number")]
    pub known_version: i64,
}

/// Opens the database at `path` without writing to it, and says which version made it.
pub(crate) async fn open(path: &Path) -> Result<(SqlitePool, ReadOnlyLedger), LedgerError> {
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.len() > 0 => {}
        Ok(_) => {
            return Err(LedgerError::Io {
                path: path.display().to_string(),
                message: "the file is empty: there are no sessions to read".into(),
            })
        }
        Err(error) => return Err(LedgerError::io(path, error)),
    }
    let options = SqliteConnectOptions::new()
        .filename(path)
        .read_only(true)
        .create_if_missing(false)
        .busy_timeout(Duration::from_secs(5))
        .pragma("query_only", "ON");
    let pool = SqlitePoolOptions::new()
        .max_connections(4)
        .min_connections(1)
        .connect_with(options)
        .await?;
    match describe(&pool, path).await {
        Ok(ledger) => Ok((pool, ledger)),
        Err(error) => {
            pool.close().await;
            Err(error)
        }
    }
}

/// The quick check (a damaged file is refused, as at a normal open, but nothing is copied
/// aside: that is the normal open's job) and the versions.
async fn describe(pool: &SqlitePool, path: &Path) -> Result<ReadOnlyLedger, LedgerError> {
    let mut connection = pool.acquire().await?;
    let finding = match integrity_check::quick_check(&mut connection).await {
        Ok(finding) => finding,
        Err(error) if integrity_check::is_damage(&error) => Some(error.to_string()),
        Err(error) => return Err(error.into()),
    };
    if let Some(detail) = finding {
        let data_dir = path.parent().unwrap_or(Path::new("."));
        return Err(LedgerError::DatabaseDamaged {
            database: path.display().to_string(),
            detail,
            kept_at: None,
            newest_backup: upgrade_backup::newest_good(data_dir)
                .await
                .map(|backup| backup.display().to_string()),
        });
    }
    let migrations = database::migrations();
    let applied = schema_upgrade::applied_versions(&mut connection).await?;
    let known_version = schema_upgrade::known_version(&migrations);
    match schema_upgrade::refuse_newer(&mut connection, path, &applied, &migrations).await {
        Err(LedgerError::NewerDatabase {
            schema_version,
            made_by,
            ..
        }) => Ok(ReadOnlyLedger {
            made_by,
            schema_version,
            known_version,
        }),
        Err(error) => Err(error),
        // A database this build knows, opened read-only all the same: it made it itself.
        Ok(()) => Ok(ReadOnlyLedger {
            made_by: None,
            schema_version: applied.iter().copied().max().unwrap_or(0),
            known_version,
        }),
    }
}
