//! What the fuzz targets share: an allocator that refuses any single allocation over 1 GiB (so
//! a length taken from the input shows up as a crash even without AddressSanitizer's
//! `-malloc_limit_mb`), a scratch ledger on a temporary folder for the targets that must reach
//! SQLite, and the split of a body into fuzz-chosen chunks.

use dossier_core::models::config::{Config, Locations};
use dossier_core::{Ledger, LedgerOptions};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::OnceLock;

/// The largest single allocation a target may make.
pub const ALLOCATION_LIMIT: usize = 1 << 30;

pub struct LimitedAllocator;

fn refuse(size: usize) -> ! {
    // No formatting machinery that could allocate: the size goes out as plain digits.
    let mut digits = [0u8; 20];
    let mut cursor = digits.len();
    let mut rest = size;
    loop {
        cursor -= 1;
        digits[cursor] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    use std::io::Write;
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(b"==fuzz== allocation of ");
    let _ = stderr.write_all(&digits[cursor..]);
    let _ = stderr.write_all(b" bytes exceeds the 1 GiB limit\n");
    std::process::abort()
}

// SAFETY: every call is forwarded unchanged to the system allocator; only sizes are checked.
unsafe impl GlobalAlloc for LimitedAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > ALLOCATION_LIMIT {
            refuse(layout.size());
        }
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > ALLOCATION_LIMIT {
            refuse(layout.size());
        }
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > ALLOCATION_LIMIT {
            refuse(new_size);
        }
        System.realloc(pointer, layout, new_size)
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        System.dealloc(pointer, layout)
    }
}

#[global_allocator]
static ALLOCATOR: LimitedAllocator = LimitedAllocator;

/// A ledger on a fresh folder under `$TMPDIR`, opened once per fuzzing process. `scripts/fuzz.sh`
/// points `TMPDIR` at its own scratch folder and removes it afterwards.
pub struct Scratch {
    pub runtime: tokio::runtime::Runtime,
    pub ledger: Ledger,
}

impl Scratch {
    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }
}

pub fn scratch_ledger(name: &str) -> &'static Scratch {
    static SCRATCH: OnceLock<Scratch> = OnceLock::new();
    SCRATCH.get_or_init(|| {
        let folder =
            std::env::temp_dir().join(format!("dossier-fuzz-{name}-{}", std::process::id()));
        // A leftover from an earlier process with the same id would only add rows.
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).expect("scratch folder");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("tokio runtime");
        let mut options = LedgerOptions::at(Locations::from_values(
            Some(folder.clone()),
            Some(folder.join("dossier.json")),
        ));
        options.config = Some(Config::default());
        let ledger = runtime
            .block_on(dossier_core::start_up::open(options))
            .expect("scratch ledger opens");
        Scratch { runtime, ledger }
    })
}

/// `body` cut at the positions named by `cuts` (each taken modulo the body's length), in order.
/// Empty chunks are kept: a network read may deliver one.
pub fn chunks<'body>(body: &'body [u8], cuts: &[u16]) -> Vec<&'body [u8]> {
    let mut points: Vec<usize> = cuts
        .iter()
        .map(|cut| usize::from(*cut) % (body.len() + 1))
        .collect();
    points.sort_unstable();
    let mut pieces = Vec::with_capacity(points.len() + 1);
    let mut start = 0;
    for point in points {
        pieces.push(&body[start..point]);
        start = point;
    }
    pieces.push(&body[start..]);
    pieces
}
