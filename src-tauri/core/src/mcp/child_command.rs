//! The command line of a local server: its environment added to Dossier's, `npx` (and other
//! `.cmd` shims) run through `cmd /c` on Windows as people expect, the child in its own process
//! group (a job object on Windows) killed with its group when dropped, and on Linux killed by
//! the kernel if Dossier itself is killed.

use indexmap::IndexMap;
use process_wrap::tokio::{CommandWrap, KillOnDrop};

pub fn build(
    command: &[String],
    environment: &IndexMap<String, String>,
    folder: Option<&std::path::Path>,
) -> CommandWrap {
    let (program, arguments) = match command.split_first() {
        Some((program, arguments)) => (program.as_str(), arguments),
        None => ("", &[][..]),
    };
    let mut line = if cfg!(windows) {
        // `npx` is `npx.cmd` on Windows, which only the shell can start.
        let mut line = tokio::process::Command::new("cmd");
        line.arg("/c").arg(program).args(arguments);
        line
    } else {
        let mut line = tokio::process::Command::new(program);
        line.args(arguments);
        line
    };
    line.envs(environment);
    if let Some(folder) = folder {
        line.current_dir(folder);
    }
    dossier_parent_death::end_with_parent(&mut line);
    let mut wrapped = CommandWrap::from(line);
    #[cfg(unix)]
    wrapped.wrap(process_wrap::tokio::ProcessGroup::leader());
    #[cfg(windows)]
    wrapped.wrap(process_wrap::tokio::JobObject);
    wrapped.wrap(KillOnDrop);
    wrapped
}
