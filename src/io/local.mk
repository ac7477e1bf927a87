# src/io: MPI-IO (files, views, data access, collective buffering); a
# layer beside the engine, docs/io.md.
HC_IO_SOURCES = src/io/io.h src/io/io_access.h src/io/io_file.c \
	src/io/io_view.c src/io/io_posix.c src/io/io_shared.c \
	src/io/io_coll.c src/io/io_access.c src/io/io_async.c \
	src/io/io_collq.c \
	src/io/io_ring.h src/io/io_ring.c src/io/io_filetype.c \
	src/io/io_calls.c
