# bench/: benchmarks, run by `make bench` (never by make check).  Module
# fragments add their own programs to BENCH_PROGS.

# make validate: every model's prediction beside BookSim2's saturation
# throughputs (../shared/validation, or VALIDATION_DIR=...), with the
# relative error; VALIDATE_ARGS=--csv for a table.
VALIDATION_DIR = $(abs_top_srcdir)/../shared/validation
EXTRA_DIST += bench/validate.py
validate: stopo
	python3 $(srcdir)/bench/validate.py ./stopo $(VALIDATION_DIR) $(VALIDATE_ARGS)
.PHONY: validate
