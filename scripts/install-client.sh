#!/usr/bin/env bash
# Installs the pinned Claude Code client that ccmem models, OUTSIDE the repository, and prints
# the path of its binary on stdout (the only thing printed there).
#
#   scripts/install-client.sh [VERSION]        (default: the version in src/constants.rs)
#
# Cache folder: $CCMEM_CLIENT_CACHE, else $XDG_CACHE_HOME/ccmem/client, else ~/.cache/ccmem/client.
# A cached, working binary of the right version is reused without touching the network.
# When the registry cannot be reached the script fails LOUDLY (exit 3, message on stderr):
# a conformance run must never pass silently without the client.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The version is the body of the `client_version!` macro there (the one definition).
version="${1:-$(sed -n '/^macro_rules! client_version {/,/^}/s/^ *"\([0-9][0-9.]*\)"$/\1/p' "$here/src/constants.rs")}"
[ -n "$version" ] || { echo "install-client: cannot read client_version! from src/constants.rs" >&2; exit 2; }
package="@anthropic-ai/claude-code-linux-x64"

cache="${CCMEM_CLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccmem/client}"
case "$(realpath -m "$cache")/" in
  "$here"/*) echo "install-client: cache $cache is inside the repository; refusing" >&2; exit 2 ;;
esac
dest="$cache/$version"
bin="$dest/package/claude"

if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "^$version "; then
  echo "$bin"
  exit 0
fi

command -v npm >/dev/null || { echo "install-client: ERROR: npm is not installed" >&2; exit 3; }
mkdir -p "$cache"
work="$(mktemp -d "$cache/.install.XXXXXX")"
trap 'rm -rf "$work"' EXIT

if ! (cd "$work" && npm pack --loglevel=error "$package@$version" >"$work/pack.out" 2>"$work/pack.err"); then
  {
    echo "install-client: ERROR: could not download $package@$version from the npm registry."
    echo "install-client: the live conformance run CANNOT run without the client. npm said:"
    sed 's/^/  /' "$work/pack.err"
  } >&2
  exit 3
fi
tarball="$work/$(tail -n 1 "$work/pack.out")"
[ -f "$tarball" ] || { echo "install-client: ERROR: npm pack produced no tarball" >&2; exit 3; }
mkdir -p "$work/unpacked"
tar -xzf "$tarball" -C "$work/unpacked"
[ -x "$work/unpacked/package/claude" ] || { echo "install-client: ERROR: no package/claude in $tarball" >&2; exit 3; }
got="$("$work/unpacked/package/claude" --version 2>/dev/null || true)"
case "$got" in
  "$version "*) ;;
  *) echo "install-client: ERROR: unpacked client says '$got', expected $version" >&2; exit 3 ;;
esac
rm -rf "$dest"
mv "$work/unpacked" "$dest"
echo "$bin"
