# The two commands of the README. Both install what they need first (scripts/setup.sh).
# `make fuzz` (long property runs, 10^5 cases per experiment) is not part of `make test`.
.PHONY: serve test bench fuzz
serve:
	bash scripts/serve.sh
test:
	bash scripts/test.sh
bench:
	bash scripts/bench.sh
fuzz:
	bash scripts/fuzz.sh
