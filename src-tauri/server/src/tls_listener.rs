//! Accepting HTTPS connections for `axum::serve`. The TLS handshake runs in its own task per
//! connection, never inside `accept`: a client that opens a TCP connection and then sends
//! nothing (or dribbles its hello) would otherwise hold up every connection behind it. A
//! handshake that does not finish within `HANDSHAKE_TIMEOUT`, or fails (a plain-HTTP request
//! sent to the HTTPS port, an untrusted certificate on the client's side), closes that
//! connection only.

use rustls::ServerConfig;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;
use tokio_util::task::AbortOnDropHandle;

/// Long enough for a slow network, short enough that a silent client does not keep its socket.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections whose handshake finished, waiting for `axum::serve` to take them.
const READY_CONNECTIONS: usize = 64;

pub struct TlsListener {
    ready: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    local_address: SocketAddr,
    /// Stops accepting when the listener is dropped (when serving ends).
    _accepting: AbortOnDropHandle<()>,
}

impl TlsListener {
    pub fn new(listener: TcpListener, configuration: Arc<ServerConfig>) -> std::io::Result<Self> {
        let local_address = listener.local_addr()?;
        let (sender, ready) = mpsc::channel(READY_CONNECTIONS);
        let acceptor = TlsAcceptor::from(configuration);
        let accepting = tokio::spawn(accept_connections(listener, acceptor, sender));
        Ok(Self {
            ready,
            local_address,
            _accepting: AbortOnDropHandle::new(accepting),
        })
    }
}

async fn accept_connections(
    listener: TcpListener,
    acceptor: TlsAcceptor,
    ready: mpsc::Sender<(TlsStream<TcpStream>, SocketAddr)>,
) {
    loop {
        let (stream, address) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors and the like: wait rather than spin, as axum does.
                tracing::warn!(%error, "cannot accept a connection");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "cannot turn off Nagle's algorithm");
        }
        let acceptor = acceptor.clone();
        let ready = ready.clone();
        tokio::spawn(async move {
            match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                Ok(Ok(secured)) => {
                    // The receiver is gone only when serving has ended; the connection closes.
                    if ready.send((secured, address)).await.is_err() {
                        tracing::debug!("a connection arrived while the server was stopping");
                    }
                }
                Ok(Err(error)) => {
                    tracing::info!(%address, %error, "TLS handshake failed");
                }
                Err(_) => {
                    tracing::info!(%address, "TLS handshake timed out");
                }
            }
        });
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(connection) => connection,
            // The accepting task only ends when aborted, that is, with this listener.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.local_address)
    }
}
