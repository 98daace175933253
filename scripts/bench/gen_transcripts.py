#!/usr/bin/env python3
"""Realistic transcripts for the `ccmem history` benchmark, made from captured ones.

usage: gen_transcripts.py ROOT [--mb 400] [--seed 1]

Lays out ROOT/home (HOME) and ROOT/proj (a project with CLAUDE.md and a MEMORY.md past the cap)
and fills ROOT/home/.claude/projects/<slug>/ (and a web/ folder, as sessions started in a
subfolder do) with sessions replicated from the captured history `hist-grow-append`
(tests/oracle/history/): each session keeps the client's own records (start block, system-prompt
snapshots, request shapes, tool calls, nested attachments, end record) in their order, under a
fresh session id and clock, and gets a working day added: turns of Read/Bash calls whose tool
results (a user record with the text twice, as the client writes it, plus the request blob that
carries it again) are tens to hundreds of KB, topic-file reads, now and then a compaction and a
subagent transcript. Sessions are added until the folder holds --mb megabytes.

Prints the folders written and the total size.
"""
import argparse, json, os, random, re, shutil, string, sys, uuid

HERE = os.path.dirname(os.path.abspath(__file__))
CASE = os.path.join(HERE, "..", "..", "tests", "oracle", "history", "hist-grow-append", "state")


def slug(p):
    return re.sub(r"[^A-Za-z0-9]", "-", p)


