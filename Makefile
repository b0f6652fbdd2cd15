# The two commands of the README. Both install what they need first (scripts/setup.sh).
# `make check` is the fast tier of `make test`: fmt, clippy and the native tests (no rustdoc,
# cargo-deny, wasm, Trunk or e2e). `make fuzz` (long property runs, 10^5 cases per
# experiment) is not part of `make test`.
.PHONY: serve test check bench fuzz
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
