# policies/: layer 3, allocation policies behind one ops table (policy.h)
# and the scheduling primitives stopo and the plugin share.  Links
# evaluator/nne (the nne policy's model), topo and topo/util.
noinst_LTLIBRARIES += policies/libpolicies.la
policies_libpolicies_la_SOURCES = \
	policies/policy.c \
	policies/policy_linear.c \
	policies/policy_clustered.c \
	policies/policy_random.c \
	policies/policy_fattree_pods.c \
	policies/policy_mesh_blocks.c \
	policies/policy_dragonfly_groups.c \
	policies/policy_nne.c \
	policies/rankorder.c \
	policies/willrun.c
noinst_HEADERS += policies/policy.h policies/policy_impl.h \
	policies/rankorder.h policies/willrun.h

UNIT_TESTS += tests/unit/test_policy
tests_unit_test_policy_SOURCES = tests/unit/test_policy.c
tests_unit_test_policy_CPPFLAGS = $(AM_CPPFLAGS) -DSRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_policy_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_policy_LDADD = $(L_POLICIES) $(L_IMPORT_ONLY) $(EXT_IMPORT) \
	$(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_rankorder
tests_unit_test_rankorder_SOURCES = tests/unit/test_rankorder.c
tests_unit_test_rankorder_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_rankorder_LDADD = $(L_POLICIES) $(UNIT_LIBS)

UNIT_TESTS += tests/unit/test_willrun
tests_unit_test_willrun_SOURCES = tests/unit/test_willrun.c
tests_unit_test_willrun_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_willrun_LDADD = $(L_POLICIES) $(UNIT_LIBS)

BENCH_PROGS += bench/bench_policy
bench_bench_policy_SOURCES = bench/bench_policy.c
bench_bench_policy_LDADD = $(L_POLICIES) $(EXT_UTIL)

dist_man_MANS += man/stopo-policies.7
