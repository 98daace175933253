#!/usr/bin/env python3
"""gen_library.py: one memory library of N files, in the shape of gen_corpus.py's S library
(hubs first, CJK in 40% of the files, the same planted violations, scaled), for the sizes users
have that gen_corpus.py does not make (its S, M and L are 256, 2,000 and 20,000 files).

usage: gen_library.py --gen PATH/TO/gen_corpus.py --files N --out DIR   (writes DIR/memory/)
Same N, same bytes (the file times are relative to now, as gen_corpus.py sets them).
"""
import argparse
import importlib.util
import os
import random
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gen", required=True, help="gen_corpus.py")
    ap.add_argument("--files", type=int, required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    spec = importlib.util.spec_from_file_location("gen_corpus", a.gen)
    g = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(g)
    n = a.files
    lib = g.Lib(random.Random(f"1556:N{n}"), n, cjk=0.4, groups=max(3, n // 16), flat_groups=1,
                crowns=min(12, max(8, n // 6)), aggregates=2, plant=g.scaled(n, g.LIB_PLANT_256),
                index_opts={"comments": 1}, title="Nimbus")
    g.write_dir(os.path.join(a.out, "memory"), lib.files, int(time.time()))


if __name__ == "__main__":
    main()
