//! The operation table (`dossier_core::operations`) expanded for the desktop window: one Tauri
//! command per declared operation, the handler that registers them all, and (in the tests) the
//! typed TypeScript client both UI transports call, `ui/src/lib/shell-bindings/operations.ts`.
//! The relay's allow-list reads the same table (`attached_server/relay_paths.rs`). Nothing here
//! is written per operation: adding one is an entry in the table.

use crate::error::ShellError;
use dossier_core::Ledger;
use tauri::ipc::Invoke;
use tauri::Runtime;

macro_rules! tauri_commands {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident : $method:ident $path:literal,
            params($($param:ident),*), body($($body:ty)?),
            output $output:ty,
            calls $handle:ident . $function:ident, relayed $relayed:literal, writes $writes:literal
            $(, http answers $answer:literal)? $(, http pages $items:ident by $cursor:literal)?;
    )*) => {
        $(
            $(#[doc = $doc])*
            #[tauri::command]
            async fn $name(
                ledger: tauri::State<'_, Ledger>,
                $($param: String,)*
                $(body: $body)?
            ) -> Result<$output, ShellError> {
                Ok(ledger
                    .$handle()
                    .$function($(&$param,)* $(std::convert::identity::<$body>(body))?)
                    .await?)
            }
        )*

        /// The declared commands' names, as the webview invokes them.
        pub const COMMANDS: &[&str] = &[$(stringify!($name)),*];

        fn declared_handler<R: Runtime>() -> impl Fn(Invoke<R>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$($name),*]
        }
    };
}

dossier_core::declared_operations!(tauri_commands);

/// `others` (the hand-written commands) with the declared ones in front: a declared name goes
/// to its generated command, any other to `others`.
pub fn with_declared<R: Runtime>(
    others: impl Fn(Invoke<R>) -> bool + Send + Sync + 'static,
) -> impl Fn(Invoke<R>) -> bool + Send + Sync + 'static {
    let declared = declared_handler::<R>();
    move |invoke| {
        if COMMANDS.contains(&invoke.message.command()) {
            declared(invoke)
        } else {
            others(invoke)
        }
    }
}

#[cfg(test)]
mod typescript_client;
