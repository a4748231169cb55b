# evaluator/: flows, traffic patterns and the throughput models (HM, JM,
# MCF, MMF) behind `stopo eval`.  model_lp.c is the only file that includes
# <glpk.h>.
noinst_HEADERS += evaluator/flows.h evaluator/model.h evaluator/model_impl.h
CORE_SOURCES += \
	evaluator/flows.c \
	evaluator/patterns.c \
	evaluator/model_core.c \
	evaluator/model_hm.c \
	evaluator/model_jm.c \
	evaluator/model_mmf.c \
	evaluator/model_lp.c

UNIT_TESTS += tests/unit/test_model tests/unit/test_flows
tests_unit_test_model_SOURCES = tests/unit/test_model.c
tests_unit_test_model_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_model_LDADD = $(UNIT_LDADD)
tests_unit_test_flows_SOURCES = tests/unit/test_flows.c
tests_unit_test_flows_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_flows_LDADD = $(UNIT_LDADD)

stopo_SOURCES += evaluator/cmd_eval.c

BENCH_PROGS += bench/bench_model
bench_bench_model_SOURCES = bench/bench_model.c
bench_bench_model_CFLAGS = $(AM_CFLAGS)
bench_bench_model_LDADD = libstopo.la $(CORE_LIBS)

CLI_TESTS += tests/cli/eval.sh
dist_man_MANS += man/stopo-eval.1
