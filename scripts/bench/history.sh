#!/usr/bin/env bash
# `ccmem history` over hundreds of MB of transcripts, and the session-start hook that now logs
# each start, side by side in one hyperfine run each (the machines are shared and noisy: only
# ratios measured together mean anything).
#
#   1. cat of every transcript  vs  ccmem history --json  vs  ccmem history (text)
#      over MB megabytes (default 400) made by gen_transcripts.py from a captured history.
#      Target (issue 26): history <= 3x cat.
#   2. Peak memory (max RSS) of history there, and over one transcript holding a 50 MB tool
#      call line and a 300 MB folder of small sessions: bounded by the largest line read whole
#      (16 MiB), not by the folder.
#   3. ccmem hook session-start: MAIN_BIN (a release build of main) vs this build, which also
#      appends the start to ccmem's log. Target: within 10% of main.
#
#   MAIN_BIN=/path/to/main/ccmem scripts/bench/history.sh [MB]     (needs hyperfine, python3)
# HIST_BENCH_DIR=DIR reuses transcripts generated there before.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$PWD"
mb="${1:-400}"
cargo build --release -q --bin ccmem --example bench_project
bin="$PWD/target/release/ccmem"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
data="${HIST_BENCH_DIR:-$work/data}"
if [ ! -d "$data/home" ]; then
  python3 "$repo/scripts/bench/gen_transcripts.py" "$data" --mb "$mb"
fi
export HOME="$data/home" XDG_STATE_HOME="$work/state"
files=$(find "$HOME/.claude/projects" -name '*.jsonl' | sort | tr '\n' ' ')
echo "transcripts: $(echo "$files" | wc -w) files, $(du -shc $files | tail -1 | cut -f1)"
cd "$data/proj"
hyperfine -N --warmup 3 --runs 20 --export-json "$work/h.json" \
  -n cat "cat $files" \
  -n history-json "$bin history --json" \
  -n history-text "$bin history --no-log" >&2
python3 - "$work/h.json" <<'PY'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
c = r["cat"]
print(f"cat {c*1e3:.0f} ms | history --json {r['history-json']*1e3:.0f} ms ({r['history-json']/c:.2f}x) | "
      f"history {r['history-text']*1e3:.0f} ms ({r['history-text']/c:.2f}x)   [medians; target <= 3x]")
PY
rss() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -1; }
echo "max RSS, history over the folder: $(rss "$bin" history --json) KB"
# One session with a 50 MB Write line (wanted, over the cap: passed over) and a 50 MB result.
big="$work/big"
mkdir -p "$big/proj"
python3 - "$big" <<'PY'
import json, os, re, sys
root = sys.argv[1]; proj = os.path.join(root, "proj")
d = os.path.join(root, "home", ".claude", "projects", re.sub(r"[^A-Za-z0-9]", "-", proj))
os.makedirs(d, exist_ok=True)
env = {"cwd": proj, "sessionId": "big", "version": "2.1.332"}
with open(os.path.join(d, "big.jsonl"), "w") as f:
    f.write(json.dumps({"parentUuid": None, "isSidechain": False, "attachment": {"type": "instructions", "files": []}, "type": "attachment", "timestamp": "2026-11-01T00:00:00Z", **env}) + "\n")
    f.write(json.dumps({"parentUuid": None, "isSidechain": False, "message": {"role": "assistant", "content": [{"type": "tool_use", "name": "Write", "input": {"file_path": "/x", "content": "w" * (50 << 20)}}]}, "type": "assistant", **env}) + "\n")
    f.write(json.dumps({"parentUuid": None, "isSidechain": False, "promptId": "p", "type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "content": "r" * (50 << 20)}]}, **env}) + "\n")
PY
(cd "$big/proj" && echo "max RSS, history over one 100 MB transcript with two 50 MB lines: $(HOME="$big/home" rss "$bin" history --json) KB")
echo "max RSS, ccmem context (for scale): $(rss "$bin" context) KB"
if [ -z "${MAIN_BIN:-}" ]; then
  echo "MAIN_BIN not set: the hook comparison is skipped" >&2
  exit 0
fi
main="$(realpath "$MAIN_BIN")"
IFS=$'\t' read -r cwd hhome < <("$repo/target/release/examples/bench_project" "$work/hook")
export HOME="$hhome"
python3 - "$cwd" > "$work/start.json" <<'PY'
import json, sys
print(json.dumps({"session_id": "bench", "transcript_path": "/nonexistent.jsonl", "cwd": sys.argv[1],
                  "hook_event_name": "SessionStart", "source": "startup"}))
PY
cd "$cwd"
hyperfine -N --warmup 30 --runs 300 --export-json "$work/k.json" \
  -n main "$main hook session-start --input $work/start.json" \
  -n this "$bin hook session-start --input $work/start.json" \
  -n this-no-log "$bin hook session-start --no-log --input $work/start.json" >&2
python3 - "$work/k.json" "$XDG_STATE_HOME/ccmem/history.jsonl" <<'PY'
import json, os, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
m = r["main"]
print(f"hook session-start: main {m*1e3:.2f} ms | this {r['this']*1e3:.2f} ms ({r['this']/m:.3f}x) | "
      f"this --no-log {r['this-no-log']*1e3:.2f} ms ({r['this-no-log']/m:.3f}x)   [medians; target <= 1.10x]")
print(f"log after the runs: {os.path.getsize(sys.argv[2])} bytes")
PY
