"""Generates memory-file texts, reads each with the real client's own frontmatter reader
(frontmatter_oracle.js, run inside the client binary) and writes JSON vectors that
tests/fuzz_replay.rs replays through `ccmem::text::frontmatter`.

Usage: gen_frontmatter.py CLIENT_BIN OUT.json [--count N] [--seed S]
  e.g. gen_frontmatter.py "$(scripts/install-client.sh)" fuzz/vectors/frontmatter.json

Vector: {"input": TEXT, "split": [yaml_start, yaml_end, body_start] (UTF-8 byte offsets) or
null, "parse": {"ok": VALUE, "lenient": BOOL} | {"error": MESSAGE} (only with a block),
"lenient_lines": the lines the `_u` rewrite changed, [[index, line], ...] (only when the
strict parse failed),
"memory": [name, description, metadata] (left out when it is [null, null, {}])} where VALUE encodes a JS value: numbers as
{"$n": String(x)}, objects as JSON objects in the engine's key order.
"""
import argparse, json, os, random, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# Descriptions as people and the model write them, in the languages real libraries use. Many
# hold ': ', quotes, '#', '@', backticks or brackets, which strict YAML rejects or reads oddly.
DESCRIPTIONS = [
    # English
    "Use pnpm, never npm, in this repo",
    "Deploy checklist: run migrations first, then restart workers",
    "User prefers terse answers; no summaries at the end",
    "API base URL is https://api.example.test/v2 (staging: https://staging.example.test)",
    "Don't mock the database in integration tests — we got burned last quarter",
    'Always quote paths with spaces, e.g. "My Docs/file.md"',
    "Issue #412: flaky test in auth module",
    "Ping @maria before touching the billing code",
    "Run `make check` before every commit",
    "Config lives in [config] section of settings.toml",
    "Prefer *small* PRs & focused commits",
    "Important! Never push to main",
    "Pipeline: build | test | deploy",
    "Coverage must stay > 80%",
    "Release notes go in docs/releases/{version}.md",
    "It's the team's convention: one feature flag per PR",
    "Why: the CI cache breaks when lockfiles drift",
    "Yes",
    "2026-03-14",
    "null",
    "3.14",
    # Dutch
    "Wanneer X documenteren: schrijf \"spatie na de :\" altijd",
    "Gebruik altijd de staging-omgeving voor tests",
    "Let op: de klant wil geen e-mails op vrijdag",
    "Documentatie staat in de map docs/ — niet in de wiki",
    # German
    "Kundendaten niemals in Logs schreiben: Datenschutz!",
    "Build-Befehl: `cargo build --release` (dauert ~2 Min.)",
    "Bevorzugt kurze Antworten, keine Zusammenfassung",
    "Prüfen, ob die Migration läuft — sonst #rollback",
    # Korean
    "배포 전에 항상 마이그레이션을 먼저 실행할 것",
    "사용자는 짧은 답변을 선호함: 요약 없이",
    "테스트 DB는 모킹하지 말 것 — 지난 분기 장애 원인",
    "모바일 앱 빌드 방법 (iOS/Android)",
    "\"중요\": 메인 브랜치에 직접 푸시 금지",
    # Chinese
    "部署前先运行数据库迁移",
    "用户偏好简洁回答：不要总结",
    "接口地址：https://api.example.test/v2",
    "移动端构建流程 #iOS #Android",
    "注意：周五不发布",
    # Japanese
    "デプロイ前に必ずマイグレーションを実行する",
    "ユーザーは簡潔な回答を好む: 要約は不要",
    "テストでDBをモックしない — 前四半期の障害の原因",
    "ビルド手順は `make release` を参照",
    # Vietnamese
    "Luôn chạy migration trước khi deploy",
    "Người dùng thích câu trả lời ngắn gọn: không tóm tắt",
    "Ghi chú: không được push trực tiếp lên nhánh main",
    "Cấu hình nằm trong [settings] của file config.toml",
]
NAMES = ["use-pnpm", "deploy-checklist", "terse-answers", "api-base-url", "no-db-mocks",
         "quote-paths", "flaky-auth-test", "billing-owner", "make-check", "feedback_testing",
         "project_release", "user_role", "reference_links", "배포-체크리스트", "移动端-mobile",
         "MyTopic", "a", "x-y-z", "2026-01-01", "true", "123", "name with spaces"]
