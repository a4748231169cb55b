# topo/import/: layer 2, other tools' fabric descriptions (ibnetdiscover,
# Slurm's topology.conf and topology.yaml) to a Topology=graph topo.conf.
# Links topo/util (hostlists), topo (the exporter the round-trip tests
# use) and libyaml.
noinst_LTLIBRARIES += topo/import/libimport.la
topo_import_libimport_la_SOURCES = \
	topo/import/import_fabric.c \
	topo/import/import_ibnet.c \
	topo/import/import_lft.c \
	topo/import/import_aries.c \
	topo/import/import_slurm.c \
	topo/import/import_slurm_yaml.c \
	topo/import/import_export.c
topo_import_libimport_la_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
noinst_HEADERS += topo/import/import.h topo/import/import_impl.h

# Round trip: generated topologies -> ibnetdiscover text -> import.
UNIT_TESTS += tests/unit/test_import
tests_unit_test_import_SOURCES = tests/unit/test_import.c
tests_unit_test_import_CPPFLAGS = $(AM_CPPFLAGS) -DSRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_import_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_import_LDADD = $(L_IMPORT) $(EXT_IMPORT) $(UNIT_LIBS)

# make bench: the 10,648-node fat-tree imported from ibnetdiscover text,
# and stopo whatif on it beside the generated tree (issue 17).
BENCH_PROGS += bench/bench_import
bench_bench_import_SOURCES = bench/bench_import.c
bench_bench_import_LDADD = $(L_IMPORT) $(EXT_IMPORT) $(EXT_UTIL)
