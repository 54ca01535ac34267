//! Links in replies open in the system browser, never in the app's own view, and only when they
//! are web links (`http`/`https`): a reply is model output, so a `file:`, `javascript:` or custom
//! scheme link it carries must never reach the system's handlers. The UI already turns such links
//! into words (`ui/src/lib/links.ts`); this is the check the webview cannot get round.
//!
//! This replaces `tauri-plugin-opener`, whose Linux side pulls in `zbus` for "reveal in folder"
//! (about 1.4 MiB of the shipped binary) that Dossier never uses. The system is reached through the
//! `open` crate: `xdg-open` (then `gio open`, …) on Linux, `/usr/bin/open` on macOS,
//! `ShellExecuteW` on Windows, each given the target as one argument, never through a shell.

use crate::error::ShellError;
use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::sync::Arc;
use tauri::State;
use url::Url;

/// Why a link was not opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkRefusal {
    /// Not an absolute URL (a relative link would point into the app itself).
    #[error("it is not a complete web address ({0})")]
    NotAUrl(url::ParseError),
    /// An absolute URL of another scheme (`file`, `javascript`, `data`, `mailto`, …).
    #[error("links of the kind \"{0}:\" are never opened")]
    Scheme(String),
}

/// The URL to hand to the browser for a link's target, or why it must not be opened. The returned
/// URL is the parsed one re-serialised, so spaces and quotes arrive percent-encoded.
pub fn web_link(link: &str) -> Result<Url, LinkRefusal> {
    let url = Url::parse(link).map_err(LinkRefusal::NotAUrl)?;
    match url.scheme() {
        "http" | "https" => Ok(url),
        other => Err(LinkRefusal::Scheme(other.to_string())),
    }
}

type Launch = dyn Fn(&OsStr) -> std::io::Result<()> + Send + Sync;

/// Hands a checked link, or a folder, to the system. Managed once by `run`; tests manage one that
/// records what it was given, so no browser or file manager starts in a test.
#[derive(Clone)]
pub struct SystemOpener(Arc<Launch>);

impl SystemOpener {
    /// The system's own opener. Detached: Dossier neither waits for the browser nor keeps it as a
    /// child.
    pub fn system() -> Self {
        Self(Arc::new(|target| open::that_detached(target)))
    }

    /// An opener that calls `launch` instead of the system's (tests).
    pub fn with(launch: impl Fn(&OsStr) -> std::io::Result<()> + Send + Sync + 'static) -> Self {
        Self(Arc::new(launch))
    }

    /// A folder in the system's file manager ("Open data folder"): a path Dossier chose, never
    /// one from the webview.
    pub async fn open_folder(&self, folder: &Path) -> Result<(), ShellError> {
        self.open(folder.as_os_str().to_owned()).await
    }

    /// Off the async workers: the `open` crate waits up to a quarter of a second per launcher for
    /// an early failure before it counts the target as handed over.
    async fn open(&self, target: OsString) -> Result<(), ShellError> {
        let launch = Arc::clone(&self.0);
        let what = target.to_string_lossy().into_owned();
        tauri::async_runtime::spawn_blocking(move || launch(&target))
            .await
            .map_err(std::io::Error::other)
            .and_then(|launched| launched)
            .map_err(|error| ShellError::SystemOpenerFailed {
                what,
                reason: error.to_string(),
            })
    }
}

/// A link clicked in a reply: opened in the system browser when it is an http(s) link, refused
/// with `invalid` otherwise.
#[tauri::command]
pub async fn open_link(opener: State<'_, SystemOpener>, url: String) -> Result<(), ShellError> {
    let checked = web_link(&url).map_err(|reason| ShellError::LinkRefused {
        link: shortened(&url),
        reason,
    })?;
    tracing::debug!(url = %checked, "opening a link in the system browser");
    opener.open(OsString::from(checked.as_str())).await
}

/// A refused link as the message quotes it: a `data:` link can be megabytes long.
fn shortened(link: &str) -> String {
    const SHOWN: usize = 80;
    match link.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("{}…", &link[..end]),
        None => link.to_string(),
    }
}

#[cfg(test)]
mod tests;
