# topo/: topologies, routing path sets, topo.conf.
CORE_SOURCES += \
	topo/err.c \
	topo/rng.c \
	topo/topo.c \
	topo/topo_families.c \
	topo/topo_dragonfly.c \
	topo/topo_cascade.c \
	topo/topo_jellyfish.c \
	topo/topo_fattree.c \
	topo/topo_conf.c
noinst_HEADERS += topo/err.h topo/rng.h topo/topo.h topo/topo_impl.h topo/routing.h \
	topo/topo_conf.h

UNIT_TESTS += tests/unit/test_topo
tests_unit_test_topo_SOURCES = tests/unit/test_topo.c
tests_unit_test_topo_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_topo_LDADD = $(UNIT_LDADD)

UNIT_TESTS += tests/unit/test_rng
tests_unit_test_rng_SOURCES = tests/unit/test_rng.c
tests_unit_test_rng_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_rng_LDADD = $(UNIT_LDADD)

UNIT_TESTS += tests/unit/test_topo_conf
tests_unit_test_topo_conf_SOURCES = tests/unit/test_topo_conf.c
tests_unit_test_topo_conf_CPPFLAGS = $(AM_CPPFLAGS) -DSRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_topo_conf_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_topo_conf_LDADD = $(UNIT_LDADD)

BENCH_PROGS += bench/bench_topo
bench_bench_topo_SOURCES = bench/bench_topo.c
bench_bench_topo_CFLAGS = $(AM_CFLAGS)
bench_bench_topo_LDADD = libstopo.la $(CORE_LIBS)
CLI_TESTS += tests/cli/topo.sh
dist_man_MANS += man/stopo-topo.1 man/topo.conf.5
