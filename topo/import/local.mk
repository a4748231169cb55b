# topo/import/: layer 2, other tools' fabric descriptions (ibnetdiscover,
# Slurm's topology.conf) to a Topology=graph topo.conf.  Links topo/util
# (hostlists) and topo (the exporter the round-trip tests use).
noinst_LTLIBRARIES += topo/import/libimport.la
topo_import_libimport_la_SOURCES = \
	topo/import/import_fabric.c \
	topo/import/import_ibnet.c \
	topo/import/import_slurm.c
noinst_HEADERS += topo/import/import.h topo/import/import_impl.h
