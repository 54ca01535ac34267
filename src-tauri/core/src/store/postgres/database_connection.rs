//! Connecting to the PostgreSQL database: what the URL says about TLS and about how long to wait,
//! a first connection that fails promptly with a reason a person can act on, and the pool.
//!
//! sqlx's pool alone would hide why a database cannot be reached: it retries a refused
//! connection (taking it for a server still starting) until its acquire timeout, then reports
//! only that it timed out. So `open` first makes one connection of its own, bounded by the
//! connect timeout, and reads its error: refused at once, silent past the timeout, a certificate
//! not trusted. Only then is the pool made.
//!
//! The URL's TLS parameters are sqlx's, which are libpq's: `sslmode`
//! (`disable|prefer|require|verify-ca|verify-full`, `prefer` when absent) and `sslrootcert`,
//! checked against the system's certificate authorities and the one `sslrootcert` names (rustls
//! with ring). Two of libpq's behaviours sqlx lacks are added here: `connect_timeout` (seconds)
//! and `require` with an `sslrootcert` verifying the certificate as `verify-ca` does.

use super::database_error::from_postgres;
use crate::wire::error::LedgerError;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions, PgSslMode};
use sqlx::{ConnectOptions, Connection, PgPool};
use std::str::FromStr;
use std::time::Duration;
use tokio::time::Instant;

/// How long a connection may take (TCP, TLS and authentication) when the URL does not say
/// (`connect_timeout`), and how long a request waits for a connection from the pool before it
/// is answered that the database cannot be reached. Long enough for a database across a slow
/// network and for a busy pool under load, short enough that a person is told soon.
pub(crate) const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections per process. Several server processes share one database, whose default limit is
/// 100 connections in all.
const MAX_CONNECTIONS: u32 = 16;

/// libpq's name for the connect timeout, which sqlx does not read (it would warn about it).
const CONNECT_TIMEOUT_PARAMETER: &str = "connect_timeout";

/// The names sqlx accepts for the certificate authority file.
const ROOT_CERTIFICATE_PARAMETERS: [&str; 3] = ["sslrootcert", "ssl-root-cert", "ssl-ca"];

/// A database still starting answers this SQLSTATE ("cannot_connect_now"); worth waiting for
/// within the connect timeout, as a server started with its database would want.
const STARTING_UP: &str = "57P03";
const STARTING_UP_RETRY: Duration = Duration::from_millis(250);

/// What a database URL asks for, read once.
pub(crate) struct ConnectionSettings {
    options: PgConnectOptions,
    /// `host:port` or the socket's path: where the connection goes, for messages.
    address: String,
    timeout: Duration,
    /// The `sslrootcert` file, when one is named.
    root_certificate: Option<String>,
}

impl ConnectionSettings {
    /// Reads `url`; a malformed one, or a `connect_timeout` that is not a whole number of
    /// seconds, is refused as invalid data (the message never repeats the URL).
    pub(crate) fn from_url(url: &str) -> Result<Self, LedgerError> {
        let invalid = |reason: String| LedgerError::InvalidData {
            what: "database URL".to_string(),
            reason,
        };
        let mut parsed = url::Url::parse(url).map_err(|error| invalid(error.to_string()))?;
        let timeout = take_connect_timeout(&mut parsed).map_err(invalid)?;
        let root_certificate = parsed
            .query_pairs()
            .find(|(key, _)| ROOT_CERTIFICATE_PARAMETERS.contains(&key.as_ref()))
            .map(|(_, value)| value.into_owned());
        let mut options = PgConnectOptions::from_str(parsed.as_str())
            .map_err(|error| invalid(error.to_string()))?;
        // libpq: "if a root CA file exists, the behavior of sslmode=require will be the same
        // as that of verify-ca". sqlx's `require` never verifies; a person who named the
        // authority expects it to be checked.
        if matches!(options.get_ssl_mode(), PgSslMode::Require) && root_certificate.is_some() {
            options = options.ssl_mode(PgSslMode::VerifyCa);
        }
        let address = match options.get_socket() {
            Some(socket) => socket.display().to_string(),
            None => format!("{}:{}", options.get_host(), options.get_port()),
        };
        Ok(Self {
            options,
            address,
            timeout,
            root_certificate,
        })
    }

