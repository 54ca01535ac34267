//! Rows of the `message` and `part` tables: writing a message with its parts, and reading a
//! session's messages in stored order, a page at a time.

use crate::store::engine::{on_either_engine, Connect, Connection, Pool};
use crate::store::rows::message_page::{assemble, MessagePage, MessageQuery};
use crate::store::sqlite::search_index;
use crate::wire::error::LedgerError;
use crate::wire::message::{Message, MessageWithParts, UserMessage};
use crate::wire::part::{Part, PartBody};
use sqlx::sqlite::SqliteRow;
use sqlx::Row;

/// The message row's INSERT, bound in this order: id, session, seq, role, created, updated,
/// data. A macro, so each statement adds its own ending with `concat!` at compile time; given
/// an expression, the seq is that expression around its bound value (`MessageSeq`).
macro_rules! insert_message_row {
    () => {
        insert_message_row!("?")
    };
    ($seq:literal) => {
        concat!(
            "INSERT INTO message (id, session_id, seq, role, time_created, time_updated, data) \
             VALUES (?, ?, ",
            $seq,
            ", ?, ?, ?, ?)"
        )
    };
}

/// The part row's INSERT, bound in this order: id, message, session, seq, type, created,
/// updated, data.
macro_rules! insert_part_row {
    () => {
        "INSERT INTO part (id, message_id, session_id, seq, type, time_created, time_updated, \
         data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    };
}

fn corrupt(what: &str, error: serde_json::Error) -> LedgerError {
    LedgerError::Corrupt(format!("{what}: {error}"))
}

pub async fn insert_message(
    connection: &mut impl Connect,
    message: &Message,
    seq: i64,
    now: i64,
) -> Result<(), LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::message_store::insert_message(
                connection, message, seq, now,
            )
            .await
        }
    };
    let data = serde_json::to_string(message).map_err(|error| corrupt("message", error))?;
    let result = sqlx::query(concat!(
        insert_message_row!(),
        " ON CONFLICT(id) DO NOTHING"
    ))
    .bind(message.id())
    .bind(message.session_id())
    .bind(seq)
    .bind(message.role())
    .bind(message.created())
    .bind(now)
    .bind(data)
    .execute(connection)
    .await?;
    if result.rows_affected() == 0 {
        return Err(LedgerError::DuplicateId(message.id().to_string()));
    }
    Ok(())
}

/// A new message and its parts (numbered from `seq + 1`), with the parts' search rows, inside
/// the caller's transaction. On SQLite this is one command of many statements, so one round trip
/// to the connection's thread instead of one per row: a prompt's parts were most of its
/// statements, and each statement costs two wake-ups of that thread (docs/benchmarks.md). An id
/// that is already stored fails the command and is named in `DuplicateId`.
pub async fn insert_message_with_parts(
    connection: &mut impl Connect,
    message: &Message,
    parts: &[Part],
    seq: i64,
    now: i64,
) -> Result<(), LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            use crate::store::postgres::message_store as postgres;
            postgres::insert_message(&mut *connection, message, seq, now).await?;
            for (offset, part) in (1..).zip(parts) {
                postgres::insert_part(&mut *connection, part, seq + offset, now).await?;
            }
            return Ok(());
        }
    };
    if !sqlx::Connection::is_in_transaction(&*connection) {
        let mut transaction = crate::store::sqlite::database::begin_write(connection).await?;
        insert_rows(&mut transaction, message, parts, seq, now).await?;
        transaction.commit().await?;
        return Ok(());
    }
    insert_rows(connection, message, parts, seq, now).await
}

/// The one command of `insert_message_with_parts`: no `ON CONFLICT … DO NOTHING` here, since a
/// part skipped that way would leave `last_insert_rowid()` pointing at the row before it.
async fn insert_rows(
    connection: &mut sqlx::SqliteConnection,
    message: &Message,
    parts: &[Part],
    seq: i64,
    now: i64,
) -> Result<(), LedgerError> {
    let rows = RowsCommand::new(message, parts, seq, now, MessageSeq::Given)?;
    match rows
        .bind(sqlx::query(&rows.statements))
        .execute(&mut *connection)
        .await
    {
        Ok(_) => Ok(()),
        Err(error) if is_unique_violation(&error) => {
            Err(duplicate_among(connection, message, parts).await)
        }
        Err(error) => Err(error.into()),
    }
}

