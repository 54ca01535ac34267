//! Named access tokens for a shared server: made, listed, revoked and checked here, the only
//! place that sees the `access_token` table. A token is 256 random bits; only its SHA-256 is
//! stored, so the database (or a backup of it) holds nothing that lets anyone in, and a token
//! is shown exactly once, by `create`. Checking reads every row and compares each hash in
//! constant time, so neither an index walk nor an early exit tells a caller how close a guess
//! came; a team has a handful of tokens, so reading them all is cheap. No token is cached: a
//! revoked token is refused by the very next request, in every process on the database. Only
//! whether any token exists is remembered between requests, on SQLite, and every change here
//! says so to every process on the folder (`access_token_presence`).

use crate::store::engine::on_either_engine;
use crate::store::Store;
use crate::wire::error::LedgerError;
use base64::Engine;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// Every token starts with this, so a leaked one is recognisable (secret scanners, logs).
pub const TOKEN_PREFIX: &str = "dossier_";
/// How long a token's "last used" may lag: recording every request would make every read a
/// write; once a minute is precise enough to tell a token in use from a forgotten one.
pub const LAST_USED_PRECISION_MILLIS: i64 = 60_000;
const NAME_LIMIT: usize = 64;

/// A token just made: the only time its text exists outside the holder's hands.
#[derive(Debug, Clone)]
pub struct NewAccessToken {
    pub name: String,
    pub token: String,
    pub created: i64,
}

/// What `list` shows of a token: never the token, nor its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessTokenSummary {
    pub name: String,
    pub created: i64,
    pub last_used: Option<i64>,
}

/// Names are shown in listings and recorded on sessions: letters, digits and `.-_@`, so a name
/// is one word on a command line and never looks like a token or carries control characters.
pub fn check_name(name: &str) -> Result<(), LedgerError> {
    let allowed = |character: char| character.is_alphanumeric() || ".-_@".contains(character);
    if name.is_empty() || name.chars().count() > NAME_LIMIT || !name.chars().all(allowed) {
        return Err(LedgerError::InvalidRequest(format!(
            "an access token's name is 1 to {NAME_LIMIT} letters, digits, '.', '-', '_' or '@' \
             (such as alice-laptop), not \"{}\"",
            name.escape_default()
        )));
    }
    if name.starts_with(TOKEN_PREFIX) {
        return Err(LedgerError::InvalidRequest(format!(
            "an access token's name cannot start with \"{TOKEN_PREFIX}\": it would look like a \
             token in listings"
        )));
    }
    Ok(())
}

