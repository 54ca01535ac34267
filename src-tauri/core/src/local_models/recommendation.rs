//! Which library model is "recommended for this computer": a pure choice from its total memory
//! and free disk space, so it can be tested for every kind of machine.
//!
//! A model is comfortable when it needs at most a quarter of the memory (the system, the
//! browser and the app keep the rest: a 1.7 GB model on 8 GB, a 1 GB one on 4 GB) and its file
//! leaves a gigabyte free on the disk. The first comfortable entry in the library's order (best
//! first) is recommended; on a small machine where none is, the smallest that needs at most
//! half the memory; with neither, nothing is.

use crate::local_models::library::LibraryEntry;

/// What the disk keeps free after a download, so the computer does not fill up.
pub const DISK_RESERVE_BYTES: u64 = 1024 * 1024 * 1024;

/// The recommended entry's id. `total_memory` or `free_disk` is `None` where the system cannot
/// say; an unknown memory counts as small (the smallest model that fits the disk).
pub fn recommended_model(
    library: &[LibraryEntry],
    total_memory: Option<u64>,
    free_disk: Option<u64>,
) -> Option<&LibraryEntry> {
    let fits_disk = |entry: &&LibraryEntry| {
        free_disk.is_none_or(|free| entry.size_bytes.saturating_add(DISK_RESERVE_BYTES) <= free)
    };
    let smallest = |limit: Option<u64>| {
        library
            .iter()
            .filter(fits_disk)
            .filter(|entry| limit.is_none_or(|limit| entry.memory_bytes <= limit))
            .min_by_key(|entry| entry.memory_bytes)
    };
    let Some(memory) = total_memory else {
        return smallest(None);
    };
    library
        .iter()
        .filter(fits_disk)
        .find(|entry| entry.memory_bytes <= memory / 4)
        .or_else(|| smallest(Some(memory / 2)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local_models::library::curated_library;

    const GIB: u64 = 1024 * 1024 * 1024;

    #[test]
    fn the_recommendation_follows_memory_and_disk() {
        let library = curated_library().unwrap_or_else(|error| panic!("{error}"));
        let plenty = Some(500 * GIB);
        // (total memory, free disk, expected)
        let cases: &[(Option<u64>, Option<u64>, Option<&str>)] = &[
            (Some(32 * GIB), plenty, Some("qwen2.5-1.5b-instruct-q4_k_m")),
            (Some(8 * GIB), plenty, Some("qwen2.5-1.5b-instruct-q4_k_m")),
            (Some(6 * GIB), plenty, Some("Llama-3.2-1B-Instruct-Q4_K_M")),
            (Some(4 * GIB), plenty, Some("qwen2.5-0.5b-instruct-q4_k_m")),
            (Some(2 * GIB), plenty, Some("qwen2.5-0.5b-instruct-q4_k_m")),
            (Some(GIB), plenty, None),
            // Lots of memory, little disk: the largest that leaves a gigabyte free.
            (
                Some(16 * GIB),
                Some(GIB + 900_000_000),
                Some("Llama-3.2-1B-Instruct-Q4_K_M"),
            ),
            (
                Some(16 * GIB),
                Some(GIB + 500_000_000),
                Some("qwen2.5-0.5b-instruct-q4_k_m"),
            ),
            (Some(16 * GIB), Some(GIB), None),
            // Unknown memory: the smallest; unknown disk: memory alone decides.
            (None, plenty, Some("qwen2.5-0.5b-instruct-q4_k_m")),
            (Some(8 * GIB), None, Some("qwen2.5-1.5b-instruct-q4_k_m")),
        ];
        for (memory, disk, expected) in cases {
            let chosen = recommended_model(&library, *memory, *disk).map(|entry| entry.id.as_str());
            assert_eq!(chosen, *expected, "memory {memory:?}, disk {disk:?}");
        }
    }
}
