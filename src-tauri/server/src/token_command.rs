//! `dossier-server token create NAME | list | revoke NAME`: the named access tokens of the
//! ledger in `DOSSIER_DATA_DIR`, managed from the command line of the machine that holds it
//! (there is no HTTP route for them: whoever has a token must not be able to make more). It
//! opens only the store, so it works while a server runs on the same folder, and a revoked
//! token is refused by that server's next request.
//!
//! `create` prints the token alone on standard output, once, so that a script can capture it;
//! what it is and how to send it goes to standard error. `list` never shows a token.

use crate::database_choice::DatabaseUrl;
use crate::error::ServerError;
use dossier_core::store::tables::access_tokens::AccessTokenSummary;
use dossier_core::store::{Occupancy, Store};
use std::io::Write;
use std::path::Path;

pub const TOKEN_USAGE: &str =
    "usage: dossier-server token create NAME | token list | token revoke NAME\n\
    create prints a new access token once (send it as Authorization: Bearer <token>); list shows\n\
    names, when each was made and last used; revoke refuses a token from the next request on.\n\
    The ledger is the one in $DOSSIER_DATA_DIR, as for the server.";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenCommand {
    /// `token --help`: the usage on standard output, and success, as for the server's `--help`.
    Help,
    Create(String),
    List,
    Revoke(String),
}

impl TokenCommand {
    /// Reads the words after `token`.
    pub fn parse(arguments: &[String]) -> Result<Self, ServerError> {
        let words: Vec<&str> = arguments.iter().map(String::as_str).collect();
        match words.as_slice() {
            ["create", name] => Ok(Self::Create((*name).to_string())),
            ["list"] => Ok(Self::List),
            ["revoke", name] => Ok(Self::Revoke((*name).to_string())),
            ["--help" | "-h" | "help"] => Ok(Self::Help),
            [] => Err(ServerError::TokenUsage(String::new())),
            _ => Err(ServerError::TokenUsage(format!(
                "not a token command: \"{}\"\n\n",
                words.join(" ")
            ))),
        }
    }

    /// Runs against the ledger in `data_dir`, or in `database` when the server keeps it in
    /// PostgreSQL; `output` gets what a script reads (the token, the listing), `notes` what a
    /// person reads.
    pub async fn run(
        &self,
        data_dir: &Path,
        database: Option<&DatabaseUrl>,
        output: &mut impl Write,
        notes: &mut impl Write,
    ) -> Result<(), ServerError> {
        if *self == Self::Help {
            // No ledger is opened (or made) just to print how to call this.
            return writeln!(output, "{TOKEN_USAGE}").map_err(ServerError::Output);
        }
        let store = open_store(data_dir, database).await?;
        let outcome = self.run_on(&store, output, notes).await;
        store.close().await;
        outcome
    }

    async fn run_on(
        &self,
        store: &Store,
        output: &mut impl Write,
        notes: &mut impl Write,
    ) -> Result<(), ServerError> {
        match self {
            Self::Help => writeln!(output, "{TOKEN_USAGE}").map_err(ServerError::Output)?,
            Self::Create(name) => {
                let made = store.create_access_token(name).await?;
                writeln!(output, "{}", made.token).map_err(ServerError::Output)?;
                writeln!(
                    notes,
                    "Made the access token \"{}\". It is shown only this once and cannot be \
                     read back; give it to its holder, who sends it as \
                     \"Authorization: Bearer <token>\". Revoke it with \
                     `dossier-server token revoke {}`.",
                    made.name, made.name
                )
                .map_err(ServerError::Output)?;
            }
            Self::List => {
                let tokens = store.access_tokens().await?;
                write!(output, "{}", listing(&tokens)).map_err(ServerError::Output)?;
                if tokens.is_empty() {
                    writeln!(
                        notes,
                        "No access tokens; make one with `dossier-server token create NAME`."
                    )
                    .map_err(ServerError::Output)?;
                }
            }
            Self::Revoke(name) => {
                store.revoke_access_token(name).await?;
                writeln!(
                    notes,
                    "Revoked the access token \"{name}\": it is refused from the next request on."
                )
                .map_err(ServerError::Output)?;
            }
        }
        Ok(())
    }
}

