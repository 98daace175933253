#!/usr/bin/env python3
"""ccmem's extension of capture_history.py (the shared oracle's, copied unchanged beside it) for the
history shapes its case format cannot script. The case format, the stub, the truth and the state are
capture_history.py's; this adds, per session of case.json:

  "turns": ["TEXT", "/clear", "/compact", ...]   the session runs in stream-json mode, one user message
                                                  per turn; the steps are made during the first turn.
                                                  A /clear starts a new session id in the same process.
  "running": true                                 (last session only) the state is kept while the client
                                                  still runs: after the reply that makes the last step
                                                  (e.g. {"bash": "sleep 600"}) the run waits PAUSE s,
                                                  keeps the state, then kills the client.

and, for every run, one truth session per session id the stub saw (in order of first request), so a
/clear or a resumed session (`"args": ["--continue"]`, `["--resume", ID]` with an ID set earlier by
`["--session-id", ID]`) is recorded as the client reported it. A real repository's `.git` (a folder or
a worktree's `.git` file) is kept as `.git-state`, and of it only git's small text files (HEAD, config,
commondir, gitdir, refs): what tells a git root and a worktree, no objects.

Usage: capture_history_more.py CASE [--claude BIN] [--write] [--keep]     (one capture at a time: the
client keeps state under /tmp)
"""
import argparse, json, os, shutil, signal, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_session import Stub, materialize, normalize, slug, run_stream, make_tool_call, MARK  # noqa: E402
from capture_history import blocks, texts, session_of, agent_call, SKIP_DIRS  # noqa: E402

PAUSE = 2.0
GIT_KEEP = ("HEAD", "config", "commondir", "gitdir", "packed-refs")


def git_small(rel):
    """Whether a file under a .git folder is one of git's small text files kept in the state."""
    parts = rel.split("/")
    if ".git" not in parts:
        return True
    inner = parts[parts.index(".git") + 1:]
    if not inner:
        return True  # a worktree's `.git` file
    return "logs" not in inner and (inner[-1] in GIT_KEEP or inner[0] == "refs")


def keep_state(root, dest):
    shutil.rmtree(dest, ignore_errors=True)
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = [x for x in dirs if not (rel == os.path.join("home", ".claude") and x in SKIP_DIRS)]
        for f in files:
            if rel == "home" and f.startswith(".claude.json"):
                continue
            src = os.path.join(d, f)
            r = os.path.relpath(src, root)
            if not git_small(r):
                continue
            parts = [".git-state" if p == ".git" else p for p in normalize(r, root).split("/")]
            out = os.path.join(dest, *parts)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            if os.path.islink(src):
                os.symlink(normalize(os.readlink(src), root), out)
                continue
            b = open(src, "rb").read()
            try:
                b = normalize(b.decode("utf-8"), root).encode("utf-8")
            except UnicodeDecodeError:
                pass
            open(out, "wb").write(b)


def truth_of(reqs, sid, steps, memdir, cwd, sub_types):
    """capture_history.run_session's truth for the requests of one session id."""
    mains = [r for _, k, r in reqs if k == "main" and session_of(r) == sid]
    start, mem = [], None
    for t in texts(mains[0]):
        if t.startswith(MARK):
            for path, label, body in blocks(t):
                start.append({"path": path, "label": label})
                if path.endswith("/MEMORY.md") and "auto-memory" in (label or ""):
                    loaded, sep, _w = body.partition("\n\n> WARNING: ")
                    mem = {"path": path, "lines": loaded.split("\n") if loaded else [], "warned": bool(sep)}
            break
    seen = {p["path"] for p in start}
    lazy = []
    for r in mains[1:]:
        for t in texts(r):
            if t.startswith(MARK):
                continue
            for path, _l, _b in blocks(t):
                if path not in seen:
                    seen.add(path)
                    lazy.append(path)
    subs = []
    for _, k, r in reqs:
        if k != "sub" or session_of(r) not in (sid, None) or any(m.get("role") == "assistant" for m in r.get("messages") or []):
            continue
        paths = [p for t in texts(r) if t.startswith(MARK) for p, _l, _b in blocks(t)]
        sysp = "\n".join(b.get("text", "") for b in (r.get("system") or []) if isinstance(b, dict))
        amem = None
        if "\n## MEMORY.md\n\n" in sysp:
            m = sysp.split("\n## MEMORY.md\n\n", 1)[1].split("\n\nMessages from the agent that launched you", 1)[0]
            if m.startswith("Your MEMORY.md is currently empty"):
                amem = {"state": "empty", "lines": 0}
            elif m.startswith("Your MEMORY.md was not loaded"):
                amem = {"state": "refused", "lines": 0}
            else:
                loaded, sep, _w = m.partition("\n\n> WARNING: ")
                amem = {"state": "loaded", "lines": len(loaded.rstrip("\n").split("\n")), "warned": bool(sep)}
        subs.append({"start": paths, "memory": amem})
    for i, s in enumerate(subs):
        s["type"] = sub_types[i] if i < len(sub_types) else None
    reads = [c["input"]["file_path"] for c in steps if c["name"] == "Read" and c["input"]["file_path"].startswith(memdir + "/")]
    return {"id": sid, "cwd": cwd, "start": start, "memory_index": mem, "lazy": lazy, "topic_reads": reads,
            "compactions": sum(1 for _, k, r in reqs if k == "compact" and session_of(r) in (sid, None)), "subagents": subs}


