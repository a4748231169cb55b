# evaluator/sharing/: layer 5, link sharing (MLS/TLS) and its picture.
noinst_LTLIBRARIES += evaluator/sharing/libsharing.la
evaluator_sharing_libsharing_la_SOURCES = \
	evaluator/sharing/linkshare.c \
	evaluator/sharing/svg.c
noinst_HEADERS += evaluator/sharing/linkshare.h evaluator/sharing/svg.h

UNIT_TESTS += tests/unit/test_linkshare
tests_unit_test_linkshare_SOURCES = tests/unit/test_linkshare.c
tests_unit_test_linkshare_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_linkshare_LDADD = $(L_SHARING) $(UNIT_LIBS)
