# make tsan-check: a ThreadSanitizer build in tsan-build/ (tests/tsan/run.sh)
# running thread_multiple and engine_threads; not part of make check (it
# is a second full build).  77 (no usable -fsanitize=thread) is a skip.
EXTRA_DIST += tests/tsan/run.sh
.PHONY: tsan-check
tsan-check:
	srcdir='$(top_srcdir)' builddir='$(abs_top_builddir)' \
	$(SHELL) $(top_srcdir)/tests/tsan/run.sh; \
	rc=$$?; test $$rc -eq 77 || exit $$rc