TYPES = ["user", "feedback", "project", "reference", "Feedback", "session", "", "skill-proposal"]
UUIDS = ["0f8e7c1a-3b2d-4e5f-9a8b-7c6d5e4f3a2b", "b6c1d2e3-f4a5-4b6c-8d7e-9f0a1b2c3d4e"]
DATES = ["2026-01-02", "2026-01-02T10:20:30Z", "2026-01-02T10:20:30.123+02:00", "2026-1-2",
         "'2026-01-02'", "Jan 2, 2026", "1767312000000"]
SCALARS = [
    "", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "yes", "no", "on", "off",
    "y", "n", "0", "-0", "007", "0x1F", "0X1F", "-0x10", "0o17", "0b101", "1_000", "1e3",
    "1.5E+3", ".5", "1.", ".inf", "-.Inf", ".NAN", ".nan", "inf", "NaN", "12:30", "1,000",
    "123456789012345678901234567890", "0xFFFFFFFFFFFFFFFFFF", "9007199254740993", "2026-01-02",
    "2026-01-02T10:20:30Z", "\"quoted\"", "'single'", "'it''s'", "\"esc \\\" \\t \\u00e9\"",
    "[a, b]", "[a, [b, c]]", "[]", "{}", "{a: 1, b: [2]}", "[unclosed", "{unclosed", "a: b",
    "x # comment", "x#y", "#start", "@at", "`tick`", "*star", "&amp", "!bang", "!!str 1",
    "!!int 3", "|", ">", "%pct", "- dash", "-dash", "? q", "a, b", "\"open", "'open",
    "\"\"", "''", "\"", "'", "[a] tail", "\"q\" tail", "C:\\path\\to", "100%", "50% off",
    "key: value: more", "{{template}}", "${VAR}", "<tag>", "a | b", "x > y", "semi; colon:",
]
KEYS = ["name", "description", "type", "tags", "paths", "status", "retired", "group", "modified",
        "superseded_by", "node_type", "originSessionId", "related", "scope", "priority",
        "Name", "my key", "_private", "x-y", "a1", "1", "__proto__", "<<", "ключ", "이름"]


def q(rng, s):
    """A value as a person might write it: plain mostly, sometimes quoted."""
    r = rng.random()
    if r < 0.12:
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if r < 0.2:
        return "'" + s.replace("'", "''") + "'"
    return s


def memory_doc(rng):
    """A frontmatter block in one of the shapes the client, claude-memory-manager and people
    write, with the client's own keys (node_type, originSessionId, modified) sometimes."""
    lines = []
    shape = rng.random()
    name = rng.choice(NAMES)
    desc = rng.choice(DESCRIPTIONS)
    typ = rng.choice(TYPES)
    lines.append(f"name: {q(rng, name)}")
    if rng.random() < 0.9:
        lines.append(f"description: {q(rng, desc)}")
    if shape < 0.45:  # the client's own spec: nested metadata
        lines.append("metadata:")
        ind = rng.choice(["  ", "  ", "  ", "    ", "\t", " "])
        meta = [f"type: {typ}"]
        if rng.random() < 0.5:
            meta.insert(0, "node_type: memory")
        if rng.random() < 0.4:
            meta.append(f"originSessionId: {rng.choice(UUIDS)}")
        if rng.random() < 0.4:
            meta.append(f"modified: {rng.choice(DATES)}")
        if rng.random() < 0.2:
            meta.append(f"{rng.choice(KEYS)}: {rng.choice(SCALARS)}")
        rng.shuffle(meta)
        lines += [ind + m for m in meta]
    elif shape < 0.75:  # claude-memory-manager: top-level type
        lines.append(f"type: {typ}")
        if rng.random() < 0.4:
            lines.append(f"modified: {rng.choice(DATES)}")
    if rng.random() < 0.25:
        if rng.random() < 0.5:
            lines.append("tags: [" + ", ".join(rng.sample(["db", "ci", "배포", "移动端", "a b", "#x"], 2)) + "]")
        else:
            lines.append("tags:")
            lines += [f"  - {t}" for t in rng.sample(["db", "ci", "배포", "移动端", "a: b", "#x"], 2)]
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        lines.append(f"{rng.choice(KEYS)}: {rng.choice(SCALARS)}")
    if rng.random() < 0.1:
        lines.insert(rng.randrange(len(lines) + 1), "# a comment")
    if rng.random() < 0.08:
        lines.insert(rng.randrange(len(lines) + 1), "")
    if rng.random() < 0.08:
        lines.append("description: |\n  Multi-line: text\n  # not a comment")
    return lines


