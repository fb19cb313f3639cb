/* devices.h - device spec resolution shared by context creation. */
#ifndef FRICL_DEVICES_H
#define FRICL_DEVICES_H

#include "opencl/opencl.h"

typedef struct fricl__device_choice {
  int reference; /* use the built-in C backend */
  int fell_back; /* "auto" found no OpenCL device */
  int found;     /* an OpenCL device was chosen */
  cl_platform_id platform;
  cl_device_id device;
  int platform_index, device_index;
} fricl__device_choice;

/* Resolve a FRICL_DEVICE-style spec. On error a message is written to msg. */
fricl_status fricl__device_resolve(const char *spec, fricl__device_choice *out,
                                   char *msg, size_t msg_size);

int fricl__device_has_fp64(cl_device_id d);

/* One process-wide lock around OpenCL platform and device queries and
 * context creation: some runtimes (PoCL 3.1) crash when several threads
 * initialise them at once, and fricl promises that separate contexts are
 * independent. Calls that only use an existing context need no lock. */
void fricl__cl_lock(void);
void fricl__cl_unlock(void);

#endif
