# evaluator/: contributions to the build (see Makefile.am).
# Link sharing (MLS/TLS), workloads, the what-if simulator, the sharing
# picture and the `stopo whatif` / `stopo report` subcommands.
CORE_SOURCES += \
	evaluator/linkshare.c \
	evaluator/workload.c \
	evaluator/whatif.c \
	evaluator/svg.c
noinst_HEADERS += evaluator/linkshare.h evaluator/workload.h \
	evaluator/whatif.h evaluator/svg.h
stopo_SOURCES += \
	evaluator/cmd_whatif.c \
	evaluator/cmd_report.c
