#!/usr/bin/env python3
"""Capture what the real Claude Code client sends after each step of a case, like
capture_bash_read.py, and also the PostToolUse hook context it passes on: for the live check that
ccmem's Bash hook gives the session, after a read the client does not track, the block a Read
would have attached.

Case format: capture_bash_read.py's ("steps": {"bash": CMD} / {"read": PATH}); the case's setup
installs the hooks (e.g. `"$CCMEM_BIN" hook install --project --yes --bin "$CCMEM_BIN"`; CCMEM_BIN
comes from this process's environment).
Output, per step k (0-based), as capture_bash_read.py prints it, then for every text block new in
the request's role:"system" messages that holds "PostToolUse:Bash hook additional context: "
(the client passes a hook's additionalContext on after that prefix), a line
"<<<< system >>>>" and the block verbatim. ROOT written {ROOT}.
  capture_bash_hook.py CASE [--claude BIN]
"""
import argparse, json, os, shutil, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_session import (Stub, materialize, normalize, run_print, text_blocks, tool_names, blocks_of,
                             make_tool_call)

HOOK = "PostToolUse:Bash hook additional context: "


def is_instr(t):
    return t.startswith("<system-reminder>") and "Contents of " in t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case"); ap.add_argument("--claude", default=os.environ.get("CLAUDE_BIN", "claude"))
    a = ap.parse_args()
    case = os.path.abspath(a.case)
    spec = json.load(open(os.path.join(case, "case.json")))
    root, cwd, env, args = materialize(case)
    steps = spec["steps"]
    calls = [make_tool_call(s, k, root, cwd) for k, s in enumerate(steps)]
    st = {"n": 0}

    def respond(req, kind):
        if kind == "main" and "Read" in tool_names(req) and st["n"] < len(calls):
            st["n"] += 1
            return [calls[st["n"] - 1]], "tool_use"
        return [{"type": "text", "text": "ok"}], "end_turn"

    stub = Stub(respond)
    env.update(stub.env())
    try:
        rc, out, err = run_print(a.claude, cwd, env, ["--allowedTools", "Bash,Read", *args])
    finally:
        stub.close()
    mains = [r for _, k, r in stub.requests if k == "main" and "Read" in tool_names(r)]
    if len(mains) < len(steps) + 1:
        sys.stderr.write(f"only {len(mains)} main requests captured; client exit {rc}\n{out[-2000:]}\n{err[-2000:]}\n"); sys.exit(1)

    def user_after_first_turn(req):
        res, seen = [], False
        for m in req["messages"]:
            if m["role"] == "assistant": seen = True; continue
            if seen and m["role"] == "user": res += [t.rstrip("\n") for w, t in text_blocks(m) if w == "text"]
        return res

    def hook_blocks(req):
        res = []
        for m in req["messages"]:
            if m.get("role") != "system": continue
            res += [b["text"] for b in blocks_of(m) if b.get("type") == "text" and HOOK in b["text"]]
        return res

    def new(cur, prev):
        rest = list(cur)
        for x in prev:
            if x in rest: rest.remove(x)
        return rest

    parts, prev_u, prev_h = [], [], []
    for k, s in enumerate(steps):
        cur_u, cur_h = user_after_first_turn(mains[k + 1]), hook_blocks(mains[k + 1])
        head = f"--- step {k}: bash: {s['bash']} ---" if "bash" in s else f"--- step {k}: read: {s['read']} ---"
        rem = [t for t in new(cur_u, prev_u) if is_instr(t)]
        hooks = ["<<<< system >>>>\n" + h for h in new(cur_h, prev_h)]
        parts.append("\n".join([head] + (["\n\n".join(rem)] if rem else []) + hooks))
        prev_u, prev_h = cur_u, cur_h
    sys.stdout.write(normalize("\n".join(parts) + "\n", root))
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
