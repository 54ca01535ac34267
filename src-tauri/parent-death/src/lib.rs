//! A child process that ends with its parent. On Linux the kernel sends the child `SIGKILL`
//! when the thread that spawned it ends (`PR_SET_PDEATHSIG`), so a crash or a `SIGKILL` of
//! Dossier leaves no MCP server behind. Elsewhere it does nothing: Windows uses a job object and
//! macOS has no equivalent (the process group is killed on a normal exit there).
//!
//! The signal follows the spawning *thread*, so spawn from an async task on a runtime worker
//! (they live as long as the app), never from a short-lived blocking thread.

/// Asks the kernel to kill the child spawned from `command` when this process's spawning
/// thread ends.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn end_with_parent(command: &mut tokio::process::Command) {
    let parent = std::process::id();
    // SAFETY: the hook runs in the forked child before exec, where only async-signal-safe calls
    // are allowed: `prctl`, `getppid` and `kill` are, and the closure allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died between fork and prctl; then nobody would signal us.
            if libc::getppid() as u32 != parent {
                libc::kill(libc::getpid(), libc::SIGKILL);
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
pub fn end_with_parent(_command: &mut tokio::process::Command) {}
