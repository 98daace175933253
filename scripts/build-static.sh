#!/usr/bin/env bash
# Builds the release binary for one platform, or for every platform of the npm packages, and
# prints where each went; a platform that cannot be built here is named with the reason.
#
#   scripts/build-static.sh [TRIPLE]   one target (default: the host, *-linux-gnu): prints the path
#   scripts/build-static.sh --all      every npm platform: prints "built P PATH" or "not built P: why"
#
# Linux (x86_64 and aarch64 glibc): statically linked (glibc's static libc, the static relocation
# model: no dynamic loader, no relocations at start). Why: ccmem is started for every hook call
# and every `ccmem context`; a dynamic binary spends a quarter of the Bash hook's no-op call and a
# sixth of `context` in the loader binding libc, libm and libgcc_s (scripts/bench/startup.sh
# measures both builds: CCMEM_BIN=...). It needs `--target`: stable cargo would apply
# `crt-static` to proc-macros too without it. ccmem uses no NSS lookups (no getpwnam, no DNS),
# so a static glibc binary behaves as the dynamic one. aarch64 is cross-linked with Debian's
# `gcc-aarch64-linux-gnu` and `libc6-dev-arm64-cross` (its libc.a).
#
# Windows (x86_64-pc-windows-gnu): cross-linked with mingw-w64 (`gcc-mingw-w64-x86-64`); the
# binary needs only DLLs every Windows has (checked below). Not run here (scripts/wine-test.sh
# runs the unit tests under wine).
#
# macOS: not buildable here (no Apple linker or SDK on Linux); build on a Mac with
# `cargo build --release` and pack with `scripts/npm-build.mjs --binary ... --platform darwin-*`.
#
# Every build is the release profile (fat LTO, one codegen unit) that ships, so a build takes
# minutes per target; CCMEM_PROFILE=NAME builds another profile of Cargo.toml and says so.
# For a quicker check that every target builds, cargo's own overrides work on the release
# profile: CARGO_PROFILE_RELEASE_LTO=thin CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 (thin LTO,
# faster to build, a little slower to start; Cargo.toml defines no such profile of its own).
set -euo pipefail
cd "$(dirname "$0")/.."
profile="${CCMEM_PROFILE:-release}"
out_dir() { echo "${CARGO_TARGET_DIR:-target}/$1/$profile"; }

# One target: builds it and prints the binary's path (stdout), or fails with the reason.
build() {
  local triple="$1" flags="" bin
  case "$triple" in
    x86_64-unknown-linux-gnu | aarch64-unknown-linux-gnu)
      flags="-C target-feature=+crt-static -C relocation-model=static"
      if [ "$triple" = aarch64-unknown-linux-gnu ] && [ "$(uname -m)" != aarch64 ]; then
        command -v aarch64-linux-gnu-gcc >/dev/null || {
          echo "build-static: $triple needs aarch64-linux-gnu-gcc (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)" >&2
          return 2
        }
        export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
      fi
      bin="$(out_dir "$triple")/ccmem"
      ;;
    x86_64-pc-windows-gnu)
      command -v x86_64-w64-mingw32-gcc >/dev/null || {
        echo "build-static: $triple needs mingw-w64 (apt-get install gcc-mingw-w64-x86-64)" >&2
        return 2
      }
      bin="$(out_dir "$triple")/ccmem.exe"
      ;;
    *-apple-darwin)
      echo "build-static: $triple needs Apple's linker and SDK, which this machine does not have: build it on a Mac" >&2
      return 2
      ;;
    *)
      echo "build-static: no release build for $triple" >&2
      return 2
      ;;
  esac
  rustup target add "$triple" >/dev/null 2>&1 || true
  # The host's build also holds the example scripts/bench/startup.sh measures it with.
  local extra=()
  [ "$triple" != "$(rustc -vV | sed -n 's/^host: //p')" ] || extra=(--example bench_project)
  RUSTFLAGS="${RUSTFLAGS:-} $flags" \
    cargo build --profile "$profile" --locked --quiet --target "$triple" --bin ccmem "${extra[@]}"
  case "$triple" in
    *-linux-gnu)
      if readelf -d "$bin" 2>/dev/null | grep -q '(NEEDED)'; then
        echo "build-static: $bin still needs shared libraries" >&2
        return 1
      fi
      ;;
    *-windows-gnu)
      # Only the DLLs of Windows itself (no libgcc_s, libwinpthread or libstdc++ of mingw).
      local dlls
      dlls="$(x86_64-w64-mingw32-objdump -p "$bin" | sed -n 's/^\tDLL Name: //p' | tr 'A-Z' 'a-z' | sort -u)"
      if grep -Eq 'libgcc|winpthread|libstdc' <<<"$dlls"; then
        echo "build-static: $bin needs mingw's DLLs: $(tr '\n' ' ' <<<"$dlls")" >&2
        return 1
      fi
      ;;
  esac
  echo "$bin"
}

if [ "${1:-}" != --all ]; then
  build "${1:-$(rustc -vV | sed -n 's/^host: //p')}"
  exit
fi

# Every platform of npm/ccmem's optionalDependencies, by its target.
status=0
for pair in linux-x64:x86_64-unknown-linux-gnu linux-arm64:aarch64-unknown-linux-gnu \
  win32-x64:x86_64-pc-windows-gnu darwin-x64:x86_64-apple-darwin darwin-arm64:aarch64-apple-darwin; do
  platform="${pair%%:*}" triple="${pair#*:}"
  start=$(date +%s)
  if why="$(build "$triple" 2>&1 >/tmp/ccmem-build-static.$$)"; then
    bin="$(cat /tmp/ccmem-build-static.$$)"
    echo "built $platform $bin ($(du -k "$bin" | cut -f1) KiB, $(($(date +%s) - start)) s, profile $profile)"
  else
    code=$?
    echo "not built $platform: ${why##*build-static: }"
    # A toolchain missing here (2) is expected; a failed build is not.
    [ "$code" = 2 ] || status=1
  fi
done
rm -f /tmp/ccmem-build-static.$$
exit "$status"
