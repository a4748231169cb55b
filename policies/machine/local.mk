# policies/machine/: layer 4, the machine (topology, node names, routing,
# Wrap= and the validated policies per partition) that every stopo
# subcommand and the plugin load one way.  Links policies and below.
noinst_LTLIBRARIES += policies/machine/libmachine.la
policies_machine_libmachine_la_SOURCES = policies/machine/machine.c
noinst_HEADERS += policies/machine/machine.h

UNIT_TESTS += tests/unit/test_machine
tests_unit_test_machine_SOURCES = tests/unit/test_machine.c
tests_unit_test_machine_CPPFLAGS = $(AM_CPPFLAGS) \
	-DSRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_machine_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_machine_LDADD = $(L_MACHINE) $(UNIT_LIBS)
