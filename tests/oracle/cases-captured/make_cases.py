#!/usr/bin/env python3
"""Writes the auto-memory cases of SPEC-automemory §14 that the shared fixtures lack.

Each case folder gets case.json (cwd, env, setup, args) and tree/.keep, in the shared layout;
expected.txt is then captured from the real client, one case at a time:
  python3 /work/shared/oracle/capture.py CASE --claude /work/client/package/claude --write
Run:  python3 make_cases.py   (rewrites case.json files, keeps expected.txt)
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
SLUG = open(os.path.join(HERE, "slug_prefix.txt")).read()
DEFAULT_M = 'M="$HOME/.claude/projects/$(slug "$ROOT/repo")/memory"; mkdir -p "$M"'


def files_py(dest_var, files, mtimes=None):
    """A python heredoc writing {relpath: bytes} under $dest_var (mtimes: {relpath: seconds})."""
    lines = ["python3 - \"$%s\" <<'PYEOF'" % dest_var, "import sys, os", "M = sys.argv[1]"]
    for rel, data in files.items():
        lines.append(f"os.makedirs(os.path.dirname(os.path.join(M, {rel!r})), exist_ok=True)")
        code = data[1] if isinstance(data, tuple) else repr(data)  # ("expr", python) for big files
        lines.append(f"open(os.path.join(M, {rel!r}), 'wb').write({code})")
    for rel, t in (mtimes or {}).items():
        lines.append(f"os.utime(os.path.join(M, {rel!r}), ({t}, {t}))")
    lines.append("PYEOF")
    return "\n".join(lines)


def numbered(n, width=0):
    return "".join(f"- memory line {i}{'x' * width}\n" for i in range(1, n + 1)).encode()


CASES = {}


def case(name, description, memory=None, pre="git init -q repo", post="", cwd="repo", env=None,
         args=None, mtimes=None, mvar_line=DEFAULT_M):
    parts = [SLUG, pre + ("; " + mvar_line if mvar_line else "")]
    if memory is not None:
        parts.append(files_py("M", memory, mtimes))
    if post:
        parts.append(post)
    spec = {"description": description, "cwd": cwd, "setup": "\n".join(parts)}
    if env:
        spec["env"] = env
    if args:
        spec["args"] = args
    CASES["mem-" + name] = spec


case("lines-200", "exactly 200 lines: loaded whole, no warning", {"MEMORY.md": numbered(200)})
case("lines-200-trailing-blank", "200 lines then blank lines: trim first, so no cut",
     {"MEMORY.md": numbered(200) + b"\n\n  \n\t\n"})
case("lines-201", "201 lines: 1 of 201 lines were cut off, starting at line 201",
     {"MEMORY.md": numbered(201)})
case("size-line1-exactly-25000", "line 1 is exactly 25000 units: the newline at index 25000 counts, line 1 kept",
     {"MEMORY.md": b"a" * 25000 + b"\n- second line is dropped\n"})
case("size-and-lines-both-cut", "210 long lines: line cut first, then size cut; warning names both",
     {"MEMORY.md": "".join(f"- entry {i:03d} " + "w" * 196 + "\n" for i in range(1, 211)).encode()})
case("size-and-lines-line-cut-only", "250 lines over 25000 units, first 200 lines fit: only the line cut",
     {"MEMORY.md": "".join(f"- entry {i:03d} " + "w" * 100 + "\n" for i in range(1, 251)).encode()})
case("size-cjk-not-bytes", "24000 CJK characters (72 KB of UTF-8) count 24000 units: no cut",
     {"MEMORY.md": ("expr", '("\\n".join("- " + "\\u4e2d" * 238 for _ in range(100)) + "\\n").encode()')})
case("size-combining-marks", "e + U+0301 pairs in one line: marks count separately, hard cut at 25000 units",
     {"MEMORY.md": ("e\u0301" * 13000 + "\n- next\n").encode()})
case("fm-basic", "frontmatter block removed", {"MEMORY.md": b"---\nname: index\ndescription: the index\n---\n- body line\n"})
case("fm-closing-midline", "the closing --- need not start a line: body starts after a---",
     {"MEMORY.md": b"---\nname: a---b\n- rest line\n"})
case("fm-only-empty", "frontmatter only: no block", {"MEMORY.md": b"---\nname: x\n---\n\n"})
case("fm-paths-ignored", "paths: in MEMORY.md frontmatter does not make it conditional",
     {"MEMORY.md": b"---\npaths:\n  - 'src/**'\n---\n- always loaded\n"})
case("cmt-unterminated", "unterminated <!-- is kept (runs to EOF)",
     {"MEMORY.md": b"- before\n\n<!-- never closed\n- after\n"})
case("cmt-blockquote-kept", "a comment nested in a blockquote is kept",
     {"MEMORY.md": b"> quote\n> <!-- inside quote -->\n\n- list\n  <!-- in list item -->\n- end\n"})
case("cmt-lines-not-counted", "a 150-line comment plus 200 lines: comment lines do not count, no cut",
     {"MEMORY.md": b"<!--\n" + b"".join(b"hidden %d\n" % i for i in range(150)) + b"-->\n" + numbered(200)})
case("sanitize-controls", "C0/C1 controls removed, tab kept, NUL removed",
     {"MEMORY.md": b"- a\x07b\x1bc\x7fd\xc2\x85e\x00f\tg\x0bh\x0ci\x01j\xc2\x9fk\n- ok\n"})
case("sanitize-tag-variants", "reserved tag neutralizing variants",
     {"MEMORY.md": b"- </system-reminder> x\n- < system-reminder> x\n- <System-Reminder> x\n- <system-reminderx> x\n"
                   b"- <invoke> <cited> <b> &lt;system-reminder> x\n- <system-reminder/> x\n- <channel> </channel> x\n"
                   b"- <channel source=\"s\"> x\n- <tick> <ticket> <bash-stdout> <system_reminder> <function_results> x\n"
                   b"- <!system-reminder> <\"system-reminder\"> </ system-reminder > x\n"})
case("sanitize-tag-lookalikes", "reserved tags written with lookalike openers, letters and dashes are neutralized too",
     {"MEMORY.md": "".join(f"- {i} {v} end\n" for i, v in enumerate([
         "\uff1csystem-reminder>", "\ufe64system-reminder>", "\u2039system-reminder>", "\u3008system-reminder>",
         "<\u0455ystem-reminder>", "<SYSTEM\u2010REMINDER>", "<system\u2013reminder>", "<system-re\u0301minder>",
         "<\nsystem-reminder>", "<\u00a0system-reminder>", "<sy\u200bstem-reminder>", "<\uff53ystem-reminder>",
         "<invoke>", "<\u017ftick>", "< /tick>", "<<tick>", "<tick\u00e9>", "<syst\u00e9m-reminder>",
         "<\U0001d42dick>", "<a tick>", "\u27eatick>", "\u226atick>", "<ti\u0441k>", "<x-channel source=x>",
         "<tick_>", "<\u2017tick>", "<tick\u2010x>"])).encode()})
case("memory-md-broken-symlink", "dangling MEMORY.md link: no block, and it blocks the backfill",
     {"topic.md": b"---\ndescription: a topic\n---\nbody\n"}, post='ln -s "$ROOT/nowhere.md" "$M/MEMORY.md"')
case("backfill-scan-rules", "backfill scan: hidden/excluded segments, hard links, symlinks, nested MEMORY.md dropped",
     {"keep.md": b"---\ndescription: kept  one\n---\n", "Sessions.md": b"x\n", "logs/x.md": b"x\n",
      ".hidden/x.md": b"x\n", "sub/.h.md": b"x\n", "sub/Team/x.md": b"x\n", "sub/MEMORY.md": b"x\n",
      "sub/ok.md": b"---\ndescription: \"tab\\tand\\nnewline\"\n---\n", "hard.md": b"x\n", "proposals./p.md": b"x\n",
      "a b.md": b"x\n"},
     mtimes={"keep.md": 1700000900, "Sessions.md": 1700000800, "sub/ok.md": 1700000700, "hard.md": 1700000600,
             "a b.md": 1700000500},
     post='ln "$M/hard.md" "$M/hard-twin.txt"; ln -s "$M/keep.md" "$M/link.md"')
case("backfill-cap-140", "150 topic files: the generated index stops at 140 lines, newest first",
     {f"t{i:03d}.md": f"---\ndescription: topic number {i}\n---\n".encode() for i in range(150)},
     mtimes={f"t{i:03d}.md": 1700000000 + i for i in range(150)})
case("backfill-description-types", "backfill: non-string descriptions are ignored, folded scalars joined, broken YAML retried with quoted values",
     {"a.md": b"---\ndescription: 123\n---\n", "b.md": b"---\ndescription: plain text\n---\n",
      "c.md": b"---\ndescription: [x, y]\n---\n", "d.md": b"---\nname: d\ndescription: >\n  folded\n  text\n---\n",
      "e.md": b"---\ndescription: 'bad: yaml: [\n---\n", "f.md": b"---\ndescription: true\n---\n",
      "g.md": b"---\ndescription: uses a: colon\n---\n"},
     mtimes={"a.md": 1700000007, "b.md": 1700000006, "c.md": 1700000005, "d.md": 1700000004, "e.md": 1700000003,
             "f.md": 1700000002, "g.md": 1700000001})
case("dir-no-git", "no git: the cwd itself is the key", {"MEMORY.md": b"- no git\n"},
     pre="mkdir -p proj", mvar_line='M="$HOME/.claude/projects/$(slug "$ROOT/proj")/memory"; mkdir -p "$M"', cwd="proj")
case("dir-empty-dotgit", "an empty .git folder makes a git root", {"MEMORY.md": b"- empty dotgit root\n"},
     pre="mkdir -p repo/.git repo/sub", cwd="repo/sub")
case("dir-worktree", "linked worktree shares the main checkout's memory", {"MEMORY.md": b"- main checkout memory\n"},
     pre="git init -q repo; git -C repo -c user.email=a@b -c user.name=n commit -q --allow-empty -m i; "
         "git -C repo worktree add -q ../wt",
     post='mkdir -p "$HOME/.claude/projects/$(slug "$ROOT/wt")/memory"; echo "- worktree (must not load)" > "$HOME/.claude/projects/$(slug "$ROOT/wt")/memory/MEMORY.md"',
     cwd="wt")
case("dir-submodule", "submodule (.git file to .git/modules/x, no commondir): its own root",
     {"MEMORY.md": b"- outer (must not load)\n"},
     pre="git init -q repo; mkdir -p repo/.git/modules/sub repo/sub; echo 'gitdir: ../.git/modules/sub' > repo/sub/.git",
     post='S="$HOME/.claude/projects/$(slug "$ROOT/repo/sub")/memory"; mkdir -p "$S"; echo "- submodule root" > "$S/MEMORY.md"',
     cwd="repo/sub")
case("dir-setting-sources-user", "--setting-sources user: the project autoMemoryDirectory is not read",
     {"MEMORY.md": b"- default (must not load)\n"},
     post='mkdir -p repo/.claude "$HOME/usermem" "$ROOT/projmem"; echo \'{"autoMemoryDirectory": "~/usermem"}\' > "$HOME/.claude/settings.json"; '
          'echo "{\\"autoMemoryDirectory\\": \\"$ROOT/projmem\\"}" > repo/.claude/settings.json; '
          'echo "- user settings" > "$HOME/usermem/MEMORY.md"; echo "- project (must not load)" > "$ROOT/projmem/MEMORY.md"',
     args=["--setting-sources", "user"])
case("dir-config-dir-relative", "relative CLAUDE_CONFIG_DIR stays relative (to the process cwd) and is printed so",
     {"MEMORY.md": b"- relative config dir\n"},
     mvar_line='M="$ROOT/repo/cfg/projects/$(slug "$ROOT/repo")/memory"; mkdir -p "$M"', env={"CLAUDE_CONFIG_DIR": "cfg"})
case("dir-project-dir-name", "CLAUDE_CODE_PROJECT_DIR_NAME with CLAUDE_CONFIG_DIR names the folder",
     {"MEMORY.md": b"- named folder\n"},
     mvar_line='M="$ROOT/cfg/projects/named/memory"; mkdir -p "$M"',
     post='mkdir -p "$ROOT/cfg/projects/$(slug "$ROOT/repo")/memory"; echo "- slug (must not load)" > "$ROOT/cfg/projects/$(slug "$ROOT/repo")/memory/MEMORY.md"',
     env={"CLAUDE_CONFIG_DIR": "{ROOT}/cfg", "CLAUDE_CODE_PROJECT_DIR_NAME": "named"})
case("dir-project-dir-name-no-config-dir", "CLAUDE_CODE_PROJECT_DIR_NAME without CLAUDE_CONFIG_DIR is ignored",
     {"MEMORY.md": b"- slug folder\n"},
     post='mkdir -p "$HOME/.claude/projects/named/memory"; echo "- named (must not load)" > "$HOME/.claude/projects/named/memory/MEMORY.md"',
     env={"CLAUDE_CODE_PROJECT_DIR_NAME": "named"})
case("off-memory-stores", "CLAUDE_MEMORY_STORES=[]: the auto-memory entry is filtered, CLAUDE.md stays",
     {"MEMORY.md": b"- memory (must not load)\n"}, post='echo "project instructions still load" > repo/CLAUDE.md',
     env={"CLAUDE_MEMORY_STORES": "[]"})
case("off-remote", "CLAUDE_CODE_REMOTE=1 without a memory folder override: off, CLAUDE.md stays",
     {"MEMORY.md": b"- memory (must not load)\n"}, post='echo "project instructions still load" > repo/CLAUDE.md',
     env={"CLAUDE_CODE_REMOTE": "1"})

for name, spec in CASES.items():
    d = os.path.join(HERE, name)
    os.makedirs(os.path.join(d, "tree"), exist_ok=True)
    open(os.path.join(d, "tree", ".keep"), "w").close()
    json.dump(spec, open(os.path.join(d, "case.json"), "w"), indent=1, ensure_ascii=False)
    open(os.path.join(d, "case.json"), "a").write("\n")
print(len(CASES), "cases")
