# plugin/: the Slurm select plugin (select_topo.so) and the SPANK plugin
# (spank_topo.so).  Built only when configure was given --with-slurm-source.
#
# Slurm's internal headers include "config.h"; plugin/slurm_config/config.h
# is a shim holding the few macros they test (none changes a struct layout
# on Debian's build: see the comment in the shim).  The plugin gets its own
# CPPFLAGS so that Slurm's "config.h" is the shim, not ours.
EXTRA_DIST += plugin/slurm_config/config.h
noinst_HEADERS += plugin/topo_adapter.h

if HAVE_SLURM_SRC
slurmplugin_LTLIBRARIES = plugin/select_topo.la plugin/spank_topo.la

PLUGIN_CPPFLAGS = -I$(top_srcdir)/plugin/slurm_config -I$(SLURM_SRC) \
	-I$(top_srcdir) -D_GNU_SOURCE
# Slurm's headers are gnu11 and use old-style declarations and
# sign-mixed comparisons in inline code: relax only those warnings.
PLUGIN_CFLAGS = -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wno-sign-compare -Wno-missing-field-initializers -fvisibility=default
# No libslurm: slurmctld, slurmd and the clients provide Slurm's symbols
# (libslurmfull) when they load the plugin.
PLUGIN_LDFLAGS = -module -avoid-version -shared

plugin_select_topo_la_SOURCES = plugin/select_topo.c plugin/topo_adapter.c
plugin_select_topo_la_CPPFLAGS = $(PLUGIN_CPPFLAGS)
plugin_select_topo_la_CFLAGS = $(PLUGIN_CFLAGS) $(JSONC_CFLAGS)
plugin_select_topo_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugin_select_topo_la_LIBADD = libstopo.la $(GLPK_LIBS) $(HWLOC_LIBS) \
	$(JSONC_LIBS) -lm

plugin_spank_topo_la_SOURCES = plugin/spank_topo.c
plugin_spank_topo_la_CPPFLAGS = -I$(top_srcdir) -D_GNU_SOURCE
plugin_spank_topo_la_CFLAGS = $(AM_CFLAGS)
plugin_spank_topo_la_LDFLAGS = $(PLUGIN_LDFLAGS)
plugin_spank_topo_la_LIBADD = libstopo.la $(GLPK_LIBS) $(HWLOC_LIBS) \
	$(JSONC_LIBS) -lm

endif

dist_man_MANS += man/select_topo.8

SLURM_TESTS += \
	tests/slurm/basic.sh \
	tests/slurm/fattree.sh \
	tests/slurm/restart.sh \
	tests/slurm/badinput.sh \
	tests/slurm/backfill.sh \
	tests/slurm/mesh_dragonfly.sh \
	tests/slurm/linear.sh
EXTRA_DIST += tests/slurm/lib.sh

# What the plugin adds per job_test / job_begin at 10k nodes (make bench).
BENCH_PROGS += plugin/bench_adapter
plugin_bench_adapter_SOURCES = plugin/bench_adapter.c plugin/topo_adapter.c
plugin_bench_adapter_CFLAGS = $(AM_CFLAGS)
plugin_bench_adapter_LDADD = libstopo.la $(CORE_LIBS)

# Unit tests of the Slurm-free adapter (no Slurm tree needed).
UNIT_TESTS += plugin/test_adapter
plugin_test_adapter_SOURCES = plugin/test_adapter.c plugin/topo_adapter.c
plugin_test_adapter_CFLAGS = $(UNIT_CFLAGS)
plugin_test_adapter_LDADD = $(UNIT_LDADD)
