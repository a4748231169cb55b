# topo/: layer 1, topologies (one file per family), routing path sets and
# the topo.conf parser.  Links only topo/util.
noinst_LTLIBRARIES += topo/libtopo.la
topo_libtopo_la_SOURCES = \
	topo/topo.c \
	topo/topo_families.c \
	topo/topo_dragonfly.c \
	topo/topo_cascade.c \
	topo/topo_jellyfish.c \
	topo/topo_fattree.c \
	topo/topo_mesh.c \
	topo/topo_conf.c \
	topo/topo_conf_graph.c \
	topo/topo_recog.c \
	topo/topo_recog_fattree.c \
	topo/topo_recog_dragonfly.c \
	topo/routing.c \
	topo/routing_dragonfly.c \
	topo/routing_fattree.c \
	topo/routing_updown.c \
	topo/routing_lft.c \
	topo/routing_mesh.c \
	topo/routing_graph.c
noinst_HEADERS += topo/topo.h topo/topo_impl.h topo/routing.h \
	topo/routing_impl.h topo/topo_conf.h topo/topo_conf_impl.h \
	topo/topo_recog_impl.h

UNIT_TESTS += tests/unit/test_topo tests/unit/test_topo_conf \
	tests/unit/test_routing tests/unit/test_mesh \
	tests/unit/test_graph_routing tests/unit/test_recog
tests_unit_test_topo_SOURCES = tests/unit/test_topo.c
tests_unit_test_topo_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_topo_LDADD = $(L_TOPO) $(UNIT_LIBS)
tests_unit_test_topo_conf_SOURCES = tests/unit/test_topo_conf.c
tests_unit_test_topo_conf_CPPFLAGS = $(AM_CPPFLAGS) -DSRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_topo_conf_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_topo_conf_LDADD = $(L_TOPO) $(UNIT_LIBS)
tests_unit_test_routing_SOURCES = tests/unit/test_routing.c
tests_unit_test_routing_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_routing_LDADD = $(L_TOPO) $(UNIT_LIBS)
tests_unit_test_mesh_SOURCES = tests/unit/test_mesh.c
tests_unit_test_mesh_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_mesh_LDADD = $(L_TOPO) $(UNIT_LIBS)
tests_unit_test_graph_routing_SOURCES = tests/unit/test_graph_routing.c
tests_unit_test_graph_routing_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_graph_routing_LDADD = $(L_TOPO) $(UNIT_LIBS)

tests_unit_test_recog_SOURCES = tests/unit/test_recog.c
tests_unit_test_recog_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_recog_LDADD = $(L_TOPO) $(UNIT_LIBS)

BENCH_PROGS += bench/bench_topo bench/bench_routing
bench_bench_topo_SOURCES = bench/bench_topo.c
bench_bench_topo_LDADD = $(L_TOPO) $(EXT_UTIL)
bench_bench_routing_SOURCES = bench/bench_routing.c
bench_bench_routing_LDADD = $(L_TOPO) $(EXT_UTIL)

dist_man_MANS += man/topo.conf.5 man/stopo-routing.7
