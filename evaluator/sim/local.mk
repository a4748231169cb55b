# evaluator/sim/: layer 6, workloads (SWF, CSV, JSON, squeue --json) and
# the what-if simulator.
noinst_LTLIBRARIES += evaluator/sim/libsim.la
evaluator_sim_libsim_la_SOURCES = \
	evaluator/sim/workload.c \
	evaluator/sim/wl_swf.c \
	evaluator/sim/wl_csv.c \
	evaluator/sim/wl_json.c \
	evaluator/sim/wl_squeue.c \
	evaluator/sim/wl_jsonscan.c \
	evaluator/sim/wl_running.c \
	evaluator/sim/whatif.c \
	evaluator/sim/whatif_cell.c
evaluator_sim_libsim_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
noinst_HEADERS += evaluator/sim/workload.h evaluator/sim/whatif.h \
	evaluator/sim/wl_impl.h

UNIT_TESTS += tests/unit/test_workload tests/unit/test_whatif
tests_unit_test_workload_SOURCES = tests/unit/test_workload.c
tests_unit_test_workload_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_workload_LDADD = $(L_SIM) $(EXT_SIM) $(UNIT_LIBS)
tests_unit_test_whatif_SOURCES = tests/unit/test_whatif.c
tests_unit_test_whatif_CFLAGS = $(UNIT_CFLAGS) \
	-DTESTDATA='"$(abs_top_srcdir)/tests/data"'
tests_unit_test_whatif_LDADD = $(L_SIM) $(EXT_SIM) $(UNIT_LIBS)

BENCH_PROGS += bench/bench_whatif
bench_bench_whatif_SOURCES = bench/bench_whatif.c
bench_bench_whatif_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
bench_bench_whatif_LDADD = $(L_SIM) $(EXT_SIM) $(EXT_UTIL)
