#!/usr/bin/env python3
"""Baseline for the whole-process comparison: a Python script that only measures MEMORY.md
(lines and bytes), as the widely copied memory_budget.py does, nothing else."""
import sys

data = open(sys.argv[1], "rb").read()
text = data.decode("utf-8", "replace")
print(f"{text.count(chr(10)) + 1} lines, {len(data)} bytes")
