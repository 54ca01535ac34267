//! Events shared by every server on one database (issue 16, item 2). A relayed `EventBus` hands
//! what it publishes to this relay; the relay writes it to `ledger_event` and reads the table
//! back, delivering to its own clients only what it read — its own events and every other
//! server's, in the one order the table gives them. So an SSE client of any server sees what
//! was done through any other, and a client that moves to another server resumes with the same
//! `Last-Event-ID`.
//!
//! Ordering: writers hold a transaction-scoped advisory lock while they insert, so sequences
//! become visible in the order they were handed out, and reading "everything after the last
//! sequence I delivered" never skips an event that commits later. A NOTIFY at commit wakes the
//! readers of every server; a read every second covers a notification lost while the listening
//! connection was reconnecting.

use super::database_error::from_postgres;
use crate::wire::error::LedgerError;
use crate::wire::event::{Event, EventBus};
use sqlx::postgres::PgListener;
use sqlx::{PgPool, Postgres, QueryBuilder};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::{mpsc, watch, Notify};
use tokio::task::JoinHandle;

/// The notification channel every server listens on.
const CHANNEL: &str = "dossier_events";
/// Where "stop the reply in this session" goes to whichever server is replying there; the
/// payload is the session's id.
const ABORT_CHANNEL: &str = "dossier_abort";
/// Where an answer to a permission question goes to whichever server asked it; the payload is
/// `{"requestID": …, "reply": …}`.
const PERMISSION_CHANNEL: &str = "dossier_permission";
/// The advisory lock writers hold while inserting events: any number, the same in every server.
const WRITE_LOCK: i64 = 0x646f_7373_6965_7201;
/// Events per insert and per read.
const BATCH: usize = 512;
/// How many of the newest events a starting server loads, so clients that come to it from another
/// server can resume; the same as the in-memory replay buffer holds.
const TAIL: i64 = 4096;
/// How long the table keeps events. A client away longer reloads, as it would after a gap.
const RETENTION_SECONDS: i64 = 600;
const PRUNE_EVERY: Duration = Duration::from_secs(60);
/// A read without a notification, in case one was lost while the listener reconnected.
const POLL_EVERY: Duration = Duration::from_secs(1);
/// After a failed write, before the next try.
const RETRY_AFTER: Duration = Duration::from_millis(500);

/// The relay's tasks; `stop` flushes what is still queued and ends them.
pub(crate) struct EventRelay {
    stop: watch::Sender<bool>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
    /// Sessions whose reply another server was asked to stop (`ask_to_abort`).
    aborts: tokio::sync::broadcast::Sender<String>,
    /// Answers to permission questions given on another server (`ask_to_answer`).
    answers: tokio::sync::broadcast::Sender<String>,
}

impl EventRelay {
    /// Sends `payload` to every server listening on `channel` (at once: no transaction).
    async fn notify(pool: &PgPool, channel: &str, payload: &str) -> Result<(), LedgerError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(channel)
            .bind(payload)
            .execute(pool)
            .await
            .map_err(from_postgres)?;
        Ok(())
    }

    /// Loads the newest events into `bus` (for resumes), then starts writing what `outbox`
    /// receives and delivering what the table gains. `origin` names this server in each row.
    pub(crate) async fn start(
        pool: PgPool,
        bus: EventBus,
        outbox: mpsc::UnboundedReceiver<Event>,
        origin: String,
    ) -> Result<Self, LedgerError> {
        let mut listener = PgListener::connect_with(&pool)
            .await
            .map_err(from_postgres)?;
        // Listening before the tail is read: whatever commits after it wakes the reader.
        listener
            .listen_all([CHANNEL, ABORT_CHANNEL, PERMISSION_CHANNEL])
            .await
            .map_err(from_postgres)?;
        let (aborts, _) = tokio::sync::broadcast::channel(64);
        let (answers, _) = tokio::sync::broadcast::channel(64);
        let last = load_tail(&pool, &bus).await?;
        let (stop, stopped) = watch::channel(false);
        let written = Arc::new(Notify::new());
        let tasks = vec![
            tokio::spawn(write_events(
                pool.clone(),
                bus.clone(),
                outbox,
                origin.clone(),
                written.clone(),
                stopped.clone(),
            )),
            tokio::spawn(read_events(
                Reader {
                    pool: pool.clone(),
                    bus,
                    origin,
                    aborts: aborts.clone(),
                    answers: answers.clone(),
                },
                listener,
                written,
                stopped.clone(),
                last,
            )),
            tokio::spawn(prune_events(pool, stopped)),
        ];
        Ok(Self {
            stop,
            tasks: Mutex::new(tasks),
            aborts,
            answers,
        })
    }

    /// Asks every server to stop the reply in `session_id`; the one replying there does.
    pub(crate) async fn ask_to_abort(pool: &PgPool, session_id: &str) -> Result<(), LedgerError> {
        Self::notify(pool, ABORT_CHANNEL, session_id).await
    }

    /// Sends an answer to a permission question to every server; the one that asked it takes
    /// it. `answer` is `{"requestID": …, "reply": …}`.
    pub(crate) async fn ask_to_answer(pool: &PgPool, answer: &str) -> Result<(), LedgerError> {
        Self::notify(pool, PERMISSION_CHANNEL, answer).await
    }

    /// Answers to permission questions given on other servers, as `ask_to_answer` sent them.
    pub(crate) fn permission_answers(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.answers.subscribe()
    }

    /// The sessions other servers asked this one to stop replying in.
    pub(crate) fn abort_requests(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.aborts.subscribe()
    }

    /// Writes what is still queued and stops. Called before the pool closes.
    pub(crate) async fn stop(&self) {
        self.stop.send_replace(true);
        let tasks = std::mem::take(&mut *self.tasks.lock().unwrap_or_else(PoisonError::into_inner));
        for task in tasks {
            if let Err(error) = task.await {
                tracing::debug!(%error, "an event relay task ended badly");
            }
        }
    }
}

