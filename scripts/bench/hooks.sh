#!/usr/bin/env bash
# The hooks the client runs in every session, two binaries side by side in ONE hyperfine run (the
# machines are shared and noisy: only ratios measured together mean anything), on the loader
# benchmark's ordinary project (41 instruction files, rules, imports, a 190-line MEMORY.md):
#
#   hook session-start                  the receipt at every session start
#   hook session-start --recover        ... with the dark entries for the model (none here)
#   hook post-tool-use  (Write)         after a write to MEMORY.md (measured, near the cap)
#   hook post-tool-use  (Edit, topic)   after an edit of a topic file
#   hook post-tool-use  (Bash, a read)  after `cat sub/f.txt | head -n 5`
#
#   BASE=/path/to/main/ccmem scripts/bench/hooks.sh [RUNS]      (default 200)
#   TRANSCRIPT=FILE ...  the session's transcript is FILE (default: empty); the Bash and
#                        compaction hooks read it, so a long session's (hundreds of MB; made
#                        by gen_transcripts.py) is what they cost late in a day's work
# BIN defaults to target/release/ccmem (built when missing). The project: hook_project.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-200}"
bin="$(realpath "${BIN:-target/release/ccmem}")"
base="$(realpath "${BASE:?set BASE to the binary to compare with}")"
[ -x "$bin" ] || cargo build --release -q --bin ccmem
. scripts/bench/hook_project.sh
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
hook_project "$dir"
if [ -n "${TRANSCRIPT:-}" ]; then
  # A hard link where it can (the hooks open the transcript without following links).
  ln -f "$TRANSCRIPT" "$dir/transcript.jsonl" 2>/dev/null || cp "$TRANSCRIPT" "$dir/transcript.jsonl"
fi
cd "$PROJECT"
args=()
for name in base new; do
  b=$base; [ "$name" = new ] && b=$bin
  args+=(-n "$name start" "$b hook session-start --input $dir/start.json"
         -n "$name recover" "$b hook session-start --recover --input $dir/start.json"
         -n "$name write" "$b hook post-tool-use --input $dir/write.json"
         -n "$name edit" "$b hook post-tool-use --input $dir/edit.json"
         -n "$name bash" "$b hook post-tool-use --input $dir/bash.json")
done
hyperfine -N --warmup 20 --runs "$runs" --export-json "$dir/h.json" "${args[@]}" >&2
python3 - "$dir/h.json" <<'PY'
import json, statistics, sys
r = {x["command"]: x["times"] for x in json.load(open(sys.argv[1]))["results"]}
for hook in ["start", "recover", "write", "edit", "bash"]:
    b, n = statistics.median(r[f"base {hook}"]), statistics.median(r[f"new {hook}"])
    print(f"{hook:8s} base {b * 1e3:6.3f} ms  new {n * 1e3:6.3f} ms  new/base = {n / b:.3f}")
PY
