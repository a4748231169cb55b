# evaluator/: flows, traffic patterns and the throughput models (HM, JM,
# MCF, MMF) behind `stopo eval`.  model_lp.c is the only file that includes
# <glpk.h>.
noinst_HEADERS += evaluator/flows.h evaluator/model.h
