#!/usr/bin/env bash
# Builds the release binary statically linked (glibc's static libc, the static relocation model:
# no dynamic loader, no relocations at start) and prints its path on stdout.
#
#   scripts/build-static.sh [TRIPLE]          (default: the host, which must be *-linux-gnu)
#
# Why: ccmem is started for every hook call and every `ccmem context`; a dynamic binary spends a
# quarter of the Bash hook's no-op call and a sixth of `context` in the loader binding libc,
# libm and libgcc_s (scripts/bench/startup.sh measures both builds: CCMEM_BIN=...). This is how
# release binaries (the npm platform packages) should be built. It needs `--target`: stable cargo
# would apply `crt-static` to proc-macros too without it. ccmem uses no NSS lookups (no
# getpwnam, no DNS), so a static glibc binary behaves as the dynamic one.
set -euo pipefail
cd "$(dirname "$0")/.."
triple="${1:-$(rustc -vV | sed -n 's/^host: //p')}"
case "$triple" in
  *-linux-gnu) ;;
  *) echo "build-static: only for *-linux-gnu targets, not $triple" >&2; exit 2 ;;
esac
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static" \
  cargo build --release --locked --quiet --target "$triple" --bin ccmem --example bench_project
bin="${CARGO_TARGET_DIR:-target}/$triple/release/ccmem"
if readelf -d "$bin" 2>/dev/null | grep -q '(NEEDED)'; then
  echo "build-static: $bin still needs shared libraries" >&2
  exit 1
fi
echo "$bin"
