#!/usr/bin/env bash
# The browser lines of `make bench` (called by scripts/bench.sh, or on its own).
# Numbers to read, not pass/fail tests. Prints exactly:
#   first-load: <int> bytes gzip, <int> bytes brotli   the home page (scripts/first-load.sh)
#   deep-link: <int> bytes brotli                      the heaviest lesson step before its first view
#   sweep: <int> ms with <k> workers, <int> ms with 1 worker   the seed-000 sweep, warm
#   band: <int> ms for <n> profiles                    high-order-alloc's default view and its band
#   seeds-5 sweep: <int> ms with <k> workers, <int> ms with 1 worker   lesson step 4's sweep (30 flows, 5 seeds)
# The browser lines come from e2e/bench-web.mjs (Playwright, headless Chromium) against a release
# build served as `make serve` serves it.
#   usage: scripts/bench-web.sh [DIST] [first-load] [deep-link] [sweep] [band] [seeds5]
# DIST defaults to target/bench-dist, built (scripts/build-web.sh) if it has no index.html or no first/.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export PATH="$ROOT/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
DIST="$ROOT/target/bench-dist"
if [ $# -gt 0 ] && [ -d "$1" ]; then DIST=$(cd "$1" && pwd); shift; fi
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(first-load deep-link sweep band seeds5)
if [ ! -f "$DIST/index.html" ] || [ ! -d "$DIST/first" ]; then
    bash scripts/build-web.sh "$DIST" >/dev/null 2>&1 || { echo "bench-web: web build failed (scripts/build-web.sh)" >&2; exit 1; }
fi
status=0
browser=()
for part in "${parts[@]}"; do
    case $part in
    first-load) bash scripts/first-load.sh "$DIST" | grep '^first-load:' || status=1 ;;
    deep-link | sweep | band | seeds5) browser+=("$part") ;;
    *) echo "bench-web: unknown part '$part' (first-load, deep-link, sweep, band, seeds5)" >&2; exit 2 ;;
    esac
done
if [ ${#browser[@]} -gt 0 ]; then
    [ -d e2e/node_modules ] || { echo "bench-web: e2e/node_modules missing (scripts/setup.sh test)" >&2; exit 1; }
    SKBLAB_DIST="$DIST" node e2e/bench-web.mjs "${browser[@]}" || status=1
fi
exit $status
