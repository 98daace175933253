#!/usr/bin/env python3
"""Measures a ccmem binary against the judged corpus (tests/fixtures/judged/, README.md there).

    python3 scripts/bench/judge.py target/release/ccmem            # the report
    python3 scripts/bench/judge.py target/release/ccmem --json     # the same numbers as JSON
    python3 scripts/bench/judge.py target/release/ccmem --assert   # exit 1 below the targets
    python3 scripts/bench/judge.py target/release/ccmem --list     # every finding and its verdict

The corpus is materialized by tests/fixtures/judged/make.py into a temporary folder. Each library
is audited (`audit --format json`, and `--project` with the case's project folder) and each
repository checked (`check --format json`) with HOME pointing at an empty folder (or the
library's own `home/`), CCMEM_NOW fixed, and no client configuration of this machine. Every finding is matched to the judgements of its case:

- a `[[finding]]` it matches gives its verdict (true/false);
- a `[[trap]]` it matches (a place a rule must not report) makes it false;
- a `[[missing]]` it matches (a true problem today's rules miss) makes it true;
- nothing matched: "unjudged", listed, and left out of the precision.

Precision per rule is true / (true + false) among the findings matched. Errors' precision counts
a finding reported as an error as right only when it is true AND the curator would also call it
an error (`severity = "error"`): an error is something broken or lost. Recall is over the true
`[[finding]]` judgements (is each of today's true findings still reported?) and over `[[missing]]`
(is each problem today's rules miss found now?). The write spec each library is held to is
compared with the one it follows (`spec`).

Targets (--assert), from issue 25: audit errors >= 90% true, all audit findings >= 75% true,
check >= 90% true, every true finding of today still reported. Stdlib only.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import tomllib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "fixtures" / "judged"
NOW = "2026-12-01T00:00:00Z"
# The spec a library should be held to, by the spec it follows (`spec` in expect.toml).
SPEC_HELD = {"client": "client", "client-legacy": "client", "claude-memory-manager": "claude-memory-manager"}
TARGETS = {"audit_errors": 0.90, "audit_all": 0.75, "check_all": 0.90, "kept": 1.0}


@dataclass
class Finding:
    case: str
    command: str
    rule: str
    severity: str
    file: str
    line: int | None
    column: int | None
    message: str
    verdict: str = "unjudged"  # true | false | unjudged
    curator: str | None = None  # the severity a curator would choose, for a true finding
    source: str | None = None  # finding | trap | missing
    why: str = ""


@dataclass
class Case:
    name: str
    command: str
    expect: dict
    path: Path
    findings: list[Finding] = field(default_factory=list)
    spec: str | None = None  # the write spec the audit held a library to


def as_list(v) -> list:
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def matches(j: dict, f: Finding) -> bool:
    if f.rule not in as_list(j.get("rule")):
        return False
    if f.file not in as_list(j.get("file")):
        return False
    if "line" in j and j["line"] != f.line:
        return False
    if "column" in j and j["column"] != f.column:
        return False
    if "match" in j and j["match"] not in f.message:
        return False
    if "reported" in j and j["reported"] != f.severity:
        return False
    return True


def specificity(j: dict) -> int:
    return ("line" in j) + ("column" in j) + ("match" in j) + ("reported" in j)


def judge(case: Case) -> None:
    tables = [("finding", j) for j in case.expect.get("finding", [])]
    tables += [("trap", j) for j in case.expect.get("trap", [])]
    tables += [("missing", j) for j in case.expect.get("missing", [])]
    for f in case.findings:
        hits = [(kind, j) for kind, j in tables if matches(j, f)]
        if not hits:
            continue
        kind, j = max(hits, key=lambda h: specificity(h[1]))
        f.source, f.why = kind, j.get("why", "")
        if kind == "finding":
            f.verdict = j["verdict"]
            f.curator = j.get("severity") if f.verdict == "true" else None
        elif kind == "trap":
            f.verdict = "false"
        else:
            f.verdict = "true"
            f.curator = j.get("severity")


def run(argv: list[str], cwd: Path, home: Path) -> dict:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "CCMEM_NOW": NOW,
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
    }
    out = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    if out.returncode not in (0, 1):
        raise SystemExit(f"judge.py: {' '.join(argv)} in {cwd}: exit {out.returncode}\n{out.stderr}")
    return json.loads(out.stdout)


def rel(path: str, root: Path) -> str:
    p = Path(path)
    if not p.is_absolute():
        p = (root / p)
    try:
        r = os.path.relpath(p, root)
    except ValueError:
        return path
    return "." if r in (".", "") else r.replace(os.sep, "/")


def audit(ccmem: str, case: Case, empty_home: Path) -> None:
    memory = case.path / case.expect.get("memory", "memory")
    home = case.path / case.expect["home"] if "home" in case.expect else empty_home
    argv = [ccmem, "audit", "--format", "json", str(memory)]
    if "project" in case.expect:
        # The memory folder is not under HOME's projects/: the project is named (stale-reference).
        argv += ["--project", str(case.path / case.expect["project"])]
    doc = run(argv, case.path, home)
    case.spec = (doc.get("libraries") or [{}])[0].get("spec")
    for d in doc["diagnostics"]:
        case.findings.append(Finding(
            case.name, "audit", d["rule"], d["severity"], rel(d["path"], memory),
            d.get("line"), d.get("column"), d.get("message", ""),
        ))


def check(ccmem: str, case: Case, empty_home: Path) -> None:
    tree = case.path / case.expect.get("tree", "tree")
    doc = run([ccmem, "check", "--format", "json", "."], tree, empty_home)
    for d in doc["findings"]:
        case.findings.append(Finding(
            case.name, "check", d["rule"], d["severity"], rel(d["path"], tree),
            d.get("line"), d.get("column"), d.get("message", ""),
        ))


def ratio(a: int, b: int) -> float | None:
    return a / b if b else None


def pct(x: float | None) -> str:
    return "   -  " if x is None else f"{100 * x:5.1f}%"


def measure(cases: list[Case], command: str) -> dict:
    mine = [c for c in cases if c.command == command]
    found = [f for c in mine for f in c.findings]
    per_rule: dict[str, dict] = defaultdict(lambda: defaultdict(int))
    for f in found:
        r = per_rule[f.rule]
        r["reported"] += 1
        r[f.verdict] += 1
        if f.severity == "error":
            r["errors"] += 1
            if f.verdict != "unjudged":
                r["errors_judged"] += 1
            if f.verdict == "true" and f.curator == "error":
                r["errors_right"] += 1
    rules = {}
    for name, r in sorted(per_rule.items()):
        rules[name] = {
            "reported": r["reported"], "true": r["true"], "false": r["false"],
            "unjudged": r["unjudged"], "precision": ratio(r["true"], r["true"] + r["false"]),
            "errors": r["errors"], "errors_precision": ratio(r["errors_right"], r["errors_judged"]),
        }
    t = sum(1 for f in found if f.verdict == "true")
    fa = sum(1 for f in found if f.verdict == "false")
    errs = [f for f in found if f.severity == "error" and f.verdict != "unjudged"]
    errs_right = sum(1 for f in errs if f.verdict == "true" and f.curator == "error")
    errs_true = sum(1 for f in errs if f.verdict == "true")
    # Recall of today's true findings, and of what today's rules miss.
    baseline, kept, lost = 0, 0, []
    wanted, got, missed = 0, 0, []
    for c in mine:
        for j in c.expect.get("finding", []):
            if j.get("verdict") != "true":
                continue
            baseline += 1
            if any(matches(j, f) for f in c.findings):
                kept += 1
            else:
                lost.append(f"{c.name}: {j['rule']} {j['file']}:{j.get('line', '')} ({j.get('why', '')})")
        for j in c.expect.get("missing", []):
            wanted += 1
            if any(matches(j, f) for f in c.findings):
                got += 1
            else:
                missed.append(f"{c.name}: {'/'.join(as_list(j['rule']))} {', '.join(as_list(j['file']))}"
                              f"{':' + str(j['line']) if 'line' in j else ''}")
    spec_wrong = [
        f"{c.name}: held to {c.spec}, follows {c.expect['spec']}"
        for c in mine
        if "spec" in c.expect and c.spec is not None and c.spec != SPEC_HELD.get(c.expect["spec"])
    ]
    return {
        "cases": len(mine),
        "spec_right": [len([c for c in mine if "spec" in c.expect]) - len(spec_wrong),
                       len([c for c in mine if "spec" in c.expect])],
        "spec_wrong": spec_wrong,
        "findings": len(found),
        "true": t,
        "false": fa,
        "unjudged": sum(1 for f in found if f.verdict == "unjudged"),
        "precision": ratio(t, t + fa),
        "errors": len([f for f in found if f.severity == "error"]),
        "errors_precision": ratio(errs_right, len(errs)),
        "errors_true_any_severity": ratio(errs_true, len(errs)),
        "kept": ratio(kept, baseline),
        "kept_count": [kept, baseline],
        "lost": lost,
        "missing_recall": ratio(got, wanted),
        "missing_count": [got, wanted],
        "missed": missed,
        "rules": rules,
        "unjudged_findings": [
            f"{f.case}: {f.rule} {f.file}:{f.line or ''} [{f.severity}] {f.message[:120]}"
            for f in found if f.verdict == "unjudged"
        ],
    }


def report(m: dict, title: str) -> None:
    print(f"## {title}: {m['cases']} cases, {m['findings']} findings "
          f"({m['true']} true, {m['false']} false, {m['unjudged']} unjudged)")
    print(f"precision {pct(m['precision'])}   errors' precision {pct(m['errors_precision'])} "
          f"of {m['errors']} errors (true at any severity: {pct(m['errors_true_any_severity'])})")
    k, b = m["kept_count"]
    g, w = m["missing_count"]
    print(f"today's true findings kept {k}/{b} ({pct(m['kept'])})   missed problems found {g}/{w} ({pct(m['missing_recall'])})")
    if m["spec_right"][1]:
        print(f"write spec detected right {m['spec_right'][0]}/{m['spec_right'][1]}")
    print()
    print(f"{'rule':34} {'reported':>8} {'true':>5} {'false':>5} {'unjud':>5} {'precision':>9} {'errors':>6} {'err prec':>8}")
    for name, r in m["rules"].items():
        print(f"{name:34} {r['reported']:8} {r['true']:5} {r['false']:5} {r['unjudged']:5} "
              f"{pct(r['precision']):>9} {r['errors']:6} {pct(r['errors_precision']):>8}")
    for label, key in (("held to the wrong spec", "spec_wrong"), ("unjudged", "unjudged_findings"), ("true findings no longer reported", "lost"),
                       ("missed problems", "missed")):
        if m[key]:
            print(f"\n{label} ({len(m[key])}):")
            for line in m[key]:
                print(f"  {line}")
    print()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ccmem", help="the ccmem binary to measure")
    ap.add_argument("--corpus", default=str(CORPUS), help="the judged corpus (default: %(default)s)")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON")
    ap.add_argument("--list", action="store_true", help="list every finding with its verdict")
    ap.add_argument("--assert", dest="assert_", action="store_true",
                    help="exit 1 when a target of issue 25 is not met")
    ap.add_argument("--allow-unjudged", action="store_true",
                    help="with --assert: do not fail on findings no judgement covers")
    ap.add_argument("--keep", metavar="DIR", help="materialize into DIR and keep it")
    args = ap.parse_args()
    ccmem = str(Path(args.ccmem).resolve())
    corpus = Path(args.corpus).resolve()
    with tempfile.TemporaryDirectory(prefix="ccmem-judged-") as tmp:
        dest = Path(args.keep).resolve() if args.keep else Path(tmp) / "corpus"
        subprocess.run([sys.executable, str(corpus / "make.py"), str(dest)], check=True)
        empty_home = Path(tmp) / "home"
        empty_home.mkdir()
        cases = []
        for kind, command in (("libraries", "audit"), ("repos", "check")):
            for d in sorted((dest / kind).iterdir()):
                expect = tomllib.loads((d / "expect.toml").read_text(encoding="utf-8"))
                case = Case(d.name, command, expect, d)
                (audit if command == "audit" else check)(ccmem, case, empty_home)
                judge(case)
                cases.append(case)
    result = {"audit": measure(cases, "audit"), "check": measure(cases, "check")}
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        report(result["audit"], "audit")
        report(result["check"], "check")
    if args.list:
        for c in cases:
            for f in c.findings:
                cur = f"/{f.curator}" if f.curator else ""
                print(f"{f.verdict:8}{cur:9} {c.command} {c.name}: {f.rule} {f.file}:{f.line or ''} "
                      f"[{f.severity}] {f.message[:100]}")
    if args.assert_:
        a, c = result["audit"], result["check"]
        fails = []
        for label, value, target in (
            ("audit errors' precision", a["errors_precision"], TARGETS["audit_errors"]),
            ("audit precision", a["precision"], TARGETS["audit_all"]),
            ("check precision", c["precision"], TARGETS["check_all"]),
            ("audit true findings kept", a["kept"], TARGETS["kept"]),
            ("check true findings kept", c["kept"], TARGETS["kept"]),
        ):
            if value is not None and value < target:
                fails.append(f"{label} {pct(value).strip()} < {100 * target:.0f}%")
        unjudged = a["unjudged"] + c["unjudged"]
        if unjudged and not args.allow_unjudged:
            fails.append(f"{unjudged} finding(s) no judgement covers: judge them in the cases' expect.toml")
        for line in fails:
            print(f"judge.py: {line}", file=sys.stderr)
        return 1 if fails else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
