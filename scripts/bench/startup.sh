#!/usr/bin/env bash
# The start-up path and the Bash hook, whole processes side by side in ONE hyperfine run (the
# machines are shared and noisy: only ratios measured together mean anything):
#
#   true                                   starting a process and nothing else
#   cat FILES                              reading the files `ccmem context` loads
#   ccmem context                          the full simulated client (41 files, 10 levels)
#   ccmem context --reading sub/f.txt      ... plus what a Read of sub/f.txt attaches
#   ccmem hook post-tool-use  (no read)    the Bash hook on `cargo build --release`
#   ccmem hook post-tool-use  (a read)     the Bash hook on `cat sub/f.txt | head -n 5`
#
# Targets (issue 11): context <= 1.5x cat; hook on a non-read ~ true; hook on a read <= 2x
# context --reading. The hook reads its input with --input FILE (hyperfine -N has no stdin
# redirection); the fast path handles both forms alike.
#
#   scripts/bench/startup.sh [RUNS]        (default 300; needs hyperfine: apt-get install hyperfine)
# CCMEM_BIN=DIR/ccmem skips the build and measures that binary (with DIR/examples/bench_project),
# e.g. the static release build: CCMEM_BIN=$(scripts/build-static.sh) scripts/bench/startup.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-300}"
if [ -z "${CCMEM_BIN:-}" ]; then
  cargo build --release -q --bin ccmem --example bench_project
  bin="$PWD/target/release/ccmem"
else
  bin="$(realpath "$CCMEM_BIN")"
fi
project="$(dirname "$bin")/examples/bench_project"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
IFS=$'\t' read -r cwd home < <("$project" "$dir")
export HOME="$home"
mkdir -p "$cwd/sub"
printf 'Nested guidance for sub/.\n' > "$cwd/sub/CLAUDE.md"
seq 1 40 | sed 's/^/line /' > "$cwd/sub/f.txt"
: > "$dir/transcript.jsonl"
hook_input() { # COMMAND STDOUT -> JSON on stdout
  python3 - "$cwd" "$dir/transcript.jsonl" "$1" "$2" <<'PY'
import json, sys
cwd, transcript, command, stdout = sys.argv[1:]
print(json.dumps({"session_id": "bench", "transcript_path": transcript, "cwd": cwd,
                  "hook_event_name": "PostToolUse", "tool_name": "Bash",
                  "tool_input": {"command": command, "description": "bench"},
                  "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False}}))
PY
}
hook_input "cargo build --release" "$(printf '   Compiling ccmem v0.1.0\n    Finished release\n')" > "$dir/nonread.json"
hook_input "cat sub/f.txt | head -n 5" "$(head -n 5 "$cwd/sub/f.txt")" > "$dir/read.json"
cd "$cwd"
files=$("$bin" receipt --json | python3 -c 'import json,sys; print(" ".join(l["path"] for l in json.load(sys.stdin)["loaded"]))')
echo "loaded files: $(echo "$files" | wc -w); binary: $bin"
# The hook on a read must attach the nested CLAUDE.md, or the comparison means nothing.
"$bin" hook post-tool-use --input "$dir/read.json" | grep -q 'sub/CLAUDE.md' \
  || { echo "startup.sh: the hook attached nothing for the read: not a valid benchmark" >&2; exit 1; }
hyperfine -N --warmup 30 --runs "$runs" --export-json "$dir/h.json" \
  -n true "true" \
  -n cat "cat $files" \
  -n context "$bin context" \
  -n context-reading "$bin context --reading sub/f.txt" \
  -n hook-nonread "$bin hook post-tool-use --input $dir/nonread.json" \
  -n hook-read "$bin hook post-tool-use --input $dir/read.json" >&2
python3 - "$dir/h.json" <<'PY'
import json, statistics, sys
r = {x["command"]: x["times"] for x in json.load(open(sys.argv[1]))["results"]}
med = {k: statistics.median(v) for k, v in r.items()}
for k, v in med.items():
    print(f"{k:16s} median {v * 1e3:6.3f} ms   min {min(r[k]) * 1e3:6.3f} ms")
print(f"context / cat                 = {med['context'] / med['cat']:.2f}x   (target <= 1.5)")
print(f"hook (no read) / true         = {med['hook-nonread'] / med['true']:.2f}x")
print(f"hook (read) / context --reading = {med['hook-read'] / med['context-reading']:.2f}x   (target <= 2)")
PY
