"""Frontmatter that names far more nodes than it holds, read by the real client's own code
(bomb_oracle.js, run inside the client binary): YAML alias bombs above and below Bun's alias
limit (16 Mi nodes, counted whole per alias), merge keys at and past Bun's merge limit (1 Mi
properties), aliases as keys, lists whose brace expansion spends the budget, in rules' `paths`
and in memory files. Writes fuzz/vectors/frontmatter-bombs.json, which
tests/frontmatter_vectors.rs replays (summaries, see bomb_oracle.js: the values themselves
are far too large).

Usage: gen_bombs.py CLIENT_BIN OUT.json
  e.g. flock /work/capture.lock python3 fuzz/oracle/gen_bombs.py "$(scripts/install-client.sh)" fuzz/vectors/frontmatter-bombs.json
"""
import json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def levels(n, leaf="lol", width=9, name="a"):
    """`a0: &a0 [leaf × width]` and n-1 levels of `aK: &aK [*aK-1 × width]`."""
    y = "%s0: &%s0 [%s]\n" % (name, name, ", ".join([leaf] * width))
    for i in range(1, n):
        y += "%s%d: &%s%d [%s]\n" % (name, i, name, i, ", ".join(["*%s%d" % (name, i - 1)] * width))
    return y


def block_levels(n, leaf="lol", width=9):
    """The same bomb in block style (`- *a` items)."""
    y = "a0: &a0\n" + "".join("  - %s\n" % leaf for _ in range(width))
    for i in range(1, n):
        y += "a%d: &a%d\n" % (i, i) + "".join("  - *a%d\n" % (i - 1) for _ in range(width))
    return y


def mapping_levels(n, width=9):
    """Mappings of mappings: each level a mapping of `width` keys, each the level below."""
    y = "m0: &m0 {" + ", ".join("k%d: lol" % j for j in range(width)) + "}\n"
    for i in range(1, n):
        y += "m%d: &m%d {" % (i, i) + ", ".join("k%d: *m%d" % (j, i - 1) for j in range(width)) + "}\n"
    return y


def fm(yaml, body="body"):
    return "---\n" + yaml + "---\n" + body + "\n"


def inputs():
    out = []
    memory = "name: deploy-checklist\ndescription: run migrations first\ntype: project\n"
    for n in range(1, 10):
        out.append(fm(levels(n) + "paths: *a%d\n" % (n - 1)))
    for n in (7, 8, 9):
        out.append(fm(memory + levels(n)))
        out.append(fm(levels(n) + memory))
        out.append(fm(block_levels(n) + "paths: src/**\n"))
        out.append(fm(mapping_levels(n) + "paths: src/**\n" + memory))
    # Exactly Bun's alias limit, and one node past it (an array of 4,095 items costs 4,096).
    arr = "a: &a [" + ", ".join(["x"] * 4095) + "]\n"
    out.append(fm(arr + "b: [" + ", ".join(["*a"] * 4096) + "]\npaths: src/**\n"))
    out.append(fm(arr + "c: &c y\nb: [" + ", ".join(["*a"] * 4096) + ", *c]\npaths: src/**\n"))
    out.append(fm(arr + "c: &c y\nb: [*c, " + ", ".join(["*a"] * 4095) + "]\npaths: src/**\n"))
    # Mappings cost 1 + a key and a value per property; repeated keys count each time.
    obj = "o: &o {" + ", ".join("k%d: v" % j for j in range(2048)) + "}\n"  # 4,097
    dup = "d: &d {" + ", ".join("k: v" for _ in range(2048)) + "}\n"  # 4,097 as well
    for anchor, name in ((obj, "o"), (dup, "d")):
        for extra in (1, 2):
            out.append(fm(anchor + "s: &s y\nb: [" + ", ".join(["*%s" % name] * 4095)
                          + "".join(", *s" for _ in range(extra)) + "]\npaths: src/**\n"))
    # A merged mapping keeps the properties it copied, and its cost counts them.
    merged = "base: &base {" + ", ".join("k%d: v" % j for j in range(2047)) + "}\nm: &m\n  <<: *base\n  z: 1\n"
    for extra in (1, 2):
        out.append(fm(merged + "s: &s y\nb: [" + ", ".join(["*m"] * 4095)
                      + "".join(", *s" for _ in range(extra)) + "]\npaths: src/**\n"))
    # Merge keys at and past Bun's merge limit (1,048,576 properties).
    m = "m: &m {" + ", ".join("k%d: v" % j for j in range(1000)) + "}\n"
    for n in (1048, 1049):
        out.append(fm(m + "l:\n" + "".join("- <<: *m\n" for _ in range(n)) + "paths: src/**\n" + memory))
    out.append(fm("a: &a {p: 1}\nb:\n  <<: [*a, *a]\n  <<: *a\n  q: 2\npaths: src/**\n"))
    # Aliases as keys: a joined text of 2 million units, and short ones.
    out.append(fm(levels(6) + "? *a5\n: v\npaths: src/**\n" + memory))
    out.append(fm(levels(6) + "? *a5\n: v\n? *a5\n: w\npaths: src/**\n"))
    out.append(fm("a: &a [x, y]\n? *a\n: v\n*a : w\npaths: src/**\n"))
    out.append(fm(levels(3) + "? [*a2, *a1]\n: v\npaths: *a2\n"))
    # Brace expansion spends its budget part way through a shared list.
    out.append(fm(levels(6, leaf="'{lol,x}'") + "paths: *a5\n"))
    out.append(fm(levels(5, leaf="'src/{a,b,c}/**, lib/**'") + "paths: [*a4, '{p,q}']\n"))
    out.append(fm(levels(4, leaf="'a,{b'") + "paths: *a3\n"))
    out.append(fm(levels(5, leaf="'**'") + "paths: *a4\n"))
    out.append(fm("x: &x ['!a', a, '!a']\npaths: [*x, *x, b, *x]\n"))
    # A bomb in a rule's frontmatter that the lenient pass then reads.
    out.append(fm(levels(9) + "paths: [src/**\n"))
    out.append(fm("paths: src/**\n" + levels(9) + "description: a: b\n"))
    return out


def main():
    client, out_path = sys.argv[1], sys.argv[2]
    texts = inputs()
    with tempfile.TemporaryDirectory() as gen:
        fin, fout = os.path.join(gen, "in.json"), os.path.join(gen, "out.json")
        json.dump(texts, open(fin, "w"))
        env = dict(os.environ, BUN_OPTIONS="--preload " + os.path.join(HERE, "bomb_oracle.js"),
                   FM_IN=fin, FM_OUT=fout, FM_GEN=gen)
        subprocess.run([client, "--version"], env=env, check=True, stdout=subprocess.DEVNULL)
        results = json.load(open(fout))
    vectors = [dict(input=t, **r) for t, r in zip(texts, results)]
    with open(out_path, "w") as f:
        json.dump(vectors, f, ensure_ascii=False, indent=0)
        f.write("\n")
    print(f"{len(vectors)} vectors -> {out_path}")


if __name__ == "__main__":
    main()
