//! Bringing a database up to this build's schema without ever losing what it holds. Before
//! anything is written: a database with migrations this build does not know (a newer Dossier
//! wrote it) is refused, and an older one is copied to `backups/` first (`upgrade_backup`).
//! Then every pending migration runs in one transaction, with the rows sqlx keeps, so a
//! migration that fails rolls the earlier ones back too and the file is exactly as it was —
//! sqlx's own runner commits each migration on its own and would leave a half-updated file.
//! Each applied migration records the Dossier version that applied it, so an older build can
//! name the version that made a database it must not touch.

use crate::store::sqlite::database::BEGIN_WRITE;
use crate::wire::error::LedgerError;
use sqlx::migrate::Migration;
use sqlx::{Connection, SqliteConnection, SqlitePool};
use std::path::Path;

/// The version written beside each migration this build applies.
const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// sqlx's bookkeeping table, exactly as its runner creates it, so that runner (still run after
/// ours, to verify checksums) sees every migration as applied.
const MIGRATIONS_TABLE: &str = "CREATE TABLE IF NOT EXISTS _sqlx_migrations (
    version BIGINT PRIMARY KEY,
    description TEXT NOT NULL,
    installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    success BOOLEAN NOT NULL,
    checksum BLOB NOT NULL,
    execution_time BIGINT NOT NULL
)";

/// The migrations a database has applied, oldest first (none for a new, empty file).
pub(crate) async fn applied_versions(
    connection: &mut SqliteConnection,
) -> Result<Vec<i64>, sqlx::Error> {
    if !table_exists(connection, "_sqlx_migrations").await? {
        return Ok(Vec::new());
    }
    sqlx::query_scalar("SELECT version FROM _sqlx_migrations ORDER BY version")
        .fetch_all(connection)
        .await
}

async fn table_exists(connection: &mut SqliteConnection, name: &str) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar::<_, i64>(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
    )
    .bind(name.to_string())
    .fetch_one(connection)
    .await
    .map(|count| count > 0)
}

/// This build's schema version: its newest migration.
pub(crate) fn known_version(migrations: &[Migration]) -> i64 {
    up_migrations(migrations)
        .map(|migration| migration.version)
        .max()
        .unwrap_or(0)
}

fn up_migrations(migrations: &[Migration]) -> impl Iterator<Item = &Migration> {
    migrations
        .iter()
        .filter(|migration| !migration.migration_type.is_down_migration())
}

/// The migrations this build has and the database has not applied yet. Owned: a list of
/// references held across the awaits that run them makes the compiler unable to prove the
/// opening future `Send`.
pub(crate) fn pending(migrations: &[Migration], applied: &[i64]) -> Vec<Migration> {
    up_migrations(migrations)
        .filter(|migration| !applied.contains(&migration.version))
        .cloned()
        .collect()
}

/// Refuses a database that a newer Dossier migrated: nothing here may write to it.
pub(crate) async fn refuse_newer(
    connection: &mut SqliteConnection,
    database: &Path,
    applied: &[i64],
    migrations: &[Migration],
) -> Result<(), LedgerError> {
    let ours: Vec<i64> = up_migrations(migrations)
        .map(|migration| migration.version)
        .collect();
    let Some(newest_unknown) = applied
        .iter()
        .copied()
        .filter(|version| !ours.contains(version))
        .max()
    else {
        return Ok(());
    };
    let made_by = if table_exists(connection, "migration_app_version").await? {
        sqlx::query_scalar::<_, String>(
            "SELECT app_version FROM migration_app_version WHERE version = ?",
        )
        .bind(newest_unknown)
        .fetch_optional(&mut *connection)
        .await?
    } else {
        None
    };
    Err(LedgerError::NewerDatabase {
        database: database.display().to_string(),
        schema_version: applied.iter().copied().max().unwrap_or(newest_unknown),
        known_version: known_version(migrations),
        made_by,
    })
}

/// Runs every pending migration in one write transaction. `backup` is the copy written before
/// (named in the error if this fails).
pub(crate) async fn migrate(
    pool: &SqlitePool,
    database: &Path,
    migrations: &[Migration],
    backup: Option<&Path>,
) -> Result<(), LedgerError> {
    let mut connection = pool.acquire().await?;
    // Most opens have nothing to do: find that out without taking the write lock.
    let applied = applied_versions(&mut connection).await?;
    if pending(migrations, &applied).is_empty() {
        return Ok(());
    }
    let mut transaction = connection.begin_with(BEGIN_WRITE).await?;
    // Read again under the write lock: another process may have migrated since the check.
    let applied = applied_versions(&mut transaction).await?;
    let to_run = pending(migrations, &applied);
    if to_run.is_empty() {
        return Ok(());
    }
    let failed = |reason: String| LedgerError::MigrationFailed {
        database: database.display().to_string(),
        from_version: applied.iter().copied().max().unwrap_or(0),
        to_version: known_version(migrations),
        backup: backup.map(|path| path.display().to_string()),
        reason,
    };
    let outcome = run_all(&mut transaction, &to_run).await;
    match outcome {
        Ok(()) => transaction
            .commit()
            .await
            .map_err(|error| failed(LedgerError::from(error).to_string())),
        Err((version, error)) => {
            // Dropping the transaction would roll back too; doing it here keeps the order plain:
            // nothing of the update is left before the error is reported.
            transaction.rollback().await?;
            let step = if version > 0 {
                format!("step {version} failed: ")
            } else {
                String::new()
            };
            Err(failed(format!("{step}{}", LedgerError::from(error))))
        }
    }
}

