# evaluator/traffic/: layer 2, flows and traffic patterns.
noinst_LTLIBRARIES += evaluator/traffic/libtraffic.la
evaluator_traffic_libtraffic_la_SOURCES = \
	evaluator/traffic/flows.c \
	evaluator/traffic/patterns.c
noinst_HEADERS += evaluator/traffic/flows.h

UNIT_TESTS += tests/unit/test_flows
tests_unit_test_flows_SOURCES = tests/unit/test_flows.c
tests_unit_test_flows_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_flows_LDADD = $(L_TRAFFIC) $(UNIT_LIBS)