/// How the message row's `seq` is given in a [`RowsCommand`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum MessageSeq {
    /// As the value bound.
    Given,
    /// As the value bound only if the statement just before the command changed exactly one row
    /// (`changes() = 1`), NULL otherwise, which `message.seq`'s NOT NULL refuses: the command
    /// stops there, before anything of the message is written. For a caller whose preceding
    /// statement is the condition the write depends on (`prompt_in_one_command`).
    IfOneRowChanged,
}

/// A part, its data as JSON and its search row's text and words (`None`: not searched).
type PartRow<'rows> = (&'rows Part, String, Option<(String, String)>);

/// The statements that write a message and its parts (numbered from `seq + 1`) with the parts'
/// search rows, as the text of one SQLite command, and their values, bound by [`Self::bind`] in
/// the statements' order. A caller may run other statements before or after them in the same
/// command, binding those statements' values before and after.
pub(crate) struct RowsCommand<'rows> {
    pub(crate) statements: String,
    message: &'rows Message,
    message_data: String,
    parts: Vec<PartRow<'rows>>,
    seq: i64,
    now: i64,
}

impl<'rows> RowsCommand<'rows> {
    pub(crate) fn new(
        message: &'rows Message,
        parts: &'rows [Part],
        seq: i64,
        now: i64,
        message_seq: MessageSeq,
    ) -> Result<Self, LedgerError> {
        let message_data =
            serde_json::to_string(message).map_err(|error| corrupt("message", error))?;
        let mut statements = match message_seq {
            MessageSeq::Given => String::from(concat!(insert_message_row!(), ";")),
            MessageSeq::IfOneRowChanged => String::from(concat!(
                insert_message_row!("CASE WHEN changes() = 1 THEN ? END"),
                ";"
            )),
        };
        let mut part_rows = Vec::with_capacity(parts.len());
        for part in parts {
            let data = serde_json::to_string(&part.body).map_err(|error| corrupt("part", error))?;
            let index = search_index::part_index_values(&part.body)?;
            statements.push_str(concat!(" ", insert_part_row!(), ";"));
            if index.is_some() {
                statements.push(' ');
                statements.push_str(search_index::INDEX_LAST_INSERTED_PART);
            }
            part_rows.push((part, data, index));
        }
        Ok(Self {
            statements,
            message,
            message_data,
            parts: part_rows,
            seq,
            now,
        })
    }

    /// Binds the statements' values onto `query`, after whatever it already holds.
    pub(crate) fn bind<'query>(
        &'query self,
        query: sqlx::query::Query<'query, sqlx::Sqlite, sqlx::sqlite::SqliteArguments<'query>>,
    ) -> sqlx::query::Query<'query, sqlx::Sqlite, sqlx::sqlite::SqliteArguments<'query>> {
        let mut query = query
            .bind(self.message.id())
            .bind(self.message.session_id())
            .bind(self.seq)
            .bind(self.message.role())
            .bind(self.message.created())
            .bind(self.now)
            .bind(self.message_data.as_str());
        for (offset, (part, data, index)) in (1..).zip(&self.parts) {
            query = query
                .bind(part.id.as_str())
                .bind(part.message_id.as_str())
                .bind(part.session_id.as_str())
                .bind(self.seq + offset)
                .bind(part.body.type_name())
                .bind(self.now)
                .bind(self.now)
                .bind(data.as_str());
            if let Some((tokens, words)) = index {
                query = query.bind(tokens.as_str()).bind(words.as_str());
            }
        }
        query
    }
}

fn is_unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(database)
        if database.kind() == sqlx::error::ErrorKind::UniqueViolation)
}

/// Which id was already stored. The command's statements before the failed one did write
/// (SQLite undoes only the failed statement; the caller rolls the transaction back), so every id
/// before the duplicate is found too: the last id found, in the command's order, is one that was
/// stored before this prompt (or twice in it).
async fn duplicate_among(
    connection: &mut sqlx::SqliteConnection,
    message: &Message,
    parts: &[Part],
) -> LedgerError {
    for part in parts.iter().rev() {
        let stored: Result<Option<i64>, sqlx::Error> =
            sqlx::query_scalar("SELECT 1 FROM part WHERE id = ?")
                .bind(&part.id)
                .fetch_optional(&mut *connection)
                .await;
        match stored {
            Ok(Some(_)) => return LedgerError::DuplicateId(part.id.clone()),
            Ok(None) => {}
            Err(error) => return error.into(),
        }
    }
    LedgerError::DuplicateId(message.id().to_string())
}

