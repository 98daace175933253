# Sourced by the scripts/bench/*.sh comparisons: `corpus NAME` prints the folder of generated
# library NAME (S, M, L), generating it into target/bench-corpus/ first with
# ../shared/bench/gen_corpus.py (or $CCMEM_GEN_CORPUS) when it is not there yet.
corpus() {
  local out=target/bench-corpus gen="${CCMEM_GEN_CORPUS:-}" candidate
  for candidate in "$gen" ../shared/bench/gen_corpus.py ../../shared/bench/gen_corpus.py; do
    if [ -n "$candidate" ] && [ -f "$candidate" ]; then gen="$candidate"; break; fi
  done
  if [ ! -f "$out/$1/memory/MEMORY.md" ]; then
    [ -f "$gen" ] || { echo "gen_corpus.py not found (set CCMEM_GEN_CORPUS)" >&2; return 2; }
    python3 "$gen" --out "$out" --only "$1" >/dev/null
  fi
  echo "$out/$1/memory"
}
