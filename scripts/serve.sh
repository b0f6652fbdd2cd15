#!/usr/bin/env bash
# Builds the skblab web app (release) and serves it at http://127.0.0.1:8080 with brotli/gzip
# (scripts/serve.mjs), after installing what the build needs (scripts/setup.sh serve).
# For development with rebuilds on change: TRUNK_OFFLINE=true trunk serve --release --no-autoreload
# (Trunk serves uncompressed).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
bash scripts/setup.sh serve
# binaryen's wasm-opt (npm, pinned) must come first: Debian's is too old for this wasm.
export PATH="$ROOT/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
TRUNK_OFFLINE=true trunk build --release --dist dist
exec node scripts/serve.mjs dist "${PORT:-8080}"
