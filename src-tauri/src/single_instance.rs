//! One Dossier per person and data folder: a second launch hands over to the running app, which
//! brings its window to the front, and then exits before it opens a window or the ledger.
//!
//! On macOS and Linux the running app listens on a Unix socket in the person's runtime folder
//! (`$XDG_RUNTIME_DIR`, else the temporary folder, which is per-person on macOS); a launch that
//! can connect says "focus" and exits. The socket's name carries the identifier, the home folder
//! and the data folder, so two people never meet and a test run with its own `DOSSIER_DATA_DIR`
//! never hands over to the person's app. We do this ourselves rather than with Tauri's
//! single-instance plugin, whose Linux side speaks D-Bus through `zbus`: that crate was 1.4 MiB
//! of the release binary (8 %) and a thread, and it needed a session bus. Windows keeps the plugin
//! (a named pipe, no `zbus`).
//!
//! When the socket cannot be used at all (no writable runtime folder), the app logs a warning
//! and starts normally rather than fail.

use std::hash::{Hash, Hasher};
use std::path::Path;
use tauri::{AppHandle, Manager, Runtime};

/// A short name for this identifier and data folder, the same in every process of one person.
pub fn instance_name(identifier: &str, data_dir: Option<&Path>) -> String {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    identifier.hash(&mut hasher);
    std::env::var_os("HOME").hash(&mut hasher);
    data_dir
        .filter(|folder| !folder.as_os_str().is_empty())
        .hash(&mut hasher);
    format!("dossier-{:016x}", hasher.finish())
}

/// Brings the main window forward; what a second launch asks for.
pub fn focus_main_window<R: Runtime>(app: &AppHandle<R>) {
    tracing::info!("a second launch asked for the window");
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    for (what, result) in [
        ("unminimize", window.unminimize()),
        ("show", window.show()),
        ("focus", window.set_focus()),
    ] {
        if let Err(error) = result {
            tracing::warn!(%error, what, "could not bring the window forward");
        }
    }
}

/// Tauri's plugin on Windows (a named pipe, no `zbus`).
#[cfg(windows)]
pub fn plugin<R: Runtime>() -> tauri::plugin::TauriPlugin<R> {
    tauri_plugin_single_instance::init(|app, _arguments, _folder| focus_main_window(app))
}

#[cfg(unix)]
pub use unix::*;

#[cfg(unix)]
mod unix {
    use super::*;
    use std::fs::File;
    use std::io::{ErrorKind, Read, Write};
    use std::os::unix::net::{UnixListener, UnixStream};
    use std::path::PathBuf;
    use std::time::Duration;

    /// What a second launch writes; anything else on the socket is ignored.
    const FOCUS: &[u8] = b"focus\n";

    /// The outcome of trying to be the one running Dossier.
    pub enum Claim {
        /// Nobody else runs: this process listens from now on (see [`Instance::serve`]).
        First(Instance),
        /// Another process runs and was asked to show its window; this one should exit.
        HandedOver,
    }

    /// The listening socket of the running app; the socket file goes when this is dropped.
    pub struct Instance {
        listener: UnixListener,
        path: PathBuf,
    }

    /// Where the socket of `name` lives: the runtime folder if the system has one (private to
    /// the person), else the temporary folder.
    pub fn socket_path(name: &str) -> PathBuf {
        let folder = std::env::var_os("XDG_RUNTIME_DIR")
            .map(PathBuf::from)
            .filter(|folder| folder.is_dir())
            .unwrap_or_else(std::env::temp_dir);
        folder.join(format!("{name}.sock"))
    }

