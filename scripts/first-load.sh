#!/usr/bin/env bash
# Prints the first-load weight of a Trunk dist directory: the sum of the gzip -9 sizes of the
# home page's files (and of their brotli files, which `make serve` sends, where the build wrote
# them: scripts/precompress.mjs; index.html is counted at its gzip size in both), i.e. index.html
# and the .js, .wasm and .css files it references, less the full app's (skblab-web-*): the
# loader (Trunk.toml's pattern_script) starts the small skblab-home app on the home page and the
# full app only for other URLs. The sweep worker's files (worker.js, worker_bg.wasm,
# sweep-worker.js) are not referenced by index.html: they load only when a sweep starts.
#   usage: scripts/first-load.sh DIST
set -euo pipefail
DIST=${1:?usage: first-load.sh DIST}
[ -f "$DIST/index.html" ] || { echo "first-load: no $DIST/index.html" >&2; exit 1; }
gz() { gzip -9c "$1" | wc -c; }
total=$(gz "$DIST/index.html")
total_br=$total
printf '  %-40s %8s bytes gzip\n' index.html "$total"
# Every local .js/.wasm/.css that index.html names in an href/src or an import('...').
files=$(grep -oE "(href|src)=\"[^\"]+\.(js|wasm|css)\"|['\"][^'\"]+\.(js|wasm)['\"]" "$DIST/index.html" |
    sed -E "s/^(href|src)=//; s/[\"']//g; s|^\./||; s|^/||" | grep -v '://' | grep -v '^skblab-web-' | sort -u)
for f in $files; do
    [ -f "$DIST/$f" ] || { echo "first-load: index.html names $f, not in $DIST" >&2; exit 1; }
    size=$(gz "$DIST/$f")
    br=$size
    [ -f "$DIST/$f.br" ] && br=$(stat -c %s "$DIST/$f.br")
    printf '  %-40s %8s bytes gzip, %8s brotli (%s raw)\n' "$f" "$size" "$br" "$(stat -c %s "$DIST/$f")"
    total=$((total + size))
    total_br=$((total_br + br))
done
echo "first-load: $total bytes gzip, $total_br bytes brotli"
