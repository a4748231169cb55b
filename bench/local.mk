# bench/: benchmarks, run by `make bench` (never by make check).  Module
# fragments add their own programs to BENCH_PROGS.
