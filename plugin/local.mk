# plugin/: the Slurm select plugin (select_topo_cons_tres.so) and the SPANK plugin
# (spank_topo.so).  Built only when configure was given --with-slurm-source.
#
# Slurm's internal headers include "config.h".  Against 22.05 (source tree
# only) plugin/slurm_config/config.h is a shim holding the few macros they
# test (none changes a struct layout on Debian's build: see the comment in
# the shim); against 24.11 it is the config.h of Slurm's own build tree
# (--with-slurm-build), searched before the source tree so that
# slurm/slurm_version.h is 24.11's too (SLURM_INC_CPPFLAGS, configure.ac).
# The plugin gets its own CPPFLAGS so that Slurm's "config.h" is never ours.
# plugin/slurm_compat.h holds what differs between the versions.
EXTRA_DIST += plugin/slurm_config/config.h \
	plugin/select_topo.map \
	plugin/spank_topo.map plugin/job_submit_topo.map
noinst_HEADERS += plugin/topo_adapter.h plugin/slurm_compat.h plugin/select_topo.h \
	plugin/ops_2205.h plugin/ops_2411.h plugin/ops_2511.h \
	plugin/slurmd_check.h
# What the select plugin's adapter links: every layer but the simulator and
# the command (the machine included).
L_PLUGIN = policies/machine/libmachine.la policies/libpolicies.la \
	evaluator/sharing/libsharing.la evaluator/nne/libnne.la $(L_MODELS)

if HAVE_SLURM_SRC
slurmplugin_LTLIBRARIES = plugin/select_topo_cons_tres.la plugin/spank_topo.la \
	plugin/job_submit_topo.la

PLUGIN_CPPFLAGS = $(SLURM_INC_CPPFLAGS) -I$(top_srcdir) -D_GNU_SOURCE
# Slurm's headers are gnu11 and use old-style declarations, sign-mixed
# comparisons in inline code and an 'err' local in their mutex macros:
# relax only those warnings (no -Wshadow, -Wstrict-prototypes or
# -Wmissing-prototypes here).
PLUGIN_CFLAGS = -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wformat=2 -Wvla -Wno-sign-compare -Wno-missing-field-initializers -fvisibility=hidden
# No libslurm: slurmctld, slurmd and the clients provide Slurm's symbols
# (libslurmfull) when they load the plugin.  Everything is compiled hidden;
# the Slurm interface is marked visible in the plugin's own file and the
# version script exports nothing else (tests/exports.sh checks the .so).
PLUGIN_LDFLAGS = -module -avoid-version -shared

plugin_select_topo_cons_tres_la_SOURCES = plugin/select_topo.c plugin/conf.c \
	plugin/owner.c plugin/reason.c plugin/job_test.c plugin/resv.c \
	plugin/submit.c plugin/record.c plugin/ops_2411.c \
	plugin/slurmd_check.c plugin/topo_adapter.c
plugin_select_topo_cons_tres_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugin_select_topo_cons_tres_la_CFLAGS = $(PLUGIN_CFLAGS) $(JSONC_CFLAGS) \
	$(HWLOC_CFLAGS)
plugin_select_topo_cons_tres_la_LDFLAGS = $(PLUGIN_LDFLAGS) \
	-Wl,--version-script=$(top_srcdir)/plugin/select_topo.map
# hwloc: slurmd_check.c (22.05's slurmd, where the plugin reads the
# hardware itself)
plugin_select_topo_cons_tres_la_LIBADD = $(L_PLUGIN) $(GLPK_LIBS) \
	$(HWLOC_LIBS) -lm
plugin_select_topo_cons_tres_la_DEPENDENCIES = $(L_PLUGIN) plugin/select_topo.map

# The submission check: select/topo's, found in the loaded select plugin.
plugin_job_submit_topo_la_SOURCES = plugin/job_submit_topo.c
plugin_job_submit_topo_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugin_job_submit_topo_la_CFLAGS = $(PLUGIN_CFLAGS)
plugin_job_submit_topo_la_LDFLAGS = $(PLUGIN_LDFLAGS) \
	-Wl,--version-script=$(top_srcdir)/plugin/job_submit_topo.map
plugin_job_submit_topo_la_LIBADD = -ldl
plugin_job_submit_topo_la_DEPENDENCIES = plugin/job_submit_topo.map

plugin_spank_topo_la_SOURCES = plugin/spank_topo.c
# slurm/spank.h: the system's (22.05), else the configured tree's, as
# system headers (24.11's have old-style declarations; its
# SPANK_PLUGIN stamps plugin_version, checked when the plugin loads).
plugin_spank_topo_la_CPPFLAGS = $(SLURM_PUB_CPPFLAGS) -I$(top_srcdir) \
	-D_GNU_SOURCE
