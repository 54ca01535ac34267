//! Where the server keeps its ledger: the SQLite file in the data folder (the default), or a
//! PostgreSQL database that a team's servers share (`--database postgres://…` or
//! `DOSSIER_DATABASE_URL`; `docs/postgres.md`). The URL usually holds the database's password,
//! so it never appears in a message, a log line or a `Debug` print: only its redacted form does.

use crate::error::ServerError;

/// The variable `--database` falls back on, for the server and for `dossier-server token`.
pub const DATABASE_URL_VARIABLE: &str = "DOSSIER_DATABASE_URL";

/// A checked `postgres://` URL. `Debug` and `redacted` leave out the password.
#[derive(Clone, PartialEq, Eq)]
pub struct DatabaseUrl(String);

impl DatabaseUrl {
    /// Accepts `postgres://` and `postgresql://` URLs with a host; anything else is refused
    /// with what was expected (and without echoing a password back).
    pub fn parse(source: &str, text: &str) -> Result<Self, ServerError> {
        let refused = |why: &str| {
            ServerError::BadArgument(format!(
                "{source}: {why}; expected a PostgreSQL URL such as \
                 postgres://dossier:PASSWORD@db.example.org:5432/dossier"
            ))
        };
        let parsed = url::Url::parse(text.trim()).map_err(|_| refused("not a URL"))?;
        if !matches!(parsed.scheme(), "postgres" | "postgresql") {
            return Err(refused(&format!(
                "the scheme \"{}\" is not postgres",
                parsed.scheme()
            )));
        }
        if parsed.host_str().is_none_or(str::is_empty) {
            return Err(refused("it names no host"));
        }
        Ok(Self(text.trim().to_string()))
    }

    /// The URL itself, for the database driver only.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// The URL without its password, for messages and logs: the core's rule, which also drops
    /// libpq's `?password=` parameter.
    pub fn redacted(&self) -> String {
        dossier_core::store::database_url::printable(&self.0)
    }

    /// `DOSSIER_DATABASE_URL`, when set and not empty.
    pub fn from_environment() -> Result<Option<Self>, ServerError> {
        match std::env::var(DATABASE_URL_VARIABLE) {
            Ok(text) if !text.trim().is_empty() => {
                Self::parse(DATABASE_URL_VARIABLE, &text).map(Some)
            }
            _ => Ok(None),
        }
    }
}

impl std::fmt::Debug for DatabaseUrl {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.redacted())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;

    #[test]
    fn only_postgres_urls_with_a_host_are_accepted() {
        for (text, accepted) in [
            (
                "postgres://dossier:secret@db.example.org:5432/dossier",
                true,
            ),
            ("postgresql://127.0.0.1/dossier", true),
            ("  postgres://db/dossier  ", true),
            ("mysql://db/dossier", false),
            ("sqlite:///tmp/dossier.db", false),
            ("postgres:///dossier", false),
            ("db.example.org", false),
            ("", false),
        ] {
            assert_eq!(
                DatabaseUrl::parse("--database", text).is_ok(),
                accepted,
                "{text:?}"
            );
        }
    }

    #[test]
    fn the_password_never_shows() {
        let url =
            DatabaseUrl::parse("--database", "postgres://dossier:hunter2@db/dossier").unwrap();
        assert_eq!(url.expose(), "postgres://dossier:hunter2@db/dossier");
        assert!(!url.redacted().contains("hunter2"), "{}", url.redacted());
        assert!(!format!("{url:?}").contains("hunter2"));
        let in_query =
            DatabaseUrl::parse("--database", "postgres://db/dossier?password=hunter2").unwrap();
        assert!(
            !in_query.redacted().contains("hunter2"),
            "{}",
            in_query.redacted()
        );
        let refused = DatabaseUrl::parse("--database", "mysql://dossier:hunter2@db/x")
            .unwrap_err()
            .to_string();
        assert!(!refused.contains("hunter2"), "{refused}");
    }
}
