# evaluator/: flows and patterns, throughput models, MLS/TLS, what-if;
# stopo's main and one file per subcommand.
stopo_SOURCES += \
	evaluator/stopo.c \
	evaluator/cli.c \
	evaluator/cmd_topo.c
noinst_HEADERS += evaluator/cli.h

CLI_TESTS += tests/cli/host_cores.sh
EXTRA_DIST += tests/cli/lib.sh tests/unit/fixtures.h
