#!/usr/bin/env bash
# Long fuzzing (`make fuzz`; not part of `make test`): the registry-wide property tests of
# core/tests/fuzz_registry.rs — every registered experiment, random valid parameter sets run
# without panic with finite numbers, random invalid ones are ParamErrors — and the hostile-URL
# property of the web page reducer, with PROPTEST_CASES cases each (default 100000).
# The valid sets of each experiment stop at PROPTEST_CASES or SKBLAB_FUZZ_SECONDS of wall
# time (default 600), whichever comes first; the count run is printed per experiment. Without
# a wall budget the heaviest experiments never finish: a random skb-cache set takes 2-6 s in a
# debug build, so 10^5 of them would take days. The light experiments run all 10^5 cases.
# Debug profile on purpose: overflow checks and debug assertions stay on (core is built at
# opt-level 2 in dev, see Cargo.toml). About 40 minutes on 2 cores (7 experiments, two at a
# time, 10 minutes each at most), plus the builds.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"
export PROPTEST_CASES=${PROPTEST_CASES:-100000}
# make fuzz gives each experiment's valid sets 10 minutes of wall time (make test gives 45 s).
export SKBLAB_FUZZ_SECONDS=${SKBLAB_FUZZ_SECONDS:-600}
START=$(date +%s)

printf '=== core/tests/fuzz_registry.rs, %s cases per experiment, valid sets within %s s each\n' "$PROPTEST_CASES" "$SKBLAB_FUZZ_SECONDS"
cargo test -q -p skblab-core --features cli --test all fuzz_registry:: -- --nocapture

printf '\n=== web/src/pages/player/state/tests.rs hostile_urls, %s cases per property\n' "$PROPTEST_CASES"
cargo test -q -p skblab-web --lib hostile_urls

printf '\nfuzzing passed in %ss\n' "$(($(date +%s) - START))"
