#!/usr/bin/env python3
"""Capture the client's own size warnings for instruction files, as its /status shows them.

  capture.py CASE --claude BIN [--write]

The warnings (`OHa` in 2.1.332: "Instruction files will impact performance: ..." and "Large
PATH will impact performance (...)") appear only in the interactive client, so this runs
`claude` under a pseudo-terminal against a stub Messages API on 127.0.0.1 (no network, no
tokens), types /status, and keeps those lines of the screen, in order. CASE is a folder like the
conformance cases (tree/ copied to a fresh ROOT with HOME=ROOT/home, case.json with `cwd`,
`setup`, and `client_args`: flags for the client only, such as --model). expected.txt gets one
warning per line, ROOT written {ROOT}. Run captures one at a time (flock /work/capture.lock).
"""
import argparse, fcntl, http.server, json, os, pty, random, re, select, shutil, string, struct
import subprocess, sys, termios, threading, time

def stub():
    class H(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a): pass
        def do_GET(self):
            self.send_response(200); self.send_header("content-type", "application/json"); self.end_headers(); self.wfile.write(b"{}")
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            try: model = json.loads(body).get("model", "x")
            except Exception: model = "x"
            self.send_response(200); self.send_header("content-type", "application/json"); self.end_headers()
            self.wfile.write(json.dumps({"id": "m", "type": "message", "role": "assistant", "model": model, "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}).encode())
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv

def materialize(case):
    spec = json.load(open(os.path.join(case, "case.json")))
    root = os.path.join(os.environ.get("TMPDIR", "/tmp"), "ccoracle" + "".join(random.choices(string.ascii_lowercase + string.digits, k=10)))
    if os.path.isdir(os.path.join(case, "tree")):
        shutil.copytree(os.path.join(case, "tree"), root, symlinks=True)
    else:
        os.makedirs(root)
    os.makedirs(os.path.join(root, "home"), exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC"))}
    env.update(HOME=os.path.join(root, "home"), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1", ROOT=root)
    if spec.get("setup"):
        subprocess.run(["bash", "-ec", spec["setup"]], cwd=root, env=env, check=True)
    return spec, root, os.path.join(root, spec.get("cwd", ".")), env

def screen(cwd, env, argv, keys):
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execve(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 80, 400, 0, 0))
    out = b""
    def pump(seconds):
        nonlocal out
        end = time.time() + seconds
        while time.time() < end:
            if select.select([fd], [], [], 0.2)[0]:
                try: out += os.read(fd, 65536)
                except OSError: return
    pump(8)
    for k, wait in keys:
        os.write(fd, k); pump(wait)
    os.kill(pid, 9); os.waitpid(pid, 0)
    return re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[=>()][0-9A-Za-z]?", b"", out).decode("utf-8", "replace")

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case"); ap.add_argument("--claude", required=True); ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    case = os.path.abspath(a.case)
    spec, root, cwd, env = materialize(case)
    srv = stub()
    key = "sk-ant-oracle-0123456789abcdefghij"
    env.update(ANTHROPIC_BASE_URL=f"http://127.0.0.1:{srv.server_address[1]}", ANTHROPIC_API_KEY=key, TERM="xterm-256color")
    # Past onboarding, the trust dialog and the API-key question, as a returning user is.
    cfg_path = os.path.join(env["HOME"], ".claude.json")
    cfg = json.load(open(cfg_path)) if os.path.exists(cfg_path) else {}
    cfg.update(hasCompletedOnboarding=True, theme="dark", customApiKeyResponses={"approved": [key[-20:]], "rejected": []},
               projects={cwd: {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}})
    json.dump(cfg, open(cfg_path, "w"))
    try:
        text = screen(cwd, env, [a.claude, *spec.get("client_args", [])], [(b"/status", 1.5), (b"\r", 6), (b"\x1b", 1)])
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if "Settings Status" not in text and "System diagnostics" not in text:
        sys.exit("the status view did not open; screen:\n" + text[-2000:])
    diag = text[text.rfind("System diagnostics"):] if "System diagnostics" in text else ""
    lines = re.findall(r"(Instruction files will impact performance: \d+ files, [0-9.]+[kmbt]? chars in total > [0-9.]+[kmbt]?|Large .+? will impact performance \([0-9.]+[kmbt]? chars > [0-9.]+[kmbt]?\))", diag)
    got = "".join(l.replace(root, "{ROOT}") + "\n" for l in lines)
    model = re.search(r"Model:\s*([^\s]+)", text)
    print(f"# model: {model.group(1) if model else '?'}", file=sys.stderr)
    sys.stdout.write(got)
    if a.write:
        open(os.path.join(case, "expected.txt"), "w").write(got)

main()
