//! The desktop app attached to a Dossier server instead of this computer's ledger: the shell's
//! glue around the client crate `dossier-attached-client` (no Tauri; the address rule
//! `server_address`, "Test connection" `connection_check`, the relay `request_relay` limited to
//! `relay_paths`, exports `server_export`, tested on its own against a real server). The shell
//! relays: the webview keeps its strict CSP and never sees the token; its HTTP backend's requests
//! come here, the shell holds the server's event stream (`event_relay`), dropped files reach the
//! server as their contents (`drop::dropped_contents` reads them), export goes through the save
//! dialog, and "Copy my local sessions to the server" is `session_copy`. The token lives in the
//! keychain (the core's `OsKeychain::SERVER_TOKENS`) and the address in `server.json` beside the
//! app's other settings, so the next launch attaches again.
//!
//! While attached the local ledger stays open but out of sight: its events are not forwarded
//! (`events::forward` asks `is_attached`), and "Use this computer's ledger" brings it back.

pub mod event_relay;
// The client itself is a plain crate (`src-tauri/attached-client`), tested on its own.
pub use dossier_attached_client::{
    connection_check, relay_paths, request_relay, server_address, server_export, AttachedError,
};
pub mod session_copy;

use crate::error::ShellError;
use dossier_core::models::credentials::{CredentialError, CredentialStore};
use serde::{Deserialize, Serialize};
use server_address::ServerAddress;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock, RwLock};
use std::time::Duration;
use tauri::{AppHandle, Runtime};
use ts_rs::TS;

/// Which ledger the window shows, for Settings and the sidebar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
#[serde(tag = "ledger", rename_all = "camelCase")]
pub enum LedgerInUse {
    /// This computer's ledger. `lastServer` is the address last connected to, for the form.
    #[serde(rename_all = "camelCase")]
    Local {
        #[ts(optional)]
        #[serde(skip_serializing_if = "Option::is_none")]
        last_server: Option<String>,
    },
    /// A Dossier server. `tokenRemembered` is false when no keychain could keep the token: the
    /// next launch starts on the local ledger and asks for it again.
    #[serde(rename_all = "camelCase")]
    Server { url: String, token_remembered: bool },
}

/// What `server.json` holds: the address only, never the token.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SavedConnection {
    #[serde(default)]
    url: Option<String>,
    /// Whether to attach at the next launch; off after "Use this computer's ledger".
    #[serde(default)]
    attached: bool,
}

/// Where the connection is kept: set once the app knows its config folder.
struct Keeping {
    file: PathBuf,
    tokens: Arc<dyn CredentialStore>,
}

/// The server in use, if any: everything a request needs, and the event stream's task.
struct Attachment {
    address: ServerAddress,
    token: String,
    token_remembered: bool,
    events: tauri::async_runtime::JoinHandle<()>,
    /// Wakes the event stream to ask the server again when it refused a relayed request.
    recheck: Arc<tokio::sync::Notify>,
}

/// Managed once by the shell; cheap to ask (`is_attached`) from the event forwarder.
#[derive(Default)]
pub struct AttachedServer {
    current: RwLock<Option<Attachment>>,
    keeping: OnceLock<Keeping>,
    client: OnceLock<reqwest::Client>,
}

/// A connection only needs to be made in time; a reply may stream for minutes, so there is no
/// limit on the whole request.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

impl AttachedServer {
    /// Sets where the address and the token are kept (`server.json`, the keychain). Called once
    /// at start-up; tests pass a temporary file and an in-memory store.
    pub fn keep_in(&self, file: PathBuf, tokens: Arc<dyn CredentialStore>) {
        if self.keeping.set(Keeping { file, tokens }).is_err() {
            tracing::warn!("the server connection's storage was set twice; the first is kept");
        }
    }

    pub fn is_attached(&self) -> bool {
        self.read().is_some()
    }

