#!/usr/bin/env bash
# Whole-process comparison for the loader, side by side in one hyperfine run:
#   ccmem context            (the full simulated client)
#   cat of the loaded files  (reading the same bytes, nothing else)
#   python3 measure_memory.py MEMORY.md  (a Python script that only measures the index)
# Usage: scripts/bench/loader.sh   (needs hyperfine: apt-get install hyperfine)
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -q --bin ccmem --example bench_project
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
IFS=$'\t' read -r cwd home < <(target/release/examples/bench_project "$dir")
bin="$PWD/target/release/ccmem"
export HOME="$home"
files=$(cd "$cwd" && "$bin" receipt --json | python3 -c 'import json,sys; print(" ".join(l["path"] for l in json.load(sys.stdin)["loaded"]))')
index=$(echo "$files" | tr ' ' '\n' | grep 'MEMORY.md$' || true)
echo "loaded files: $(echo "$files" | wc -w); MEMORY.md: ${index:-none}"
cd "$cwd"
hyperfine -N --warmup 20 --runs 300 --export-json "$dir/h.json" \
  "$bin context" \
  "cat $files" \
  "python3 $OLDPWD/scripts/bench/measure_memory.py ${index:-/dev/null}" >&2
python3 - "$dir/h.json" <<'PY'
import json, sys
r = {x["command"].split()[0].rsplit("/", 1)[-1]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
c = r["ccmem"]
print(f"ccmem context: {c*1e3:.2f} ms | cat: {r['cat']*1e3:.2f} ms | python: {r['python3']*1e3:.2f} ms")
print(f"ccmem / cat = {c/r['cat']:.2f}x ; python / ccmem = {r['python3']/c:.1f}x")
PY
