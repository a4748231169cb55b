# topo/util/: layer 0, below everything: the error contract, the seeded
# generator, the spec grammar every registry parses with, and the hostlist
# adapter (the only libslurm user outside plugin/).
noinst_LTLIBRARIES += topo/util/libutil.la
topo_util_libutil_la_SOURCES = \
	topo/util/err.c \
	topo/util/rng.c \
	topo/util/spec.c \
	topo/util/hl.c \
	topo/util/limits.c \
	topo/util/par.c \
	topo/util/nameidx.c
noinst_HEADERS += topo/util/err.h topo/util/rng.h topo/util/spec.h \
	topo/util/hl.h topo/util/limits.h topo/util/par.h \
	topo/util/nameidx.h

UNIT_TESTS += tests/unit/test_rng tests/unit/test_spec tests/unit/test_err \
	tests/unit/test_par tests/unit/test_nameidx
tests_unit_test_nameidx_SOURCES = tests/unit/test_nameidx.c
tests_unit_test_nameidx_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_nameidx_LDADD = $(L_UTIL) $(UNIT_LIBS)
tests_unit_test_par_SOURCES = tests/unit/test_par.c
tests_unit_test_par_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_par_LDADD = $(L_UTIL) $(UNIT_LIBS)
tests_unit_test_err_SOURCES = tests/unit/test_err.c
tests_unit_test_err_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_err_LDADD = $(L_UTIL) $(UNIT_LIBS)
tests_unit_test_rng_SOURCES = tests/unit/test_rng.c
tests_unit_test_rng_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_rng_LDADD = $(L_UTIL) $(UNIT_LIBS)
tests_unit_test_spec_SOURCES = tests/unit/test_spec.c
tests_unit_test_spec_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_spec_LDADD = $(L_UTIL) $(UNIT_LIBS)
