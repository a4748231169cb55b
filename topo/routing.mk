# topo/: routing path sets (routing core, dragonfly/cascade and fat-tree
# routings), stopo paths, their tests, man page and benchmark.
CORE_SOURCES += \
	topo/routing.c \
	topo/routing_dragonfly.c \
	topo/routing_fattree.c
noinst_HEADERS += topo/routing_impl.h

UNIT_TESTS += tests/unit/test_routing
tests_unit_test_routing_SOURCES = tests/unit/test_routing.c
tests_unit_test_routing_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_routing_LDADD = $(UNIT_LDADD)

stopo_SOURCES += evaluator/cmd_paths.c
dist_man_MANS += man/stopo-paths.1
CLI_TESTS += tests/cli/paths.sh

BENCH_PROGS += bench/bench_routing
bench_bench_routing_SOURCES = bench/bench_routing.c
bench_bench_routing_CFLAGS = $(AM_CFLAGS)
bench_bench_routing_LDADD = libstopo.la $(CORE_LIBS)
