#!/usr/bin/env python3
"""Writes the start-directory cases behind `ccmem check` (issue 12): one repository tree per
trap, and one case per start directory of that tree (same tree, another `cwd`), in the shared
case layout (tree/, case.json, expected.txt). `case.json` also names the tree and the repository
root (`"check": {"tree": NAME, "repo": "repo"}`) so tests/check_oracle.rs can run `ccmem check`
once per tree and compare every directory it reports with the client's own reminder there.

expected.txt is captured from the real client, one case at a time:
  flock /work/capture.lock python3 /work/shared/oracle/capture.py CASE --claude BIN --write
Run:  python3 make_cases.py   (rewrites tree/ and case.json, keeps expected.txt)
"""
import json, os, shutil

HERE = os.path.dirname(os.path.abspath(__file__))

TREES = {}


def tree(name, description, files, starts, setup=""):
    TREES[name] = (description, files, starts, setup)


tree("check-import-root", "root CLAUDE.md imports @AGENTS.md: expanded only when the session starts at the root",
     {"repo/CLAUDE.md": "# Repo\n\nSee @AGENTS.md\n",
      "repo/AGENTS.md": "# Agents\n\nUse pnpm. Run the tests with `pnpm test` before every commit.\n",
      "repo/packages/wrangler/package.json": "{}\n",
      "repo/packages/wrangler/src/index.ts": "export {};\n"},
     ["repo", "repo/packages/wrangler"])

tree("check-rules-linked", "rules linked to folders and files elsewhere in the repository drop out below the root",
     {"repo/.claude/rules/local.md": "Local rule: keep functions short.\n",
      "repo/shared/rules/a.md": "Shared rule A: no default exports.\n",
      "repo/shared/rules/b.md": "Shared rule B: tests next to code.\n",
      "repo/docs/style.md": "Style rule: American spelling.\n",
      "repo/apps/web/package.json": "{}\n"},
     ["repo", "repo/apps/web"],
     "ln -s ../../shared/rules repo/.claude/rules/shared; ln -s ../../docs/style.md repo/.claude/rules/style.md")

tree("check-agents-fallback", "a root AGENTS.md fallback disappears where a CLAUDE.md is on the path",
     {"repo/AGENTS.md": "Root agents guide: run make check.\n",
      "repo/packages/api/CLAUDE.md": "API notes: use the v2 client.\n",
      "repo/packages/api/pyproject.toml": "[project]\nname = \"api\"\n",
      "repo/packages/cli/Cargo.toml": "[package]\nname = \"cli\"\n"},
     ["repo", "repo/packages/api", "repo/packages/cli"])

tree("check-agents-local", "a personal CLAUDE.local.md suppresses the team's AGENTS.md",
     {"repo/AGENTS.md": "Team guide: squash before merge.\n",
      "repo/CLAUDE.local.md": "My own notes.\n"},
     ["repo"])

tree("check-names", "misnamed and misplaced files never load; a nested AGENTS.md under a root CLAUDE.md never loads",
     {"repo/CLAUDE.md": "Root instructions.\n",
      "repo/claude.md": "lowercase file\n",
      "repo/docs/agents.md": "lowercase agents\n",
      "repo/.claude/CLAUDE.local.md": "misplaced local file\n",
      "repo/sub/AGENTS.md": "nested agents guide\n",
      "repo/sub/go.mod": "module sub\n"},
     ["repo", "repo/sub"])

tree("check-rules-folder-out", ".claude/rules linked out of the repository: its rules need approval at start",
     {"repo/CLAUDE.md": "Root.\n",
      "dotfiles/rules/always.md": "Always rule.\n",
      "dotfiles/rules/scoped.md": "---\npaths: src/**\n---\nScoped rule.\n",
      "repo/src/main.ts": "x\n"},
     ["repo"],
     "mkdir -p repo/.claude; ln -s ../../dotfiles/rules repo/.claude/rules")


def slug(d):
    return d.replace("/", "-")


def main():
    for name, (description, files, starts, setup) in TREES.items():
        for start in starts:
            case = os.path.join(HERE, f"{name}--{slug(start)}")
            shutil.rmtree(os.path.join(case, "tree"), ignore_errors=True)
            for rel, text in files.items():
                p = os.path.join(case, "tree", rel)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                open(p, "w").write(text)
            spec = {"description": description, "cwd": start,
                    "setup": "git init -q repo" + ("; " + setup if setup else ""),
                    "check": {"tree": name, "repo": "repo"}}
            json.dump(spec, open(os.path.join(case, "case.json"), "w"), indent=1)
            open(os.path.join(case, "case.json"), "a").write("\n")


if __name__ == "__main__":
    main()