impl Drop for EventRelay {
    fn drop(&mut self) {
        // A store dropped without `close` (a test, a failed start): end the tasks with it.
        for task in self
            .tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
        {
            task.abort();
        }
    }
}

/// A transaction holding the writers' lock until it ends.
async fn holding_the_write_lock(
    pool: &PgPool,
) -> Result<sqlx::Transaction<'static, Postgres>, LedgerError> {
    let mut transaction = pool.begin().await.map_err(from_postgres)?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(WRITE_LOCK)
        .execute(&mut *transaction)
        .await
        .map_err(from_postgres)?;
    Ok(transaction)
}

/// Puts the newest events in the bus's replay buffer and moves its next sequence past every
/// sequence handed out so far; returns the last one. Done under the writers' lock, so no insert
/// is half-way: every sequence up to the one read has committed or never will.
async fn load_tail(pool: &PgPool, bus: &EventBus) -> Result<i64, LedgerError> {
    let mut transaction = holding_the_write_lock(pool).await?;
    let last: i64 = sqlx::query_scalar(
        "SELECT COALESCE(pg_sequence_last_value(pg_get_serial_sequence('ledger_event', 'sequence')), 0)",
    )
    .fetch_one(&mut *transaction)
    .await
    .map_err(from_postgres)?;
    let rows: Vec<(i64, String, String)> = sqlx::query_as(
        "SELECT sequence, origin, event FROM \
         (SELECT sequence, origin, event FROM ledger_event ORDER BY sequence DESC LIMIT $1) \
         AS newest ORDER BY sequence",
    )
    .bind(TAIL)
    .fetch_all(&mut *transaction)
    .await
    .map_err(from_postgres)?;
    transaction.commit().await.map_err(from_postgres)?;
    bus.deliver(parse_rows(rows), false);
    bus.start_after(u64::try_from(last).unwrap_or(0));
    Ok(last)
}

async fn write_events(
    pool: PgPool,
    bus: EventBus,
    mut outbox: mpsc::UnboundedReceiver<Event>,
    origin: String,
    written: Arc<Notify>,
    mut stopped: watch::Receiver<bool>,
) {
    loop {
        let first = tokio::select! {
            event = outbox.recv() => match event {
                Some(event) => event,
                None => return,
            },
            _ = stopped.changed() => {
                let mut rest = Vec::new();
                while let Ok(event) = outbox.try_recv() {
                    rest.push(event);
                }
                if !rest.is_empty() {
                    if let Err(error) = write_batch(&pool, &origin, &rest, &bus).await {
                        tracing::warn!(%error, lost = rest.len(), "events published while closing were not shared");
                        bus.delivered_here(rest.len() as u64);
                    }
                }
                return;
            }
        };
        // Everything already queued goes in the same insert: a reply streaming hundreds of
        // deltas a second costs a few transactions a second, not hundreds.
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match outbox.try_recv() {
                Ok(event) => batch.push(event),
                Err(_) => break,
            }
        }
        // Kept and tried again while the database is away: an event dropped here would be
        // missing for every client of every server, with no gap to tell them to reload.
        while let Err(error) = write_batch(&pool, &origin, &batch, &bus).await {
            if pool.is_closed() || *stopped.borrow() {
                tracing::warn!(%error, lost = batch.len(), "events not shared before closing");
                bus.delivered_here(batch.len() as u64);
                return;
            }
            tracing::warn!(%error, "could not share events; trying again");
            tokio::time::sleep(RETRY_AFTER).await;
        }
        written.notify_one();
    }
}

