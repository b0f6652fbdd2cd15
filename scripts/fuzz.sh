#!/usr/bin/env bash
# Long fuzzing (`make fuzz`; not part of `make test`): the registry-wide property tests of
# core/tests/fuzz_registry.rs — every registered experiment, random valid parameter sets run
# without panic with finite numbers, random invalid ones are ParamErrors — and the hostile-URL
# property of the web page reducer, with PROPTEST_CASES cases each (default 100000).
# Debug profile on purpose: overflow checks and debug assertions stay on (core is built at
# opt-level 2 in dev, see Cargo.toml). Roughly 30-60 minutes on 2 cores.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"
export PROPTEST_CASES=${PROPTEST_CASES:-100000}
# make fuzz runs every case: no wall-time budget per experiment (make test gives each 45 s).
export SKBLAB_FUZZ_SECONDS=${SKBLAB_FUZZ_SECONDS:-inf}
START=$(date +%s)

printf '=== core/tests/fuzz_registry.rs, %s cases per experiment\n' "$PROPTEST_CASES"
cargo test -q -p skblab-core --features cli --test all fuzz_registry:: -- --nocapture

printf '\n=== web/src/pages/player/state/tests.rs hostile_urls, %s cases per property\n' "$PROPTEST_CASES"
cargo test -q -p skblab-web --lib hostile_urls

printf '\nfuzzing passed in %ss\n' "$(($(date +%s) - START))"
