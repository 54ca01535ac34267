//! WebKitGTK's compositing on a machine with no GPU (Linux only).
//!
//! WebKitGTK composites the page with OpenGL. With no GPU to reach (a virtual machine, a remote
//! desktop, Xvfb) Mesa runs that OpenGL in software (llvmpipe), and compositing in software
//! costs more than it saves: measured under Xvfb on two shared cores, a reply streaming 500
//! deltas a second rendered at 11–12 frames a second composited and at 36–42 without
//! compositing, and a bare page appending the same text at 15–27 and 59–72
//! (`docs/benchmarks.md#the-conversation-view`). So when no GPU render node can be opened,
//! the shell asks WebKit for its non-composited path, the one `WEBKIT_DISABLE_COMPOSITING_MODE`
//! selects, before the webview exists. A machine with a GPU keeps compositing, and a person
//! who set either of WebKit's own compositing variables keeps their choice. A GPU reached
//! without a DRM render node (NVIDIA's own driver without its `nvidia-drm` module) counts as no
//! GPU here: `WEBKIT_FORCE_COMPOSITING_MODE=1` keeps compositing there.

use std::ffi::OsStr;
use std::path::Path;

/// WebKit's switch for its non-composited rendering path.
pub const DISABLE_COMPOSITING: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
/// WebKit's switch the other way: a person's way to keep compositing whatever this module decides.
pub const FORCE_COMPOSITING: &str = "WEBKIT_FORCE_COMPOSITING_MODE";

/// Whether to turn compositing off: only with no usable GPU render node, and only when the
/// person has not already chosen through either of WebKit's variables.
pub fn disable_compositing(
    gpu_render_node: bool,
    disable_set: Option<&OsStr>,
    force_set: Option<&OsStr>,
) -> bool {
    !gpu_render_node && disable_set.is_none() && force_set.is_none()
}

/// Whether `folder` (normally `/dev/dri`) has a render node (`renderD128`, …) this process can
/// open for reading and writing, which is what Mesa needs to draw on the GPU.
pub fn gpu_render_node_in(folder: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return false;
    };
    entries.flatten().any(|entry| {
        entry.file_name().to_string_lossy().starts_with("renderD")
            && std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(entry.path())
                .is_ok()
    })
}

/// Applies the decision to this process's environment, which WebKit reads when it creates the
/// webview and its web process inherits. Call first thing in `run`, while the process has no
/// other thread (setting the environment is not safe while another thread may read it).
pub fn apply() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let disable = disable_compositing(
        gpu_render_node_in(Path::new("/dev/dri")),
        std::env::var_os(DISABLE_COMPOSITING).as_deref(),
        std::env::var_os(FORCE_COMPOSITING).as_deref(),
    );
    if disable {
        std::env::set_var(DISABLE_COMPOSITING, "1");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compositing_is_turned_off_only_without_a_gpu_and_without_a_choice() {
        let one = Some(OsStr::new("1"));
        let zero = Some(OsStr::new("0"));
        let cases = [
            // (gpu render node, disable set, force set) → turn compositing off
            ((false, None, None), true),
            ((true, None, None), false),
            ((false, one, None), false),
            ((false, zero, None), false),
            ((false, None, one), false),
            ((true, None, one), false),
            ((true, one, None), false),
        ];
        for ((gpu, disable, force), expected) in cases {
            assert_eq!(
                disable_compositing(gpu, disable, force),
                expected,
                "gpu {gpu}, disable {disable:?}, force {force:?}"
            );
        }
    }

    #[test]
    fn a_render_node_counts_only_when_it_can_be_opened() {
        let folder = tempfile::tempdir().expect("a temporary folder");
        assert!(!gpu_render_node_in(folder.path()), "an empty folder");
        assert!(
            !gpu_render_node_in(&folder.path().join("missing")),
            "a missing folder"
        );
        std::fs::write(folder.path().join("card0"), b"").expect("a card node");
        assert!(
            !gpu_render_node_in(folder.path()),
            "a card node is not a render node"
        );
        std::fs::write(folder.path().join("renderD128"), b"").expect("a render node");
        assert!(gpu_render_node_in(folder.path()), "an openable render node");
    }
}
