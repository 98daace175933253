#!/usr/bin/env bash
# Runs the library's unit tests built for Windows (x86_64-pc-windows-gnu) under wine, and prints
# the test harness's own summary. Extra arguments go to the test binary (a filter, --skip X).
#
#   scripts/wine-test.sh [FILTER...]
#
# Needs: `rustup target add x86_64-pc-windows-gnu`, mingw-w64 (`gcc-mingw-w64-x86-64`, the
# linker) and wine (Debian's `wine64`: it installs /usr/lib/wine/wine64, not `wine` on PATH).
# Prints a NOTE and exits 0 when one is missing and cannot be installed with apt, as .ci/run does
# for its other optional tools.
#
# Two things wine 8 (Debian 12) lacks, handled here:
# - `bcryptprimitives.dll`: Rust's std asks it for `ProcessPrng` (its random source on Windows
#   since 1.78) and wine 8 has no such DLL, so no Rust program starts ("Library
#   bcryptprimitives.dll ... not found"). A one-function stand-in built with mingw, which fills
#   the buffer from `RtlGenRandom` (advapi32, which wine has), is put into the prefix's system32.
# - symbolic links: CreateSymbolicLinkW succeeds and makes nothing, so the tests that need links
#   are Unix-only (each says so); that is wine's limit, not Windows'.
#
# The prefix lives under the target folder (CARGO_TARGET_DIR, else target/cross), so removing
# that folder removes everything this made.
set -euo pipefail
cd "$(dirname "$0")/.."
target=x86_64-pc-windows-gnu
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target/cross}"

note() { echo "NOTE: $1: the Windows unit tests are not run" >&2; exit 0; }
need_apt() {
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"; } \
    >/dev/null 2>&1
}
rustup target add "$target" >/dev/null 2>&1 || note "rustup could not add $target"
command -v x86_64-w64-mingw32-gcc >/dev/null || need_apt gcc-mingw-w64-x86-64 \
  || note "gcc-mingw-w64-x86-64 could not be installed"
wine=""
for w in wine64 /usr/lib/wine/wine64 wine; do
  if command -v "$w" >/dev/null; then wine="$(command -v "$w")"; break; fi
done
if [ -z "$wine" ]; then
  need_apt wine64 || note "wine64 could not be installed"
  wine=/usr/lib/wine/wine64
  [ -x "$wine" ] || note "wine64 installed no $wine"
fi

export WINEPREFIX="$PWD/$CARGO_TARGET_DIR/wine" WINEDEBUG=-all
# Lets the registry test write its throwaway key (src/sys/mod.rs): only in this prefix.
export CCMEM_WINE_TEST=1
mkdir -p "$WINEPREFIX"
# Fills the prefix on first use (about 15 s); its rundll32 complaint on a 64-bit-only wine is
# harmless.
"$wine" cmd /c exit >/dev/null 2>&1 || true
sys32="$WINEPREFIX/drive_c/windows/system32"
if [ ! -f "$sys32/bcryptprimitives.dll" ]; then
  stub="$(mktemp -d)"
  cat >"$stub/bp.c" <<'EOF'
#include <windows.h>
#include <ntsecapi.h>
/* ProcessPrng as bcryptprimitives.dll exports it: fills `data` with random bytes, never fails. */
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!RtlGenRandom(data, n)) return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
EOF
  printf 'LIBRARY bcryptprimitives\nEXPORTS\nProcessPrng\n' >"$stub/bp.def"
  x86_64-w64-mingw32-gcc -shared -O2 -o "$sys32/bcryptprimitives.dll" "$stub/bp.c" "$stub/bp.def" -ladvapi32
  rm -rf "$stub"
fi

# Built first, so the run's time is the tests' own. The harness prints each failure and the
# summary line; the exit status is the tests'.
exe="$(cargo test --locked --target "$target" --lib --no-run --message-format json 2>/dev/null \
  | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)"
[ -n "$exe" ] || { echo "wine-test: the test binary was not built" >&2; exit 1; }
exec "$wine" "$exe" --test-threads 2 "$@"
