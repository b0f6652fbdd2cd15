#!/usr/bin/env bash
# wasm-bindgen-test in Debian's headless Chromium: builds skblab-web's tests for
# wasm32-unknown-unknown and runs them through wasm-bindgen-test-runner + chromedriver.
# Chromium's flags (no sandbox as root, no background networking) come from
# web/webdriver.json, which the runner reads from its working directory.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
export WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-120}
cd "$ROOT/web"
cargo test -p skblab-web --target wasm32-unknown-unknown --tests
