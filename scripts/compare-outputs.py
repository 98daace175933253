#!/usr/bin/env python3
"""Runs two ccmem binaries on the same inputs and reports every output that differs.

    python3 scripts/compare-outputs.py OLD_BIN NEW_BIN [--large] [--only REGEX] [--keep DIR]
                                       [--verbose]

For a change meant to keep output byte-identical (a refactor, a speed-up): `audit` on every
memory library the repository holds or makes, `check` on every judged repository, each in every
format (human without and with colour, json, sarif, github, and `--json`), `audit --all` over a
projects folder of the judged libraries, `explain` (the list, and each rule, as text and JSON),
`budget` and `tier` (its dry run) on the libraries, `receipt` and `context` in the
repositories, every command in examples/overgrown, and `audit`, `budget`, `tier` on a folder of
bad input (a FIFO, empty, 5 MB, binary and invalid UTF-8 files, a symlink loop, a dangling link). Each run compares stdout, stderr and the exit status. `--only` keeps the runs
whose name matches (e.g. `--only '^(tier|budget) '`).

Inputs, copied into a scratch folder first (nothing runs on the repository's own files):
tests/fixtures/libraries/*/memory, tests/fixtures/curated/*/memory, the judged corpus
(tests/fixtures/judged/make.py: libraries with their HOME and their own working directory,
repositories from inside their tree), and the benchmark libraries of gen_corpus.py (the 50-file
one of scripts/bench/gen_library.py, S and M; L, 20,000 files, with --large; found as scripts/bench/corpus.sh finds it, or
$CCMEM_GEN_CORPUS; skipped with a note when absent). Every run has HOME set (the case's own
`home/` or an empty folder), CCMEM_NOW fixed, no CLAUDE_CONFIG_DIR of the caller's, and
NO_COLOR unset (colour is asked for with --color).

Exit status: 0 when every output is identical, 1 when one differs, 2 on a usage error.
Stdlib only.
"""
from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOW = "2026-11-29T12:00:00Z"
# `check` starts sessions in a fresh temporary HOME whose name is random in every run.
CHECK_HOME = re.compile(rb"ccmem-check[A-Za-z0-9]{6}")
FORMATS = (
    ["--format", "human", "--color", "never"],
    ["--format", "human", "--color", "always"],
    ["--format", "json"],
    ["--format", "sarif"],
    ["--format", "github"],
    ["--json"],
)


class Case:
    def __init__(self, name: str, argv: list[str], cwd: Path, home: Path, env: dict | None = None):
        self.name, self.argv, self.cwd, self.home, self.env = name, argv, cwd, home, env or {}

    def run(self, binary: str) -> tuple[int, bytes, bytes]:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "CCMEM_NOW": NOW,
            "LANG": "C.UTF-8",
            "TERM": "dumb",
        }
        env.update(self.env)
        p = subprocess.run([binary, *self.argv], cwd=self.cwd, env=env, capture_output=True, timeout=900)
        same = lambda b: CHECK_HOME.sub(b"ccmem-checkXXXXXX", b)
        return p.returncode, same(p.stdout), same(p.stderr)


def gen_corpus() -> Path | None:
    candidates = [os.environ.get("CCMEM_GEN_CORPUS", "")]
    candidates += [str(ROOT.parent / "shared/bench/gen_corpus.py"), str(ROOT.parent.parent / "shared/bench/gen_corpus.py")]
    return next((Path(c) for c in candidates if c and Path(c).is_file()), None)