def code_text(rng, size):
    """Source-like text of about `size` bytes: quotes, tabs, backslashes, non-ASCII, long lines."""
    words = ["fn", "let", "mut", "return", "self", "match", "Some(x)", "None", "impl", "pub", "struct",
             "\"quoted\"", "'c'", "\\n", "\t", "→", "données", "配置", "{", "}", "=>", "&&", "||", "// note"]
    out, n = [], 0
    while n < size:
        line = "".join(rng.choice(words) + " " for _ in range(rng.randint(3, 20)))
        out.append(line)
        n += len(line) + 1
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--mb", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    root = os.path.abspath(a.root)
    home, proj = os.path.join(root, "home"), os.path.join(root, "proj")
    if os.path.exists(root):
        shutil.rmtree(root)
    # The captured state, with {ROOT} made real: project, memory, and the template transcripts.
    templates = []
    for d, _dirs, files in os.walk(CASE):
        for f in files:
            src = os.path.join(d, f)
            rel = os.path.relpath(src, CASE).replace("{ROOT_SLUG}", slug(root))
            text = open(src, encoding="utf-8").read().replace("{ROOT_SLUG}", slug(root)).replace("{ROOT}", root)
            if f.endswith(".jsonl"):
                templates.append([json.loads(l) for l in text.splitlines() if l.strip()])
                continue
            dst = os.path.join(root, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            open(dst, "w", encoding="utf-8").write(text)
    os.makedirs(os.path.join(proj, "web"), exist_ok=True)
    open(os.path.join(proj, "web", "CLAUDE.md"), "w").write("web: React only.\n")
    memdir = os.path.join(home, ".claude", "projects", slug(proj), "memory")
    topics = sorted(f for f in os.listdir(memdir) if f != "MEMORY.md")
    texts = {k: code_text(rng, k * 1024) for k in (4, 8, 30, 60, 120, 250, 400)}
    folders = {proj: os.path.join(home, ".claude", "projects", slug(proj)),
               os.path.join(proj, "web"): os.path.join(home, ".claude", "projects", slug(os.path.join(proj, "web")))}
    total, limit, n = 0, a.mb << 20, 0
    clock = 1_795_000_000.0
    while total < limit:
        n += 1
        cwd = rng.choice([proj] * 4 + [os.path.join(proj, "web")])
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        clock += rng.randint(600, 20_000)
        t = [clock]

        def stamp():
            t[0] += rng.random() * 3
            from datetime import datetime, timezone
            return datetime.fromtimestamp(t[0], timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"

        def fix(rec):
            rec = json.loads(json.dumps(rec).replace(f"{root}/proj", cwd if "web" in cwd else f"{root}/proj"))
            if "sessionId" in rec:
                rec["sessionId"] = sid
            if "timestamp" in rec:
                rec["timestamp"] = stamp()
            if "cwd" in rec:
                rec["cwd"] = cwd
            return rec

        tpl = rng.choice(templates)
        head = [r for r in tpl if r.get("type") != "cost-state"]
        lines = [fix(r) for r in head]
        env = next(r for r in lines if r.get("type") == "user")

        def conv(kind, body):
            # The client's key order: a user or system record names its kind before its message,
            # an assistant record after it.
            rec = {"parentUuid": str(uuid.uuid4()), "isSidechain": False}
            if kind == "user":
                rec["promptId"] = body.pop("promptId")
            if kind != "assistant":
                rec["type"] = kind
            rec.update(body)
            rec.update({"type": kind, "uuid": str(uuid.uuid4()), "timestamp": stamp(), "userType": "external",
                        "entrypoint": "cli", "cwd": cwd, "sessionId": sid, "version": env.get("version"), "gitBranch": "main"})
            return rec

        for turn in range(rng.randint(10, 40)):
            k = rng.choice(list(texts))
            body = texts[k]
            if rng.random() < 0.15:
                path = os.path.join(memdir, rng.choice(topics))
                body = open(path, encoding="utf-8").read()
            else:
                path = os.path.join(cwd, "src", f"mod_{turn}.rs")
            tool = rng.choice(["Read", "Read", "Bash"])
            inp = {"file_path": path} if tool == "Read" else {"command": f"cat {path}", "description": "look"}
            tid = "toolu_" + "".join(rng.choices(string.ascii_letters, k=20))
            lines.append(conv("assistant", {"message": {"id": "msg_x", "type": "message", "role": "assistant", "model": "claude",
                              "content": [{"type": "tool_use", "id": tid, "name": tool, "input": inp}],
                              "stop_reason": "tool_use", "usage": {"input_tokens": 10, "output_tokens": 5}}}))
            lines.append(conv("user", {"promptId": str(uuid.uuid4()), "message": {"role": "user", "content": [
                {"tool_use_id": tid, "type": "tool_result", "content": body}]},
                "toolUseResult": {"type": "text", "file": {"filePath": path, "content": body}}}))
            lines.append({"type": "api-request-blob", "sessionId": sid, "hash": uuid.uuid4().hex,
                          "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": body}]}})
            if turn % 9 == 4:
                lines.append(next(fix(r) for r in tpl if r.get("attachment", {}).get("type") == "prompt_snapshot"))
            if rng.random() < 0.02:
                lines.append(conv("system", {"subtype": "compact_boundary", "content": "Conversation compacted",
                                             "compactMetadata": {"trigger": "auto", "preTokens": 160000}}))
                lines.append(next(fix(r) for r in tpl if r.get("attachment", {}).get("type") == "instructions"))
        lines.append({"type": "cost-state", "sessionId": sid, "totalCostUSD": 0.1})
        folder = folders[cwd]
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{sid}.jsonl"), "w", encoding="utf-8") as f:
            for r in lines:
                s = json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
                f.write(s)
                total += len(s.encode("utf-8"))
        if rng.random() < 0.1:
            sub = os.path.join(folder, sid, "subagents")
            os.makedirs(sub, exist_ok=True)
            aid = "a" + uuid.uuid4().hex[:16]
            with open(os.path.join(sub, f"agent-{aid}.jsonl"), "w", encoding="utf-8") as f:
                for r in lines[: len(lines) // 4]:
                    r = dict(r, isSidechain=True) if "isSidechain" in r else r
                    s = json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
                    f.write(s)
                    total += len(s.encode("utf-8"))
            open(os.path.join(sub, f"agent-{aid}.meta.json"), "w").write(json.dumps({"agentType": "general-purpose"}))
    print(f"{n} sessions, {total / (1 << 20):.0f} MiB of transcripts under {home}/.claude/projects")


if __name__ == "__main__":
    sys.exit(main())
