"""Generates Markdown inputs, runs them through the client's lexer (oracle.mjs) and writes
JSON vectors [{input, content, stripped, imports}] that tests/fuzz_replay.rs checks.

Usage: gen_vectors.py CLIENT_JS_DIR OUT.json [--count N] [--seed S] [--from-cases CASES_DIR]
"""
import argparse, json, os, random, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FRAGS = [
    "<!-- c -->", "<!--", "-->", "<!---->", "<!-->", "<!--->", "@a.md", "@./b.md", "@c.md#s",
    " @d\\ e.md", "\\@e.md", "`@f.md`", "``", "`", "```", "~~~", "    ", "\t", "  ", " ", "- ",
    "* ", "+ ", "1. ", "2) ", "> ", "# ", "## ", "---", "===", "***", "___", "<div>", "</div>",
    "<span>", "</span>", "<pre>", "</pre>", "<?x ?>", "<!X >", "<![CDATA[x]]>", "[t](u)",
    "[", "]", "(", ")", "![i](p)", "[r]", "[r]: /u", "<http://x>", "<a@b.c>", "*", "**", "_",
    "__", "\\", "\\\\", "&amp;", "x", "word", "mid@x.md", "(@p.md)", "\u00a0", "\u2028", "é",
    "@", "@@x", "@~/h.md", "@/abs.md", "\r\n", "\r", "\n", "\n", "\n", "\n\n", "@g.md,",
    "<!-- a --> t", "<!-- @h.md -->",
    # reference definitions and links
    "[r]:", "[R]", "[@a.md][r]", "[@b.md][]", "[@c.md]", "[@c.md]: /u", "![@i.md][r]", "[x][r]",
    "'t'", "\"t\"", "(t)", "[r]: <u v>", "[a\\]b]",
]

WORDS = ["see", "the", "notes", "@notes.md", "@./docs/a.md", "@~/x.md", "@/abs/y.md", "@a.md#sec",
         "@Design\\ Docs/z.md", "user@example.com", "`@code.md`", "**@bold.md**", "*@em.md*",
         "_x_", "[link @l.md](@u.md)", "[@t.md](u)", "<span>@s.md</span>", "\\@esc.md", "@b.md,",
         "(@p.md)", "<!-- @c.md -->", "<!-- note -->", "&amp;", "x_y", "a*b*", "@", "mid@x.md",
         "[@r.md][r]", "[@n.md][]", "[@s.md]", "![@alt.md][r]"]
LINES = [
    "# Title @h.md", "## Section", "text {w} {w} {w}", "{w} {w}", "- item {w} {w}", "* item {w}",
    "1. step {w}", "  - nested {w}", "    - deeper {w}", "  continued {w}", "> quote {w}", ">",
    "```", "```bash", "~~~", "    code {w}", "\tcode {w}", "<!-- comment -->", "<!-- {w} -->",
    "  <!-- indented -->", "    <!-- code -->", "<!--", "-->", "end -->", "<!-- a --> tail {w}",
    "<div>", "</div>", "<div>{w}</div>", "| a | {w} |", "|---|---|", "---", "===", "***", "",
    "", "", "[ref]: /url", "[ref] {w}", "{w}  ", "<details>", "</details>", "<br>", "<?x ?>",
    "[r]: /u 'title'", "[R]:", "  /next-line", "\"title on next\"", "[{w}][r] {w}", "[{w}] {w}",
    "![{w}][r]", "[@s.md]: /u", "[a\\]b]: /u", "[r]:\t/u",
]

def real_doc(rng):
    out = []
    for _ in range(rng.randint(1, 18)):
        line = rng.choice(LINES)
        while "{w}" in line:
            line = line.replace("{w}", rng.choice(WORDS), 1)
        out.append(line)
    nl = "\r\n" if rng.random() < 0.1 else "\n"
    return nl.join(out) + (nl if rng.random() < 0.7 else "")

MIX = 0.6

def rand_doc(rng):
    if rng.random() < MIX:
        return real_doc(rng)
    n = rng.randint(1, 25)
    return "".join(rng.choice(FRAGS) for _ in range(n))

def case_texts(cases_dir):
    out = []
    for root, _, files in os.walk(cases_dir):
        if "/tree" not in root:
            continue
        for f in files:
            if f.endswith(".md") or f == "CLAUDE.md":
                try:
                    t = open(os.path.join(root, f), encoding="utf-8").read()
                except (UnicodeDecodeError, OSError):
                    continue
                if len(t) < 20000:
                    out.append(t)
    return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("client_js")
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--from-cases")
    ap.add_argument("--mix", type=float, default=0.6, help="share of line-based documents")
    a = ap.parse_args()
    global MIX
    MIX = a.mix
    rng = random.Random(a.seed)
    inputs = case_texts(a.from_cases) if a.from_cases else []
    inputs += [rand_doc(rng) for _ in range(a.count)]
    with tempfile.TemporaryDirectory() as d:
        lexer = os.path.join(d, "lexer.mjs")
        subprocess.run([sys.executable, os.path.join(HERE, "build_lexer.py"), a.client_js, lexer], check=True)
        r = subprocess.run(["node", os.path.join(HERE, "oracle.mjs"), lexer],
                           input=json.dumps(inputs), capture_output=True, text=True, check=True)
    outs = json.loads(r.stdout)
    vec = [dict(input=i, **o) for i, o in zip(inputs, outs)]
    json.dump(vec, open(a.out, "w"), ensure_ascii=False, indent=0)
    print(f"{len(vec)} vectors -> {a.out}")

main()
