# The two commands a newcomer needs (see README.md). Both set everything up first.
.PHONY: setup bench test test-slow clean

# Toolchains the machine image keeps outside the default PATH.
export PATH := /usr/local/go/bin:$(HOME)/.cargo/bin:$(PATH)

setup:
	bash scripts/setup.sh

bench: setup
	.venv/bin/ringbench bench

# The harness, store and CLI tests one at a time (some render at a fixed width, some time things); then
# every driver against the contract and each driver's own checks, two at a time (mostly VM start-ups).
test:
	bash scripts/setup.sh --test
	.venv/bin/ruff check ringbench
	.venv/bin/ruff format --check ringbench
	.venv/bin/mypy ringbench
	.venv/bin/python -m pytest -q -m "not slow" --ignore=tests/test_conformance.py --ignore=tests/test_driver_checks.py
	.venv/bin/python -m pytest -q -m "not slow" -n 2 tests/test_conformance.py tests/test_driver_checks.py

# Long runs (N up to a million) behind a flag; not part of CI.
test-slow:
	bash scripts/setup.sh --test
	RINGBENCH_SLOW=1 .venv/bin/python -m pytest -q -m slow -n 2

clean:
	git clean -fdX drivers