/// Whether the ledger in `data_dir` has any access token: `main` asks before it binds an
/// address beyond loopback without a password, so that such a server is refused before it
/// listens at all.
pub async fn tokens_exist(
    data_dir: &Path,
    database: Option<&DatabaseUrl>,
) -> Result<bool, ServerError> {
    let store = open_store(data_dir, database).await?;
    let exist = store.has_access_tokens().await;
    store.close().await;
    Ok(exist?)
}

/// Only the store: no config, providers or MCP servers are needed to manage tokens.
async fn open_store(data_dir: &Path, database: Option<&DatabaseUrl>) -> Result<Store, ServerError> {
    if let Some(database) = database {
        let (store, _) = Store::open_postgres(database.expose(), data_dir, None, None).await?;
        return Ok(store);
    }
    let (store, occupancy) = Store::open(
        data_dir,
        None,
        dossier_core::store::sqlite::upgrade_backup::DEFAULT_KEEP,
    )
    .await?;
    if occupancy == Occupancy::Alone {
        // Not the start-up sweep's place: let a server that starts meanwhile run it.
        store.share_folder()?;
    }
    Ok(store)
}

/// `NAME  CREATED  LAST USED`, times in UTC; "never" for a token not used yet.
pub fn listing(tokens: &[AccessTokenSummary]) -> String {
    let width = tokens
        .iter()
        .map(|token| token.name.chars().count())
        .chain(["NAME".len()])
        .max()
        .unwrap_or(4);
    let mut text = format!("{:width$}  {:20}  LAST USED\n", "NAME", "CREATED");
    for token in tokens {
        text.push_str(&format!(
            "{:width$}  {:20}  {}\n",
            token.name,
            moment(Some(token.created)),
            moment(token.last_used)
        ));
    }
    text
}

fn moment(millis: Option<i64>) -> String {
    match millis.and_then(chrono::DateTime::from_timestamp_millis) {
        Some(moment) => moment.format("%Y-%m-%d %H:%M:%SZ").to_string(),
        None => "never".into(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn commands_are_read() {
        assert_eq!(
            TokenCommand::parse(&words("create alice")).unwrap(),
            TokenCommand::Create("alice".into())
        );
        assert_eq!(
            TokenCommand::parse(&words("list")).unwrap(),
            TokenCommand::List
        );
        for help in ["--help", "-h", "help"] {
            assert_eq!(
                TokenCommand::parse(&words(help)).unwrap(),
                TokenCommand::Help
            );
        }
        assert_eq!(
            TokenCommand::parse(&words("revoke alice")).unwrap(),
            TokenCommand::Revoke("alice".into())
        );
        for wrong in ["", "create", "create a b", "delete alice", "list all"] {
            let error = TokenCommand::parse(&words(wrong)).unwrap_err();
            assert!(
                error.to_string().contains("token create NAME"),
                "{wrong}: {error}"
            );
        }
    }

    #[test]
    fn the_listing_lines_up_and_says_never() {
        let text = listing(&[
            AccessTokenSummary {
                name: "alice-laptop".into(),
                created: 1_764_547_200_000,
                last_used: Some(1_764_550_800_000),
            },
            AccessTokenSummary {
                name: "ci".into(),
                created: 1_764_547_260_000,
                last_used: None,
            },
        ]);
        assert_eq!(
            text,
            "NAME          CREATED               LAST USED\n\
             alice-laptop  2025-12-01 00:00:00Z  2025-12-01 01:00:00Z\n\
             ci            2025-12-01 00:01:00Z  never\n"
        );
    }
}