    /// Connects once to see that the database answers, then makes the pool. `database` is the
    /// URL without its password, for messages.
    pub(crate) async fn connect(&self, database: &str) -> Result<PgPool, LedgerError> {
        self.check_root_certificate(database).await?;
        self.first_connection(database).await?;
        PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            // A request that cannot get a connection in this time is answered
            // `DatabaseConnectionLost` (`database_error`) rather than waiting sqlx's 30 s.
            .acquire_timeout(self.timeout)
            .connect_with(self.options.clone())
            .await
            .map_err(|error| self.refusal(error, database))
    }

    /// sqlx reads the file only during the TLS handshake and reports a missing one as an I/O
    /// error, which would read as a network problem.
    async fn check_root_certificate(&self, database: &str) -> Result<(), LedgerError> {
        let Some(path) = &self.root_certificate else {
            return Ok(());
        };
        // sqlx also takes the certificate itself in place of a path.
        if path.trim_start().starts_with("-----BEGIN") {
            return Ok(());
        }
        match tokio::fs::read(path).await {
            Ok(_) => Ok(()),
            Err(error) => Err(LedgerError::DatabaseTlsRefused {
                database: database.to_string(),
                reason: format!(
                    "the certificate authority file {path} named by sslrootcert cannot be read \
                     ({error})"
                ),
            }),
        }
    }

    async fn first_connection(&self, database: &str) -> Result<(), LedgerError> {
        let deadline = Instant::now() + self.timeout;
        let mut starting_up = false;
        loop {
            match tokio::time::timeout_at(deadline, self.options.connect()).await {
                Ok(Ok(connection)) => {
                    // Only a check: the pool makes its own connections.
                    if let Err(error) = connection.close().await {
                        tracing::debug!(%error, "closing the database's first connection");
                    }
                    return Ok(());
                }
                Ok(Err(error)) if is_starting_up(&error) => {
                    starting_up = true;
                    tokio::time::sleep_until(deadline.min(Instant::now() + STARTING_UP_RETRY))
                        .await;
                }
                Ok(Err(error)) => return Err(self.refusal(error, database)),
                Err(_) => {
                    let waited = in_seconds(self.timeout);
                    let reason = if starting_up {
                        format!(
                            "the database server at {} was still starting up after {waited}",
                            self.address
                        )
                    } else {
                        format!("{} did not answer within {waited}", self.address)
                    };
                    return Err(LedgerError::DatabaseUnreachable {
                        database: database.to_string(),
                        reason,
                    });
                }
            }
        }
    }

    /// A failed connection in the ledger's terms: TLS refused, the address unreachable, or
    /// what the database said (a wrong password, a missing database: `from_postgres`).
    fn refusal(&self, error: sqlx::Error, database: &str) -> LedgerError {
        if let Some(reason) = self.tls_problem(&error) {
            return LedgerError::DatabaseTlsRefused {
                database: database.to_string(),
                reason,
            };
        }
        let address = &self.address;
        let reason = match error {
            sqlx::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
                format!("the connection to {address} was refused: no database server is listening there")
            }
            sqlx::Error::Io(io) => format!("{address} could not be reached ({io})"),
            sqlx::Error::PoolTimedOut => {
                format!(
                    "{address} did not answer within {}",
                    in_seconds(self.timeout)
                )
            }
            other => return from_postgres(other),
        };
        LedgerError::DatabaseUnreachable {
            database: database.to_string(),
            reason,
        }
    }

    /// Why TLS failed, when it did: sqlx reports a server without TLS as `Error::Tls` and a
    /// certificate rustls refused as an I/O error carrying rustls's error.
    fn tls_problem(&self, error: &sqlx::Error) -> Option<String> {
        let address = &self.address;
        match error {
            sqlx::Error::Tls(inner) if inner.to_string().contains("does not support TLS") => {
                Some(format!(
                    "the database server at {address} does not offer TLS, and sslmode={} needs \
                     it",
                    ssl_mode_name(self.options.get_ssl_mode())
                ))
            }
            sqlx::Error::Tls(inner) => Some(format!("TLS could not be set up ({inner})")),
            sqlx::Error::Io(io) => {
                let rustls_error = io.get_ref()?.downcast_ref::<rustls::Error>()?;
                Some(self.certificate_problem(rustls_error))
            }
            _ => None,
        }
    }

    fn certificate_problem(&self, error: &rustls::Error) -> String {
        use rustls::CertificateError;
        let address = &self.address;
        match error {
            rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer) => {
                match &self.root_certificate {
                    Some(path) if !path.trim_start().starts_with("-----BEGIN") => format!(
                        "the certificate of the database server at {address} is signed neither \
                         by the certificate authority in {path} (sslrootcert) nor by one this \
                         machine trusts"
                    ),
                    _ => format!(
                        "the certificate of the database server at {address} is not signed by a \
                         certificate authority this machine trusts (name the one that signed it \
                         with sslrootcert)"
                    ),
                }
            }
            rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            ) => format!(
                "the certificate of the database server at {address} is not for the name {}",
                self.options.get_host()
            ),
            rustls::Error::InvalidCertificate(
                CertificateError::Expired | CertificateError::ExpiredContext { .. },
            ) => format!("the certificate of the database server at {address} has expired"),
            other => format!("the TLS handshake with {address} failed ({other})"),
        }
    }
}

