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

UNIT_TESTS += tests/unit/test_workload
tests_unit_test_workload_SOURCES = tests/unit/test_workload.c
tests_unit_test_workload_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_workload_LDADD = $(UNIT_LDADD)

UNIT_TESTS += tests/unit/test_whatif
tests_unit_test_whatif_SOURCES = tests/unit/test_whatif.c
tests_unit_test_whatif_CFLAGS = $(UNIT_CFLAGS) \
	-DTESTDATA='"$(abs_top_srcdir)/tests/data"'
tests_unit_test_whatif_LDADD = $(UNIT_LDADD)

CLI_TESTS += tests/cli/whatif.sh tests/cli/report.sh
dist_man_MANS += man/stopo-whatif.1 man/stopo-report.1

BENCH_PROGS += bench/bench_whatif
bench_bench_whatif_SOURCES = bench/bench_whatif.c
bench_bench_whatif_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
bench_bench_whatif_LDADD = libstopo.la $(CORE_LIBS)