/// Rewrites an existing message's data (an assistant growing, a finish or an error).
pub async fn update_message(
    connection: &mut impl Connect,
    message: &Message,
    now: i64,
) -> Result<(), LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::message_store::update_message(connection, message, now)
                .await
        }
    };
    let data = serde_json::to_string(message).map_err(|error| corrupt("message", error))?;
    let result = sqlx::query(
        "UPDATE message SET data = ?, time_updated = ? WHERE id = ? AND session_id = ?",
    )
    .bind(data)
    .bind(now)
    .bind(message.id())
    .bind(message.session_id())
    .execute(connection)
    .await?;
    if result.rows_affected() == 0 {
        return Err(LedgerError::MessageNotFound {
            session_id: message.session_id().to_string(),
            message_id: message.id().to_string(),
        });
    }
    Ok(())
}

pub async fn insert_part(
    connection: &mut impl Connect,
    part: &Part,
    seq: i64,
    now: i64,
) -> Result<(), LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::message_store::insert_part(connection, part, seq, now)
                .await
        }
    };
    let data = serde_json::to_string(&part.body).map_err(|error| corrupt("part", error))?;
    // A transaction of its own when the caller has none, so the part and its index row are
    // written together. Inside the caller's transaction no savepoint: an error here ends the
    // caller's transaction (every caller returns it), and a savepoint's two statements were a
    // tenth of a prompt's round trips to the connection's thread.
    if sqlx::Connection::is_in_transaction(&*connection) {
        return insert_part_row(connection, part, &data, seq, now).await;
    }
    let mut transaction = crate::store::sqlite::database::begin_write(connection).await?;
    insert_part_row(&mut transaction, part, &data, seq, now).await?;
    transaction.commit().await?;
    Ok(())
}

async fn insert_part_row(
    connection: &mut sqlx::SqliteConnection,
    part: &Part,
    data: &str,
    seq: i64,
    now: i64,
) -> Result<(), LedgerError> {
    let rowid: Option<i64> = sqlx::query_scalar(concat!(
        insert_part_row!(),
        " ON CONFLICT(id) DO NOTHING RETURNING rowid"
    ))
    .bind(&part.id)
    .bind(&part.message_id)
    .bind(&part.session_id)
    .bind(seq)
    .bind(part.body.type_name())
    .bind(now)
    .bind(now)
    .bind(data)
    .fetch_optional(&mut *connection)
    .await?;
    let Some(rowid) = rowid else {
        return Err(LedgerError::DuplicateId(part.id.clone()));
    };
    search_index::index_part(connection, rowid, &part.body).await
}

/// Rewrites an existing part's body; returns false when no such part exists.
pub async fn update_part(
    connection: &mut impl Connect,
    part: &Part,
    now: i64,
) -> Result<bool, LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::message_store::update_part(connection, part, now).await
        }
    };
    let data = serde_json::to_string(&part.body).map_err(|error| corrupt("part", error))?;
    // The update trigger drops the old index row; the new one is written in the same savepoint.
    let mut transaction = crate::store::sqlite::database::begin_write(connection).await?;
    let rowid: Option<i64> = sqlx::query_scalar(
        "UPDATE part SET data = ?, type = ?, time_updated = ? WHERE id = ? AND message_id = ? RETURNING rowid",
    )
    .bind(data)
    .bind(part.body.type_name())
    .bind(now)
    .bind(&part.id)
    .bind(&part.message_id)
    .fetch_optional(&mut *transaction)
    .await?;
    let Some(rowid) = rowid else {
        return Ok(false);
    };
    search_index::index_part(&mut transaction, rowid, &part.body).await?;
    transaction.commit().await?;
    Ok(true)
}

fn message_from_row(row: &SqliteRow) -> Result<Message, LedgerError> {
    let data: &str = row.try_get("data")?;
    serde_json::from_str(data).map_err(|error| corrupt("message", error))
}

