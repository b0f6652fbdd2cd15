#!/usr/bin/env bash
# Builds the skblab web app (release) and serves it at http://127.0.0.1:8080 with brotli/gzip
# (scripts/serve.mjs), after installing what the build needs (scripts/setup.sh serve).
# For development with rebuilds on change: TRUNK_OFFLINE=true trunk serve --release --no-autoreload
# (Trunk serves uncompressed).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
bash scripts/setup.sh serve
# Trunk, then the lesson steps' pre-rendered first views (scripts/build-web.sh).
bash scripts/build-web.sh dist
exec node scripts/serve.mjs dist "${PORT:-8080}"
