# evaluator/: contributions to the build (see Makefile.am).
# Link sharing (MLS/TLS), workloads, the what-if simulator, the sharing
# picture and the `stopo whatif` / `stopo report` subcommands.
CORE_SOURCES += \
	evaluator/linkshare.c \
	evaluator/workload.c \
	evaluator/whatif.c \
	evaluator/svg.c
noinst_HEADERS += evaluator/linkshare.h evaluator/workload.h \
	evaluator/whatif.h evaluator/svg.h
stopo_SOURCES += \
	evaluator/cmd_whatif.c \
	evaluator/cmd_report.c

UNIT_TESTS += tests/unit/test_linkshare
tests_unit_test_linkshare_SOURCES = tests/unit/test_linkshare.c
tests_unit_test_linkshare_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_linkshare_LDADD = $(UNIT_LDADD)
