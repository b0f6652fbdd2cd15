#!/usr/bin/env bash
# Builds and serves the skblab web app at http://127.0.0.1:8080 (rebuilding on source
# changes), after installing what the build needs (scripts/setup.sh serve).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
bash scripts/setup.sh serve
# binaryen's wasm-opt (npm, pinned) must come first: Debian's is too old for this wasm.
export PATH="$ROOT/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
echo "[serve] http://127.0.0.1:8080/ (Ctrl-C to stop)"
# No auto-reload: Trunk injects its reload script when serving, after the post-build hook that
# puts the inline scripts' hashes into the Content-Security-Policy, so the CSP would block it.
exec env TRUNK_OFFLINE=true trunk serve --release --no-autoreload "$@"