    /// The one client of the relay: rustls with the platform's trust store (see the core's
    /// `http_client` for why ring is installed first).
    pub fn client(&self) -> Result<reqwest::Client, ShellError> {
        if let Some(client) = self.client.get() {
            return Ok(client.clone());
        }
        dossier_core::models::provider::http_client::install_tls_crypto_provider();
        let client = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            // The relay talks to one origin: a redirect elsewhere would take the request (and,
            // to the same host on plain http, the token) past the allow-list.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|error| AttachedError::ServerUnreachable {
                address: String::new(),
                reason: error.to_string(),
            })?;
        Ok(self.client.get_or_init(|| client).clone())
    }

    pub fn ledger_in_use(&self) -> LedgerInUse {
        match &*self.read() {
            Some(attachment) => LedgerInUse::Server {
                url: attachment.address.origin().to_string(),
                token_remembered: attachment.token_remembered,
            },
            None => LedgerInUse::Local {
                last_server: self.saved().url,
            },
        }
    }

    /// "Test connection": the address rule, then the server's answers.
    pub async fn test(
        &self,
        url: &str,
        token: &str,
    ) -> Result<connection_check::ServerCheck, ShellError> {
        let address = parse(url)?;
        Ok(connection_check::check(&self.client()?, &address, token.trim()).await?)
    }

    /// "Connect": tests again (the form may have changed since), keeps the token and the
    /// address, and starts relaying. A computer without a keychain still connects, for this run.
    pub async fn connect<R: Runtime>(
        &self,
        app: &AppHandle<R>,
        url: &str,
        token: &str,
    ) -> Result<LedgerInUse, ShellError> {
        let check = self.test(url, token).await?;
        let address = parse(&check.url)?;
        let token = token.trim().to_string();
        let token_remembered = match self.keeping.get() {
            Some(keeping) => {
                let tokens = keeping.tokens.clone();
                let (origin, kept) = (address.origin().to_string(), token.clone());
                match blocking(move || tokens.store(&origin, &kept)).await {
                    Ok(()) => true,
                    Err(CredentialError::Unavailable { reason }) => {
                        tracing::warn!(%reason, "no keychain: the server token is kept for this run only");
                        false
                    }
                    Err(error) => return Err(ShellError::TokenKeychain(error)),
                }
            }
            None => false,
        };
        self.save(&SavedConnection {
            url: Some(address.origin().to_string()),
            attached: token_remembered,
        })?;
        self.attach(app, address, token, token_remembered);
        Ok(self.ledger_in_use())
    }

    /// "Use this computer's ledger": stops relaying and forgets the token; the address stays
    /// in the form for next time.
    pub async fn use_local(&self) -> Result<LedgerInUse, ShellError> {
        let previous = self.write().take();
        if let Some(attachment) = previous {
            attachment.events.abort();
            if let Some(keeping) = self.keeping.get() {
                let tokens = keeping.tokens.clone();
                let origin = attachment.address.origin().to_string();
                match blocking(move || tokens.remove(&origin)).await {
                    Ok(_) | Err(CredentialError::Unavailable { .. }) => {}
                    Err(error) => return Err(ShellError::TokenKeychain(error)),
                }
            }
        }
        let saved = self.saved();
        self.save(&SavedConnection {
            url: saved.url,
            attached: false,
        })?;
        Ok(self.ledger_in_use())
    }

    /// At launch: attaches again to the server of the last run, if its token is in the
    /// keychain; otherwise the window opens on the local ledger (and Settings asks for it).
    pub fn resume<R: Runtime>(&self, app: &AppHandle<R>) {
        let saved = self.saved();
        let (Some(url), true, Some(keeping)) = (saved.url, saved.attached, self.keeping.get())
        else {
            return;
        };
        let Ok(address) = ServerAddress::parse(&url) else {
            tracing::warn!(%url, "the saved server address is no longer accepted; using the local ledger");
            return;
        };
        match keeping.tokens.read(address.origin()) {
            Ok(Some(token)) => self.attach(app, address, token, true),
            Ok(None) => {
                tracing::warn!(%address, "no token for the saved server; using the local ledger")
            }
            Err(error) => {
                tracing::warn!(%address, %error, "the server token could not be read; using the local ledger")
            }
        }
    }

    /// Forwards one request of the webview to the server in use.
    pub async fn relay(
        &self,
        request: request_relay::RelayedRequest,
    ) -> Result<request_relay::RelayedResponse, ShellError> {
        let (address, token, recheck) = {
            let current = self.read();
            let attachment = current.as_ref().ok_or(ShellError::NotAttached)?;
            (
                attachment.address.clone(),
                attachment.token.clone(),
                attachment.recheck.clone(),
            )
        };
        let answer = request_relay::relay(&self.client()?, &address, &token, request).await;
        if let Err(AttachedError::ServerTokenNoLongerAccepted { .. }) = &answer {
            // The stream tells the window, after asking the server itself (`event_relay`).
            recheck.notify_one();
        }
        Ok(answer?)
    }

    fn attach<R: Runtime>(
        &self,
        app: &AppHandle<R>,
        address: ServerAddress,
        token: String,
        token_remembered: bool,
    ) {
        let client = match self.client() {
            Ok(client) => client,
            Err(error) => {
                tracing::error!(%error, "no HTTP client for the server");
                return;
            }
        };
        let recheck = Arc::new(tokio::sync::Notify::new());
        let events = tauri::async_runtime::spawn(event_relay::run(
            app.clone(),
            client,
            address.clone(),
            token.clone(),
            recheck.clone(),
        ));
        let previous = self.write().replace(Attachment {
            address,
            token,
            token_remembered,
            events,
            recheck,
        });
        if let Some(previous) = previous {
            previous.events.abort();
        }
    }

    fn saved(&self) -> SavedConnection {
        let Some(keeping) = self.keeping.get() else {
            return SavedConnection::default();
        };
        match std::fs::read(&keeping.file) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|error| {
                tracing::warn!(%error, file = %keeping.file.display(), "unreadable server settings; starting without");
                SavedConnection::default()
            }),
            Err(_) => SavedConnection::default(),
        }
    }

    fn save(&self, saved: &SavedConnection) -> Result<(), ShellError> {
        let Some(keeping) = self.keeping.get() else {
            return Ok(());
        };
        let failure = |reason: String| ShellError::File {
            path: keeping.file.display().to_string(),
            reason,
        };
        if let Some(folder) = keeping.file.parent() {
            std::fs::create_dir_all(folder).map_err(|error| failure(error.to_string()))?;
        }
        let text = serde_json::to_vec_pretty(saved).map_err(|error| failure(error.to_string()))?;
        std::fs::write(&keeping.file, text).map_err(|error| failure(error.to_string()))
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Option<Attachment>> {
        // Plain values swapped whole; a panic elsewhere cannot leave them half-written.
        self.current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Option<Attachment>> {
        self.current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn parse(url: &str) -> Result<ServerAddress, ShellError> {
    ServerAddress::parse(url).map_err(|problem| ShellError::ServerAddressRefused {
        address: url.trim().to_string(),
        problem,
    })
}

/// Keychain calls may block (a keychain that asks to be unlocked): off the async threads.
async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> Result<T, CredentialError> + Send + 'static,
) -> Result<T, CredentialError> {
    tauri::async_runtime::spawn_blocking(call)
        .await
        .unwrap_or_else(|error| {
            Err(CredentialError::Failed {
                reason: format!("the keychain call stopped: {error}"),
            })
        })
}