fn hash(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Equal without stopping at the first difference.
fn same_hash(given: &[u8], stored: &[u8]) -> bool {
    let mut difference = given.len() ^ stored.len();
    for (index, byte) in stored.iter().enumerate() {
        difference |= usize::from(byte ^ given.get(index).copied().unwrap_or(0));
    }
    difference == 0
}

impl Store {
    pub async fn create_access_token(&self, name: &str) -> Result<NewAccessToken, LedgerError> {
        check_name(name)?;
        let mut secret = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut secret);
        let token = format!(
            "{TOKEN_PREFIX}{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(secret)
        );
        let created = self.now();
        self.access_tokens_change()?;
        let mut transaction = self.begin_write().await?;
        let taken: bool = on_either_engine!(&mut transaction, |connection| {
            sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM access_token WHERE name = $1)")
                .bind(name)
                .fetch_one(connection)
                .await?
        });
        if taken {
            return Err(LedgerError::AccessTokenExists(name.to_string()));
        }
        on_either_engine!(&mut transaction, |connection| {
            sqlx::query(
                "INSERT INTO access_token (name, token_hash, time_created) VALUES ($1, $2, $3)",
            )
            .bind(name)
            .bind(hash(&token).as_slice())
            .bind(created)
            .execute(connection)
            .await?;
        });
        transaction.commit().await?;
        self.access_tokens_change()?;
        Ok(NewAccessToken {
            name: name.to_string(),
            token,
            created,
        })
    }

    /// Oldest first.
    pub async fn access_tokens(&self) -> Result<Vec<AccessTokenSummary>, LedgerError> {
        let mut connection = self.connection().await?;
        let rows: Vec<(String, i64, Option<i64>)> =
            on_either_engine!(&mut connection, |connection| {
                sqlx::query_as(
                    "SELECT name, time_created, time_last_used FROM access_token \
                 ORDER BY time_created, name",
                )
                .fetch_all(connection)
                .await?
            });
        Ok(rows
            .into_iter()
            .map(|(name, created, last_used)| AccessTokenSummary {
                name,
                created,
                last_used,
            })
            .collect())
    }

    pub async fn revoke_access_token(&self, name: &str) -> Result<(), LedgerError> {
        self.access_tokens_change()?;
        let mut connection = self.connection().await?;
        let removed: Option<String> = on_either_engine!(&mut connection, |connection| {
            sqlx::query_scalar("DELETE FROM access_token WHERE name = $1 RETURNING name")
                .bind(name)
                .fetch_optional(connection)
                .await?
        });
        if removed.is_none() {
            return Err(LedgerError::AccessTokenNotFound(name.to_string()));
        }
        self.access_tokens_change()?;
        Ok(())
    }

    /// Asked by every request the server takes; answered from memory while no token was made or
    /// revoked since it last read the table (`access_token_presence`).
    pub async fn has_access_tokens(&self) -> Result<bool, LedgerError> {
        let presence = self.upkeep.access_token_presence.as_ref();
        if let Some(exist) = presence.and_then(|presence| presence.remembered()) {
            return Ok(exist);
        }
        let before = presence.and_then(|presence| presence.before_reading());
        let mut connection = self.connection().await?;
        let exist = on_either_engine!(&mut connection, |connection| {
            sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM access_token)")
                .fetch_one(connection)
                .await?
        });
        if let (Some(presence), Some(before)) = (presence, before) {
            presence.remember(before, exist);
        }
        Ok(exist)
    }

    /// Tells every process on the data folder that the tokens change (or did): none answers
    /// `has_access_tokens` from memory until it read the table again.
    fn access_tokens_change(&self) -> Result<(), LedgerError> {
        let Some(presence) = &self.upkeep.access_token_presence else {
            return Ok(());
        };
        presence.changed().map_err(|error| LedgerError::Io {
            path: presence.marker().display().to_string(),
            message: format!(
                "could not tell other processes that the access tokens changed: {error}"
            ),
        })
    }

    /// The name of the token `token` is, or `None` for an unknown or revoked one. Records the
    /// use (at most once a `LAST_USED_PRECISION_MILLIS`).
    pub async fn access_token_name(&self, token: &str) -> Result<Option<String>, LedgerError> {
        let given = hash(token);
        let mut connection = self.connection().await?;
        let rows: Vec<(String, Vec<u8>, Option<i64>)> =
            on_either_engine!(&mut connection, |connection| {
                sqlx::query_as("SELECT name, token_hash, time_last_used FROM access_token")
                    .fetch_all(connection)
                    .await?
            });
        let mut found: Option<(String, Option<i64>)> = None;
        for (name, stored, last_used) in rows {
            if same_hash(&given, &stored) {
                found = Some((name, last_used));
            }
        }
        let Some((name, last_used)) = found else {
            return Ok(None);
        };
        let now = self.now();
        if last_used.is_none_or(|last_used| now - last_used >= LAST_USED_PRECISION_MILLIS) {
            on_either_engine!(&mut connection, |connection| {
                sqlx::query("UPDATE access_token SET time_last_used = $1 WHERE name = $2")
                    .bind(now)
                    .bind(&name)
                    .execute(connection)
                    .await?;
            });
        }
        Ok(Some(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_one_plain_word() {
        for (name, accepted) in [
            ("alice-laptop", true),
            ("ci.build_2", true),
            ("bob@home", true),
            ("王小明", true),
            ("", false),
            ("two words", false),
            ("tab\there", false),
            ("semi;colon", false),
            ("dossier_abc", false),
            (&"x".repeat(65), false),
            (&"x".repeat(64), true),
        ] {
            assert_eq!(check_name(name).is_ok(), accepted, "{name:?}");
        }
    }

    #[test]
    fn hashes_compare_whole() {
        let one = hash("dossier_a");
        assert!(same_hash(&one, &hash("dossier_a")));
        assert!(!same_hash(&one, &hash("dossier_b")));
        assert!(!same_hash(&one[..31], &one));
        assert!(!same_hash(&[], &one));
    }
}
