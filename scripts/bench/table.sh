#!/usr/bin/env bash
# The benchmark table of docs/benchmarks.md, reproduced: one hyperfine run per group, every row
# of a group measured side by side (the machines are shared and noisy: ratios measured together
# mean more than the absolute times).
#
#   1. Libraries of the sizes users have: a 50-file one (gen_library.py) and the 256-file S
#      (gen_corpus.py): `audit --json`, `audit` (the human view), `tier` (its dry run) and
#      `budget`, beside reading every file once (readall.c) and `ccmem --version` (a process
#      that does nothing: the floor).
#   2. The hooks and the session commands on an ordinary project (hook_project.sh: 41
#      instruction files, a 190-line MEMORY.md): `hook session-start`, `hook post-tool-use`
#      after a Write of MEMORY.md, an Edit of a topic file and a Bash read, `receipt`, `context`.
#   3. The guard against quadratic behaviour: `audit --json` on the 20,000-file L library over
#      reading it once, which must stay at most GUARD (default 2.5). Exit 1 when it does not.
#      (tests/scaling.rs holds the same bound in `cargo test --release`.)
#
#   scripts/bench/table.sh [RUNS]        (default 30; needs hyperfine, cc, python3)
#   BIN=path/to/ccmem scripts/bench/table.sh      (default: target/release/ccmem, built)
#   SKIP_L=1 scripts/bench/table.sh               (groups 1 and 2 only)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-30}"
guard="${GUARD:-2.5}"
. scripts/bench/corpus.sh
. scripts/bench/hook_project.sh
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet --bin ccmem
  BIN=target/release/ccmem
fi
bin="$(realpath "$BIN")"
mkdir -p target/bench
cc -O2 -o target/bench/readall scripts/bench/readall.c
readall="$PWD/target/bench/readall"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CCMEM_NOW=2026-12-01T00:00:00Z NO_COLOR=1

# Prints the rows of hyperfine's JSON FILE as Markdown, each with its ratio to row BASE.
rows() {
  python3 - "$1" "$2" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
base = next(r["median"] for r in res if r["command"] == sys.argv[2])
for r in res:
    print(f"| {r['command']} | {r['median']*1e3:.2f} | {r['min']*1e3:.2f} | {r['median']/base:.2f}× |")
PY
}

echo "ccmem $("$bin" --version | head -n 1), $(nproc) cores, $(date -u +%Y-%m-%d)"
echo
echo "| command | median ms | min ms | ÷ first row of its group |"
echo "|---|---:|---:|---:|"
for c in 50 S; do
  dir=$(corpus "$c")
  n=$(find "$dir" -maxdepth 1 -name '*.md' | wc -l)
  # audit and tier exit 1 on findings (the libraries have planted ones): -i.
  hyperfine -N -i --warmup 5 --runs "$runs" --style none --export-json "$work/lib$c.json" \
    -n "readall ($n files)" "$readall $dir" \
    -n "ccmem --version" "$bin --version" \
    -n "audit --json ($n files)" "$bin audit $dir --json" \
    -n "audit ($n files)" "$bin audit $dir" \
    -n "tier, dry run ($n files)" "$bin tier $dir" \
    -n "budget ($n files)" "$bin budget $dir" >/dev/null
  rows "$work/lib$c.json" "readall ($n files)"
done

hook_project "$work/hooks"
(
  cd "$PROJECT"
  hyperfine -N -i --warmup 20 --runs "$((runs * 4))" --style none --export-json "$work/hooks.json" \
    -n "ccmem --version (the floor)" "$bin --version" \
    -n "hook session-start" "$bin hook session-start --input $work/hooks/start.json" \
    -n "hook post-tool-use (Write MEMORY.md)" "$bin hook post-tool-use --input $work/hooks/write.json" \
    -n "hook post-tool-use (Edit topic)" "$bin hook post-tool-use --input $work/hooks/edit.json" \
    -n "hook post-tool-use (Bash read)" "$bin hook post-tool-use --input $work/hooks/bash.json" \
    -n "receipt" "$bin receipt" \
    -n "context" "$bin context" >/dev/null
)
rows "$work/hooks.json" "ccmem --version (the floor)"

[ -n "${SKIP_L:-}" ] && exit 0
dir=$(corpus L)
hyperfine -N -i --warmup 2 --runs "$(( runs / 3 + 1 ))" --style none --export-json "$work/L.json" \
  -n "readall (20,000 files)" "$readall $dir" \
  -n "audit --json (20,000 files)" "$bin audit $dir --json" >/dev/null
rows "$work/L.json" "readall (20,000 files)"
python3 - "$work/L.json" "$guard" <<'PY'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
ratio = r["audit --json (20,000 files)"] / r["readall (20,000 files)"]
bound = float(sys.argv[2])
print(f"\nguard: audit of L / reading it once = {ratio:.2f} (bound {bound})")
sys.exit(0 if ratio <= bound else 1)
PY