def run_session(claude, root, env, spec, sess, memdir, state_dest):
    cwd = os.path.join(root, sess.get("cwd", spec.get("cwd", ".")))

    def fill(s):
        return dict(s, bash=s["bash"].replace("{ROOT_SLUG}", slug(root))) if "bash" in s else s
    steps = [agent_call(s, k) if "agent" in s else make_tool_call(fill(s), k, root, cwd) for k, s in enumerate(sess.get("steps", []))]
    st = {"i": 0, "phase": 1}

    def respond(req, kind):
        if kind == "compact":
            return [{"type": "text", "text": "<analysis>a</analysis>\n<summary>ORACLE-SUMMARY</summary>"}], "end_turn"
        if kind == "main" and st["phase"] == 1 and st["i"] < len(steps):
            st["i"] += 1
            return [steps[st["i"] - 1]], "tool_use"
        return [{"type": "text", "text": "ok"}], "end_turn"

    stub = Stub(respond)
    e = dict(env, **stub.env())
    e.update({k: v.replace("{ROOT}", root) for k, v in (sess.get("env") or {}).items()})
    tools = ["--allowedTools", "Read,Bash,Write,Edit,Agent"]
    args = [a.replace("{ROOT}", root) for a in sess.get("args", [])]
    kept = False
    try:
        if sess.get("turns"):
            turns = []
            for k, t in enumerate(sess["turns"]):
                if k == 1:
                    turns.append(lambda: st.update(phase=2))
                turns.append(t)
            run_stream(claude, cwd, e, tools + args, turns, persist=True)
        elif sess.get("running"):
            p = subprocess.Popen([claude, "-p", "hi", *tools, *args], cwd=cwd, env=e, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            deadline = time.time() + 120
            while st["i"] < len(steps) and time.time() < deadline:
                time.sleep(0.2)
            time.sleep(PAUSE)
            keep_state(root, state_dest)
            kept = True
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        else:
            subprocess.run([claude, "-p", "hi", *tools, *args], cwd=cwd, env=e, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=240)
    finally:
        stub.close()
    reqs = stub.requests
    sids = []
    for _, k, r in reqs:
        s = session_of(r)
        if k == "main" and s and s not in sids:
            sids.append(s)
    if not sids:
        sys.stderr.write("session made no main request\n")
        sys.exit(1)
    sub_types = [s["agent"] for s in sess.get("steps", []) if "agent" in s]
    return [truth_of(reqs, sid, steps if i == 0 else [], memdir, cwd, sub_types if i == 0 else []) for i, sid in enumerate(sids)], kept


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--claude", default=os.environ.get("CLAUDE_BIN", "claude"))
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    case = os.path.abspath(a.case)
    spec = json.load(open(os.path.join(case, "case.json")))
    os.environ["CASE"] = case
    root, _cwd, env, _args = materialize(case)
    memdir = spec.get("memdir", "{ROOT}/home/.claude/projects/{ROOT_SLUG}-" + spec.get("cwd", ".").replace("/", "-") + "/memory")
    memdir = memdir.replace("{ROOT_SLUG}", slug(root)).replace("{ROOT}", root)
    snapshot = tempfile.mkdtemp(prefix="ccmem-state-")
    sessions, kept = [], False
    for sess in spec["sessions"]:
        if sess.get("before"):
            subprocess.run(["bash", "-ec", sess["before"]], cwd=root, env=env, check=True)
        got, k = run_session(a.claude, root, env, spec, sess, memdir, snapshot)
        sessions += got
        kept = kept or k
        time.sleep(1.1)

    def entries_of(idx):
        out = []
        for n, line in enumerate(open(idx, encoding="utf-8", errors="replace").read().split("\n"), 1):
            if not line.strip():
                continue
            last = None
            for s in sessions:
                if s["memory_index"] and s["memory_index"]["path"] == idx and line in s["memory_index"]["lines"]:
                    last = s["id"]
            out.append({"line": n, "text": line, "last_loaded": last})
        return out
    idx = os.path.join(memdir, "MEMORY.md")
    entries = entries_of(idx) if os.path.exists(idx) else []
    indexes = {}
    for s in sessions:
        p = s["memory_index"] and s["memory_index"]["path"]
        if p and p not in indexes and os.path.exists(p):
            indexes[p] = entries_of(p)
    for s in sessions:
        if s["memory_index"]:
            s["memory_index"]["lines"] = len(s["memory_index"]["lines"])
    truth = json.loads(normalize(json.dumps({"sessions": sessions, "entries": entries, "indexes": indexes}, ensure_ascii=False), root))
    if a.write:
        json.dump(truth, open(os.path.join(case, "truth.json"), "w"), indent=1, ensure_ascii=False)
        if kept:
            shutil.rmtree(os.path.join(case, "state"), ignore_errors=True)
            shutil.copytree(snapshot, os.path.join(case, "state"), symlinks=True)
        else:
            keep_state(root, os.path.join(case, "state"))
    else:
        json.dump(truth, sys.stdout, indent=1, ensure_ascii=False)
        print()
    shutil.rmtree(snapshot, ignore_errors=True)
    if a.keep:
        sys.stderr.write(f"kept {root}\n")
    else:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