fn part_from_row(row: &SqliteRow) -> Result<Part, LedgerError> {
    let data: &str = row.try_get("data")?;
    let body: PartBody = serde_json::from_str(data).map_err(|error| corrupt("part", error))?;
    Ok(Part {
        id: row.try_get("id")?,
        session_id: row.try_get("session_id")?,
        message_id: row.try_get("message_id")?,
        body,
    })
}

fn assemble_rows(
    message_rows: &[SqliteRow],
    part_rows: &[SqliteRow],
) -> Result<Vec<MessageWithParts>, LedgerError> {
    let messages = message_rows
        .iter()
        .map(message_from_row)
        .collect::<Result<Vec<_>, _>>()?;
    let parts = part_rows
        .iter()
        .map(part_from_row)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(assemble(messages, parts))
}

pub async fn list(
    pool: &Pool,
    session_id: &str,
    query: &MessageQuery,
) -> Result<MessagePage, LedgerError> {
    let pool = match pool {
        Pool::Sqlite(pool) => pool,
        #[cfg(feature = "postgres")]
        Pool::Postgres(pool) => {
            return crate::store::postgres::message_store::list(pool, session_id, query).await
        }
    };
    let before = query.before_seq()?;
    let limit = query.limit.filter(|limit| *limit > 0).map(i64::from);
    // Newest `limit` first, then flipped to oldest-first.
    let mut message_rows = sqlx::query(
        "SELECT id, seq, data FROM message WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
    )
    .bind(session_id)
    .bind(before)
    .bind(limit.map_or(-1, |limit| limit + 1))
    .fetch_all(pool)
    .await?;
    let has_more = limit.is_some_and(|limit| message_rows.len() as i64 > limit);
    if let Some(limit) = limit {
        message_rows.truncate(limit as usize);
    }
    message_rows.reverse();
    let (Some(first), Some(last)) = (message_rows.first(), message_rows.last()) else {
        return Ok(MessagePage {
            messages: Vec::new(),
            next_cursor: None,
        });
    };
    let oldest_seq: i64 = first.try_get("seq")?;
    let newest_seq: i64 = last.try_get("seq")?;
    let part_rows = sqlx::query(
        "SELECT part.id, part.session_id, part.message_id, part.data FROM part \
         JOIN message ON part.message_id = message.id \
         WHERE message.session_id = ? AND message.seq BETWEEN ? AND ? ORDER BY part.seq",
    )
    .bind(session_id)
    .bind(oldest_seq)
    .bind(newest_seq)
    .fetch_all(pool)
    .await?;
    Ok(MessagePage {
        messages: assemble_rows(&message_rows, &part_rows)?,
        next_cursor: has_more.then(|| oldest_seq.to_string()),
    })
}

pub async fn get(
    connection: &mut impl Connect,
    session_id: &str,
    message_id: &str,
) -> Result<MessageWithParts, LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::message_store::get(connection, session_id, message_id)
                .await
        }
    };
    let message_rows =
        sqlx::query("SELECT id, seq, data FROM message WHERE session_id = ? AND id = ?")
            .bind(session_id)
            .bind(message_id)
            .fetch_all(&mut *connection)
            .await?;
    if message_rows.is_empty() {
        return Err(LedgerError::MessageNotFound {
            session_id: session_id.to_string(),
            message_id: message_id.to_string(),
        });
    }
    let part_rows = sqlx::query(
        "SELECT id, session_id, message_id, data FROM part WHERE message_id = ? ORDER BY seq",
    )
    .bind(message_id)
    .fetch_all(&mut *connection)
    .await?;
    let mut assembled = assemble_rows(&message_rows, &part_rows)?;
    assembled.pop().ok_or_else(|| LedgerError::MessageNotFound {
        session_id: session_id.to_string(),
        message_id: message_id.to_string(),
    })
}

pub async fn seq_of(
    connection: &mut impl Connect,
    session_id: &str,
    message_id: &str,
) -> Result<Option<i64>, LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::message_store::seq_of(
                connection, session_id, message_id,
            )
            .await
        }
    };
    Ok(
        sqlx::query_scalar("SELECT seq FROM message WHERE session_id = ? AND id = ?")
            .bind(session_id)
            .bind(message_id)
            .fetch_optional(connection)
            .await?,
    )
}

