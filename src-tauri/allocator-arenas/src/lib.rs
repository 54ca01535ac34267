//! Fewer malloc arenas. glibc gives threads their own heaps ("arenas", up to eight per core), and
//! memory freed in one arena is reused only by the threads of that arena. Dossier's threads take
//! turns at the same work (the runtime's workers, one thread per SQLite connection), so each
//! arena grows to the largest working set it ever saw and keeps it: the soak bench
//! (`cargo bench -p dossier-server --bench soak`) saw the server's anonymous memory grow by
//! ~12.5 KB per streamed reply for good, while the heap in use was well under half of it. Two
//! arenas keep two threads from waiting on each other's allocations and let the rest of the
//! memory be reused. Elsewhere (macOS, Windows, musl) this does nothing: their allocators
//! return memory by other rules.

/// How many arenas glibc may make.
pub const ARENAS: i32 = 2;

/// Limits glibc's malloc to [`ARENAS`] arenas. Call it first thing in `main`, before any thread
/// starts: a thread keeps the arena it got. Returns whether the allocator took the setting.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn limit_allocator_arenas() -> bool {
    // SAFETY: `mallopt` only changes a tuning parameter of glibc's allocator; it takes two
    // integers, touches no memory of ours, and is safe to call at any time.
    unsafe { libc::mallopt(libc::M_ARENA_MAX, ARENAS) == 1 }
}

/// Nothing to limit outside glibc.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn limit_allocator_arenas() -> bool {
    false
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn glibc_takes_the_arena_limit() {
        assert!(super::limit_allocator_arenas());
    }
}
