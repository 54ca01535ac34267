//! The crash tests' child process: this same test binary re-run for one test, with an
//! environment variable telling that test to play the child. The parent reads the child's
//! stdout line by line, waits for the moment it wants, kills it with SIGKILL and keeps whatever
//! the child printed before dying.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::thread::JoinHandle;
use std::time::Duration;

/// How long a child may take to reach the moment the parent waits for.
const READY_TIMEOUT: Duration = Duration::from_secs(30);

pub struct CrashChild {
    process: Child,
    lines: Receiver<String>,
    reader: JoinHandle<()>,
}

impl CrashChild {
    /// Runs test `test_name` of this binary with `env` set to `folder`.
    pub fn spawn(test_name: &str, env: &str, folder: &Path) -> Self {
        let executable = std::env::current_exe().unwrap_or_else(|error| panic!("{error}"));
        let mut process = Command::new(executable)
            .args([test_name, "--exact", "--nocapture", "--test-threads", "1"])
            .env(env, folder)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|error| panic!("{error}"));
        let stdout = process.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let (sender, lines) = std::sync::mpsc::channel::<String>();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            process,
            lines,
            reader,
        }
    }

    /// Waits for the first line `matcher` accepts. libtest prints "test <name> ... " before the
    /// child's own output, so a marker may end a longer line: matchers look inside the line.
    pub fn wait_for<T>(&self, what: &str, matcher: impl Fn(&str) -> Option<T>) -> T {
        loop {
            let line = self
                .lines
                .recv_timeout(READY_TIMEOUT)
                .unwrap_or_else(|error| panic!("the child never {what}: {error}"));
            if let Some(found) = matcher(&line) {
                return found;
            }
        }
    }

    /// SIGKILL (on Unix), then every line the child printed that was not read yet.
    pub fn kill(mut self) -> Vec<String> {
        self.process
            .kill()
            .unwrap_or_else(|error| panic!("{error}"));
        self.process
            .wait()
            .unwrap_or_else(|error| panic!("{error}"));
        self.reader.join().unwrap_or_default();
        self.lines.try_iter().collect()
    }
}

/// Accepts a line that ends with `ready`.
pub fn ready(line: &str) -> Option<()> {
    line.ends_with("ready").then_some(())
}
