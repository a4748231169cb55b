# bench/: benchmarks, run by `make bench` (never by make check).  Module
# fragments add their own programs to BENCH_PROGS.

# make validate: every model's prediction beside BookSim2's saturation
# throughputs (../shared/validation, or VALIDATION_DIR=...), with the
# relative error; VALIDATE_ARGS=--csv for a table.
VALIDATION_DIR = $(abs_top_srcdir)/../shared/validation
EXTRA_DIST += bench/validate.py
noinst_HEADERS += bench/bench_util.h
validate: stopo
	python3 $(srcdir)/bench/validate.py ./stopo $(VALIDATION_DIR) $(VALIDATE_ARGS)
.PHONY: validate

# The UGAL-G LPs by the first-order solver, GLPK and HiGHS (scipy, through
# bench/highs_lp.py; skipped without /usr/bin/python3's scipy).
BENCH_PROGS += bench/bench_peers
bench_bench_peers_SOURCES = bench/bench_peers.c
bench_bench_peers_LDADD = $(L_MODELS) $(EXT_MODELS) $(EXT_UTIL)
EXTRA_DIST += bench/highs_lp.py

# stopo place's planner (paper 004) on the issue's two cases.
BENCH_PROGS += bench/bench_place
bench_bench_place_SOURCES = bench/bench_place.c
bench_bench_place_LDADD = $(L_MODELS) $(L_NNE) $(EXT_MODELS) $(EXT_UTIL)

# make bench's stopo-level part (bench/run.sh): nne against
# dragonfly-groups and clustered on the grid workload; fattree-pods
# beside linear on the shared workload and the awkward mix (issue 15).
EXTRA_DIST += bench/run.sh bench/grid_workload.sh bench/fattree_mix.sh \
	bench/awkward_mix.sh bench/round_units.sh bench/isolation_bound.sh \
	bench/isolation_rounding.sh bench/issue47.sh bench/ktree_graph.py
