#!/usr/bin/env bash
# The release build of the web app into DIST (default: dist), as `make serve`, `make test` and
# `make bench` use it: Trunk (the app, its worker, the hooks of Trunk.toml), then every lesson
# step's pre-rendered first view (e2e/prerender.mjs: the app itself in headless Chromium, about
# 3–4 minutes on 2 cores) into DIST/first/.
#
# The pre-rendered views are a function of the built app, the pre-renderer and the browser, and
# nothing else (the simulation is deterministic), so they are kept beside the target directory
# (target/prerender/<DIST's name>/, with the SHA-256 of those inputs) and copied back when a
# build's inputs hash the same: a rebuild that changed no byte the app serves skips the 3–4
# minutes. SKBLAB_PRERENDER=always renders anyway. Needs what scripts/setup.sh serve installs.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
DIST=${1:-dist}
# binaryen's wasm-opt (npm, pinned) must come first: Debian's is too old for this wasm.
export PATH="$ROOT/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
TRUNK_OFFLINE=true trunk build --release --dist "$DIST" >/dev/null

# What the pre-rendered views depend on: every file Trunk wrote (names and bytes), the
# pre-renderer and the server it uses, playwright-core's version and the browser's.
stamp() {
    {
        (cd "$DIST" && find . -path ./first -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
        sha256sum e2e/prerender.mjs scripts/serve.mjs
        cat e2e/node_modules/playwright-core/package.json 2>/dev/null | grep '"version"' || true
        "${CHROMIUM:-/usr/bin/chromium}" --version 2>/dev/null || true
    } | sha256sum | cut -d' ' -f1
}
CACHE="${CARGO_TARGET_DIR:-$ROOT/target}/prerender/$(basename "$(cd "$DIST" && pwd)")"
NOW=$(stamp)
if [ "${SKBLAB_PRERENDER:-}" != always ] && [ -f "$CACHE/stamp" ] && [ "$(cat "$CACHE/stamp")" = "$NOW" ] \
    && [ -d "$CACHE/first" ]; then
    rm -rf "$DIST/first"
    cp -r "$CACHE/first" "$DIST/first"
    echo "build-web: the app is byte for byte the one pre-rendered last ($NOW): first views reused from $CACHE" >&2
    exit 0
fi
node e2e/prerender.mjs "$DIST"
rm -rf "$CACHE"
mkdir -p "$CACHE"
cp -r "$DIST/first" "$CACHE/first"
echo "$NOW" > "$CACHE/stamp"
