"""Writes the platform vectors: path rules of Claude Code 2.1.332 as each build computes them.

Usage: gen_platform_vectors.py CLIENT_BIN OUT_DIR [--cache DIR]
  e.g. gen_platform_vectors.py "$(scripts/install-client.sh)" fuzz/vectors-platform

The client ships one build per platform, with the platform fixed in its code. This script
fetches the darwin-arm64 and win32-x64 packages of the same version (npm pack), extracts each
build's embedded module graph (the Bun trailer is the same in ELF, Mach-O and PE), rewrites the
chunks' imports to the extracted folder (and, for win32, `path` to `path.win32`, which the
Windows build gets from Bun there), and runs platform_oracle.js inside CLIENT_BIN (the Linux
binary) as a preload. The linux build runs twice: as itself and as WSL (`WSL_DISTRO_NAME` set,
so its `A()` says `wsl`). Everything extracted stays in --cache (default
$TMPDIR/ccmem-platform-oracle): it is the client's code, never commit it.

Each function is found by the shape of its code, not by its minified name (which differs per
build), and must be found exactly once per build. Output, one file per rule, each
{"inputs": [...], "linux": [...], "macos": [...], "windows": [...], "wsl": [...]}:
slug.json (J$), dedup.json (sg), refused.json (RG/vG/kG), approval.json (cle/hle),
inside.json (od), path.json (node's path on each build: normalize, dirname, parse().root,
isAbsolute; join), memdir.json (Bu/Ku: autoMemoryDirectory), includes.json (the import list of
a file's text: tokens, `~`, MSYS forms, resolution), excludes.json (claudeMdExcludes: HLn/MLn),
rulematch.json (`paths:` rules: UHe's relative path and node-ignore), managed.json (pr()),
deny.json (a Read deny rule of one settings source against an instruction file: the loader's
`Gt`/`Bko`, run with each platform's working folder and home). Each build runs in processes
of its own (one for deny, one for the rest): the client's session state is shared by every
build loaded in one process.
tests/platform_vectors.rs replays them through ccmem's rules for each platform.
"""
import argparse, glob, json, os, random, re, shutil, struct, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VERSION = "2.1.332"
PACKAGES = {"darwin": "claude-code-darwin-arm64", "win32": "claude-code-win32-x64"}
# Build name → platform name in the vectors (the client's A() values).
PLATFORM = {"linux": "linux", "darwin": "macos", "win32": "windows", "wsl": "wsl"}

