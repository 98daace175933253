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
import argparse, os, shutil, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_session import (blocks_of, is_instr, new_blocks, normalize, run_steps, step_head,
                             text_blocks)

HOOK = "PostToolUse:Bash hook additional context: "


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case"); ap.add_argument("--claude", default=os.environ.get("CLAUDE_BIN", "claude"))
    a = ap.parse_args()
    root, steps, mains, _ = run_steps(a.claude, os.path.abspath(a.case))

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

    parts, prev_u, prev_h = [], [], []
    for k, s in enumerate(steps):
        cur_u, cur_h = user_after_first_turn(mains[k + 1]), hook_blocks(mains[k + 1])
        head = step_head(k, s)
        rem = [t for t in new_blocks(cur_u, prev_u) if is_instr(t)]
        hooks = ["<<<< system >>>>\n" + h for h in new_blocks(cur_h, prev_h)]
        parts.append("\n".join([head] + (["\n\n".join(rem)] if rem else []) + hooks))
        prev_u, prev_h = cur_u, cur_h
    sys.stdout.write(normalize("\n".join(parts) + "\n", root))
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
