#!/usr/bin/env bash
# The npm packages end to end, as a user gets them, with no network: builds the Linux x64
# platform package and the main package from the statically linked release binary that release
# packages ship (scripts/build-static.sh: no dynamic loader at start, so a hook that does nothing
# costs what `true` costs; scripts/npm-build.mjs),
# packs both, installs them from the tarballs into fresh prefixes with an empty npm cache and
# `--offline`, and runs the installed command.
#
#   scripts/npm-e2e.sh [BINARY]          (default: the binary scripts/build-static.sh builds)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
  bin="$1"
else
  bin="$(scripts/build-static.sh)"
fi
command -v npm >/dev/null || { echo "npm-e2e: FAILED: npm is not installed" >&2; exit 1; }
version="$("$bin" --version)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mapfile -t tgz < <(node scripts/npm-build.mjs --binary "$bin" --platform linux-x64 --out "$work/dist" 2>/dev/null)
[ "${#tgz[@]}" -eq 2 ] || { echo "npm-e2e: FAILED: npm-build.mjs made ${tgz[*]:-nothing}" >&2; exit 1; }
npm_() { npm --offline --cache "$work/cache" --no-audit --no-fund --loglevel=error "$@"; }
npx_() { npx --offline --cache "$work/cache" --loglevel=error "$@"; }

passed=0 failed=0
check() { # NAME EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then
    passed=$((passed + 1)); echo "npm-e2e: ok: $1"
  else
    failed=$((failed + 1)); echo "npm-e2e: FAILED: $1: expected '$2', got '$3'"
  fi
}

# npm i -g ccmem, into a fresh prefix.
npm_ install -g --prefix "$work/global" "${tgz[@]}" >/dev/null
check "npm i -g: ccmem --version" "$version" "$("$work/global/bin/ccmem" --version)"
status=0; "$work/global/bin/ccmem" budget "$work/none" 2>/dev/null || status=$?
check "npm i -g: the binary's exit status comes through" 2 "$status"

# npx ccmem in a project that depends on it.
mkdir "$work/proj"
(cd "$work/proj" && npm_ init -y >/dev/null && npm_ install "${tgz[@]}" >/dev/null)
check "project install: npx ccmem --version" "$version" \
  "$(cd "$work/proj" && npx_ ccmem --version)"

# npx straight from the tarballs, nothing installed.
mkdir "$work/empty"
check "npx --package TARBALLS ccmem --version" "$version" \
  "$(cd "$work/empty" && npx_ --yes --package "${tgz[0]}" --package "${tgz[1]}" ccmem --version)"

# Without its platform package the launcher says how to install ccmem instead.
mkdir "$work/noplat"
(cd "$work/noplat" && npm_ init -y >/dev/null && npm_ install --omit=optional "${tgz[1]}" >/dev/null)
status=0; err="$(cd "$work/noplat" && npx_ ccmem --version 2>&1)" || status=$?
check "no platform package: exit 2" 2 "$status"
check "no platform package: names cargo install" yes "$(grep -q 'cargo install --locked' <<<"$err" && echo yes || echo "$err")"

echo "npm-e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