/// Removes `connect_timeout` from the URL's query (sqlx would warn that it ignores it) and
/// returns it, or the default.
fn take_connect_timeout(url: &mut url::Url) -> Result<Duration, String> {
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(key, value)| (key.into_owned(), value.into_owned()))
        .collect();
    let Some((_, value)) = pairs
        .iter()
        .rev()
        .find(|(key, _)| key == CONNECT_TIMEOUT_PARAMETER)
    else {
        return Ok(DEFAULT_CONNECT_TIMEOUT);
    };
    let seconds = match value.trim().parse::<u64>() {
        Ok(seconds) if seconds > 0 => seconds,
        _ => {
            return Err(format!(
                "{CONNECT_TIMEOUT_PARAMETER} must be a whole number of seconds, 1 or more \
                 (it is \"{value}\")"
            ))
        }
    };
    let kept: Vec<&(String, String)> = pairs
        .iter()
        .filter(|(key, _)| key != CONNECT_TIMEOUT_PARAMETER)
        .collect();
    url.set_query(None);
    if !kept.is_empty() {
        url.query_pairs_mut().extend_pairs(kept);
    }
    Ok(Duration::from_secs(seconds))
}

/// "1 second", "10 seconds".
fn in_seconds(duration: Duration) -> String {
    match duration.as_secs() {
        1 => "1 second".to_string(),
        seconds => format!("{seconds} seconds"),
    }
}

fn is_starting_up(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(database) if database.code().as_deref() == Some(STARTING_UP))
}

fn ssl_mode_name(mode: PgSslMode) -> &'static str {
    match mode {
        PgSslMode::Disable => "disable",
        PgSslMode::Allow => "allow",
        PgSslMode::Prefer => "prefer",
        PgSslMode::Require => "require",
        PgSslMode::VerifyCa => "verify-ca",
        PgSslMode::VerifyFull => "verify-full",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;

    #[test]
    fn connect_timeout_is_read_and_left_out_of_what_sqlx_reads() {
        for (url, seconds, rest) in [
            ("postgres://db/dossier", Some(10), "postgres://db/dossier"),
            (
                "postgres://db/dossier?connect_timeout=3",
                Some(3),
                "postgres://db/dossier",
            ),
            (
                "postgres://db/dossier?sslmode=verify-full&connect_timeout=25&sslrootcert=/etc/ca.pem",
                Some(25),
                "postgres://db/dossier?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem",
            ),
            ("postgres://db/dossier?connect_timeout=0", None, ""),
            ("postgres://db/dossier?connect_timeout=soon", None, ""),
        ] {
            let mut parsed = url::Url::parse(url).unwrap();
            match (take_connect_timeout(&mut parsed), seconds) {
                (Ok(timeout), Some(seconds)) => {
                    assert_eq!(timeout, Duration::from_secs(seconds), "{url}");
                    assert_eq!(parsed.as_str(), rest, "{url}");
                }
                (Err(message), None) => {
                    assert!(message.contains("whole number of seconds"), "{message}")
                }
                (outcome, _) => panic!("{url}: {outcome:?}"),
            }
        }
    }

    #[test]
    fn require_with_a_root_certificate_verifies_it_as_libpq_does() {
        for (url, expected) in [
            ("postgres://db/d?sslmode=require", "require"),
            (
                "postgres://db/d?sslmode=require&sslrootcert=/etc/ca.pem",
                "verify-ca",
            ),
            (
                "postgres://db/d?sslmode=verify-full&sslrootcert=/etc/ca.pem",
                "verify-full",
            ),
            ("postgres://db/d", "prefer"),
        ] {
            let settings = ConnectionSettings::from_url(url).unwrap();
            assert_eq!(
                ssl_mode_name(settings.options.get_ssl_mode()),
                expected,
                "{url}"
            );
        }
    }
}
