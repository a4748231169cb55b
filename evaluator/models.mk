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