plugin_spank_topo_la_CFLAGS = $(AM_CFLAGS)
# Only the policy and pattern registries (to check --topo-policy and
# --topo-pattern as the controller will): no GLPK, json-c or hwloc.
plugin_spank_topo_la_LDFLAGS = $(PLUGIN_LDFLAGS) \
	-Wl,--version-script=$(top_srcdir)/plugin/spank_topo.map
plugin_spank_topo_la_LIBADD = evaluator/traffic/libtraffic.la $(L_POLICIES) \
	-lm
plugin_spank_topo_la_DEPENDENCIES = evaluator/traffic/libtraffic.la \
	$(L_POLICIES) plugin/spank_topo.map

endif

dist_man_MANS += man/select_topo.8

SLURM_TESTS += \
	tests/slurm/basic.sh \
	tests/slurm/fattree.sh \
	tests/slurm/fattree_links.sh \
	tests/slurm/imported.sh \
	tests/slurm/restart.sh \
	tests/slurm/badinput.sh \
	tests/slurm/backfill.sh \
	tests/slurm/mesh_dragonfly.sh \
	tests/slurm/dragonfly_balanced.sh \
	tests/slurm/linear.sh \
	tests/slurm/shapes.sh \
	tests/slurm/matrix.sh \
	tests/slurm/overlap.sh \
	tests/slurm/nne_ranks.sh \
	tests/slurm/parity.sh \
	tests/slurm/dynamic.sh \
	tests/slurm/history.sh \
	tests/slurm/crash.sh \
	tests/slurm/slurmd_cores.sh \
	tests/slurm/squeue_json.sh
# What make check runs against the peer series (tests/slurm/peer.sh,
# make check-slurm PEER=...), beside every test against 22.05 (Debian
# 12's).  PEER=seam, the newest series: the tests of what the plugin
# asks of Slurm and Slurm of it (loading and reconfiguring, placement,
# state across a restart and a crash, dynamic nodes, backfill's
# will-run, the refusals users see, slurmd's own core counts, squeue's
# JSON).  PEER=smoke, the others: loading, placement, a restart.
# PEER=yes: all but SLURM_SERIES_FREE, whose subject does not differ
# between series (an imported fabric, dragonfly-balanced, what stopo
# reads of a run).  What keeps CI within its budget (README "Testing").
SLURM_SEAM = tests/slurm/basic.sh tests/slurm/fattree.sh \
	tests/slurm/restart.sh tests/slurm/crash.sh tests/slurm/dynamic.sh \
	tests/slurm/backfill.sh tests/slurm/badinput.sh \
	tests/slurm/slurmd_cores.sh tests/slurm/squeue_json.sh
SLURM_SMOKE = tests/slurm/basic.sh tests/slurm/fattree.sh \
	tests/slurm/restart.sh
SLURM_SERIES_FREE = tests/slurm/imported.sh \
	tests/slurm/dragonfly_balanced.sh tests/slurm/history.sh \
	tests/slurm/whatif_array.sh
EXTRA_DIST += tests/slurm/lib.sh tests/slurm/bench.sh tests/exports.sh \
	tests/slurm/schedmd.sh

if HAVE_SLURM_SRC
# The .so files export Slurm's plugin interface and nothing else.
TREE_CHECKS += tests/exports.sh
endif

# What the plugin adds per job_test / job_begin at 10k nodes (make bench).
BENCH_PROGS += bench/bench_adapter
bench_bench_adapter_SOURCES = bench/bench_adapter.c plugin/topo_adapter.c
bench_bench_adapter_CFLAGS = $(AM_CFLAGS)
bench_bench_adapter_LDADD = $(L_PLUGIN) $(GLPK_LIBS) $(EXT_UTIL)

# Unit tests of the Slurm-free adapter (no Slurm tree needed).
UNIT_TESTS += tests/unit/test_adapter
tests_unit_test_adapter_SOURCES = tests/unit/test_adapter.c plugin/topo_adapter.c
tests_unit_test_adapter_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_adapter_LDADD = $(L_PLUGIN) $(GLPK_LIBS) $(UNIT_LIBS)

# The randomized stress test of the adapter (issue 13): STRESS_SEED,
# STRESS_STEPS.
UNIT_TESTS += tests/unit/test_adapter_stress
tests_unit_test_adapter_stress_SOURCES = tests/unit/test_adapter_stress.c \
	plugin/topo_adapter.c
tests_unit_test_adapter_stress_CFLAGS = $(UNIT_CFLAGS)
tests_unit_test_adapter_stress_LDADD = $(L_PLUGIN) $(GLPK_LIBS) $(UNIT_LIBS)
