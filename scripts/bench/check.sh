#!/usr/bin/env bash
# `ccmem check` on a 50,000-file repository with 200 instruction files, side by side with what
# any tool must at least do there: a directory walk of the tree with the same ignores
# (`fd -H -E .git`, .gitignore respected) plus reading the instruction files check reads
# (`git ls-files | xargs cat`). The issue's target: check within 2x of that baseline.
#
#   scripts/bench/check.sh [WORKDIR]     (needs hyperfine and fd/fdfind; builds --release)
set -euo pipefail
cd "$(dirname "$0")/../.."
work="${1:-$(mktemp -d)}"
repo="$work/repo"
fd_bin="$(command -v fd || command -v fdfind || true)"
for tool in hyperfine "$fd_bin" git python3; do
  command -v "$tool" >/dev/null || { echo "check.sh: needs $tool (apt-get install hyperfine fd-find)" >&2; exit 2; }
done
cargo build --release --quiet
bin="$PWD/target/release/ccmem"
if [ ! -d "$repo/.git" ]; then
  python3 scripts/bench/gen_repo.py "$repo"
  git -C "$repo" init -q && git -C "$repo" add -A && git -C "$repo" -c user.email=b@b -c user.name=bench commit -qm bench
fi
# The instruction files check reads: every file its sessions load (from its own JSON).
"$bin" check "$repo" --json --fail-on never > "$work/check.json"
python3 - "$work/check.json" > "$work/read.txt" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
seen = []
for d in doc["directories"]:
    for f in d["loaded"]:
        if f["path"] not in seen:
            seen.append(f["path"])
print("\n".join(seen))
PY
echo "repository: $(git -C "$repo" ls-files | wc -l) tracked files, $(jq -r .walk.instruction_files "$work/check.json" 2>/dev/null || grep -o '"instruction_files": [0-9]*' "$work/check.json"), $(wc -l < "$work/read.txt") files read, $(grep -o '"start_directories": [0-9]*' "$work/check.json")"
baseline="cd '$repo' && git ls-files -z -- \$(cat '$work/read.txt') | xargs -0 cat > /dev/null && '$fd_bin' -H -E .git . > /dev/null"
hyperfine --warmup 3 --runs 30 -N --export-json "$work/hyperfine.json" \
  -n baseline "bash -c \"$baseline\"" \
  -n "ccmem check" "$bin check $repo --json --fail-on never"
python3 - "$work/hyperfine.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
b, c = r["baseline"]["mean"], r["ccmem check"]["mean"]
print(f"baseline {b*1000:.1f} ms, ccmem check {c*1000:.1f} ms, ratio {c/b:.2f}x (target <= 2x)")
PY