/// The session's newest user message, if there is one: its model is the "current model"
/// fallback, its agent the one a summary runs under.
pub async fn newest_user_message(
    connection: &mut impl Connect,
    session_id: &str,
) -> Result<Option<UserMessage>, LedgerError> {
    let data: Option<String> = on_either_engine!(connection, |connection| {
        sqlx::query_scalar(
            "SELECT data FROM message WHERE session_id = $1 AND role = 'user' \
             ORDER BY seq DESC LIMIT 1",
        )
        .bind(session_id)
        .fetch_optional(connection)
        .await?
    });
    let Some(data) = data else {
        return Ok(None);
    };
    match serde_json::from_str(&data).map_err(|error| corrupt("message", error))? {
        Message::User(user) => Ok(Some(user)),
        Message::Assistant(_) => Ok(None),
    }
}

/// True when the session's newest message is a prompt, which no reply has followed yet. Reads
/// one row of the `(session_id, seq)` index's end instead of the whole history.
pub async fn awaits_reply(
    connection: &mut impl Connect,
    session_id: &str,
) -> Result<bool, LedgerError> {
    let role: Option<String> = on_either_engine!(connection, |connection| {
        sqlx::query_scalar(
            "SELECT role FROM message WHERE session_id = $1 ORDER BY seq DESC LIMIT 1",
        )
        .bind(session_id)
        .fetch_optional(connection)
        .await?
    });
    Ok(role.as_deref() == Some("user"))
}

/// The id of the session's newest assistant message, or of its newest message when nothing
/// has answered yet; `None` for a session without messages.
pub async fn newest_reply_id(
    connection: &mut impl Connect,
    session_id: &str,
) -> Result<Option<String>, LedgerError> {
    Ok(on_either_engine!(connection, |connection| {
        sqlx::query_scalar(
            "SELECT coalesce(\
               (SELECT id FROM message WHERE session_id = $1 AND role = 'assistant' \
                ORDER BY seq DESC LIMIT 1), \
               (SELECT id FROM message WHERE session_id = $1 ORDER BY seq DESC LIMIT 1))",
        )
        .bind(session_id)
        .fetch_one(connection)
        .await?
    }))
}

/// Deletes the session's messages from sequence `from_seq` on; returns their ids in order.
pub async fn delete_from(
    connection: &mut impl Connect,
    session_id: &str,
    from_seq: i64,
) -> Result<Vec<String>, LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::message_store::delete_from(
                connection, session_id, from_seq,
            )
            .await
        }
    };
    let ids: Vec<String> =
        sqlx::query_scalar("DELETE FROM message WHERE session_id = ? AND seq >= ? RETURNING id")
            .bind(session_id)
            .bind(from_seq)
            .fetch_all(connection)
            .await?;
    Ok(ids)
}

/// Deletes the parts of one message from part `part_id` on (in stored order); returns their ids.
pub async fn delete_parts_from(
    connection: &mut impl Connect,
    message_id: &str,
    part_id: &str,
) -> Result<Vec<String>, LedgerError> {
    let connection = match connection.connection() {
        Connection::Sqlite(connection) => connection,
        #[cfg(feature = "postgres")]
        Connection::Postgres(connection) => {
            return crate::store::postgres::message_store::delete_parts_from(
                connection, message_id, part_id,
            )
            .await
        }
    };
    let ids: Vec<String> = sqlx::query_scalar(
        "DELETE FROM part WHERE message_id = ? AND seq >= (SELECT seq FROM part WHERE id = ? AND message_id = ?) RETURNING id",
    )
    .bind(message_id)
    .bind(part_id)
    .bind(message_id)
    .fetch_all(connection)
    .await?;
    Ok(ids)
}
/// The replies left open — no `time.completed`, no error — as (session id, message id).
pub async fn open_replies(pool: &Pool) -> Result<Vec<(String, String)>, LedgerError> {
    let pool = match pool {
        Pool::Sqlite(pool) => pool,
        #[cfg(feature = "postgres")]
        Pool::Postgres(pool) => {
            return crate::store::postgres::message_store::open_replies(pool).await
        }
    };
    Ok(sqlx::query_as(
        "SELECT session_id, id FROM message WHERE role = 'assistant' \
         AND json_extract(data, '$.time.completed') IS NULL \
         AND json_extract(data, '$.error') IS NULL",
    )
    .fetch_all(pool)
    .await?)
}
