# The two commands of the README. Both install what they need first (scripts/setup.sh).
.PHONY: serve test bench
serve:
	bash scripts/serve.sh
test:
	bash scripts/test.sh
bench:
	bash scripts/bench.sh
