"""ringbench: benchmarks for lightweight-process concurrency."""
