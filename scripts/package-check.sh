#!/usr/bin/env bash
# The crate as users get it from crates.io: `cargo package` builds it, `cargo publish --dry-run`
# accepts it, then the packaged sources are unpacked into a fresh folder and their own tests run there.
# Tests that need the repository's conformance cases, fuzz corpora or plugin are left out of the
# package by Cargo.toml's `include` (cargo names each one it drops, below); the live-client
# tests stay and show as ignored.
#
#   scripts/package-check.sh          (CARGO_TARGET_DIR for the unpacked crate: target/package-test)
set -euo pipefail
cd "$(dirname "$0")/.."
# A guard against fixtures or corpora slipping into the package (the oracle cases and curated
# libraries are megabytes), not a size target: the crate carries the tests it runs and their
# snapshots, about 1.04 MB compressed on 2026-12-07 (the receipt's traps and policy lines, the
# tier policy's views), and crates.io takes up to 10 MB.
max_bytes=$((3 * 1024 * 1024 / 2))

echo "package-check: cargo package --locked (builds the packaged sources), then publish --dry-run"
cargo package --locked --allow-dirty
cargo publish --dry-run --locked --allow-dirty --no-verify
version="$(cargo metadata --no-deps --format-version 1 --locked |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["packages"][0]["version"])')"
crate="target/package/ccmem-$version.crate"
size="$(stat -c %s "$crate")"
echo "package-check: $crate is $size bytes ($(tar -tzf "$crate" | wc -l) files)"
if [ "$size" -gt "$max_bytes" ]; then
  echo "package-check: FAILED: the crate is over $max_bytes bytes; check Cargo.toml's include" >&2
  exit 1
fi
if tar -tzf "$crate" | grep -n '["\\]'; then
  echo "package-check: FAILED: a packaged file name holds a quote or backslash" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# --touch: the archive's mtimes are all 2006, which a warm target folder would take as fresh.
tar --touch -xzf "$crate" -C "$work"
echo "package-check: cargo test --locked in the unpacked crate ($work/ccmem-$version)"
target="${CARGO_TARGET_DIR:-$PWD/target/package-test}"
(cd "$work/ccmem-$version" && CARGO_TARGET_DIR="$target" cargo test --locked)
