#!/usr/bin/env bash
# Whole-process comparison of `ccmem audit` against reading every byte of the library once
# (scripts/bench/readall.c: the same walk, every file opened and read, nothing parsed), side by
# side in one hyperfine run, and, when AUDIT_SH points at it, the bash audit script of the
# claude-memory-manager skill (not shipped here; its code is not part of this repository).
# Libraries are generated into target/bench-corpus/ by ../shared/bench/gen_corpus.py (or
# $CCMEM_GEN_CORPUS). Issue 10's contract: on L (20,000 files) audit/readall <= 2.
#
#   scripts/bench/audit.sh [S M L]        # default: L
#   RUNS=20 BIN=target/release/ccmem scripts/bench/audit.sh L
#   AUDIT_SH=/path/to/audit-memory.sh AUDIT_SH_ON="S M" scripts/bench/audit.sh S M
#
# Uses hyperfine (apt-get install hyperfine) and cc. Caches are warmed first; both commands run
# without a shell (-N) on the same warm page cache, interleaved by hyperfine's warm-up, so the
# ratio is comparable even on a busy machine (the absolute times are not).
set -euo pipefail
cd "$(dirname "$0")/../.."
corpora=("${@:-L}")
read -r -a corpora <<< "${corpora[*]}"
. scripts/bench/corpus.sh
out=target/bench-corpus
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=target/release/ccmem
fi
mkdir -p "$out/results" target/bench
cc -O2 -o target/bench/readall scripts/bench/readall.c
for c in "${corpora[@]}"; do
  dir=$(corpus "$c")
  echo "== $c: $(target/bench/readall "$dir")"
  # audit exits 1 on findings (the generated libraries have planted ones): -i.
  hyperfine -N -i --warmup 3 --runs "${RUNS:-10}" --style basic \
    --export-json "$out/results/$c.json" \
    -n readall "target/bench/readall $dir" \
    -n "ccmem audit" "$BIN audit $dir --json"
  python3 - "$out/results/$c.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
read, audit = r["readall"]["median"], r["ccmem audit"]["median"]
print(f"ratio audit/readall = {audit / read:.2f} (median {audit*1000:.0f} ms vs {read*1000:.0f} ms)")
PY
  if [ -n "${AUDIT_SH:-}" ] && [[ " ${AUDIT_SH_ON:-S} " == *" $c "* ]]; then
    hyperfine -i --warmup 1 --runs "${RUNS:-5}" --shell bash --style basic \
      -n "ccmem audit" "$BIN audit $dir --json > /dev/null" \
      -n "bash audit script" "CLAUDE_MEMORY_DIR=$dir bash $AUDIT_SH > /dev/null"
  fi
done