    /// Becomes the running instance at `path`, or hands over to the one already there.
    pub fn claim(path: &Path) -> std::io::Result<Claim> {
        if hand_over(path)? {
            return Ok(Claim::HandedOver);
        }
        // Two launches at once must not both remove the socket and bind: the lock file makes
        // "look again, clear a stale socket, bind" one step. Held only for that step.
        let lock = File::create(path.with_extension("lock"))?;
        lock.lock()?;
        if hand_over(path)? {
            return Ok(Claim::HandedOver);
        }
        // Nobody answers: whatever file is there was left by a process that has gone.
        match std::fs::remove_file(path) {
            Err(error) if error.kind() != ErrorKind::NotFound => return Err(error),
            _ => {}
        }
        let listener = UnixListener::bind(path)?;
        lock.unlock()?;
        Ok(Claim::First(Instance {
            listener,
            path: path.to_path_buf(),
        }))
    }

    /// Asks the process listening at `path` to show its window. `false` when nobody listens.
    fn hand_over(path: &Path) -> std::io::Result<bool> {
        refuse_a_stranger_s_socket(path)?;
        match UnixStream::connect(path) {
            Ok(mut stream) => {
                stream.set_write_timeout(Some(Duration::from_secs(2)))?;
                stream.write_all(FOCUS)?;
                Ok(true)
            }
            Err(error)
                if matches!(
                    error.kind(),
                    ErrorKind::NotFound | ErrorKind::ConnectionRefused
                ) =>
            {
                Ok(false)
            }
            Err(error) => Err(error),
        }
    }

    /// In the shared temporary folder (no runtime folder) another account could put a socket
    /// at this name and make every launch hand over to it and exit. Only a socket owned by
    /// whoever owns the home folder is talked to; a stranger's is an error, and the app then
    /// starts on its own.
    fn refuse_a_stranger_s_socket(path: &Path) -> std::io::Result<()> {
        use std::os::unix::fs::MetadataExt;
        let (Ok(socket), Some(home)) = (
            std::fs::symlink_metadata(path),
            std::env::var_os("HOME").and_then(|home| std::fs::metadata(home).ok()),
        ) else {
            return Ok(());
        };
        if socket.uid() == home.uid() {
            return Ok(());
        }
        Err(std::io::Error::new(
            ErrorKind::PermissionDenied,
            format!("{} belongs to another account", path.display()),
        ))
    }

    impl Instance {
        /// Answers later launches on a thread of its own for the life of the process, calling
        /// `on_focus` for each one that asks for the window.
        pub fn serve(self, on_focus: impl Fn() + Send + 'static) {
            let spawned = std::thread::Builder::new()
                .name("single-instance".into())
                .spawn(move || {
                    for stream in self.listener.incoming() {
                        match stream {
                            Ok(stream) if asks_for_focus(&stream) => on_focus(),
                            Ok(_) => {}
                            Err(error) => {
                                tracing::warn!(%error, "a second launch could not connect");
                            }
                        }
                    }
                });
            if let Err(error) = spawned {
                tracing::warn!(%error, "cannot listen for second launches");
            }
        }

        pub fn path(&self) -> &Path {
            &self.path
        }
    }

    /// Removes the socket file when the app exits, so the next launch finds nothing stale.
    pub fn remove_on_exit(path: &Path) {
        let _ = std::fs::remove_file(path);
    }

    fn asks_for_focus(mut stream: &UnixStream) -> bool {
        let mut received = [0u8; 16];
        let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
        let mut length = 0;
        while length < FOCUS.len() {
            match stream.read(&mut received[length..]) {
                Ok(0) | Err(_) => break,
                Ok(read) => length += read,
            }
        }
        &received[..length] == FOCUS
    }

    impl Drop for Instance {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::mpsc;
    use std::time::Duration;

    /// A first claim in a folder of its own, serving: its socket, and a channel that hears each
    /// request for the window.
    fn running_instance() -> (tempfile::TempDir, PathBuf, mpsc::Receiver<()>) {
        let folder = tempfile::tempdir().expect("temporary folder");
        let path = folder.path().join("dossier-test.sock");
        let Claim::First(instance) = claim(&path).expect("first claim") else {
            panic!("the first claim should listen");
        };
        let (sender, asked) = mpsc::channel();
        instance.serve(move || sender.send(()).expect("test still listening"));
        (folder, path, asked)
    }

