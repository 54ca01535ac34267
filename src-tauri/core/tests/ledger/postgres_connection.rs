//! Connecting to PostgreSQL (`store::postgres::database_connection`): a database that cannot be
//! reached is reported promptly, as a typed error that names it without its password; one that
//! goes away under a running server is answered "try again" and the pool recovers; TLS with the
//! URL's `sslmode` and `sslrootcert`, against the test server's certificate
//! (`scripts/postgres-for-tests.sh` gives it one, signed by an authority of its own).
//!
//! No test asserts a time (the machine is shared): the refused case is refused, not timed out,
//! and the silent one names the timeout it waited. How long each takes is in `docs/postgres.md`.
#![allow(clippy::unwrap_used)] // a failing unwrap is the test's report

use crate::support::postgres_server::{
    admin_url, certificate_authority, fresh_database, password_of,
};
use dossier_core::store::postgres;
use dossier_core::{ErrorKind, LedgerError};
use sqlx::{Connection, PgConnection, PgPool};
use std::io::{Read, Write};
use std::path::Path;

/// A certificate authority that signed nothing (its key was thrown away when it was made).
const UNRELATED_AUTHORITY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/unrelated-certificate-authority.pem"
);

/// A port on 127.0.0.1 that nothing listens on: bound to find a free one, then let go.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// `url` on `host`, with these query parameters.
fn with_parameters(url: &str, host: &str, parameters: &[(&str, &str)]) -> String {
    let mut url = url::Url::parse(url).unwrap();
    url.set_host(Some(host)).unwrap();
    url.query_pairs_mut().extend_pairs(parameters);
    url.to_string()
}

/// Whether the connection the pool hands out is encrypted, in the server's own view.
async fn encrypted(pool: &PgPool) -> bool {
    sqlx::query_scalar("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_refused_connection_is_reported_at_once_naming_the_database_without_its_password() {
    let port = closed_port();
    for url in [
        format!("postgres://dossier:secret-word@127.0.0.1:{port}/dossier"),
        // libpq's URLs may carry the password as a parameter too.
        format!("postgres://dossier@127.0.0.1:{port}/dossier?password=secret-word"),
    ] {
        let error = postgres::open(&url).await.unwrap_err();
        let LedgerError::DatabaseUnreachable { database, reason } = &error else {
            panic!("{url}: {error:?}");
        };
        assert_eq!(
            database,
            &format!("postgres://dossier@127.0.0.1:{port}/dossier")
        );
        // Refused, not timed out: sqlx's pool alone would have retried for 30 s and said only
        // that it timed out.
        assert_eq!(
            reason,
            &format!(
                "the connection to 127.0.0.1:{port} was refused: no database server is \
                 listening there"
            )
        );
        let message = error.to_string();
        assert!(
            message.contains("Nothing was opened or changed"),
            "{message}"
        );
        assert!(
            message.contains("Check that the PostgreSQL server is running"),
            "{message}"
        );
        assert!(!message.contains("secret-word"), "{message}");
        assert_eq!(error.kind(), ErrorKind::Unavailable);
    }
}

#[tokio::test]
async fn a_database_that_does_not_answer_is_given_up_after_the_connect_timeout() {
    // Accepts the connection (the kernel completes TCP's handshake) and never answers, as a
    // hung server or a proxy with nothing behind it does.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let url = format!("postgres://dossier:secret-word@127.0.0.1:{port}/dossier?connect_timeout=1");
    let error = postgres::open(&url).await.unwrap_err();
    let LedgerError::DatabaseUnreachable { database, reason } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(
        reason,
        &format!("127.0.0.1:{port} did not answer within 1 second")
    );
    assert!(!database.contains("secret-word"), "{database}");
    drop(silent);

    let error = postgres::open(&format!(
        "postgres://dossier@127.0.0.1:{port}/dossier?connect_timeout=0"
    ))
    .await
    .unwrap_err();
    assert!(
        matches!(&error, LedgerError::InvalidData { reason, .. } if reason.contains("connect_timeout must be a whole number of seconds, 1 or more")),
        "{error:?}"
    );
}

/// What a running server answers when its database ends a connection (here its administrator
/// does, with `pg_terminate_backend`; a restart or failover does the same to every connection):
/// "try again", not an internal error, and the next request gets a working connection.
#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn a_connection_the_database_ends_is_answered_try_again_and_the_pool_recovers() {
    let database = fresh_database().await;
    let pool = database.open().await;
    let mut connection = pool.acquire().await.unwrap();
    let backend: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&mut *connection)
        .await
        .unwrap();
    let mut admin = PgConnection::connect(admin_url()).await.unwrap();
    // With a timeout, it returns once the backend has gone.
    let ended: bool = sqlx::query_scalar("SELECT pg_terminate_backend($1, 10000)")
        .bind(backend)
        .fetch_one(&mut admin)
        .await
        .unwrap();
    assert!(ended);
    admin.close().await.unwrap();

    let error = postgres::session_store::find(&mut connection, "ses_1")
        .await
        .unwrap_err();
    assert!(
        matches!(error, LedgerError::DatabaseConnectionLost { .. }),
        "{error:?}"
    );
    assert_eq!(error.kind(), ErrorKind::Busy);
    let message = error.to_string();
    assert!(message.contains("Try again in a moment"), "{message}");
    assert!(
        message.contains("everything saved before is safe"),
        "{message}"
    );
    drop(connection);

    // The pool tests a connection before handing it out and replaces the broken one.
    let mut connection = pool.acquire().await.unwrap();
    let found = postgres::session_store::find(&mut connection, "ses_1")
        .await
        .unwrap();
    assert!(found.is_none());
    drop(connection);
    database.drop_database(pool).await;
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn verify_full_with_the_servers_certificate_authority_connects_encrypted() {
    let Some(authority) = certificate_authority() else {
        eprintln!("skipped: DOSSIER_TEST_POSTGRES_URL's server has no DOSSIER_TEST_POSTGRES_CA");
        return;
    };
    let authority = authority.to_str().unwrap();
    let database = fresh_database().await;
    // The certificate is for 127.0.0.1 and localhost, so verify-full holds for both names.
    for host in ["127.0.0.1", "localhost"] {
        let url = with_parameters(
            &database.url,
            host,
            &[("sslmode", "verify-full"), ("sslrootcert", authority)],
        );
        let pool = postgres::open(&url)
            .await
            .unwrap_or_else(|error| panic!("{host}: {error}"));
        assert!(encrypted(&pool).await, "{host}");
        pool.close().await;
    }
    // `require` encrypts without checking the certificate (libpq's meaning), and `prefer`, the
    // default, encrypts when the server offers TLS.
    for parameters in [&[("sslmode", "require")][..], &[]] {
        let url = with_parameters(&database.url, "127.0.0.1", parameters);
        let pool = postgres::open(&url).await.unwrap();
        assert!(encrypted(&pool).await, "{parameters:?}");
        pool.close().await;
    }
    // And the check tells the difference: `disable` is plain TCP.
    let url = with_parameters(&database.url, "127.0.0.1", &[("sslmode", "disable")]);
    let pool = postgres::open(&url).await.unwrap();
    assert!(!encrypted(&pool).await);
    database.drop_database(pool).await;
}

