#!/usr/bin/env bash
# Performance benchmarks (numbers to read, not pass/fail tests). Automated checks read the
# lines of this exact form:
#   native: <float> M events/s        the high-order-alloc sweep natively (core/examples/bench_sim.rs)
#   wasm: <float> M events/s          the same sweep under wasm32 in headless Chromium (web/tests/bench.rs)
#   wasm/native: <float>              their ratio, measured in the same minute
#   sweep events: <int>              events the native sweep handles (moves with the model only)
#   sweep ms: <float> (reference <commit>: <float> ms, ratio <float>)   its time beside a pinned build
#   first-load: <int> bytes gzip, <int> bytes brotli   the home page's weight (scripts/first-load.sh)
# and, from scripts/bench-web.sh where it exists (the browser side: worker pool, deep links,
# bands), `sweep:`, `deep-link:` and `band:` lines.
# Parts: `engine` (native and wasm, built first, then timed back to back), `reference` (the
# native sweep and a pinned commit's, in turn), `users` (native proxies of lesson step 4, the
# Reproduce page and the band: `step-4 native:`, `reproduce native:`, `band native:`), `size` (a release
# build with Trunk), `web` (scripts/bench-web.sh). Each part runs on its own (a failed part
# does not stop the others; the exit status reports it). `bench.sh size` (or engine, web,
# native, wasm) runs only the parts named.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
bash scripts/setup.sh test >/dev/null || exit 1
export PATH="$ROOT/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
TARGET=${CARGO_TARGET_DIR:-target}
WASM_LOG="$TARGET/bench-wasm.log"

# No `-q`: cargo would pass `--quiet` on to wasm-bindgen-test-runner, which refuses it.
# The profile is the sweep worker's (`wasm-worker`: opt-level 3, fat LTO, one codegen unit),
# so the line measures the engine as the browser runs it; plain `--release` (16 codegen units,
# no LTO) measured about 10 % slower in paired runs (docs/performance.md). The worker also gets wasm-opt -O3,
# which this test binary does not.
wasm_cargo() {
    (
        cd web
        CHROMEDRIVER=/usr/bin/chromedriver CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
            cargo test --profile wasm-worker -p skblab-web --features bench --target wasm32-unknown-unknown --test bench "$@"
    )
}

build_native() { cargo build -q --release -p skblab-core --example bench_sim; }

# Prints the sweep lines and `native: <float> M events/s`.
run_native() { /usr/bin/time -f "peak RSS %M KiB" "$TARGET/release/examples/bench_sim"; }

# Prints the sweep lines and `wasm: <float> M events/s` (from the test's "wasm best sweep" line).
run_wasm() {
    wasm_cargo -- --nocapture >"$WASM_LOG" 2>&1
    grep -E "wasm (sweep|best)" "$WASM_LOG" || { tail -20 "$WASM_LOG"; return 1; }
    local rate
    rate=$(sed -nE 's/.*wasm best sweep .* ([0-9.]+) M events\/s.*/\1/p' "$WASM_LOG" | tail -1)
    [ -n "$rate" ] && echo "wasm: $rate M events/s"
}

native() {
    echo "== native (release)"
    build_native && run_native
}

wasm() {
    echo "== wasm32 in headless Chromium (release)"
    wasm_cargo --no-run && run_wasm
}

# Both builds first, then native, wasm and native again back to back, so the ratio compares
# two runs of the same minute on the same (shared, noisy) machine: wasm against the faster of
# the two native runs around it.
engine() {
    echo "== engine: native and wasm32, the seed-000 sweep"
    build_native || return 1
    wasm_cargo --no-run >/dev/null 2>&1 || { echo "wasm build failed"; return 1; }
    local n1 wout n2 rate1 rate2 w best
    n1=$(run_native 2>&1) || { echo "$n1"; return 1; }
    wout=$(run_wasm)
    n2=$(run_native 2>&1)
    rate1=$(sed -nE 's/^native: ([0-9.]+) M events\/s/\1/p' <<<"$n1")
    rate2=$(sed -nE 's/^native: ([0-9.]+) M events\/s/\1/p' <<<"$n2")
    w=$(sed -nE 's/^wasm: ([0-9.]+) M events\/s/\1/p' <<<"$wout")
    grep -v '^native:' <<<"$n1"
    grep -v '^wasm:' <<<"$wout"
    best=$(awk -v a="${rate1:-0}" -v b="${rate2:-0}" 'BEGIN { print (b > a ? b : a) }')
    echo "native runs: ${rate1:-none}, ${rate2:-none} M events/s (before and after the wasm run)"
    echo "native: $best M events/s"
    [ -n "$w" ] || { echo "wasm: no result"; return 1; }
    echo "wasm: $w M events/s"
    awk -v w="$w" -v n="$best" 'BEGIN { printf "wasm/native: %.2f\n", w / n }'
}

# The pinned reference: bench_sim built from this commit (its own Cargo.toml, its own target
# dir under $TARGET/bench-ref/, built once and kept). Its sweep time measures the host, so a
# model change (more events) and an engine change (less time per event) can be told apart.
REF_COMMIT=${SKBLAB_BENCH_REF:-c4c0784}

# Prints the best sweep's ms of one bench_sim process (3 sweeps).
sweep_ms() { "$1" | sed -nE 's/^best sweep ([0-9.]+) ms.*/\1/p'; }

