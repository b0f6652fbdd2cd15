#!/usr/bin/env bash
# The simulator fuzzed like a storage engine (`make fuzz-sim`; not part of `make test`, which
# runs a 30 s budget of the same test): core/tests/fuzz_sim.rs runs every experiment's worlds
# with random valid parameters and seeds, checking every world's invariants after every event,
# and shrinks a failure to a one-line reproduction. Release build, 10 minutes of wall time by
# default (SKBLAB_FUZZ_SIM_SECONDS), split evenly over the experiments; the generator's seed
# is drawn here and printed (SKBLAB_FUZZ_SIM_SEED=<it> replays the same sequence of cases).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export PATH="$HOME/.cargo/bin:$PATH"
export SKBLAB_FUZZ_SIM_SECONDS=${SKBLAB_FUZZ_SIM_SECONDS:-600}
export SKBLAB_FUZZ_SIM_CASES=${SKBLAB_FUZZ_SIM_CASES:-1000000}
export SKBLAB_FUZZ_SIM_EVENTS=${SKBLAB_FUZZ_SIM_EVENTS:-20000}
export SKBLAB_FUZZ_SIM_SEED=${SKBLAB_FUZZ_SIM_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
START=$(date +%s)

printf '=== core/tests/fuzz_sim.rs: %s s, generator seed %s (release build)\n' \
    "$SKBLAB_FUZZ_SIM_SECONDS" "$SKBLAB_FUZZ_SIM_SEED"
cargo test -q --release -p skblab-core --features cli --test all fuzz_sim::every_world -- --nocapture

printf '\nfuzz-sim passed in %ss (generator seed %s)\n' "$(($(date +%s) - START))" "$SKBLAB_FUZZ_SIM_SEED"
