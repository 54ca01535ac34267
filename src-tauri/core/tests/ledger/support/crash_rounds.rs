//! What the kill tests of backup, restore and move share (`backup_crash`, `data_folder_crash`):
//! how many rounds they kill, the ledger they kill it in — sessions that each hold a prompt and
//! a text file, so a copy takes long enough for kills to land inside it — and how the child
//! reports what it finished before the kill.

use super::{file_draft, no_reply};
use dossier_core::wire::draft::Draft;
use dossier_core::wire::session::CreateSession;
use dossier_core::Ledger;
use std::io::Write;
use std::path::Path;

/// SIGKILLs per test: the issue asks for at least ten.
pub const ROUNDS: usize = 12;
/// Sessions in the ledger before the kills.
pub const SESSIONS: usize = 60;

/// When in a round the kill lands: a random moment in a window that widens (by half) after each
/// round in which nothing has finished yet. On a quiet machine most kills land inside the
/// operation and some after it; on a loaded one, where the operation takes longer than the
/// first window, the widening still lets some finish, so "some operation finished before a kill"
/// is a check of the code, not of the machine's load.
pub struct KillWindow {
    millis: u64,
}

impl KillWindow {
    pub fn new(millis: u64) -> Self {
        Self { millis }
    }

    /// Waits a random moment of the current window.
    pub fn wait(&self, rng: &mut impl rand::Rng) {
        std::thread::sleep(std::time::Duration::from_millis(
            rng.gen_range(1..self.millis.max(2)),
        ));
    }

    /// After a round: widen the window while `finished_so_far` is still zero.
    pub fn after_round(&mut self, finished_so_far: usize) {
        if finished_so_far == 0 {
            self.millis += self.millis / 2;
        }
    }
}

/// One line to the parent, flushed at once: a line still buffered when the kill lands would be
/// an acknowledgement the parent never saw.
pub fn say(line: &str) {
    let mut stdout = std::io::stdout();
    writeln!(stdout, "{line}").unwrap_or_default();
    stdout.flush().unwrap_or_default();
}

/// Adds `SESSIONS` sessions titled `kept <n>`, each with a prompt and a file read from a notes
/// file written under `folder/work`.
pub async fn fill(ledger: &Ledger, folder: &Path) {
    let work = folder.join("work");
    std::fs::create_dir_all(&work).unwrap_or_else(|error| panic!("{error}"));
    let text: String = (0..400)
        .map(|line| format!("line {line} of notes\n"))
        .collect();
    let notes = work.join("notes.txt");
    std::fs::write(&notes, text).unwrap_or_else(|error| panic!("{error}"));
    for index in 0..SESSIONS {
        let session = ledger
            .sessions()
            .create(CreateSession {
                title: Some(format!("kept {index}")),
                ..CreateSession::default()
            })
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        ledger
            .sessions()
            .prompt(
                &session.id,
                no_reply(vec![
                    Draft::text(format!("prompt {index}")),
                    file_draft(&notes),
                ]),
            )
            .await
            .unwrap_or_else(|error| panic!("{error}"));
    }
}