def scalar_doc(rng):
    """One or a few keys with a scalar from the matrix: the client's scalar semantics."""
    return [f"{rng.choice(KEYS)}: {rng.choice(SCALARS)}" for _ in range(rng.randint(1, 3))]


BODY = ["", "", "", "x\n", "x\n", "**Why:** a.\n", "[[other]]\n", "---\nb\n"]
FENCES_OPEN = ["---"] * 12 + ["--- ", "---\t", "----", " ---", "---x"]
FENCES_CLOSE = ["---"] * 12 + ["--- ", "---x", "...", "", "----", " ---"]

# YAML texts that pin the parser's edges (each one a rule found by probing the client's
# runtime: numbers, tags, merge keys, multi-documents, tabs, indentation, CRLF, commas).
PROBES = [
    "a: 1\na: 2\nb: 3\na: 4", "b: 1\n1: a\n-1: c\n01: d", "a: &x 1\nb: *x", "a: *x",
    "a: &x 1\na2: &x 2\nb: *x", "a: 1\n---\nb: 2", "a: 1\n...\nb: 2", "...\na: 1", "...\n",
    "# c\n...\na: 1", "%YAML 1.2\n---\na: 1", "<<: {a: 1}\nb: 2", "<<: [{a: 1}, {b: 2}]\nc: 3",
    "<<: 5", "a: 1\n<<: {a: 2}", "<<: {a: 2}\na: 1", "<<: {b: 1, c: 2, a: 3}", "'<<': {a: 1}",
    "<<: [1, {a: 1}]", "<<: ~", "x: &a {q: 1, p: 2}\ny:\n  <<: *a\n  r: 3",
    "1.5: a\n1e21: b\n.inf: c\n~: d\ntrue: e\n0x10: f\n-0: g\n4294967294: h\n4294967295: i\n[1, 2]: j\n{a: 1}: k",
    "__proto__: 1\nb: 2", "metadata:\n  __proto__: x\n__proto__: y", "a: !!str 1", "a: !!str",
    "a: !!int x", "a: !!null ~", "a: !foo 1", "a: !foo", "a: !<x> 1", "a: !!binary aGk=",
    "a: !!map [1]", "%TAG ! tag:x,2000:\n---\na: !y 1", "a: !x!y 1", "? [a, b]\n: c",
    "? |\n  x\n: y", "a: b\n c", "a:\n  b: 1\n c: 2", "  a: 1\n  b: 2", "  a: 1\nb: 2",
    "a: 1\n  b: 2", "a:\n- 1\n- 2", "- - a\n  - b", "[a: 1, b]", "{a, b: }", "a: [b, c,]",
    "a:1", "a: b: c", "a: \"x\" y", "a: [x] y", "key with space: v", "http://x: 1",
    "a: 1 # c\nb: x#y", "a: -", "a: - b", "a: -b", "x", "", "   ", "# c", "- a\n- b",
    "\ta: 1", "a:\n\tb: 1", "- \ta", "\t- a", "- \tb: 1", "a:\n  \tb: 1", "a:\t\t1",
    "\t# c\na: 1", "a: 1\n\t\nb: 2", "n: x\nd: 'C'\n\t# a\nt: p", "d: 'C'\n\t# a\nt: p",
    "n: x\nd: C\n\t# a", "n: x\nd:\n\t# a", "n: x\nd: [a]\n\t# a", "a: |\n  \tx",
    "a: [\nb]", "k: [a\n]", "k: [a,\n b]", "k: [a,\n\tb]", "k: {a: 1\n}", "a: \"x\ny\"",
    "a: \"x\n y\"", "a: 'x\ny'", "a:\n  b: \"x\n  y\"", "a: \"x\n\n  y\"", "a: \"x\n  y\n\"",
    "- b: \"x\n  y\"", "a: \"x\r\n  y\"", "a: 'x\r\n\r\n  y'", "a: \"x \\\r\n  y\"",
    "a: \"x\ry\"", "a: x\r\n  y", "a: |\r\n  x\r\n  y\r\n", "a: , b", ",a: b", "- ,\n- ,,",
    "a: ,x\nb: [1, 2]", "tags: \ufeff[a]", "a: 'it''s'\nb: \"x\\ty\"", "a: |+\n  b\n\n",
    "a: >-\n  p\n  q", "a: |2\n   b", "a: 12345678901234567890", "a: 0xFFFFFFFFFFFFFFFF",
    "a: 0x1FFFFFFFFFFFFFFFF", "a: 0o2000000000000000000000", "a: .nan\nb: -.inf\nc: .iNf",
]
SOUP = ["a", "b: c", "- x", "[", "]", "{", "}", ",", ": ", "'", "\"", "#", "&a", "*a", "!!str",
        "|", ">", "\n", "\n  ", "\n    ", "\t", " ", "?", "-", "...", "~", "1", "0x1f", "\\",
        "é", "한", "\r\n", "name: ", "description: ", "metadata:\n  "]

