//! Start-up: a request that connects before the ledger is open waits and is answered.

use super::support::{ledger_options, test_options};
use dossier_server::{bind, serve};
use std::time::{Duration, Instant};

#[tokio::test]
async fn a_request_during_start_up_waits_and_is_answered() {
    let folder = tempfile::tempdir().unwrap();
    let options = test_options();
    let listener = bind(&options).await.unwrap();
    let address = listener.local_addr().unwrap();
    let started = Instant::now();
    let early = tokio::spawn(async move {
        crate::http::support::http_client()
            .get(format!("http://{address}/session"))
            .timeout(Duration::from_secs(10))
            .send()
            .await
    });
    let ledger = ledger_options(&folder);
    let opening = async move {
        // A slow start: the request above is already connected and waiting.
        tokio::time::sleep(Duration::from_millis(400)).await;
        dossier_core::start_up::open(ledger).await
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        serve(
            listener,
            opening,
            &options,
            async move {
                let _ = stopped.await;
            },
            |_| {},
        )
        .await
    });
    let response = early.await.unwrap().unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "[]");
    assert!(started.elapsed() >= Duration::from_millis(400));
    stop.send(()).unwrap();
    server.await.unwrap().unwrap();
}

#[tokio::test]
async fn a_ledger_that_cannot_open_stops_start_up_with_the_reason() {
    let folder = tempfile::tempdir().unwrap();
    let config = folder.path().join("dossier.json");
    std::fs::write(&config, "{ not json").unwrap();
    let mut ledger = ledger_options(&folder);
    ledger.config = None;
    ledger.locations.config_path = config;
    let options = test_options();
    let listener = bind(&options).await.unwrap();
    let outcome = serve(
        listener,
        dossier_core::start_up::open(ledger),
        &options,
        std::future::pending(),
        |_| {},
    )
    .await;
    let error = outcome.unwrap_err().to_string();
    assert!(error.contains("dossier.json"), "{error}");
}

#[tokio::test]
async fn a_database_from_a_newer_dossier_stops_start_up_naming_its_version() {
    let folder = tempfile::tempdir().unwrap();
    let ledger = dossier_core::start_up::open(ledger_options(&folder))
        .await
        .unwrap();
    ledger.close().await;
    let database = folder.path().join("data/dossier.db");
    {
        // What a newer Dossier leaves behind: a migration this build does not have, and the
        // version that applied it.
        use sqlx::ConnectOptions;
        let mut connection = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(&database)
            .connect()
            .await
            .unwrap();
        sqlx::query(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, \
             execution_time) VALUES (4000, 'from the future', TRUE, x'00', 0)",
        )
        .execute(&mut connection)
        .await
        .unwrap();
        sqlx::query("INSERT INTO migration_app_version VALUES (4000, '7.2.0')")
            .execute(&mut connection)
            .await
            .unwrap();
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&mut connection)
            .await
            .unwrap();
        sqlx::Connection::close(connection).await.unwrap();
    }
    let before = std::fs::read(&database).unwrap();
    let options = test_options();
    let listener = bind(&options).await.unwrap();
    let outcome = serve(
        listener,
        dossier_core::start_up::open(ledger_options(&folder)),
        &options,
        std::future::pending(),
        |_| {},
    )
    .await;
    let error = outcome.unwrap_err().to_string();
    assert!(error.contains("Dossier 7.2.0"), "{error}");
    assert!(error.contains("nothing was opened or changed"), "{error}");
    assert!(
        std::fs::read(&database).unwrap() == before,
        "the newer database was written to"
    );
}
