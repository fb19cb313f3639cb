/*
 * fault.h - fault injection for the tests: make the n-th fallible operation
 * of the library fail. Not installed, not in the public headers.
 *
 * The library calls its fallible operations through these names:
 *   fricl__malloc, fricl__calloc      host allocations
 *   FRICL__CL(clCreateContext) ...    OpenCL calls (see the list below)
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
#if FRICL_WITH_OPENCL
#include "fricl/fricl_cl.h"
#endif

#ifndef FRICL_FAULT_INJECTION

#define fricl__malloc malloc
#define fricl__calloc calloc
#define FRICL__CL(fn) fn

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

void *fricl__malloc(size_t size);
void *fricl__calloc(size_t count, size_t size);

#if FRICL_WITH_OPENCL
#define FRICL__CL(fn) fricl__fault_##fn

cl_context fricl__fault_clCreateContext(
    const cl_context_properties *properties, cl_uint num_devices,
    const cl_device_id *devices,
    void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *),
    void *user_data, cl_int *errcode_ret);
cl_command_queue
fricl__fault_clCreateCommandQueue(cl_context context, cl_device_id device,
                                  cl_command_queue_properties properties,
                                  cl_int *errcode_ret);
cl_mem fricl__fault_clCreateBuffer(cl_context context, cl_mem_flags flags,
                                   size_t size, void *host_ptr,
                                   cl_int *errcode_ret);
cl_program fricl__fault_clCreateProgramWithSource(cl_context context,
                                                  cl_uint count,
                                                  const char **strings,
                                                  const size_t *lengths,
                                                  cl_int *errcode_ret);
cl_int fricl__fault_clBuildProgram(
    cl_program program, cl_uint num_devices, const cl_device_id *device_list,
    const char *options, void(CL_CALLBACK *pfn_notify)(cl_program, void *),
    void *user_data);
/* Not fallible (not counted): returns the synthetic build log after an
 * injected build failure, else the real one. */
cl_int fricl__fault_clGetProgramBuildInfo(
    cl_program program, cl_device_id device, cl_program_build_info param_name,
    size_t param_value_size, void *param_value, size_t *param_value_size_ret);
cl_kernel fricl__fault_clCreateKernel(cl_program program,
                                      const char *kernel_name,
                                      cl_int *errcode_ret);
cl_int fricl__fault_clEnqueueNDRangeKernel(
    cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
    const size_t *global_work_offset, const size_t *global_work_size,
    const size_t *local_work_size, cl_uint num_events,
    const cl_event *event_wait_list, cl_event *event);
cl_int fricl__fault_clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer,
                                         cl_bool blocking, size_t offset,
                                         size_t size, const void *ptr,
                                         cl_uint num_events,
                                         const cl_event *event_wait_list,
                                         cl_event *event);
cl_int fricl__fault_clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer,
                                        cl_bool blocking, size_t offset,
                                        size_t size, void *ptr,
                                        cl_uint num_events,
                                        const cl_event *event_wait_list,
                                        cl_event *event);
void *fricl__fault_clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer,
                                      cl_bool blocking, cl_map_flags map_flags,
                                      size_t offset, size_t size,
                                      cl_uint num_events,
                                      const cl_event *event_wait_list,
                                      cl_event *event, cl_int *errcode_ret);
/* The synthetic build log of an injected clBuildProgram failure. */
#define FRICL__FAULT_BUILD_LOG                                                 \
  "error: fricl fault injection: simulated CL_BUILD_PROGRAM_FAILURE\n"

#endif /* FRICL_WITH_OPENCL */

#endif /* FRICL_FAULT_INJECTION */

#endif /* FRICL_FAULT_H */