/// Runs `to_run` and records each, with this build's version; the failing step's version with
/// the error (0 for the bookkeeping around the steps).
async fn run_all(
    connection: &mut SqliteConnection,
    to_run: &[Migration],
) -> Result<(), (i64, sqlx::Error)> {
    sqlx::query(MIGRATIONS_TABLE)
        .execute(&mut *connection)
        .await
        .map_err(|error| (0, error))?;
    for migration in to_run {
        if let Err(error) = apply(connection, migration).await {
            return Err((migration.version, error));
        }
    }
    let recorded = table_exists(connection, "migration_app_version")
        .await
        .map_err(|error| (0, error))?;
    if recorded {
        for migration in to_run {
            let written = sqlx::query(
                "INSERT OR IGNORE INTO migration_app_version (version, app_version) VALUES (?, ?)",
            )
            .bind(migration.version)
            .bind(APP_VERSION)
            .execute(&mut *connection)
            .await;
            if let Err(error) = written {
                return Err((migration.version, error));
            }
        }
    }
    Ok(())
}

async fn apply(
    connection: &mut SqliteConnection,
    migration: &Migration,
) -> Result<(), sqlx::Error> {
    // SQLite's driver runs every statement of an argument-less query, as sqlx's own runner
    // relies on. (Not `raw_sql`: the compiler cannot prove its future `Send` for every
    // lifetime, which the server's spawned start-up needs.)
    sqlx::query(&migration.sql)
        .execute(&mut *connection)
        .await?;
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (?, ?, TRUE, ?, 0)",
    )
    .bind(migration.version)
    .bind(migration.description.to_string())
    .bind(migration.checksum.to_vec())
    .execute(&mut *connection)
    .await?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;
    use crate::store::sqlite::database;
    use crate::store::sqlite::upgrade_backup;
    use sqlx::migrate::MigrationType;
    use std::borrow::Cow;

    fn ours() -> Vec<Migration> {
        let migrator = sqlx::migrate!("./migrations");
        migrator.iter().cloned().collect()
    }

    /// A database at an older schema (our first `count` migrations), with one session in it,
    /// closed so its write-ahead log is folded into the file.
    async fn older_database(path: &Path, count: usize) {
        let older: Vec<Migration> = ours().into_iter().take(count).collect();
        let pool = database::open_with(path, &older, 5).await.unwrap();
        sqlx::query(
            "INSERT INTO session (id, slug, project_id, directory, title, version, time_created, \
             time_updated) VALUES ('ses_1', 'one', 'p', '/tmp', 'Kept', '1', 1, 1)",
        )
        .execute(&pool)
        .await
        .unwrap();
        fold_log_and_close(pool).await;
    }

    /// Copies the write-ahead log into the file and empties it, so the file alone is the
    /// database and a byte comparison of it means something.
    async fn fold_log_and_close(pool: SqlitePool) {
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    }

    fn assert_same_bytes(path: &Path, before: &[u8]) {
        let after = std::fs::read(path).unwrap();
        assert!(
            after == before,
            "the file changed: {} bytes before, {} after",
            before.len(),
            after.len()
        );
    }

    fn broken_after(mut migrations: Vec<Migration>) -> Vec<Migration> {
        migrations.push(Migration::new(
            9_999,
            Cow::Borrowed("made to fail"),
            MigrationType::Simple,
            Cow::Borrowed("CREATE TABLE half_done (x); INSERT INTO no_such_table VALUES (1);"),
            false,
        ));
        migrations
    }

    #[tokio::test]
    async fn a_failed_migration_leaves_the_database_byte_for_byte_as_it_was() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("dossier.db");
        older_database(&path, 5).await;
        let before = std::fs::read(&path).unwrap();

        let error = database::open_with(&path, &broken_after(ours()), 5)
            .await
            .unwrap_err();

        assert_same_bytes(&path, &before);
        let backups = upgrade_backup::list(&folder.path().join("backups")).unwrap();
        assert_eq!(backups.len(), 1);
        assert!(backups[0].to_string_lossy().ends_with("-schema-5.db"));
        let LedgerError::MigrationFailed {
            from_version,
            to_version,
            backup,
            ..
        } = &error
        else {
            panic!("not a migration failure: {error:?}");
        };
        assert_eq!((*from_version, *to_version), (5, 9_999));
        assert_eq!(backup.as_deref(), Some(&*backups[0].to_string_lossy()));
        let message = error.to_string();
        assert!(message.contains("step 9999 failed"), "{message}");
        assert!(
            message.contains("no such table: no_such_table"),
            "{message}"
        );
        assert!(message.contains("Nothing was changed"), "{message}");
        assert!(
            message.contains(&*backups[0].to_string_lossy()),
            "{message}"
        );
        assert_eq!(error.kind(), crate::wire::error::ErrorKind::Internal);

        // The migrations before the broken one were rolled back with it, and the session is
        // still readable at the old schema.
        let mut connection = upgrade_backup::read_only(&path).await.unwrap();
        assert_eq!(
            applied_versions(&mut connection).await.unwrap(),
            vec![1, 2, 3, 4, 5]
        );
        let title: String = sqlx::query_scalar("SELECT title FROM session")
            .fetch_one(&mut connection)
            .await
            .unwrap();
        assert_eq!(title, "Kept");
        connection.close().await.unwrap();

        // The backup holds the same session at the old schema.
        let mut copy = upgrade_backup::read_only(&backups[0]).await.unwrap();
        assert_eq!(
            applied_versions(&mut copy).await.unwrap(),
            vec![1, 2, 3, 4, 5]
        );
        copy.close().await.unwrap();

        // Today's migrations still apply cleanly afterwards.
        let pool = database::open_with(&path, &ours(), 5).await.unwrap();
        let version: String =
            sqlx::query_scalar("SELECT app_version FROM migration_app_version WHERE version = 8")
                .fetch_one(&pool)
                .await
                .unwrap();
        assert_eq!(version, APP_VERSION);
        pool.close().await;
    }

    #[tokio::test]
    async fn a_database_from_a_newer_dossier_is_refused_untouched_naming_its_version() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("dossier.db");
        let pool = database::open_with(&path, &ours(), 5).await.unwrap();
        // What a newer Dossier leaves behind: a migration we do not have, and its version.
        sqlx::query(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, \
             execution_time) VALUES (42, 'from the future', TRUE, x'00', 0)",
        )
        .execute(&pool)
        .await
        .unwrap();
        sqlx::query("INSERT INTO migration_app_version VALUES (42, '3.1.0')")
            .execute(&pool)
            .await
            .unwrap();
        fold_log_and_close(pool).await;
        let before = std::fs::read(&path).unwrap();

        let error = database::open_with(&path, &ours(), 5).await.unwrap_err();

        assert_same_bytes(&path, &before);
        assert!(upgrade_backup::list(&folder.path().join("backups"))
            .unwrap()
            .is_empty());
        assert!(
            matches!(
                &error,
                LedgerError::NewerDatabase { schema_version: 42, known_version, made_by: Some(made_by), .. }
                    if *known_version == known_version_of_ours() && made_by == "3.1.0"
            ),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(message.contains("Dossier 3.1.0"), "{message}");
        assert!(
            message.contains("nothing was opened or changed"),
            "{message}"
        );
    }

    fn known_version_of_ours() -> i64 {
        known_version(&ours())
    }

    #[tokio::test]
    async fn an_upgrade_backs_up_first_and_keeps_the_configured_number() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("dossier.db");
        let backups_folder = folder.path().join("backups");
        older_database(&path, 6).await;
        // Three upgrades in a row into the same folder, each of a database at schema 6,
        // keeping two copies.
        for round in 0..3 {
            if round > 0 {
                std::fs::remove_file(&path).unwrap();
                older_database(&path, 6).await;
            }
            let pool = database::open_with(&path, &ours(), 2).await.unwrap();
            pool.close().await;
            // Names carry milliseconds: apart by more than that.
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        let backups = upgrade_backup::list(&backups_folder).unwrap();
        assert_eq!(backups.len(), 2, "{backups:?}");
        for backup in &backups {
            let mut copy = upgrade_backup::read_only(backup).await.unwrap();
            assert_eq!(
                applied_versions(&mut copy).await.unwrap(),
                vec![1, 2, 3, 4, 5, 6]
            );
            let title: String = sqlx::query_scalar("SELECT title FROM session")
                .fetch_one(&mut copy)
                .await
                .unwrap();
            assert_eq!(title, "Kept");
            copy.close().await.unwrap();
        }
        // An up-to-date database is opened without another copy.
        let pool = database::open_with(&path, &ours(), 2).await.unwrap();
        pool.close().await;
        assert_eq!(upgrade_backup::list(&backups_folder).unwrap(), backups);
    }
}
