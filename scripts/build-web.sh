#!/usr/bin/env bash
# The release build of the web app into DIST (default: dist), as `make serve`, `make test` and
# `make bench` use it: Trunk (the app, its worker, the hooks of Trunk.toml), then every lesson
# step's pre-rendered first view (e2e/prerender.mjs: the app itself in headless Chromium, about
# 3–4 minutes on 2 cores) into DIST/first/. Needs what scripts/setup.sh serve installs.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
DIST=${1:-dist}
# binaryen's wasm-opt (npm, pinned) must come first: Debian's is too old for this wasm.
export PATH="$ROOT/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
TRUNK_OFFLINE=true trunk build --release --dist "$DIST" >/dev/null
node e2e/prerender.mjs "$DIST"
