#!/usr/bin/env bash
# The live conformance run: the pinned real client and ccmem's loader on every case, in the same
# run, byte for byte. Fails loudly when the client cannot be installed (never a silent pass).
#
#   scripts/live-conformance.sh [CASES_DIR]     (default: tests/oracle/cases)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! bin="$(scripts/install-client.sh)"; then
  echo "live-conformance: FAILED: the pinned Claude Code client could not be installed (see above);" >&2
  echo "live-conformance: the live conformance run did NOT run." >&2
  exit 1
fi
echo "live-conformance: client $bin ($("$bin" --version))"
cargo build --quiet
# These tests are #[ignore]d in a plain `cargo test` (they need the client): run them for real.
CCMEM_CLAUDE_BIN="$bin" cargo test --quiet --test verify_live --test hook_e2e --test sessions_live -- --include-ignored
if [ $# -gt 0 ]; then
  target/debug/ccmem verify --claude "$bin" --replay "$1"
else
  status=0
  for cases in tests/oracle/cases tests/oracle/cases-captured tests/oracle/check-cases; do
    [ -d "$cases" ] || continue
    echo "live-conformance: $cases"
    target/debug/ccmem verify --claude "$bin" --replay "$cases" || status=1
  done
  exit $status
fi
