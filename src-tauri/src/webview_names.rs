//! The names the webview uses to reach the shell: the Tauri commands it invokes and the events it
//! listens to. Both are generated into `ui/src/lib/shell-bindings/` (`CommandName`,
//! `EventName`), so a renamed command or event fails the UI's type check instead of failing
//! silently at run time.

use serde::Serialize;
use ts_rs::TS;

/// Declares `CommandName` with one variant per command and `CommandName::ALL`, from one list, so
/// the list a test compares with `generate_handler!` cannot miss a variant.
macro_rules! command_names {
    ($($variant:ident),* $(,)?) => {
        /// A Tauri command, named as the webview invokes it (the command function's name).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
        #[ts(export, export_to = "../shell-bindings/")]
        #[serde(rename_all = "snake_case")]
        pub enum CommandName {
            $($variant),*
        }

        impl CommandName {
            pub const ALL: &'static [CommandName] = &[$(CommandName::$variant),*];
        }
    };
}

command_names! {
    CreateSession,
    ListMessages,
    SendPrompt,
    ListModels,
    PickFiles,
    SimulateDrop,
    ExportSession,
    ImportSession,
    FileSymbols,
    ReadSettings,
    StorageUse,
    SaveProvider,
    RemoveProvider,
    RemoveProviderKey,
    ReportInteractive,
    ImportClaudeDesktop,
    AddModelFileWithDialog,
    DataOverview,
    BackUpNow,
    ChooseBackup,
    RestoreChosenBackup,
    OpenDataFolder,
    MoveDataFolder,
    RemovePreviousDataFolder,
    KeepPreviousDataFolder,
    UpdateStatus,
    SetAutomaticUpdateChecks,
    CheckForUpdate,
    DownloadUpdate,
    RestartToUpdate,
    StartUpState,
    OpenReadOnly,
    RestoreNewestBackup,
    OpenStartUpDataFolder,
    QuitDossier,
    LedgerInUse,
    TestServerConnection,
    ConnectToServer,
    UseLocalLedger,
    RelayRequest,
    ExportFromServer,
    CopyLocalSessions,
    OpenLink,
}

/// An event the shell emits to the webview. Tauri event names may not contain dots, so every core
/// event travels under `Core` in the event stream's `{id, type, properties}` envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[ts(export, export_to = "../shell-bindings/")]
pub enum EventName {
    /// A ledger event (`message.part.updated`, …).
    #[serde(rename = "dossier://event")]
    Core,
    /// The forwarder fell behind and events were lost: the UI reloads what it shows.
    #[serde(rename = "dossier://resync")]
    Resync,
    /// Files hover over the window (the UI shows its drop overlay).
    #[serde(rename = "dossier://drag")]
    Drag,
    /// The classified files of a native drop.
    #[serde(rename = "dossier://dropped")]
    Dropped,
    /// The start-up check found a newer Dossier (`updates`).
    #[serde(rename = "dossier://update-available")]
    UpdateAvailable,
    /// Attached to a server: its event stream dropped or opened again (`attached_server`).
    #[serde(rename = "dossier://server-connection")]
    ServerConnection,
}

impl EventName {
    pub const ALL: [EventName; 6] = [
        Self::Core,
        Self::Resync,
        Self::Drag,
        Self::Dropped,
        Self::UpdateAvailable,
        Self::ServerConnection,
    ];

    /// The name Tauri emits it under; a test holds it equal to the generated one.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Core => "dossier://event",
            Self::Resync => "dossier://resync",
            Self::Drag => "dossier://drag",
            Self::Dropped => "dossier://dropped",
            Self::UpdateAvailable => "dossier://update-available",
            Self::ServerConnection => "dossier://server-connection",
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn serialized<T: Serialize>(value: T) -> String {
        serde_json::to_value(value)
            .unwrap()
            .as_str()
            .unwrap()
            .to_string()
    }

    /// The commands `lib.rs` hands to `generate_handler!`, by function name.
    fn registered_commands() -> BTreeSet<String> {
        let source = include_str!("lib.rs");
        let start = source.find("generate_handler![").unwrap() + "generate_handler![".len();
        let end = start + source[start..].find(']').unwrap();
        source[start..end]
            .split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .map(|entry| entry.rsplit("::").next().unwrap().to_string())
            .collect()
    }

    #[test]
    fn every_registered_command_has_a_name_and_every_name_a_command() {
        let named: BTreeSet<String> = CommandName::ALL.iter().copied().map(serialized).collect();
        assert_eq!(
            named.len(),
            CommandName::ALL.len(),
            "a name is listed twice"
        );
        assert_eq!(named, registered_commands());
    }

    #[test]
    fn event_names_emitted_are_the_generated_ones() {
        for event in EventName::ALL {
            assert_eq!(serialized(event), event.as_str());
        }
    }
}
