# Sourced by the scripts/bench/*.sh comparisons: `corpus NAME` prints the folder of generated
# library NAME, generating it into target/bench-corpus/ first when it is not there yet: S, M
# and L (256, 2,000 and 20,000 files) with ../shared/bench/gen_corpus.py (or
# $CCMEM_GEN_CORPUS), a number N (a library of N files in S's shape) with gen_library.py.
corpus() {
  local out=target/bench-corpus gen="${CCMEM_GEN_CORPUS:-}" candidate
  for candidate in "$gen" ../shared/bench/gen_corpus.py ../../shared/bench/gen_corpus.py; do
    if [ -n "$candidate" ] && [ -f "$candidate" ]; then gen="$candidate"; break; fi
  done
  if [ ! -f "$out/$1/memory/MEMORY.md" ]; then
    [ -f "$gen" ] || { echo "gen_corpus.py not found (set CCMEM_GEN_CORPUS)" >&2; return 2; }
    if [[ "$1" =~ ^[0-9]+$ ]]; then
      python3 scripts/bench/gen_library.py --gen "$gen" --files "$1" --out "$out/$1" || return 2
    else
      python3 "$gen" --out "$out" --only "$1" >/dev/null || return 2
    fi
  fi
  echo "$out/$1/memory"
}
