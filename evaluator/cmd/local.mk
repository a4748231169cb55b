# evaluator/cmd/: layer 7, the stopo command: main and one file per
# subcommand.
bin_PROGRAMS += stopo
stopo_SOURCES = \
	evaluator/cmd/stopo.c \
	evaluator/cmd/cli.c \
	evaluator/cmd/cmd_topo.c \
	evaluator/cmd/cmd_paths.c \
	evaluator/cmd/cmd_eval.c \
	evaluator/cmd/cmd_whatif.c \
	evaluator/cmd/cmd_report.c \
	evaluator/cmd/cmd_place.c \
	evaluator/cmd/cmd_import.c \
	evaluator/cmd/cmd_adapters.c \
	evaluator/cmd/plot.c \
	evaluator/cmd/svg_whatif.c \
	evaluator/cmd/report_metrics.c \
	evaluator/cmd/report_history.c \
	evaluator/cmd/svg_history.c
stopo_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) $(HWLOC_CFLAGS)
stopo_LDADD = $(L_IMPORT_ONLY) $(L_SIM) $(EXT_IMPORT) $(EXT_SIM) $(HWLOC_LIBS) $(EXT_UTIL)
noinst_HEADERS += evaluator/cmd/cli.h evaluator/cmd/plot.h \
	evaluator/cmd/svg_whatif.h evaluator/cmd/report_metrics.h \
	evaluator/cmd/report_history.h

CLI_TESTS += tests/cli/topo.sh tests/cli/paths.sh tests/cli/eval.sh \
	tests/cli/whatif.sh tests/cli/report.sh tests/cli/host_cores.sh \
	tests/cli/place.sh tests/cli/import.sh tests/cli/fabrics.sh \
	tests/cli/adapters.sh tests/cli/whatif_runtime.sh \
	tests/cli/whatif_workloads.sh tests/cli/whatif_charts.sh \
	tests/cli/report_metrics.sh tests/cli/report_history.sh
EXTRA_DIST += tests/cli/lib.sh tests/unit/fixtures.h \
	tests/cli/charts_lib.sh tests/cli/png_pixel.py

# stopo whatif --array's tasks run by real slurmd (issue 47)
SLURM_TESTS += tests/slurm/whatif_array.sh
dist_man_MANS += man/stopo.1 man/stopo-topo.1 man/stopo-paths.1 \
	man/stopo-eval.1 man/stopo-whatif.1 man/stopo-report.1 \
	man/stopo-place.1 man/stopo-import.1 \
	man/stopo-adapters.1

# stopo eval --model all against a registry of six models: the test links
# its own model table in place of evaluator/models/model_registry.c.
UNIT_TESTS += tests/unit/test_eval_models
tests_unit_test_eval_models_SOURCES = tests/unit/test_eval_models.c \
	evaluator/cmd/cmd_eval.c evaluator/cmd/cli.c
tests_unit_test_eval_models_CFLAGS = $(UNIT_CFLAGS) $(JSONC_CFLAGS) \
	$(HWLOC_CFLAGS)
tests_unit_test_eval_models_LDADD = $(L_SIM) $(L_MACHINE) $(L_MODELS) \
	$(EXT_MODELS) $(JSONC_LIBS) $(HWLOC_LIBS) $(UNIT_LIBS)

# the exit status chosen from an error's code (cli_status)
UNIT_TESTS += tests/unit/test_cli
tests_unit_test_cli_SOURCES = tests/unit/test_cli.c evaluator/cmd/cli.c
tests_unit_test_cli_CFLAGS = $(UNIT_CFLAGS) $(JSONC_CFLAGS) $(HWLOC_CFLAGS)
tests_unit_test_cli_LDADD = $(L_UTIL) $(JSONC_LIBS) $(HWLOC_LIBS) \
	$(EXT_UTIL) $(UNIT_LIBS)
