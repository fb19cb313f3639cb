/*
 * cl_fault.h - fault injection of the OpenCL calls (core/fault.h describes
 * the scheme). The OpenCL backend calls its fallible OpenCL functions as
 * FRICL__CL(f): f itself in a normal build; with -DFRICL_FAULT_INJECTION a
 * wrapper (cl_fault.c) that counts through core's fricl__fault_hit and
 * fails the way the real call would. Here, not in core, because only this
 * backend knows OpenCL.
 */
#ifndef FRICL_OPENCL_CL_FAULT_H
#define FRICL_OPENCL_CL_FAULT_H

#include "core/fault.h"
#include "fricl/fricl_cl.h"

#ifndef FRICL_FAULT_INJECTION

#define FRICL__CL(fn) fn

#else

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
/* Test tools (tests/tools/fricl_programs.c): fn(user, source, options) is
 * called with the full text and the build options of every program the
 * library builds, just before clBuildProgram (from the building thread);
 * NULL stops it. Observing is not an operation: nothing is counted. */
typedef void (*fricl__program_observer_fn)(void *user, const char *source,
                                           const char *options);
void fricl__fault_observe_programs(fricl__program_observer_fn fn, void *user);

/* The synthetic build log of an injected clBuildProgram failure. */
#define FRICL__FAULT_BUILD_LOG                                                 \
  "error: fricl fault injection: simulated CL_BUILD_PROGRAM_FAILURE\n"

#endif /* FRICL_FAULT_INJECTION */

#endif /* FRICL_OPENCL_CL_FAULT_H */
