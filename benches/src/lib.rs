//! Benchmark cases shared by the callgrind and wall-clock suites.
