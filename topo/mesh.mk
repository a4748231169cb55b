# topo/: mesh-like families (expressmesh, hyperx, torus), their routings
# (dor, minimal), the generic graph routings (ksp, shortest), tests and
# the routing conventions man page.
CORE_SOURCES += \
	topo/topo_mesh.c \
	topo/routing_mesh.c \
	topo/routing_graph.c

UNIT_TESTS += tests/unit/test_mesh tests/unit/test_graph_routing
tests_unit_test_mesh_SOURCES = tests/unit/test_mesh.c
tests_unit_test_mesh_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_mesh_LDADD = $(UNIT_LDADD)
tests_unit_test_graph_routing_SOURCES = tests/unit/test_graph_routing.c
tests_unit_test_graph_routing_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_graph_routing_LDADD = $(UNIT_LDADD)

dist_man_MANS += man/stopo-routing.7
