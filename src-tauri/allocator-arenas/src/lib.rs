//! Fewer malloc arenas, and freed memory handed back. glibc gives threads their own heaps ("arenas", up to eight per core), and
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

/// How often [`return_free_memory_periodically`] hands freed memory back.
pub const RETURN_INTERVAL: std::time::Duration = std::time::Duration::from_secs(5);

/// Hands memory that is free inside the heaps back to the system. glibc's `free` gives back only
/// the top of a heap; a page freed in the middle stays in the process for good, and after a few
/// thousand replies those pages were most of what the soak bench saw grow. `malloc_trim` lets go
/// of every whole free page (the memory stays mapped, so nothing is moved or copied). Returns
/// whether any memory went back.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub fn return_free_memory() -> bool {
    // SAFETY: `malloc_trim` takes the allocator's own locks and only releases pages no
    // allocation uses; it touches no memory of ours and is safe to call from any thread.
    unsafe { libc::malloc_trim(0) == 1 }
}

/// Nothing to hand back outside glibc: those allocators return memory on their own.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn return_free_memory() -> bool {
    false
}

/// Starts a thread that calls [`return_free_memory`] every [`RETURN_INTERVAL`], for the life of
/// the process. A pass costs well under a millisecond for the heaps Dossier keeps, and a thread
/// of its own keeps it off the threads that answer requests. Only where there is something to
/// do (glibc); returns whether the thread started.
pub fn return_free_memory_periodically() -> bool {
    if cfg!(not(all(target_os = "linux", target_env = "gnu"))) {
        return false;
    }
    std::thread::Builder::new()
        .name("return-free-memory".into())
        .spawn(|| loop {
            std::thread::sleep(RETURN_INTERVAL);
            return_free_memory();
        })
        .is_ok()
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn glibc_takes_the_arena_limit() {
        assert!(super::limit_allocator_arenas());
    }

    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn freed_pages_in_the_middle_of_the_heap_go_back() {
        // Many small blocks, then every one but the last freed: the free pages sit below a block
        // still in use, where `free` alone never returns them.
        let blocks: Vec<Vec<u8>> = (0..4096).map(|_| vec![1u8; 4000]).collect();
        let kept = vec![2u8; 4000];
        drop(blocks);
        assert!(super::return_free_memory());
        assert_eq!(kept[0], 2);
    }
}
