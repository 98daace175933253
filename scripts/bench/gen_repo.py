#!/usr/bin/env python3
"""A monorepo-shaped tree for scripts/bench/check.sh: 50,000 tracked files in 100 packages,
200 instruction files (a root CLAUDE.md importing AGENTS.md, 10 root rules of which 4 are
path-scoped, a CLAUDE.md per package, 88 folder CLAUDE.md files), and a gitignored
node_modules of 5,000 files that a walk with the right ignores never enters.
  gen_repo.py DEST"""
import os, sys

dest = sys.argv[1]
def w(rel, text):
    p = os.path.join(dest, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)

para = "Keep functions small; prefer composition; every change comes with a test.\n"
w(".gitignore", "node_modules/\n*.log\n")
w("CLAUDE.md", "# Monorepo\n\nSee @AGENTS.md\n\n" + para * 40)
w("AGENTS.md", "# Agents guide\n\n" + para * 60)
for i in range(10):
    front = f"---\npaths: packages/p{i:02}/src/**\n---\n" if i < 4 else ""
    w(f".claude/rules/rule{i}.md", front + f"Rule {i}.\n" + para * 5)
instr, files = 12, 13
for p in range(100):
    pkg = f"packages/p{p:02}"
    w(f"{pkg}/package.json", "{}\n"); files += 1
    w(f"{pkg}/CLAUDE.md", f"Package {p}.\n" + para * 8); instr += 1; files += 1
    for d in range(10):
        folder = f"{pkg}/src/m{d}"
        if d == 0 and p < 88:
            w(f"{folder}/CLAUDE.md", f"Module {p}/{d}.\n" + para * 3); instr += 1; files += 1
        n = 0
        while n < 48:
            w(f"{folder}/f{n:02}.ts", "export const x = 1;\n"); n += 1; files += 1
while files < 50_000:
    w(f"docs/extra/e{files}.md", "doc\n"); files += 1
for i in range(5_000):
    w(f"node_modules/dep{i // 100}/f{i}.js", "x\n")
print(f"{dest}: {files} files, {instr} instruction files", file=sys.stderr)
