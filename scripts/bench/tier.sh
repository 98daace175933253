#!/usr/bin/env bash
# Whole-process comparison of `ccmem tier` (the dry run: read the library, plan, prove the plan,
# print it) against reading every byte of the library once (scripts/bench/readall.c), side by
# side in one hyperfine run per library. The issue's bound: tier at most 1.5x the read.
# Libraries are generated into target/bench-corpus/ by ../shared/bench/gen_corpus.py (or
# $CCMEM_GEN_CORPUS): S (256 files, within the target: nothing to do), M (2,000 files, over the
# target) and L (20,000 files, MEMORY.md past the client's cap: tier must build hubs).
#
#   scripts/bench/tier.sh [S M L]        # default: S M L; RUNS=N (default 10)
#
# Uses hyperfine (apt-get install hyperfine) and a C compiler. Caches are warmed first; both
# commands run on the same warm page cache, alternating within one run, so the ratio holds on
# a busy machine even when the absolute times do not. The in-process split (reading the
# library vs planning and proving) is `cargo bench --bench tier`.
set -euo pipefail
cd "$(dirname "$0")/../.."
corpora=("${@:-S M L}")
read -r -a corpora <<< "${corpora[*]}"
. scripts/bench/corpus.sh
out=target/bench-corpus
cargo build --release --quiet
bin=target/release/ccmem
mkdir -p target/bench "$out/results"
readall=target/bench/readall
if [ ! -x "$readall" ] || [ scripts/bench/readall.c -nt "$readall" ]; then
  "${CC:-cc}" -O2 -o "$readall" scripts/bench/readall.c
fi
for c in "${corpora[@]}"; do
  dir=$(corpus "$c")
  n=$(find "$dir" -name '*.md' | wc -l)
  "$readall" "$dir" > /dev/null   # warm the page cache
  # Only what tier itself does: no HOME (no ~/ link is looked up), no colour.
  export HOME=/nonexistent NO_COLOR=1
  echo "== $c: $n files ($(wc -l < "$dir/MEMORY.md") lines in MEMORY.md)"
  hyperfine -N --warmup 2 --runs "${RUNS:-10}" --style basic \
    --export-json "$out/results/tier-$c.json" \
    -n "read every byte" "$readall $dir" \
    -n "ccmem tier" "$bin tier $dir"
  python3 - "$out/results/tier-$c.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
read, tier = r["read every byte"], r["ccmem tier"]
cpu = lambda x: x["user"] + x["system"]
print(f"ratio tier/read = {tier['median'] / read['median']:.2f} (median {tier['median']*1000:.0f} ms"
      f" vs {read['median']*1000:.0f} ms; CPU {cpu(tier)*1000:.0f} ms vs {cpu(read)*1000:.0f} ms)")
PY
done
