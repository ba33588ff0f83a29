# The two commands a newcomer needs (see README.md). Both set everything up first.
.PHONY: setup bench test test-slow clean

# Toolchains the machine image keeps outside the default PATH.
export PATH := /usr/local/go/bin:$(HOME)/.cargo/bin:$(PATH)

setup:
	bash scripts/setup.sh

bench: setup
	.venv/bin/ringbench bench

test:
	bash scripts/setup.sh --test
	.venv/bin/ruff check ringbench
	.venv/bin/ruff format --check ringbench
	.venv/bin/mypy ringbench
	.venv/bin/python -m pytest -q -m "not slow"

# Long runs (N up to a million) behind a flag; not part of CI.
test-slow:
	bash scripts/setup.sh --test
	RINGBENCH_SLOW=1 .venv/bin/python -m pytest -q -m slow

clean:
	git clean -fdX drivers