SPECIAL = list("{}[]*&#!|>%@`:'\"\t -?,\\") + [": ", " #", "\r", "\n", "\u00a0", "\u3000", "\ufeff"]


def mutate(rng, text):
    """Random edits biased towards YAML syntax characters."""
    s = list(text)
    for _ in range(rng.randint(1, 4)):
        if not s:
            break
        i = rng.randrange(len(s))
        op = rng.random()
        if op < 0.4:
            s.insert(i, rng.choice(SPECIAL))
        elif op < 0.6:
            del s[i]
        elif op < 0.8:
            s[i] = rng.choice(SPECIAL)
        else:  # duplicate a line
            t = "".join(s)
            ls = t.split("\n")
            j = rng.randrange(len(ls))
            ls.insert(j, ls[j])
            s = list("\n".join(ls))
    return "".join(s)


def document(rng):
    r = rng.random()
    if r < 0.07:
        return "---\n" + rng.choice(PROBES) + "\n---\n"
    if r < 0.17:
        return "---\n" + "".join(rng.choice(SOUP) for _ in range(rng.randint(1, 12))) + "\n---\n"
    lines = memory_doc(rng) if r < 0.8 else scalar_doc(rng)
    if rng.random() < 0.15:  # leading tabs: the `_u` pass turns them into two spaces each
        k = rng.randrange(len(lines))
        lines[k] = "\t" * rng.randint(1, 2) + lines[k]
    nl = "\r\n" if rng.random() < 0.12 else "\n"
    open_f = rng.choice(FENCES_OPEN)
    close_f = rng.choice(FENCES_CLOSE)
    text = open_f + nl + nl.join(lines) + nl + close_f + nl + rng.choice(BODY).replace("\n", nl)
    if rng.random() < 0.08:
        text = "\ufeff" + text
    if rng.random() < 0.3:
        text = mutate(rng, text)
    return text


def run_oracle(client, inputs):
    with tempfile.TemporaryDirectory() as d:
        i, o = os.path.join(d, "in.json"), os.path.join(d, "out.json")
        with open(i, "w", encoding="utf-8") as f:
            json.dump(inputs, f)
        env = {**os.environ, "BUN_OPTIONS": "--preload " + os.path.join(HERE, "frontmatter_oracle.js"),
               "FM_IN": i, "FM_OUT": o, "FM_GEN": d}
        subprocess.run([client, "--version"], env=env, check=True, capture_output=True)
        with open(o, encoding="utf-8") as f:
            return json.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("client")
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=2400)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    seen, inputs = set(), []
    for p in PROBES:  # every probe once, then the random documents
        seen.add("---\n" + p + "\n---\n")
        inputs.append("---\n" + p + "\n---\n")
    while len(inputs) < a.count:
        t = document(rng)
        if t not in seen:
            seen.add(t)
            inputs.append(t)
    outs = run_oracle(a.client, inputs)
    vec = []
    for i, o in zip(inputs, outs):
        if o["memory"] == [None, None, {}]:
            del o["memory"]  # the replay reads a missing memory as no name, no description, {}
        vec.append(dict(input=i, **o))
    with open(a.out, "w", encoding="utf-8") as f:
        f.write("[\n" + ",\n".join(json.dumps(v, ensure_ascii=False, separators=(",", ":"))
                                   for v in vec) + "\n]\n")
    print(f"{len(vec)} vectors -> {a.out}", file=sys.stderr)


main()