#[tokio::test]
#[cfg_attr(
    wine,
    ignore = "needs the throwaway PostgreSQL that scripts/postgres-for-tests.sh starts: a bash script, which a Windows program under Wine cannot run"
)]
async fn a_certificate_another_authority_signed_is_refused_and_nothing_is_written() {
    if certificate_authority().is_none() {
        eprintln!("skipped: DOSSIER_TEST_POSTGRES_URL's server has no DOSSIER_TEST_POSTGRES_CA");
        return;
    }
    let database = fresh_database().await;
    let password = password_of(&database.url);
    // `require` with an `sslrootcert` checks the certificate as `verify-ca` does (libpq's
    // meaning), so it is refused too.
    for mode in ["verify-full", "verify-ca", "require"] {
        let url = with_parameters(
            &database.url,
            "127.0.0.1",
            &[("sslmode", mode), ("sslrootcert", UNRELATED_AUTHORITY)],
        );
        let error = postgres::open(&url).await.unwrap_err();
        let LedgerError::DatabaseTlsRefused {
            database: named,
            reason,
        } = &error
        else {
            panic!("{mode}: {error:?}");
        };
        assert!(named.contains(&database.name), "{named}");
        assert!(
            reason.contains("is signed neither by the certificate authority in")
                && reason.contains(UNRELATED_AUTHORITY),
            "{mode}: {reason}"
        );
        let message = error.to_string();
        assert!(
            message.contains("Nothing was opened or changed"),
            "{message}"
        );
        assert!(message.contains("sslrootcert must name"), "{message}");
        assert!(!message.contains(&password), "{message}");
        assert_eq!(error.kind(), ErrorKind::Invalid);
    }
    // A file that is not there is named as such, not taken for a network failure.
    let missing = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-such-authority.pem");
    let url = with_parameters(
        &database.url,
        "127.0.0.1",
        &[
            ("sslmode", "verify-full"),
            ("sslrootcert", missing.to_str().unwrap()),
        ],
    );
    let error = postgres::open(&url).await.unwrap_err();
    assert!(
        matches!(&error, LedgerError::DatabaseTlsRefused { reason, .. }
            if reason.contains("cannot be read") && reason.contains("no-such-authority.pem")),
        "{error:?}"
    );
    // Refused before a statement ran: the database holds no table.
    let mut connection = PgConnection::connect(&database.url).await.unwrap();
    let tables: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')",
    )
    .fetch_one(&mut connection)
    .await
    .unwrap();
    assert_eq!(tables, 0);
    connection.close().await.unwrap();
    let pool = database.open().await;
    database.drop_database(pool).await;
}

/// A server with `ssl = off` answers a client's SSLRequest with one byte, `N`; this one does
/// exactly that (a second real PostgreSQL without TLS would cost another cluster for one byte).
/// Returns the port and what the client sent.
fn server_without_tls() -> (u16, std::thread::JoinHandle<[u8; 8]>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut request = [0u8; 8];
        stream.read_exact(&mut request).unwrap();
        stream.write_all(b"N").unwrap();
        // Until the client closes: it has nothing more to say after the `N`.
        let mut rest = Vec::new();
        stream.read_to_end(&mut rest).unwrap_or_default();
        request
    });
    (port, server)
}

#[tokio::test]
async fn require_against_a_server_without_tls_is_refused() {
    let (port, server) = server_without_tls();
    let url = format!("postgres://dossier:secret-word@127.0.0.1:{port}/dossier?sslmode=require");
    let error = postgres::open(&url).await.unwrap_err();
    let LedgerError::DatabaseTlsRefused { reason, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(
        reason,
        &format!(
            "the database server at 127.0.0.1:{port} does not offer TLS, and sslmode=require \
             needs it"
        )
    );
    assert!(!error.to_string().contains("secret-word"), "{error}");
    // PostgreSQL's SSLRequest: length 8, then the code 80877103.
    assert_eq!(server.join().unwrap(), [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);
}
