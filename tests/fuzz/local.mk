# tests/fuzz/: a libFuzzer harness per input path (fuzz_NAME.c; the list
# with each one's -max_len and seeds is tests/fuzz/harnesses) and the
# regression corpus of each (corpus/NAME/).
#
# make check builds tests/fuzz/replay_NAME (replay.c + the harness, any
# compiler, no libFuzzer) and tests/fuzz/replay.sh replays every corpus;
# tests/sanitize.sh replays them again under ASan+UBSan, tests/valgrind.sh
# under valgrind.  make fuzz (scripts/fuzz.sh) builds tests/fuzz/fuzz_NAME
# with clang and libFuzzer in _fuzz/ (make fuzz-build there, with
# FUZZ_LINK=-fsanitize=fuzzer) and runs each for FUZZ_TIME seconds.
# (Automake needs the programs spelled out: NAME per harness.)
FUZZ_REPLAYS = \
	tests/fuzz/replay_topo_conf tests/fuzz/replay_spec \
	tests/fuzz/replay_topo_spec tests/fuzz/replay_routing_spec \
	tests/fuzz/replay_policy_spec \
	tests/fuzz/replay_pattern_spec tests/fuzz/replay_flows \
	tests/fuzz/replay_hostlist tests/fuzz/replay_swf \
	tests/fuzz/replay_csv tests/fuzz/replay_json \
	tests/fuzz/replay_squeue tests/fuzz/replay_running \
	tests/fuzz/replay_cell \
	tests/fuzz/replay_adapter
FUZZ_PROGS = \
	tests/fuzz/fuzz_topo_conf tests/fuzz/fuzz_spec \
	tests/fuzz/fuzz_topo_spec tests/fuzz/fuzz_routing_spec \
	tests/fuzz/fuzz_policy_spec tests/fuzz/fuzz_pattern_spec \
	tests/fuzz/fuzz_flows tests/fuzz/fuzz_hostlist \
	tests/fuzz/fuzz_swf tests/fuzz/fuzz_csv \
	tests/fuzz/fuzz_json tests/fuzz/fuzz_squeue \
	tests/fuzz/fuzz_running tests/fuzz/fuzz_adapter \
	tests/fuzz/fuzz_cell
FUZZ_LINK =
FUZZ_TIME = 60
FUZZ_COMMON = tests/fuzz/fuzz_util.c
EXTRA_PROGRAMS += $(FUZZ_PROGS)
CLEANFILES += $(FUZZ_PROGS)
noinst_HEADERS += tests/fuzz/fuzz.h tests/fuzz/fuzz_workload.h
EXTRA_DIST += tests/fuzz/replay.sh tests/fuzz/harnesses tests/fuzz/corpus

tests_fuzz_fuzz_topo_conf_SOURCES = tests/fuzz/fuzz_topo_conf.c $(FUZZ_COMMON)
tests_fuzz_fuzz_topo_conf_LDADD = $(L_MACHINE) $(EXT_UTIL)
tests_fuzz_fuzz_topo_conf_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_topo_conf_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_topo_conf.c $(FUZZ_COMMON)
tests_fuzz_replay_topo_conf_LDADD = $(L_MACHINE) $(EXT_UTIL)

tests_fuzz_fuzz_spec_SOURCES = tests/fuzz/fuzz_spec.c $(FUZZ_COMMON)
tests_fuzz_fuzz_spec_LDADD = $(L_TOPO) $(EXT_UTIL)
tests_fuzz_fuzz_spec_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_spec_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_spec.c $(FUZZ_COMMON)
tests_fuzz_replay_spec_LDADD = $(L_TOPO) $(EXT_UTIL)

tests_fuzz_fuzz_topo_spec_SOURCES = tests/fuzz/fuzz_topo_spec.c $(FUZZ_COMMON)
tests_fuzz_fuzz_topo_spec_LDADD = $(L_TOPO) $(EXT_UTIL)
tests_fuzz_fuzz_topo_spec_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_topo_spec_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_topo_spec.c $(FUZZ_COMMON)
tests_fuzz_replay_topo_spec_LDADD = $(L_TOPO) $(EXT_UTIL)

tests_fuzz_fuzz_routing_spec_SOURCES = tests/fuzz/fuzz_routing_spec.c $(FUZZ_COMMON)
tests_fuzz_fuzz_routing_spec_LDADD = $(L_TOPO) $(EXT_UTIL)
tests_fuzz_fuzz_routing_spec_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_routing_spec_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_routing_spec.c $(FUZZ_COMMON)
tests_fuzz_replay_routing_spec_LDADD = $(L_TOPO) $(EXT_UTIL)

tests_fuzz_fuzz_policy_spec_SOURCES = tests/fuzz/fuzz_policy_spec.c $(FUZZ_COMMON)
tests_fuzz_fuzz_policy_spec_LDADD = $(L_POLICIES) $(EXT_UTIL)
tests_fuzz_fuzz_policy_spec_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_policy_spec_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_policy_spec.c $(FUZZ_COMMON)
tests_fuzz_replay_policy_spec_LDADD = $(L_POLICIES) $(EXT_UTIL)

tests_fuzz_fuzz_pattern_spec_SOURCES = tests/fuzz/fuzz_pattern_spec.c $(FUZZ_COMMON)
tests_fuzz_fuzz_pattern_spec_LDADD = $(L_TRAFFIC) $(EXT_UTIL)
tests_fuzz_fuzz_pattern_spec_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_pattern_spec_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_pattern_spec.c $(FUZZ_COMMON)
tests_fuzz_replay_pattern_spec_LDADD = $(L_TRAFFIC) $(EXT_UTIL)

