# src/device: what memory a pointer is and how to copy it; one ops table
# per memory kind (host, acl, cuda; runtimes are dlopen()ed).
HC_DEVICE_SOURCES = src/device/device.h src/device/device.c \
	src/device/host.c src/device/acl.c src/device/acl.h src/device/cuda.c \
	src/device/hccl.c src/device/hccl.h
