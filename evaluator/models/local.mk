# evaluator/models/: layer 5, the throughput models (HM, JM, MCF, MMF and
# paper 002's UGAL-G Models 0-5).
# model_lp.c is the only file that includes <glpk.h>.
noinst_LTLIBRARIES += evaluator/models/libmodels.la
evaluator_models_libmodels_la_SOURCES = \
	evaluator/models/model_registry.c \
	evaluator/models/model_core.c \
	evaluator/models/model_hm.c \
	evaluator/models/model_hm_dfly.c \
	evaluator/models/model_jm.c \
	evaluator/models/model_factor.c \
	evaluator/models/model_mmf.c \
	evaluator/models/model_lp.c \
	evaluator/models/model_mcf.c \
	evaluator/models/model_tpl.c \
	evaluator/models/mcf_tpl.c \
	evaluator/models/mcf_fast.c \
	evaluator/models/ugal_tpl.c \
	evaluator/models/ugal_net.c \
	evaluator/models/ugal_fac.c \
	evaluator/models/ugal_fac_build.c \
	evaluator/models/model_ugal.c \
	evaluator/models/model_nne.c
noinst_HEADERS += evaluator/models/model.h evaluator/models/model_impl.h \
	evaluator/models/mcf_tpl.h evaluator/models/ugal_tpl.h \
	evaluator/models/ugal_impl.h evaluator/models/ugal_fac_impl.h

UNIT_TESTS += tests/unit/test_model
tests_unit_test_model_SOURCES = tests/unit/test_model.c
tests_unit_test_model_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_model_LDADD = $(L_MODELS) $(EXT_MODELS) $(UNIT_LIBS)

BENCH_PROGS += bench/bench_model
bench_bench_model_SOURCES = bench/bench_model.c
bench_bench_model_LDADD = $(L_MODELS) $(EXT_MODELS) $(EXT_UTIL)

UNIT_TESTS += tests/unit/test_mcf_tpl
tests_unit_test_mcf_tpl_SOURCES = tests/unit/test_mcf_tpl.c
tests_unit_test_mcf_tpl_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_mcf_tpl_LDADD = $(L_MODELS) $(EXT_MODELS) $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_mcf_fast
tests_unit_test_mcf_fast_SOURCES = tests/unit/test_mcf_fast.c
tests_unit_test_mcf_fast_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_mcf_fast_LDADD = $(L_MODELS) $(EXT_MODELS) $(UNIT_LIBS)

BENCH_PROGS += bench/bench_mcf_fast
bench_bench_mcf_fast_SOURCES = bench/bench_mcf_fast.c
bench_bench_mcf_fast_LDADD = $(L_MODELS) $(EXT_MODELS) $(EXT_UTIL)
BENCH_PROGS += bench/bench_ugal_fast
bench_bench_ugal_fast_SOURCES = bench/bench_ugal_fast.c
bench_bench_ugal_fast_LDADD = $(L_MODELS) $(EXT_MODELS) $(EXT_UTIL)

UNIT_TESTS += tests/unit/test_ugal
tests_unit_test_ugal_SOURCES = tests/unit/test_ugal.c
tests_unit_test_ugal_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_ugal_LDADD = $(L_MODELS) $(EXT_MODELS) $(UNIT_LIBS)
