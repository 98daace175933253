#!/usr/bin/env bash
# Whole-process comparison of `ccmem audit` against reading every byte once (`cat` of all
# files) and, when AUDIT_SH points at it, the bash audit script of the claude-memory-manager
# skill (not shipped here; its code is not part of this repository). Libraries are generated
# into target/bench-corpus/ by ../shared/bench/gen_corpus.py (or $CCMEM_GEN_CORPUS).
#
#   scripts/bench/audit.sh [S M L]        # default: S M L
#   AUDIT_SH=/path/to/audit-memory.sh AUDIT_SH_ON="S M" scripts/bench/audit.sh
#
# Uses hyperfine (apt-get install hyperfine). Caches are warmed first; every command runs on
# the same warm page cache, side by side, so the ratios are comparable even on a busy machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
corpora=("${@:-S M L}")
read -r -a corpora <<< "${corpora[*]}"
gen="${CCMEM_GEN_CORPUS:-}"
for candidate in "$gen" ../shared/bench/gen_corpus.py ../../shared/bench/gen_corpus.py; do
  if [ -n "$candidate" ] && [ -f "$candidate" ]; then gen="$candidate"; break; fi
done
out=target/bench-corpus
cargo build --release --quiet
bin=target/release/ccmem
mkdir -p "$out/results"
for c in "${corpora[@]}"; do
  dir="$out/$c/memory"
  if [ ! -f "$dir/MEMORY.md" ]; then
    [ -f "$gen" ] || { echo "gen_corpus.py not found (set CCMEM_GEN_CORPUS)" >&2; exit 2; }
    python3 "$gen" --out "$out" --only "$c" >/dev/null
  fi
  n=$(find "$dir" -name '*.md' | wc -l)
  cat "$dir"/*.md > /dev/null   # warm the page cache
  cmds=(-n "cat all files" "cat $dir/*.md > /dev/null"
        -n "ccmem audit" "$bin audit $dir --json > /dev/null || true")
  if [ -n "${AUDIT_SH:-}" ] && [[ " ${AUDIT_SH_ON:-S} " == *" $c "* ]]; then
    cmds+=(-n "bash audit script" "CLAUDE_MEMORY_DIR=$dir bash $AUDIT_SH > /dev/null || true")
  fi
  echo "== $c: $n files"
  hyperfine --warmup 1 --runs "${RUNS:-5}" --shell bash --style basic \
    --export-json "$out/results/$c.json" "${cmds[@]}"
  python3 - "$out/results/$c.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
cat, audit = r["cat all files"]["median"], r["ccmem audit"]["median"]
print(f"ratio audit/cat = {audit / cat:.2f} (median {audit*1000:.0f} ms vs {cat*1000:.0f} ms)")
if "bash audit script" in r:
    sh = r["bash audit script"]["median"]
    print(f"ratio bash-script/audit = {sh / audit:.0f}x (median {sh:.2f} s)")
PY
done
