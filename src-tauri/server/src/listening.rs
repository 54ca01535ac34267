//! Start-up and shutdown. The listener is bound before the ledger is opened, so a client that
//! connects early waits in the accept queue and is answered once the ledger is ready — it never
//! hangs and is never refused. Shutdown stops accepting, ends the event streams, lets in-flight
//! requests and every ledger write (accepted `prompt_async` work included) finish, then closes the database pool.

use crate::error::ServerError;
use crate::event_stream::EventStreamSettings;
use crate::ledger_writes::LedgerWrites;
use crate::request_origin::OriginPolicy;
use crate::routes::{router, ServerState};
use crate::server_options::ServerOptions;
use crate::tls_listener::TlsListener;
use dossier_core::{Ledger, LedgerError};
use std::future::{Future, IntoFuture};
use std::net::SocketAddr;
use std::pin::Pin;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// How long shutdown waits for open connections (a client that stopped reading an event
/// stream, say) before closing them anyway.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Binds `hostname:port` (port 0 picks a free port).
pub async fn bind(options: &ServerOptions) -> Result<TcpListener, ServerError> {
    let host = options
        .hostname
        .trim_start_matches('[')
        .trim_end_matches(']');
    TcpListener::bind((host, options.port))
        .await
        .map_err(|source| ServerError::Bind {
            address: format!("{}:{}", options.hostname, options.port),
            source,
        })
}

/// Reads the TLS files (when `--tls-cert`/`--tls-key` were given), opens the ledger, serves
/// until `shutdown` completes, then shuts down gracefully. `on_ready` is called with the bound
/// address once requests are being answered.
pub async fn serve(
    listener: TcpListener,
    ledger: impl Future<Output = Result<Ledger, LedgerError>>,
    options: &ServerOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
    on_ready: impl FnOnce(SocketAddr),
) -> Result<(), ServerError> {
    let address = listener.local_addr().map_err(ServerError::Serve)?;
    // Before the ledger: a bad certificate is a start-up error, not a first request's.
    let tls = options
        .tls
        .as_ref()
        .map(crate::tls_configuration::load)
        .transpose()?;
    let stop = CancellationToken::new();
    let watcher = stop.clone();
    tokio::spawn(async move {
        shutdown.await;
        watcher.cancel();
    });
    let ledger = tokio::select! {
        opened = ledger => opened?,
        () = stop.cancelled() => return Ok(()),
    };
    options.check_credentials(ledger.store().has_access_tokens().await?)?;
    let writes = LedgerWrites::default();
    let state = ServerState {
        ledger: ledger.clone(),
        event_stream: EventStreamSettings {
            heartbeat: options.heartbeat,
            shutdown: stop.clone(),
        },
        writes: writes.clone(),
    };
    let app = router(state, options, OriginPolicy::new(options, address.port()));
    on_ready(address);
    let stopping = stop.clone();
    let until_stopped = async move { stopping.cancelled().await };
    let serving: Pin<Box<dyn Future<Output = std::io::Result<()>> + Send>> = match tls {
        Some(configuration) => Box::pin(
            axum::serve(
                TlsListener::new(listener, configuration).map_err(ServerError::Serve)?,
                app,
            )
            .with_graceful_shutdown(until_stopped)
            .into_future(),
        ),
        None => Box::pin(
            axum::serve(listener, app)
                .with_graceful_shutdown(until_stopped)
                .into_future(),
        ),
    };
    let deadline = async {
        stop.cancelled().await;
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    tokio::select! {
        served = serving => served.map_err(ServerError::Serve)?,
        () = deadline => {
            tracing::warn!("connections still open {SHUTDOWN_GRACE:?} after shutdown began; closing them");
        }
    }
    writes.drain().await;
    ledger.close().await;
    Ok(())
}

/// Completes on Ctrl-C or SIGTERM.
pub async fn termination_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = interrupt => {},
                    _ = terminate.recv() => {},
                }
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM; only Ctrl-C stops the server");
                if let Err(error) = interrupt.await {
                    tracing::error!(%error, "cannot listen for Ctrl-C either");
                    std::future::pending::<()>().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    if let Err(error) = interrupt.await {
        tracing::error!(%error, "cannot listen for Ctrl-C");
        std::future::pending::<()>().await;
    }
}
