# Sourced by scripts/bench/hooks.sh and table.sh: `hook_project DIR` writes the loader
# benchmark's ordinary project into DIR (41 instruction files, rules, imports, a 190-line
# MEMORY.md; the bench_project example, built in debug when missing: its output is the same
# either way), plus a nested CLAUDE.md and a file to read, and the hook inputs DIR/start.json,
# write.json (a Write of MEMORY.md), edit.json (an Edit of a topic file) and bash.json (`cat
# sub/f.txt | head -n 5`). Sets HOME to the project's home and PROJECT to its folder.
hook_project() {
  local dir=$1 example=target/debug/examples/bench_project cwd home mem topic
  [ -x "$example" ] || cargo build -q --example bench_project
  IFS=$'\t' read -r cwd home < <("$example" "$dir")
  export HOME="$home"
  PROJECT="$cwd"
  mkdir -p "$cwd/sub"
  printf 'Nested guidance for sub/.\n' > "$cwd/sub/CLAUDE.md"
  seq 1 40 | sed 's/^/line /' > "$cwd/sub/f.txt"
  : > "$dir/transcript.jsonl"
  mem=$(ls -d "$home"/.claude/projects/*/memory)
  topic=$(ls "$mem"/*.md | grep -v MEMORY.md | head -n 1 || true)
  if [ -z "$topic" ]; then
    topic="$mem/project_bench.md"
    printf -- '---\nname: bench\ndescription: d\ntype: project\n---\nbody\n' > "$topic"
  fi
  python3 - "$cwd" "$dir" "$mem/MEMORY.md" "$topic" <<'PY'
import json, sys
cwd, d, index, topic = sys.argv[1:]
common = {"session_id": "bench", "transcript_path": f"{d}/transcript.jsonl", "cwd": cwd}
def write(name, **kw):
    json.dump(dict(common, **kw), open(f"{d}/{name}.json", "w"))
write("start", hook_event_name="SessionStart", source="startup")
write("write", hook_event_name="PostToolUse", tool_name="Write",
      tool_input={"file_path": index, "content": "x"}, tool_response={})
write("edit", hook_event_name="PostToolUse", tool_name="Edit",
      tool_input={"file_path": topic, "old_string": "a", "new_string": "b"}, tool_response={})
write("bash", hook_event_name="PostToolUse", tool_name="Bash",
      tool_input={"command": "cat sub/f.txt | head -n 5"},
      tool_response={"stdout": "line 1\n", "stderr": "", "interrupted": False})
PY
}
