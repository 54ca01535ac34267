#!/usr/bin/env bash
# The mingw-w64 toolchain for x86_64-pc-windows-gnu, as the Windows lane (scripts/test-windows.sh)
# and the worker's build (scripts/build-local-model-worker.sh) both use it. Sourced; it only
# exports variables scoped to that target (so a Linux build in the same shell is unchanged) and
# defines forget_stale_llama_cmake_builds.
#
# The posix-threads flavour of Debian's mingw-w64 (`x86_64-w64-mingw32-gcc-posix`,
# `-g++-posix`), not the default win32 one: the local model worker's llama.cpp uses
# `std::thread`, `std::mutex` and `std::condition_variable`, which GCC 12's win32 thread model
# does not provide ("'mutex' in namespace 'std' does not name a type"). The same flavour links
# too, so that the C++ runtime the objects were compiled against is the one linked.
mingw_flavour=posix
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER="x86_64-w64-mingw32-gcc-$mingw_flavour"
export CC_x86_64_pc_windows_gnu="x86_64-w64-mingw32-gcc-$mingw_flavour"
export CXX_x86_64_pc_windows_gnu="x86_64-w64-mingw32-g++-$mingw_flavour"
# bindgen (llama-cpp-sys-2's bindings) parses llama.cpp's headers with libclang for this target;
# clang does not recognise Debian's GCC folder name (`12-posix`) as a version, so it finds neither
# GCC's own headers (`stdbool.h`, "file not found") nor, through them, the C library's.
BINDGEN_EXTRA_CLANG_ARGS_x86_64_pc_windows_gnu="-isystem $("$CC_x86_64_pc_windows_gnu" -print-file-name=include)"
export BINDGEN_EXTRA_CLANG_ARGS_x86_64_pc_windows_gnu

# llama.cpp's ggml-cpu.c uses THREAD_POWER_THROTTLING_STATE, which mingw-w64 10 (Debian 12) does
# not declare; scripts/mingw/thread_power_throttling.h declares it as Windows' SDK does, and is
# force-included into this target's C files only when the compiler's own headers lack it (cc and
# CMake, through cmake-rs, both read CFLAGS_<target>).
if ! printf '#include <windows.h>\nTHREAD_POWER_THROTTLING_STATE state;\n' |
  "$CC_x86_64_pc_windows_gnu" -x c -fsyntax-only - 2>/dev/null; then
  mingw_shim="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/mingw/thread_power_throttling.h"
  export CFLAGS_x86_64_pc_windows_gnu="${CFLAGS_x86_64_pc_windows_gnu:+$CFLAGS_x86_64_pc_windows_gnu }-include $mingw_shim"
  unset mingw_shim
fi
unset mingw_flavour

# llama-cpp-sys-2 configures CMake only in a build folder that has never been configured
# (`always_configure(false)`), so a folder configured by an earlier attempt with other compilers
# or flags (mingw's default win32 one, which cannot build llama.cpp) keeps them and fails the same
# way however the variables above change. Such a folder, when its build never finished (no
# `libllama.a` installed beside it; a finished one links as it is, and its build script, which
# only reruns for a change of the C++ variables, would not make the folder again), is removed here
# so that CMake configures it afresh. Takes the cargo target folder.
forget_stale_llama_cmake_builds() {
  local cache build compiler
  compiler=$(command -v "$CC_x86_64_pc_windows_gnu")
  for cache in "$1"/x86_64-pc-windows-gnu/*/build/llama-cpp-sys-2-*/out/build/CMakeCache.txt \
    "$1"/worker-baseline/x86_64-pc-windows-gnu/*/build/llama-cpp-sys-2-*/out/build/CMakeCache.txt; do
    [ -f "$cache" ] || continue
    build=${cache%/CMakeCache.txt}
    [ -f "$build/../lib/libllama.a" ] && continue
    if ! grep -qxF "CMAKE_C_COMPILER:STRING=$compiler" "$cache" ||
      ! grep '^CMAKE_C_FLAGS:STRING=' "$cache" | grep -qF -- "${CFLAGS_x86_64_pc_windows_gnu:-}"; then
      echo "Configuring llama.cpp's CMake build again (an unfinished build with other compilers or flags): $build" >&2
      rm -rf "$build"
    fi
  done
}
