# The two commands of the README. Both install what they need first (scripts/setup.sh).
# `make check` is the fast tier of `make test`: fmt, clippy and the native tests (no rustdoc,
# cargo-deny, wasm, Trunk or e2e). `make fuzz` (long property runs, 10^5 cases per
# experiment) is not part of `make test`.
.PHONY: serve test check bench fuzz fuzz-sim validate
serve:
	bash scripts/serve.sh
test:
	bash scripts/test.sh
check:
	bash scripts/test.sh check
bench:
	bash scripts/bench.sh
fuzz:
	bash scripts/fuzz.sh
# Every world with random valid parameters and seeds, every invariant checked after every event
# (core/tests/fuzz_sim.rs): 10 minutes, release build. `make test` runs 30 s of it.
fuzz-sim:
	bash scripts/fuzz-sim.sh
# Rewrites the validation snapshot the app's Validation page shows (docs/validation.md): every
# table's verdict and errors on the mean over 5 seeds. Runs every experiment's check_table
# (fits included), so it takes minutes; progress on stderr.
validate:
	cargo run --release -q -p skblab-core --features cli --bin skblab -- validate --format json > core/src/validate/snapshot.json.new
	mv core/src/validate/snapshot.json.new core/src/validate/snapshot.json
