#!/usr/bin/env bash
# Refreshes deny/advisory-db/: the RustSec advisories (https://github.com/rustsec/advisory-db,
# CC0-1.0) of the crates in Cargo.lock, as data, with the commit and date they come from.
# The tests never fetch it (scripts/test.sh runs cargo-deny offline on this snapshot).
#   bash scripts/advisory-snapshot.sh <advisory-db git directory (a clone or a bare mirror)>
# Run it after a dependency change, and now and then to pick up new advisories.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DB=${1:?usage: advisory-snapshot.sh <path to a git clone of rustsec/advisory-db>}
OUT="$ROOT/deny/advisory-db"
git_db() { git --git-dir="$(git -C "$DB" rev-parse --absolute-git-dir)" "$@"; }

rm -rf "$OUT/crates"
mkdir -p "$OUT"
crates=$(grep -A1 '^\[\[package\]\]' "$ROOT/Cargo.lock" | sed -n 's/^name = "\(.*\)"/\1/p' | sort -u)
kept=()
for c in $crates; do
    if git_db cat-file -e "HEAD:crates/$c" 2>/dev/null; then
        git_db archive HEAD "crates/$c" | tar -x -C "$OUT"
        kept+=("$c")
    fi
done
cat >"$OUT/SNAPSHOT" <<INFO
# The RustSec advisory database, restricted to the crates in Cargo.lock (scripts/advisory-snapshot.sh).
source = "https://github.com/rustsec/advisory-db"
license = "CC0-1.0"
commit = "$(git_db rev-parse HEAD)"
date = "$(git_db show -s --format=%cI HEAD)"
crates = "${kept[*]}"
INFO
echo "deny/advisory-db: $(find "$OUT/crates" -name '*.md' | wc -l) advisories for ${#kept[@]} crates, $(git_db show -s --format='%h %cI' HEAD)"
