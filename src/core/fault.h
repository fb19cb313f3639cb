/*
 * fault.h - fault injection for the tests: make the n-th fallible operation
 * of the library fail. Not installed, not in the public headers.
 *
 * The library calls its fallible operations through these names:
 *   fricl__malloc, fricl__calloc      host allocations
 *   FRICL__CL(clCreateContext) ...    OpenCL calls (opencl/cl_fault.h)
 *
 * In a normal build (the installed libraries) they are the plain functions:
 * fricl__malloc is malloc and FRICL__CL(f) is f, so nothing is added. Built
 * with -DFRICL_FAULT_INJECTION (the fricl_static_fi test library only), each
 * of them first counts itself and, when it is the operation the test armed,
 * fails the way the real call would: NULL for an allocation, an OpenCL
 * error code for an OpenCL call (CL_BUILD_PROGRAM_FAILURE with a synthetic
 * build log for clBuildProgram). Only that one operation fails; the ones
 * after it run normally, so that the recovery paths themselves are tested.
 */
#ifndef FRICL_FAULT_H
#define FRICL_FAULT_H

#include <stdlib.h>

#include "fricl/fricl.h"

#ifndef FRICL_FAULT_INJECTION

#define fricl__malloc malloc
#define fricl__calloc calloc

#else

/* What the injected operation was (fricl__fault_kind). */
typedef enum fricl__fault_kind_t {
  FRICL__FAULT_NONE = 0,
  FRICL__FAULT_ALLOC = 1,    /* malloc/calloc: NULL */
  FRICL__FAULT_CONTEXT = 2,  /* clCreateContext/CommandQueue: out of host mem */
  FRICL__FAULT_BUFFER = 3,   /* clCreateBuffer: CL_MEM_OBJECT_ALLOCATION_F.. */
  FRICL__FAULT_PROGRAM = 4,  /* clCreateProgramWithSource/Kernel */
  FRICL__FAULT_BUILD = 5,    /* clBuildProgram: CL_BUILD_PROGRAM_FAILURE */
  FRICL__FAULT_ENQUEUE = 6,  /* clEnqueueNDRangeKernel/WriteBuffer */
  FRICL__FAULT_READBACK = 7, /* clEnqueueReadBuffer/MapBuffer */
  FRICL__FAULT_KINDS = 8
} fricl__fault_kind_t;

/* Make the n-th fallible operation from now on fail (n >= 1), once. The
 * operation count restarts at 0. n <= 0 is the same as disarming. */
void fricl__fault_arm(long n);
/* Fail nothing; the operation count restarts at 0. */
void fricl__fault_disarm(void);
/* Fallible operations passed since the last arm/disarm (counted whether or
 * not armed, the failed one included). */
long fricl__fault_count(void);
/* The kind of the operation that was made to fail since the last arm, or
 * FRICL__FAULT_NONE if the armed operation was not reached. */
fricl__fault_kind_t fricl__fault_kind(void);

/* Before the first arm/disarm, FRICL_FAULT_AT=n in the environment arms n
 * (for whole programs such as the CLI). */

/* Count one fallible operation of `kind`; 1 if it is the one to fail.
 * The backends' own wrappers (opencl/cl_fault.c) count through it. */
int fricl__fault_hit(fricl__fault_kind_t kind);

void *fricl__malloc(size_t size);
void *fricl__calloc(size_t count, size_t size);

#endif /* FRICL_FAULT_INJECTION */

#endif /* FRICL_FAULT_H */
