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
#   COLD=1 RUNS=10 scripts/bench/audit.sh L   # each run after a pause, as people and CI run it
#
# Uses hyperfine (apt-get install hyperfine) and cc. Caches are warmed first; both commands run
# without a shell (-N) on the same warm page cache, interleaved by hyperfine's warm-up, so the
# ratio is comparable even on a busy machine (the absolute times are not).
#
# With COLD=1, each run comes after a pause of PAUSE seconds (default 2.5), the two commands
# alternating: what a user or CI sees when the audit runs once. On a virtual machine whose
# balloon hands freed memory back to its host, hyperfine's back-to-back loop reuses pages a
# run after a pause must fault in again, and the two can rank a change differently (issue 10's
# huge pages were faster back to back and ~30% slower after a pause).
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
  if [ -n "${COLD:-}" ]; then
    python3 - "${RUNS:-10}" "${PAUSE:-2.5}" "$dir" "$BIN" <<'PY'
import statistics, subprocess, sys, time
runs, pause, lib, bin_ = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
cmds = {"readall": ["target/bench/readall", lib], "ccmem audit": [bin_, "audit", lib, "--json"]}
took = {name: [] for name in cmds}
for _ in range(runs):
    for name, cmd in cmds.items():
        time.sleep(pause)
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False)
        took[name].append(time.perf_counter() - start)
for name, t in took.items():
    print(f"{name}: median {statistics.median(t)*1000:.0f} ms (min {min(t)*1000:.0f}, max {max(t)*1000:.0f}) of {runs} runs after a {pause} s pause")
read, audit = statistics.median(took["readall"]), statistics.median(took["ccmem audit"])
print(f"ratio audit/readall = {audit / read:.2f} (cold: median {audit*1000:.0f} ms vs {read*1000:.0f} ms)")
PY
    continue
  fi
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
