//! The command line of a local server: its environment added to Dossier's, `npx` (and other
//! `.cmd` shims) found through `PATH` and `PATHEXT` on Windows as a command prompt would
//! (`windows_program`), the child in its own process group (a job object on Windows) killed with
//! its group when dropped, and on Linux killed by the kernel if Dossier itself is killed.

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
    let mut line = tokio::process::Command::new(program_file(program, environment));
    line.args(arguments);
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

/// What to start for `program`: on Windows the file a command prompt would run (`npx` is
/// `npx.cmd`), searched in the server's own `PATH` if its config sets one (Windows' variable
/// names ignore case), else in Dossier's; the name as given when nothing is found, so the
/// error says what the person wrote. Elsewhere the name as given: the system searches `PATH`.
fn program_file(program: &str, environment: &IndexMap<String, String>) -> std::ffi::OsString {
    if !cfg!(windows) {
        return program.into();
    }
    let configured = |name: &str| {
        environment
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| std::ffi::OsString::from(value))
    };
    let path = configured("PATH").or_else(|| std::env::var_os("PATH"));
    let extensions = configured("PATHEXT").or_else(|| std::env::var_os("PATHEXT"));
    let extensions = extensions.map(|listed| listed.to_string_lossy().into_owned());
    match crate::mcp::windows_program::resolve(program, path.as_deref(), extensions.as_deref()) {
        Some(file) => file.into_os_string(),
        None => program.into(),
    }
}

#[cfg(all(test, windows))]
mod windows_tests {
    use super::*;

    /// A `.cmd` file in a folder of its own that writes the arguments it was given to
    /// `arguments.txt` beside it.
    fn recording_shim(folder: &std::path::Path, name: &str) -> std::path::PathBuf {
        std::fs::write(
            folder.join(name),
            "@echo off\r\necho %*> \"%~dp0arguments.txt\"\r\n",
        )
        .expect("shim written");
        folder.join("arguments.txt")
    }

    async fn run(command: &[&str], environment: &IndexMap<String, String>) {
        let command: Vec<String> = command.iter().map(|part| part.to_string()).collect();
        let mut child = build(&command, environment, None)
            .spawn()
            .unwrap_or_else(|error| panic!("{command:?} did not start: {error}"));
        let status = child.wait().await.expect("the shim ran");
        assert!(status.success(), "{command:?} exited with {status:?}");
    }

    /// Windows rule: `npx` is `npx.cmd` in Node.js's folder, which `CreateProcess` never finds
    /// by itself (it adds only `.exe`); a command prompt finds it through `PATHEXT`, and so does
    /// an MCP server configured as `npx …`, with its arguments intact.
    #[tokio::test]
    async fn an_mcp_server_given_as_npx_starts_the_npx_cmd_shim_on_path() {
        let node = tempfile::tempdir().expect("temporary folder");
        let recorded = recording_shim(node.path(), "npx.cmd");
        let environment = IndexMap::from([("Path".to_string(), node.path().display().to_string())]);
        run(
            &["npx", "-y", "@modelcontextprotocol/server-filesystem", "."],
            &environment,
        )
        .await;
        let arguments = std::fs::read_to_string(&recorded).expect("the shim ran");
        assert_eq!(
            arguments.trim_end(),
            "-y @modelcontextprotocol/server-filesystem ."
        );
    }

    /// Windows rule: `cmd /c` strips the first and last quote of its line, so a server under a
    /// folder with a space, given an argument with a space, must be started as a file with its
    /// arguments quoted for cmd (what Rust's standard library does for a `.cmd`), not through
    /// `cmd /c` by hand.
    #[tokio::test]
    async fn a_cmd_server_in_a_folder_with_spaces_gets_arguments_with_spaces() {
        let home = tempfile::tempdir().expect("temporary folder");
        let tools = home.path().join("My Tools");
        std::fs::create_dir(&tools).expect("folder made");
        let recorded = recording_shim(&tools, "server.cmd");
        let program = tools.join("server.cmd").display().to_string();
        run(&[&program, r"C:\My Documents", "plain"], &IndexMap::new()).await;
        let arguments = std::fs::read_to_string(&recorded).expect("the shim ran");
        assert_eq!(arguments.trim_end(), r#""C:\My Documents" plain"#);
    }
}
