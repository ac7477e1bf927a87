# ---- benchmarks (bench/) ----
# `make bench` builds bench/*.c with hcmpicc-build, mpicc.mpich and
# mpicc.openmpi and runs them interleaved (quick mode unless BENCH_ARGS says
# otherwise, e.g. make bench BENCH_ARGS="--full --ranks 2,8"); tables and raw
# lines go to bench-results/<timestamp>/.  See docs/benchmarks.md.  Timings
# are never part of make check: bench/smoke.sh only checks that each program
# runs under hcmpirun and prints well-formed lines (77 until hcmpi is built).
HC_BENCH_FILES = bench/common.c bench/common.h bench/latency.c \
	bench/bandwidth.c bench/msgrate.c bench/overlap.c bench/compare.py \
	bench/run.sh bench/smoke.sh docs/benchmarks.md
# issue 7: floors, collectives, the one-command compare, notes and results
HC_BENCH_FILES += bench/floor.c bench/collective.c bench/fileio.c bench/compare \
	bench/callcount.c \
	bench/rma.c bench/io_dd.sh \
	bench/NOTES.md bench/RESULTS.md bench/results/quick-2-4-8.md \
	bench/results/quick-2-4-8.csv bench/results/quick-2-4-8.png \
	bench/results/full-2-4-8.md bench/results/full-2-4-8.csv \
	bench/results/full-2-4-8.png \
	bench/results/quick-io-4.md bench/results/quick-io-4.csv \
	bench/results/quick-io-4-before-local.md \
	bench/results/quick-io-4-before-local.csv
# Stream-ordered pipeline (examples/pipeline --enqueue) on the doubles.
HC_BENCH_FILES += bench/pipeline_enqueue.sh \
	bench/results/pipeline-enqueue-doubles.md
EXTRA_DIST += $(HC_BENCH_FILES)
TESTS += bench/smoke.sh
BENCH_ARGS =
.PHONY: bench bench-full
bench: all
	BUILD='$(abs_top_builddir)' $(SHELL) $(top_srcdir)/bench/run.sh $(BENCH_ARGS)
bench-full: all
	BUILD='$(abs_top_builddir)' $(SHELL) $(top_srcdir)/bench/run.sh --full $(BENCH_ARGS)
