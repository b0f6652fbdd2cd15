# The two commands of the README. Both install what they need first (scripts/setup.sh).
# `make check` is the fast tier of `make test`: fmt, clippy and the native tests (no rustdoc,
# cargo-deny, wasm, Trunk or e2e). `make fuzz` (long property runs, 10^5 cases per
# experiment) is not part of `make test`.
.PHONY: serve test check bench fuzz fuzz-sim validate update measure machine-table
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
	bash scripts/fuzz.sh sim
# Rewrites the validation snapshot the app's Validation page shows (docs/validation.md): every
# table's verdict and errors on the mean over 5 seeds. Runs every experiment's check_table
# (fits included), about a minute of one core (above the CLI's limit: --allow-long); progress
# on stderr.
validate:
	cargo run --release -q -p skblab-core --features cli --bin skblab -- validate --format json --allow-long > core/src/validate/snapshot.json.new
	mv core/src/validate/snapshot.json.new core/src/validate/snapshot.json
# After a change that is MEANT to move simulated numbers: rewrites every generated file the
# tests compare against (one switch, SKBLAB_UPDATE=1: each experiment's default_run.hash, the
# differential hashes, the e2e reproduce fixtures, docs/calibration.md's catalogue block, the
# reference machine fit), then the validation snapshot, then the lessons' numbers.tsv (the
# model's values of the lesson text's placeholders). Review the diff and say why in the commit.
update:
	SKBLAB_UPDATE=1 cargo test -q -p skblab-core --features cli --test all -- --skip fuzz_registry registry:: differential:: reproduce_fixtures:: catalogue_doc:: measure::
	$(MAKE) validate
	SKBLAB_UPDATE=1 cargo test -q -p skblab-lessons --test numbers
# Measures this machine (`skblab measure all`: layout, stream, udp, rr, state, sched) into
# data/measurements/<date>-<machine>.json (scripts/machine-slug.sh names the CPU), the files the
# "Your machine" page offers, then regenerates docs/validation.md's predicted-vs-measured
# tables from every committed file. Linux, root (one sysctl is switched and restored), iperf3,
# sockperf, pahole and perf; about 6 minutes on a quiet machine (longer when runs are repeated
# for foreign CPU). Not part of `make test`. MEASURE_OUT=FILE writes elsewhere.
MEASURE_OUT ?= data/measurements/$(shell date -u +%F)-$(shell bash scripts/machine-slug.sh).json
measure:
	bash scripts/setup.sh measure
	cargo run --release -q -p skblab-core --features cli --bin skblab -- measure all --out $(MEASURE_OUT).new
	mv $(MEASURE_OUT).new $(MEASURE_OUT)
	bash scripts/machine-table.sh
# Only the tables of docs/validation.md, from the committed files (seconds).
machine-table:
	bash scripts/machine-table.sh
