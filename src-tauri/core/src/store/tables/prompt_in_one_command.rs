//! A prompt's whole write as ONE command to SQLite: `BEGIN`, the session's change (its sequence
//! numbers, agent, model, rules and time), the message, its parts with their search rows, and
//! `COMMIT`. sqlx runs each connection on a thread of its own, and every command is a message to
//! that thread and back, two wake-ups of a sleeping thread: most of what a prompt costs
//! (docs/benchmarks.md). The general path (`pipeline::prompt`) sends four: `BEGIN`, the sequence
//! reservation, the rows, `COMMIT`.
//!
//! A command cannot branch, so this write is optimistic. It applies only while the session is as
//! the caller decided from (read before the drafts were resolved, or remembered from the last
//! prompt: `prompt_session_memo`): the same sequence counter (nothing written in it since), the
//! same agent and model, and no revert pending (whose clean-up the general path does). Otherwise the
//! session's update changes no row, the message's row is then refused
//! (`MessageSeq::IfOneRowChanged`), the command stops before `COMMIT`, the transaction is rolled
//! back and the caller takes the general path. Any other failure (a duplicate id, a busy ledger)
//! goes the same way, so the general path names it as it always has. Nothing is committed unless
//! every statement succeeded.

use crate::store::engine::PooledConnection;
use crate::store::rows::prompt_session_change::PromptSessionChange;
use crate::store::tables::message_store::{MessageSeq, RowsCommand};
use crate::store::tables::session_store::{self, ExpectedSession};
use crate::wire::error::LedgerError;
use crate::wire::message::Message;
use crate::wire::part::Part;
use crate::wire::session::Session;

/// What a prompt writes, and the session as the caller decided from it.
pub(crate) struct PromptWrite<'write> {
    pub session_id: &'write str,
    pub expected: ExpectedSession<'write>,
    pub change: &'write PromptSessionChange<'write>,
    pub message: &'write Message,
    pub parts: &'write [Part],
    pub now: i64,
}

/// Writes the prompt in one command. `Some(session as changed)` once committed; `None` when it
/// did not apply (rolled back: the session changed since it was read, a revert is pending, or a
/// statement failed) and on PostgreSQL, whose general path is already one round trip per
/// statement without a thread between.
pub(crate) async fn save(
    mut connection: PooledConnection,
    write: PromptWrite<'_>,
) -> Result<Option<Session>, LedgerError> {
    if connection.sqlite().is_none() {
        return Ok(None);
    }
    let count = 1 + write.parts.len() as i64;
    let rows = RowsCommand::new(
        write.message,
        write.parts,
        // The numbers the session's update reserves: the message's, then each part's.
        write.expected.last_seq + 1,
        write.now,
        MessageSeq::IfOneRowChanged,
    )?;
    let command = format!(
        "BEGIN; {} {} COMMIT;",
        session_store::prompt_change_if_unchanged_statement(),
        rows.statements
    );
    let query = session_store::bind_prompt_change_if_unchanged(
        sqlx::query(&command),
        write.session_id,
        count,
        &write.expected,
        write.change,
    )?;
    let query = rows.bind(query);
    let mut connection = ClosedUnlessEnded {
        connection,
        ended: false,
    };
    match query.fetch_all(connection.sqlite()).await {
        Ok(returned) => {
            connection.ended = true;
            // Every statement ran, so the session's update changed its row and returned it.
            let row = returned.first().ok_or_else(|| {
                LedgerError::Corrupt("the prompt's session update returned no row".into())
            })?;
            Ok(Some(session_store::from_row(row)?))
        }
        Err(error) => {
            tracing::debug!(%error, "the prompt's one command did not apply; the general path writes it");
            if sqlx::query("ROLLBACK")
                .execute(connection.sqlite())
                .await
                .is_ok()
            {
                connection.ended = true;
            }
            Ok(None)
        }
    }
}

/// A pooled connection closed instead of returned to the pool unless its transaction ended.
/// sqlx does not know of a transaction begun inside a command; a connection lent again with one
/// open would hold SQLite's write lock for good. Closing it rolls the transaction back. This is
/// what happens when the caller stops waiting mid-command (a client gone) or `ROLLBACK` failed.
struct ClosedUnlessEnded {
    connection: PooledConnection,
    ended: bool,
}

impl ClosedUnlessEnded {
    /// The SQLite connection (`save` went on only with one).
    fn sqlite(&mut self) -> &mut sqlx::SqliteConnection {
        self.connection
            .sqlite()
            .expect("the prompt's one command runs on SQLite alone")
    }
}

impl Drop for ClosedUnlessEnded {
    fn drop(&mut self) {
        if !self.ended {
            self.connection.close_on_drop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ClosedUnlessEnded;
    use crate::store::engine::PooledConnection;
    use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
    use std::time::Duration;

    #[tokio::test]
    async fn a_connection_left_inside_its_transaction_is_closed_not_lent_again() {
        let folder = tempfile::tempdir().expect("temp dir");
        let options = SqliteConnectOptions::new()
            .filename(folder.path().join("ledger.db"))
            .create_if_missing(true)
            .busy_timeout(Duration::from_millis(200));
        // One connection: lent again, it would be the same one, still inside the transaction.
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await
            .expect("pool");
        sqlx::query("CREATE TABLE kept (value INTEGER)")
            .execute(&pool)
            .await
            .expect("table");
        let mut connection = pool.acquire().await.expect("connection");
        // As a prompt's command stopped after its first write (a client gone mid-command).
        sqlx::query("BEGIN; INSERT INTO kept VALUES (1)")
            .execute(&mut *connection)
            .await
            .expect("the transaction's first write");
        drop(ClosedUnlessEnded {
            connection: PooledConnection::Sqlite(connection),
            ended: false,
        });
        sqlx::query("BEGIN; INSERT INTO kept VALUES (2); COMMIT")
            .execute(&pool)
            .await
            .expect("a write on the pool afterwards");
        let kept: Vec<i64> = sqlx::query_scalar("SELECT value FROM kept")
            .fetch_all(&pool)
            .await
            .expect("rows");
        assert_eq!(kept, [2], "the unfinished transaction is rolled back");
    }
}