# Prints `sweep events: <int>` and `sweep ms: <float> (reference <commit>: <float> ms, ratio
# <float>)`: this tree's bench_sim and the reference's run in turn, three pairs, medians and
# the median of the pairs' ratios (a ratio below 1: this tree's engine is faster).
reference() {
    echo "== reference: the seed-000 sweep beside bench_sim at $REF_COMMIT"
    build_native || return 1
    local dir="$ROOT/$TARGET/bench-ref/$REF_COMMIT"
    [[ $TARGET = /* ]] && dir="$TARGET/bench-ref/$REF_COMMIT"
    if [ ! -x "$dir/bench_sim" ]; then
        local src
        src=$(mktemp -d)
        git archive "$REF_COMMIT" | tar -x -C "$src" || { rm -rf "$src"; echo "no commit $REF_COMMIT"; return 1; }
        (cd "$src" && CARGO_TARGET_DIR="$dir/target" cargo build -q --release -p skblab-core --example bench_sim) &&
            cp "$dir/target/release/examples/bench_sim" "$dir/bench_sim"
        rm -rf "$src"
        [ -x "$dir/bench_sim" ] || { echo "reference build failed"; return 1; }
    fi
    local events cur=() ref=() ratios=() a b
    events=$("$TARGET/release/examples/bench_sim" | sed -nE 's/^sweep: .* ([0-9]+) events$/\1/p' | tail -1)
    for _ in 1 2 3; do
        b=$(sweep_ms "$dir/bench_sim")
        a=$(sweep_ms "$TARGET/release/examples/bench_sim")
        ref+=("$b") cur+=("$a") ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')")
    done
    median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
    echo "sweep events: $events"
    echo "sweep ms: $(median "${cur[@]}") (reference $REF_COMMIT: $(median "${ref[@]}") ms, ratio $(median "${ratios[@]}"))"
}

# What a learner waits for, natively (proxies of the browser's work, same simulations: the
# worker runs the same core): wall ms on 2 jobs (the pool's 2 workers) and CPU seconds. Prints
#   step-4 native: <int> ms on 2 jobs, <float> s CPU     lesson step 4's sweep (30 flows, 5 seeds)
#   reproduce native: <int> ms on 2 jobs, <float> s CPU  every seed table at 5 seeds
#   band native: <int> ms on 2 jobs, <float> s CPU       high-order-alloc's 32-sample band
users() {
    echo "== users: the waits of lesson step 4, the Reproduce page and the band, native proxies"
    cargo build -q --release -p skblab-core --features cli --bin skblab || return 1
    local cli="$TARGET/release/skblab"
    # Prints `<int> ms on 2 jobs, <float> s CPU` of one command (wall, user + system; its output discarded).
    timed() {
        local f
        f=$(mktemp)
        /usr/bin/time -o "$f" -f "%e %U %S" "$@" >/dev/null 2>&1 || { rm -f "$f"; echo "failed"; return; }
        awk '{ printf "%d ms on 2 jobs, %.2f s CPU", $1 * 1000, $2 + $3 }' "$f"
        rm -f "$f"
    }
    echo "step-4 native: $(timed "$cli" --jobs 2 run high-order-alloc --set max_threads=30 --set seeds=5)"
    local ids=() id
    for id in $("$cli" list); do
        "$cli" reproduce "$id" --seeds 1 --format csv >/dev/null 2>&1 && ids+=("$id")
    done
    # One process per table, as the page asks the pool for one table after the other.
    echo "reproduce native: $(timed sh -c 'for id in "$@"; do "$0" --jobs 2 reproduce "$id" --seeds 5 >/dev/null || exit 1; done' "$cli" "${ids[@]}") (${ids[*]})"
    echo "band native: $(timed "$cli" --jobs 2 reproduce high-order-alloc --seeds 1 --bands 32)"
}

size() {
    echo "== app size"
    local dist="$ROOT/target/bench-dist"
    bash scripts/build-web.sh "$dist" >/dev/null 2>&1 || { echo "web build failed (scripts/build-web.sh)"; return 1; }
    for f in "$dist"/*.wasm; do
        printf '%s: %s bytes raw, %s bytes gzip -9\n' "$(basename "$f")" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)"
    done
    bash scripts/first-load.sh "$dist"
}

# HOOK for the browser side (the pool's sweep, a deep link's weight, the band):
# scripts/bench-web.sh, when it exists, prints `sweep: <int> ms with <k> workers, <int> ms
# with 1 worker`, `deep-link: <int> bytes brotli` and `band: <int> ms for <n> profiles`. It
# gets the dist directory that `size` built (or builds its own when it is missing) as its
# first argument.
web() {
    if [ ! -f scripts/bench-web.sh ]; then
        echo "== web: scripts/bench-web.sh not present (sweep:, deep-link:, band: not measured)"
        return 0
    fi
    echo "== web (scripts/bench-web.sh)"
    bash scripts/bench-web.sh "$ROOT/target/bench-dist"
}

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(engine reference users size web)
failed=()
for part in "${parts[@]}"; do
    case $part in
    engine | native | wasm | reference | users | size | web) "$part" || failed+=("$part") ;;
    *) echo "unknown part '$part' (engine, native, wasm, reference, users, size, web)" >&2; exit 2 ;;
    esac
done
[ ${#failed[@]} -eq 0 ] || { echo "failed: ${failed[*]}"; exit 1; }
