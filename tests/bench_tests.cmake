# Benchmark smoke tests
