#!/usr/bin/env bash
# macOS, checked from Linux (docs/platforms.md): clippy with warnings denied over every crate
# (the local model worker aside, below) and target of the workspace for Apple silicon
# (aarch64-apple-darwin) and Intel Macs (x86_64-apple-darwin). Type-checks the macOS-only code
# (the keychain, the single-instance socket's macOS paths, `cfg(target_os = "macos")`); nothing
# is linked or run — that needs Apple's SDK, which only GitHub's macOS runners have.
#
#   bash scripts/check-macos.sh
#
# The C code some crates compile in their build scripts (ring, SQLite) is compiled by zig's
# clang (PyPI's `ziglang`), which carries macOS's C headers; Debian has no compiler for macOS.
set -euo pipefail
cd "$(dirname "$0")/.."

# Both Macs by default; MACOS_TARGETS (space-separated) narrows it, as scripts/test-cross.sh does
# in the test run.
read -r -a targets <<<"${MACOS_TARGETS:-aarch64-apple-darwin x86_64-apple-darwin}"
zig_version=0.17.1

export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
for target in "${targets[@]}"; do
  rustup target list --installed | grep -qx "$target" || rustup target add "$target"
done
if ! python3 -m ziglang version >/dev/null 2>&1; then
  python3 -m pip install --quiet "ziglang==$zig_version"
fi

# Small wrappers, since cc-rs wants one program for a compiler (zig's is a subcommand). cc-rs
# also passes clang's `--target=arm64-apple-macosx`, which zig reads as a zig target and refuses
# ("unknown architecture: 'arm64'"): the wrapper drops it, `-target` says the same in zig's words.
wrappers=$(mktemp -d)
trap 'rm -rf "$wrappers"' EXIT
for target in "${targets[@]}"; do
  arch=${target%%-*}
  cat >"$wrappers/cc-$arch" <<WRAPPER
#!/bin/sh
for argument do
  shift
  case "\$argument" in --target=*) ;; *) set -- "\$@" "\$argument" ;; esac
done
exec python3 -m ziglang cc -target $arch-macos "\$@"
WRAPPER
  chmod +x "$wrappers/cc-$arch"
  variable=${target//-/_}
  export "CC_$variable=$wrappers/cc-$arch"
  export "AR_$variable=$wrappers/ar"
done
printf '#!/bin/sh\nexec python3 -m ziglang ar "$@"\n' >"$wrappers/ar"
chmod +x "$wrappers/ar"

# The app embeds the built UI.
if [ ! -f ui/dist/index.html ]; then
  # shellcheck source=scripts/npm-packages.sh
  source scripts/npm-packages.sh
  install_npm_packages ui
  (cd ui && npm run --silent build)
fi

started=$SECONDS
target_flags=()
for target in "${targets[@]}"; do target_flags+=(--target "$target"); done
# One cargo run for both targets: the build scripts and proc macros are checked once.
# Not under scripts/test-all.sh's lint wrapper: `cargo clippy` is the check here.
# Without the local model worker: its build script compiles llama.cpp, which for macOS needs
# Apple's compiler and frameworks (Metal, Accelerate); no compiler here has them (zig carries
# macOS's C library headers only). The worker is built for macOS by the release workflow on
# GitHub's macOS runner (docs/platforms.md).
env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS \
  cargo clippy --workspace --exclude dossier-local-model-worker --all-targets --locked \
  "${target_flags[@]}" -- -D warnings
echo "macOS check (clippy, warnings denied, ${targets[*]}; every crate but the local model worker): passed in $((SECONDS - started)) s"