async fn write_batch(
    pool: &PgPool,
    origin: &str,
    batch: &[Event],
    bus: &EventBus,
) -> Result<(), LedgerError> {
    let rows: Vec<String> = batch
        .iter()
        .filter_map(|event| match serde_json::to_string(event) {
            Ok(json) => Some(json),
            Err(error) => {
                // Cannot happen for the core's plain data types; say so rather than stop.
                tracing::error!(%error, "event not serialisable");
                bus.delivered_here(1);
                None
            }
        })
        .collect();
    if rows.is_empty() {
        return Ok(());
    }
    let mut transaction = holding_the_write_lock(pool).await?;
    let mut insert: QueryBuilder<Postgres> =
        QueryBuilder::new("INSERT INTO ledger_event (origin, event) ");
    insert.push_values(&rows, |mut row, json| {
        row.push_bind(origin).push_bind(json);
    });
    insert
        .build()
        .execute(&mut *transaction)
        .await
        .map_err(from_postgres)?;
    // Delivered at commit, to every server listening.
    sqlx::query("SELECT pg_notify($1, '')")
        .bind(CHANNEL)
        .execute(&mut *transaction)
        .await
        .map_err(from_postgres)?;
    transaction.commit().await.map_err(from_postgres)
}

/// What the reading task delivers to: the bus, and the abort requests.
struct Reader {
    pool: PgPool,
    bus: EventBus,
    /// This server's name: its own events, counted for `EventBus::delivered`.
    origin: String,
    aborts: tokio::sync::broadcast::Sender<String>,
    answers: tokio::sync::broadcast::Sender<String>,
}

async fn read_events(
    reader: Reader,
    mut listener: PgListener,
    written: Arc<Notify>,
    mut stopped: watch::Receiver<bool>,
    mut last: i64,
) {
    loop {
        loop {
            match read_after(&reader.pool, last).await {
                Ok(rows) => {
                    let count = rows.len();
                    if let Some((sequence, _, _)) = rows.last() {
                        last = *sequence;
                    }
                    let own = rows
                        .iter()
                        .filter(|(_, from, _)| *from == reader.origin)
                        .count();
                    reader.bus.deliver(parse_rows(rows), true);
                    reader.bus.delivered_here(own as u64);
                    if count < BATCH {
                        break;
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "could not read shared events");
                    break;
                }
            }
        }
        tokio::select! {
            notification = listener.recv() => match notification {
                Ok(notification) if notification.channel() == PERMISSION_CHANNEL => {
                    if reader.answers.send(notification.payload().to_string()).is_err() {
                        tracing::debug!("a permission answer with nobody to act on it");
                    }
                }
                Ok(notification) if notification.channel() == ABORT_CHANNEL => {
                    if reader.aborts.send(notification.payload().to_string()).is_err() {
                        tracing::debug!("an abort request with nobody to act on it");
                    }
                }
                Ok(_) => {}
                Err(error) => {
                    // sqlx reconnects on the next call; the poll below covers the meantime.
                    tracing::debug!(%error, "event listener lost its connection");
                    tokio::time::sleep(RETRY_AFTER).await;
                }
            },
            () = written.notified() => {}
            () = tokio::time::sleep(POLL_EVERY) => {}
            _ = stopped.changed() => return,
        }
    }
}

async fn read_after(pool: &PgPool, last: i64) -> Result<Vec<(i64, String, String)>, LedgerError> {
    sqlx::query_as(
        "SELECT sequence, origin, event FROM ledger_event WHERE sequence > $1 ORDER BY sequence LIMIT $2",
    )
    .bind(last)
    .bind(BATCH as i64)
    .fetch_all(pool)
    .await
    .map_err(from_postgres)
}

/// Rows as events. A row this build cannot read (written by a newer server, with an event type
/// it does not know) is skipped: its clients would not know it either.
fn parse_rows(rows: Vec<(i64, String, String)>) -> Vec<Event> {
    rows.into_iter()
        .filter_map(|(sequence, _, json)| match serde_json::from_str::<Event>(&json) {
            Ok(mut event) => {
                event.sequence = u64::try_from(sequence).unwrap_or(0);
                Some(event)
            }
            Err(error) => {
                tracing::debug!(%error, sequence, "skipping a shared event this build cannot read");
                None
            }
        })
        .collect()
}

async fn prune_events(pool: PgPool, mut stopped: watch::Receiver<bool>) {
    loop {
        tokio::select! {
            () = tokio::time::sleep(PRUNE_EVERY) => {}
            _ = stopped.changed() => return,
        }
        let pruned = sqlx::query(
            "DELETE FROM ledger_event WHERE created_at < clock_timestamp() - make_interval(secs => $1)",
        )
        .bind(RETENTION_SECONDS as f64)
        .execute(&pool)
        .await;
        if let Err(error) = pruned {
            tracing::debug!(%error, "could not prune old shared events");
        }
    }
}
