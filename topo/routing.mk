# topo/: routing path sets (routing core, dragonfly/cascade and fat-tree
# routings), stopo paths, their tests, man page and benchmark.
CORE_SOURCES += \
	topo/routing.c \
	topo/routing_dragonfly.c \
	topo/routing_fattree.c
noinst_HEADERS += topo/routing_impl.h