I = r"[A-Za-z0-9_$]+"
V = r"[A-Za-z]"
FUNCS = {
    "slug": r"function (%s)\((%s)\)\{let (%s)=%s\(\2\);if\(\3\.length<=%s\)return \3;return`\$\{\3\.slice\(0," % (I, V, V, I, I),
    "dedup": r'function (%s)\((%s)\)\{let (%s)=%s\(\)==="windows",(%s)=%s\(\2\),(%s)=\3\?' % (I, V, V, I, V, I, V),
    "inside": r"function (%s)\(%s,%s,\{caseFold:%s,skipPrivateAlias:%s=!1,uncShapeParity:%s=!1\}=\{caseFold:!0\}\)" % (I, V, V, V, V, V),
    "refused": r"function (%s)\((%s)\)\{return %s\(\2\)&&!%s\(\2\)(?:\|\|%s\(\2\)){6}\}" % (I, V, I, I, I),
    "memdir": r'function (%s)\((%s),(%s)\)\{if\(!\2\)return;let (%s)=\2;if\(\3&&\(\4\.startsWith\("~/"\)' % (I, V, V, V),
    "managed": r'function (%s)\(\)\{let (%s)=%s\(\);if\(\2!==void 0\)return \2;switch\(%s\(\)\)\{case"macos":return"/Library/Application Support/ClaudeCode"' % (I, V, I, I),
    "approval": r'function (%s)\((%s)\)\{let (%s)=%s\(\2\);if\(%s\(\)==="windows"\)return \3\.replaceAll\("\\\\","/"\);return \3\}' % (I, V, V, I, I),
    "excludes": r"function (%s)\(\)\{let (%s)=(%s\(\))\.claudeMdExcludes;if\(!\2\|\|\2\.length===0\)return\(\)=>!1" % (I, V, I),
    "includes": r'function (%s)\((%s),(%s),(%s)\)\{if\(!\2\.includes\("@"\)\)return\[\];return %s\(\2,\3,\4,\3\)\.includePaths\}' % (I, V, V, V, I),
    # UHe: the relative path of a read file from the rules' base, matched with node-ignore.
    # The memory loader's Read-deny test of a file's spellings (the `held` reader's `Gt`):
    # a `/**` rule over a folder holding it, else the Read tool's own matcher on each.
    "deny": r'var (%s)=\((%s),(%s)\)=>\2\.some\(\((%s)\)=>%s\(\4,\3,"read"\)!==null\)\|\|%s\(\2\.at\(0\)\?\?"",\3,\2\);' % (I, V, V, V, I, I),
    "rulematch": r'(%s)=(%s)==="Project"\?(%s)\(\3\((%s)\)\):(%s)\(\),(%s)=(%s)\((%s)\)\?(%s)\(\1,\8\):\8;.{0,400}?return (%s)\(\)\.add\((%s)\((%s)\.globs,"claudemd_rule_globs"\)\)\.ignores\(\6\)' % (V, V, I, V, I, V, I, V, I, I, I, V),
}


