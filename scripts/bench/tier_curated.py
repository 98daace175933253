#!/usr/bin/env python3
"""How close `ccmem tier --write` comes to a careful curator's plan, on the curated corpus
(tests/fixtures/curated/, README.md there): for each library, at each of its targets, a fresh
copy is restructured and measured against the curator's marks in its expect.toml.

    scripts/bench/tier_curated.py [--bin target/release/ccmem] [--only NAME ...]
                                  [--json OUT.json] [--markdown] [-v]

Per library and target it reports:
  kept      load-bearing entries in the loaded index afterwards (the part of MEMORY.md within the
            client's cut: 200 lines, then 25,000 UTF-16 units) / all load-bearing entries; a run
            tier refused (exit 2, nothing written) delivered nothing at a target the curator
            reaches: it counts 0 in the overall figure (the table shows what the unchanged index
            still loads), and the figure for the runs that wrote is given beside it
  before    the same count before tier ran (an index over the cap has dark entries)
  crowns    crowns (crown headings, crowned entries, `[tier] pins`) not in the loaded index
  split     the user's sections whose movable entries (the ones not load-bearing) ended up in more
            than one place (MEMORY.md or a hub); a section with more movable entries than one
            group may hold (15) may be split, but not across a topic the curator named
  dup-h     headings that appear more than once in MEMORY.md afterwards
  topics    topics of flat lists whose entries ended up in more than one place
  unread    entries the client cannot read (unreadable frontmatter) that ended up apart from
            their section or topic
  ptr       pointer lines tier wrote (new lines of MEMORY.md holding a link) with a problem, and
            the problems: type name as the topic, a count, `.md` in the text, an ellipsis, over
            150 UTF-16 units
  gen       new non-pointer lines in MEMORY.md (headings like `## Hubs`, `- More hubs:`)
  hubs>100  files tier created or changed holding more than 100 lines (the audit's
            max-file-lines); hubs>15: hubs tier created holding more than 15 entry lines (the
            audit's max-group-entries); hub descriptions (`description:`) are checked as pointer
            lines are
  new       findings of `ccmem audit --format json` afterwards that were not there before, by
            rule; a finding is known by its rule and message, so one that moved with its line
            into a hub is not new (as tier_corpus.rs judges moved findings)
  lines     MEMORY.md's lines afterwards (the target's line budget beside it)

With --compress-check it also runs `tier --compress --json` (dry run) at the first target and
counts suggestions that cut inside a word (the last kept character and the next one both
letters or digits, in any script) or end in an ellipsis, and the ones that match a cut the
curator listed in `long`.

Stdlib only. Runs one ccmem at a time (the machine is shared); HOME is an empty temp folder,
CCMEM_NOW fixed, so runs compare.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.path.join(ROOT, "tests", "fixtures", "curated")
NOW = "2026-12-01T09:00:00Z"
MAX_GROUP = 15
MAX_FILE_LINES = 100
POINTER_UNITS = 150
JS_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
LINK = re.compile(r"\]\(<?([^)>#\s]+)")
ENTRY = re.compile(r"^\s*(?:[-*+]|\d+\.)\s.*(?:\]\(|\[\[)")
TYPE_NAMES = {"user", "users", "feedback", "feedbacks", "project", "projects", "reference", "references", "other", "others"}


def utf16(s):
    return len(s.encode("utf-16-le")) // 2


def strip_comments(text):
    """HTML comment blocks as the client strips them from MEMORY.md (SPEC-automemory 6): a block
    that starts a line and ends on a line with nothing after `-->` goes, with the blank lines
    after it (the shapes the corpus has)."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        l = lines[i]
        if l.lstrip(" ").startswith("<!--") and len(l) - len(l.lstrip(" ")) <= 3:
            j = i
            while j < len(lines) and "-->" not in lines[j]:
                j += 1
            if j < len(lines) and lines[j].split("-->", 1)[1].strip() == "":
                i = j + 1
                while i < len(lines) and lines[i] == "":
                    i += 1
                continue
        out.append(l)
        i += 1
    return "\n".join(out)


