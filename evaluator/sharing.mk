# evaluator/: contributions to the build (see Makefile.am).
# Link sharing (MLS/TLS), workloads, the what-if simulator and the
# `stopo whatif` / `stopo report` subcommands.
CORE_SOURCES += \
	evaluator/linkshare.c
noinst_HEADERS += evaluator/linkshare.h
