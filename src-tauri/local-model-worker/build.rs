//! Linking llama.cpp into the worker on Windows with the GNU toolchain (mingw-w64), which
//! `llama-cpp-sys-2` =0.1.161 leaves half done; nothing is done for any other target.
//!
//! 1. ggml's own archives. On Windows ggml's CMake drops the `lib` prefix (`ggml.a`,
//!    `ggml-base.a`, `ggml-cpu.a`), and the sys crate links only the archives named `lib*.a` for
//!    every target but MSVC, so llama.cpp comes without the tensor library under it: thousands of
//!    "undefined reference to `ggml_…`" at link time (llama-cpp-rs issue #631; 0.1.154 renamed the
//!    archives, 0.1.161 globs for `lib*` since). They are linked here by their file names. Whole
//!    archives, because rustc puts a binary's own native libraries before the rlibs of its
//!    dependencies and GNU ld reads archives once, in order: llama.cpp's references to ggml, which
//!    come later in the sys crate's rlib, would otherwise find nothing. Skipped for an archive the
//!    sys crate links itself (one with the `lib` prefix), so a fixed sys crate does not link ggml
//!    twice. With them, Windows' `advapi32`, which the sys crate names for MSVC only.
//!
//! 2. The C++ runtime, statically. The sys crate asks for `stdc++` as a shared library, which with
//!    mingw makes the worker need `libstdc++-6.dll` (and through it `libgcc_s_seh-1.dll` and
//!    `libwinpthread-1.dll`) beside it: a Windows computer has none of them, so the worker would
//!    not start. GNU ld looks for `-lstdc++` folder by folder, taking the first folder that has
//!    any form of it; a folder of our own, searched before the compiler's, holding only the static
//!    `libstdc++.a` makes that form the one linked. The rest of mingw's runtime is already static
//!    in a Rust program (`-lgcc_eh`, `-l:libpthread.a`).

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let target_env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if target_os == "windows" && target_env == "gnu" {
        link_ggml_archives();
        link_the_cpp_runtime_statically();
    }
}

fn link_ggml_archives() {
    // `links = "llama"`: the sys crate's `cargo:ggml_cmake_dir=<out>/lib/cmake` reaches its direct
    // dependents as DEP_LLAMA_GGML_CMAKE_DIR; the archives are in the folder above it.
    println!("cargo:rerun-if-env-changed=DEP_LLAMA_GGML_CMAKE_DIR");
    let cmake_dir = std::env::var_os("DEP_LLAMA_GGML_CMAKE_DIR").unwrap_or_else(|| {
        panic!("llama-cpp-sys-2 did not say where ggml was installed (DEP_LLAMA_GGML_CMAKE_DIR)")
    });
    let library_dir = Path::new(&cmake_dir)
        .parent()
        .unwrap_or_else(|| panic!("{cmake_dir:?} has no parent folder"));
    println!("cargo:rustc-link-search=native={}", library_dir.display());
    // In the order of their references: ggml (the backend registry) uses ggml-cpu, both use
    // ggml-base.
    for archive in ["ggml", "ggml-cpu", "ggml-base"] {
        if library_dir.join(format!("lib{archive}.a")).is_file() {
            continue;
        }
        let file = library_dir.join(format!("{archive}.a"));
        if !file.is_file() {
            panic!("{} is missing from llama.cpp's build", file.display());
        }
        println!("cargo:rustc-link-lib=static:+whole-archive,+verbatim={archive}.a");
    }
    // ggml-cpu reads the processor's name from the registry (RegOpenKeyExA, RegQueryValueExA);
    // the sys crate names advapi32 for MSVC only. And ggml's C++ runtime: a build script's
    // libraries go to every target of the package, so the `protocol` test, which does not link
    // the sys crate (nor its `stdc++`), gets ggml too and needs it.
    println!("cargo:rustc-link-lib=dylib=advapi32");
    println!("cargo:rustc-link-lib=dylib=stdc++");
}

fn link_the_cpp_runtime_statically() {
    let compiler = std::env::var("CXX_x86_64_pc_windows_gnu")
        .or_else(|_| std::env::var("CXX"))
        .unwrap_or_else(|_| "x86_64-w64-mingw32-g++".to_owned());
    println!("cargo:rerun-if-env-changed=CXX_x86_64_pc_windows_gnu");
    println!("cargo:rerun-if-env-changed=CXX");
    let output = std::process::Command::new(&compiler)
        .arg("-print-file-name=libstdc++.a")
        .output()
        .unwrap_or_else(|error| panic!("{compiler} could not be run: {error}"));
    let static_runtime = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    if !static_runtime.is_absolute() || !static_runtime.is_file() {
        panic!("{compiler} knows no static libstdc++.a (it answered {static_runtime:?})");
    }
    let out_dir = PathBuf::from(
        std::env::var_os("OUT_DIR").unwrap_or_else(|| panic!("cargo did not set OUT_DIR")),
    );
    let folder = out_dir.join("static-cpp-runtime");
    std::fs::create_dir_all(&folder)
        .unwrap_or_else(|error| panic!("{}: {error}", folder.display()));
    let copy = folder.join("libstdc++.a");
    std::fs::copy(&static_runtime, &copy).unwrap_or_else(|error| {
        panic!(
            "copying {} to {}: {error}",
            static_runtime.display(),
            copy.display()
        )
    });
    println!("cargo:rustc-link-search=native={}", folder.display());
}
