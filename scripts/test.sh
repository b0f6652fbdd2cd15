#!/usr/bin/env bash
# Runs every test of skblab, after installing what the tests need (scripts/setup.sh test):
#   1. formatting and clippy (warnings are errors)
#   2. native tests: core (unit, snapshot, property, determinism, fidelity), lessons checker,
#      web's pure modules and chart drawing
#   3. wasm-bindgen-test in headless Chromium (core under wasm gives the native numbers)
#   4. a release build of the app with Trunk, then Playwright e2e tests in headless Chromium
#      against it (screenshots in e2e/screenshots/)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
bash scripts/setup.sh test
export PATH="$ROOT/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export CARGO_TERM_COLOR=never

step() { printf '\n=== %s\n' "$*"; }
START=$(date +%s)

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (host, all targets, -D warnings)"
cargo clippy -q --workspace --all-targets --features skblab-core/cli -- -D warnings

step "native tests"
cargo test -q --workspace --features skblab-core/cli

step "wasm-bindgen-test in headless Chromium"
bash scripts/wasm-test.sh

step "trunk build --release"
TRUNK_OFFLINE=true trunk build --release --dist dist >/dev/null

step "end-to-end tests (Playwright + /usr/bin/chromium)"
(cd e2e && SKBLAB_DIST="$ROOT/dist" node --test --test-concurrency=1 tests/)

printf '\nall test stages passed in %ss\n' "$(($(date +%s) - START))"
