# evaluator/nne/: layer 2, paper 004's nearest-neighbour model (the
# exchange, the closed-form bounds, the gamma planner and rank layout);
# below policies/ so that the nne policy can plan with it.
noinst_LTLIBRARIES += evaluator/nne/libnne.la
evaluator_nne_libnne_la_SOURCES = evaluator/nne/nne.c
noinst_HEADERS += evaluator/nne/nne.h

UNIT_TESTS += tests/unit/test_nne
tests_unit_test_nne_SOURCES = tests/unit/test_nne.c
tests_unit_test_nne_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_nne_LDADD = $(L_MODELS) $(L_NNE) $(EXT_MODELS) $(UNIT_LIBS)
