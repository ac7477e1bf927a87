# make fuzz: libFuzzer targets (tests/fuzz/fuzz_*.c: packet receive path,
# PMI-1/PMI-2 parsers) built with clang, each run FUZZ_SECONDS; fuzz-short
# is CI's pass (scripts/check.sh runs it when CI=true and clang exists).
FUZZ_SECONDS = 20
HC_FUZZ_RUN = srcdir='$(top_srcdir)' builddir='$(abs_top_builddir)' \
	HC_FUZZ_SOURCES='$(libhccore_la_SOURCES)'
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/fuzz_packet.c tests/fuzz/fuzz_pmi.c
.PHONY: fuzz fuzz-short
fuzz: all
	$(HC_FUZZ_RUN) FUZZ_SECONDS='$(FUZZ_SECONDS)' $(SHELL) $(top_srcdir)/tests/fuzz/run.sh
# 77 (no usable clang/libFuzzer) is a skip, not a failure.
fuzz-short: all
	$(HC_FUZZ_RUN) FUZZ_SECONDS=8 $(SHELL) $(top_srcdir)/tests/fuzz/run.sh; \
	rc=$$?; test $$rc -eq 77 || exit $$rc
