//! A small dropped file, read where the prompt runs instead of on a blocking thread. Handing a
//! read to a blocking thread and back wakes two sleeping threads, which costs more than reading
//! a few kilobytes from the page cache (docs/benchmarks.md). Only what cannot stall the prompt's
//! thread is read here:
//!
//! - the file is opened without waiting (`O_NONBLOCK`), so a pipe or a device that would block
//!   the open is not waited for;
//! - it is read only when the open file itself (not its path, which may change meanwhile) is a
//!   regular file of at most `READ_AT_ONCE_BYTES`.
//!
//! Everything else (a folder, a larger file, an error) goes to the blocking thread as before,
//! which decides and words the outcome. Unix only: on Windows an open may wait for a virus
//! scanner to look at the file, so every read stays on a blocking thread there.

/// Larger files are read on a blocking thread.
#[cfg(unix)]
pub const READ_AT_ONCE_BYTES: u64 = 64 * 1024;

/// The whole content of `path` when it is a small regular file; `None` for anything else.
#[cfg(unix)]
pub fn read_at_once(path: &std::path::Path) -> Option<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .ok()?;
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() || metadata.len() > READ_AT_ONCE_BYTES {
        return None;
    }
    let mut content = Vec::with_capacity(metadata.len() as usize);
    // One byte more than allowed tells a file that grew since it was looked at.
    file.take(READ_AT_ONCE_BYTES + 1)
        .read_to_end(&mut content)
        .ok()?;
    (content.len() as u64 <= READ_AT_ONCE_BYTES).then_some(content)
}

#[cfg(not(unix))]
pub fn read_at_once(_path: &std::path::Path) -> Option<Vec<u8>> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn only_a_small_regular_file_is_read_at_once() {
        let folder = tempfile::tempdir().expect("temp dir");
        let small = folder.path().join("small.txt");
        std::fs::write(&small, "a few words\n").expect("written");
        assert_eq!(read_at_once(&small).as_deref(), Some(&b"a few words\n"[..]));
        let empty = folder.path().join("empty.txt");
        std::fs::write(&empty, "").expect("written");
        assert_eq!(read_at_once(&empty), Some(Vec::new()));

        let large = folder.path().join("large.txt");
        std::fs::write(&large, vec![b'x'; READ_AT_ONCE_BYTES as usize + 1]).expect("written");
        assert_eq!(read_at_once(&large), None);
        assert_eq!(read_at_once(folder.path()), None, "a folder");
        assert_eq!(read_at_once(&folder.path().join("missing")), None);
    }

    // rustix has no `mkfifoat` for Apple's systems; the open above is the same on every Unix.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_pipe_with_no_writer_is_not_waited_for() {
        let folder = tempfile::tempdir().expect("temp dir");
        let pipe = folder.path().join("pipe");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &pipe,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .expect("a named pipe");
        // A plain open would block here until a writer came, which none ever does.
        assert_eq!(read_at_once(&pipe), None);
    }
}
