#!/usr/bin/env python3
"""A stand-in for macOS /usr/bin/plutil, for captures only: `-convert json -o - -- FILE` and `-lint -s -- FILE`.
XML and binary plists through plistlib; a date or data value cannot become JSON (plutil: invalid object), exit 1."""
import base64, datetime, json, plistlib, sys
a = sys.argv[1:]
import os
if os.environ.get("PLUTIL_LOG"): open(os.environ["PLUTIL_LOG"], "a").write(repr(a) + "\n")
def load(path):
    with open(path, "rb") as f:
        return plistlib.load(f)
def tojson(v):
    if isinstance(v, (datetime.datetime, bytes, bytearray)): raise TypeError("invalid object in plist for destination format")
    if isinstance(v, dict): return {k: tojson(x) for k, x in v.items()}
    if isinstance(v, list): return [tojson(x) for x in v]
    return v
if a[:5] == ["-convert", "json", "-o", "-", "--"] and len(a) == 6:
    try: v = load(a[5])
    except Exception as e: sys.stderr.write(f"{a[5]}: Property List error: {e}\n"); sys.exit(1)
    try: sys.stdout.write(json.dumps(tojson(v), ensure_ascii=False, separators=(",", ":")))
    except TypeError as e: sys.stderr.write(f"{a[5]}: {e}\n"); sys.exit(1)
    sys.exit(0)
if a[:3] == ["-lint", "-s", "--"] and len(a) == 4:
    try: load(a[3])
    except Exception as e: sys.stderr.write(f"{a[3]}: {e}\n"); sys.exit(1)
    sys.exit(0)
sys.stderr.write("plutil shim: unsupported arguments\n"); sys.exit(64)
