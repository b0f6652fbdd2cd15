#!/usr/bin/env bash
# Performance benchmarks (numbers to read, not pass/fail tests):
#   1. native: the full high-order-alloc sweep, events/s, peak RSS (core/examples/bench_sim.rs)
#   2. wasm:   the same sweep under wasm32 in headless Chromium (web/tests/bench.rs)
#   3. size:   a release build of the app with Trunk: the wasm files raw and gzip, and the
#              first-load weight of the home page (scripts/first-load.sh)
# Each part runs on its own (a failed part does not stop the others; the exit status reports
# it). `bench.sh size` (or native, wasm) runs only the parts named.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
bash scripts/setup.sh test >/dev/null || exit 1
export PATH="$ROOT/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
TARGET=${CARGO_TARGET_DIR:-target}

native() {
    echo "== native (release)"
    cargo build -q --release -p skblab-core --example bench_sim &&
        /usr/bin/time -f "peak RSS %M KiB" "$TARGET/release/examples/bench_sim"
}

wasm() {
    echo "== wasm32 in headless Chromium (release)"
    (
        cd web
        CHROMEDRIVER=/usr/bin/chromedriver CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
            cargo test --release -p skblab-web --features bench --target wasm32-unknown-unknown --test bench -- --nocapture 2>&1 |
            grep -E "wasm (sweep|best)"
    )
}

size() {
    echo "== app size"
    local dist="$ROOT/target/bench-dist"
    TRUNK_OFFLINE=true trunk build --release --dist "$dist" >/dev/null 2>&1 || { echo "trunk build failed"; return 1; }
    for f in "$dist"/*.wasm; do
        printf '%s: %s bytes raw, %s bytes gzip -9\n' "$(basename "$f")" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)"
    done
    bash scripts/first-load.sh "$dist"
}

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(native wasm size)
failed=()
for part in "${parts[@]}"; do
    case $part in
    native | wasm | size) "$part" || failed+=("$part") ;;
    *) echo "unknown part '$part' (native, wasm, size)" >&2; exit 2 ;;
    esac
done
[ ${#failed[@]} -eq 0 ] || { echo "failed: ${failed[*]}"; exit 1; }
