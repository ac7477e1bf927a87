# src/bootstrap: who the peers are (PMI-1 wire, PMI-2 wire, PMIx, singleton).
HC_BOOTSTRAP_SOURCES = src/bootstrap/bootstrap.h src/bootstrap/bootstrap.c
# The PMI-1 wire and the key-value store also go into hcmpirun (tools/local.mk).
HC_PMI1_WIRE_SOURCES = src/bootstrap/pmi1_wire.c src/bootstrap/pmi1_wire.h \
	src/bootstrap/kvstore.c src/bootstrap/kvstore.h
HC_BOOTSTRAP_SOURCES += $(HC_PMI1_WIRE_SOURCES) src/bootstrap/pmi1.c \
	src/bootstrap/singleton.c
HC_BOOTSTRAP_SOURCES += src/bootstrap/pmi2_wire.c src/bootstrap/pmi2_wire.h \
	src/bootstrap/pmi2.c src/bootstrap/pmix.c src/bootstrap/pmix_abi.h
# The name service of MPI_Publish_name (a directory jobs share).
HC_BOOTSTRAP_SOURCES += src/bootstrap/names.c src/bootstrap/names.h