tests_fuzz_fuzz_flows_SOURCES = tests/fuzz/fuzz_flows.c $(FUZZ_COMMON)
tests_fuzz_fuzz_flows_LDADD = $(L_TRAFFIC) $(EXT_UTIL)
tests_fuzz_fuzz_flows_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_flows_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_flows.c $(FUZZ_COMMON)
tests_fuzz_replay_flows_LDADD = $(L_TRAFFIC) $(EXT_UTIL)

tests_fuzz_fuzz_hostlist_SOURCES = tests/fuzz/fuzz_hostlist.c $(FUZZ_COMMON)
tests_fuzz_fuzz_hostlist_LDADD = $(L_SIM) $(EXT_SIM) $(EXT_UTIL)
tests_fuzz_fuzz_hostlist_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_hostlist_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_hostlist.c $(FUZZ_COMMON)
tests_fuzz_replay_hostlist_LDADD = $(L_SIM) $(EXT_SIM) $(EXT_UTIL)

tests_fuzz_fuzz_swf_SOURCES = tests/fuzz/fuzz_swf.c tests/fuzz/fuzz_workload.c $(FUZZ_COMMON)
tests_fuzz_fuzz_swf_LDADD = $(L_SIM) $(EXT_SIM) $(EXT_UTIL)
tests_fuzz_fuzz_swf_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_swf_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_swf.c tests/fuzz/fuzz_workload.c $(FUZZ_COMMON)
tests_fuzz_replay_swf_LDADD = $(L_SIM) $(EXT_SIM) $(EXT_UTIL)

tests_fuzz_fuzz_csv_SOURCES = tests/fuzz/fuzz_csv.c tests/fuzz/fuzz_workload.c $(FUZZ_COMMON)
tests_fuzz_fuzz_csv_LDADD = $(L_SIM) $(EXT_SIM) $(EXT_UTIL)
tests_fuzz_fuzz_csv_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_csv_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_csv.c tests/fuzz/fuzz_workload.c $(FUZZ_COMMON)
tests_fuzz_replay_csv_LDADD = $(L_SIM) $(EXT_SIM) $(EXT_UTIL)

tests_fuzz_fuzz_json_SOURCES = tests/fuzz/fuzz_json.c tests/fuzz/fuzz_workload.c $(FUZZ_COMMON)
tests_fuzz_fuzz_json_LDADD = $(L_SIM) $(EXT_SIM) $(EXT_UTIL)
tests_fuzz_fuzz_json_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_json_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_json.c tests/fuzz/fuzz_workload.c $(FUZZ_COMMON)
tests_fuzz_replay_json_LDADD = $(L_SIM) $(EXT_SIM) $(EXT_UTIL)

tests_fuzz_fuzz_squeue_SOURCES = tests/fuzz/fuzz_squeue.c tests/fuzz/fuzz_workload.c $(FUZZ_COMMON)
tests_fuzz_fuzz_squeue_LDADD = $(L_SIM) $(EXT_SIM) $(EXT_UTIL)
tests_fuzz_fuzz_squeue_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_squeue_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_squeue.c tests/fuzz/fuzz_workload.c $(FUZZ_COMMON)
tests_fuzz_replay_squeue_LDADD = $(L_SIM) $(EXT_SIM) $(EXT_UTIL)

tests_fuzz_fuzz_running_SOURCES = tests/fuzz/fuzz_running.c tests/fuzz/fuzz_workload.c $(FUZZ_COMMON)
tests_fuzz_fuzz_running_LDADD = $(L_SIM) $(EXT_SIM) $(EXT_UTIL)
tests_fuzz_fuzz_running_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_running_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_running.c tests/fuzz/fuzz_workload.c $(FUZZ_COMMON)
tests_fuzz_replay_running_LDADD = $(L_SIM) $(EXT_SIM) $(EXT_UTIL)

tests_fuzz_fuzz_adapter_SOURCES = tests/fuzz/fuzz_adapter.c plugin/topo_adapter.c $(FUZZ_COMMON)
tests_fuzz_fuzz_adapter_LDADD = $(L_PLUGIN) $(GLPK_LIBS) $(EXT_UTIL)
tests_fuzz_fuzz_adapter_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_adapter_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_adapter.c plugin/topo_adapter.c $(FUZZ_COMMON)
tests_fuzz_replay_adapter_LDADD = $(L_PLUGIN) $(GLPK_LIBS) $(EXT_UTIL)

tests_fuzz_fuzz_cell_SOURCES = tests/fuzz/fuzz_cell.c $(FUZZ_COMMON)
tests_fuzz_fuzz_cell_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_fuzz_fuzz_cell_LDADD = $(L_SIM) $(EXT_SIM) $(EXT_UTIL)
tests_fuzz_fuzz_cell_LDFLAGS = $(FUZZ_LINK)
tests_fuzz_replay_cell_SOURCES = tests/fuzz/replay.c tests/fuzz/fuzz_cell.c $(FUZZ_COMMON)
tests_fuzz_replay_cell_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS)
tests_fuzz_replay_cell_LDADD = $(L_SIM) $(EXT_SIM) $(EXT_UTIL)

fuzz-build: $(FUZZ_PROGS)

fuzz:
	@top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	FUZZ_TIME='$(FUZZ_TIME)' $(SHELL) $(abs_top_srcdir)/scripts/fuzz.sh

.PHONY: fuzz fuzz-build