def loaded_part(text):
    """The part of MEMORY.md the client loads (SPEC-automemory 7): comments stripped, trimmed,
    the first 200 lines, then cut at the last newline within 25,000 UTF-16 units."""
    t = strip_comments(text).strip(JS_SPACE)
    lines = t.split("\n")
    if len(lines) > 200:
        t = "\n".join(lines[:200])
    if utf16(t) > 25000:
        head = t.encode("utf-16-le")[: 2 * 25001].decode("utf-16-le", errors="ignore")
        cut = head.rfind("\n")
        t = head[:cut] if cut > 0 else head[:25000]
    return t


def file_lines(text):
    """Lines as the audit counts them (`str::lines`)."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def md_files(folder):
    out = {}
    for d, _dirs, files in os.walk(folder):
        if ".ccmem" in d.split(os.sep):
            continue
        for n in files:
            if n.endswith(".md"):
                p = os.path.join(d, n)
                out[os.path.relpath(p, folder)] = read(p)
    return out


def ccmem(binary, home, args):
    env = {k: v for k, v in os.environ.items()
           if k not in ("CLAUDE_CODE_SESSION_ID", "CLAUDE_CONFIG_DIR", "CCMEM_FAULT_AT")}
    env.update(HOME=home, CCMEM_NOW=NOW, NO_COLOR="1")
    return subprocess.run([binary] + args, env=env, capture_output=True, text=True)


def findings(binary, home, memory):
    """The audit's findings by rule and message (no file, no line), so a finding that only moved
    with its line into a hub is the same one (as tier_corpus.rs judges a moved finding)."""
    out = ccmem(binary, home, ["audit", memory, "--format", "json"])
    try:
        doc = json.loads(out.stdout)
    except json.JSONDecodeError:
        return None
    m = collections.Counter()
    for d in doc.get("diagnostics", []):
        m[(d["rule"], d["message"])] += 1
    return m


class Where:
    """Where each marked line is in a library: the loaded part of MEMORY.md, the rest of it,
    or which other file."""

    def __init__(self, files):
        self.files = files
        self.index = files.get("MEMORY.md", "")
        self.loaded = set(l.strip() for l in loaded_part(self.index).split("\n"))
        self.index_lines = set(l.strip() for l in self.index.split("\n"))
        self.lines_of = {n: set(l.strip() for l in t.split("\n")) for n, t in files.items() if n != "MEMORY.md"}
        self.names = {}
        for n, t in files.items():
            m = re.match(r"\ufeff?---\s*\n(?:.*\n)*?name:\s*[\"']?([^\"'\n]+?)[\"']?\s*\n", t)
            if m:
                self.names[n] = m.group(1).strip()

    def of_line(self, line):
        parts = [p.strip() for p in line.split("\n")]
        if all(p in self.loaded for p in parts):
            return "loaded"
        if all(p in self.index_lines for p in parts):
            return "dark"
        for n, ls in self.lines_of.items():
            if all(p in ls for p in parts):
                return n
        return None

    def of_file(self, target):
        alt = ""
        name = self.names.get(target)
        if name:  # a `[[name]]` reaches the file by its frontmatter name
            alt = r"|\[\[" + re.escape(name) + r"\]\]"
        pat = re.compile(r"\]\(<?(?:\./)?" + re.escape(target) + r"(?:#[^)]*)?>?\)" + alt)
        loaded = loaded_part(self.index)
        if pat.search(loaded):
            return "loaded"
        if pat.search(self.index):
            return "dark"
        # Outside MEMORY.md, the file that links it by path holds its entry: topic files that
        # mention its `[[name]]` (a cluster's members) do not.
        by_path = re.compile(r"\]\(<?(?:\./)?" + re.escape(target) + r"(?:#[^)]*)?>?\)")
        for p in (by_path, pat):
            for n, t in self.files.items():
                if n != "MEMORY.md" and n != target and p.search(t):
                    return n
        return None

    def of(self, item):
        """An item of expect.toml: a dict with `line` (and `file`), or a list entry (a file name
        or an exact line)."""
        if isinstance(item, dict):
            w = self.of_line(item["line"]) if "line" in item else None
            if w is None and item.get("file"):
                w = self.of_file(item["file"])
            return w or "missing"
        if re.fullmatch(r"[^\s]+\.md", item):
            return self.of_file(item) or "missing"
        return self.of_line(item) or "missing"


def place(w):
    return "MEMORY.md" if w in ("loaded", "dark") else w


def pointer_problems(line):
    """What is wrong with a pointer line as a retrieval key (issue 24, rule 8)."""
    probs = []
    texts = re.findall(r"\[([^\]]*)\]\(", line)
    if any(t.strip().lower() in TYPE_NAMES for t in texts) or re.search(r"\bHub of the\b", line):
        probs.append("type-name")
    if re.search(r"\b\d+\s+(entries|entry|memories|items|files|lines)\b", line):
        probs.append("count")
    if ".md" in re.sub(r"\]\([^)]*\)", "]", line).replace("MEMORY.md", ""):
        probs.append(".md")
    if "…" in line or "..." in line:
        probs.append("ellipsis")
    if utf16(line) > POINTER_UNITS:
        probs.append(">150")
    return probs


def description_of(text):
    m = re.search(r"^description:\s*(.*)$", text, re.M)
    if not m:
        return None
    d = m.group(1).strip()
    if len(d) >= 2 and d[0] == d[-1] and d[0] in "\"'":
        d = d[1:-1]
    return d


def description_problems(desc):
    probs = []
    if re.search(r"\bHub of the\b", desc) or desc.strip().lower() in TYPE_NAMES:
        probs.append("type-name")
    if re.search(r"\b\d+\s+(entries|entry|memories|items|files)\b", desc):
        probs.append("count")
    if ".md" in desc.replace("MEMORY.md", ""):
        probs.append(".md")
    if "…" in desc or "..." in desc:
        probs.append("ellipsis")
    if utf16(desc) > POINTER_UNITS:
        probs.append(">150")
    return probs


def word_char(c):
    return c.isalnum() or c == "_"


def measure_run(lib, expect, target, binary, verbose):
    """Restructure a fresh copy at `target` and measure it."""
    tmp = tempfile.mkdtemp(prefix="tier-curated-")
    try:
        memory, home = os.path.join(tmp, "memory"), os.path.join(tmp, "home")
        shutil.copytree(os.path.join(lib, "memory"), memory)
        os.makedirs(home)
        before_files = md_files(memory)
        before = Where(before_files)
        audit_before = findings(binary, home, memory)
        t0 = time.monotonic()
        run = ccmem(binary, home, ["tier", memory, "--write", "--target-lines", str(target["lines"]),
                                   "--target-utf16", str(target["utf16"]), "--json"])
        took = time.monotonic() - t0
        after_files = md_files(memory)
        after = Where(after_files)
        r = {"target": target, "exit": run.returncode, "seconds": round(took, 3)}
        if run.returncode != 0:
            r["refused"] = (run.stderr.strip().splitlines() or ["?"])[-1]
        lb = expect.get("load-bearing", [])
        r["load_bearing"] = len(lb)
        r["kept_before"] = sum(1 for x in lb if before.of(x) == "loaded")
        lost = [x for x in lb if after.of(x) != "loaded"]
        r["kept"] = len(lb) - len(lost)
        r["not_kept"] = [{"why": x["why"], "line": x["line"], "now": after.of(x)} for x in lost]
        crowns = expect.get("crowns", [])
        moved_crowns = []
        for c in crowns:
            w = after.of_file(c["file"]) if c["kind"] == "pin" else after.of_line(c["line"])
            if w != "loaded":
                moved_crowns.append({"kind": c["kind"], "marker": c["marker"],
                                     "line": c.get("line", c.get("file")), "now": w or "missing"})
        r["crowns"] = len(crowns)
        r["crowns_moved"] = moved_crowns
        lbkeys = {x.get("file") or x["line"] for x in lb} | {x["line"] for x in lb}
        topics = expect.get("topics", [])
        split = []
        for s in expect.get("sections", []):
            movable = [e for e in s["entries"] if e not in lbkeys]
            places = collections.Counter(place(after.of(e)) for e in movable)
            if len(places) <= 1:
                continue
            if len(movable) > MAX_GROUP:
                named = [t for t in topics if set(t["entries"]) <= set(movable)]
                if named and all(len({place(after.of(e)) for e in t["entries"]}) == 1 for t in named):
                    continue
                if not named:
                    continue  # a big section without named topics may be split any way
            split.append({"heading": s["heading"], "places": dict(places)})
        r["sections"] = len(expect.get("sections", []))
        r["sections_split"] = split
        idx_after = after_files.get("MEMORY.md", "").split("\n")
        heads = collections.Counter(l.strip() for l in idx_after if l.startswith("#"))
        r["headings_duplicated"] = sorted(h for h, n in heads.items() if n > 1)
        flat_topics = [t for t in topics
                       if not any(set(t["entries"]) <= set(s["entries"]) for s in expect.get("sections", []))]
        r["topics"] = len(flat_topics)
        r["topics_scattered"] = [t["name"] for t in flat_topics
                                 if len({place(after.of(e)) for e in t["entries"]}) > 1]
        unread = []
        for u in expect.get("unreadable", []):
            home_of = [s for s in expect.get("sections", []) if u in s["entries"]] + \
                      [t for t in flat_topics if u in t["entries"]]
            if not home_of:
                continue
            others = [e for e in home_of[0]["entries"] if e != u and e not in lbkeys]
            if not others:
                continue
            mine = place(after.of(u))
            theirs = collections.Counter(place(after.of(e)) for e in others).most_common(1)[0][0]
            if mine != theirs:
                unread.append({"file": u, "now": mine, "group": theirs})
        r["unreadable"] = len(expect.get("unreadable", []))
        r["unreadable_apart"] = unread
        old_index = collections.Counter(before_files.get("MEMORY.md", "").split("\n"))
        new_lines = []
        for l in idx_after:
            if old_index[l] > 0:
                old_index[l] -= 1
            else:
                new_lines.append(l)
        pointers = [l for l in new_lines if LINK.search(l)]
        probs = [(l, pointer_problems(l)) for l in pointers]
        r["pointers"] = len(pointers)
        r["pointer_problems"] = collections.Counter(p for _, ps in probs for p in ps)
        r["pointers_with_problems"] = sum(1 for _, ps in probs if ps)
        r["pointer_examples"] = [l for l, ps in probs if ps][:3]
        r["generated"] = [l for l in new_lines if l.strip() and not LINK.search(l)]
        created = sorted(n for n in after_files if n not in before_files)
        changed = sorted(n for n in after_files if n in before_files and n != "MEMORY.md"
                         and after_files[n] != before_files[n])
        r["hubs_created"] = created
        big = {n: file_lines(after_files[n]) for n in created + changed if file_lines(after_files[n]) > MAX_FILE_LINES}
        r["hubs_over_100"] = big
        r["hubs_over_15"] = {n: k for n in created
                             if (k := sum(1 for l in after_files[n].split("\n") if ENTRY.match(l))) > MAX_GROUP}
        dprobs = {}
        for n in created:
            d = description_of(after_files[n])
            ps = description_problems(d) if d is not None else ["none"]
            if ps:
                dprobs[n] = {"description": d, "problems": ps}
        r["hub_descriptions"] = dprobs
        audit_after = findings(binary, home, memory)
        if audit_before is None or audit_after is None:
            r["new_findings"] = {"audit-failed": 1}
        else:
            new = collections.Counter()
            for k, n in audit_after.items():
                if n > audit_before.get(k, 0):
                    new[k[0]] += n - audit_before.get(k, 0)
            r["new_findings"] = dict(new)
        idx = after_files.get("MEMORY.md", "")
        t = strip_comments(idx).strip(JS_SPACE)
        r["after"] = {"lines": t.count("\n") + 1, "utf16": utf16(t)}
        if verbose:
            print(f"--- {os.path.basename(lib)} {target}: exit {run.returncode}", file=sys.stderr)
            for x in r["not_kept"]:
                print(f"    not kept ({x['why']}, now {x['now']}): {x['line'][:100]}", file=sys.stderr)
        return r
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def compress_check(lib, expect, target, binary):
    tmp = tempfile.mkdtemp(prefix="tier-curated-")
    try:
        memory, home = os.path.join(tmp, "memory"), os.path.join(tmp, "home")
        shutil.copytree(os.path.join(lib, "memory"), memory)
        os.makedirs(home)
        run = ccmem(binary, home, ["tier", memory, "--compress", "--json", "--target-lines",
                                   str(target["lines"]), "--target-utf16", str(target["utf16"])])
        try:
            doc = json.loads(run.stdout)
        except json.JSONDecodeError:
            return {"error": (run.stderr.strip().splitlines() or ["?"])[-1]}
        cuts = {x["line"]: x["cuts"] for x in expect.get("long", [])}
        out = {"suggestions": 0, "mid_word": 0, "ellipsis": 0, "not_prefix": 0, "curated": 0, "examples": []}
        for s in doc.get("suggestions") or []:
            old, new = s["old"], s["new"]
            out["suggestions"] += 1
            if old in cuts and new in cuts[old]:
                out["curated"] += 1
            kept = new.rstrip()
            if kept.endswith("…") or kept.endswith("..."):
                out["ellipsis"] += 1
                kept = kept.rstrip("…").rstrip(".").rstrip()
            if not old.startswith(kept):
                out["not_prefix"] += 1
                continue
            nxt = old[len(kept):len(kept) + 1]
            if kept and nxt and word_char(kept[-1]) and word_char(nxt):
                out["mid_word"] += 1
                if len(out["examples"]) < 2:
                    out["examples"].append(new[-40:])
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def libraries(only):
    libs = sorted(d for d in os.listdir(CORPUS) if os.path.isdir(os.path.join(CORPUS, d, "memory")))
    return [d for d in libs if not only or d in only]


def summarize(results):
    tot = collections.Counter()
    for name, runs in results.items():
        for r in runs["runs"]:
            tot["runs"] += 1
            tot["lb"] += r["load_bearing"]
            tot["kept"] += 0 if "refused" in r else r["kept"]
            tot["kept_before"] += r["kept_before"]
            tot["refused"] += 1 if "refused" in r else 0
            if "refused" not in r:
                tot["written"] += 1
                tot["lb_written"] += r["load_bearing"]
                tot["kept_written"] += r["kept"]
            tot["crowns"] += r["crowns"]
            tot["crowns_moved"] += len(r["crowns_moved"])
            tot["sections"] += r["sections"]
            tot["split"] += len(r["sections_split"])
            tot["dup"] += len(r["headings_duplicated"])
            tot["topics"] += r["topics"]
            tot["scattered"] += len(r["topics_scattered"])
            tot["unreadable"] += r["unreadable"]
            tot["unread_apart"] += len(r["unreadable_apart"])
            tot["pointers"] += r["pointers"]
            tot["bad_pointers"] += r["pointers_with_problems"]
            tot["generated"] += len(r["generated"])
            tot["hubs"] += len(r["hubs_created"])
            tot["hubs_over_100"] += len(r["hubs_over_100"])
            tot["hubs_over_15"] += len(r["hubs_over_15"])
            tot["bad_desc"] += len(r["hub_descriptions"])
            tot["new_findings"] += sum(r["new_findings"].values())
            tot["runs_with_new"] += 1 if r["new_findings"] else 0
            for k, v in r["pointer_problems"].items():
                tot["ptr:" + k] += v
    return tot


def table(results, compress):
    head = ("| library | target | kept | before | crowns moved | split | dup-h | topics scattered | "
            "unread apart | bad ptr / ptr | gen | hubs>15 | hubs>100 | new findings | lines |")
    out = [head, "|" + "---|" * 15]
    for name, runs in results.items():
        for r in runs["runs"]:
            t = r["target"]
            kept = f"refused ({r['kept']} load)" if "refused" in r else f"{r['kept']}/{r['load_bearing']}"
            nf = ", ".join(f"{k} {v}" for k, v in sorted(r["new_findings"].items())) or "0"
            topics = f"{len(r['topics_scattered'])}/{r['topics']}" if r["topics"] else "–"
            out.append(f"| {name} | {t['lines']}/{t['utf16']} | {kept} | {r['kept_before']} | "
                       f"{len(r['crowns_moved'])}/{r['crowns']} | {len(r['sections_split'])}/{r['sections']} | "
                       f"{len(r['headings_duplicated'])} | {topics} | "
                       f"{len(r['unreadable_apart'])}/{r['unreadable']} | "
                       f"{r['pointers_with_problems']}/{r['pointers']} | {len(r['generated'])} | "
                       f"{len(r['hubs_over_15'])}/{len(r['hubs_created'])} | {len(r['hubs_over_100'])} | {nf} | "
                       f"{r['after']['lines']} |")
    tot = summarize(results)
    pp = ", ".join(f"{k[4:]} {v}" for k, v in sorted(tot.items()) if k.startswith("ptr:"))
    out.append("")
    out.append(f"**Overall**: load-bearing kept in the loaded index {tot['kept']}/{tot['lb']} "
               f"({100 * tot['kept'] / max(tot['lb'], 1):.0f}%) over {tot['runs']} runs "
               f"({tot['refused']} refused; in the {tot['written']} runs that wrote: "
               f"{tot['kept_written']}/{tot['lb_written']}); loaded before tier: {tot['kept_before']}/{tot['lb']}. "
               f"Crowns moved {tot['crowns_moved']}/{tot['crowns']}; sections split {tot['split']}/{tot['sections']}; "
               f"duplicated headings {tot['dup']}; flat topics scattered {tot['scattered']}/{tot['topics']}; "
               f"unreadable entries apart from their group {tot['unread_apart']}/{tot['unreadable']}; "
               f"pointer lines with a problem {tot['bad_pointers']}/{tot['pointers']} ({pp}); "
               f"generated non-pointer lines {tot['generated']}; hubs created {tot['hubs']}, "
               f"hubs over 15 entries {tot['hubs_over_15']}, "
               f"files over 100 lines {tot['hubs_over_100']}, hub descriptions with a problem {tot['bad_desc']}; "
               f"runs with new audit findings {tot['runs_with_new']}/{tot['runs']} ({tot['new_findings']} findings).")
    if compress:
        c = collections.Counter()
        for name, runs in results.items():
            for k, v in (runs.get("compress") or {}).items():
                if isinstance(v, int):
                    c[k] += v
        out.append(f"**--compress** (dry run, first target): {c['suggestions']} suggestions, "
                   f"{c['mid_word']} cut inside a word, {c['ellipsis']} end in an ellipsis, "
                   f"{c['not_prefix']} not a prefix of the line, {c['curated']} match a curator's cut.")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "ccmem"))
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--json", dest="json_out")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown (for the README)")
    ap.add_argument("--compress-check", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"no ccmem binary at {a.bin} (cargo build --release)")
    results = {}
    for name in libraries(a.only):
        lib = os.path.join(CORPUS, name)
        with open(os.path.join(lib, "expect.toml"), "rb") as f:
            expect = tomllib.load(f)
        runs = [measure_run(lib, expect, t, a.bin, a.verbose) for t in expect["targets"]]
        results[name] = {"runs": runs}
        if a.compress_check:
            results[name]["compress"] = compress_check(lib, expect, expect["targets"][0], a.bin)
        if not a.markdown:
            for r in runs:
                t = r["target"]
                print(f"{name:28} {t['lines']:>4}/{t['utf16']:<6} kept {r['kept']:>3}/{r['load_bearing']:<3} "
                      f"crowns moved {len(r['crowns_moved']):>2}/{r['crowns']:<2} split {len(r['sections_split'])} "
                      f"bad ptr {r['pointers_with_problems']}/{r['pointers']} hubs>100 {len(r['hubs_over_100'])} "
                      f"new {sum(r['new_findings'].values())} lines {r['after']['lines']}"
                      + (f"  REFUSED: {r['refused']}" if "refused" in r else ""), file=sys.stderr)
    if a.json_out:
        with open(a.json_out, "w", encoding="utf-8") as f:
            json.dump({"binary": a.bin, "results": results,
                       "total": dict(summarize(results))}, f, ensure_ascii=False, indent=1, default=dict)
    print(table(results, a.compress_check))


if __name__ == "__main__":
    main()
