#!/usr/bin/env bash
# Performance benchmarks (numbers to read, not pass/fail tests):
#   1. native: the full high-order-alloc sweep, events/s, peak RSS (core/examples/bench_sim.rs)
#   2. wasm:   the same sweep under wasm32 in headless Chromium (web/tests/bench.rs)
#   3. size:   the release wasm of the app, raw and gzip
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
bash scripts/setup.sh test >/dev/null
export PATH="$ROOT/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"

echo "== native (release)"
cargo build -q --release -p skblab-core --example bench_sim
/usr/bin/time -f "peak RSS %M KiB" target/release/examples/bench_sim

echo "== wasm32 in headless Chromium (release)"
(
    cd web
    CHROMEDRIVER=/usr/bin/chromedriver CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
        cargo test --release -p skblab-web --features bench --target wasm32-unknown-unknown --test bench -- --nocapture 2>&1 |
        grep -E "wasm (sweep|best)" || true
)

echo "== app size"
TRUNK_OFFLINE=true trunk build --release --dist target/bench-dist >/dev/null 2>&1
for f in target/bench-dist/*.wasm; do
    printf '%s: %s bytes raw, %s bytes gzip -9\n' "$(basename "$f")" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)"
done