    #[test]
    fn a_data_folder_gets_its_own_name_and_the_same_folder_the_same_one() {
        let identifier = "app.dossier.desktop";
        let person = instance_name(identifier, None);
        assert_eq!(person, instance_name(identifier, Some(Path::new(""))));
        let first = instance_name(identifier, Some(Path::new("/tmp/one")));
        let second = instance_name(identifier, Some(Path::new("/tmp/two")));
        assert_ne!(first, second);
        assert_ne!(first, person);
        assert_eq!(
            first,
            instance_name(identifier, Some(Path::new("/tmp/one")))
        );
        assert!(first.starts_with("dossier-") && first.len() == "dossier-".len() + 16);
    }

    #[test]
    fn a_second_claim_hands_over_and_the_first_is_asked_for_its_window() {
        let (_folder, path, asked) = running_instance();

        assert!(matches!(
            claim(&path).expect("second claim"),
            Claim::HandedOver
        ));
        asked
            .recv_timeout(Duration::from_secs(10))
            .expect("the running instance was asked for its window");
        assert!(matches!(
            claim(&path).expect("third claim"),
            Claim::HandedOver
        ));
        asked
            .recv_timeout(Duration::from_secs(10))
            .expect("asked again");
    }

    #[test]
    fn a_socket_left_by_a_crashed_app_is_taken_over() {
        let folder = tempfile::tempdir().expect("temporary folder");
        let path = folder.path().join("dossier-test.sock");
        // A listener that goes away without removing its file, as after a crash.
        drop(std::os::unix::net::UnixListener::bind(&path).expect("bind"));
        assert!(path.exists());
        let Claim::First(instance) = claim(&path).expect("claim over a stale socket") else {
            panic!("nobody listens on a stale socket: this process should run");
        };
        assert_eq!(instance.path(), path);
        drop(instance);
        assert!(!path.exists(), "the socket file goes with the instance");
    }

    #[test]
    fn a_socket_owned_by_another_account_is_never_talked_to() {
        use std::os::unix::fs::MetadataExt;
        let folder = tempfile::tempdir().expect("temporary folder");
        let path = folder.path().join("dossier-test.sock");
        let stranger = std::os::unix::net::UnixListener::bind(&path).expect("bind");
        let home_owner = std::env::var_os("HOME")
            .and_then(|home| std::fs::metadata(home).ok())
            .map(|home| home.uid());
        let Some(home_owner) = home_owner else {
            panic!("HOME is not set: cannot tell whose socket is whose");
        };
        // Giving the socket away needs root (which CI is); elsewhere the file is ours and the
        // refusal cannot be shown, so say so rather than pass quietly.
        let other = if home_owner == 65534 { 65533 } else { 65534 };
        if std::process::Command::new("chown")
            .arg(other.to_string())
            .arg(&path)
            .status()
            .map_or(true, |status| !status.success())
        {
            eprintln!("skipped: chown needs root here");
            return;
        }
        let refused = claim(&path).err().map(|error| error.kind());
        assert_eq!(refused, Some(std::io::ErrorKind::PermissionDenied));
        drop(stranger);
    }

    #[test]
    fn only_the_focus_message_brings_the_window_forward() {
        use std::io::Write;
        let (_folder, path, asked) = running_instance();
        let mut stranger = std::os::unix::net::UnixStream::connect(&path).expect("connect");
        stranger.write_all(b"open /etc/passwd\n").expect("write");
        drop(stranger);
        // Connections are answered in order: once the real launch's focus arrives, the
        // stranger's message has been read and ignored.
        assert!(matches!(
            claim(&path).expect("second claim"),
            Claim::HandedOver
        ));
        asked
            .recv_timeout(Duration::from_secs(10))
            .expect("the real launch was answered");
        assert!(
            asked.try_recv().is_err(),
            "the stranger's message was ignored"
        );
    }
}