def cases(scratch: Path, large: bool) -> list[Case]:
    empty = scratch / "empty-home"
    empty.mkdir(parents=True, exist_ok=True)
    out: list[Case] = []

    def audit(name: str, memory: Path, cwd: Path, home: Path, shown: str, tier: bool = True) -> None:
        for fmt in FORMATS:
            out.append(Case(f"audit {name} {' '.join(fmt)}", ["audit", shown, *fmt], cwd, home))
        for fmt in (["--color", "never"], ["--json"]):
            out.append(Case(f"budget {name} {' '.join(fmt)}", ["budget", shown, *fmt], cwd, home))
            if tier:
                out.append(Case(f"tier {name} {' '.join(fmt)}", ["tier", shown, *fmt], cwd, home))

    def home_of(case: Path) -> Path:
        return case / "home" if (case / "home").is_dir() else empty

    for group in ("libraries", "curated"):
        shutil.copytree(ROOT / "tests/fixtures" / group, scratch / group, symlinks=True)
        for case in sorted((scratch / group).iterdir()):
            if (case / "memory").is_dir():
                audit(f"{group}/{case.name}", case / "memory", case, home_of(case), "memory")
    judged = scratch / "judged"
    subprocess.run([sys.executable, str(ROOT / "tests/fixtures/judged/make.py"), str(judged)], check=True)
    projects = scratch / "config/projects"
    projects.mkdir(parents=True, exist_ok=True)
    for case in sorted((judged / "libraries").iterdir()):
        if (case / "memory").is_dir():
            audit(f"judged/{case.name}", case / "memory", case, home_of(case), "memory")
            # Absolute, as judge.py runs it.
            out.append(Case(f"audit judged/{case.name} (absolute) json", ["audit", str(case / "memory"), "--format", "json"], case, home_of(case)))
            (projects / case.name).symlink_to(case, target_is_directory=True)
    for fmt in FORMATS:
        out.append(Case(f"audit --all {' '.join(fmt)}", ["audit", "--all", *fmt], scratch, empty, {"CLAUDE_CONFIG_DIR": str(scratch / "config")}))
    for case in sorted((judged / "repos").iterdir()):
        tree = case / "tree"
        if not tree.is_dir():
            continue
        for fmt in FORMATS:
            out.append(Case(f"check {case.name} {' '.join(fmt)}", ["check", ".", *fmt], tree, empty))
        out.append(Case(f"check {case.name} (absolute, all dirs)", ["check", str(tree), "--all-dirs", "--color", "never"], tree, empty))
        out.append(Case(f"check {case.name} (fail on warning) sarif", ["check", "--fail-on", "warning", "--format", "sarif"], tree, empty))
        for argv in (["receipt", "--color", "never"], ["receipt", "--json"], ["receipt", "--all", "--color", "always"], ["context"]):
            out.append(Case(f"{argv[0]} {case.name} {' '.join(argv[1:])}", argv, tree, empty))
    # examples/overgrown: a project whose settings move auto memory to ~/memory, past the cut.
    shutil.copytree(ROOT / "examples/overgrown", scratch / "overgrown", symlinks=True)
    ex_home, ex_proj = scratch / "overgrown/home", scratch / "overgrown/project"
    for argv in (["audit", "--color", "never"], ["audit", "--json"], ["budget", "--color", "never"],
                 ["budget", "--json"], ["tier", "--color", "never"], ["tier", "--json"],
                 ["receipt", "--color", "never"], ["receipt", "--json"], ["context"],
                 ["check", ".", "--color", "never"], ["check", ".", "--json"]):
        out.append(Case(f"{argv[0]} examples/overgrown {' '.join(argv[1:])}", argv, ex_proj, ex_home))
    # Bad input: a FIFO, an empty file, a 5 MB file, binary, invalid UTF-8, a symlink loop, a
    # dangling link, a folder named like a memory file.
    bad = scratch / "bad/memory"
    (bad / "folder.md").mkdir(parents=True)
    (bad / "MEMORY.md").write_text("- [a](feedback_a.md)\n- [fifo](fifo.md)\n- [loop](loop.md)\n")
    (bad / "feedback_a.md").write_text("---\nname: a\ndescription: d\ntype: feedback\n---\nok\n")
    os.mkfifo(bad / "fifo.md")
    (bad / "empty.md").write_bytes(b"")
    (bad / "big.md").write_bytes(b"x" * 5_000_000)
    (bad / "binary.md").write_bytes(b"bin\0ary\n")
    (bad / "latin.md").write_bytes(b"bad \xff\xfe utf-8\n")
    (bad / "loop.md").symlink_to("loop.md")
    (bad / "dangling.md").symlink_to("gone.md")
    audit("bad", bad, bad.parent, empty, "memory")
    gen = gen_corpus()
    if gen is None:
        print("note: gen_corpus.py not found (set CCMEM_GEN_CORPUS): benchmark libraries skipped", file=sys.stderr)
    else:
        bench = scratch / "bench"
        sizes = ["S", "M"] + (["L"] if large else [])
        subprocess.run([sys.executable, str(gen), "--out", str(bench), "--only", ",".join(sizes)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for size in sizes:
            audit(f"bench/{size}", bench / size / "memory", bench / size, empty, "memory", tier=size == "S")
        # The 50-file library of the benchmarks (scripts/bench/gen_library.py).
        fifty = bench / "50"
        subprocess.run([sys.executable, str(ROOT / "scripts/bench/gen_library.py"), "--gen", str(gen), "--files", "50", "--out", str(fifty)], check=True)
        audit("bench/50", fifty / "memory", fifty, empty, "memory")
    out.append(Case("explain (list)", ["explain"], scratch, empty))
    out.append(Case("explain (list) --json", ["explain", "--json"], scratch, empty))
    out.append(Case("explain unknown", ["explain", "no-such-rule"], scratch, empty))
    return out


def explain_cases(binary: str, scratch: Path) -> list[Case]:
    """One case per rule the old binary lists, as text and as JSON."""
    listing = Case("", ["explain"], scratch, scratch / "empty-home").run(binary)[1].decode()
    names = [line.split()[0] for line in listing.splitlines() if line.strip()]
    return [Case(f"explain {n}{' --json' * j}", ["explain", n] + ["--json"] * j, scratch, scratch / "empty-home") for n in names for j in (0, 1)]


def first_difference(a: bytes, b: bytes) -> str:
    lines = list(difflib.unified_diff(a.decode(errors="replace").splitlines(), b.decode(errors="replace").splitlines(), "old", "new", n=1, lineterm=""))
    return "\n".join(lines[:12])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--large", action="store_true", help="also the 20,000-file library (L)")
    ap.add_argument("--only", type=re.compile, help="only the runs whose name matches this regex")
    ap.add_argument("--keep", type=Path, help="build the inputs here and keep them")
    ap.add_argument("--verbose", action="store_true", help="name every case")
    args = ap.parse_args()
    for b in (args.old, args.new):
        if not os.access(b, os.X_OK):
            print(f"compare-outputs: {b}: not an executable", file=sys.stderr)
            return 2
    old, new = os.path.abspath(args.old), os.path.abspath(args.new)
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="ccmem-compare-"))
    try:
        if scratch.exists() and args.keep:
            shutil.rmtree(scratch)
        scratch.mkdir(parents=True, exist_ok=True)
        todo = cases(scratch, args.large)
        todo += explain_cases(old, scratch)
        if args.only:
            todo = [c for c in todo if args.only.search(c.name)]
        differ = 0
        for case in todo:
            a, b = case.run(old), case.run(new)
            if a == b:
                if args.verbose:
                    print(f"same  {case.name} (exit {a[0]}, {len(a[1])} bytes)")
                continue
            differ += 1
            print(f"DIFF  {case.name}")
            if a[0] != b[0]:
                print(f"  exit status {a[0]} -> {b[0]}")
            for what, x, y in (("stdout", a[1], b[1]), ("stderr", a[2], b[2])):
                if x != y:
                    print(f"  {what}:\n{first_difference(x, y)}")
        print(f"{len(todo) - differ} of {len(todo)} runs identical (stdout, stderr, exit status)")
        return 1 if differ else 0
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