def extract(binary, out):
    """The Bun module graph of a `claude` binary, one file per module."""
    data = open(binary, "rb").read()
    end = data.rfind(b"\n---- Bun! ----\n")
    assert end > 0, f"{binary}: no Bun trailer"
    st = end - 32
    byte_count, mo, ml, _entry, _ao, _al, _flags = struct.unpack_from("<QIIIIII", data, st)
    base = st - byte_count
    os.makedirs(out, exist_ok=True)
    for i in range(ml // 52):
        no, nl, co, cl = struct.unpack_from("<IIII", data, base + mo + i * 52)
        name = data[base + no: base + no + nl].decode("utf-8", "replace")
        name = re.sub(r"^(/\$bunfs/root/|B:/~BUN/root/)", "", name).replace("/", "_")
        open(os.path.join(out, name), "wb").write(data[base + co: base + co + cl])


def rewrite(raw, out, win32):
    """Imports pointed at `out`; the bytecode pragma dropped; win32's `path` made path.win32."""
    os.makedirs(out, exist_ok=True)
    shim = os.path.join(out, "__path_win32.cjs")
    open(shim, "w").write('module.exports = require("path").win32;\n')
    prefix = (out.rstrip("/") + "/").encode()
    for f in os.listdir(raw):
        if not f.endswith(".js"):
            shutil.copyfile(os.path.join(raw, f), os.path.join(out, f))
            continue
        b = open(os.path.join(raw, f), "rb").read()
        b = b.replace(b"/$bunfs/root/", prefix).replace(b"B:/~BUN/root/", prefix)
        if b.startswith(b"// @bun @bytecode"):
            b = b"// @bun" + b[len(b"// @bun @bytecode"):]
        if win32:
            b = re.sub(rb'from"(?:node:)?path(?:/win32)?"', b'from"' + shim.encode() + b'"', b)
            b = re.sub(rb'require\("(?:node:)?path"\)', b'require("' + shim.encode() + b'")', b)
        open(os.path.join(out, f), "wb").write(b)


def prepare(client, cache):
    """Extracted, rewritten chunk folders for linux, darwin, win32 and wsl (a second linux)."""
    dirs = {}
    for build in ["linux", "darwin", "win32"]:
        raw = os.path.join(cache, build, "raw")
        if not os.path.isdir(raw):
            if build == "linux":
                binary = client
            else:
                pkg = os.path.join(cache, build, "pkg")
                os.makedirs(pkg, exist_ok=True)
                subprocess.run(["npm", "pack", "--silent", f"@anthropic-ai/{PACKAGES[build]}@{VERSION}"],
                               cwd=pkg, check=True, stdout=subprocess.DEVNULL)
                subprocess.run(["tar", "xzf", glob.glob(os.path.join(pkg, "*.tgz"))[0]], cwd=pkg, check=True)
                binary = glob.glob(os.path.join(pkg, "package", "claude*"))[0]
            extract(binary, raw)
        for name in ([build, "wsl"] if build == "linux" else [build]):
            rw = os.path.join(cache, name, "rw")
            shutil.rmtree(rw, ignore_errors=True)  # rebuilt: the chunks are patched below
            rewrite(raw, rw, build == "win32")
            dirs[name] = rw
    return dirs


def find(folder, family):
    """(chunk, match) of the one definition of `family` in a build's chunks."""
    hits = []
    for f in sorted(glob.glob(os.path.join(folder, "chunk-*.js"))):
        src = open(f, encoding="utf-8", errors="replace").read()
        hits += [(os.path.basename(f), m) for m in re.finditer(FUNCS[family], src)]
    if len(hits) != 1:
        sys.exit(f"{folder}: {family} found {len(hits)} times")
    return hits[0]


def patch(folder, found):
    """Exports each function from its chunk as `__po_FAMILY`, with its glue and patches (in the
    cache's rewritten copy: a chunk may run its top-level code only once)."""
    by_chunk = {}
    for family, f in found.items():
        by_chunk.setdefault(f["chunk"], []).append((family, f))
    for chunk, fams in by_chunk.items():
        path = os.path.join(folder, chunk)
        src = open(path, encoding="utf-8").read()
        names = []
        for family, f in fams:
            for old, new in f.get("patches", []):
                assert old in src, f"{chunk}: {old}"
                src = src.replace(old, new)
            if "glue" in f:
                src += "\n" + f["glue"] + "\n"
            names.append(f"{'__po_' + family if 'glue' in f else f['name']} as __po_{family}")
        src += "\nexport{" + ",".join(names) + "};\n"
        open(path, "w", encoding="utf-8").write(src)


def funcs(folder):
    out = {}
    for family in FUNCS:
        chunk, m = find(folder, family)
        f = {"chunk": chunk, "name": m.group(1)}
        if family == "excludes":
            # HLn reads the settings' claudeMdExcludes: read the vector's patterns instead.
            f["patches"] = [[f"let {m.group(2)}={m.group(3)}.claudeMdExcludes;", f"let {m.group(2)}=globalThis.__poEx;"]]
            f["glue"] = f'function __po_excludes(p,x){{globalThis.__poEx=p;return {m.group(1)}()(x,"Project")}}'
        elif family == "rulematch":
            abs_, rel, ign, globs = m.group(7), m.group(9), m.group(10), m.group(11)
            f["glue"] = (f"function __po_rulematch(z,e,g){{let Y={abs_}(e)?{rel}(z,e):e;"
                         f'if(!Y||Y.startsWith("..")||{abs_}(Y))return false;'
                         f'return {ign}().add({globs}(g,"claudemd_rule_globs")).ignores(Y)}}')
        out[family] = f
    return out


# ---- inputs ------------------------------------------------------------------------------

POSIX = [
    "/", "/home/me/p", "/home/me/p/", "/home/me//p/./x/../CLAUDE.md", "/tmp/x", "/private/tmp/p/x.md",
    "/private/var/folders/x/p", "/private/varx/p", "/net", "/net/", "/NET/host/p", "/net/host/p/CLAUDE.md",
    "/net/h/../../x", "/x/../net/host", "/Network", "/Network/Servers/h/p", "/network/servers/h",
    "/Network/Library/x", "/Network/../x", "/home", "/home/", "/Home", "/System/Volumes/Data/home",
    "/System/Volumes/Data/Users/me", "/.vol/1/2", "/.VOL", "/.file/id=1", "/x/../.nofollow/y",
    "/.resolve/a", "/p/.vol/x", "/.volume", "//srv/share/p", "//wsl$/Ubuntu/home", "/ne\u200dt/host/p",
    "/dev/stdin", "/proc/self/x", "rel/x.md", "./x", "../x", ".", "", "~", "~/x", "/café/p",
    "/cafe\u0301/p", "/a/😀/b", "/tmp/ccoracle/p/CLAUDE.md",
]
WINDOWS = [
    "C:\\", "C:", "c:", "C:x", "C:\\Users\\me\\p", "C:\\Users\\me\\p\\", "C:/Users/me/p",
    "c:\\users\\ME\\p\\CLAUDE.md", "C:\\Users\\me\\..\\you\\.\\p", "C:\\Users\\me\\p\\\\x\\\\",
    "D:\\work\\repo\\.claude\\rules\\a.md", "\\Users\\me", "\\\\srv\\share", "\\\\srv\\share\\",
    "\\\\srv\\share\\p\\CLAUDE.md", "//srv/share/p", "\\\\srv", "\\\\wsl$\\Ubuntu\\home\\me",
    "\\\\wsl.localhost\\Debian\\p", "\\\\WSL$\\Ubuntu", "\\\\wsl$\\..\\x", "\\\\wsl$\\ \\x",
    "\\\\?\\C:\\Users\\me", "\\\\?\\UNC\\srv\\share", "\\\\.\\C:\\x", "\\??\\C:\\x", "/??/C:/x",
    "/c/Users/me/p", "/cygdrive/d/x", "C:\\Program Files\\ClaudeCode", "C:\\p\\.vol\\x",
    "C:\\Users\\me\\café", "C:\\a\\b\\..\\..\\..\\c", "C:x\\..\\..", "C:\\Users\\me\\p\\CLAUDE.md:stream",
]
PATHS = POSIX + WINDOWS
# The home folder every build sees, and the file the `includes` texts are read from on each.
HOME = "/home/me"
IMPORTER = {"posix": "/home/me/p/CLAUDE.md", "windows": "C:\\Users\\me\\p\\CLAUDE.md"}


# Read deny rules (`permissions.deny`) against instruction files. Each build runs in its own
# platform's working folder and home (a user rule's `/x` is below its config folder,
# HOME/.claude); every rule is given from each of three sources.
DENY_AT = {"posix": {"cwd": "/home/me/p", "home": "/home/me"},
           "windows": {"cwd": "C:\\Users\\me\\p", "home": "C:\\Users\\me"}}
DENY_RULES = [
    "Read", "Read()", "Read(./x.md)", "Read(x.md)", "Read(X.MD)", "Read(/x.md)", "Read(./docs/)", "Read(./docs)",
    "Read(./docs/**)", "Read(docs/*.md)", "Read(**/secret.md)", "Read(*.md)", "Read(./sub/**/deep.md)",
    "Read(~/notes.md)", "Read(~/.claude/**)", "Read(~\\notes.md)", "Read(~)", "Read(/CLAUDE.md)",
    "Read(//home/me/p/x.md)", "Read(//c/Users/me/p/x.md)", "Read(//C:/Users/me/p/x.md)",
    "Read(C:/Users/me/p/x.md)", "Read(C:\\Users\\me\\p\\x.md)", "Read(c:/users/me/p/X.md)",
    "Read(D:/x.md)", "Read(C:\\Users/me\\p/x.md)", "Read(C:/Users/me/p/**/*.MD)", "Read(.\\x.md)", "Read(./sub\\deep.md)", "Read(../x.md)", "Read(./a/../x.md)",
    "Read(./日本語/メモ.md)", "Read(./Папка/*.md)", "Read(./my docs/x.md)", "Read(./MY DOCS/**)",
    "Read(//tmp/**)", "Read(/**)", "Read(**)", " Read(./x.md) ", "Edit(./x.md)",
]
DENY_PATHS = [
    "/home/me/p/x.md", "/home/me/p/X.md", "/home/me/p/docs/a.md", "/home/me/p/sub/a/b/deep.md",
    "/home/me/p/secret.md", "/home/me/notes.md", "/home/me/.claude/x.md", "/home/me/p/CLAUDE.md",
    "/home/me/.claude/CLAUDE.md", "/home/me/p/日本語/メモ.md", "/home/me/p/Папка/п.md", "/home/me/p/my docs/x.md",
    "/tmp/x.md", "/home/me/q/x.md", "/home/me/p/docs", "/HOME/me/p/x.md", "/home/me/p/./a/../x.md",
    "C:\\Users\\me\\p\\x.md", "c:\\users\\me\\p\\X.md", "C:\\USERS\\ME\\P\\X.MD", "C:/Users/me/p/x.md",
    "C:\\Users/me\\p/x.md", "C:\\Users\\me\\p\\docs\\a.md", "C:\\Users\\me\\p\\docs",
    "C:\\Users\\me\\p\\sub\\a\\b\\deep.md", "C:\\Users\\me\\p\\sub\\deep.md",
    "C:\\Users\\me\\p\\a\\secret.md", "C:\\Users\\me\\notes.md", "C:\\Users\\me\\.claude\\x.md",
    "C:\\Users\\me\\.claude\\CLAUDE.md", "C:\\Users\\me\\p\\CLAUDE.md", "C:\\Users\\me\\CLAUDE.md",
    "C:\\Users\\me\\p\\日本語\\メモ.md", "C:\\Users\\me\\p\\Папка\\п.md",
    "C:\\Users\\me\\p\\ПАПКА\\П.md", "C:\\Users\\me\\p\\my docs\\x.md",
    "C:\\Users\\me\\p\\MY DOCS\\y.md", "C:\\Users\\me\\q\\x.md", "D:\\x.md", "d:\\X.md",
    "C:\\Users\\me\\p\\.\\x.md", "C:\\Users\\me\\p\\a\\..\\x.md", "\\\\srv\\share\\x.md",
]


def inputs(rng):
    long_posix = "/home/me/" + "a" * 200 + "/proj"
    slug = PATHS + [
        long_posix, "/" + "b" * 199, "/" + "b" * 200, "/" + "b" * 300, "/" + "😀" * 101,
        "/" + "😀" * 150 + "/p", "C:\\Users\\me\\" + "x" * 250, "/" + "é" * 230, "/tmp/" + "\U0001F600" * 99,
        "/p/" + "漢字" * 120, "polygenelubricants" * 12,
    ]
    inside = []
    for d in ["/r/p", "/r/p/", "/tmp/p", "/private/tmp/p", "/var/f/p", "/private/var/f/p", "/R/P", "/ı/p",
              "C:\\Users\\me\\p", "c:/users/me/p", "\\\\srv\\share\\p", "/c/Users/me/p"]:
        for t in ["/r/p", "/r/p/x.md", "/r/pq/x.md", "/R/P/X.md", "/r", "/tmp/p/x.md", "/private/tmp/p/x.md",
                  "/private/tmp/px", "/var/f/p/x.md", "/private/var/f/p/x.md", "/i/p/x", "/r/p/../q",
                  "C:\\Users\\me\\p\\x.md", "c:\\users\\ME\\p", "C:\\Users\\me\\pq", "D:\\Users\\me\\p\\x",
                  "C:/Users/me/p/sub/x.md", "\\\\srv\\share\\p\\x", "/c/users/me/p/x.md", "C:\\Users\\me"]:
            inside.append([t, d])
    join = [[a, b] for a in ["/h", "/h/", "C:\\Users\\me", "C:", "\\\\srv\\share", "//srv", "rel", ""]
            for b in ["x", ".claude/rules", "../y", "", "\\z", "/abs", "C:\\other"]]
    memdir = []
    for v in ["/abs/mem", "/abs//x/../mem///", "~/mymem", "~\\mymem", "~", "~/", "~/..", "~/../x", "~\\..\\x",
              "/", "/a", "/ab", "rel/x", "/a\u0000b", "/.vol/x", "/.VOL/x", "/net", "/net/host/mem",
              "/NET/host/mem", "/Network/Library/mem", "//srv/share/mem", "\\\\srv\\share\\mem",
              "\\\\wsl$\\Ubuntu\\mem", "C:", "C:/", "C:\\mem\\", "D:/mem", "\\mem", "/cafe\u0301",
              "/home", "/Network", "/net/", "/x/../net/h/m"]:
        for tilde in [True, False]:
            memdir.append([v, tilde])
    includes = []
    texts = [
        "@docs/a.md", "see @./b.md and @../c.md", "@~/h.md @~\\h2.md @~", "@/abs/d.md", "@C:\\Users\\me\\x.md",
        "@C:/Users/me/y.md", "@/c/Users/me/w.md", "@/C/x.md", "@/cygdrive/d/x.md", "@sub\\z.md", "@.\\sub\\v.md",
        "@my\\ file.md", "@x.md#frag", "@//srv/share/x.md", "@\\\\srv\\share\\y.md", "@/net/host/x.md",
        "@/Network/x.md", "@/.vol/1/2", "@a.md @a.md @b.md", "@A.md @a.md", "`@code.md` @real.md", "@café.md",
        "@cafe\u0301.md", "@/private/tmp/p/x.md", "@D:rel.md", "@C:rel.md", "@ trail.md", "@@x.md", "@#x.md",
        "@x.MD", "@../../../../up.md", "@docs/", "<!-- @hidden.md --> @shown.md",
        "---\npaths: x\n---\n@fm.md", "- item @list.md\n\n> quote @q.md",
    ]
    for text in texts:
        includes.append(text + "\n")
    excludes = []
    pats = [["**/p/CLAUDE.md"], ["c:/tmp/**/p/CLAUDE.local.md"], ["C:\\tmp\\**\\p\\.claude\\CLAUDE.md"],
            ["**/P/CLAUDE.md"], ["!C:/r/p/CLAUDE.md"], ["!**/p/CLAUDE.md"], ["C:/r/*/CLAUDE.md"],
            ["/home/me/p/CLAUDE.md"], ["**/.claude/**"], ["*.md"], ["d:/x/**"]]
    for p in pats:
        for path in ["C:\\tmp\\r\\p\\CLAUDE.local.md", "c:\\tmp\\r\\p\\CLAUDE.local.md", "C:\\tmp\\r\\p\\.claude\\CLAUDE.md",
                     "C:\\tmp\\r\\p\\CLAUDE.md", "C:\\r\\p\\CLAUDE.md", "c:\\r\\p\\CLAUDE.md", "C:\\r\\q\\CLAUDE.md",
                     "/home/me/p/CLAUDE.md", "/home/me/P/CLAUDE.md", "/home/me/p/.claude/rules/x.md", "D:\\x\\y.md"]:
            excludes.append([p, path])
    rulematch = []
    for globs in [["src/**/*.ts"], ["*.md"], ["docs/*"], ["[!a]*.py"], ["SRC/**"], ["**/test/**"], ["/abs.md"]]:
        for base, file in [("/r/p", "/r/p/src/a/b.ts"), ("/r/p", "/r/p/x.md"), ("/r/p", "/r/q/x.md"),
                           ("/r/p", "/r/p/docs/a"), ("/r/p", "/r/p/b.py"), ("/r/p", "/r/p/a.py"),
                           ("C:\\r\\p", "C:\\r\\p\\src\\a\\b.ts"), ("C:\\r\\p", "c:\\R\\P\\src\\a.ts"),
                           ("C:\\r\\p", "C:\\r\\p\\x.md"), ("C:\\r\\p", "D:\\r\\p\\x.md"),
                           ("C:\\r\\p", "C:\\r\\p\\test\\t.md"), ("C:\\r\\p", "C:/r/p/docs/a"), ("/r/p", "rel/x.md")]:
            rulematch.append([globs, base, file])
    rng.shuffle(rulematch)
    deny = []
    for rule in DENY_RULES:
        for source in ["projectSettings", "localSettings", "userSettings"]:
            for path in DENY_PATHS:
                deny.append([rule, source, path])
    return {"deny": deny, "denyAt": DENY_AT, "paths": PATHS, "slug": slug, "inside": inside, "join": join, "memdir": memdir,
            "includes": includes, "importer": IMPORTER, "excludes": excludes, "rulematch": rulematch}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("client")
    ap.add_argument("out")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "ccmem-platform-oracle"))
    a = ap.parse_args()
    dirs = prepare(os.path.abspath(a.client), a.cache)
    spec = {"gen": os.path.join(a.cache, "gen"), "builds": {}}
    os.makedirs(spec["gen"], exist_ok=True)
    for build in ["linux", "darwin", "win32", "wsl"]:
        found = funcs(dirs[build])
        patch(dirs[build], found)
        spec["builds"][build] = {"dir": dirs[build], "chunks": {k: f["chunk"] for k, f in found.items()}}
    spec["builds"]["wsl"]["env"] = {"WSL_DISTRO_NAME": "Ubuntu"}
    ins = inputs(random.Random(7))
    work = tempfile.mkdtemp(prefix="ccmem-po-")
    try:
        paths = {k: os.path.join(work, k + ".json") for k in ["spec", "in", "out"]}
        json.dump(spec, open(paths["spec"], "w"))
        json.dump(ins, open(paths["in"], "w"))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC", "WSL_"))}
        # One home for every build (`os.homedir()` is read once), and `/` as the working folder
        # (what a relative path resolves against).
        env.update(BUN_OPTIONS=f"--preload {os.path.join(HERE, 'platform_oracle.js')}", HOME=HOME,
                   PO_SPEC=paths["spec"], PO_IN=paths["in"], PO_OUT=paths["out"])
        # One process per build, and the deny family in a second one: the client's session
        # state (working folder, home, config folder, platform caches) is set by the first
        # build that asks and shared by every build loaded after it, so a build loaded second
        # would compute with the first one's. The deny run gives each build its platform's
        # working folder and home, which the other families must not see.
        res = {}
        for build, b in spec["builds"].items():
            json.dump({**spec, "builds": {build: b}}, open(paths["spec"], "w"))
            for deny in [False, True]:
                if os.path.exists(paths["out"]):
                    os.remove(paths["out"])  # never the previous run's
                subprocess.run([a.client, "--version"], env={**env, "PO_DENY": "1"} if deny else env, cwd="/",
                               check=True, timeout=600, stdout=subprocess.DEVNULL)
                res.setdefault(build, {}).update(json.load(open(paths["out"]))[build])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(a.out, exist_ok=True)
    families = {
        "slug": ins["slug"], "dedup": PATHS, "refused": PATHS, "approval": PATHS, "inside": ins["inside"],
        "path": PATHS, "join": ins["join"], "memdir": ins["memdir"], "includes": ins["includes"],
        "excludes": ins["excludes"], "rulematch": ins["rulematch"], "managed": [None], "deny": ins["deny"],
    }
    for family, fin in families.items():
        doc = {"client": VERSION, "home": HOME, "importer": IMPORTER, "inputs": fin}
        if family == "deny":
            doc = {"client": VERSION, "at": DENY_AT, "inputs": fin}
        for build, plat in PLATFORM.items():
            doc[plat] = res[build][family] if family != "managed" else [res[build]["managed"]]
        with open(os.path.join(a.out, family + ".json"), "w") as f:
            json.dump(doc, f, ensure_ascii=False, indent=0)
            f.write("\n")
    print(f"wrote {len(families)} files to {a.out}")


if __name__ == "__main__":
    main()
