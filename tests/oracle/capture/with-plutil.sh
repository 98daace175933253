#!/bin/bash
# Runs "$@" in a private mount namespace where /usr/bin/plutil is the shim (an overlay over /usr/bin).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec unshare -m bash -ec '
mount --make-rprivate /
d=$(mktemp -d); mkdir "$d/up" "$d/work"; cp "$0/plutil-shim.py" "$d/up/plutil"
mount -t overlay overlay -o "lowerdir=/usr/bin,upperdir=$d/up,workdir=$d/work" /usr/bin
exec "$@"' "$here" "$@"
