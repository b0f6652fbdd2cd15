#!/usr/bin/env bash
# Long fuzzing, not part of `make test`:
#   bash scripts/fuzz.sh       (`make fuzz`) the registry and the web page reducer;
#   bash scripts/fuzz.sh sim   (`make fuzz-sim`) the simulator's worlds.
#
# `make fuzz`: the registry-wide property tests of core/tests/fuzz_registry.rs — every
# registered experiment, random valid parameter sets run without panic with finite numbers,
# random invalid ones are ParamErrors — and the hostile-URL property of the web page reducer,
# with PROPTEST_CASES cases each (default 100000). The valid sets of each experiment stop at
# PROPTEST_CASES or SKBLAB_FUZZ_SECONDS of wall time (default 600), whichever comes first; the
# count run is printed per experiment. Without a wall budget the heaviest experiments never
# finish: a random skb-cache set takes 2-6 s in a debug build, so 10^5 of them would take days.
# The light experiments run all 10^5 cases. Debug profile on purpose: overflow checks and
# debug assertions stay on (core is built at opt-level 2 in dev, see Cargo.toml). About 40
# minutes on 2 cores (7 experiments, two at a time, 10 minutes each at most), plus the builds.
#
# `make fuzz-sim`: the simulator fuzzed like a storage engine (`make test` runs a 30 s budget
# of the same test): core/tests/fuzz_sim.rs runs every experiment's worlds with random valid
# parameters and seeds, checking every world's invariants after every event, and shrinks a
# failure to a one-line reproduction. Release build, 10 minutes of wall time by default
# (SKBLAB_FUZZ_SIM_SECONDS), split evenly over the experiments; the generator's seed is drawn
# here and printed (SKBLAB_FUZZ_SIM_SEED=<it> replays the same sequence of cases).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"
START=$(date +%s)

if [ "${1:-}" = sim ]; then
    export SKBLAB_FUZZ_SIM_SECONDS=${SKBLAB_FUZZ_SIM_SECONDS:-600}
    export SKBLAB_FUZZ_SIM_CASES=${SKBLAB_FUZZ_SIM_CASES:-1000000}
    export SKBLAB_FUZZ_SIM_EVENTS=${SKBLAB_FUZZ_SIM_EVENTS:-20000}
    export SKBLAB_FUZZ_SIM_SEED=${SKBLAB_FUZZ_SIM_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
    printf '=== core/tests/fuzz_sim.rs: %s s, generator seed %s (release build)\n' \
        "$SKBLAB_FUZZ_SIM_SECONDS" "$SKBLAB_FUZZ_SIM_SEED"
    cargo test -q --release -p skblab-core --features cli --test all fuzz_sim::every_world -- --nocapture
    printf '\nfuzz-sim passed in %ss (generator seed %s)\n' "$(($(date +%s) - START))" "$SKBLAB_FUZZ_SIM_SEED"
    exit 0
fi

export PROPTEST_CASES=${PROPTEST_CASES:-100000}
# make fuzz gives each experiment's valid sets 10 minutes of wall time (make test gives 45 s).
export SKBLAB_FUZZ_SECONDS=${SKBLAB_FUZZ_SECONDS:-600}

printf '=== core/tests/fuzz_registry.rs, %s cases per experiment, valid sets within %s s each\n' "$PROPTEST_CASES" "$SKBLAB_FUZZ_SECONDS"
cargo test -q -p skblab-core --features cli --test all fuzz_registry:: -- --nocapture

printf '\n=== web/src/pages/player/state/tests.rs hostile_urls, %s cases per property\n' "$PROPTEST_CASES"
cargo test -q -p skblab-web --lib hostile_urls

printf '\nfuzzing passed in %ss\n' "$(($(date +%s) - START))"
